"""Typed message objects built from a schema: snake_case attributes, equality, encode/decode, JSON.

Every struct in a schema becomes a small slotted class; the message class carries its structs as class
attributes (``DescribeGroupsResponse.DescribedGroup``).  Equality compares float64 fields by their bits,
so a NaN payload or a -0.0 that survives the wire also survives ``==``.
"""

from __future__ import annotations

import base64
import math
import struct
import threading
import uuid
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, cast

from kadmin.errors import ProtocolError, SchemaError, UnsupportedVersionError
from kadmin.protocol import primitives as P
from kadmin.protocol.compiler import (
    LAZY_MIN,
    MISSING,
    BadData,
    Field,
    NullNotAllowed,
    VersionCodegen,
    default_value,
    raw_alias,
    snake_case,
)
from kadmin.protocol.rows import with_row_writer, with_rows
from kadmin.protocol.rows_broker import with_request_rows
from kadmin.protocol.schema import FieldSpec, MessageSpec, Versions


def _float_key(v: Any) -> Any:
    """How a float64 value takes part in ``==``: by the bits it will have on the wire.

    An int is accepted by encode (it is packed as a double), so ``value=1`` and ``value=1.0`` encode to the
    same bytes and must compare equal; NaN payloads and -0.0 stay distinct, as they do on the wire.
    """
    if isinstance(v, float):
        return ("f", P.float_bits(v))
    if isinstance(v, int) and not isinstance(v, bool):
        try:
            return ("f", P.float_bits(float(v)))
        except OverflowError:  # too big for a double: encode refuses it, so compare it as the int it is
            return v
    return v


class Struct:
    """Base of every generated struct class (and of messages)."""

    __slots__ = ("_unknown_tags", "_lazy")
    _unknown_tags: dict[int, bytes] | None
    #: Arrays left undecoded by the lazy decoder: {attribute: (materializer, element bytes, count)}; the
    #: attribute's slot stays empty until its first read builds it (see compiler.LazyField).
    _lazy: dict[str, tuple[Any, ...]]
    _kfields: ClassVar[list[Field]] = []
    _owner: ClassVar[type[Message] | None] = None
    _float_attrs: ClassVar[tuple[str, ...]] = ()

    def __init__(self, **kwargs: Any) -> None:  # replaced per class by a generated __init__
        raise TypeError("abstract")

    def __getstate__(self) -> tuple[None, dict[str, Any]]:
        """Copies and pickles hold every field decoded (never the lazy decoder's thunks)."""
        state = {}
        for f in self._kfields:
            state[f.attr] = getattr(self, f.attr)
        state["_unknown_tags"] = self._unknown_tags
        return None, state

    @property
    def unknown_tagged_fields(self) -> dict[int, bytes]:
        """Tagged fields this schema does not know, kept as raw bytes so they can be written back."""
        return dict(self._unknown_tags or {})

    def _key(self) -> tuple[Any, ...]:
        vals = []
        for f in self._kfields:
            v = getattr(self, f.attr)
            if f.spec.type.name == "float64" and not f.spec.type.is_array:
                v = _float_key(v)
            elif f.spec.type.name == "float64" and f.spec.type.is_array and v is not None:
                v = tuple(_float_key(x) for x in v)
            elif isinstance(v, list):
                v = tuple(v)
            elif isinstance(v, (bytearray, memoryview)):
                v = bytes(v)
            vals.append(v)
        vals.append(tuple(sorted((self._unknown_tags or {}).items())))
        return tuple(vals)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._key() == other._key()

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        parts = [f"{f.attr}={getattr(self, f.attr)!r}" for f in self._kfields]
        if self._unknown_tags:
            parts.append(f"unknown_tagged_fields={self._unknown_tags!r}")
        return f"{type(self).__qualname__}({', '.join(parts)})"

    # --- JSON (Kafka's generated JSON converters use the schema's field names)
    def to_json(self, version: int) -> dict[str, Any]:
        return _to_json(self, version, _flexible_of(type(self), version))

    @classmethod
    def from_json(cls, obj: Mapping[str, Any], version: int) -> Any:
        return _from_json(cls, obj, version, _flexible_of(cls, version), cls.__name__)


class Message(Struct):
    """Base of top-level messages: adds the schema, version range and the compiled codecs."""

    __slots__ = ()
    SCHEMA: ClassVar[MessageSpec]
    NAME: ClassVar[str]
    API_KEY: ClassVar[int | None]
    KIND: ClassVar[str]
    MIN_VERSION: ClassVar[int]
    MAX_VERSION: ClassVar[int]
    _codecs: ClassVar[dict[tuple[int, bool, int], tuple[Callable[..., Any], Callable[..., Any]]]]
    _lock: ClassVar[threading.Lock]

    @classmethod
    def is_flexible(cls, version: int) -> bool:
        return version in cls.SCHEMA.flexible

    @classmethod
    def _check_version(cls, version: int) -> None:
        if not isinstance(version, int) or not cls.MIN_VERSION <= version <= cls.MAX_VERSION:
            if cls.MIN_VERSION > cls.MAX_VERSION:  # validVersions "none": an API Kafka removed
                raise UnsupportedVersionError(f"{cls.NAME} has no versions (validVersions \"none\": Kafka removed "
                                              f"it); version {version!r} cannot be used")
            raise UnsupportedVersionError(
                f"{cls.NAME} has versions {cls.MIN_VERSION}-{cls.MAX_VERSION}; version {version!r} is not one of them")

    @classmethod
    def _codec(cls, version: int, trace: bool = False,
               lazy: int = 0) -> tuple[Callable[..., Any], Callable[..., Any]]:
        key = (version, trace, lazy)
        c = cls._codecs.get(key)
        if c is None:
            cls._check_version(version)
            with cls._lock:
                c = cls._codecs.get(key)
                if c is None:
                    c = VersionCodegen(cls.SCHEMA, cls, version, trace, lazy).generate()
                    if lazy:  # the client's decoder: a few answers are read as rows (kadmin.protocol.rows)
                        c = (c[0], with_rows(cls, version, c[1]))
                    elif not trace:  # the fake broker's: a few requests are read as rows (the same module)
                        c = (c[0], with_request_rows(cls, version, c[1]))
                    if not trace:  # a few requests are written from rows (kadmin.protocol.rows)
                        c = (with_row_writer(cls, version, c[0]), c[1])
                    cls._codecs[key] = c
        return c

    def encode(self, version: int) -> bytes:
        """Serialize at ``version``; raises ProtocolError (or FieldVersionError) naming the field that failed."""
        enc = self._codec(version)[0]
        out = bytearray()
        try:
            enc(self, out)
        except Exception as exc:  # noqa: BLE001 - every failure becomes a ProtocolError with a field path
            raise self._encode_error(version, exc) from exc
        return bytes(out)

    def _encode_error(self, version: int, first: Exception) -> ProtocolError:
        from kadmin.errors import FieldVersionError

        if isinstance(first, FieldVersionError):
            return first
        enc = self._codec(version, trace=True)[0]
        ns_trace = _trace_list(enc)
        ns_trace.clear()
        try:
            enc(self, bytearray())
        except Exception as exc:  # noqa: BLE001
            path = _path(ns_trace)
            return ProtocolError(
                f"cannot encode {self.NAME} v{version}: field {path or '<top>'}: {_describe(exc, encoding=True)}")
        finally:
            ns_trace.clear()
        return ProtocolError(f"cannot encode {self.NAME} v{version}: {_describe(first, encoding=True)}")

    @classmethod
    def decode(cls, data: bytes | bytearray | memoryview, version: int, *, exact: bool = False) -> Any:
        """Parse ``data`` at ``version``.

        Only ProtocolError escapes on bad input.  With ``exact=True`` bytes left after the message are an
        error too (a response that decodes with bytes to spare usually means the wrong version was assumed).
        """
        dec = cls._codec(version)[1]
        buf = data if type(data) is bytes else bytes(data)
        blen = len(buf)
        try:
            obj, pos = dec(buf, 0, blen)
        except Exception as exc:  # noqa: BLE001
            raise cls._decode_error(buf, version, exc) from None
        if exact and pos != blen:
            raise ProtocolError(f"{cls.NAME} v{version}: {blen - pos} trailing byte(s) after the message "
                                f"at offset {pos}")
        return obj

    @classmethod
    def decode_from(cls, buf: bytes, pos: int, version: int, *, lazy: bool = False) -> tuple[Any, int]:
        """Parse a message that starts at ``pos`` inside ``buf`` (e.g. after a header); returns (obj, end).

        ``lazy``: struct arrays whose bytes repeat an earlier array of the same field are built on first read
        (same values; see compiler.emit_repeat_decode).  The client decodes its responses so."""
        dec = cls._codec(version, lazy=LAZY_MIN if lazy else 0)[1]
        blen = len(buf)
        try:
            got: tuple[Any, int] = dec(buf, pos, blen)
            return got
        except Exception as exc:  # noqa: BLE001
            raise cls._decode_error(buf, version, exc, start=pos) from None

    @classmethod
    def _decode_error(cls, buf: bytes, version: int, first: Exception, start: int = 0) -> ProtocolError:
        dec = cls._codec(version, trace=True)[1]
        trace = _trace_list(dec)
        trace.clear()
        try:
            dec(buf, start, len(buf))
        except Exception as exc:  # noqa: BLE001
            path = _path(trace)
            offset = trace[-1][1] if trace else start
            trace.clear()
            return ProtocolError(
                f"cannot decode {cls.NAME} v{version}: field {path or '<top>'} at offset {offset}: {_describe(exc)}")
        trace.clear()
        return ProtocolError(f"cannot decode {cls.NAME} v{version}: {_describe(first)}")


def _trace_list(fn: Callable[..., Any]) -> list[tuple[Any, int]]:
    return fn.__globals__["TRACE"]  # type: ignore[no-any-return]


def _path(trace: list[tuple[Any, int]]) -> str:
    out = ""
    for label, _ in trace:
        if isinstance(label, int):
            out += f"[{label}]"
        else:
            out += ("." if out else "") + label
    return out


def _describe(exc: BaseException, encoding: bool = False) -> str:
    if encoding and isinstance(exc, (struct.error, OverflowError)):
        # On the way out a struct.error is a value the field's type cannot hold, not short input.
        return f"value does not fit the field's type ({exc})"
    if isinstance(exc, (P.Truncated, struct.error, IndexError)):
        return f"input ends too early ({exc})" if str(exc) else "input ends too early"
    if isinstance(exc, UnicodeDecodeError):
        return f"invalid UTF-8 ({exc.reason})"
    if isinstance(exc, NullNotAllowed):
        return "null is not allowed in this version"
    if isinstance(exc, BadData):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


# --------------------------------------------------------------------------------------------------------
# class construction


def _make_init(cls_name: str, fields: list[Field], struct_ns: dict[str, Any]) -> Callable[..., None]:
    lines = []
    params = []
    ns: dict[str, Any] = {"MISSING": MISSING}
    for i, f in enumerate(fields):
        if f.default is MISSING:
            params.append(f"{f.attr}=MISSING")
            if f.spec.type.is_array:
                lines.append(f"    self.{f.attr} = [] if {f.attr} is MISSING else {f.attr}")
            else:
                ns[f"S{i}"] = f.struct_cls
                lines.append(f"    self.{f.attr} = S{i}() if {f.attr} is MISSING else {f.attr}")
        else:
            ns[f"D{i}"] = f.default
            params.append(f"{f.attr}=D{i}")
            lines.append(f"    self.{f.attr} = {f.attr}")
    params.append("unknown_tagged_fields=None")
    lines.append("    self._unknown_tags = dict(unknown_tagged_fields) if unknown_tagged_fields else None")
    src = f"def __init__(self, *, {', '.join(params)}):\n" + "\n".join(lines) + "\n"
    filename = f"<kadmin {cls_name}.__init__>"
    exec(compile(src, filename, "exec"), ns)
    return ns["__init__"]  # type: ignore[no-any-return]


def _make_from_values(cls: type, fields: list[Field]) -> Callable[..., Any]:
    """``cls._from_values(v1, v2, ...)``: an instance from every field's value, positionally in schema order,
    with no unknown tagged fields, and none of ``__init__``'s keyword handling or defaults.

    For code that builds many structs of a request from values it already checked (AlterClientQuotas: three
    structs per alteration, 15,000 for 5,000 alterations); callers pass every field, in ``_kfields`` order.
    ``new(*A)`` with a prebuilt ``A = (cls,)``: ``object.__new__`` takes a tuple, and ``new(cls)`` would build one
    per call (see ``VersionCodegen.new_args``)."""
    params = [f"v{i}" for i in range(len(fields))]
    lines = ["    o = new(*A)"] + [f"    o.{f.attr} = v{i}" for i, f in enumerate(fields)]
    lines += ["    o._unknown_tags = None", "    return o"]
    src = f"def _from_values({', '.join(params)}):\n" + "\n".join(lines) + "\n"
    ns: dict[str, Any] = {"new": object.__new__, "A": (cls,)}
    exec(compile(src, f"<kadmin {cls.__qualname__}._from_values>", "exec"), ns)
    return ns["_from_values"]  # type: ignore[no-any-return]


def build_message_class(spec: MessageSpec) -> type[Message]:
    """Create the message class and one class per struct of ``spec``."""
    struct_classes: dict[str, type[Struct]] = {}
    # Create empty classes first (structs may refer to each other in any order), fill fields after.
    for sname, sspec in spec.structs.items():
        attrs = [snake_case(f.name) for f in sspec.fields]
        _check_attrs(spec.name, sname, attrs)
        struct_classes[sname] = type(sname, (Struct,), {"__slots__": tuple(attrs), "__qualname__":
                                                         f"{spec.name}.{sname}", "__module__": "kadmin.protocol"})
    top_attrs = [snake_case(f.name) for f in spec.fields]
    _check_attrs(spec.name, spec.name, top_attrs)
    top = cast("type[Message]", type(spec.name, (Message,), {"__slots__": tuple(top_attrs),
                                                              "__module__": "kadmin.protocol"}))

    def fields_of(owner: str, specs: list[FieldSpec]) -> list[Field]:
        out = []
        for fs in specs:
            scls = struct_classes.get(fs.type.name) if fs.type.is_struct else None
            if fs.type.is_struct and scls is None:
                raise SchemaError(f"{owner}.{fs.name}: unknown struct {fs.type.name}")
            out.append(Field(fs, snake_case(fs.name), None, scls))
        return out

    # Defaults of struct fields need the struct classes' fields, so resolve fields before defaults.
    all_fields: list[tuple[type[Struct], list[Field], str]] = []
    for sname, sspec in spec.structs.items():
        all_fields.append((struct_classes[sname], fields_of(sname, sspec.fields), sname))
    all_fields.append((top, fields_of(spec.name, spec.fields), spec.name))
    for cls, flist, owner in all_fields:
        for f in flist:
            f.default = default_value(f.spec, owner, struct_classes)
        cls._kfields = flist
        cls._owner = top
        cls.__init__ = _make_init(owner, flist, {})  # type: ignore[method-assign]
        cls._from_values = staticmethod(_make_from_values(cls, flist))  # type: ignore[attr-defined]
        for f in flist:  # the slot of each struct array under a second name, for the decoders (raw_alias)
            if f.spec.type.is_array and f.spec.type.is_struct:
                setattr(cls, raw_alias(f.attr), cls.__dict__[f.attr])
    for sname, scls in struct_classes.items():
        setattr(top, sname, scls)
    top.SCHEMA = spec
    top.NAME = spec.name
    top.API_KEY = spec.api_key
    top.KIND = spec.type
    top.MIN_VERSION = spec.valid.lo
    top.MAX_VERSION = spec.valid.hi
    top._codecs = {}
    top._lock = threading.Lock()
    return top


def _check_attrs(msg: str, owner: str, attrs: list[str]) -> None:
    dup = {a for a in attrs if attrs.count(a) > 1}
    if dup:
        raise SchemaError(f"{msg}.{owner}: fields map to the same attribute name(s) {sorted(dup)}")


def _flexible_of(cls: type, version: int) -> bool:
    owner: Any = getattr(cls, "_owner", None) or cls
    return version in owner.SCHEMA.flexible


# --------------------------------------------------------------------------------------------------------
# JSON conversion (not on the hot path: interpreted)


def _float_to_json(x: float) -> Any:
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return x


def _float_from_json(v: Any, where: str) -> float:
    if isinstance(v, bool):
        raise ProtocolError(f"{where}: expected a number, got a boolean")
    if isinstance(v, (int, float)):
        return float(v)
    if v in ("NaN", "Infinity", "-Infinity"):
        return float(v.replace("Infinity", "inf"))
    raise ProtocolError(f"{where}: expected a number, got {v!r}")


def _scalar_to_json(t: str, v: Any) -> Any:
    if v is None:
        return None
    if t == "float64":
        return _float_to_json(v)
    if t in ("bytes", "records"):
        return base64.b64encode(bytes(v)).decode("ascii")
    if t == "uuid":
        return str(v)
    return v


def _scalar_from_json(t: str, v: Any, where: str) -> Any:
    if v is None:
        return None
    try:
        if t == "float64":
            return _float_from_json(v, where)
        if t in ("bytes", "records"):
            return base64.b64decode(v, validate=True)
        if t == "uuid":
            return v if isinstance(v, uuid.UUID) else P.parse_uuid(v)
        if t == "bool":
            if not isinstance(v, bool):
                raise ProtocolError(f"{where}: expected a boolean, got {v!r}")
            return v
        if t == "string":
            if not isinstance(v, str):
                raise ProtocolError(f"{where}: expected a string, got {v!r}")
            return v
        if not isinstance(v, int) or isinstance(v, bool):
            raise ProtocolError(f"{where}: expected an integer, got {v!r}")
        return v
    except (ValueError, TypeError) as exc:
        raise ProtocolError(f"{where}: {exc}") from None


def _to_json(obj: Struct, version: int, flexible: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in obj._kfields:
        if version not in f.spec.versions:
            continue
        v = getattr(obj, f.attr)
        t = f.spec.type
        if t.is_struct and not t.is_array:
            out[f.spec.name] = None if v is None else _to_json(v, version, flexible)
        elif t.is_array:
            if v is None:
                out[f.spec.name] = None
            elif t.is_struct:
                out[f.spec.name] = [_to_json(e, version, flexible) for e in v]
            else:
                out[f.spec.name] = [_scalar_to_json(t.name, e) for e in v]
        else:
            out[f.spec.name] = _scalar_to_json(t.name, v)
    return out


def _from_json(cls: type[Struct], obj: Mapping[str, Any], version: int, flexible: bool, where: str) -> Any:
    if not isinstance(obj, Mapping):
        raise ProtocolError(f"{where}: expected an object, got {type(obj).__name__}")
    known = {f.spec.name for f in cls._kfields}
    extra = set(obj) - known
    if extra:
        raise ProtocolError(f"{where}: unknown field(s) {sorted(extra)}")
    kwargs: dict[str, Any] = {}
    for f in cls._kfields:
        if f.spec.name not in obj:
            continue
        fw = f"{where}.{f.spec.name}"
        if version not in f.spec.versions:
            raise ProtocolError(f"{fw}: not present in version {version}")
        v = obj[f.spec.name]
        t = f.spec.type
        if v is None:
            if version not in f.spec.nullable:
                raise ProtocolError(f"{fw}: null is not allowed in version {version}")
            kwargs[f.attr] = None
        elif t.is_struct and not t.is_array:
            kwargs[f.attr] = _from_json(f.struct_cls, v, version, flexible, fw)  # type: ignore[arg-type]
        elif t.is_array:
            if not isinstance(v, list):
                raise ProtocolError(f"{fw}: expected an array")
            if t.is_struct:
                kwargs[f.attr] = [_from_json(f.struct_cls, e, version, flexible, f"{fw}[{i}]")  # type: ignore[arg-type]
                                  for i, e in enumerate(v)]
            else:
                kwargs[f.attr] = [_scalar_from_json(t.name, e, f"{fw}[{i}]") for i, e in enumerate(v)]
        else:
            kwargs[f.attr] = _scalar_from_json(t.name, v, fw)
    return cls(**kwargs)


__all__ = ["Message", "Struct", "build_message_class", "Versions"]
