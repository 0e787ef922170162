"""kadmin's codec against itself and against hand-computed bytes.

The property tests run every shipped (message, version) and every (message, version) of kadmin's own test
schemas (``tests/data/schemas``): ``decode(encode(x)) == x`` and ``encode(decode(b)) == b``.  The targeted tests pin the
corners a property test only reaches by luck: float64 bit patterns, KIP-893 nullable structs, tagged-field
order and omission, unknown tags, version errors, schema defaults, headers and the JSON form.
"""

from __future__ import annotations

import base64
import json
import math
import struct
import uuid
from typing import Any

import pytest
from hypothesis import given

from kadmin.errors import FieldVersionError, ProtocolError
from kadmin.protocol import headers, message_type
from tests.support.strategies import (
    budget,
    float64s,
    float_from_bits,
    messages,
    shipped_cases,
    test_schema_cases,
    test_schema_class,
)

SHIPPED = shipped_cases()
TEST_SCHEMA = test_schema_cases()


def _assert_roundtrip(cls: Any, version: int, x: Any) -> None:
    b = x.encode(version)
    y = cls.decode(b, version, exact=True)
    assert y == x
    assert y.encode(version) == b


@pytest.mark.parametrize(("name", "version"), SHIPPED, ids=[f"{n}-v{v}" for n, v in SHIPPED])
def test_shipped_roundtrip(name: str, version: int) -> None:
    cls = message_type(name)

    @budget(25)
    @given(messages(cls, version))
    def check(x: Any) -> None:
        _assert_roundtrip(cls, version, x)

    check()


@pytest.mark.parametrize(("name", "version"), TEST_SCHEMA, ids=[f"{n}-v{v}" for n, v in TEST_SCHEMA])
def test_generator_schema_roundtrip(name: str, version: int) -> None:
    cls = test_schema_class(name)

    @budget(60)
    @given(messages(cls, version))
    def check(x: Any) -> None:
        _assert_roundtrip(cls, version, x)

    check()


def test_counts_cover_every_version() -> None:
    # A registry bug that hid a schema would make the parametrized tests pass vacuously.
    names = {n for n, _ in SHIPPED}
    assert len(names) >= 32 and {"DescribeClientQuotasResponse", "AlterClientQuotasRequest", "RequestHeader"} <= names
    assert ("MetadataResponse", 12) in SHIPPED and ("ListOffsetsRequest", 0) in SHIPPED
    assert len(TEST_SCHEMA) == 13


# --------------------------------------------------------------------------------------------------------
# float64

QUOTAS = message_type("DescribeClientQuotasResponse")


def _quota_value_bytes(value: Any, version: int) -> bytes:
    """The 8 value bytes of the one quota value in a one-entry DescribeClientQuotasResponse."""
    msg = QUOTAS(entries=[QUOTAS.EntryData(values=[QUOTAS.ValueData(key="k", value=value)])])
    b = msg.encode(version)
    back = QUOTAS.decode(b, version, exact=True)
    assert back == msg
    got = back.entries[0].values[0].value
    assert struct.pack(">d", got) == struct.pack(">d", float(value))
    # The value is the last thing in the message, followed in v1 by three empty tagged-field sections
    # (ValueData's, EntryData's and the message's).
    end = len(b) - (3 if version >= 1 else 0)
    assert b[end:] == b"\x00" * (len(b) - end)
    return b[end - 8:end]


@pytest.mark.parametrize("bits", [0x7FF0000000000001, 0xFFF8000000000000, 0x7FF8000000000000,
                                  0xFFF0000000000001, 0x8000000000000000, 0x7FF0000000000000,
                                  0xFFF0000000000000, 0x0000000000000001, 0x000FFFFFFFFFFFFF])
@pytest.mark.parametrize("version", [0, 1])
def test_float64_bits_survive_byte_exact(bits: int, version: int) -> None:
    value = float_from_bits(bits)
    assert _quota_value_bytes(value, version) == bits.to_bytes(8, "big")


def test_float64_edge_values_are_what_the_tests_claim() -> None:
    assert float_from_bits(0x0000000000000001) == 5e-324
    assert math.copysign(1.0, float_from_bits(0x8000000000000000)) == -1.0
    assert math.isnan(float_from_bits(0x7FF0000000000001))


def test_float64_equality_is_by_bits() -> None:
    v = QUOTAS.ValueData
    assert v(key="k", value=float("nan")) == v(key="k", value=float("nan"))  # same bits, unlike float ==
    assert v(key="k", value=float_from_bits(0x7FF8000000000001)) != v(key="k", value=float("nan"))
    assert v(key="k", value=-0.0) != v(key="k", value=0.0)


@pytest.mark.parametrize("n", [0, 1, -7, 2**53 + 1, -(2**63)])
def test_float64_accepts_ints(n: int) -> None:
    as_int = QUOTAS.ValueData(key="k", value=n)
    as_float = QUOTAS.ValueData(key="k", value=float(n))
    assert as_int == as_float  # same bytes on the wire, so the same value
    msg_i = QUOTAS(entries=[QUOTAS.EntryData(values=[as_int])])
    msg_f = QUOTAS(entries=[QUOTAS.EntryData(values=[as_float])])
    for version in (0, 1):
        assert msg_i.encode(version) == msg_f.encode(version)
        assert QUOTAS.decode(msg_i.encode(version), version) == msg_i


def test_float64_too_big_int_is_a_protocol_error() -> None:
    msg = QUOTAS(entries=[QUOTAS.EntryData(values=[QUOTAS.ValueData(key="k", value=2**1100)])])
    with pytest.raises(ProtocolError, match=r"DescribeClientQuotasResponse v1: field Entries\[0\]\.Values\[0\]\.Value"):
        msg.encode(1)


def test_float64_tagged_default_compares_bits() -> None:
    # TaggedFieldsMessage.Weight is tagged with default 2.5: equal bits are omitted, other bits are not.
    cls = test_schema_class("TaggedFieldsMessage")
    base = cls().encode(1)
    assert base == bytes.fromhex("00000000" "01" "00")
    assert cls(weight=2.5).encode(1) == base
    assert cls(weight=-0.0).encode(1) == base[:-1] + bytes.fromhex("01" "03" "08" "8000000000000000")
    with_nan = cls(weight=float_from_bits(0x7FF0000000000001)).encode(1)
    assert with_nan == base[:-1] + bytes.fromhex("01" "03" "08" "7ff0000000000001")
    assert struct.pack(">d", cls.decode(with_nan, 1).weight) == bytes.fromhex("7ff0000000000001")


@budget(200)
@given(float64s())
def test_float64_strategy_values_roundtrip_bits(value: Any) -> None:
    for version in (0, 1):
        assert _quota_value_bytes(value, version) == struct.pack(">d", float(value))


# --------------------------------------------------------------------------------------------------------
# KIP-893 nullable structs, hand-computed bytes

NULLABLE = test_schema_class("OptionalStructsMessage")


def test_nullable_struct_untagged_bytes() -> None:
    owner, limits = NULLABLE.Principal, NULLABLE.LimitSet
    # v0: Owner is nullable (int8 marker -1), Limits is not (no marker at all), and defaults to Rate=0.
    assert NULLABLE().encode(0) == bytes.fromhex("ff" "00000000")
    present = NULLABLE(owner=owner(kind=1, name="a"), limits=limits(rate=2))
    assert present.encode(0) == bytes.fromhex("01" "01" "0001" "61" "00000002")
    with pytest.raises(ProtocolError, match=r"OptionalStructsMessage v0: field Limits: null"):
        NULLABLE(limits=None).encode(0)
    # v1 (flexible): untagged nullable structs still use the int8 marker; each struct has its own tag count.
    both_null = NULLABLE(owner=None, limits=None, origin=NULLABLE.OriginInfo())
    assert both_null.encode(1) == bytes.fromhex("ff" "ff" "00")
    assert present.encode(1) == bytes.fromhex("01" "01" "02" "61" "00" "01" "00000002" "00" "00")
    # v2 adds Revision after the untagged structs and before the tagged-field section.
    assert NULLABLE(owner=owner(kind=1, name="a"), limits=limits(rate=2), revision=-2).encode(2) == bytes.fromhex(
        "01" "01" "02" "61" "00" "01" "00000002" "00" "fffe" "00")
    for v in (0, 1, 2):
        assert NULLABLE.decode(present.encode(v), v, exact=True) == present


def test_nullable_struct_tagged_bytes() -> None:
    audit, origin = NULLABLE.AuditInfo, NULLABLE.OriginInfo
    base = NULLABLE(owner=None, limits=None)
    # Audit defaults to null: left null it is not written at all.
    # Origin defaults to an empty struct: null differs from that, so it is written as size 1 + uvarint 0.
    msg = NULLABLE(owner=None, limits=None, origin=None)
    assert msg.encode(1) == bytes.fromhex("ff" "ff" "01" "01" "01" "00")
    # A present tagged struct: uvarint 1 marker, then the struct; the size counts the marker.
    msg = NULLABLE(owner=None, limits=None, audit=audit(who="x", serial=2))
    assert msg.encode(1) == bytes.fromhex("ff" "ff" "01" "00" "08" "01" "02" "78" "00000002" "00")
    msg = NULLABLE(owner=None, limits=None, audit=audit(), origin=None)
    assert msg.encode(2) == bytes.fromhex("ff" "ff" "0000" "02" "00" "07" "01" "01" "00000000" "00" "01" "01" "00")
    assert NULLABLE.decode(msg.encode(2), 2, exact=True) == msg
    assert base.encode(1) == bytes.fromhex("ff" "ff" "00")
    # A present Origin equal to its default is omitted like any default tagged value.
    assert NULLABLE(owner=None, limits=None, origin=origin()).encode(1) == base.encode(1)
    assert NULLABLE(owner=None, limits=None, origin=origin(zone="z")).encode(1) == bytes.fromhex(
        "ff" "ff" "01" "01" "04" "01" "02" "7a" "00")  # the struct's own empty tag section ends it


def test_nullable_struct_decode_of_hand_made_bytes() -> None:
    got = NULLABLE.decode(bytes.fromhex("ff" "01" "00000005" "00" "02" "00" "08" "01" "02" "78" "00000002" "00"
                                        "01" "01" "00"), 1, exact=True)
    assert got.owner is None
    assert got.limits == NULLABLE.LimitSet(rate=5)
    assert got.audit == NULLABLE.AuditInfo(who="x", serial=2)
    assert got.origin is None


# --------------------------------------------------------------------------------------------------------
# every primitive type, non-compact (v0) and compact (v1), by hand

ALL = test_schema_class("AllTypesMessage")


def _all_types_sample() -> Any:
    return ALL(enabled=True, level=-1, code=258, port=65535, count=-2, mask=2**32 - 1, offset=1, ratio=1.0,
               label="hi", comment=None, payload=b"\x01", extra=None, request_id=uuid.UUID(int=1), batch=None,
               ids=[3], names=None, members=[], home=ALL.Location(lat=0.5, zone=-1),
               settings=[ALL.Setting(key="k", value=None)])


_FIXED_PART = ("01" "ff" "0102" "ffff" "fffffffe" "ffffffff" "0000000000000001" "3ff0000000000000")
_UUID_1 = "00000000000000000000000000000001"


def test_every_type_non_compact_bytes() -> None:
    wire = bytes.fromhex(
        _FIXED_PART
        + "0002" "6869"  # string: int16 length
        + "ffff"  # null string: length -1
        + "00000001" "01"  # bytes: int32 length
        + "ffffffff"  # null bytes
        + _UUID_1
        + "ffffffff"  # null records
        + "00000001" "0000000000000003"  # []int64: int32 count
        + "ffffffff"  # null array
        + "00000000"  # empty []uuid
        + "3fe0000000000000" "ffff"  # Home
        + "0000000000000000" "ffff"  # Away: the schema's defaults (Zone -1)
        + "00000001" "0001" "6b" "ffff")  # one Setting, null Value
    assert _all_types_sample().encode(0) == wire
    assert ALL.decode(wire, 0, exact=True) == _all_types_sample()


def test_every_type_compact_bytes() -> None:
    wire = bytes.fromhex(
        _FIXED_PART
        + "03" "6869"  # compact string: uvarint length + 1
        + "00"  # null compact string
        + "02" "01"  # compact bytes
        + "00"  # null compact bytes
        + _UUID_1
        + "00"  # null compact records
        + "02" "0000000000000003"  # compact array: uvarint count + 1
        + "00"  # null compact array
        + "01"  # empty compact array
        + "3fe0000000000000" "ffff" "00"  # Home, with its tagged-field section
        + "0000000000000000" "ffff" "00"  # Away
        + "02" "02" "6b" "00" "00"  # one Setting: Key, null Value, its tags
        + "00")  # the message's tagged fields
    assert _all_types_sample().encode(1) == wire
    assert ALL.decode(wire, 1, exact=True) == _all_types_sample()


def test_unsigned_types_refuse_out_of_range_values() -> None:
    for kw in ({"port": -1}, {"port": 2**16}, {"mask": -1}, {"mask": 2**32}):
        with pytest.raises(ProtocolError, match="AllTypesMessage v0"):
            ALL(**kw).encode(0)


# --------------------------------------------------------------------------------------------------------
# tagged fields

TAGGED = test_schema_class("TaggedFieldsMessage")
_TAGGED_V1_PREFIX = bytes.fromhex("00000000" "01")  # Id 0, Name "" (compact)


def test_tagged_fields_only_non_default_in_ascending_tag_order() -> None:
    assert TAGGED().encode(1) == _TAGGED_V1_PREFIX + b"\x00"
    # Defaults given explicitly are still defaults: nothing is written.
    explicit = TAGGED(priority=7, weight=2.5, title="", blob=b"", nickname=None, epoch=0x1234567890ABCDEF,
                      trace_id=uuid.UUID("00112233-4455-6677-8899-aabbccddeeff"), ports=[], flag=False)
    assert explicit.encode(1) == _TAGGED_V1_PREFIX + b"\x00"
    # Keyword order is irrelevant; the wire order is by tag.
    msg = TAGGED(epoch=5, title="a", priority=8, ports=[7])
    assert msg.encode(1) == _TAGGED_V1_PREFIX + bytes.fromhex(
        "04" "00" "05" "02" "00000007" "02" "02" "0008" "04" "02" "0261" "07" "08" "0000000000000005")
    assert TAGGED.decode(msg.encode(1), 1, exact=True) == msg


def test_tag_above_127_is_a_two_byte_uvarint() -> None:
    msg = TAGGED(flag=True, nickname="n")
    assert msg.encode(1) == _TAGGED_V1_PREFIX + bytes.fromhex("02" "01" "02" "026e" "ac02" "01" "01")
    assert TAGGED.decode(msg.encode(1), 1, exact=True) == msg


def test_tagged_field_null_where_default_is_not_null() -> None:
    # Blob is nullable with default b"": null differs and is written as size 1 + compact null 0x00.
    assert TAGGED(blob=None).encode(1) == _TAGGED_V1_PREFIX + bytes.fromhex("01" "05" "01" "00")
    assert TAGGED.decode(TAGGED(blob=None).encode(1), 1).blob is None


def test_tagged_field_long_payload_size_is_a_varint() -> None:
    msg = TAGGED(title="é" * 100)  # 200 bytes of UTF-8: compact length 201 and size 202 need 2 bytes
    b = msg.encode(1)
    assert b[len(_TAGGED_V1_PREFIX):len(_TAGGED_V1_PREFIX) + 6] == bytes.fromhex("01" "04" "ca01" "c901")
    assert TAGGED.decode(b, 1, exact=True) == msg


def test_unknown_tags_kept_and_rewritten_in_order() -> None:
    # At v1 tags 8 and 9 are not TaggedFieldsMessage fields yet (they start at v2): unknown there.
    wire = _TAGGED_V1_PREFIX + bytes.fromhex("04" "02" "02" "0008" "07" "08" "0000000000000005"
                                             "08" "00" "09" "02" "abcd")
    got = TAGGED.decode(wire, 1, exact=True)
    assert got.priority == 8 and got.epoch == 5
    assert got.unknown_tagged_fields == {8: b"", 9: b"\xab\xcd"}
    assert got.encode(1) == wire
    # Given by the caller, unknown tags merge with known ones by tag order.
    built = TAGGED(priority=8, epoch=5, unknown_tagged_fields={9: b"\xab\xcd", 8: b""})
    assert built.encode(1) == wire
    assert built == got
    # At v2 tags 8 and 9 are fields: the same payload bytes decode into them.
    v2 = bytes.fromhex("00000000" "01" "02" "08" "03" "02" "6f" "00" "09" "08" "0000000000000009")
    back = TAGGED.decode(v2, 2, exact=True)
    assert back.detail == TAGGED.DetailInfo(text="o") and back.hint == 9 and back.unknown_tagged_fields == {}
    assert TAGGED.decode(TAGGED(unknown_tagged_fields={30: b"x"}).encode(2), 2).unknown_tagged_fields == {30: b"x"}


def test_unknown_tags_in_nested_struct_and_big_tag_numbers() -> None:
    api = message_type("ApiVersionsResponse")
    key = api.ApiVersion(api_key=3, min_version=0, max_version=12, unknown_tagged_fields={2**31 - 1: b"\x00" * 200})
    msg = api(api_keys=[key], unknown_tagged_fields={4: b"z", 200: b""})
    b = msg.encode(3)
    back = api.decode(b, 3, exact=True)
    assert back.api_keys[0].unknown_tagged_fields == {2**31 - 1: b"\x00" * 200}
    assert back.unknown_tagged_fields == {4: b"z", 200: b""}
    assert back.encode(3) == b
    # Unknown tags cannot be written in a version without a tagged-field section.
    with pytest.raises(ProtocolError, match="ApiVersionsResponse v2"):
        msg.encode(2)


def test_tagged_field_size_mismatch_is_refused() -> None:
    # tag 2 (Priority, 2 bytes) announced with size 3
    wire = _TAGGED_V1_PREFIX + bytes.fromhex("01" "02" "03" "000800")
    with pytest.raises(ProtocolError, match=r"TaggedFieldsMessage v1.*Priority"):
        TAGGED.decode(wire, 1)


# --------------------------------------------------------------------------------------------------------
# fields a version lacks

def test_non_ignorable_field_in_wrong_version_names_field_and_version() -> None:
    req = message_type("MetadataRequest")
    with pytest.raises(FieldVersionError) as exc:
        req(topics=[], allow_auto_topic_creation=False).encode(3)
    assert "MetadataRequest.AllowAutoTopicCreation" in str(exc.value)
    assert "version 3" in str(exc.value)
    assert req(topics=[], allow_auto_topic_creation=True).encode(3) == b"\x00\x00\x00\x00"  # the default is fine
    lo = message_type("ListOffsetsRequest")
    nested = lo(topics=[lo.ListOffsetsTopic(name="t", partitions=[lo.ListOffsetsPartition(max_num_offsets=5)])])
    nested.encode(0)
    with pytest.raises(FieldVersionError, match=r"ListOffsetsRequest\.ListOffsetsPartition\.MaxNumOffsets.*version 1"):
        nested.encode(1)
    assert isinstance(exc.value, ProtocolError)


def test_ignorable_field_in_wrong_version_is_dropped() -> None:
    resp = message_type("MetadataResponse")
    msg = resp(cluster_id="abc", controller_id=3, throttle_time_ms=9,
               brokers=[resp.MetadataResponseBroker(node_id=1, host="h", port=2, rack="r")])
    b = msg.encode(0)
    assert b == bytes.fromhex("00000001" "00000001" "0001" "68" "00000002" "00000000")
    back = resp.decode(b, 0, exact=True)
    assert back.cluster_id is None and back.controller_id == -1 and back.throttle_time_ms == 0
    assert back.brokers[0].rack is None


# --------------------------------------------------------------------------------------------------------
# defaults

def test_defaults_come_from_the_schema() -> None:
    assert message_type("MetadataRequest")().allow_auto_topic_creation is True
    cluster = message_type("DescribeClusterResponse")()
    assert cluster.controller_id == -1 and cluster.endpoint_type == 1
    assert cluster.cluster_authorized_operations == -2147483648
    assert cluster.error_message is None
    assert message_type("ConsumerProtocolSubscription")().generation_id == -1
    assert message_type("DescribeClientQuotasResponse")().entries == []
    tagged = TAGGED()
    assert tagged.priority == 7 and tagged.weight == 2.5 and tagged.epoch == 0x1234567890ABCDEF
    assert tagged.trace_id == uuid.UUID(bytes=base64.urlsafe_b64decode("ABEiM0RVZneImaq7zN3u_w=="))
    assert tagged.nickname is None and tagged.title == "" and tagged.blob == b"" and tagged.flag is False
    every = ALL()
    assert every.port == 40000 and every.mask == 3000000000 and every.ratio == 0.5 and every.comment is None
    assert every.home == ALL.Location(lat=0.0, zone=-1)
    assert every.home is not every.away  # fresh struct per field
    assert TAGGED().ports is not TAGGED().ports  # fresh list per instance
    assert NULLABLE().owner is None and NULLABLE().origin == NULLABLE.OriginInfo()


def test_decoded_absent_fields_hold_defaults() -> None:
    resp = message_type("MetadataResponse")
    back = resp.decode(resp().encode(0), 0)
    assert back.controller_id == -1 and back.cluster_authorized_operations == -2147483648
    assert back.unknown_tagged_fields == {}


# --------------------------------------------------------------------------------------------------------
# headers

def test_header_versions() -> None:
    assert headers.request_header_version(3, 8) == 1
    assert headers.request_header_version(3, 9) == 2
    assert headers.response_header_version(3, 8) == 0
    assert headers.response_header_version(3, 9) == 1
    assert headers.request_header_version(18, 2) == 1
    assert headers.request_header_version(18, 3) == 2
    for v in range(0, 5):  # KIP-511: the ApiVersions response header is v0 even in flexible versions
        assert headers.response_header_version(18, v) == 0
    assert headers.request_header_version(48, 0) == 1 and headers.request_header_version(48, 1) == 2
    assert headers.response_header_version(48, 0) == 0 and headers.response_header_version(48, 1) == 1


def test_request_header_client_id_is_int16_string_even_in_v2() -> None:
    assert headers.encode_request_header(18, 3, 7, None) == bytes.fromhex("0012" "0003" "00000007" "ffff" "00")
    assert headers.encode_request_header(18, 3, 7, "ab") == bytes.fromhex("0012" "0003" "00000007" "0002" "6162" "00")
    assert headers.encode_request_header(18, 2, 7, "ab") == bytes.fromhex("0012" "0002" "00000007" "0002" "6162")
    hdr = message_type("RequestHeader")
    for version, cid in ((1, "ab"), (2, "ab"), (2, None), (1, "é" * 200)):
        ours = hdr(request_api_key=18, request_api_version=3 if version == 2 else 2, correlation_id=7, client_id=cid)
        api_version = 3 if version == 2 else 2
        assert ours.encode(version) == headers.encode_request_header(18, api_version, 7, cid)
    assert hdr(request_api_key=1, request_api_version=2, correlation_id=3, client_id="x").encode(0) == bytes.fromhex(
        "0001" "0002" "00000003")


def test_request_header_decode() -> None:
    frame = headers.encode_request_header(3, 12, 99, "kad") + b"BODY"
    assert headers.decode_request_header(frame) == (3, 12, 99, "kad", len(frame) - 4)
    frame = headers.encode_request_header(3, 8, 99, None) + b"BODY"
    assert headers.decode_request_header(frame) == (3, 8, 99, None, len(frame) - 4)
    full = headers.encode_request(3, 12, 1, "c", b"xyz")
    assert struct.unpack(">i", full[:4])[0] == len(full) - 4


def test_response_header_offsets() -> None:
    resp_hdr = message_type("ResponseHeader")
    v1 = resp_hdr(correlation_id=5, unknown_tagged_fields={1: b"ab"}).encode(1)
    frame = v1 + b"BODY"
    assert headers.read_correlation_id(frame) == 5
    assert headers.response_body_offset(frame, 1) == len(v1)
    assert headers.response_body_offset(frame, 0) == 4
    with pytest.raises(ProtocolError):
        headers.response_body_offset(bytes.fromhex("00000005" "01" "01" "09"), 1)


# --------------------------------------------------------------------------------------------------------
# JSON

def test_to_json_forms() -> None:
    sub = message_type("ConsumerProtocolSubscription")
    j = sub(topics=["t"], user_data=b"\x00\xff").to_json(0)
    assert j == {"Topics": ["t"], "UserData": "AP8="}
    md = message_type("MetadataResponse")
    topic_id = uuid.UUID("12345678-1234-5678-1234-567812345678")
    j = md(topics=[md.MetadataResponseTopic(name="t", topic_id=topic_id)]).to_json(12)
    assert j["Topics"][0]["TopicId"] == "12345678-1234-5678-1234-567812345678"
    back = md.from_json(j, 12)
    assert back.topics[0].topic_id == topic_id
    # Kafka's own base64 text form is accepted on input too.
    j["Topics"][0]["TopicId"] = base64.urlsafe_b64encode(topic_id.bytes).decode().rstrip("=")
    assert md.from_json(j, 12).topics[0].topic_id == topic_id


@pytest.mark.parametrize(("value", "text"), [(float("nan"), "NaN"), (float("inf"), "Infinity"),
                                             (float("-inf"), "-Infinity")])
def test_json_special_floats(value: float, text: str) -> None:
    msg = QUOTAS(entries=[QUOTAS.EntryData(values=[QUOTAS.ValueData(key="k", value=value)])])
    j = msg.to_json(1)
    assert j["Entries"][0]["Values"][0]["Value"] == text
    json.dumps(j, allow_nan=False)  # the JSON form is strict JSON
    assert QUOTAS.from_json(j, 1) == msg


def test_json_plain_floats_and_negative_zero() -> None:
    for value in (1.5, -0.0, 5e-324):
        msg = QUOTAS(entries=[QUOTAS.EntryData(values=[QUOTAS.ValueData(key="k", value=value)])])
        assert QUOTAS.from_json(json.loads(json.dumps(msg.to_json(0))), 0) == msg


def test_from_json_refuses_bad_input() -> None:
    with pytest.raises(ProtocolError, match="unknown field"):
        QUOTAS.from_json({"Bogus": 1}, 1)
    with pytest.raises(ProtocolError, match="null is not allowed"):
        message_type("DescribeGroupsResponse").from_json({"Groups": None}, 1)
    with pytest.raises(ProtocolError, match="not present in version 0"):
        message_type("MetadataResponse").from_json({"ClusterId": "x"}, 0)
    with pytest.raises(ProtocolError, match="expected a number"):
        QUOTAS.from_json({"Entries": [{"Entity": [], "Values": [{"Key": "k", "Value": "1.0"}]}]}, 1)


def _no_nan(owner: type, f: Any, version: int) -> Any:
    """JSON spells every NaN "NaN", so a NaN payload cannot survive it; everything else must."""
    if f.spec.type.name == "float64":
        return float64s().filter(lambda x: x == x)
    return None


@pytest.mark.parametrize("name,version", [("DescribeClientQuotasResponse", 1), ("AlterClientQuotasRequest", 0),
                                          ("MetadataResponse", 12), ("DescribeGroupsResponse", 5),
                                          ("OffsetFetchRequest", 8), ("ApiVersionsResponse", 3)])
def test_json_roundtrip(name: str, version: int) -> None:
    cls = message_type(name)

    @budget(20)
    @given(messages(cls, version, unknown_tags=False, hook=_no_nan))
    def check(x: Any) -> None:
        j = x.to_json(version)
        text = json.dumps(j, allow_nan=False)
        back = cls.from_json(json.loads(text), version)
        assert back == x
        assert back.encode(version) == x.encode(version)

    check()


# --------------------------------------------------------------------------------------------------------
# long arrays and strings: the multi-byte counts and lengths that generated data rarely reaches


@pytest.mark.parametrize("version", [0, 4, 5])
def test_long_arrays_roundtrip(version: int) -> None:
    req = message_type("DescribeGroupsRequest")
    msg = req(groups=[f"g{i}" for i in range(300)])  # 301 as a compact count needs two bytes
    b = msg.encode(version)
    assert req.decode(b, version, exact=True) == msg
    if version >= 5:
        assert b[:2] == bytes.fromhex("ad02")  # uvarint 301
    else:
        assert b[:4] == (300).to_bytes(4, "big")


@pytest.mark.parametrize("version", [1, 9, 12])
def test_long_primitive_and_struct_arrays(version: int) -> None:
    md = message_type("MetadataResponse")
    replicas = list(range(-100, 100))  # 200: past the prebuilt short-array packers
    topic = md.MetadataResponseTopic(name="t", partitions=[
        md.MetadataResponsePartition(partition_index=i, replica_nodes=replicas[: i * 3], isr_nodes=[i])
        for i in range(70)])
    msg = md(topics=[topic] * 130, brokers=[md.MetadataResponseBroker(node_id=i, host="h" * 300) for i in range(3)])
    b = msg.encode(version)
    back = md.decode(b, version, exact=True)
    assert back == msg
    assert back.topics[129].partitions[69].replica_nodes == replicas[: 69 * 3]
    assert back.encode(version) == b


def test_nullable_array_null_and_empty_differ() -> None:
    q = message_type("DescribeClientQuotasResponse")
    for version in (0, 1):
        null, empty = q(entries=None), q(entries=[])
        assert null.encode(version) != empty.encode(version)
        assert q.decode(null.encode(version), version).entries is None
        assert q.decode(empty.encode(version), version).entries == []
