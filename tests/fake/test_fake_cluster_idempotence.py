"""Idempotent Produce on the fake cluster: Kafka's sequence checks per (producer id, epoch, partition).

Real producers first: confluent-kafka (enable.idempotence=true) and kafka-python (idempotent by default) write
through connections the fake drops after appending, so they resend batches already written; the broker must
answer those with the original offsets and append nothing, so every record is in the log exactly once.
Then hand-built Produce requests (kadmin's codec, batches with chosen producer ids, epochs and sequences) pin
each rule of Kafka's ProducerStateManager: duplicates of the last five batches, gaps, epochs, unknown
producers before and after 2.4 (KAFKA-7190), and that a refused batch appends nothing.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka import TopicPartition as CTP
from kafka import KafkaProducer

from kadmin.client import AdminClient
from kadmin.errors import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing import FakeCluster
from kadmin.testing.rawclient import RawConnection
from kadmin.testing.record_log import build_v2_batch
from kadmin.testing.schemas import fake_message_type
from kadmin.types import TopicPartition as TP
from tests.support.clusters import shared_cluster

pytestmark = pytest.mark.timeout(120)

NONE = ErrorCode.NONE
OUT_OF_ORDER = ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER
INVALID_EPOCH = ErrorCode.INVALID_PRODUCER_EPOCH
UNKNOWN_PRODUCER = ErrorCode.UNKNOWN_PRODUCER_ID
PRODUCE_VERSION = 7  # one batch per partition (v3+), served by every preset from 2.2
TS = 1_700_000_000_000


def consume_values(c: FakeCluster, topic: str, partitions: int, n: int) -> list[tuple[int, int, bytes]]:
    consumer = Consumer({"bootstrap.servers": c.bootstrap, "group.id": "idem", "log_level": 3,
                         "enable.auto.commit": False, "auto.offset.reset": "earliest", "fetch.wait.max.ms": 50})
    try:
        consumer.assign([CTP(topic, p, 0) for p in range(partitions)])
        got: list[tuple[int, int, bytes]] = []
        deadline = time.monotonic() + 20
        while len(got) < n and time.monotonic() < deadline:
            m = consumer.poll(0.2)
            if m is not None and m.error() is None:
                got.append((int(m.partition() or 0), int(m.offset() or 0), bytes(m.value() or b"")))
        # Nothing beyond the n records: a duplicate would show up here.
        extra = consumer.poll(0.5)
        assert extra is None or extra.error() is not None, extra
        return got
    finally:
        consumer.close()


cluster = shared_cluster(brokers=3)


# --- real producers ------------------------------------------------------------------------------------------


def test_confluent_idempotent_producer_resends_after_lost_answers_and_writes_once(cluster: FakeCluster) -> None:
    cluster.add_topic("idem-ck", partitions=3)
    # Every leader drops the connection after appending its first two Produce requests: librdkafka cannot know
    # whether they were written and sends the same batches (same sequences) again.
    cluster.drop_connection(None, ApiKey.PRODUCE, when="after", count=2)
    p = Producer({"bootstrap.servers": cluster.bootstrap, "enable.idempotence": True, "linger.ms": 5,
                  "log_level": 0, "retry.backoff.ms": 20})
    errors: list[Any] = []
    for i in range(150):
        p.produce("idem-ck", value=f"v{i}".encode(), partition=i % 3,
                  on_delivery=lambda err, _m: errors.append(err) if err is not None else None)
        if i % 25 == 24:
            p.poll(0)
    assert p.flush(30) == 0
    assert errors == []
    produced = [e for e in cluster.request_log if e.api_key == ApiKey.PRODUCE]
    assert cluster.count(ApiKey.INIT_PRODUCER_ID) >= 1
    assert cluster.topics["idem-ck"] == {0: (0, 50), 1: (0, 50), 2: (0, 50)}  # nothing written twice
    got = consume_values(cluster, "idem-ck", 3, 150)
    assert sorted(v for _p, _o, v in got) == sorted(f"v{i}".encode() for i in range(150))
    # Per partition the records are in the order sent, at offsets 0..49.
    for part in range(3):
        assert [v for p_, _o, v in sorted(got) if p_ == part] == [f"v{i}".encode() for i in range(part, 150, 3)]
    assert len(produced) >= 3  # the resends reached the brokers


def test_kafka_python_idempotent_producer_resends_and_writes_once(cluster: FakeCluster) -> None:
    cluster.add_topic("idem-kp", partitions=1)
    cluster.drop_connection(cluster.leader_of("idem-kp", 0), ApiKey.PRODUCE, when="after", count=1)
    p = KafkaProducer(bootstrap_servers=cluster.bootstrap, enable_idempotence=True, linger_ms=5,
                      retry_backoff_ms=20)
    try:
        futures = [p.send("idem-kp", value=f"k{i}".encode(), partition=0) for i in range(30)]
        p.flush(20)
        offsets = [f.get(20).offset for f in futures]
    finally:
        p.close()
    assert offsets == list(range(30))
    assert cluster.topics["idem-kp"] == {0: (0, 30)}
    assert [v for _p, _o, v in sorted(consume_values(cluster, "idem-kp", 1, 30))] == [
        f"k{i}".encode() for i in range(30)]


# --- hand-built requests -------------------------------------------------------------------------------------


class Partition0:
    """Produce requests to partition 0 of a topic, on its leader, with batches of chosen pid/epoch/sequence."""

    def __init__(self, c: FakeCluster, topic: str) -> None:
        self.cluster, self.topic = c, topic
        host, port = c.addresses[c.leader_of(topic, 0)]
        self.conn = RawConnection(host, port)

    def __enter__(self) -> Partition0:
        return self

    def __exit__(self, *exc: object) -> None:
        self.conn.close()

    def send(self, pid: int, epoch: int, seq: int, count: int = 1) -> tuple[int, int]:
        """(error code, base offset)."""
        records: list[tuple[int, bytes | None, bytes | None]] = [
            (TS + i, None, f"{pid}/{epoch}/{seq + i}".encode()) for i in range(count)]
        data = build_v2_batch(0, records, producer_id=pid, producer_epoch=epoch, base_sequence=seq)
        P: Any = fake_message_type(ApiKey.PRODUCE, "request")
        req = P(acks=-1, timeout_ms=1000, transactional_id=None, topic_data=[P.TopicProduceData(
            name=self.topic, partition_data=[P.PartitionProduceData(index=0, records=data)])])
        part = self.conn.request(ApiKey.PRODUCE, PRODUCE_VERSION, req).responses[0].partition_responses[0]
        return part.error_code, part.base_offset

    @property
    def log_end(self) -> int:
        return self.cluster.topics[self.topic][0][1]


def test_duplicates_of_the_last_five_batches_answer_the_original_offsets(cluster: FakeCluster) -> None:
    cluster.add_topic("seq-dup", partitions=1)
    with Partition0(cluster, "seq-dup") as p0:
        assert p0.send(4001, 0, 0, count=3) == (NONE, 0)
        assert p0.send(4001, 0, 0, count=3) == (NONE, 0)  # a resend: the original offset, nothing appended
        assert p0.log_end == 3
        assert p0.send(9999, 0, 0, count=2) == (NONE, 3)  # another producer in between
        assert p0.send(4001, 0, 3, count=2) == (NONE, 5)
        assert p0.send(4001, 0, 0, count=3) == (NONE, 0)  # still one of the last five
        # Only the exact sequence range is a duplicate: an overlapping batch is out of order.
        assert p0.send(4001, 0, 1, count=2)[0] == OUT_OF_ORDER
        for seq in range(5, 9):  # four more one-record batches: seqs 0-2 drop out of the last five
            assert p0.send(4001, 0, seq) == (NONE, 7 + seq - 5)
        assert p0.send(4001, 0, 3, count=2) == (NONE, 5)  # the oldest of the five
        assert p0.send(4001, 0, 0, count=3)[0] == OUT_OF_ORDER  # no longer remembered
        assert p0.log_end == 11


def test_gaps_and_epochs_are_refused_and_append_nothing(cluster: FakeCluster) -> None:
    cluster.add_topic("seq-gap", partitions=1)
    with Partition0(cluster, "seq-gap") as p0:
        assert p0.send(4002, 3, 0, count=2) == (NONE, 0)
        assert p0.send(4002, 3, 3)[0] == OUT_OF_ORDER  # 2 is missing
        assert p0.send(4002, 3, 1)[0] == OUT_OF_ORDER  # behind, not a cached range
        assert p0.log_end == 2
        assert p0.send(4002, 2, 2)[0] == INVALID_EPOCH  # an older epoch: a fenced producer
        assert p0.send(4002, 4, 2)[0] == OUT_OF_ORDER  # a new epoch starts at sequence 0
        assert p0.log_end == 2
        assert p0.send(4002, 4, 0) == (NONE, 2)  # ... and then it is the producer's epoch
        assert p0.send(4002, 3, 2)[0] == INVALID_EPOCH
        assert p0.send(4002, 4, 1) == (NONE, 3)
        assert p0.log_end == 4
        # Sequences wrap after 2^31 - 1.
        assert p0.send(4003, 0, 2**31 - 2, count=2) == (NONE, 4)
        assert p0.send(4003, 0, 0) == (NONE, 6)
        assert p0.log_end == 7


@pytest.mark.parametrize(("release", "kept"), [("2.2", False), ("2.6", True), ("3.9", True)])
def test_unknown_producers_before_and_after_2_4(release: str, kept: bool) -> None:
    """Before 2.4 a producer the partition has no state for must start at sequence 0 (UNKNOWN_PRODUCER_ID), and
    DeleteRecords past its last batch forgets it; since 2.4 (KAFKA-7190) any first sequence is taken and the
    state outlives the records."""
    with FakeCluster(brokers=1, versions=release) as c:
        c.add_topic("seq-unknown", partitions=1)
        with Partition0(c, "seq-unknown") as p0:
            assert p0.send(4004, 0, 7) == ((NONE, 0) if kept else (UNKNOWN_PRODUCER, -1))
            start = 1 if kept else 0
            assert p0.send(4005, 0, 0, count=2) == (NONE, start)
            end = start + 2
            assert p0.log_end == end
            with AdminClient(c.bootstrap, default_timeout_s=10.0) as admin:
                admin.delete_records({TP("seq-unknown", 0): end})
            # 4005 continues at 2: its records are gone, its state is not (2.4+), or it is (before).
            assert p0.send(4005, 0, 2) == ((NONE, end) if kept else (UNKNOWN_PRODUCER, -1))
            # Its first batch is still a duplicate where the state was kept; before 2.4 sequence 0 starts the
            # forgotten producer afresh and the batch is written a second time.
            assert p0.send(4005, 0, 0, count=2) == ((NONE, start) if kept else (NONE, end))


def test_truncated_batches_are_forgotten(cluster: FakeCluster) -> None:
    """A lowered log end cuts batches off: their sequences can be written again (Kafka rebuilds the producer
    state from the log it truncated)."""
    cluster.add_topic("seq-trunc", partitions=1)
    with Partition0(cluster, "seq-trunc") as p0:
        assert p0.send(4006, 0, 0, count=2) == (NONE, 0)
        assert p0.send(4006, 0, 2, count=2) == (NONE, 2)
        cluster.set_log_end("seq-trunc", 0, 2)
        assert p0.send(4006, 0, 2, count=2) == (NONE, 2)  # written again, not a duplicate of the cut batch
        assert p0.log_end == 4

