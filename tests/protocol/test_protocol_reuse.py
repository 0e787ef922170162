"""Two decoder shortcuts that must be invisible: a string at an unrolled place (an element of a one- or
two-element array) whose bytes repeat the last string read there is taken from that one, and an empty
array of numbers is a new empty list without a read.  Checked against the tracing decoder, which has
neither shortcut and reads every field on its own."""

from __future__ import annotations

from typing import Any

import pytest

from kadmin.protocol import message_type
from tests.support.decoder_checks import (
    QUOTAS,
    Entry,
    assert_quota_entries_decode_as_given,
    fast_and_traced,
    quotas_message,
)

METADATA: Any = message_type("MetadataResponse")

# (entity type, entity name) pairs and (key, value) pairs of consecutive entries: repeats, a change, a repeat of
# the change, non-ASCII values (decoded as UTF-8, never as their Latin-1 view), a null name, a long string
# (a two-byte compact length), and a change back.
ENTRIES: list[Entry] = [
    ([("user", "alice"), ("client-id", "app")], [("producer_byte_rate", 1.0), ("consumer_byte_rate", 2.0)]),
    ([("user", "bob"), ("client-id", "app")], [("producer_byte_rate", 3.0), ("consumer_byte_rate", 4.0)]),
    ([("user", "carol"), ("client-id", "app")], [("producer_byte_rate", 5.0), ("consumer_byte_rate", 6.0)]),
    ([("ip", "10.0.0.1"), ("client-id", "äpp")], [("request_percentage", 7.0), ("consumer_byte_rate", 8.0)]),
    ([("ip", "10.0.0.2"), ("client-id", "äpp")], [("request_percentage", 9.0), ("consumer_byte_rate", 10.0)]),
    ([("ip", None), ("client-id", "äpp")], [("request_percentage", 11.0), ("consumer_byte_rate", 12.0)]),
    ([("user", "dave"), ("x" * 200, "app")], [("producer_byte_rate", 13.0), ("y" * 200, 14.0)]),
    ([("user", "erin"), ("x" * 200, "app")], [("producer_byte_rate", 15.0), ("y" * 200, 16.0)]),
    ([("user", "frank")], [("producer_byte_rate", 17.0)]),
    ([("user", "grace")], [("producer_byte_rate", 18.0)]),
    ([("usér", "heidi")], [("producer_byte_rate", 19.0)]),
    ([("usér", "ivan")], [("producer_byte_rate", 20.0)]),
    ([("user", "judy"), ("client-id", "app")], [("producer_byte_rate", 21.0), ("consumer_byte_rate", 22.0)]),
]






@pytest.mark.parametrize("version", [0, 1])
def test_repeated_strings_at_unrolled_places_decode_as_the_reference_decoder_reads_them(version: int) -> None:
    assert_quota_entries_decode_as_given(ENTRIES, version)


@pytest.mark.parametrize("version", [0, 1])
def test_a_string_taken_from_the_last_one_is_the_same_value_in_every_entry(version: int) -> None:
    fast = QUOTAS.decode(quotas_message(ENTRIES[:3]).encode(version), version)
    types = [e.entity[0].entity_type for e in fast.entries]
    assert types == ["user"] * 3
    fast.entries[0].entity[0].entity_type = "changed"  # the entries stay independent objects
    assert [e.entity[0].entity_type for e in fast.entries] == ["changed", "user", "user"]


@pytest.mark.parametrize("version", [0, 1])
def test_bad_utf8_in_a_repeated_place_is_still_refused(version: int) -> None:
    good = quotas_message(ENTRIES[:2]).encode(version)
    name = b"client-id"
    at = good.rindex(name)
    bad = good[:at] + b"\xff" + good[at + 1:]  # the second entry's type, after the first made the place hot
    with pytest.raises(Exception, match="invalid UTF-8"):
        QUOTAS.decode(bad, version)


def test_empty_number_arrays_are_new_empty_lists() -> None:
    r = METADATA
    msg = r(throttle_time_ms=0, cluster_id="c", controller_id=1, brokers=[], topics=[
        r.MetadataResponseTopic(error_code=0, name=f"t{t}", partitions=[
            r.MetadataResponsePartition(partition_index=p, leader_id=1, replica_nodes=[1, 2] if p else [],
                                        isr_nodes=[1] if p else [], offline_replicas=[])
            for p in range(3)]) for t in range(2)])
    for version in (5, 9, 12):  # offline replicas from v5, non-flexible and flexible
        fast, traced = fast_and_traced(METADATA, msg.encode(version), version)
        assert fast == traced == msg
        parts = [p for t in fast.topics for p in t.partitions]
        assert [p.replica_nodes for p in parts] == [[], [1, 2], [1, 2]] * 2
        empties = [p.offline_replicas for p in parts] + [parts[0].replica_nodes, parts[3].isr_nodes]
        assert all(e == [] and type(e) is list for e in empties)
        assert len({id(e) for e in empties}) == len(empties)  # not one shared list
