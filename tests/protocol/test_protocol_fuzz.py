"""Hostile input: whatever bytes a broker (or a corrupting proxy) sends, decode raises ProtocolError or
returns a message; whatever a caller puts in a message, encode raises ProtocolError or returns bytes.

Decoding is fuzzed for every shipped response (and the other messages kadmin decodes from the wire:
the response header and the consumer-protocol payloads inside group responses) at every version:
valid frames with bits flipped, cut short, with bytes inserted or overwritten, with huge length and
count prefixes planted anywhere, and plain random bytes.  A decode that succeeds must give a message that
encodes, and whose encoding decodes to the same message.  A count larger than the bytes left must be
refused before anything is allocated for it: checked with tracemalloc on planted counts of 2**31-1.

Encoding is fuzzed by planting a wrong value (wrong type, out of range, null where not allowed, a string
longer than an int16 length) in one field of a valid message: the ProtocolError must name the message,
the version and the field's path.
"""

from __future__ import annotations

import tracemalloc
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kadmin.errors import ProtocolError
from kadmin.protocol import message_type
from tests.support.strategies import DECODE_CASES, INT_RANGES, budget, messages, mutated, shipped_cases

ENCODE_CASES = shipped_cases()


def _decode_or_protocol_error(cls: Any, data: bytes, version: int) -> Any:
    try:
        got = cls.decode(data, version)
    except ProtocolError as exc:
        text = str(exc)
        assert cls.NAME in text and f"v{version}" in text, text
        return None
    # Whatever decodes is a real message: it encodes, and that encoding is a fixed point.
    again = got.encode(version)
    assert cls.decode(again, version, exact=True) == got
    return got


@pytest.mark.parametrize(("name", "version"), DECODE_CASES, ids=[f"{n}-v{v}" for n, v in DECODE_CASES])
def test_mutated_frames_only_raise_protocol_error(name: str, version: int) -> None:
    cls = message_type(name)

    @budget(8)
    @given(st.data())
    def check(data: st.DataObject) -> None:
        valid = data.draw(messages(cls, version, max_items=2)).encode(version)
        bad = data.draw(mutated(valid))
        _decode_or_protocol_error(cls, bad, version)
        _decode_or_protocol_error(cls, data.draw(st.binary(max_size=48)), version)

    check()


def _fast_and_reference(cls: Any, data: bytes, version: int) -> tuple[Any, Any]:
    """(fast path, tracing decoder) results for the same bytes: a (message, end) pair or the exception type.

    The tracing decoder is generated from the same schema without any of the fast path's shortcuts (no
    unrolled short arrays, no peeked prefixes, no inlining, every length checked where it is read), so
    it is an independent reading of the bytes that the shortcuts must agree with."""
    out = []
    for trace in (False, True):
        dec = cls._codec(version, trace=trace)[1]
        if trace:
            dec.__globals__["TRACE"].clear()
        try:
            out.append(dec(data, 0, len(data)))
        except Exception as exc:  # noqa: BLE001
            out.append(type(exc))
    return out[0], out[1]


@pytest.mark.parametrize(("name", "version"), DECODE_CASES, ids=[f"{n}-v{v}" for n, v in DECODE_CASES])
def test_fast_decoder_agrees_with_the_reference_decoder(name: str, version: int) -> None:
    cls = message_type(name)

    @budget(8)
    @given(st.data())
    def check(data: st.DataObject) -> None:
        valid = data.draw(messages(cls, version, max_items=3)).encode(version)
        for frame in (valid, data.draw(mutated(valid))):
            fast, ref = _fast_and_reference(cls, frame, version)
            if isinstance(ref, tuple):
                assert fast == ref
            else:  # both refuse the bytes (the exception types may differ: only ProtocolError escapes decode)
                assert not isinstance(fast, tuple), (fast, ref)

    check()


_ALLOC_CASES = [("DescribeGroupsResponse", 0), ("DescribeGroupsResponse", 5), ("MetadataResponse", 1),
                ("MetadataResponse", 12), ("DescribeClientQuotasResponse", 0), ("DescribeClientQuotasResponse", 1),
                ("OffsetFetchResponse", 8), ("ApiVersionsResponse", 3), ("ListOffsetsResponse", 10),
                ("ConsumerProtocolAssignment", 3)]


def _sample(cls: Any, version: int) -> Any:
    """A message with one element in every array, so that every count has a place in the bytes."""
    def fill(scls: Any) -> Any:
        kwargs: dict[str, Any] = {}
        for f in scls._kfields:
            if version not in f.spec.versions:
                continue
            t = f.spec.type
            if t.is_array and t.is_struct:
                kwargs[f.attr] = [fill(f.struct_cls)]
            elif t.is_array:
                kwargs[f.attr] = {"string": ["x"], "uuid": []}.get(t.name, [1])
            elif t.is_struct:
                kwargs[f.attr] = fill(f.struct_cls)
            elif t.name in ("string",):
                kwargs[f.attr] = "ab"
            elif t.name in ("bytes", "records"):
                kwargs[f.attr] = b"cd"
        return scls(**kwargs)
    return fill(cls)


@pytest.mark.parametrize(("name", "version"), _ALLOC_CASES, ids=[f"{n}-v{v}" for n, v in _ALLOC_CASES])
def test_huge_counts_are_refused_before_allocating(name: str, version: int) -> None:
    cls = message_type(name)
    valid = _sample(cls, version).encode(version)
    cls._codec(version, trace=True)  # compile the error-path decoder now, not inside the measurement
    refused = 0
    tracemalloc.start()
    try:
        for at in range(len(valid)):
            for prefix in (b"\x7f\xff\xff\xff", b"\xff\xff\xff\xff\x0f", b"\x7f\xff"):
                bad = valid[:at] + prefix + valid[at + len(prefix):]
                tracemalloc.reset_peak()
                try:
                    cls.decode(bad, version)
                except ProtocolError:
                    refused += 1
                peak = tracemalloc.get_traced_memory()[1]
                # A few KiB for the objects of a small message and the error text; never memory for
                # two billion elements (nor, if Python allocated lazily, for millions).
                assert peak < 256 * 1024, f"{name} v{version}: {peak} bytes peak with {prefix.hex()} at {at}"
    finally:
        tracemalloc.stop()
    assert refused > len(valid)  # the planted counts were read as counts, not all skipped over


def test_array_count_error_says_what_and_where() -> None:
    cls = message_type("DescribeGroupsResponse")
    with pytest.raises(ProtocolError) as exc:
        cls.decode(b"\x00\x00\x00\x00" + b"\x7f\xff\xff\xff" + b"\x00" * 8, 1)
    assert "DescribeGroupsResponse v1" in str(exc.value)
    assert "Groups" in str(exc.value) and "2147483647" in str(exc.value)
    with pytest.raises(ProtocolError, match=r"DescribeGroupsResponse v5: field Groups at offset 4"):
        cls.decode(b"\x00\x00\x00\x00" + b"\xff\xff\xff\xff\x0f" + b"\x00" * 8, 5)


def test_trailing_bytes_with_exact() -> None:
    cls = message_type("FindCoordinatorResponse")
    b = cls().encode(4) + b"\x00"
    assert cls.decode(b, 4) == cls()
    with pytest.raises(ProtocolError, match=r"FindCoordinatorResponse v4: 1 trailing byte"):
        cls.decode(b, 4, exact=True)


def test_invalid_utf8_and_bad_nulls() -> None:
    cls = message_type("SaslHandshakeResponse")
    with pytest.raises(ProtocolError, match=r"SaslHandshakeResponse v1: field Mechanisms\[0\].*UTF-8"):
        cls.decode(b"\x00\x00" + b"\x00\x00\x00\x01" + b"\x00\x02\xc3\x28", 1)
    with pytest.raises(ProtocolError, match=r"SaslHandshakeResponse v1.*null"):
        cls.decode(b"\x00\x00" + b"\xff\xff\xff\xff", 1)  # Mechanisms is not nullable
    with pytest.raises(ProtocolError, match=r"SaslHandshakeResponse v0.*Mechanisms"):
        cls.decode(b"\x00\x00" + b"\x00\x00\x00\x01" + b"\xff\xff", 0)  # null element


# --------------------------------------------------------------------------------------------------------
# encode


def _paths(obj: Any, version: int, prefix: str = "") -> list[tuple[str, Any, Any, Any]]:
    """(path as errors spell it, owning object, field, index or None) for every present field."""
    out: list[tuple[str, Any, Any, Any]] = []
    for f in obj._kfields:
        if version not in f.spec.versions:
            continue
        path = f"{prefix}.{f.spec.name}" if prefix else f.spec.name
        out.append((path, obj, f, None))
        value = getattr(obj, f.attr)
        if f.spec.type.is_struct and value is not None:
            if f.spec.type.is_array:
                for i, element in enumerate(value):
                    out.extend(_paths(element, version, f"{path}[{i}]"))
            else:
                out.extend(_paths(value, version, path))
    return out


def _bad_values(f: Any, version: int, flexible: bool) -> list[Any]:
    """Values encode must refuse for this field in this version."""
    t = f.spec.type
    nullable = version in f.spec.nullable
    bad: list[Any] = [] if nullable or t.name == "uuid" and not t.is_array else [None]
    if t.is_array:
        return bad + [5, "not a list"] + ([[b"\x00"], [None]] if t.name == "string" else [])
    if t.is_struct:
        return bad + [5, "x", object()]
    if t.name in INT_RANGES:
        lo, hi = INT_RANGES[t.name]
        return bad + [lo - 1, hi + 1, "7", 1.5]
    if t.name == "float64":
        return bad + ["1.0", 2**1100]
    if t.name == "string":
        return bad + [5, b"bytes"] + ([] if flexible else ["\u00e9" * 16384])
    if t.name in ("bytes", "records"):
        return bad + [5, "text", [1, 2]]
    if t.name == "uuid":
        return bad + ["12345678-1234-5678-1234-567812345678", 5]
    if t.name == "bool":
        return []  # encoded by truthiness, like any Python bool context
    raise AssertionError(t.name)


@pytest.mark.parametrize(("name", "version"), ENCODE_CASES, ids=[f"{n}-v{v}" for n, v in ENCODE_CASES])
def test_bad_values_refused_with_field_path(name: str, version: int) -> None:
    cls = message_type(name)
    flexible = cls.is_flexible(version)

    @budget(6)
    @given(st.data())
    def check(data: st.DataObject) -> None:
        msg = data.draw(messages(cls, version, max_items=2))
        candidates = [(p, o, f) for p, o, f, _ in _paths(msg, version) if _bad_values(f, version, flexible)]
        if not candidates:
            return
        path, owner, f = data.draw(st.sampled_from(candidates))
        bad = data.draw(st.sampled_from(_bad_values(f, version, flexible)))
        setattr(owner, f.attr, bad)
        with pytest.raises(ProtocolError) as exc:
            msg.encode(version)
        text = str(exc.value)
        assert f"{name} v{version}: field {path}" in text, text

    check()


def test_long_string_in_non_flexible_version() -> None:
    cls = message_type("DescribeGroupsRequest")
    ok = "g" * 32767
    assert len(cls(groups=[ok]).encode(0)) == 4 + 2 + 32767
    with pytest.raises(ProtocolError, match=r"DescribeGroupsRequest v0: field Groups\[0\].*32768.*32767"):
        cls(groups=["g" * 32768]).encode(0)
    assert len(cls(groups=["g" * 40000]).encode(5)) > 40000  # compact strings have no such limit


def test_string_is_not_a_list_of_strings() -> None:
    # A str is iterable: without a check DescribeGroupsRequest(groups="my-group") would describe the
    # groups "m", "y", "-", ...
    cls = message_type("DescribeGroupsRequest")
    with pytest.raises(ProtocolError, match=r"DescribeGroupsRequest v0: field Groups: .*list"):
        cls(groups="my-group").encode(0)


def test_varint_beyond_32_bits_is_refused() -> None:
    # A tag number in five varint bytes whose last byte has bits above 2**32: found by the fuzzer, it
    # used to decode into an unknown tag that no encoder could write back.
    cls = message_type("FindCoordinatorResponse")
    body = bytes.fromhex("00000000" "01")  # throttle, no coordinators
    assert cls.decode(body + b"\x00", 4, exact=True) == cls()
    tag_ok = b"\x01" + b"\xff\xff\xff\xff\x0f" + b"\x00"  # tag 2**32-1, empty payload
    assert cls.decode(body + tag_ok, 4).unknown_tagged_fields == {2**32 - 1: b""}
    assert cls.decode(body + tag_ok, 4).encode(4) == body + tag_ok
    with pytest.raises(ProtocolError, match=r"FindCoordinatorResponse v4.*32 bits"):
        cls.decode(body + b"\x01" + b"\xff\xff\xff\xff\x10" + b"\x00", 4)
