"""The fake cluster's group coordinator as real consumers use it, on every release preset.

confluent-kafka consumers (classic protocol) join, get every partition assigned exactly once, commit, and leave
on every preset; raw requests check the parts a well-behaved client never shows (KIP-394 member ids, session
expiry, static members, generation checks).
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from confluent_kafka import TopicPartition as CkTopicPartition

from kadmin.client import AdminClient
from kadmin.testing import FakeCluster
from kadmin.testing.rawclient import RawConnection
from kadmin.testing.schemas import fake_message_type
from kadmin.types import GroupDescription, TopicPartition
from kadmin.versions import RELEASE_NAMES
from tests.support.groups_consumers import ConsumerGroups, wait_until

pytestmark = pytest.mark.timeout(90)
JOIN, HEARTBEAT, LEAVE, SYNC = 11, 12, 13, 14
ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID, REBALANCE_IN_PROGRESS, MEMBER_ID_REQUIRED = 22, 25, 27, 79
FENCED_INSTANCE_ID = 82
CONSUMER_GROUP_DESCRIBE = 69
JOIN_REQ: Any = fake_message_type(JOIN, "request")
SYNC_REQ: Any = fake_message_type(SYNC, "request")
LEAVE_REQ: Any = fake_message_type(LEAVE, "request")


@pytest.mark.parametrize("release", RELEASE_NAMES)
def test_classic_consumers_join_commit_and_leave_on_every_preset(release: str) -> None:
    with FakeCluster(brokers=2, versions=release) as c:
        c.add_topic("t", 3, offsets=20)
        cg = ConsumerGroups(c.bootstrap)
        try:
            first, second = cg.start("g", ["t"], count=2)
            wait_until(lambda: (g := c.groups.get("g")) is not None and g.state == "Stable" and len(g.members) == 2
                       and all(m.assignment for m in g.members), what=f"two members stable on {release}")
            with AdminClient(c.bootstrap) as admin:
                d = admin.describe_consumer_groups(["g"])["g"]
            assert isinstance(d, GroupDescription)
            owned = sorted(tp for m in d.members for tp in m.current_assignment)
            assert owned == [TopicPartition("t", p) for p in range(3)]
            wait_until(lambda: bool(first.assignment()), what="the first consumer's assignment")
            mine = first.assignment()
            first.commit(offsets=[CkTopicPartition(tp.topic, tp.partition, 7) for tp in mine], asynchronous=False)
            assert {p: o.offset for (_t, p), o in c.groups["g"].offsets.items()} == {tp.partition: 7 for tp in mine}
        finally:
            cg.close()
        wait_until(lambda: c.groups["g"].state == "Empty" and not c.groups["g"].members, what="empty after close")


def _join(conn: RawConnection, version: int, member_id: str = "", instance: str | None = None,
          session_ms: int = 6000) -> Any:
    return conn.request(JOIN, version, group_id="raw", session_timeout_ms=session_ms, rebalance_timeout_ms=5000,
                        member_id=member_id, group_instance_id=instance, protocol_type="consumer",
                        protocols=[JOIN_REQ.JoinGroupRequestProtocol(name="range", metadata=b"\x00\x00")])


def test_member_id_required_then_join_sync_heartbeat_and_session_expiry() -> None:
    with FakeCluster(brokers=1, versions="3.9") as c:
        host, port = c.addresses[1]
        with RawConnection(host, port) as conn:
            first = _join(conn, 5)
            assert first.error_code == MEMBER_ID_REQUIRED and first.member_id
            mid = first.member_id
            joined = _join(conn, 5, mid)
            assert joined.error_code == 0 and joined.leader == mid
            gen = joined.generation_id
            assert [m.member_id for m in joined.members] == [mid]
            synced = conn.request(SYNC, 3, group_id="raw", generation_id=gen, member_id=mid, group_instance_id=None,
                                  assignments=[SYNC_REQ.SyncGroupRequestAssignment(member_id=mid,
                                                                                   assignment=b"abc")])
            assert (synced.error_code, synced.assignment) == (0, b"abc")
            assert c.groups["raw"].state == "Stable"
            beat = conn.request(HEARTBEAT, 3, group_id="raw", generation_id=gen, member_id=mid, group_instance_id=None)
            assert beat.error_code == 0
            stale = conn.request(HEARTBEAT, 3, group_id="raw", generation_id=gen - 1, member_id=mid,
                                 group_instance_id=None)
            assert stale.error_code == ILLEGAL_GENERATION
        # No heartbeat for longer than the session timeout: the member is gone, as after Kafka's timer.
        time.sleep(6.2)
        assert c.groups["raw"].state == "Stable"  # nothing touched the group yet
        with RawConnection(host, port) as conn:
            late = conn.request(HEARTBEAT, 3, group_id="raw", generation_id=gen, member_id=mid,
                                group_instance_id=None)
            assert late.error_code == UNKNOWN_MEMBER_ID
        assert c.groups["raw"].state == "Empty" and not c.groups["raw"].members


def test_static_member_restart_takes_its_place_and_fences_the_old_id() -> None:
    with FakeCluster(brokers=1, versions="3.9") as c:
        host, port = c.addresses[1]
        with RawConnection(host, port) as conn:
            a = _join(conn, 5, instance="i-1")
            assert a.error_code == 0  # static members need no second join
            old = a.member_id
            b = _join(conn, 5, instance="i-1")
            assert b.error_code == 0 and b.member_id != old
            fenced = _join(conn, 5, old, instance="i-1")
            assert fenced.error_code == FENCED_INSTANCE_ID
            left = conn.request(LEAVE, 4, group_id="raw",
                                members=[LEAVE_REQ.MemberIdentity(member_id="", group_instance_id="i-1")])
            assert left.error_code == 0 and [m.error_code for m in left.members] == [0]
            again = conn.request(LEAVE, 4, group_id="raw",
                                 members=[LEAVE_REQ.MemberIdentity(member_id="", group_instance_id="i-1")])
            assert [m.error_code for m in again.members] == [UNKNOWN_MEMBER_ID]
        assert c.groups["raw"].state == "Empty"


def test_a_join_waits_for_the_other_members_to_rejoin() -> None:
    """A new member starts a rebalance that completes only when every known member has joined again: its
    JoinGroup is held (the connection muted) until the first member rejoins."""
    import threading

    with FakeCluster(brokers=1, versions="3.9") as c:
        host, port = c.addresses[1]
        with RawConnection(host, port) as one, RawConnection(host, port) as two:
            a = _join(one, 3)  # v3: no MEMBER_ID_REQUIRED round
            assert a.error_code == 0 and a.generation_id == 1
            results: dict[str, Any] = {}
            t = threading.Thread(target=lambda: results.update(b=_join(two, 3)))
            t.start()
            time.sleep(0.3)
            assert "b" not in results and c.groups["raw"].state == "PreparingRebalance"
            results["a"] = _join(one, 3, a.member_id)
            t.join(5)
            ra, rb = results["a"], results["b"]
            assert ra.error_code == rb.error_code == 0
            assert ra.generation_id == rb.generation_id == 2
            assert ra.leader == a.member_id and len(ra.members) == 2 and rb.members == []
            assert c.groups["raw"].state == "CompletingRebalance"


def test_confluent_kafka_describes_groups_on_the_3_9_preset_which_advertises_api_69() -> None:
    """The defect: 3.9 advertised ConsumerGroupDescribe without serving it, and confluent-kafka, which trusts
    the advertisement, lost every group.  Now it is served (and classic groups are found by its fallback)."""
    from confluent_kafka.admin import AdminClient as CkAdminClient

    with FakeCluster(brokers=3, versions="3.9") as c:
        ids = [f"g{i}" for i in range(30)]
        for g in ids:
            c.add_group(g, members=[{"member_id": f"{g}-m", "client_id": "c"}])
        ck = CkAdminClient({"bootstrap.servers": c.bootstrap, "log_level": 3})
        futures = ck.describe_consumer_groups(ids, request_timeout=15)
        described = {g: f.result(timeout=20) for g, f in futures.items()}
        assert {g: [m.member_id for m in d.members] for g, d in described.items()} == {g: [f"{g}-m"] for g in ids}
        assert c.count(CONSUMER_GROUP_DESCRIBE) >= 1  # asked, answered (a closed connection would fail them)


def test_consumer_group_heartbeat_v0_makes_the_member_id_and_assigns() -> None:
    """v0 (the 3.9 preset's only version): the coordinator makes the member id (v1 clients bring their own)."""
    with FakeCluster(brokers=1, versions="3.9") as c:
        c.add_topic("t", 2)
        host, port = c.addresses[1]
        with RawConnection(host, port) as conn:
            first = conn.request(68, 0, group_id="kip", member_id="", member_epoch=0, rebalance_timeout_ms=5000,
                                 subscribed_topic_names=["t"], topic_partitions=[])
            assert first.error_code == 0 and first.member_id and first.member_epoch == 1
            assert [sorted(tp.partitions) for tp in first.assignment.topic_partitions] == [[0, 1]]
            fenced = conn.request(68, 0, group_id="kip", member_id=first.member_id, member_epoch=7)
            assert fenced.error_code == 110  # FENCED_MEMBER_EPOCH
            left = conn.request(68, 0, group_id="kip", member_id=first.member_id, member_epoch=-1)
            assert left.error_code == 0 and left.member_epoch == -1
        assert c.groups["kip"].state == "Empty" and c.groups["kip"].group_type == "consumer"
