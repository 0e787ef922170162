"""Produce and Fetch on the fake cluster, proven with real clients and with raw requests.

confluent-kafka (librdkafka) and kafka-python produce to the fake and read back what they and each other
wrote; their watermarks agree with the fake's state; kadmin's delete_records moves where a consumer starts.
Raw requests pin what clients do not show: the errors Kafka gives (unknown topic, non-leader with KIP-951's
hint, offsets out of range, acks=0), and fetch purgatory answering early on a produce without blocking other
connections.
"""

from __future__ import annotations

import struct
import threading
import time
import uuid
from typing import Any

import pytest
from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer
from confluent_kafka import TopicPartition as CTP
from kafka import KafkaConsumer, KafkaProducer
from kafka.structs import TopicPartition as KTP

from kadmin.client import AdminClient
from kadmin.protocol.apis import ApiKey
from kadmin.storage import DeletedRecords
from kadmin.testing import FakeCluster
from kadmin.testing.rawclient import RawConnection
from kadmin.testing.record_log import build_v2_batch
from kadmin.testing.schemas import fake_message_type
from kadmin.types import TopicPartition as TP
from tests.support.clusters import shared_cluster

pytestmark = pytest.mark.timeout(90)

NONE, OFFSET_OUT_OF_RANGE, CORRUPT_MESSAGE, UNKNOWN_TOPIC_OR_PARTITION, NOT_LEADER = 0, 1, 2, 3, 6
INVALID_REQUIRED_ACKS, UNKNOWN_TOPIC_ID = 21, 100


# --- helpers -------------------------------------------------------------------------------------------------


def confluent_produce(c: FakeCluster, topic: str, n: int, partitions: int) -> None:
    p = Producer({"bootstrap.servers": c.bootstrap, "linger.ms": 2, "log_level": 3})
    for i in range(n):
        p.produce(topic, key=f"k{i}".encode(), value=f"v{i}".encode(), partition=i % partitions)
    assert p.flush(20) == 0


def confluent_consume(c: FakeCluster, topic: str, partitions: int, n: int,
                      start: int = OFFSET_BEGINNING) -> list[tuple[int, int, bytes | None, bytes | None]]:
    """(partition, offset, key, value) of the first ``n`` records, read by assign (no group)."""
    consumer = Consumer({"bootstrap.servers": c.bootstrap, "group.id": "records-test", "log_level": 3,
                         "enable.auto.commit": False, "auto.offset.reset": "earliest",
                         "fetch.wait.max.ms": 50})
    try:
        consumer.assign([CTP(topic, p, start) for p in range(partitions)])
        got: list[tuple[int, int, bytes | None, bytes | None]] = []
        deadline = time.monotonic() + 20
        while len(got) < n and time.monotonic() < deadline:
            m = consumer.poll(0.2)
            if m is None:
                continue
            assert m.error() is None, m.error()
            got.append((int(m.partition() or 0), int(m.offset() or 0), m.key(), m.value()))
        return got
    finally:
        consumer.close()


def confluent_watermarks(c: FakeCluster, topic: str, partitions: int) -> list[tuple[int, int]]:
    consumer = Consumer({"bootstrap.servers": c.bootstrap, "group.id": "records-watermarks", "log_level": 3})
    try:
        return [consumer.get_watermark_offsets(CTP(topic, p), timeout=10) for p in range(partitions)]
    finally:
        consumer.close()


def kafka_python_consume(c: FakeCluster, topic: str, partitions: int, n: int,
                         **settings: Any) -> list[tuple[int, int, bytes | None, bytes | None]]:
    consumer = KafkaConsumer(bootstrap_servers=c.bootstrap, auto_offset_reset="earliest",
                             enable_auto_commit=False, fetch_max_wait_ms=50, **settings)
    try:
        consumer.assign([KTP(topic, p) for p in range(partitions)])
        got: list[tuple[int, int, bytes | None, bytes | None]] = []
        deadline = time.monotonic() + 20
        while len(got) < n and time.monotonic() < deadline:
            for records in consumer.poll(200).values():
                got += [(r.partition, r.offset, r.key, r.value) for r in records]
        return got
    finally:
        consumer.close()


def expected(n: int, partitions: int, first: int = 0) -> list[tuple[int, int, bytes, bytes]]:
    """What ``confluent_produce`` wrote, records ``first``.. of it, in (partition, offset) order."""
    out = []
    for i in range(n):
        p = i % partitions
        out.append((p, i // partitions, f"k{i}".encode(), f"v{i}".encode()))
    return sorted(r for r in out if r[1] >= first)


def produce_request(topic: str, partition: int, records: bytes | None, acks: int = 1) -> Any:
    P: Any = fake_message_type(ApiKey.PRODUCE, "request")
    return P(acks=acks, timeout_ms=1000, topic_data=[P.TopicProduceData(name=topic, partition_data=[
        P.PartitionProduceData(index=partition, records=records)])])


def fetch_request(topic: str, partition: int, offset: int, max_wait_ms: int = 0, min_bytes: int = 0,
                  topic_id: Any = None) -> Any:
    F: Any = fake_message_type(ApiKey.FETCH, "request")
    return F(replica_id=-1, max_wait_ms=max_wait_ms, min_bytes=min_bytes, session_id=0, session_epoch=-1,
             topics=[F.FetchTopic(topic=topic, topic_id=topic_id, partitions=[F.FetchPartition(
                 partition=partition, fetch_offset=offset, partition_max_bytes=1 << 20)])])


def batch(values: list[bytes], base_offset: int = 0) -> bytes:
    return build_v2_batch(base_offset, [(1_700_000_000_000 + i, None, v) for i, v in enumerate(values)])


def leader_conn(c: FakeCluster, topic: str, partition: int, leader: bool = True) -> RawConnection:
    lead = c.leader_of(topic, partition)
    node = lead if leader else next(n for n in c.node_ids if n != lead)
    host, port = c.addresses[node]
    return RawConnection(host, port)


cluster = shared_cluster(brokers=3)


# --- real clients --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("release", ["2.2", "3.0", "3.9", "4.0"])
def test_confluent_producer_and_consumer_round_trip(release: str) -> None:
    with FakeCluster(brokers=3, versions=release) as c:
        c.add_topic("orders", partitions=3)
        confluent_produce(c, "orders", 120, 3)
        assert c.topics["orders"] == {0: (0, 40), 1: (0, 40), 2: (0, 40)}
        got = confluent_consume(c, "orders", 3, 120)
        assert sorted(got) == expected(120, 3)
        assert confluent_watermarks(c, "orders", 3) == [(0, 40)] * 3
        # Produce and Fetch went to the leaders at the newest version both sides have.
        produced = [e for e in c.request_log if e.api_key == ApiKey.PRODUCE]
        assert produced and all(c.leader_of("orders", int(k.rpartition("-")[2])) == e.node_id
                                for e in produced for k in e.keys)


def test_kafka_python_idempotent_producer_is_read_by_confluent(cluster: FakeCluster) -> None:
    cluster.add_topic("kp", partitions=2)
    p = KafkaProducer(bootstrap_servers=cluster.bootstrap)  # idempotent by default (KIP-679)
    try:
        futures = [p.send("kp", key=f"k{i}".encode(), value=f"v{i}".encode(), partition=i % 2) for i in range(40)]
        p.flush(10)
        offsets = [f.get(10).offset for f in futures]
    finally:
        p.close()
    assert offsets == [i // 2 for i in range(40)]
    assert cluster.count(ApiKey.INIT_PRODUCER_ID) >= 1
    assert sorted(confluent_consume(cluster, "kp", 2, 40)) == expected(40, 2)
    assert sorted(kafka_python_consume(cluster, "kp", 2, 40)) == expected(40, 2)


def test_old_message_formats_are_converted_both_ways(cluster: FakeCluster) -> None:
    """kafka-python pinned to 0.10.1 produces magic-1 messages (Produce v2) and fetches at Fetch v3 (no
    record batches): the fake converts up on append and down on fetch, as a broker with format v2 does."""
    cluster.add_topic("legacy", partitions=1)
    old = {"api_version": (0, 10, 1)}
    p = KafkaProducer(bootstrap_servers=cluster.bootstrap, **old)
    try:
        futures = [p.send("legacy", key=f"k{i}".encode(), value=f"v{i}".encode(), partition=0) for i in range(5)]
        p.flush(10)
        assert [f.get(10).offset for f in futures] == list(range(5))
    finally:
        p.close()
    assert cluster.count(ApiKey.PRODUCE, version=2) >= 1
    confluent_produce(cluster, "legacy", 5, 1)  # v2 batches after the up-converted one
    want = [(0, i, f"k{i % 5}".encode(), f"v{i % 5}".encode()) for i in range(10)]
    assert sorted(confluent_consume(cluster, "legacy", 1, 10)) == want
    cluster.clear_log()
    assert sorted(kafka_python_consume(cluster, "legacy", 1, 10, client_id="legacy-reader", **old)) == want
    # kafka-python's own fetches, by its client id: the confluent-kafka consumer above may still send a last
    # Fetch (v16) while it closes on a loaded machine.
    assert {e.version for e in cluster.request_log
            if e.api_key == ApiKey.FETCH and e.client_id == "legacy-reader"} == {3}


def test_consumer_starts_at_the_low_watermark_after_delete_records(cluster: FakeCluster) -> None:
    cluster.add_topic("trimmed", partitions=2)
    confluent_produce(cluster, "trimmed", 100, 2)
    with AdminClient(cluster.bootstrap, default_timeout_s=10.0) as admin:
        assert admin.delete_records({TP("trimmed", 0): 30, TP("trimmed", 1): 45}) == {
            TP("trimmed", 0): DeletedRecords(30), TP("trimmed", 1): DeletedRecords(45)}
    assert confluent_watermarks(cluster, "trimmed", 2) == [(30, 50), (45, 50)]
    got = confluent_consume(cluster, "trimmed", 2, 25)
    assert sorted(got) == [r for r in expected(100, 2) if r[1] >= (30 if r[0] == 0 else 45)]
    # Below the log start is out of range, as over a real log.
    with leader_conn(cluster, "trimmed", 0) as conn:
        part = conn.request(ApiKey.FETCH, 11, fetch_request("trimmed", 0, 29)).responses[0].partitions[0]
        assert (part.error_code, part.log_start_offset, part.high_watermark) == (OFFSET_OUT_OF_RANGE, 30, 50)


def test_offsets_moved_without_producing_read_as_records_nobody_wrote(cluster: FakeCluster) -> None:
    """add_topic(offsets=...) and set_log_end make records exist that no producer sent: consumers read them
    as keyless, valueless records, so they can make progress over the whole log."""
    cluster.add_topic("seeded", partitions=1, offsets={0: (3, 8)})
    confluent_produce(cluster, "seeded", 2, 1)  # at offsets 8 and 9
    cluster.set_log_end("seeded", 0, 12)
    got = confluent_consume(cluster, "seeded", 1, 9)
    assert [(o, v) for _p, o, _k, v in got] == [(3, None), (4, None), (5, None), (6, None), (7, None),
                                                (8, b"v0"), (9, b"v1"), (10, None), (11, None)]
    # A lower log end truncates: a batch it leaves whole stays, one it cuts through goes (Kafka truncates
    # whole batches too), and what it leaves behind reads as unwritten.
    cluster.set_log_end("seeded", 0, 10)
    assert [(o, v) for _p, o, _k, v in kafka_python_consume(cluster, "seeded", 1, 7)] == [
        (3, None), (4, None), (5, None), (6, None), (7, None), (8, b"v0"), (9, b"v1")]
    cluster.set_log_end("seeded", 0, 9)
    assert [(o, v) for _p, o, _k, v in kafka_python_consume(cluster, "seeded", 1, 6)] == [
        (3, None), (4, None), (5, None), (6, None), (7, None), (8, None)]


# --- raw requests: Kafka's errors ------------------------------------------------------------------------------


def test_produce_rewrites_the_base_offset_and_fetch_returns_the_batch(cluster: FakeCluster) -> None:
    cluster.add_topic("raw", partitions=1, offsets=[5])
    with leader_conn(cluster, "raw", 0) as conn:
        resp = conn.request(ApiKey.PRODUCE, 9, produce_request("raw", 0, batch([b"a", b"b", b"c"], 777)))
        part = resp.responses[0].partition_responses[0]
        assert (part.error_code, part.base_offset, part.log_start_offset) == (NONE, 5, 0)
        assert cluster.topics["raw"][0] == (0, 8)
        fetched = conn.request(ApiKey.FETCH, 12, fetch_request("raw", 0, 5)).responses[0].partitions[0]
        assert (fetched.error_code, fetched.high_watermark, fetched.last_stable_offset) == (NONE, 8, 8)
        data = bytes(fetched.records)
        assert struct.unpack_from(">q", data, 0)[0] == 5  # the base offset the fake gave it
        # The partition leader epoch is the leader's (not covered by the CRC), the rest as the producer sent it.
        assert struct.unpack_from(">i", data, 12)[0] == cluster.partition("raw", 0).leader_epoch
        sent = batch([b"a", b"b", b"c"], 777)
        assert data[8:12] == sent[8:12] and data[16:] == sent[16:]
        # At the log end: an empty answer; beyond it: out of range.
        at_end = conn.request(ApiKey.FETCH, 12, fetch_request("raw", 0, 8)).responses[0].partitions[0]
        assert (at_end.error_code, bytes(at_end.records or b"")) == (NONE, b"")
        beyond = conn.request(ApiKey.FETCH, 12, fetch_request("raw", 0, 9)).responses[0].partitions[0]
        assert beyond.error_code == OFFSET_OUT_OF_RANGE
        # A batch whose CRC does not match is refused and not appended.
        bad = bytearray(batch([b"x"]))
        bad[-1] ^= 0xFF
        resp = conn.request(ApiKey.PRODUCE, 9, produce_request("raw", 0, bytes(bad)))
        assert resp.responses[0].partition_responses[0].error_code == CORRUPT_MESSAGE
        assert cluster.topics["raw"][0] == (0, 8)


def test_produce_and_fetch_errors_as_kafka_gives_them(cluster: FakeCluster) -> None:
    cluster.add_topic("errs", partitions=1)
    with leader_conn(cluster, "errs", 0, leader=False) as conn:
        resp = conn.request(ApiKey.PRODUCE, 10, produce_request("errs", 0, batch([b"x"])))
        part = resp.responses[0].partition_responses[0]
        leader = cluster.leader_of("errs", 0)
        assert part.error_code == NOT_LEADER
        assert part.current_leader.leader_id == leader  # KIP-951's hint
        assert [n.node_id for n in resp.node_endpoints] == [leader]
        assert (n := resp.node_endpoints[0]) and (n.host, n.port) == cluster.addresses[leader]
        f = conn.request(ApiKey.FETCH, 16, fetch_request("errs", 0, 0, topic_id=cluster.topic_id("errs")))
        fpart = f.responses[0].partitions[0]
        assert fpart.error_code == NOT_LEADER and fpart.current_leader.leader_id == leader
        assert [n.node_id for n in f.node_endpoints] == [leader]
    with leader_conn(cluster, "errs", 0) as conn:
        resp = conn.request(ApiKey.PRODUCE, 9, produce_request("nope", 0, batch([b"x"])))
        assert resp.responses[0].partition_responses[0].error_code == UNKNOWN_TOPIC_OR_PARTITION
        resp = conn.request(ApiKey.PRODUCE, 9, produce_request("errs", 0, batch([b"x"]), acks=2))
        assert resp.responses[0].partition_responses[0].error_code == INVALID_REQUIRED_ACKS
        f = conn.request(ApiKey.FETCH, 13, fetch_request("", 0, 0, topic_id=uuid.uuid4()))
        assert f.responses[0].partitions[0].error_code == UNKNOWN_TOPIC_ID
        # acks=0: no answer at all; the next request on the connection is answered in order.
        conn.send(ApiKey.PRODUCE, 9, produce_request("errs", 0, batch([b"quiet"]), acks=0))
        assert conn.request(ApiKey.FETCH, 12, fetch_request("errs", 0, 0)).responses[0].partitions[0] \
            .high_watermark == 1
    with leader_conn(cluster, "errs", 0) as conn:
        # acks=0 and a failure: Kafka closes the connection, the producer's only way to notice.
        conn.send(ApiKey.PRODUCE, 9, produce_request("nope", 0, batch([b"x"]), acks=0))
        assert conn.is_closed()
    assert cluster.topics["errs"][0] == (0, 1)


def test_fetch_waits_for_data_without_blocking_other_connections(cluster: FakeCluster) -> None:
    cluster.add_topic("waiting", partitions=1)
    answer: dict[str, Any] = {}

    def fetch() -> None:
        with leader_conn(cluster, "waiting", 0) as conn:
            t0 = time.monotonic()
            answer["resp"] = conn.request(ApiKey.FETCH, 12, fetch_request("waiting", 0, 0, max_wait_ms=10_000,
                                                                          min_bytes=1))
            answer["took"] = time.monotonic() - t0

    waiter = threading.Thread(target=fetch)
    waiter.start()
    assert cluster.wait_for_requests(1, ApiKey.FETCH, timeout=5)
    time.sleep(0.1)
    with leader_conn(cluster, "waiting", 0) as conn:
        # The held fetch does not hold the cluster: this connection is served meanwhile.
        assert conn.request(ApiKey.METADATA, 9, topics=None).brokers
        resp = conn.request(ApiKey.PRODUCE, 9, produce_request("waiting", 0, batch([b"wake"])))
        assert resp.responses[0].partition_responses[0].error_code == NONE
    waiter.join(10)
    assert not waiter.is_alive()
    assert answer["took"] < 5  # woken by the produce, not by MaxWaitMs
    part = answer["resp"].responses[0].partitions[0]
    assert part.high_watermark == 1 and bytes(part.records)[16:] == batch([b"wake"])[16:]
    # With nothing arriving the answer comes after MaxWaitMs, empty.
    with leader_conn(cluster, "waiting", 0) as conn:
        t0 = time.monotonic()
        resp = conn.request(ApiKey.FETCH, 12, fetch_request("waiting", 0, 1, max_wait_ms=300, min_bytes=1))
        assert time.monotonic() - t0 >= 0.25
        assert bytes(resp.responses[0].partitions[0].records or b"") == b""


def test_fetch_sessions_are_never_created(cluster: FakeCluster) -> None:
    cluster.add_topic("sessions", partitions=1)
    with leader_conn(cluster, "sessions", 0) as conn:
        req = fetch_request("sessions", 0, 0)
        req.session_epoch = 0  # asks for a new session
        assert conn.request(ApiKey.FETCH, 12, req).session_id == 0  # none made: keep sending full fetches
        req.session_id, req.session_epoch = 1234, 1
        assert conn.request(ApiKey.FETCH, 12, req).error_code == 70  # FETCH_SESSION_ID_NOT_FOUND


def test_acks_0_producer_with_confluent(cluster: FakeCluster) -> None:
    cluster.add_topic("fire", partitions=1)
    p = Producer({"bootstrap.servers": cluster.bootstrap, "acks": 0, "linger.ms": 2, "log_level": 3})
    for i in range(20):
        p.produce("fire", value=f"v{i}".encode(), partition=0)
    assert p.flush(10) == 0
    deadline = time.monotonic() + 5
    while cluster.topics["fire"][0] != (0, 20) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert cluster.topics["fire"][0] == (0, 20)
    assert [v for _p, _o, _k, v in confluent_consume(cluster, "fire", 1, 20)] == [f"v{i}".encode() for i in range(20)]
