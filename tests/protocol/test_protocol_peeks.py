"""Two more shortcuts of the fast decoder that must be invisible, each checked against the tracing decoder (which has
none of them and reads every field on its own):

* a compact bytes field is read together with the byte after it (one ``unpack_from``): the next field's length or
  count, or, when the field ends a flexible struct, the tagged-field byte, with the advance left to the section;
  every path (empty, one-byte length up to 127, longer, null, tagged fields present) reads what the tracing
  decoder reads, and an input cut anywhere is refused with the same field-naming error;
* the second element of an unrolled two-element array tests the first element's tagged-field section together
  with its first string's repeat test (the kept bytes open with the section's empty form): a non-empty section
  in the middle of a hot run of repeats is still read.
"""

from __future__ import annotations

from typing import Any

import pytest

from kadmin.errors import ProtocolError
from kadmin.protocol import load_schema, message_type
from tests.support.decoder_checks import QUOTAS, fast_and_traced

GROUPS: Any = message_type("DescribeGroupsResponse")

#: A flexible struct with nullable compact bytes in each place the fast path treats differently: before a string
#: (the byte after is a length), after a fixed-width field (whose advance the bytes field adds), and last (the byte
#: after is the tagged-field byte).
PEEKS: Any = load_schema({
    "apiKey": 4, "type": "response", "name": "BytesPeekResponse", "validVersions": "0-1", "flexibleVersions": "1+",
    "fields": [
        {"name": "Items", "type": "[]Item", "versions": "0+", "fields": [
            {"name": "Blob", "type": "bytes", "versions": "0+", "nullableVersions": "0+"},
            {"name": "Name", "type": "string", "versions": "0+"},
            {"name": "Code", "type": "int16", "versions": "0+"},
            {"name": "Tail", "type": "bytes", "versions": "0+", "nullableVersions": "0+"},
        ]},
    ],
})

#: Elements that open with a string and end with nullable compact bytes: in an array loop, each element's last
#: field also reads the next element's first byte (``VersionCodegen.carries_next``).
CARRIED: Any = load_schema({
    "apiKey": 4, "type": "response", "name": "BytesCarryResponse", "validVersions": "0-1", "flexibleVersions": "1+",
    "fields": [
        {"name": "Items", "type": "[]Item", "versions": "0+", "fields": [
            {"name": "Name", "type": "string", "versions": "0+"},
            {"name": "Tail", "type": "bytes", "versions": "0+", "nullableVersions": "0+"},
        ]},
        {"name": "After", "type": "int8", "versions": "0+"},
    ],
})

# b"": length byte 1; 126 bytes: 127, the largest one-byte length; 127 and 300 bytes: the helper path.
SIZES = [None, b"", b"\x00", bytes(range(126)), b"\xff" * 127, bytes(300)]


@pytest.mark.parametrize("count", [1, 2, 3])
@pytest.mark.parametrize("tags", [None, {3: b"q", 40: b""}])
def test_nullable_bytes_read_with_the_byte_after_them_read_as_the_reference_decoder(
        count: int, tags: dict[int, bytes] | None) -> None:
    r = PEEKS
    for blob in SIZES:
        for tail in SIZES:
            msg = r(items=[r.Item(blob=blob, name=f"n{i}", code=i - 1, tail=tail, unknown_tagged_fields=tags)
                           for i in range(count)])
            for version in ((1,) if tags else (0, 1)):  # version 0 has no tagged fields
                fast, traced = fast_and_traced(r, msg.encode(version), version)
                assert fast == traced == msg
                assert [(i.blob, i.tail) for i in fast.items] == [(blob, tail)] * count
                assert all(type(i.blob) is bytes for i in fast.items if i.blob is not None)
                if version == 1:
                    assert [i.unknown_tagged_fields for i in fast.items] == [tags or {}] * count


@pytest.mark.parametrize("count", [0, 1, 3, 7])
def test_an_element_s_first_byte_read_by_the_element_before_reads_as_the_reference_decoder(count: int) -> None:
    r = CARRIED
    for tails in ([SIZES[i % len(SIZES)] for i in range(count)], [SIZES[-1 - i % len(SIZES)] for i in range(count)]):
        for tagged in (set(), {0}, {count - 1}, set(range(count))):
            msg = r(after=-3, items=[r.Item(name="é" * (i % 3), tail=tail,
                                            unknown_tagged_fields={i: b"t" * i} if i in tagged else None)
                                     for i, tail in enumerate(tails)])
            for version in ((1,) if tagged else (0, 1)):
                data = msg.encode(version)
                fast, traced = fast_and_traced(r, data, version)
                assert fast == traced == msg
                for end in range(len(data)):
                    with pytest.raises(ProtocolError, match=r"input ends too early"):
                        r.decode(data[:end], version)


def _groups(members: int, metadata: bytes, tags: dict[int, bytes] | None = None) -> Any:
    r = GROUPS
    return r(throttle_time_ms=0, groups=[r.DescribedGroup(
        error_code=0, group_id=f"group-{g}", group_state="Stable", protocol_type="consumer", protocol_data="range",
        members=[r.DescribedGroupMember(
            member_id=f"m-{g}-{m}", group_instance_id=None if m % 2 else f"i-{m}", client_id=f"client-{m}",
            client_host="/10.0.0.1", member_metadata=metadata, member_assignment=metadata[::-1],
            unknown_tagged_fields=tags) for m in range(members)]) for g in range(3)])


@pytest.mark.parametrize("members", [1, 2, 3, 10])
@pytest.mark.parametrize("metadata", [b"", b"\x80", bytes(range(126)), bytes(range(200))])
@pytest.mark.parametrize("tags", [None, {0: b"\x01"}])
def test_member_metadata_and_assignment_read_as_the_reference_decoder(
        members: int, metadata: bytes, tags: dict[int, bytes] | None) -> None:
    msg = _groups(members, metadata, tags)
    for version in ((5,) if tags else (0, 4, 5)):  # versions 0-4 have no tagged fields
        fast, traced = fast_and_traced(GROUPS, msg.encode(version), version)
        assert fast == traced
        assert [(m.member_metadata, m.member_assignment) for g in fast.groups for m in g.members] == [
            (metadata, metadata[::-1])] * (3 * members)
        if version == 5:
            assert [m.unknown_tagged_fields for g in fast.groups for m in g.members] == [tags or {}] * (3 * members)


@pytest.mark.parametrize("members", [2, 3])
def test_group_answers_cut_anywhere_are_refused_naming_a_field(members: int) -> None:
    data = _groups(members, b"\x01\x02\x03", {0: b"\x01"} if members == 3 else None).encode(5)
    for end in range(len(data)):
        with pytest.raises(ProtocolError, match=r"cannot decode DescribeGroupsResponse v5: field \S+ at offset \d+: "
                                                 r"input ends too early"):
            GROUPS.decode(data[:end], 5)


def test_a_member_metadata_of_null_is_refused_as_before() -> None:
    data = bytearray(_groups(2, b"\x07").encode(5))
    at = data.index(b"\x02\x07")  # the first member's metadata: length byte 2, then 0x07
    data[at] = 0  # null, which the field does not allow
    with pytest.raises(ProtocolError, match=r"field Groups\[0\]\.Members\[0\]\.MemberMetadata at offset \d+: "
                                             r"null value in non-nullable field MemberMetadata"):
        GROUPS.decode(bytes(data), 5)


def _quota_entries(tagged: set[int], n: int = 14, last_tagged: set[int] | None = None,
                   sizes: dict[int, int] | None = None) -> Any:
    """``tagged``/``last_tagged``: entries whose first/last entity component has unknown tagged fields; ``sizes``:
    entries with another number of entity components than two."""
    r = QUOTAS
    kinds = ["user", "client-id", "ip"]

    def entity(i: int) -> list[Any]:
        k = (sizes or {}).get(i, 2)
        return [r.EntityData(entity_type=kinds[c], entity_name=f"{kinds[c][0]}{i}",
                             unknown_tagged_fields={9: bytes([i])} if (c == 0 and i in tagged) or (
                                 c == k - 1 and c and i in (last_tagged or ())) else None) for c in range(k)]

    return r(throttle_time_ms=0, error_code=0, error_message=None, entries=[r.EntryData(
        entity=entity(i), values=[r.ValueData(key="producer_byte_rate", value=float(i)),
                                  r.ValueData(key="consumer_byte_rate", value=-float(i))]) for i in range(n)])


@pytest.mark.parametrize("tagged", [set(), {0}, {5}, {5, 6}, {13}, set(range(14))])
def test_a_first_element_s_tagged_fields_amid_repeats_are_read(tagged: set[int]) -> None:
    msg = _quota_entries(tagged)
    data = msg.encode(1)
    fast, traced = fast_and_traced(QUOTAS, data, 1)
    assert fast == traced == msg
    assert [e.entity[0].unknown_tagged_fields for e in fast.entries] == [
        {9: bytes([i])} if i in tagged else {} for i in range(14)]
    assert [e.entity[1].entity_type for e in fast.entries] == ["client-id"] * 14
    lazy, end = QUOTAS.decode_from(data, 0, 1, lazy=True)
    assert end == len(data) and lazy == msg


@pytest.mark.parametrize("last_tagged", [set(), {0}, {6}, {6, 7}, {13}, set(range(14))])
@pytest.mark.parametrize("sizes", [None, {7: 1}, {7: 3}, {6: 0, 8: 1}])
def test_a_last_element_s_tagged_fields_before_the_next_array_are_read(last_tagged: set[int],
                                                                       sizes: dict[int, int] | None) -> None:
    # The entity array's last component leaves its tagged-field section to the values array's joint test: read
    # right when it is not empty, and when the entity array before had one, three or no components.
    msg = _quota_entries(set(), last_tagged=last_tagged, sizes=sizes)
    data = msg.encode(1)
    fast, traced = fast_and_traced(QUOTAS, data, 1)
    assert fast == traced == msg
    assert [[c.unknown_tagged_fields for c in e.entity] for e in fast.entries] == [
        [c.unknown_tagged_fields for c in e.entity] for e in msg.entries]
    assert [[v.key for v in e.values] for e in fast.entries] == [["producer_byte_rate", "consumer_byte_rate"]] * 14
    lazy, end = QUOTAS.decode_from(data, 0, 1, lazy=True)
    assert end == len(data) and lazy == msg


def test_quota_answers_cut_anywhere_are_refused_naming_a_field() -> None:
    data = _quota_entries({6}, 10, last_tagged={3}).encode(1)
    for end in range(len(data)):
        with pytest.raises(ProtocolError, match=r"cannot decode DescribeClientQuotasResponse v1: field \S+ at offset "
                                                 r"\d+: input ends too early"):
            QUOTAS.decode(data[:end], 1)


@pytest.mark.parametrize("members", [0, 3, 31, 32, 33, 200])
def test_member_arrays_on_both_sides_of_the_prebuilt_allocation_runs_are_built_right(members: int) -> None:
    # Arrays of fewer than 32 structs are allocated from prebuilt argument runs, longer ones with ``repeat``.
    msg = _groups(members, b"\x05")
    fast, traced = fast_and_traced(GROUPS, msg.encode(5), 5)
    assert fast == traced == msg
    assert [len(g.members) for g in fast.groups] == [members] * 3
    assert {type(m) for g in fast.groups for m in g.members} <= {GROUPS.DescribedGroupMember}
    assert len({id(m) for g in fast.groups for m in g.members}) == 3 * members  # every element its own object
