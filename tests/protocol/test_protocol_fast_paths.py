"""Decoder shortcuts of the fast variant that must be invisible, each checked against the tracing decoder (which
has none of them and reads every field on its own):

* a fixed-width run followed by a string, bytes or the tagged-field byte leaves its ``pos += size`` to that
  field (every path of the field adds it: short, long, null, tagged);
* an unrolled two-element array tests its count and its first element's first string in one comparison once
  that string repeats (the count changing, the string changing, the array growing past two);
* an unrolled string place that keeps reading different strings stops watching for repeats, and a place that
  stopped still reads every value right when repeats come later.
"""

from __future__ import annotations

from typing import Any

import pytest

from kadmin.errors import ProtocolError
from kadmin.protocol import message_type
from tests.support.decoder_checks import (
    QUOTAS,
    Entry,
    assert_quota_entries_decode_as_given,
    fast_and_traced,
    quotas_message,
)

COORDINATOR: Any = message_type("FindCoordinatorResponse")






def _coordinators(rows: list[tuple[str, str, str | None]], tags: dict[int, bytes] | None = None) -> Any:
    r = COORDINATOR
    return r(throttle_time_ms=7, coordinators=[
        r.Coordinator(key=key, node_id=i, host=host, port=9092 + i, error_code=i % 3, error_message=message,
                      unknown_tagged_fields=tags)
        for i, (key, host, message) in enumerate(rows)])


LONG = "h" * 300  # a two-byte compact length: the helper path, which must also add the deferred run's size


@pytest.mark.parametrize("tags", [None, {5: b"xy", 9: b""}])
def test_a_string_after_a_fixed_run_reads_right_on_every_path(tags: dict[int, bytes] | None) -> None:
    rows = [("g1", "broker-1", None), ("g2", "broker-2", "not the coordinator"), ("g3", LONG, None),
            ("g4", "broker-4", LONG), ("g5", "bröker-5", "é"), ("g6", "", "")]
    msg = _coordinators(rows, tags)
    for version in (4, 5, 6):
        fast, traced = fast_and_traced(COORDINATOR, msg.encode(version), version)
        assert fast == traced == msg
        assert [(c.key, c.host, c.error_message) for c in fast.coordinators] == rows
        assert [c.unknown_tagged_fields for c in fast.coordinators] == [tags or {}] * len(rows)


@pytest.mark.parametrize("tags", [None, {3: b"\x01\x02"}])
def test_the_tag_byte_after_a_fixed_run_reads_right(tags: dict[int, bytes] | None) -> None:
    entries: list[Entry] = [([("user", f"u{i}")], [("producer_byte_rate", float(i))]) for i in range(4)]
    msg = quotas_message(entries, tags)
    fast, traced = fast_and_traced(QUOTAS, msg.encode(1), 1)
    assert fast == traced == msg
    assert [v.unknown_tagged_fields for e in fast.entries for v in e.values] == [tags or {}] * 4


# Counts and first strings of the two arrays that change under a joint test that has become hot: the same
# (count 2, first string) three times, the first string changing at count 2, the count dropping to 1 and
# growing to 3 with the same first string, back to the hot pair, a null name, non-ASCII first strings.
JOINT: list[Entry] = [
    ([("user", "a"), ("client-id", "x")], [("producer_byte_rate", 1.0), ("consumer_byte_rate", 2.0)]),
    ([("user", "b"), ("client-id", "x")], [("producer_byte_rate", 3.0), ("consumer_byte_rate", 4.0)]),
    ([("user", "c"), ("client-id", "y")], [("producer_byte_rate", 5.0), ("consumer_byte_rate", 6.0)]),
    ([("ip", "d"), ("client-id", "y")], [("request_percentage", 7.0), ("consumer_byte_rate", 8.0)]),
    ([("user", "e")], [("producer_byte_rate", 9.0)]),
    ([("user", "f"), ("client-id", "z"), ("ip", "g")], [("producer_byte_rate", 10.0), ("a", 1.0), ("b", 2.0)]),
    ([("user", "h"), ("client-id", None)], [("producer_byte_rate", 11.0), ("consumer_byte_rate", 12.0)]),
    ([("user", "i"), ("client-id", "z")], [("producer_byte_rate", 13.0), ("consumer_byte_rate", 14.0)]),
    ([("usér", "j"), ("client-id", "z")], [("prodücer", 15.0), ("consumer_byte_rate", 16.0)]),
    ([("usér", "k"), ("client-id", "z")], [("prodücer", 17.0), ("consumer_byte_rate", 18.0)]),
    ([("user", "l"), ("client-id", "z")], [("producer_byte_rate", 19.0), ("consumer_byte_rate", 20.0)]),
    ([("user", "m"), ("client-id", "z")], [("producer_byte_rate", 21.0), ("consumer_byte_rate", 22.0)]),
]


@pytest.mark.parametrize("version", [0, 1])
def test_count_and_first_string_tested_together_decode_as_the_reference_decoder(version: int) -> None:
    assert_quota_entries_decode_as_given(JOINT, version)


@pytest.mark.parametrize("version", [0, 1])
def test_a_place_that_stopped_watching_still_reads_repeats_later(version: int) -> None:
    # 20 different entity types in a row (more than a place's tries), then the same one 5 times.
    types = [f"type-{i}" for i in range(20)] + ["user"] * 5
    entries: list[Entry] = [([(t, f"n{i}"), ("client-id", "c")], [("k", float(i)), ("k2", 0.0)])
                            for i, t in enumerate(types)]
    fast, traced = fast_and_traced(QUOTAS, quotas_message(entries).encode(version), version)
    assert fast == traced
    assert [e.entity[0].entity_type for e in fast.entries] == types


@pytest.mark.parametrize("version", [0, 1])
def test_input_cut_while_the_joint_test_is_hot_names_the_field(version: int) -> None:
    data = quotas_message(JOINT[:3] + JOINT[10:]).encode(version)
    at = data.rindex(b"user") + 2  # inside the last entry's first string, after earlier entries made it hot
    with pytest.raises(ProtocolError, match=r"field Entries\[4\]\.Entity\[0\]\.EntityType at offset \d+: input ends"):
        QUOTAS.decode(data[:at], version)
