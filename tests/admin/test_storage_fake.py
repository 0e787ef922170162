"""Records, log dirs, leader elections and reassignments end to end against FakeCluster, read back by independent
clients (confluent-kafka's consumer watermarks and admin client, kafka-python's admin client) as well as by the
fake's own state.

What the brokers received is read from the cluster's request log, so "refused before any I/O" means nothing
reached a broker, and "possibly applied" is checked against what the fake really did.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka import TopicPartition as CTopicPartition
from kafka.admin import KafkaAdminClient
from kafka.structs import TopicPartition as KTopicPartition

from kadmin.admin.log_dirs import topic_sizes
from kadmin.client import AdminClient
from kadmin.errors import (
    BrokerNotAvailableError,
    EligibleLeadersNotAvailableError,
    ErrorCode,
    InvalidReplicaAssignmentError,
    InvalidTopicExceptionError,
    KafkaError,
    KafkaTimeoutError,
    NoReassignmentInProgressError,
    OffsetOutOfRangeError,
    PreferredLeaderNotAvailableError,
    ReplicaNotAvailableError,
    UnknownTopicOrPartitionError,
    UnsupportedVersionError,
)
from kadmin.storage import (
    DeletedRecords,
    ElectionResult,
    ElectionType,
    LogDirDescription,
    PartitionReassignment,
    ReplicaLogInfo,
)
from kadmin.testing import FakeCluster, LogDir
from kadmin.testing.state import BYTES_PER_RECORD, DEFAULT_LOG_DIR
from kadmin.topics import PartitionInfo, TopicDescription
from kadmin.types import TopicPartition as TP
from kadmin.versions import RELEASE_NAMES, RELEASES
from tests.support.settings import FAST

pytestmark = pytest.mark.timeout(60)

DELETE_RECORDS, DESCRIBE_LOG_DIRS, ELECT_LEADERS, ALTER_REASSIGN, LIST_REASSIGN = 21, 35, 43, 45, 46


@pytest.fixture
def cluster() -> Iterator[FakeCluster]:
    with FakeCluster(brokers=3) as c:
        c.add_topic("orders", partitions=3, offsets=[100, 200, 0])
        c.add_topic("audit", partitions=1, offsets=[50], replication_factor=2)
        yield c


def admin(c: FakeCluster, **settings: Any) -> AdminClient:
    return AdminClient(c.bootstrap, **(FAST | settings))


def watermarks(c: FakeCluster, topic: str, partitions: range) -> list[tuple[int, int]]:
    """(low, high) per partition, as confluent-kafka's consumer reads them (ListOffsets to the leaders)."""
    consumer = Consumer({"bootstrap.servers": c.bootstrap, "group.id": "kadmin-watermarks",
                         "enable.auto.commit": False, "log_level": 3})
    try:
        return [consumer.get_watermark_offsets(CTopicPartition(topic, p), timeout=10) for p in partitions]
    finally:
        consumer.close()


# --- DeleteRecords --------------------------------------------------------------------------------------------


def test_delete_records_moves_low_watermarks_as_confluent_kafka_reads_them(cluster: FakeCluster) -> None:
    with admin(cluster) as a:
        got = a.delete_records({TP("orders", 0): 40, ("orders", 1): -1, TP("orders", 2): 0})
        # Keyed as asked: the ("orders", 1) pair is answered under that pair.
        assert got == {TP("orders", 0): DeletedRecords(40), ("orders", 1): DeletedRecords(200),
                       TP("orders", 2): DeletedRecords(0)}
        # The log start never moves back: deleting below it changes nothing and answers the current one.
        assert a.delete_records({TP("orders", 0): 10}) == {TP("orders", 0): DeletedRecords(40)}
    assert watermarks(cluster, "orders", range(3)) == [(40, 100), (200, 200), (0, 0)]
    # One request per partition leader, each to that leader.
    sent = [e for e in cluster.request_log if e.api_key == DELETE_RECORDS]
    for e in sent:
        for key in e.keys:
            topic, _, p = key.rpartition("-")
            assert cluster.leader_of(topic, int(p)) == e.node_id


def test_delete_records_per_partition_errors(cluster: FakeCluster) -> None:
    cluster.add_topic("__consumer_offsets", partitions=1, offsets=[10])
    with admin(cluster) as a:
        got = a.delete_records({TP("orders", 0): 101, TP("missing", 0): 1, TP("orders", 7): 1,
                                TP("__consumer_offsets", 0): 5, TP("audit", 0): 50}, timeout=5)
    assert isinstance(got[TP("orders", 0)], OffsetOutOfRangeError)  # beyond the high watermark
    assert isinstance(got[TP("missing", 0)], UnknownTopicOrPartitionError)
    assert isinstance(got[TP("orders", 7)], UnknownTopicOrPartitionError)
    assert isinstance(got[TP("__consumer_offsets", 0)], InvalidTopicExceptionError)  # internal topics are Kafka's own
    assert got[TP("audit", 0)] == DeletedRecords(50)
    assert cluster.topics["orders"][0] == (0, 100)


def test_delete_records_is_refused_by_a_compact_only_topic(cluster: FakeCluster) -> None:
    from kadmin.configs import ConfigResource, SetConfig
    from kadmin.errors import PolicyViolationError

    cluster.add_topic("compacted", partitions=1, offsets=[10])
    cluster.add_topic("both", partitions=1, offsets=[10])
    with admin(cluster) as a:
        assert a.alter_configs({ConfigResource.topic("compacted"): [SetConfig("cleanup.policy", "compact")],
                                ConfigResource.topic("both"): [SetConfig("cleanup.policy", "compact,delete")]}) \
            == {ConfigResource.topic("compacted"): None, ConfigResource.topic("both"): None}
        got = a.delete_records({TP("compacted", 0): 5, TP("both", 0): 5})
    assert isinstance(got[TP("compacted", 0)], PolicyViolationError)
    assert got[TP("both", 0)] == DeletedRecords(5)
    assert cluster.topics["compacted"][0] == (0, 10)


def test_delete_records_on_every_release(cluster: FakeCluster) -> None:
    for release in RELEASE_NAMES:
        with FakeCluster(brokers=2, versions=release) as c:
            c.add_topic("t", partitions=2, offsets=[10, 10])
            with admin(c) as a:
                assert a.delete_records({TP("t", 0): 3, TP("t", 1): -1}) == {
                    TP("t", 0): DeletedRecords(3), TP("t", 1): DeletedRecords(10)}
            assert {e.version for e in c.request_log if e.api_key == DELETE_RECORDS} == {RELEASES[release][21][1]}


def test_delete_records_follows_a_moved_leader(cluster: FakeCluster) -> None:
    leader = cluster.leader_of("orders", 0)
    cluster.inject(leader, "DeleteRecords", ErrorCode.NOT_LEADER_OR_FOLLOWER, count=1)
    with admin(cluster) as a:
        assert a.delete_records({TP("orders", 0): 7}) == {TP("orders", 0): DeletedRecords(7)}
    assert cluster.count("DeleteRecords") == 2
    assert cluster.count("Metadata") >= 2  # the leader was looked up again


def test_a_lost_delete_records_answer_is_possibly_applied(cluster: FakeCluster) -> None:
    leader = cluster.leader_of("orders", 0)
    cluster.drop_connection(leader, "DeleteRecords", when="after", count=1000)
    with admin(cluster) as a:
        got = a.delete_records({TP("orders", 0): 30}, timeout=1.5)
    err = got[TP("orders", 0)]
    assert isinstance(err, KafkaTimeoutError) and err.possibly_applied
    assert cluster.topics["orders"][0] == (30, 100)  # and it was applied
    assert watermarks(cluster, "orders", range(1)) == [(30, 100)]


def test_a_resend_after_one_lost_answer_gets_the_true_low_watermark(cluster: FakeCluster) -> None:
    leader = cluster.leader_of("orders", 1)
    cluster.drop_connection(leader, "DeleteRecords", when="after", count=1)
    with admin(cluster) as a:
        assert a.delete_records({TP("orders", 1): 150}) == {TP("orders", 1): DeletedRecords(150)}
    assert cluster.count("DeleteRecords") == 2


# --- bad input, before any I/O ----------------------------------------------------------------------------


BAD_CALLS: list[tuple[str, Any, Any, type[Exception]]] = [
    ("delete_records", ([(TP("t", 0), 1)],), {}, TypeError),
    ("delete_records", ({},), {}, ValueError),
    ("delete_records", ({TP("t", 0): -2},), {}, ValueError),
    ("delete_records", ({TP("t", 0): 2**63},), {}, ValueError),
    ("delete_records", ({TP("t", 0): True},), {}, TypeError),
    ("delete_records", ({TP("t", 0): "5"},), {}, TypeError),
    ("delete_records", ({TP("", 0): 1},), {}, ValueError),
    ("delete_records", ({TP("a b", 0): 1},), {}, ValueError),
    ("delete_records", ({TP("..", 0): 1},), {}, ValueError),
    ("delete_records", ({TP("x" * 250, 0): 1},), {}, ValueError),
    ("delete_records", ({TP("t", -1): 1},), {}, ValueError),
    ("delete_records", ({TP("t", True): 1},), {}, ValueError),
    ("delete_records", ({"t-0": 1},), {}, TypeError),
    ("delete_records", ({TP("t", 0): 1, ("t", 0): 2},), {}, ValueError),
    ("describe_log_dirs", ("1",), {}, TypeError),
    ("describe_log_dirs", ([],), {}, ValueError),
    ("describe_log_dirs", ([-1],), {}, ValueError),
    ("describe_log_dirs", ([True],), {}, TypeError),
    ("describe_log_dirs", (None,), {"partitions": "t"}, TypeError),
    ("describe_log_dirs", (None,), {"partitions": []}, ValueError),
    ("topic_sizes", ("orders",), {}, TypeError),
    ("topic_sizes", ([],), {}, ValueError),
    ("topic_sizes", (["bad/name"],), {}, ValueError),
    ("topic_sizes", (None,), {"replicas": "both"}, ValueError),
    ("elect_leaders", ("random",), {}, ValueError),
    ("elect_leaders", (ElectionType.PREFERRED, []), {}, ValueError),
    ("elect_leaders", (ElectionType.PREFERRED, [("t", -1)]), {}, ValueError),
    ("elect_leaders", (ElectionType.PREFERRED, TP("t", 0)), {}, TypeError),
    ("alter_partition_reassignments", ({},), {}, ValueError),
    ("alter_partition_reassignments", ({TP("t", 0): []},), {}, ValueError),
    ("alter_partition_reassignments", ({TP("t", 0): [1, 1]},), {}, ValueError),
    ("alter_partition_reassignments", ({TP("t", 0): [-1]},), {}, ValueError),
    ("alter_partition_reassignments", ({TP("t", 0): [1.5]},), {}, TypeError),
    ("alter_partition_reassignments", ({TP("t", 0): "1,2"},), {}, TypeError),
    ("list_partition_reassignments", ([],), {}, ValueError),
    ("list_partition_reassignments", ("t",), {}, TypeError),
]


@pytest.mark.parametrize(("method", "args", "kwargs", "exc"), BAD_CALLS,
                         ids=[f"{m}-{i}" for i, (m, *_rest) in enumerate(BAD_CALLS)])
def test_bad_input_is_refused_before_any_io(method: str, args: Any, kwargs: Any, exc: type[Exception]) -> None:
    with FakeCluster(brokers=1) as c:
        a = admin(c)  # not started: a refused call must not even bootstrap
        try:
            with pytest.raises(exc):
                getattr(a, method)(*args, **kwargs)
        finally:
            a.close()
        assert c.request_log == []


# --- log dirs and sizes -------------------------------------------------------------------------------------


def test_describe_log_dirs_sizes_dirs_and_future_replicas(cluster: FakeCluster) -> None:
    cluster.set_log_dirs(2, ["/data/a", "/data/b", LogDir("/data/bad", offline=True)])
    cluster.place_replica("orders", 1, 2, "/data/b", future_dir="/data/a", future_behind=50)
    with admin(cluster) as a:
        got = a.describe_log_dirs()
        assert set(got) == {1, 2, 3}
        node2 = got[2]
        assert isinstance(node2, dict) and list(node2) == ["/data/a", "/data/b", "/data/bad"]
        assert node2["/data/bad"].error is not None and node2["/data/bad"].error.code == ErrorCode.KAFKA_STORAGE_ERROR
        moved = [r for r in node2["/data/b"].replicas if r.partition == TP("orders", 1)]
        assert [(r.size_bytes, r.offset_lag, r.is_future) for r in moved] == [(200 * BYTES_PER_RECORD, 0, False)]
        future = [r for r in node2["/data/a"].replicas if r.partition == TP("orders", 1)]
        assert [(r.size_bytes, r.offset_lag, r.is_future) for r in future] == [(150 * BYTES_PER_RECORD, 50, True)]
        # v4 (Kafka 3.3+): the volume's size, and what is left of it.
        assert node2["/data/b"].total_bytes == 1 << 40
        assert node2["/data/b"].usable_bytes == (1 << 40) - node2["/data/b"].size_bytes
        # Only the brokers asked; an id the cluster lacks is an answer, never sent.
        only = a.describe_log_dirs([1, 9], partitions=[TP("orders", 0)])
        assert isinstance(only[9], BrokerNotAvailableError)
        node1 = only[1]
        assert isinstance(node1, dict)
        assert [r.partition for r in node1[DEFAULT_LOG_DIR].replicas] == [TP("orders", 0)]
    assert {e.node_id for e in cluster.request_log if e.api_key == DESCRIBE_LOG_DIRS} == {1, 2, 3}


@pytest.mark.parametrize("release", ["2.8", "4.0"])
def test_describe_log_dirs_before_and_after_volume_sizes(release: str) -> None:
    with FakeCluster(brokers=1, versions=release) as c:
        c.add_topic("t", partitions=1, offsets=[7])
        with admin(c) as a:
            d = a.describe_log_dirs()[1]
        assert isinstance(d, dict)
        (desc,) = d.values()
        assert [(r.partition, r.size_bytes) for r in desc.replicas] == [(TP("t", 0), 7 * BYTES_PER_RECORD)]
        assert (desc.total_bytes is None) == (release == "2.8")


def test_describe_log_dirs_agrees_with_kafka_python(cluster: FakeCluster) -> None:
    with admin(cluster) as a:
        ours = a.describe_log_dirs()
    kp = KafkaAdminClient(bootstrap_servers=cluster.bootstrap, request_timeout_ms=5000)
    try:
        theirs = kp.describe_log_dirs()
    finally:
        kp.close()
    flat_theirs = {(b["broker"], d["log_dir"], t["name"], p["partition_index"]): p["partition_size"]
                   for b in theirs for d in b["log_dirs"] for t in d["topics"] for p in t["partitions"]}
    flat_ours = {(n, path, r.partition.topic, r.partition.partition): r.size_bytes
                 for n, dirs in ours.items() if isinstance(dirs, dict)
                 for path, d in dirs.items() for r in d.replicas}
    assert flat_ours == flat_theirs and flat_ours


def test_topic_sizes_leader_or_all_replicas(cluster: FakeCluster) -> None:
    with admin(cluster) as a:
        leader = a.topic_sizes()
        assert leader.complete and leader.counted == "leader"
        assert leader.sizes == {"orders": 300 * BYTES_PER_RECORD, "audit": 50 * BYTES_PER_RECORD}
        every = a.topic_sizes(["orders", "audit"], replicas="all")
        assert every.sizes == {"orders": 3 * 300 * BYTES_PER_RECORD, "audit": 2 * 50 * BYTES_PER_RECORD}
        # DeleteRecords only moves the log start: the segments stay on disk until retention, so no bytes go.
        a.delete_records({TP("orders", 1): 150})
        assert a.topic_sizes(["orders"]).sizes == {"orders": 300 * BYTES_PER_RECORD}
        unknown = a.topic_sizes(["orders", "nope"])
        assert isinstance(unknown.topic_errors["nope"], UnknownTopicOrPartitionError) and not unknown.complete


def test_topic_sizes_say_what_they_could_not_measure(cluster: FakeCluster) -> None:
    cluster.set_log_dirs(3, ["/ok", LogDir("/broken", offline=True)])
    with admin(cluster) as a:
        sizes = a.topic_sizes(["orders"], replicas="all")
    assert not sizes.complete
    assert set(sizes.broker_errors) == {3} and "/broken" in sizes.broker_errors[3].message


def test_topic_sizes_name_the_partitions_whose_leader_copy_is_unknown(cluster: FakeCluster) -> None:
    leader = cluster.leader_of("audit", 0)
    cluster.inject(leader, "DescribeLogDirs", ErrorCode.CLUSTER_AUTHORIZATION_FAILED, count=1)
    with admin(cluster) as a:
        sizes = a.topic_sizes(["audit"])
    assert sizes.sizes == {"audit": 0} and not sizes.complete
    assert list(sizes.missing) == [TP("audit", 0)] and str(leader) in sizes.missing[TP("audit", 0)].message
    assert sizes.broker_errors[leader].code == ErrorCode.CLUSTER_AUTHORIZATION_FAILED


def test_log_dirs_of_a_mixed_cluster_use_each_brokers_version() -> None:
    with FakeCluster(brokers=2, versions={1: "2.8", 2: "4.0"}) as c:
        c.add_topic("t", partitions=1, replication_factor=2)
        with admin(c) as a:
            got = a.describe_log_dirs()
        old, new = got[1], got[2]
        assert isinstance(old, dict) and isinstance(new, dict)
        assert next(iter(old.values())).total_bytes is None
        assert next(iter(new.values())).total_bytes == 1 << 40
        assert {(e.node_id, e.version) for e in c.request_log if e.api_key == DESCRIBE_LOG_DIRS} == {(1, 2), (2, 4)}


# --- elections -----------------------------------------------------------------------------------------------


def test_preferred_election_moves_the_leader_back(cluster: FakeCluster) -> None:
    preferred = cluster.partition("orders", 0).replicas[0]
    other = cluster.partition("orders", 0).replicas[1]
    cluster.move_leader("orders", 0, other)
    with admin(cluster) as a:
        got = a.elect_leaders("preferred", [TP("orders", 0), TP("orders", 1), TP("nope", 0)])
    assert got[TP("orders", 0)] is ElectionResult.ELECTED
    assert got[TP("orders", 1)] is ElectionResult.NOT_NEEDED
    assert isinstance(got[TP("nope", 0)], UnknownTopicOrPartitionError)
    assert cluster.leader_of("orders", 0) == preferred
    # ElectLeaders went to the controller only.
    assert {e.node_id for e in cluster.request_log if e.api_key == ELECT_LEADERS} == {min(cluster.node_ids)}


def test_election_for_all_partitions_lists_only_those_that_needed_one(cluster: FakeCluster) -> None:
    cluster.move_leader("orders", 2, cluster.partition("orders", 2).replicas[2])
    with admin(cluster) as a:
        assert a.elect_leaders() == {TP("orders", 2): ElectionResult.ELECTED}
        assert a.elect_leaders() == {}


def test_preferred_leader_down_and_unclean_election(cluster: FakeCluster) -> None:
    replicas = cluster.partition("audit", 0).replicas
    cluster.set_isr("audit", 0, [replicas[0]])
    cluster.stop_broker(replicas[0])  # the only in-sync replica: the partition has no leader
    assert cluster.leader_of("audit", 0) == -1
    with admin(cluster) as a:
        got = a.elect_leaders(ElectionType.PREFERRED, [TP("audit", 0)])
        assert isinstance(got[TP("audit", 0)], PreferredLeaderNotAvailableError)
        assert a.elect_leaders("unclean", [TP("audit", 0), TP("orders", 0)]) == {
            TP("audit", 0): ElectionResult.ELECTED, TP("orders", 0): ElectionResult.NOT_NEEDED}
    assert cluster.partition("audit", 0).leader == replicas[1]
    assert cluster.partition("audit", 0).isr == (replicas[1],)


def test_unclean_election_with_no_live_replica(cluster: FakeCluster) -> None:
    for n in cluster.partition("audit", 0).replicas:
        cluster.stop_broker(n)  # audit lives on two brokers; the controller (the lowest id) is not one of them
    with admin(cluster) as a:
        got = a.elect_leaders("unclean", [TP("audit", 0)])
    assert isinstance(got[TP("audit", 0)], EligibleLeadersNotAvailableError)


def test_kafka_2_2_has_preferred_elections_only() -> None:
    with FakeCluster(brokers=2, versions="2.2") as c:
        c.add_topic("t", partitions=1)
        c.move_leader("t", 0, c.partition("t", 0).replicas[1])
        with admin(c) as a:
            err = a.elect_leaders("unclean", [TP("t", 0)])[TP("t", 0)]
            assert isinstance(err, UnsupportedVersionError) and "v1+" in err.message
            assert a.elect_leaders("preferred", [TP("t", 0)]) == {TP("t", 0): ElectionResult.ELECTED}
            # 2.2 predates ELECTION_NOT_NEEDED: a partition already led by its preferred replica is a success.
            assert a.elect_leaders("preferred", [TP("t", 0)]) == {TP("t", 0): ElectionResult.ELECTED}
        assert {e.version for e in c.request_log if e.api_key == ELECT_LEADERS} == {0}


def test_not_controller_is_asked_again(cluster: FakeCluster) -> None:
    cluster.move_leader("orders", 0, cluster.partition("orders", 0).replicas[1])
    cluster.inject(min(cluster.node_ids), "ElectLeaders", ErrorCode.NOT_CONTROLLER, count=1)
    with admin(cluster) as a:
        assert a.elect_leaders("preferred", [TP("orders", 0)]) == {TP("orders", 0): ElectionResult.ELECTED}
    assert cluster.count("ElectLeaders") == 2


def test_a_lost_election_answer_is_not_reported_as_not_needed(cluster: FakeCluster) -> None:
    """The first send elected the leader but its answer was lost; the resend finds nothing to do.  "Not needed"
    would hide that this call did it: the partition is reported possibly applied."""
    cluster.move_leader("orders", 0, cluster.partition("orders", 0).replicas[1])
    cluster.drop_connection(min(cluster.node_ids), "ElectLeaders", when="after", count=1)
    with admin(cluster) as a:
        got = a.elect_leaders("preferred", [TP("orders", 0)])[TP("orders", 0)]
    assert isinstance(got, KafkaTimeoutError) and got.possibly_applied
    assert cluster.leader_of("orders", 0) == cluster.partition("orders", 0).replicas[0]


def test_elections_agree_with_confluent_kafka(cluster: FakeCluster) -> None:
    from confluent_kafka import ElectionType as CElectionType
    from confluent_kafka.admin import AdminClient as CAdmin

    cluster.move_leader("orders", 1, cluster.partition("orders", 1).replicas[2])
    ca = CAdmin({"bootstrap.servers": cluster.bootstrap, "log_level": 3})
    theirs = ca.elect_leaders(CElectionType.PREFERRED, [CTopicPartition("orders", 0),
                                                       CTopicPartition("orders", 1)]).result(10)
    by_partition = {tp.partition: err for tp, err in theirs.items()}
    assert by_partition[1] is None and by_partition[0].code() == ErrorCode.ELECTION_NOT_NEEDED
    with admin(cluster) as a:  # the same cluster state seen by kadmin: nothing left to elect
        assert a.elect_leaders("preferred", [TP("orders", 0), TP("orders", 1)]) == {
            TP("orders", 0): ElectionResult.NOT_NEEDED, TP("orders", 1): ElectionResult.NOT_NEEDED}


# --- reassignments -------------------------------------------------------------------------------------------


def test_reassign_list_finish_and_cancel(cluster: FakeCluster) -> None:
    before = cluster.partition("audit", 0).replicas
    newcomer = next(n for n in cluster.node_ids if n not in before)
    target = [newcomer, before[0]]
    with admin(cluster) as a:
        got = a.alter_partition_reassignments({TP("audit", 0): target, TP("orders", 0): None,
                                               TP("orders", 1): [1, 2, 99], TP("nope", 0): [1]})
        assert got[TP("audit", 0)] is None
        assert isinstance(got[TP("orders", 0)], NoReassignmentInProgressError)
        assert isinstance(got[TP("orders", 1)], InvalidReplicaAssignmentError)
        assert isinstance(got[TP("nope", 0)], UnknownTopicOrPartitionError)
        ongoing = PartitionReassignment((newcomer, before[0], before[1]), (newcomer,), (before[1],))
        assert a.list_partition_reassignments() == {TP("audit", 0): ongoing}
        assert ongoing.target == tuple(target)
        assert a.list_partition_reassignments([TP("audit", 0), TP("orders", 0)]) == {
            TP("audit", 0): ongoing, TP("orders", 0): None}
        # kafka-python reads back what kadmin started.
        kp = KafkaAdminClient(bootstrap_servers=cluster.bootstrap, request_timeout_ms=5000)
        try:
            theirs = kp.list_partition_reassignments()
        finally:
            kp.close()
        assert list(theirs) == [KTopicPartition("audit", 0)]
        cluster.finish_reassignments()
        assert a.list_partition_reassignments() == {}
        assert cluster.partition("audit", 0).replicas == tuple(target)
        # A second move, cancelled: back to where it started.
        assert a.alter_partition_reassignments({TP("audit", 0): list(before)}) == {TP("audit", 0): None}
        assert a.alter_partition_reassignments({TP("audit", 0): None}) == {TP("audit", 0): None}
        # As in Kafka's controller, a cancelled move keeps the replicas it did not add, in their current order.
        assert sorted(cluster.partition("audit", 0).replicas) == sorted(target)
        assert cluster.partition("audit", 0).adding == ()
    assert {e.node_id for e in cluster.request_log if e.api_key in (ALTER_REASSIGN, LIST_REASSIGN)} \
        == {min(cluster.node_ids)}


def test_leadership_stays_during_a_move_until_the_leader_leaves(cluster: FakeCluster) -> None:
    leader, other = cluster.partition("audit", 0).replicas
    newcomer = next(n for n in cluster.node_ids if n not in (leader, other))
    epoch = cluster.partition("audit", 0).leader_epoch
    with admin(cluster) as a:
        assert a.alter_partition_reassignments({TP("audit", 0): [newcomer, other]}) == {TP("audit", 0): None}
        during = a.describe_topics(["audit"])["audit"]
        assert not isinstance(during, KafkaError)
        assert during.partitions[0].leader == leader  # the target lists the newcomer first; it does not lead yet
        assert during.partitions[0].replicas == (newcomer, other, leader)
        cluster.finish_reassignments()
        after = a.describe_topics(["audit"])["audit"]
    assert not isinstance(after, KafkaError)
    assert after.partitions[0].leader == newcomer and after.partitions[0].replicas == (newcomer, other)
    assert cluster.partition("audit", 0).leader_epoch == epoch + 1


def test_a_lost_cancel_answer_is_possibly_applied(cluster: FakeCluster) -> None:
    before = cluster.partition("audit", 0).replicas
    newcomer = next(n for n in cluster.node_ids if n not in before)
    with admin(cluster) as a:
        assert a.alter_partition_reassignments({TP("audit", 0): [newcomer, *before]}) == {TP("audit", 0): None}
        cluster.drop_connection(min(cluster.node_ids), "AlterPartitionReassignments", when="after", count=1)
        got = a.alter_partition_reassignments({TP("audit", 0): None})[TP("audit", 0)]
    # The cancel was applied; the resend got NO_REASSIGNMENT_IN_PROGRESS, which is what that looks like.
    assert cluster.partition("audit", 0).replicas == before
    assert isinstance(got, KafkaTimeoutError) and got.possibly_applied


@pytest.mark.parametrize("release", ["2.6", "4.0"])
def test_reassignments_on_zookeeper_and_kraft_presets(release: str) -> None:
    with FakeCluster(brokers=3, versions=release) as c:
        c.add_topic("t", partitions=1, replication_factor=1)
        start = c.partition("t", 0).replicas[0]
        target = [n for n in c.node_ids if n != start][:1]
        with admin(c) as a:
            assert a.alter_partition_reassignments({TP("t", 0): target}) == {TP("t", 0): None}
            assert a.list_partition_reassignments() == {
                TP("t", 0): PartitionReassignment((target[0], start), (target[0],), (start,))}


def test_kafka_2_2_has_no_reassignment_apis() -> None:
    with FakeCluster(brokers=1, versions="2.2") as c:
        c.add_topic("t", partitions=1)
        with admin(c) as a:
            err = a.alter_partition_reassignments({TP("t", 0): [1]})[TP("t", 0)]
            listed = a.list_partition_reassignments([TP("t", 0)])[TP("t", 0)]
        assert isinstance(err, UnsupportedVersionError) and isinstance(listed, UnsupportedVersionError)
        assert c.count(ALTER_REASSIGN) == 0 and c.count(LIST_REASSIGN) == 0


# --- topic sizes with brokers down (audit 2, item 2) -------------------------------------------------------------


def test_topic_sizes_of_every_replica_name_the_replicas_on_a_stopped_broker(cluster: FakeCluster) -> None:
    # orders: 3 partitions on all 3 brokers; audit: 1 partition on 2 of the 3.
    audit_on_3 = 3 in cluster.partition("audit", 0).replicas
    with admin(cluster) as a:
        assert a.topic_sizes(replicas="all").complete
        cluster.stop_broker(3)
        every = a.topic_sizes(replicas="all")
        named = a.topic_sizes(["orders", "audit"], replicas="all")
        leader = a.topic_sizes(["orders", "audit"])
    short = {TP("orders", p) for p in range(3)} | ({TP("audit", 0)} if audit_on_3 else set())
    for got in (every, named):
        assert not got.complete
        # Only the live copies were measured: lower bounds, and every partition with a copy on 3 says so.
        assert got.sizes == {"orders": 2 * 300 * BYTES_PER_RECORD,
                             "audit": (1 if audit_on_3 else 2) * 50 * BYTES_PER_RECORD}
        assert set(got.missing) == short
        assert all("broker 3" in e.message for e in got.missing.values())
        assert set(got.broker_errors) == {3} and isinstance(got.broker_errors[3], BrokerNotAvailableError)
    # The leaders moved to live brokers: the data's size (one copy each) is still complete.
    assert leader.complete and leader.sizes == {"orders": 300 * BYTES_PER_RECORD, "audit": 50 * BYTES_PER_RECORD}


def test_topic_sizes_of_a_topic_whose_every_replica_is_down() -> None:
    with FakeCluster(brokers=3) as c:
        c.add_topic("lost", partitions=1, offsets=[10], replication_factor=1)
        c.add_topic("kept", partitions=1, offsets=[10], replication_factor=3)
        c.stop_broker(c.partition("lost", 0).replicas[0])
        with admin(c) as a:
            for replicas in ("leader", "all"):
                got = a.topic_sizes(replicas=replicas)
                # No live broker reports "lost" and it has no leader: still listed (0, a lower bound), and
                # its partition is missing.
                assert got.sizes["lost"] == 0 and not got.complete, (replicas, got)
                # With every replica, kept's copy on the stopped broker is missing too.
                assert set(got.missing) == ({TP("lost", 0)} if replicas == "leader" else {TP("lost", 0), TP("kept", 0)})
                assert got.sizes["kept"] == (1 if replicas == "leader" else 2) * 10 * BYTES_PER_RECORD


def test_topic_sizes_of_every_replica_name_a_copy_its_live_broker_left_out() -> None:
    # The fold alone: broker 2 answered but listed no log for t-0 (say, a replica not created yet).
    def dirs_of(*held: int) -> dict[str, LogDirDescription]:
        return {"/d": LogDirDescription("/d", None, tuple(ReplicaLogInfo(TP("t", p), 100, 0, False) for p in held))}

    desc = TopicDescription("t", None, False, (PartitionInfo(0, 1, 0, (1, 2), (1, 2)),
                                               PartitionInfo(1, None, None, (2,), ())))
    got = topic_sizes({1: dirs_of(0), 2: dirs_of(1)}, {"t": desc}, "all")
    assert got.sizes == {"t": 200} and not got.complete and not got.broker_errors
    assert set(got.missing) == {TP("t", 0)} and isinstance(got.missing[TP("t", 0)], ReplicaNotAvailableError)
    assert "broker 2 reported no log" in got.missing[TP("t", 0)].message
    leader = topic_sizes({1: dirs_of(0), 2: dirs_of(1)}, {"t": desc}, "leader")
    # t-1 has no leader: never silently skipped.
    assert leader.sizes == {"t": 100} and set(leader.missing) == {TP("t", 1)} and not leader.complete


# --- log dir sizes of produced records ---------------------------------------------------------------------


def _kafka_python_sizes(c: FakeCluster) -> dict[tuple[int, str, int], int]:
    """(broker, topic, partition) -> partition_size, as kafka-python's describe_log_dirs reads it."""
    kp = KafkaAdminClient(bootstrap_servers=c.bootstrap, request_timeout_ms=5000)
    try:
        got = kp.describe_log_dirs()
    finally:
        kp.close()
    return {(b["broker"], t["name"], p["partition_index"]): p["partition_size"]
            for b in got for d in b["log_dirs"] for t in d["topics"] for p in t["partitions"]}


def _kadmin_sizes(a: AdminClient) -> dict[tuple[int, str, int], int]:
    return {(n, r.partition.topic, r.partition.partition): r.size_bytes
            for n, dirs in a.describe_log_dirs().items() if isinstance(dirs, dict)
            for d in dirs.values() for r in d.replicas}


def _produce(c: FakeCluster, topic: str, count: int, value_size: int) -> None:
    p = Producer({"bootstrap.servers": c.bootstrap, "linger.ms": 20, "compression.type": "none",
                  "log_level": 3})
    for _ in range(count):
        p.produce(topic, b"v" * value_size, partition=0)
    assert p.flush(10) == 0


@pytest.mark.parametrize("release", ["2.2", "3.9"])
def test_log_dir_sizes_are_the_produced_batches_and_delete_records_frees_nothing(release: str) -> None:
    # Kafka reports the bytes of a log's segments: the record batches producers sent (values, plus headers).
    # DeleteRecords only moves the log start; segments go later, on the retention check.
    count, value_size = 40, 1000
    with FakeCluster(brokers=1, versions=release) as c:
        c.add_topic("t", partitions=1)
        _produce(c, "t", count, value_size)
        stored = sum(len(b.data) for b in c._partition("t", 0).log.batches)
        theirs = _kafka_python_sizes(c)
        with admin(c) as a:
            ours = _kadmin_sizes(a)
            assert ours == theirs == {(1, "t", 0): stored}
            assert count * value_size <= stored < count * (value_size + 100)
            assert a.delete_records({TP("t", 0): count // 2}) == {TP("t", 0): DeletedRecords(count // 2)}
            assert watermarks(c, "t", range(1)) == [(count // 2, count)]
            assert _kadmin_sizes(a) == _kafka_python_sizes(c) == {(1, "t", 0): stored}
            assert a.topic_sizes(["t"]).sizes == {"t": stored}
            # Deleting everything frees nothing either; what is produced after it adds its batches.
            a.delete_records({TP("t", 0): -1})
            _produce(c, "t", 1, value_size)
            after = _kadmin_sizes(a)[(1, "t", 0)]
            assert stored + value_size <= after < stored + value_size + 100
            assert c.partition("t", 0).log_start == count


def test_log_dir_sizes_count_records_nobody_wrote_as_before_and_keep_them_after_delete_records() -> None:
    with FakeCluster(brokers=1) as c:
        c.add_topic("t", partitions=1, offsets=[10])
        _produce(c, "t", 5, 500)
        stored = sum(len(b.data) for b in c._partition("t", 0).log.batches)
        assert stored >= 5 * 500
        with admin(c) as a:
            expected = {(1, "t", 0): 10 * BYTES_PER_RECORD + stored}
            assert _kadmin_sizes(a) == _kafka_python_sizes(c) == expected
            a.delete_records({TP("t", 0): 12})
            assert _kadmin_sizes(a) == _kafka_python_sizes(c) == expected
            assert c.partition("t", 0).log_start == 12
