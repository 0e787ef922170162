"""Hypothesis strategies that build a valid instance of any kadmin message class at any version.

Driven only by the schema (``cls._kfields`` and each field's spec), so a new shipped schema is covered the
day it lands, and so are kadmin's own test schemas (``tests/data/schemas``).  "Valid" means: ``encode(version)`` must
succeed.  That rules out a few things on purpose, each for a wire reason:

* a field the version does not have keeps its default (setting a non-ignorable one is an error, and an
  ignorable one would be dropped, so ``decode(encode(x)) == x`` could not hold);
* no ``None`` for uuid fields: Kafka has no null uuid on the wire (null is written as the zero uuid);
* unknown tagged fields only in flexible versions, and only with tags the struct's schema never uses.

Values lean toward the edges that break codecs: integer bounds, float64 bit patterns (NaN payloads,
-0.0, infinities, subnormals, plain ints), non-ASCII text, strings and bytes long enough to need a
two-byte compact length, nulls wherever the version allows them.

Oracles that cannot represent every value (kio keeps error codes as an enum, durations as timedeltas)
pass a ``hook`` that returns a narrower strategy for the fields they care about.
"""

from __future__ import annotations

import struct
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from kadmin.protocol.compiler import Field

# (owner struct class, field, version) -> a strategy for the field's value, or None for the default one.
FieldHook = Callable[[type, Field, int], "st.SearchStrategy[Any] | None"]

INT_RANGES = {
    "int8": (-(2**7), 2**7 - 1),
    "int16": (-(2**15), 2**15 - 1),
    "uint16": (0, 2**16 - 1),
    "int32": (-(2**31), 2**31 - 1),
    "uint32": (0, 2**32 - 1),
    "int64": (-(2**63), 2**63 - 1),
}

_D = struct.Struct(">d")
_Q = struct.Struct(">Q")


def float_from_bits(bits: int) -> float:
    return float(_D.unpack(_Q.pack(bits))[0])


# Bit patterns that a float64 codec gets wrong if it ever goes through anything but the raw 8 bytes.
EDGE_FLOAT_BITS = (
    0x7FF0000000000001,  # signalling NaN, smallest payload
    0x7FF8000000000000,  # the canonical quiet NaN
    0xFFF8000000000000,  # negative quiet NaN
    0x7FF8DEADBEEF0001,  # quiet NaN with a payload
    0xFFFFFFFFFFFFFFFF,  # negative NaN, all payload bits set
    0x8000000000000000,  # -0.0
    0x7FF0000000000000,  # +inf
    0xFFF0000000000000,  # -inf
    0x0000000000000001,  # 5e-324, smallest subnormal
    0x000FFFFFFFFFFFFF,  # largest subnormal
    0x7FEFFFFFFFFFFFFF,  # largest finite
)


def float64s() -> st.SearchStrategy[Any]:
    """Any float64, as a Python float or int (ints are accepted by encode and compare by value)."""
    return st.one_of(
        st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True),
        st.integers(0, 2**64 - 1).map(float_from_bits),
        st.sampled_from(EDGE_FLOAT_BITS).map(float_from_bits),
        st.integers(-(2**63), 2**63),
    )


def ints(kind: str) -> st.SearchStrategy[int]:
    lo, hi = INT_RANGES[kind]
    return st.one_of(st.integers(lo, hi), st.sampled_from(sorted({lo, hi, 0, max(lo, -1), min(hi, 1)})))


def texts() -> st.SearchStrategy[str]:
    # A short run repeated gives a string past 127 bytes (two-byte compact length) without paying for
    # Hypothesis to draw hundreds of characters.
    return st.one_of(st.text(max_size=8), st.text(min_size=1, max_size=3).map(lambda s: s * 60))


def blobs() -> st.SearchStrategy[bytes]:
    return st.one_of(st.binary(max_size=8), st.binary(min_size=1, max_size=3).map(lambda b: b * 70))


def uuids() -> st.SearchStrategy[uuid.UUID]:
    return st.one_of(st.uuids(), st.just(uuid.UUID(int=0)), st.just(uuid.UUID(int=2**128 - 1)))


def _schema_tags(cls: type) -> frozenset[int]:
    return frozenset(f.spec.tag for f in cls._kfields if f.spec.tag is not None)  # type: ignore[attr-defined]


def unknown_tag_maps(cls: type) -> st.SearchStrategy[dict[int, bytes]]:
    used = _schema_tags(cls)
    tag = st.one_of(st.integers(0, 40), st.integers(0, 2**31 - 1)).filter(lambda t: t not in used)
    return st.dictionaries(tag, st.binary(max_size=6), min_size=1, max_size=3)


class _Builder:
    def __init__(self, version: int, flexible: bool, unknown_tags: bool, hook: FieldHook | None,
                 max_items: int) -> None:
        self.version = version
        self.flexible = flexible
        self.unknown_tags = unknown_tags
        self.hook = hook
        self.max_items = max_items
        self.cache: dict[type, st.SearchStrategy[Any]] = {}

    def struct(self, cls: type) -> st.SearchStrategy[Any]:
        s = self.cache.get(cls)
        if s is None:
            s = self._struct(cls)
            self.cache[cls] = s
        return s

    def _struct(self, cls: type) -> st.SearchStrategy[Any]:
        v = self.version
        required: dict[str, st.SearchStrategy[Any]] = {}
        optional: dict[str, st.SearchStrategy[Any]] = {}
        for f in cls._kfields:  # type: ignore[attr-defined]
            if v not in f.spec.versions:
                continue
            value = self.field(cls, f)
            if self.flexible and v in f.spec.tagged:
                optional[f.attr] = value  # a tagged field left out keeps its default: "unset"
            else:
                required[f.attr] = value
        if self.flexible and self.unknown_tags:
            optional["unknown_tagged_fields"] = unknown_tag_maps(cls)
        return st.fixed_dictionaries(required, optional=optional).map(lambda kw: cls(**kw))

    def field(self, owner: type, f: Field) -> st.SearchStrategy[Any]:
        if self.hook is not None:
            custom = self.hook(owner, f, self.version)
            if custom is not None:
                return custom
        t = f.spec.type
        nullable = self.version in f.spec.nullable
        if t.is_array:
            elem = self.struct(f.struct_cls) if t.is_struct else self.scalar(t.name)  # type: ignore[arg-type]
            value: st.SearchStrategy[Any] = st.lists(elem, max_size=self.max_items)
        elif t.is_struct:
            value = self.struct(f.struct_cls)  # type: ignore[arg-type]
        else:
            value = self.scalar(t.name)
        if nullable and (t.is_array or t.name != "uuid"):
            value = st.one_of(st.none(), value)
        return value

    def scalar(self, name: str) -> st.SearchStrategy[Any]:
        if name == "bool":
            return st.booleans()
        if name in INT_RANGES:
            return ints(name)
        if name == "float64":
            return float64s()
        if name == "string":
            return texts()
        if name in ("bytes", "records"):
            return blobs()
        if name == "uuid":
            return uuids()
        raise ValueError(f"no strategy for type {name}")


def messages(cls: type, version: int, *, unknown_tags: bool = True, hook: FieldHook | None = None,
             max_items: int = 3) -> st.SearchStrategy[Any]:
    """A valid instance of message class ``cls`` for ``version``.

    ``unknown_tags=False`` for oracles that drop tags they do not know; ``hook`` narrows single fields.
    """
    flexible = version in cls.SCHEMA.flexible  # type: ignore[attr-defined]
    return _Builder(version, flexible, unknown_tags, hook, max_items).struct(cls)


# --------------------------------------------------------------------------------------------------------
# the cases every protocol test walks, and one Hypothesis budget for them

#: kadmin's own test schemas (written for the codec's tests, in Kafka's schema format): nullable structs
#: regular and tagged, tagged fields, every primitive type, arrays, records, compact and non-compact versions.
TEST_SCHEMAS = Path(__file__).resolve().parent.parent / "data" / "schemas"


def shipped_cases() -> list[tuple[str, int]]:
    """Every (shipped message name, version)."""
    from kadmin.protocol import message_type, shipped_names

    out = []
    for name in shipped_names():
        cls = message_type(name)
        out.extend((name, v) for v in range(cls.MIN_VERSION, cls.MAX_VERSION + 1))
    return out


_TEST_CLASSES: dict[Path, type] = {}


def test_schema_class(name: str, folder: Path = TEST_SCHEMAS) -> type:
    """A class for one test schema, by file name without ``.json`` (kadmin's own by default; the
    reference-comparison tests pass the folder of Kafka's generator test schemas)."""
    from kadmin.protocol import load_schema

    path = folder / f"{name}.json"
    cls = _TEST_CLASSES.get(path)
    if cls is None:
        cls = load_schema(path)
        _TEST_CLASSES[path] = cls
    return cls


test_schema_class.__test__ = False  # type: ignore[attr-defined]  # not a pytest test despite the name

TEST_SCHEMA_NAMES = ("AllTypesMessage", "ArraysMessage", "OptionalStructsMessage", "RecordsMessage",
                     "TaggedFieldsMessage")


def test_schema_cases() -> list[tuple[str, int]]:
    out = []
    for name in TEST_SCHEMA_NAMES:
        cls = test_schema_class(name)
        out.extend((name, v) for v in range(cls.MIN_VERSION, cls.MAX_VERSION + 1))  # type: ignore[attr-defined]
    return out


test_schema_cases.__test__ = False  # type: ignore[attr-defined]


def struct_values(struct_cls: type, version: int, flexible: bool, *, unknown_tags: bool = False,
                  max_items: int = 3) -> st.SearchStrategy[Any]:
    """A valid (never null) instance of one struct class, for hooks that narrow a struct field."""
    return _Builder(version, flexible, unknown_tags, None, max_items).struct(struct_cls)


def budget(max_examples: int) -> settings:
    """Settings for one (message, version) case: the example count is the only knob that matters for
    runtime, so every test states its own; timing-based health checks are off because other engineers
    share the two cores and a slow moment is not a bug."""
    return settings(max_examples=max_examples, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much])


# --------------------------------------------------------------------------------------------------------
# hostile bytes: what a broker (or a corrupting proxy) might send instead of a valid frame

#: Every (message, version) kadmin decodes from the wire: the responses, the response header and the
#: consumer-protocol payloads inside group responses.
_DECODED_FROM_WIRE = {"ResponseHeader", "ConsumerProtocolAssignment", "ConsumerProtocolSubscription"}
DECODE_CASES = [(n, v) for n, v in shipped_cases() if n.endswith("Response") or n in _DECODED_FROM_WIRE]

# Length/count prefixes a hostile peer might plant: int32 and int16 maxima and minima, a 5-byte uvarint
# for 2**32-1 (a compact count of 2**32-2), and a uvarint that never ends.
_HUGE = (b"\x7f\xff\xff\xff", b"\xff\xff\xff\xfe", b"\x7f\xff", b"\x80\x00", b"\xff\xff\xff\xff\x0f",
         b"\xff\xff\xff\xff\xff\xff")


@st.composite
def mutated(draw: Any, data: bytes) -> bytes:
    b = bytearray(data)
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(("flip", "truncate", "insert", "overwrite", "huge", "delete")))
        at = draw(st.integers(0, max(len(b) - 1, 0)))
        if kind == "flip" and b:
            b[at] ^= 1 << draw(st.integers(0, 7))
        elif kind == "truncate":
            del b[at:]
        elif kind == "insert":
            b[at:at] = draw(st.binary(min_size=1, max_size=4))
        elif kind == "overwrite" and b:
            b[at] = draw(st.integers(0, 255))
        elif kind == "huge":
            prefix = draw(st.sampled_from(_HUGE))
            b[at:at + len(prefix)] = prefix
        elif kind == "delete" and b:
            del b[at:at + draw(st.integers(1, 4))]
    return bytes(b)
