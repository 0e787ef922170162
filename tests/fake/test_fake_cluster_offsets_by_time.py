"""ListOffsets by timestamp on the fake cluster, against the records real producers wrote.

confluent-kafka produces records with timestamps of its choosing (several batches, out of order inside a batch,
the largest one twice, plain and gzip); kadmin's list_offsets, confluent-kafka's and kafka-python's
offsets_for_times must all find what Kafka finds: the first offset whose timestamp is >= T (none: offset -1),
and for MAX_TIMESTAMP (KIP-734) the first record holding the largest timestamp.  The expected answers come from
a plain list of (offset, timestamp) built here, not from the fake.  Also: LogAppendTime topics, the special
offsets per release preset, ListOffsets v0's legacy list (raw, and through kafka-python pinned to 0.10.0),
and logs whose start was moved by DeleteRecords or whose records nobody wrote.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Mapping
from typing import Any

import pytest
from confluent_kafka import TIMESTAMP_CREATE_TIME, TIMESTAMP_LOG_APPEND_TIME, Consumer, Producer
from confluent_kafka import TopicPartition as CTP
from kafka import KafkaConsumer
from kafka.structs import TopicPartition as KTP

from kadmin.admin.partitions import ListedOffset, OffsetSpec
from kadmin.client import AdminClient
from kadmin.errors import UnsupportedVersionError
from kadmin.protocol.apis import ApiKey
from kadmin.testing import FakeCluster
from kadmin.testing.rawclient import RawConnection
from kadmin.testing.schemas import fake_message_type
from kadmin.types import TopicPartition as TP
from tests.support.clusters import shared_cluster

pytestmark = pytest.mark.timeout(90)

BASE = 1_700_000_000_000
#: Per partition, batches of record timestamps (ms after BASE), produced one flush at a time.
BATCHES = {0: [[10, 30, 20], [50, 40], [70, 70, 60]],
           1: [[5], [100, 1, 100], [3]]}
PROBES = [0, 1, 5, 6, 10, 11, 20, 25, 30, 31, 40, 45, 50, 55, 60, 69, 70, 71, 99, 100, 101, 10_000]


def produce(c: FakeCluster, topic: str, batches: dict[int, list[list[int]]], **conf: Any) -> list[Any]:
    """Each inner list is one batch (flushed on its own); returns the delivery reports' messages."""
    p = Producer({"bootstrap.servers": c.bootstrap, "linger.ms": 100, "log_level": 3, **conf})
    delivered: list[Any] = []
    rounds = max(len(b) for b in batches.values())
    for r in range(rounds):
        for part, stamps in batches.items():
            if r < len(stamps):
                for ts in stamps[r]:
                    p.produce(topic, value=f"{part}@{ts}".encode(), partition=part, timestamp=BASE + ts,
                              on_delivery=lambda err, msg: delivered.append(msg if err is None else err))
        assert p.flush(20) == 0
    assert all(not isinstance(m, Exception) and m.error() is None for m in delivered), delivered
    return delivered


def model(batches: list[list[int]]) -> list[tuple[int, int]]:
    """(offset, timestamp) of every record, in offset order."""
    stamps = [BASE + ts for batch in batches for ts in batch]
    return list(enumerate(stamps))


def first_at_or_after(records: list[tuple[int, int]], target: int) -> tuple[int, int | None]:
    hits = [(o, ts) for o, ts in records if ts >= target]
    return (hits[0][0], hits[0][1]) if hits else (-1, None)


def max_record(records: list[tuple[int, int]]) -> tuple[int, int]:
    top = max(ts for _o, ts in records)
    return next((o, ts) for o, ts in records if ts == top)


def kadmin_offsets(c: FakeCluster, specs: Mapping[Any, OffsetSpec]) -> dict[TP, ListedOffset]:
    with AdminClient(c.bootstrap, default_timeout_s=10.0) as admin:
        got = admin.list_offsets(specs)
    assert all(isinstance(v, ListedOffset) for v in got.values()), got
    return got  # type: ignore[return-value]


cluster = shared_cluster(brokers=3)


@pytest.mark.parametrize("compression", ["none", "gzip"])
def test_timestamps_found_as_kafka_finds_them_by_three_clients(cluster: FakeCluster, compression: str) -> None:
    topic = f"stamped-{compression}"
    cluster.add_topic(topic, partitions=2)
    produce(cluster, topic, BATCHES, **{"compression.type": compression})
    records = {p: model(b) for p, b in BATCHES.items()}
    assert cluster.topics[topic] == {0: (0, 8), 1: (0, 5)}

    # kadmin: every probe on both partitions, in one call per probe.
    for probe in PROBES:
        got = kadmin_offsets(cluster, {TP(topic, p): OffsetSpec.for_timestamp(BASE + probe) for p in records})
        for p, recs in records.items():
            want_offset, want_ts = first_at_or_after(recs, BASE + probe)
            assert (got[TP(topic, p)].offset, got[TP(topic, p)].timestamp) == (want_offset, want_ts), (p, probe)
            if want_offset >= 0:
                assert got[TP(topic, p)].leader_epoch == cluster.partition(topic, p).leader_epoch
    top = kadmin_offsets(cluster, {TP(topic, p): OffsetSpec.max_timestamp() for p in records})
    for p, recs in records.items():
        assert (top[TP(topic, p)].offset, top[TP(topic, p)].timestamp) == max_record(recs)
    assert max_record(records[0]) == (5, BASE + 70)  # the first of the two records at 70
    assert max_record(records[1]) == (1, BASE + 100)

    # confluent-kafka's consumer (ListOffsets at its own version) agrees, offset for offset.
    consumer = Consumer({"bootstrap.servers": cluster.bootstrap, "group.id": "by-time", "log_level": 3})
    try:
        for probe in PROBES:
            asked = [CTP(topic, p, BASE + probe) for p in records]
            got_ck = {tp.partition: tp.offset for tp in consumer.offsets_for_times(asked, timeout=10)}
            # librdkafka reports "no such offset" as the logical end (-1).
            assert got_ck == {p: first_at_or_after(recs, BASE + probe)[0] for p, recs in records.items()}, probe
    finally:
        consumer.close()

    # kafka-python: an offset and the record's timestamp, or None when nothing is at or after T.
    kp = KafkaConsumer(bootstrap_servers=cluster.bootstrap)
    try:
        for probe in (0, 25, 55, 71, 101):
            got_kp = kp.offsets_for_times({KTP(topic, p): BASE + probe for p in records})
            for p, recs in records.items():
                want_offset, want_ts = first_at_or_after(recs, BASE + probe)
                found = got_kp[KTP(topic, p)]
                assert ((found.offset, found.timestamp) if found is not None else (-1, None)) == (want_offset, want_ts)
    finally:
        kp.close()


def test_log_append_time_topics_are_found_by_the_brokers_append_time(cluster: FakeCluster) -> None:
    cluster.add_topic("appended", partitions=1)
    cluster.set_topic_config("appended", "message.timestamp.type", "LogAppendTime")
    before = int(time.time() * 1000)
    delivered = produce(cluster, "appended", {0: [[30, 10], [20]]})
    after = int(time.time() * 1000)
    # The producer learns the append time from the Produce answer; its own timestamps are gone.
    kinds = {m.timestamp()[0] for m in delivered}
    assert kinds == {TIMESTAMP_LOG_APPEND_TIME}
    stamps = {m.offset(): m.timestamp()[1] for m in delivered}
    first_append, second_append = stamps[0], stamps[2]
    assert stamps[1] == first_append  # one batch, one append time
    assert before <= first_append <= second_append <= after

    # Every record of a batch carries its batch's append time; the CreateTime values are not looked at.
    tp = TP("appended", 0)
    assert kadmin_offsets(cluster, {tp: OffsetSpec.for_timestamp(BASE)})[tp] == ListedOffset(0, first_append, 0)
    assert kadmin_offsets(cluster, {tp: OffsetSpec.for_timestamp(first_append + 1)})[tp].offset == (
        2 if second_append > first_append else -1)
    assert kadmin_offsets(cluster, {tp: OffsetSpec.max_timestamp()})[tp] == ListedOffset(
        2 if second_append > first_append else 0, second_append, 0)
    assert kadmin_offsets(cluster, {tp: OffsetSpec.for_timestamp(after + 1)})[tp] == ListedOffset(-1)

    # A consumer sees the broker's stamps too.
    consumer = Consumer({"bootstrap.servers": cluster.bootstrap, "group.id": "appended", "log_level": 3,
                         "auto.offset.reset": "earliest", "enable.auto.commit": False})
    try:
        consumer.assign([CTP("appended", 0, 0)])
        seen: list[tuple[int, int]] = []
        deadline = time.monotonic() + 20
        while len(seen) < 3 and time.monotonic() < deadline:
            m = consumer.poll(0.2)
            if m is not None and m.error() is None:
                seen.append(m.timestamp())
    finally:
        consumer.close()
    assert seen == [(TIMESTAMP_LOG_APPEND_TIME, first_append)] * 2 + [(TIMESTAMP_LOG_APPEND_TIME, second_append)]
    # ... and so does one pinned to 0.10.1, whose Fetch v3 gets the batches converted down to magic 1 messages.
    old = KafkaConsumer(bootstrap_servers=cluster.bootstrap, api_version=(0, 10, 1), auto_offset_reset="earliest",
                        consumer_timeout_ms=3000)
    try:
        old.assign([KTP("appended", 0)])
        got_old = [(r.offset, r.timestamp_type, r.timestamp) for r in old]
    finally:
        old.close()
    assert got_old == [(0, 1, first_append), (1, 1, first_append), (2, 1, second_append)]


def test_create_time_is_the_default_and_kept_as_sent(cluster: FakeCluster) -> None:
    cluster.add_topic("created", partitions=1)
    delivered = produce(cluster, "created", {0: [[7, 3]]})
    assert sorted(m.timestamp() for m in delivered) == [(TIMESTAMP_CREATE_TIME, BASE + 3),
                                                        (TIMESTAMP_CREATE_TIME, BASE + 7)]


def test_deleted_records_and_records_nobody_wrote_are_never_found(cluster: FakeCluster) -> None:
    cluster.add_topic("trimmed-ts", partitions=1)
    produce(cluster, "trimmed-ts", {0: [[10, 20, 30], [40, 90]]})
    tp = TP("trimmed-ts", 0)
    with AdminClient(cluster.bootstrap, default_timeout_s=10.0) as admin:
        admin.delete_records({tp: 2})
    # Offsets 0 and 1 are gone: T=0 now finds offset 2, the first record left.
    assert kadmin_offsets(cluster, {tp: OffsetSpec.for_timestamp(BASE)})[tp] == ListedOffset(2, BASE + 30, 0)
    assert kadmin_offsets(cluster, {tp: OffsetSpec.max_timestamp()})[tp] == ListedOffset(4, BASE + 90, 0)
    # Records a test made exist without a producer have no timestamp: no T finds them, nor does MAX_TIMESTAMP
    # beat a real record with them.
    cluster.set_log_end("trimmed-ts", 0, 9)
    assert kadmin_offsets(cluster, {tp: OffsetSpec.for_timestamp(BASE + 91)})[tp] == ListedOffset(-1)
    assert kadmin_offsets(cluster, {tp: OffsetSpec.max_timestamp()})[tp] == ListedOffset(4, BASE + 90, 0)
    # A log of such records only: MAX_TIMESTAMP is its first record without a timestamp; an empty log has none.
    cluster.add_topic("seeded-ts", partitions=2, offsets={0: (3, 8)})
    got = kadmin_offsets(cluster, {TP("seeded-ts", 0): OffsetSpec.max_timestamp(),
                                   TP("seeded-ts", 1): OffsetSpec.max_timestamp()})
    assert got == {TP("seeded-ts", 0): ListedOffset(3), TP("seeded-ts", 1): ListedOffset(-1)}


@pytest.mark.parametrize(("release", "max_ts", "local", "tiered"), [
    ("2.2", False, False, False), ("3.0", True, False, False), ("3.5", True, True, False),
    ("3.9", True, True, True), ("4.0", True, True, True)])
def test_special_offsets_per_release(release: str, max_ts: bool, local: bool, tiered: bool) -> None:
    """MAX_TIMESTAMP needs ListOffsets v7 (3.0), EARLIEST_LOCAL v8 (3.5), LATEST_TIERED v9 (3.9); without tiered
    storage the local log start is the log start and nothing is tiered (offset -1)."""
    with FakeCluster(brokers=1, versions=release) as c:
        c.add_topic("t", partitions=1)
        produce(c, "t", {0: [[20, 50, 30]]})
        tp = TP("t", 0)
        with AdminClient(c.bootstrap, default_timeout_s=10.0) as admin:
            assert admin.list_offsets({tp: OffsetSpec.for_timestamp(BASE + 25)})[tp] == ListedOffset(1, BASE + 50, 0)
            assert admin.list_offsets({tp: OffsetSpec.latest()})[tp] == ListedOffset(3, None, 0)
            for spec, supported, want in ((OffsetSpec.max_timestamp(), max_ts, ListedOffset(1, BASE + 50, 0)),
                                          (OffsetSpec.earliest_local(), local, ListedOffset(0, None, 0)),
                                          (OffsetSpec.latest_tiered(), tiered, ListedOffset(-1))):
                got = admin.list_offsets({tp: spec})[tp]
                if supported:
                    assert got == want, spec
                else:
                    assert isinstance(got, UnsupportedVersionError), (spec, got)


@pytest.mark.parametrize(("release", "version"), [("2.2", 5), ("2.8", 6), ("3.0", 6), ("3.5", 7), ("3.9", 9)])
def test_a_special_timestamp_a_release_predates_is_a_plain_timestamp(release: str, version: int) -> None:
    """-3 (max-timestamp, 3.0), -4 (earliest-local, 3.5) and -5 (latest-tiered, 3.9) mean nothing to an older
    broker: it looks them up as the timestamps they are, and every record is at or after them, so the first
    record answers.  A broker that knows them answers them as such whatever version the request came in."""
    with FakeCluster(brokers=1, versions=release) as c:
        c.add_topic("t", partitions=1)
        produce(c, "t", {0: [[20, 50, 30]]})
        host, port = c.addresses[c.leader_of("t", 0)]
        R: Any = fake_message_type(ApiKey.LIST_OFFSETS, "request")
        with RawConnection(host, port) as conn:
            def at(ts: int) -> tuple[int, int]:
                req = R(replica_id=-1, isolation_level=0, topics=[R.ListOffsetsTopic(name="t", partitions=[
                    R.ListOffsetsPartition(partition_index=0, timestamp=ts)])])
                part = conn.request(ApiKey.LIST_OFFSETS, version, req).topics[0].partitions[0]
                assert part.error_code == 0
                return part.offset, part.timestamp
            first = (0, BASE + 20)
            assert at(-3) == ((1, BASE + 50) if release >= "3.0" else first)
            assert at(-4) == ((0, -1) if release >= "3.5" else first)
            assert at(-5) == ((-1, -1) if release >= "3.9" else first)
        if release == "2.8":
            # A real client asking max-timestamp of a 2.8 broker (confluent-kafka sends ListOffsets v6 there) gets
            # what 2.8 answers: the first record at or after timestamp -3.
            from confluent_kafka import TopicPartition as CkPartition
            from confluent_kafka.admin import AdminClient as CkAdmin
            from confluent_kafka.admin import OffsetSpec as CkOffsetSpec

            ck = CkAdmin({"bootstrap.servers": c.bootstrap, "log_level": 0})
            futures = ck.list_offsets({CkPartition("t", 0): CkOffsetSpec.max_timestamp()}, request_timeout=10)
            assert [f.result(10).offset for f in futures.values()] == [0]


def _v0(conn: RawConnection, topic: str, timestamp: int, max_offsets: int) -> list[int]:
    R: Any = fake_message_type(ApiKey.LIST_OFFSETS, "request")
    req = R(replica_id=-1, topics=[R.ListOffsetsTopic(name=topic, partitions=[R.ListOffsetsPartition(
        partition_index=0, timestamp=timestamp, max_num_offsets=max_offsets)])])
    part = conn.request(ApiKey.LIST_OFFSETS, 0, req).topics[0].partitions[0]
    assert part.error_code == 0
    return list(part.old_style_offsets)


def test_list_offsets_v0_answers_the_legacy_offsets_before_list() -> None:
    with FakeCluster(brokers=1, versions="2.2") as c:
        c.add_topic("old", partitions=1)
        c.add_topic("empty", partitions=1)
        created = int(time.time() * 1000)
        time.sleep(0.02)
        produce(c, "old", {0: [[1, 2, 3]]})
        appended = int(time.time() * 1000)  # at or after the append's stamp (same clock)
        time.sleep(0.01)  # and before the log end's "now" of the lookups below
        with AdminClient(c.bootstrap, default_timeout_s=10.0) as admin:
            admin.delete_records({TP("old", 0): 1})
        host, port = c.addresses[c.leader_of("old", 0)]
        with RawConnection(host, port) as conn:
            # One segment: its start (the log start), then the log end, newest first.
            assert _v0(conn, "old", -1, 1) == [3]
            assert _v0(conn, "old", -1, 10) == [3, 1]
            assert _v0(conn, "old", -2, 10) == [1]
            # A time picks the segments last modified at or before it: none before the last append.
            assert _v0(conn, "old", created, 10) == []
            assert _v0(conn, "old", appended, 10) == [1]
            assert _v0(conn, "old", int(time.time() * 1000) + 60_000, 10) == [3, 1]
            assert _v0(conn, "old", int(time.time() * 1000) + 60_000, 1) == [3]
            assert _v0(conn, "empty", -1, 10) == [0]
        # kafka-python pinned to 0.10.0 lists offsets with v0.
        kp = KafkaConsumer(bootstrap_servers=c.bootstrap, api_version=(0, 10, 0))
        try:
            assert kp.end_offsets([KTP("old", 0)]) == {KTP("old", 0): 3}
            assert kp.beginning_offsets([KTP("old", 0)]) == {KTP("old", 0): 1}
        finally:
            kp.close()
        assert {e.version for e in c.request_log if e.api_key == ApiKey.LIST_OFFSETS} == {0}


def test_group_offsets_reset_to_a_time_lands_on_the_first_record_at_or_after_it(cluster: FakeCluster) -> None:
    """kadmin's reset to a datetime (kafka-consumer-groups.sh --to-datetime) asks ListOffsets by timestamp: over
    produced records it lands on the first one at or after the time, and on the log end past the last."""
    cluster.add_topic("reset-ts", partitions=2)
    produce(cluster, "reset-ts", BATCHES)
    for p in (0, 1):
        cluster.commit("reset-by-time", "reset-ts", p, 0)
    when = dt.datetime.fromtimestamp((BASE + 45) / 1000, tz=dt.timezone.utc)
    with AdminClient(cluster.bootstrap, default_timeout_s=10.0) as admin:
        plan = admin.reset_consumer_group_offsets("reset-by-time", ["reset-ts"], when, dry_run=False)
    assert plan.complete
    committed = {p: cluster.groups["reset-by-time"].offsets[("reset-ts", p)].offset for p in (0, 1)}
    # Partition 0: 10,30,20,50,40,70,70,60 -> offset 3 (50); partition 1: 5,100,1,100,3 -> offset 1 (100).
    assert committed == {p: first_at_or_after(model(BATCHES[p]), BASE + 45)[0] for p in (0, 1)} == {0: 3, 1: 1}
