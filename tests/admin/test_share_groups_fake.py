"""Share groups (KIP-932) through kadmin against the fake cluster's 4.1, 4.2 and 4.3 presets, a 4.0 broker and a
mixed 3.9 + 4.3 cluster.

Members join with ShareGroupHeartbeat over a raw connection (as a share consumer's first request does), so the
fake's share coordinator initialises each partition's start offset (SPSO) at the log end, Kafka's default
share.auto.offset.reset.  What kadmin sent is read from the fake's request log: a dry run and a refused reset
write nothing, a 4.0 broker is never sent the share-offset APIs, and a write whose answer was lost is
reported "possibly applied" while the fake shows it was applied (nothing lost).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kadmin.client import AdminClient
from kadmin.errors import (
    ErrorCode,
    GroupIdNotFoundError,
    KafkaError,
    KafkaTimeoutError,
    NonEmptyGroupError,
    UnknownTopicOrPartitionError,
    UnsupportedVersionError,
)
from kadmin.offset_reset import PartitionReset, ResetTo
from kadmin.share_groups import SharePartitionOffset
from kadmin.testing import FakeCluster
from kadmin.testing.rawclient import RawConnection
from kadmin.types import TopicPartition
from kadmin.versions import release_table
from tests.support.settings import FAST

pytestmark = pytest.mark.timeout(120)

SHARE_GROUP_HEARTBEAT, SHARE_GROUP_DESCRIBE = 76, 77
DESCRIBE_OFFSETS, ALTER_OFFSETS, DELETE_OFFSETS, DELETE_GROUPS = 90, 91, 92, 42
ORDERS = {0: (0, 100), 1: (10, 50), 2: (0, 0)}


def join(cluster: FakeCluster, group: str, member: str, topics: list[str]) -> int:
    """A share member joins through its group's coordinator; returns its epoch."""
    node = cluster.coordinator_of(group)
    assert node is not None
    host, port = cluster.addresses[node]
    with RawConnection(host, port) as conn:
        r = conn.request(SHARE_GROUP_HEARTBEAT, 1, group_id=group, member_id=member, member_epoch=0, rack_id=None,
                         subscribed_topic_names=topics)
    assert r.error_code == 0, r
    return int(r.member_epoch)


def leave(cluster: FakeCluster, group: str, member: str) -> None:
    node = cluster.coordinator_of(group)
    assert node is not None
    host, port = cluster.addresses[node]
    with RawConnection(host, port) as conn:
        r = conn.request(SHARE_GROUP_HEARTBEAT, 1, group_id=group, member_id=member, member_epoch=-1, rack_id=None,
                         subscribed_topic_names=None)
    assert r.error_code == 0, r


def denied(got: object) -> bool:
    return isinstance(got, KafkaError) and got.code == ErrorCode.TOPIC_AUTHORIZATION_FAILED


def starts(cluster: FakeCluster, group: str) -> dict[tuple[str, int], int]:
    return {k: v.start_offset for k, v in cluster.share_offsets(group).items()}


@pytest.fixture(params=["4.1", "4.2", "4.3"])
def release(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def cluster(release: str) -> Iterator[FakeCluster]:
    with FakeCluster(brokers=3, versions=release) as c:
        c.add_topic("orders", 3, offsets=ORDERS)
        c.add_topic("payments", 1, offsets={0: (5, 25)})
        yield c


@pytest.fixture
def admin(cluster: FakeCluster) -> Iterator[AdminClient]:
    with AdminClient(cluster.bootstrap, **FAST) as a:
        yield a


def test_a_joined_member_is_described_listed_and_its_start_offsets_read(cluster: FakeCluster, admin: AdminClient,
                                                                         release: str) -> None:
    join(cluster, "sg", "member-1", ["orders"])
    d = admin.describe_share_groups(["sg", "nobody"])
    got = d["sg"]
    assert not isinstance(got, Exception)
    assert (got.state, got.group_type, got.protocol_type, got.group_epoch) == ("Stable", "share", "share", 1)
    assert [m.member_id for m in got.members] == ["member-1"]
    assert sorted(got.members[0].current_assignment) == [TopicPartition("orders", p) for p in range(3)]
    assert isinstance(d["nobody"], GroupIdNotFoundError)
    assert cluster.count(SHARE_GROUP_DESCRIBE, version=1) >= 1 and cluster.count(SHARE_GROUP_DESCRIBE, version=0) == 0

    offsets = admin.list_share_group_offsets(["sg", "nobody"])
    lag = None if release == "4.1" else 0  # DescribeShareGroupOffsets v1 (the lag) is Kafka 4.2's
    # A new share group starts each partition at the log end (share.auto.offset.reset=latest).
    assert offsets["sg"] == {TopicPartition("orders", 0): SharePartitionOffset(100, 0, lag),
                             TopicPartition("orders", 1): SharePartitionOffset(50, 0, lag),
                             TopicPartition("orders", 2): SharePartitionOffset(0, 0, lag)}
    assert isinstance(offsets["nobody"], GroupIdNotFoundError)
    assert cluster.count(DESCRIBE_OFFSETS, version=0 if release == "4.1" else 1) >= 1

    named = admin.list_share_group_offsets(["sg"], [("orders", 1), ("payments", 0)])
    assert named == {"sg": {("orders", 1): SharePartitionOffset(50, 0, lag)}}  # payments: never read

    listed = admin.list_consumer_groups(types=["share"])
    assert [(g.group_id, g.group_type, g.state) for g in listed.groups] == [("sg", "share", "Stable")]
    assert not listed.errors


def test_offsets_of_an_active_group_are_refused_with_the_brokers_error_and_nothing_written(
        cluster: FakeCluster, admin: AdminClient) -> None:
    join(cluster, "sg", "member-1", ["orders"])
    before = starts(cluster, "sg")
    mixed: dict[tuple[str, int] | TopicPartition, int] = {("orders", 0): 3, TopicPartition("orders", 1): 20}
    got = admin.alter_share_group_offsets("sg", mixed)
    assert set(got) == {("orders", 0), TopicPartition("orders", 1)}
    assert all(isinstance(e, NonEmptyGroupError) for e in got.values()), got
    assert "has members" in str(got[("orders", 0)])
    assert cluster.count(ALTER_OFFSETS) == 1  # asked once: the refusal is final
    deleted = admin.delete_share_group_offsets("sg", ["orders"])
    assert isinstance(deleted["orders"], NonEmptyGroupError)
    assert starts(cluster, "sg") == before

    cluster.clear_log()
    with pytest.raises(NonEmptyGroupError, match="Stable with 1 member"):
        admin.reset_share_group_offsets("sg", None, "earliest", dry_run=False)
    assert cluster.count(ALTER_OFFSETS) == 0 and starts(cluster, "sg") == before
    assert isinstance(admin.delete_share_groups(["sg"])["sg"], NonEmptyGroupError)


def test_reset_dry_run_writes_nothing_and_execute_writes_the_plan(cluster: FakeCluster, admin: AdminClient) -> None:
    join(cluster, "sg", "member-1", ["orders"])
    leave(cluster, "sg", "member-1")
    cluster.clear_log()
    plan = admin.reset_share_group_offsets("sg", None, "earliest")
    assert plan.dry_run and plan.complete
    assert plan.partitions == {
        TopicPartition("orders", 0): PartitionReset(100, 0, 0, 100, 0),
        TopicPartition("orders", 1): PartitionReset(50, 10, 10, 50, 10),
        TopicPartition("orders", 2): PartitionReset(0, 0, 0, 0, 0)}
    assert cluster.count(ALTER_OFFSETS) == 0
    assert starts(cluster, "sg") == {("orders", 0): 100, ("orders", 1): 50, ("orders", 2): 0}

    done = admin.reset_share_group_offsets("sg", ["orders"], ResetTo.offset(70), dry_run=False)
    assert done.complete and all(isinstance(r, PartitionReset) and r.applied for r in done.partitions.values())
    clamped = done.partitions[TopicPartition("orders", 1)]
    assert isinstance(clamped, PartitionReset) and clamped.target == 50 and clamped.clamped  # the log end
    assert starts(cluster, "sg") == {("orders", 0): 70, ("orders", 1): 50, ("orders", 2): 0}
    assert cluster.count(ALTER_OFFSETS) == 1

    shifted = admin.reset_share_group_offsets("sg", [("orders", 0)], ResetTo.shift_by(-20), dry_run=False)
    assert shifted.partitions[TopicPartition("orders", 0)].target == 50  # type: ignore[union-attr]
    after = admin.list_share_group_offsets(["sg"], [("orders", 0)])["sg"]
    assert after[("orders", 0)].start_offset == 50  # type: ignore[index,union-attr]


def test_alter_makes_an_empty_group_and_reports_unknown_partitions(cluster: FakeCluster, admin: AdminClient) -> None:
    got = admin.alter_share_group_offsets("fresh", {("orders", 0): 7, ("orders", 9): 1, ("missing", 0): 1})
    assert got[("orders", 0)] is None
    assert isinstance(got[("orders", 9)], UnknownTopicOrPartitionError)
    assert isinstance(got[("missing", 0)], UnknownTopicOrPartitionError)
    assert cluster.count(ALTER_OFFSETS) == 1  # final answers, not retried
    assert starts(cluster, "fresh") == {("orders", 0): 7}
    d = admin.describe_share_groups(["fresh"])["fresh"]
    assert not isinstance(d, Exception) and d.state == "Empty" and d.members == ()
    # A classic group of that name is not a share group.
    cluster.add_group("classic-one")
    assert isinstance(admin.alter_share_group_offsets("classic-one", {("orders", 0): 1})[("orders", 0)],
                      GroupIdNotFoundError)
    assert isinstance(admin.list_share_group_offsets(["classic-one"])["classic-one"], GroupIdNotFoundError)


def test_delete_offsets_per_topic_and_delete_groups(cluster: FakeCluster, admin: AdminClient) -> None:
    cluster.set_share_offsets("sg", {("orders", 0): 5, ("orders", 1): 15, ("payments", 0): 6})
    got = admin.delete_share_group_offsets("sg", ["orders", "missing", "payments"])
    assert got["orders"] is None and got["payments"] is None
    assert isinstance(got["missing"], UnknownTopicOrPartitionError)
    assert starts(cluster, "sg") == {}
    again = admin.delete_share_group_offsets("sg", ["orders"])
    assert isinstance(again["orders"], UnknownTopicOrPartitionError)  # the group has no state there now
    assert isinstance(admin.delete_share_group_offsets("nobody", ["orders"])["orders"], GroupIdNotFoundError)

    cluster.set_share_offsets("gone", {("orders", 0): 5})
    deleted = admin.delete_share_groups(["gone", "nobody"])
    assert deleted["gone"] is None and isinstance(deleted["nobody"], GroupIdNotFoundError)
    assert "gone" not in cluster.groups and cluster.share_offsets("gone") == {}
    # A member joining again starts from share.auto.offset.reset: earliest for this group.
    cluster.set_share_auto_offset_reset("gone", "earliest")
    join(cluster, "gone", "m", ["orders"])
    assert starts(cluster, "gone") == {("orders", 0): 0, ("orders", 1): 10, ("orders", 2): 0}


def test_lost_answers_are_possibly_applied_and_nothing_is_lost(cluster: FakeCluster, admin: AdminClient) -> None:
    cluster.set_share_offsets("sg", {("orders", 0): 5})
    node = cluster.coordinator_of("sg")
    assert node is not None
    cluster.drop_connection(node, ALTER_OFFSETS, when="after")
    got = admin.alter_share_group_offsets("sg", {("orders", 0): 60})[("orders", 0)]
    # Either the resend succeeded or the call reports the doubt; either way the write is there.
    assert got is None or (isinstance(got, KafkaTimeoutError) and got.possibly_applied), got
    assert starts(cluster, "sg") == {("orders", 0): 60}

    cluster.drop_connection(node, DELETE_OFFSETS, when="after")
    gone = admin.delete_share_group_offsets("sg", ["orders"])["orders"]
    assert gone is None or (isinstance(gone, KafkaTimeoutError) and gone.possibly_applied), gone
    assert starts(cluster, "sg") == {}

    cluster.drop_connection(node, DELETE_GROUPS, when="after")
    dg = admin.delete_share_groups(["sg"])["sg"]
    assert dg is None or (isinstance(dg, KafkaTimeoutError) and dg.possibly_applied), dg
    assert "sg" not in cluster.groups

    cluster.drop_connection(node, DESCRIBE_OFFSETS, when="before")  # a read: asked again
    cluster.set_share_offsets("sg2", {("orders", 1): 11})
    assert admin.list_share_group_offsets(["sg2"])["sg2"] == {TopicPartition("orders", 1): SharePartitionOffset(
        11, 0, None if cluster.versions_of(node)[DESCRIBE_OFFSETS][1] == 0 else 39)}


def test_a_4_0_broker_is_never_sent_share_offset_calls_and_the_error_names_the_release() -> None:
    with FakeCluster(brokers=1, versions="4.0") as c, AdminClient(c.bootstrap, **FAST) as admin:
        c.add_topic("orders", 1)
        got = admin.list_share_group_offsets(["a", "b"])
        assert set(got) == {"a", "b"}
        for err in got.values():
            assert isinstance(err, UnsupportedVersionError) and "Kafka 4.1" in str(err), err
        altered = admin.alter_share_group_offsets("a", {("orders", 0): 1})[("orders", 0)]
        assert isinstance(altered, UnsupportedVersionError) and "Kafka 4.1" in str(altered)
        deleted = admin.delete_share_group_offsets("a", ["orders"])["orders"]
        assert isinstance(deleted, UnsupportedVersionError) and "Kafka 4.1" in str(deleted)
        described = admin.describe_share_groups(["a"])["a"]
        assert isinstance(described, UnsupportedVersionError) and "Kafka 4.1" in str(described)
        with pytest.raises(UnsupportedVersionError, match="Kafka 4.1"):
            admin.reset_share_group_offsets("a", None, "earliest")
        assert not {e.api_key for e in c.request_log} & {SHARE_GROUP_DESCRIBE, DESCRIBE_OFFSETS, ALTER_OFFSETS,
                                                        DELETE_OFFSETS}


def test_a_4_0_broker_with_early_access_share_groups_is_described_with_v0() -> None:
    table = release_table("4.0")
    table[SHARE_GROUP_HEARTBEAT] = table[SHARE_GROUP_DESCRIBE] = (0, 0)
    with FakeCluster(brokers=1, versions=table) as c, AdminClient(c.bootstrap, **FAST) as admin:
        c.add_topic("orders", 2, offsets={0: (0, 4), 1: (0, 4)})
        host, port = c.addresses[1]
        with RawConnection(host, port) as conn:
            r = conn.request(SHARE_GROUP_HEARTBEAT, 0, group_id="ea", member_id="m", member_epoch=0, rack_id=None,
                             subscribed_topic_names=["orders"])
        assert r.error_code == 0
        d = admin.describe_share_groups(["ea"])["ea"]
        assert not isinstance(d, Exception) and d.state == "Stable" and len(d.members) == 1
        assert c.count(SHARE_GROUP_DESCRIBE, version=0) == 1
        off = admin.list_share_group_offsets(["ea"])["ea"]
        assert isinstance(off, UnsupportedVersionError) and "Kafka 4.1" in str(off)


def test_mixed_3_9_and_4_3_cluster_fails_only_the_groups_the_old_broker_coordinates() -> None:
    with FakeCluster(brokers=2, versions={1: "3.9", 2: "4.3"}) as c, AdminClient(c.bootstrap, **FAST) as admin:
        c.add_topic("orders", 2, offsets={0: (0, 30), 1: (0, 30)})
        c.move_coordinator("old", 1)
        c.move_coordinator("new", 2)
        c.set_share_offsets("new", {("orders", 0): 12})
        c.clear_log()
        got = admin.list_share_group_offsets(["old", "new"])
        assert isinstance(got["old"], UnsupportedVersionError) and "Kafka 4.1" in str(got["old"])
        assert got["new"] == {TopicPartition("orders", 0): SharePartitionOffset(12, 0, 18)}
        asked = {(e.node_id, e.api_key) for e in c.request_log if e.api_key == DESCRIBE_OFFSETS}
        assert asked == {(2, DESCRIBE_OFFSETS)}
        alt_old = admin.alter_share_group_offsets("old", {("orders", 0): 1})[("orders", 0)]
        assert isinstance(alt_old, UnsupportedVersionError)
        assert admin.alter_share_group_offsets("new", {("orders", 1): 3}) == {("orders", 1): None}
        assert {k: v.start_offset for k, v in c.share_offsets("new").items()} == {("orders", 0): 12, ("orders", 1): 3}
        deleted = admin.delete_share_groups(["new", "old"])
        assert deleted["new"] is None and isinstance(deleted["old"], GroupIdNotFoundError)
        assert c.count(ALTER_OFFSETS, node=1) == 0


def test_topics_the_caller_may_not_describe_are_not_revealed() -> None:
    with FakeCluster(brokers=1, versions="4.3", authorizer={"allow_everyone_if_no_acl_found": True}) as c, \
            AdminClient(c.bootstrap, **FAST) as admin:
        c.add_topic("orders", 1, offsets={0: (0, 10)})
        c.add_topic("secret", 1, offsets={0: (0, 10)})
        c.add_acl("topic", "secret", "User:ANONYMOUS", "describe", "deny")
        join(c, "open", "m1", ["orders"])
        c.add_group("hidden", group_type="share", members=[
            {"member_id": "m2", "subscribed_topic_names": ["secret"], "assigned": [("secret", 0)]}])
        c.set_share_offsets("hidden", {("secret", 0): 4, ("orders", 0): 3})
        d = admin.describe_share_groups(["open", "hidden"])
        assert not isinstance(d["open"], Exception)
        assert denied(d["hidden"])
        offsets = admin.list_share_group_offsets(["hidden"])["hidden"]
        assert offsets == {TopicPartition("orders", 0): SharePartitionOffset(3, 0, 7)}  # secret left out
        named = admin.list_share_group_offsets(["hidden"], [("secret", 0)])["hidden"]
        assert isinstance(named, dict) and denied(named[("secret", 0)])
