"""A real share consumer (confluent-kafka's ShareConsumer, librdkafka's KIP-932 client) on the fake cluster.

The fake serves ShareGroupHeartbeat, ShareFetch and ShareAcknowledge well enough for it to join, consume and
acknowledge; kadmin then reads what the consumer did (members, start offsets, lag) and resets the group, and a
new consumer receives the records again from the reset start offset: the write is seen by an independent
client.  Records are handed to one member at a time (two consumers never receive the same record), a
released record is delivered again with its delivery count raised, and offsets of a group that is consuming
are refused with NON_EMPTY_GROUP.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from confluent_kafka import AcknowledgeType, Producer, ShareConsumer

from kadmin.client import AdminClient
from kadmin.errors import NonEmptyGroupError
from kadmin.offset_reset import ResetTo
from kadmin.share_groups import SharePartitionOffset
from kadmin.testing import FakeCluster
from kadmin.types import TopicPartition
from tests.support.settings import FAST

pytestmark = pytest.mark.timeout(120)

RECORDS = 12


def wait_until(cond: Callable[[], bool], timeout: float = 20.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return
        time.sleep(0.05)
    raise AssertionError("condition not met in time")


def produce(bootstrap: str, topic: str, n: int, partitions: int) -> None:
    p = Producer({"bootstrap.servers": bootstrap})
    for i in range(n):
        p.produce(topic, value=f"v{i}".encode(), partition=i % partitions)
    assert p.flush(15) == 0


def consumer(bootstrap: str, group: str, **extra: str) -> ShareConsumer:
    c = ShareConsumer({"bootstrap.servers": bootstrap, "group.id": group, **extra})
    c.subscribe(["orders"])
    return c


def poll_until(c: ShareConsumer, n: int, timeout: float = 20.0) -> list[Any]:
    got: list[Any] = []
    end = time.monotonic() + timeout
    while time.monotonic() < end and len(got) < n:
        got += [m for m in c.poll(0.3) if m.error() is None]
    return got


@pytest.fixture(params=["4.1", "4.3"])
def cluster(request: pytest.FixtureRequest) -> Iterator[FakeCluster]:
    with FakeCluster(brokers=3, versions=request.param) as c:
        c.set_group_config(group_share_heartbeat_interval_ms=200)
        c.add_topic("orders", 2)
        produce(c.bootstrap, "orders", RECORDS, 2)
        yield c


def test_consume_then_describe_reset_and_consume_again(cluster: FakeCluster) -> None:
    cluster.set_share_auto_offset_reset("sg", "earliest")
    with AdminClient(cluster.bootstrap, **FAST) as admin:
        c = consumer(cluster.bootstrap, "sg")
        try:
            got = poll_until(c, RECORDS)
            assert sorted((m.partition(), m.offset()) for m in got) == [(p, o) for p in (0, 1) for o in range(6)]
            c.poll(0.5)  # the next poll acknowledges the last batch (implicit mode)
            wait_until(lambda: all(s.start_offset == 6 and s.in_flight == 0
                                   for s in cluster.share_offsets("sg").values()))
            d = admin.describe_share_groups(["sg"])["sg"]
            assert not isinstance(d, Exception)
            assert d.state == "Stable" and len(d.members) == 1
            assert sorted(d.members[0].current_assignment) == [TopicPartition("orders", 0), TopicPartition("orders", 1)]
            offsets = admin.list_share_group_offsets(["sg"])["sg"]
            assert isinstance(offsets, dict)
            lag = offsets[TopicPartition("orders", 0)].lag  # type: ignore[union-attr]
            assert lag == (None if cluster.versions_of(1)[90][1] == 0 else 0)  # the lag: Kafka 4.2's v1
            assert offsets == {TopicPartition("orders", p): SharePartitionOffset(6, 0, lag) for p in (0, 1)}
            refused = admin.alter_share_group_offsets("sg", {("orders", 0): 0})
            assert isinstance(refused[("orders", 0)], NonEmptyGroupError)
            with pytest.raises(NonEmptyGroupError):
                admin.reset_share_group_offsets("sg", None, "earliest", dry_run=False)
        finally:
            c.close()
        wait_until(lambda: not cluster.groups["sg"].consumer_members)
        plan = admin.reset_share_group_offsets("sg", [("orders", 1)], ResetTo.offset(2), dry_run=False)
        assert plan.complete
        one = admin.list_share_group_offsets(["sg"], [("orders", 1)])["sg"]
        assert isinstance(one, dict)
        assert one[("orders", 1)] == SharePartitionOffset(2, 0, one[("orders", 1)].lag)  # type: ignore[union-attr]
        again = consumer(cluster.bootstrap, "sg")
        try:
            redelivered = poll_until(again, 4)
        finally:
            again.close()
        assert sorted((m.partition(), m.offset()) for m in redelivered) == [(1, 2), (1, 3), (1, 4), (1, 5)]


def test_two_members_never_receive_the_same_record(cluster: FakeCluster) -> None:
    cluster.set_share_auto_offset_reset("pair", "earliest")
    a, b = consumer(cluster.bootstrap, "pair"), consumer(cluster.bootstrap, "pair")
    try:
        wait_until(lambda: "pair" in cluster.groups and len(cluster.groups["pair"].consumer_members) == 2)
        seen: list[tuple[int | None, int | None]] = []
        end = time.monotonic() + 20
        while time.monotonic() < end and len(seen) < RECORDS:
            for c in (a, b):
                seen += [(m.partition(), m.offset()) for m in c.poll(0.2) if m.error() is None]
        assert sorted(seen) == [(p, o) for p in (0, 1) for o in range(6)]  # each record once
    finally:
        a.close()
        b.close()


def test_a_released_record_is_delivered_again(cluster: FakeCluster) -> None:
    cluster.set_share_auto_offset_reset("rel", "earliest")
    c = consumer(cluster.bootstrap, "rel", **{"share.acknowledgement.mode": "explicit"})
    try:
        first = poll_until(c, 1)
        assert first
        for m in first:
            c.acknowledge(m, AcknowledgeType.RELEASE if (m.partition(), m.offset()) == (0, 0)
                          else AcknowledgeType.ACCEPT)
        c.commit_sync(15)
        again: list[Any] = []
        end = time.monotonic() + 20
        while time.monotonic() < end and not any((m.partition(), m.offset()) == (0, 0) for m in again):
            batch = [m for m in c.poll(0.3) if m.error() is None]
            for m in batch:
                c.acknowledge(m, AcknowledgeType.ACCEPT)
            if batch:
                c.commit_sync(15)
            again += batch
        redelivered = [m for m in again if (m.partition(), m.offset()) == (0, 0)]
        assert redelivered and redelivered[0].value() == b"v0"
    finally:
        c.close()
    with AdminClient(cluster.bootstrap, **FAST) as admin:
        def start() -> int:
            got = admin.list_share_group_offsets(["rel"])["rel"]
            one = got.get(TopicPartition("orders", 0)) if isinstance(got, dict) else None
            return one.start_offset if isinstance(one, SharePartitionOffset) else -1
        wait_until(lambda: start() == 6)  # every record of partition 0 finished, the released one too
