"""Consumer groups of both protocols, made by real confluent-kafka consumers on the fake cluster's 4.0 preset.

Classic groups (group.protocol=classic: JoinGroup/SyncGroup/Heartbeat) and consumer-protocol groups (KIP-848,
group.protocol=consumer: ConsumerGroupHeartbeat) live side by side, as on a real Kafka 4.x cluster whose classic
DescribeGroups answers a KIP-848 group Dead / GROUP_ID_NOT_FOUND.  kadmin must describe every live group as live,
write, reset and delete offsets safely, and remove members; what went over the wire is read from the fake's
request log.  confluent-kafka's own admin client reads back what kadmin reports and writes.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Iterator
from typing import Any

import pytest
from confluent_kafka import ConsumerGroupTopicPartitions
from confluent_kafka import TopicPartition as CkTopicPartition
from confluent_kafka.admin import AdminClient as CkAdminClient

from kadmin.client import AdminClient
from kadmin.errors import (
    GroupIdNotFoundError,
    GroupSubscribedToTopicError,
    KafkaTimeoutError,
    NonEmptyGroupError,
    UnknownMemberIdError,
    UnknownTopicOrPartitionError,
    UnsupportedVersionError,
)
from kadmin.offset_reset import MemberToRemove, PartitionReset, ResetTo
from kadmin.testing import FakeCluster, Member
from kadmin.testing.rawclient import RawConnection
from kadmin.types import GroupDescription, OffsetAndMetadata, TopicPartition
from kadmin.versions import release_table
from tests.support.groups_consumers import ConsumerGroups, wait_until

pytestmark = pytest.mark.timeout(120)

DESCRIBE_GROUPS, CONSUMER_GROUP_DESCRIBE, OFFSET_COMMIT, LEAVE_GROUP, JOIN_GROUP = 15, 69, 8, 13, 11
ORDERS = {p: (0, 100) for p in range(4)}
PAYMENTS = {0: (10, 50), 1: (20, 60)}


def _stable(cluster: FakeCluster, group: str, members: int) -> bool:
    g = cluster.groups.get(group)
    if g is None or g.state != "Stable":
        return False
    if g.group_type == "classic":
        return len(g.members) == members and all(m.assignment for m in g.members)
    return len(g.consumer_members) == members


@pytest.fixture(scope="module")
def cluster() -> Iterator[FakeCluster]:
    with FakeCluster(brokers=3, versions="4.0") as c:
        c.set_group_config(group_consumer_heartbeat_interval_ms=200)
        c.add_topic("orders", 4, offsets=ORDERS)
        c.add_topic("payments", 2, offsets=PAYMENTS)
        yield c


@pytest.fixture(scope="module")
def groups(cluster: FakeCluster) -> Iterator[ConsumerGroups]:
    """Four live groups: two classic, two KIP-848 (one of them static)."""
    cg = ConsumerGroups(cluster.bootstrap)
    cg.start("classic-orders", ["orders"], count=2)
    cg.start("classic-both", ["orders", "payments"])
    cg.start("kip848-both", ["orders", "payments"], protocol="consumer", count=2)
    cg.start("kip848-static", ["payments"], protocol="consumer", instance_id="pay")
    expected = {"classic-orders": 2, "classic-both": 1, "kip848-both": 2, "kip848-static": 1}
    for g, n in expected.items():
        wait_until(functools.partial(_stable, cluster, g, n), what=f"{g} stable with {n} member(s)")
    yield cg
    cg.close()


def _admin(cluster: FakeCluster) -> AdminClient:
    return AdminClient(cluster.bootstrap, retry_backoff_s=0.05, default_timeout_s=15.0)


def _assigned(d: GroupDescription) -> list[TopicPartition]:
    return sorted(tp for m in d.members for tp in m.current_assignment)


def test_every_live_group_is_described_live_with_members_and_assignments(cluster: FakeCluster,
                                                                         groups: ConsumerGroups) -> None:
    ids = ["classic-orders", "classic-both", "kip848-both", "kip848-static", "no-such-group"]
    with _admin(cluster) as admin:
        got = admin.describe_consumer_groups(ids)
    orders = [TopicPartition("orders", p) for p in range(4)]
    payments = [TopicPartition("payments", p) for p in range(2)]
    for gid, gtype, members, parts in (("classic-orders", "classic", 2, orders),
                                       ("classic-both", "classic", 1, sorted(orders + payments)),
                                       ("kip848-both", "consumer", 2, sorted(orders + payments)),
                                       ("kip848-static", "consumer", 1, payments)):
        d = got[gid]
        assert isinstance(d, GroupDescription), (gid, d)
        assert (d.group_type, d.state, len(d.members)) == (gtype, "Stable", members), gid
        assert _assigned(d) == parts, gid  # every partition assigned, none twice
        for m in d.members:
            assert m.current_assignment and m.client_id == "rdkafka"
            assert set(m.subscribed_topic_names) == {tp.topic for tp in parts}
    kip = got["kip848-both"]
    assert isinstance(kip, GroupDescription)
    assert kip.protocol == "uniform" and kip.group_epoch is not None and kip.group_epoch >= 1
    assert kip.group_epoch == kip.assignment_epoch
    for m in kip.members:
        assert m.member_epoch == kip.assignment_epoch
        assert m.target_assignment is not None and sorted(m.target_assignment) == sorted(m.current_assignment)
    static = got["kip848-static"]
    assert isinstance(static, GroupDescription) and static.members[0].group_instance_id == "pay-0"
    classic = got["classic-orders"]
    assert isinstance(classic, GroupDescription)
    assert classic.protocol == "range" and classic.group_epoch is None
    assert all(m.member_epoch is None and m.target_assignment is None for m in classic.members)
    missing = got["no-such-group"]
    assert isinstance(missing, GroupIdNotFoundError)
    assert "neither" in str(missing)


def test_classic_describe_of_a_kip848_group_is_group_id_not_found_as_on_kafka_4(cluster: FakeCluster,
                                                                               groups: ConsumerGroups) -> None:
    node = cluster.coordinator_of("kip848-both")
    assert node is not None
    host, port = cluster.addresses[node]
    with RawConnection(host, port) as conn:
        dg = conn.request(DESCRIBE_GROUPS, 6, groups=["kip848-both"], include_authorized_operations=False)
        old = conn.request(DESCRIBE_GROUPS, 5, groups=["kip848-both"], include_authorized_operations=False)
        cgd = conn.request(CONSUMER_GROUP_DESCRIBE, 1, group_ids=["classic-orders", "kip848-both"],
                           include_authorized_operations=False)
    assert (dg.groups[0].error_code, dg.groups[0].group_state) == (69, "Dead")
    assert (old.groups[0].error_code, old.groups[0].group_state, old.groups[0].members) == (0, "Dead", [])
    classic, kip = cgd.groups
    assert classic.error_code == 69 and "not a consumer group" in classic.error_message
    assert kip.error_code == 0 and {m.member_type for m in kip.members} == {1}


def test_api_choice_per_group_and_types_filter_consistent_with_describe(cluster: FakeCluster,
                                                                        groups: ConsumerGroups) -> None:
    ids = ["classic-orders", "kip848-both"]
    with _admin(cluster) as admin:
        cluster.clear_log()
        cold = admin.describe_consumer_groups(ids)
        # Unknown types: DescribeGroups first; the group it did not know was then asked ConsumerGroupDescribe.
        cgd_keys = [k for e in cluster.request_log if e.api_key == CONSUMER_GROUP_DESCRIBE for k in e.keys]
        dg_keys = [k for e in cluster.request_log if e.api_key == DESCRIBE_GROUPS for k in e.keys]
        assert sorted(dg_keys) == ids and cgd_keys == ["kip848-both"]
        listed = admin.list_consumer_groups(types=["consumer"])
        assert {"kip848-both", "kip848-static"} <= set(listed.group_ids())
        assert not {"classic-orders", "classic-both"} & set(listed.group_ids())
        admin.list_consumer_groups()  # every type, remembered
        cluster.clear_log()
        warm = admin.describe_consumer_groups(ids)
        # Known types: each group asked once, with the API of its type.
        assert [k for e in cluster.request_log if e.api_key == CONSUMER_GROUP_DESCRIBE for k in e.keys] == \
            ["kip848-both"]
        assert [k for e in cluster.request_log if e.api_key == DESCRIBE_GROUPS for k in e.keys] == \
            ["classic-orders"]
    for res in (cold, warm):
        assert {g: d.group_type for g, d in res.items() if isinstance(d, GroupDescription)} == \
            {"classic-orders": "classic", "kip848-both": "consumer"}


def test_confluent_kafka_admin_describes_the_same_groups(cluster: FakeCluster, groups: ConsumerGroups) -> None:
    """The original defect: the 4.0 preset advertised API 69 without serving it; a real client now gets answers."""
    ck = CkAdminClient({"bootstrap.servers": cluster.bootstrap})
    futures = ck.describe_consumer_groups(["kip848-both", "classic-orders"], request_timeout=15)
    kip = futures["kip848-both"].result(timeout=20)
    classic = futures["classic-orders"].result(timeout=20)
    assert str(kip.type).endswith("CONSUMER") and str(kip.state).endswith("STABLE")
    assert sorted((tp.topic, tp.partition) for m in kip.members for tp in m.assignment.topic_partitions) == \
        sorted([("orders", p) for p in range(4)] + [("payments", p) for p in range(2)])
    assert str(classic.type).endswith("CLASSIC") and len(classic.members) == 2


def test_writing_offsets_of_an_active_group_is_refused_per_partition_and_nothing_is_written(
        cluster: FakeCluster, groups: ConsumerGroups) -> None:
    wanted: dict[TopicPartition | tuple[str, int], OffsetAndMetadata | int] = {
        TopicPartition("orders", 0): OffsetAndMetadata(7), TopicPartition("orders", 1): 8}
    with _admin(cluster) as admin:
        for gid in ("classic-orders", "kip848-both"):
            before = cluster.groups[gid].offsets
            got = admin.alter_consumer_group_offsets(gid, wanted)
            assert set(got) == set(wanted)
            assert all(isinstance(e, UnknownMemberIdError) and "active members" in str(e) for e in got.values())
            assert cluster.groups[gid].offsets == before


def test_reset_of_an_active_group_is_refused_and_sends_no_commit(cluster: FakeCluster,
                                                                 groups: ConsumerGroups) -> None:
    with _admin(cluster) as admin:
        for gid in ("classic-orders", "kip848-both"):
            cluster.clear_log()
            with pytest.raises(NonEmptyGroupError, match="inactive"):
                admin.reset_consumer_group_offsets(gid, ["orders"], "earliest", dry_run=False)
            assert cluster.count(OFFSET_COMMIT) == 0


def test_delete_offsets_keeps_subscribed_topics_and_reports_unknown_groups(cluster: FakeCluster,
                                                                         groups: ConsumerGroups) -> None:
    cluster.commit("classic-orders", "payments", 0, 33)
    cluster.commit("classic-orders", "orders", 0, 5)
    with _admin(cluster) as admin:
        got = admin.delete_consumer_group_offsets("classic-orders", [("orders", 0), ("payments", 0)])
        unknown = admin.delete_consumer_group_offsets("no-such-group", [("orders", 0)])
    # Keyed as asked: the (topic, partition) pairs are answered under those pairs.
    assert isinstance(got[("orders", 0)], GroupSubscribedToTopicError)
    assert got[("payments", 0)] is None
    offsets = cluster.groups["classic-orders"].offsets
    assert ("payments", 0) not in offsets and offsets[("orders", 0)].offset == 5
    assert isinstance(unknown[("orders", 0)], GroupIdNotFoundError)


def test_remove_members_by_id_and_static_members_by_instance_id(cluster: FakeCluster) -> None:
    cg = ConsumerGroups(cluster.bootstrap)
    try:
        cg.start("kick-classic", ["orders"])
        cg.start("kick-static", ["payments"], protocol="consumer", instance_id="kick")
        wait_until(lambda: _stable(cluster, "kick-classic", 1) and _stable(cluster, "kick-static", 1))
        member = cluster.groups["kick-classic"].members[0].member_id
        joins = cluster.count(JOIN_GROUP)
        with _admin(cluster) as admin:
            got = admin.remove_members_from_consumer_group("kick-classic", [member, "nobody"])
            assert got[MemberToRemove(member)] is None
            assert isinstance(got[MemberToRemove("nobody")], UnknownMemberIdError)
            # The removed consumer learns it on its next heartbeat and joins again (a new JoinGroup).
            assert cluster.wait_for_requests(joins + 1, "JoinGroup", timeout=10)
            static = admin.remove_members_from_consumer_group(
                "kick-static", [MemberToRemove(group_instance_id="kick-0"), MemberToRemove(group_instance_id="x")])
            assert static[MemberToRemove(group_instance_id="kick-0")] is None
            assert isinstance(static[MemberToRemove(group_instance_id="x")], UnknownMemberIdError)
            leaves = [e for e in cluster.request_log if e.api_key == LEAVE_GROUP]
            assert {e.version for e in leaves} == {5} and len(leaves) == 2  # one batched request per call
    finally:
        cg.close()


@pytest.fixture(scope="module")
def idle(cluster: FakeCluster) -> str:
    """A group whose consumers committed and left: Empty, with committed offsets."""
    cg = ConsumerGroups(cluster.bootstrap)
    try:
        [c] = cg.start("idle", ["orders", "payments"], protocol="consumer")
        wait_until(lambda: _stable(cluster, "idle", 1))
        c.commit(offsets=[CkTopicPartition("orders", p, 50) for p in range(4)]
                 + [CkTopicPartition("payments", p, 30) for p in range(2)], asynchronous=False)
    finally:
        cg.close()
    wait_until(lambda: cluster.groups["idle"].state == "Empty", what="idle group empty")
    return "idle"


def _committed_by_confluent(cluster: FakeCluster, group: str) -> dict[tuple[str, int], int]:
    ck = CkAdminClient({"bootstrap.servers": cluster.bootstrap})
    fut = ck.list_consumer_group_offsets([ConsumerGroupTopicPartitions(group)], request_timeout=15)
    res = fut[group].result(timeout=20)
    return {(tp.topic, tp.partition): tp.offset for tp in res.topic_partitions}


def test_reset_dry_run_plans_and_writes_nothing_then_execute_writes_it(cluster: FakeCluster, idle: str) -> None:
    with _admin(cluster) as admin:
        cluster.clear_log()
        plan = admin.reset_consumer_group_offsets(idle, ["orders", ("payments", 1)], ResetTo.shift_by(-40))
        assert cluster.count(OFFSET_COMMIT) == 0 and plan.dry_run and plan.complete
        p1 = plan.partitions[TopicPartition("payments", 1)]
        assert isinstance(p1, PartitionReset)
        # 30 - 40 = -10 is below the log start 20: clamped.
        assert (p1.current, p1.requested, p1.target, p1.clamped, p1.change) == (30, -10, 20, True, -10)
        o0 = plan.partitions[TopicPartition("orders", 0)]
        assert isinstance(o0, PartitionReset)
        assert (o0.current, o0.target, o0.applied, o0.change) == (50, 10, False, -40)
        # No committed offset to move from: the change is unknown, not "the whole target".
        assert PartitionReset(None, 10, 0, 20, 10).change is None
        assert TopicPartition("payments", 0) not in plan.partitions
        assert _committed_by_confluent(cluster, idle)[("orders", 0)] == 50
        done = admin.reset_consumer_group_offsets(idle, ["orders", ("payments", 1)], ResetTo.shift_by(-40),
                                                  dry_run=False)
        assert done.complete and all(isinstance(r, PartitionReset) and r.applied for r in done.partitions.values())
    seen = _committed_by_confluent(cluster, idle)
    assert seen[("payments", 1)] == 20 and seen[("payments", 0)] == 30
    assert [seen[("orders", p)] for p in range(4)] == [10, 10, 10, 10]


@pytest.mark.parametrize(("to", "expected"), [
    ("earliest", {("orders", 0): 0, ("payments", 0): 10}),
    ("latest", {("orders", 0): 100, ("payments", 0): 50}),
    (ResetTo.offset(1000), {("orders", 0): 100, ("payments", 0): 50}),  # clamped to the log end
    (ResetTo.offset(15), {("orders", 0): 15, ("payments", 0): 15}),
    # The fake's records have no timestamps: no offset at or after any time, so the log end (as Kafka's tool).
    (dt.datetime(2020, 1, 1, tzinfo=dt.timezone.utc), {("orders", 0): 100, ("payments", 0): 50}),
    (dt.timedelta(hours=1), {("orders", 0): 100, ("payments", 0): 50}),
])
def test_reset_targets(cluster: FakeCluster, idle: str, to: Any, expected: dict[tuple[str, int], int]) -> None:
    with _admin(cluster) as admin:
        plan = admin.reset_consumer_group_offsets(idle, [("orders", 0), ("payments", 0)], to, dry_run=False)
    assert plan.complete
    seen = _committed_by_confluent(cluster, idle)
    assert {k: seen[k] for k in expected} == expected


def test_reset_reports_a_deleted_topic_per_partition_and_resets_the_rest(cluster: FakeCluster) -> None:
    cluster.commit("with-gone", "orders", 0, 60)
    cluster.commit("with-gone", "orders", 1, 61)
    cluster.commit("with-gone", "gone", 0, 5)  # a topic deleted since
    with _admin(cluster) as admin:
        plan = admin.reset_consumer_group_offsets(
            "with-gone", [("orders", 0), ("orders", 1), ("gone", 0), "gone-too"], "earliest", dry_run=False)
    assert isinstance(plan.partitions[TopicPartition("gone", 0)], UnknownTopicOrPartitionError)
    assert isinstance(plan.topics["gone-too"], UnknownTopicOrPartitionError)
    assert {tp for tp, r in plan.partitions.items() if isinstance(r, PartitionReset) and r.applied} == \
        {TopicPartition("orders", 0), TopicPartition("orders", 1)}
    offsets = cluster.groups["with-gone"].offsets
    assert offsets[("orders", 0)].offset == 0 and offsets[("orders", 1)].offset == 0
    assert offsets[("gone", 0)].offset == 5


def test_bad_reset_input_is_refused_before_any_request(cluster: FakeCluster) -> None:
    with AdminClient(cluster.bootstrap, client_id="kadmin-bad-input", retry_backoff_s=0.05,
                     default_timeout_s=15.0) as admin:
        cluster.clear_log()
        for call in (lambda: admin.reset_consumer_group_offsets("g", [], "earliest"),
                     lambda: admin.reset_consumer_group_offsets("g", ["t"], 5),
                     lambda: admin.reset_consumer_group_offsets("g", ["t"], "oldest"),
                     lambda: admin.reset_consumer_group_offsets("g", ["t"], dt.datetime(2020, 1, 1)),
                     lambda: admin.reset_consumer_group_offsets("g", ["t"], "latest",
                                                                dry_run="no"),  # type: ignore[arg-type]
                     lambda: admin.alter_consumer_group_offsets("g", {("t", 0): -1}),
                     lambda: admin.delete_consumer_group_offsets("g", []),
                     lambda: admin.remove_members_from_consumer_group("g", [])):
            with pytest.raises((TypeError, ValueError)):
                call()
        # Only this client's requests count: confluent-kafka consumers of the module's earlier tests may still
        # heartbeat to the shared cluster (a ConsumerGroupHeartbeat from rdkafka once landed here).
        assert [e for e in cluster.request_log if e.client_id == "kadmin-bad-input"] == []


def test_share_groups_where_the_broker_has_them() -> None:
    table = release_table("4.0") | {77: (0, 0)}  # KIP-932 early access switched on
    with FakeCluster(brokers=1, versions=table) as c:
        c.add_topic("t", 2)
        c.add_group("shared", state="Stable", group_type="share", members=[
            {"member_id": "m1", "client_id": "c1", "subscribed_topic_names": ["t"], "member_epoch": 3,
             "assigned": [("t", 0), ("t", 1)]}], generation_id=3)
        with _admin(c) as admin:
            got = admin.describe_share_groups(["shared", "nope"])
            admin.list_consumer_groups()
            as_consumer = admin.describe_consumer_groups(["shared"])
    d = got["shared"]
    assert isinstance(d, GroupDescription)
    assert (d.group_type, d.state, d.group_epoch, d.protocol_type) == ("share", "Stable", 3, "share")
    assert d.members[0].current_assignment == (TopicPartition("t", 0), TopicPartition("t", 1))
    assert isinstance(got["nope"], GroupIdNotFoundError)
    err = as_consumer["shared"]
    assert isinstance(err, GroupIdNotFoundError) and "share group" in str(err)


def test_older_brokers_classic_consumers_describe_by_describegroups_only() -> None:
    """2.2: classic consumers join; describe never sends API 69 (no such API); no OffsetDelete, no batch leave."""
    with FakeCluster(brokers=2, versions="2.2") as c:
        c.add_topic("t", 2)
        cg = ConsumerGroups(c.bootstrap)
        try:
            cg.start("old", ["t"], count=2)
            wait_until(lambda: _stable(c, "old", 2))
            with _admin(c) as admin:
                d = admin.describe_consumer_groups(["old"])["old"]
                assert isinstance(d, GroupDescription) and _assigned(d) == [TopicPartition("t", 0),
                                                                           TopicPartition("t", 1)]
                assert c.count(CONSUMER_GROUP_DESCRIBE) == 0
                assert isinstance(admin.describe_share_groups(["old"])["old"], UnsupportedVersionError)
                gone = admin.delete_consumer_group_offsets("old", [("t", 0)])
                assert isinstance(gone[("t", 0)], UnsupportedVersionError)
                kicked = admin.remove_members_from_consumer_group("old")
                assert all(isinstance(e, UnsupportedVersionError) for e in kicked.values()) and len(kicked) == 2
        finally:
            cg.close()


def test_a_kip848_group_without_commits_exists_and_an_unknown_one_does_not(cluster: FakeCluster,
                                                                           groups: ConsumerGroups) -> None:
    """Offsets and lag tell "no such group" from "nothing committed" for KIP-848 groups too (the classic
    DescribeGroups alone would call this live group missing on Kafka 4)."""
    with _admin(cluster) as admin:
        offsets = admin.list_consumer_group_offsets(["kip848-static", "no-such-group"])
        lag = admin.consumer_group_lag(["kip848-static", "no-such-group"])
    assert offsets["kip848-static"] == {} and lag["kip848-static"] == {}
    assert isinstance(offsets["no-such-group"], GroupIdNotFoundError)
    assert isinstance(lag["no-such-group"], GroupIdNotFoundError)


def test_a_removal_whose_answer_was_lost_is_possibly_applied(cluster: FakeCluster) -> None:
    """The resend finds no such member, which is also what the lost first removal looks like: in doubt."""
    cluster.add_group("seeded", members=[Member("m1", client_id="c"), Member("m2", client_id="c")])
    cluster.drop_connection(None, "LeaveGroup", when="after")
    with _admin(cluster) as admin:
        got = admin.remove_members_from_consumer_group("seeded", ["m1"])
    err = got[MemberToRemove("m1")]
    assert isinstance(err, KafkaTimeoutError) and err.possibly_applied
    assert [m.member_id for m in cluster.groups["seeded"].members] == ["m2"]  # it was applied
