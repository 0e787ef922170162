"""The fake's share coordinator over raw requests (KIP-932): Kafka's rules for ShareGroupHeartbeat, ShareFetch and
ShareAcknowledge, and the share-partition start offset (SPSO) they move.

Each rule is one a real client depends on: the heartbeat's errors (INVALID_REQUEST for a first heartbeat without
topics, FENCED_MEMBER_EPOCH, UNKNOWN_MEMBER_ID, GROUP_ID_NOT_FOUND for a group of another type), the share
session's epochs (SHARE_SESSION_NOT_FOUND, INVALID_SHARE_SESSION_EPOCH), an acquisition lock that runs out
hands the record out again with its delivery count raised until group.share.delivery.count.limit archives it,
acknowledging a record the member does not hold is INVALID_RECORD_STATE, and the SPSO moves only past records
finished in order.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from kadmin.testing import FakeCluster
from kadmin.testing.rawclient import RawConnection
from kadmin.testing.schemas import fake_message_type

pytestmark = pytest.mark.timeout(60)

HEARTBEAT, SHARE_FETCH, SHARE_ACK = 76, 78, 79
NONE, UNKNOWN_MEMBER_ID, INVALID_REQUEST, GROUP_ID_NOT_FOUND, FENCED_MEMBER_EPOCH = 0, 25, 42, 69, 110
INVALID_RECORD_STATE, SHARE_SESSION_NOT_FOUND, INVALID_SHARE_SESSION_EPOCH = 121, 122, 123
ACCEPT, RELEASE, REJECT = 1, 2, 3


@pytest.fixture
def cluster() -> Iterator[FakeCluster]:
    with FakeCluster(brokers=1, versions="4.3") as c:
        c.add_topic("orders", 1, offsets={0: (0, 10)})
        c.set_share_auto_offset_reset("sg", "earliest")
        yield c


@pytest.fixture
def conn(cluster: FakeCluster) -> Iterator[RawConnection]:
    host, port = cluster.addresses[1]
    with RawConnection(host, port) as c:
        yield c


def heartbeat(conn: RawConnection, member: str, epoch: int, topics: list[str] | None, group: str = "sg") -> Any:
    return conn.request(HEARTBEAT, 1, group_id=group, member_id=member, member_epoch=epoch, rack_id=None,
                        subscribed_topic_names=topics)


def topic_id(cluster: FakeCluster) -> Any:
    return cluster.topic_id("orders")


def fetch(conn: RawConnection, cluster: FakeCluster, member: str, epoch: int, *, acks: list[Any] | None = None,
          max_records: int = 100, partitions: bool = True) -> Any:
    R: Any = fake_message_type(SHARE_FETCH, "request")
    batches = [R.AcknowledgementBatch(first_offset=f, last_offset=last, acknowledge_types=t)
               for f, last, t in acks or []]
    topics = [R.FetchTopic(topic_id=topic_id(cluster), partitions=[
        R.FetchPartition(partition_index=0, acknowledgement_batches=batches)])] if partitions or acks else []
    return conn.request(SHARE_FETCH, 2, R(group_id="sg", member_id=member, share_session_epoch=epoch, max_wait_ms=0,
                                          min_bytes=1, max_bytes=1 << 20, max_records=max_records, batch_size=100,
                                          topics=topics, forgotten_topics_data=[]))


def ack(conn: RawConnection, cluster: FakeCluster, member: str, epoch: int, first: int, last: int, kind: int) -> Any:
    R: Any = fake_message_type(SHARE_ACK, "request")
    return conn.request(SHARE_ACK, 2, R(group_id="sg", member_id=member, share_session_epoch=epoch, topics=[
        R.AcknowledgeTopic(topic_id=topic_id(cluster), partitions=[R.AcknowledgePartition(
            partition_index=0, acknowledgement_batches=[R.AcknowledgementBatch(
                first_offset=first, last_offset=last, acknowledge_types=[kind])])])]))


def acquired(resp: Any) -> list[tuple[int, int, int]]:
    return [(a.first_offset, a.last_offset, a.delivery_count)
            for t in resp.responses for p in t.partitions for a in p.acquired_records]


def test_heartbeat_rules(cluster: FakeCluster, conn: RawConnection) -> None:
    assert heartbeat(conn, "m1", 0, None).error_code == INVALID_REQUEST  # a first heartbeat names its topics
    assert heartbeat(conn, "", 0, ["orders"]).error_code == INVALID_REQUEST
    first = heartbeat(conn, "m1", 0, ["orders"])
    assert first.error_code == NONE and first.member_epoch == 1 and first.heartbeat_interval_ms == 5000
    assert [tp.partitions for tp in first.assignment.topic_partitions] == [[0]]
    second = heartbeat(conn, "m2", 0, ["orders"])
    assert second.member_epoch == 2
    assert [tp.partitions for tp in second.assignment.topic_partitions] == [[0]]  # more members than partitions
    assert heartbeat(conn, "m1", 7, None).error_code == FENCED_MEMBER_EPOCH
    again = heartbeat(conn, "m1", 1, None)  # its last epoch: moved to the group's, no new assignment
    assert (again.error_code, again.member_epoch, again.assignment) == (NONE, 2, None)
    assert heartbeat(conn, "ghost", 3, None).error_code == UNKNOWN_MEMBER_ID
    cluster.add_group("classic")
    assert heartbeat(conn, "m1", 0, ["orders"], group="classic").error_code == GROUP_ID_NOT_FOUND
    assert heartbeat(conn, "m2", -1, None).member_epoch == -1
    assert len(cluster.groups["sg"].consumer_members) == 1 and cluster.groups["sg"].group_epoch == 3


def test_share_session_epochs(cluster: FakeCluster, conn: RawConnection) -> None:
    heartbeat(conn, "m1", 0, ["orders"])
    assert fetch(conn, cluster, "m1", 1).error_code == SHARE_SESSION_NOT_FOUND
    assert ack(conn, cluster, "m1", 0, 0, 0, ACCEPT).error_code == INVALID_SHARE_SESSION_EPOCH  # acks open nothing
    opened = fetch(conn, cluster, "m1", 0, max_records=4)
    assert opened.error_code == NONE and acquired(opened) == [(0, 3, 1)]
    assert fetch(conn, cluster, "m1", 5).error_code == INVALID_SHARE_SESSION_EPOCH
    nxt = fetch(conn, cluster, "m1", 1, max_records=4, partitions=False)  # the session remembers the partition
    assert acquired(nxt) == [(4, 7, 1)]
    assert ack(conn, cluster, "m1", 2, 0, 7, ACCEPT).error_code == NONE
    assert cluster.share_offsets("sg")[("orders", 0)].start_offset == 8
    closed = fetch(conn, cluster, "m1", -1, partitions=False)
    assert closed.error_code == NONE and acquired(closed) == []
    assert fetch(conn, cluster, "m1", 3).error_code == SHARE_SESSION_NOT_FOUND


def test_locks_run_out_and_the_delivery_limit_archives(cluster: FakeCluster, conn: RawConnection) -> None:
    cluster.set_group_config(group_share_record_lock_duration_ms=100, group_share_delivery_count_limit=2)
    heartbeat(conn, "m1", 0, ["orders"])
    first = fetch(conn, cluster, "m1", 0, max_records=2)
    assert acquired(first) == [(0, 1, 1)] and first.acquisition_lock_timeout_ms == 100
    time.sleep(0.2)
    second = fetch(conn, cluster, "m1", 1, max_records=2, partitions=False)
    assert acquired(second) == [(0, 1, 2)]  # handed out again, delivery count 2
    time.sleep(0.2)
    third = fetch(conn, cluster, "m1", 2, max_records=2, partitions=False)
    assert acquired(third) == [(2, 3, 1)]  # 0 and 1 reached the limit: archived, not delivered a third time
    assert cluster.share_offsets("sg")[("orders", 0)].start_offset == 2


def test_acknowledgement_rules_and_the_start_offset(cluster: FakeCluster, conn: RawConnection) -> None:
    heartbeat(conn, "m1", 0, ["orders"])
    heartbeat(conn, "m2", 0, ["orders"])
    assert acquired(fetch(conn, cluster, "m1", 0, max_records=3)) == [(0, 2, 1)]
    host, port = cluster.addresses[1]
    with RawConnection(host, port) as other:
        assert acquired(fetch(other, cluster, "m2", 0, max_records=3)) == [(3, 5, 1)]  # never m1's records
        bad = ack(other, cluster, "m2", 1, 0, 0, ACCEPT)  # a record m1 holds
        assert [p.error_code for t in bad.responses for p in t.partitions] == [INVALID_RECORD_STATE]
        assert ack(other, cluster, "m2", 2, 3, 5, ACCEPT).error_code == NONE
    assert cluster.share_offsets("sg")[("orders", 0)].start_offset == 0  # 0-2 still in flight
    assert cluster.share_offsets("sg")[("orders", 0)].finished_above_start == 3
    resp = fetch(conn, cluster, "m1", 1, acks=[(0, 0, [REJECT]), (1, 2, [RELEASE])], max_records=10,
                 partitions=False)
    assert [p.acknowledge_error_code for t in resp.responses for p in t.partitions] == [NONE]
    # 0 rejected (finished), 1-2 released and handed out again with the rest.
    assert acquired(resp) == [(1, 2, 2), (6, 9, 1)]
    assert cluster.share_offsets("sg")[("orders", 0)].start_offset == 1
    heartbeat(conn, "m1", -1, None)  # leaving releases what m1 held
    assert cluster.share_offsets("sg")[("orders", 0)].in_flight == 0


def test_a_deleted_topic_leaves_the_session(cluster: FakeCluster, conn: RawConnection) -> None:
    from kadmin.client import AdminClient

    heartbeat(conn, "m1", 0, ["orders"])
    assert acquired(fetch(conn, cluster, "m1", 0, max_records=2)) == [(0, 1, 1)]
    with AdminClient(cluster.bootstrap, default_timeout_s=10) as admin:
        assert admin.delete_topics(["orders"]) == {"orders": None}
    after = fetch(conn, cluster, "m1", 1, partitions=False)
    assert after.error_code == NONE and after.responses == []
