"""FakeCluster fault injection and request log, each observed over a socket."""

from __future__ import annotations

import socket
import time

import pytest

from kadmin.protocol import message_type
from kadmin.testing import FakeCluster, Member
from kadmin.testing.rawclient import ConnectionClosed, RawConnection

NOT_COORDINATOR = 16
LOADING = 14
REQUEST_TIMED_OUT = 7


pytestmark = pytest.mark.fake_cluster(brokers=3)


@pytest.fixture
def cluster(fake_cluster: FakeCluster) -> FakeCluster:
    c = fake_cluster
    c.add_group("g", members=[Member("m")])
    c.add_group("idle")
    c.add_topic("t", partitions=1)
    return c


def connect(cluster: FakeCluster, node: int) -> RawConnection:
    host, port = cluster.addresses[node]
    return RawConnection(host, port)


def describe_code(conn: RawConnection, group: str = "g", version: int = 5) -> int:
    return int(conn.request(15, version, groups=[group]).groups[0].error_code)


def test_inject_per_group_error_for_count_requests(cluster: FakeCluster) -> None:
    node = cluster.coordinator_of("g") or 1
    cluster.inject(node, "DescribeGroups", error_code=LOADING, count=2)
    with connect(cluster, node) as conn:
        assert [describe_code(conn) for _ in range(3)] == [LOADING, LOADING, 0]


def test_inject_only_hits_the_named_node_and_api(cluster: FakeCluster) -> None:
    node = cluster.coordinator_of("g") or 1
    other = next(n for n in cluster.node_ids if n != node)
    cluster.inject(other, 15, error_code=REQUEST_TIMED_OUT)
    cluster.inject(node, 42, error_code=REQUEST_TIMED_OUT)
    with connect(cluster, node) as conn:
        assert describe_code(conn) == 0
    with connect(cluster, other) as conn:
        assert describe_code(conn) == REQUEST_TIMED_OUT
        assert describe_code(conn) == NOT_COORDINATOR  # used up: back to the real answer


def test_inject_any_node(cluster: FakeCluster) -> None:
    cluster.inject(None, "ListGroups", error_code=15, count=3)
    codes = []
    for node in cluster.node_ids:
        with connect(cluster, node) as conn:
            codes.append(int(conn.request(16, 4).error_code))
    assert codes == [15, 15, 15]


def test_injected_error_goes_where_each_api_carries_errors(cluster: FakeCluster) -> None:
    R9 = message_type(9, "request")
    R8 = message_type(8, "request")
    node = cluster.coordinator_of("idle") or 1
    with connect(cluster, node) as conn:
        cluster.inject(node, 10, error_code=15)
        single = conn.request(10, 3, key="idle")
        cluster.inject(node, 10, error_code=15)
        batched = conn.request(10, 4, key_type=0, coordinator_keys=["a", "b"])
        cluster.inject(node, 9, error_code=LOADING)
        fetch_v7 = conn.request(9, 7, group_id="idle", topics=None)
        cluster.inject(node, 9, error_code=LOADING)
        fetch_v8 = conn.request(9, 8, groups=[R9.OffsetFetchRequestGroup(group_id="x", topics=None),
                                              R9.OffsetFetchRequestGroup(group_id="y", topics=None)])
        cluster.inject(node, 8, error_code=NOT_COORDINATOR)
        commit = conn.request(8, 7, group_id="idle", generation_id_or_member_epoch=-1, member_id="", topics=[
            R8.OffsetCommitRequestTopic(name="t", partitions=[
                R8.OffsetCommitRequestPartition(partition_index=0, committed_offset=5)])])
        cluster.inject(node, 42, error_code=LOADING)
        delete = conn.request(42, 2, groups_names=["idle", "other"])
        cluster.inject(node, 48, error_code=31)
        quotas = conn.request(48, 1, components=[], strict=False)
        cluster.inject(node, 3, error_code=5)
        metadata = conn.request(3, 12, topics=None)
        cluster.inject(node, 18, error_code=35)
        api_versions = conn.request(18, 3, client_software_name="x", client_software_version="1")
    assert (single.error_code, single.node_id) == (15, -1)
    assert [(c.key, c.error_code) for c in batched.coordinators] == [("a", 15), ("b", 15)]
    assert fetch_v7.error_code == LOADING
    assert [(g.group_id, g.error_code) for g in fetch_v8.groups] == [("x", LOADING), ("y", LOADING)]
    assert commit.topics[0].partitions[0].error_code == NOT_COORDINATOR
    assert [r.error_code for r in delete.results] == [LOADING, LOADING]
    assert quotas.error_code == 31 and quotas.entries is None
    assert [(t.name, t.error_code) for t in metadata.topics] == [("t", 5)]
    assert api_versions.error_code == 35
    # An injected error means the request was not applied.
    assert cluster.groups["idle"].offsets == {} and "idle" in cluster.groups


def test_delay_holds_only_the_matching_requests(cluster: FakeCluster) -> None:
    cluster.delay(1, "Metadata", seconds=0.3, count=1)
    with connect(cluster, 1) as conn:
        t0 = time.monotonic()
        conn.request(3, 12, topics=None)
        first = time.monotonic() - t0
        t0 = time.monotonic()
        conn.request(3, 12, topics=None)
        second = time.monotonic() - t0
    assert first >= 0.3 and second < 0.25


def test_delay_blocks_later_requests_on_the_same_connection(cluster: FakeCluster) -> None:
    cluster.delay(2, 16, seconds=0.3)
    with connect(cluster, 2) as conn:
        t0 = time.monotonic()
        c1 = conn.send(16, 4, message_type(16, "request")())
        c2 = conn.send(3, 12, message_type(3, "request")(topics=None))
        assert conn.receive(16, 4)[0] == c1
        assert conn.receive(3, 12)[0] == c2
        assert time.monotonic() - t0 >= 0.3


def test_drop_before_does_not_apply(cluster: FakeCluster) -> None:
    node = cluster.coordinator_of("idle") or 1
    cluster.drop_connection(node, "DeleteGroups", when="before")
    with connect(cluster, node) as conn:
        with pytest.raises(ConnectionClosed):
            conn.request(42, 2, groups_names=["idle"])
    assert "idle" in cluster.groups
    with connect(cluster, node) as conn:
        assert conn.request(42, 2, groups_names=["idle"]).results[0].error_code == 0
    assert "idle" not in cluster.groups


def test_drop_after_applies_but_never_answers(cluster: FakeCluster) -> None:
    node = cluster.coordinator_of("idle") or 1
    cluster.drop_connection(node, 42, when="after")
    with connect(cluster, node) as conn:
        with pytest.raises(ConnectionClosed):
            conn.request(42, 2, groups_names=["idle"])
    assert "idle" not in cluster.groups
    assert cluster.count("DeleteGroups", node=node) == 1


def test_throttle_sets_throttle_time_where_the_version_has_it(cluster: FakeCluster) -> None:
    cluster.throttle(1, "ApiVersions", ms=250, count=2)
    with connect(cluster, 1) as conn:
        v0 = conn.request(18, 0)  # v0 has no ThrottleTimeMs: the rule is used up, the field absent
        v3 = conn.request(18, 3, client_software_name="x", client_software_version="1")
        v3_again = conn.request(18, 3, client_software_name="x", client_software_version="1")
    assert v0.throttle_time_ms == 0
    assert v3.throttle_time_ms == 250
    assert v3_again.throttle_time_ms == 0


def test_coordinator_loading(cluster: FakeCluster) -> None:
    node = cluster.coordinator_of("g") or 1
    cluster.coordinator_loading("g", count=2)
    with connect(cluster, cluster.coordinator_of("idle") or 1) as conn:
        assert describe_code(conn, "idle") == 0  # other groups are not loading, and use up nothing
    with connect(cluster, node) as conn:
        fc = conn.request(10, 4, key_type=0, coordinator_keys=["g"])
        assert fc.coordinators[0].error_code == 0  # FindCoordinator still answers while loading
        assert [describe_code(conn) for _ in range(3)] == [LOADING, LOADING, 0]


def test_stop_and_start_broker_same_port(cluster: FakeCluster) -> None:
    port = cluster.addresses[2][1]
    conn = connect(cluster, 2)
    conn.request(3, 12, topics=None)
    cluster.stop_broker(2)
    assert not cluster.is_alive(2)
    assert conn.is_closed()
    conn.close()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    with connect(cluster, 1) as c1:
        md = c1.request(3, 12, topics=None)
    assert [b.node_id for b in md.brokers] == [1, 3]
    part = md.topics[0].partitions[0]
    assert 2 not in part.isr_nodes and (part.offline_replicas == [2]) == (2 in part.replica_nodes)
    cluster.start_broker(2)
    assert cluster.addresses[2][1] == port and cluster.is_alive(2)
    with connect(cluster, 2) as c2:
        assert [b.node_id for b in c2.request(3, 12, topics=None).brokers] == [1, 2, 3]


def test_stopped_coordinator_fails_over_and_comes_back() -> None:
    with FakeCluster(brokers=3) as c:
        groups = [f"g{i}" for i in range(30)]
        before = {g: c.coordinator_of(g) for g in groups}
        victim = before["g0"] or 1
        c.stop_broker(victim)
        during = {g: c.coordinator_of(g) for g in groups}
        for g in groups:
            assert during[g] != victim
            if before[g] != victim:
                assert during[g] == before[g]  # only the dead broker's groups move
        c.start_broker(victim)
        assert {g: c.coordinator_of(g) for g in groups} == before


def test_latency_is_added_to_every_request() -> None:
    with FakeCluster(brokers=1, latency_s=0.15) as c, connect(c, 1) as conn:
        t0 = time.monotonic()
        conn.request(18, 0)
        conn.request(3, 12, topics=None)
        assert time.monotonic() - t0 >= 0.3


def test_fault_arguments_are_checked(cluster: FakeCluster) -> None:
    with pytest.raises(ValueError, match="no broker"):
        cluster.inject(9, 15, error_code=1)
    with pytest.raises(ValueError, match="unknown API"):
        cluster.inject(1, "Nonsense", error_code=1)
    with pytest.raises(ValueError, match="when must be"):
        cluster.drop_connection(1, 15, when="during")
    with pytest.raises(ValueError, match="count"):
        cluster.delay(1, 15, seconds=1, count=0)


def test_clear_faults(cluster: FakeCluster) -> None:
    cluster.inject(None, None, error_code=7, count=100)
    cluster.coordinator_loading("g", 5)
    cluster.clear_faults()
    with connect(cluster, cluster.coordinator_of("g") or 1) as conn:
        assert describe_code(conn) == 0


# ---------------------------------------------------------------------------------------------- request log


def test_request_log_records_every_request_with_keys(cluster: FakeCluster) -> None:
    R = message_type(49, "request")
    cluster.clear_log()
    with RawConnection(*cluster.addresses[3], client_id="log-test") as conn:
        conn.request(18, 3, client_software_name="sw", client_software_version="9")
        conn.request(10, 4, key_type=0, coordinator_keys=["g", "idle"])
        conn.request(15, 5, groups=["g", "nope"])
        conn.request(49, 1, validate_only=True, entries=[R.EntryData(
            entity=[R.EntityData(entity_type="user", entity_name=None),
                    R.EntityData(entity_type="client-id", entity_name="c")], ops=[])])
        conn.send(10, 7, b"")  # beyond any table: refused, but still logged
        assert conn.is_closed()
    log = cluster.request_log
    assert [(e.node_id, e.api_key, e.version) for e in log] == [(3, 18, 3), (3, 10, 4), (3, 15, 5), (3, 49, 1),
                                                                (3, 10, 7)]
    assert [e.keys for e in log] == [("sw/9",), ("g", "idle"), ("g", "nope"), ("user=<default>,client-id=c",), ()]
    assert [e.correlation_id for e in log] == [1, 2, 3, 4, 5]
    assert {e.client_id for e in log} == {"log-test"}
    assert all(log[i].timestamp <= log[i + 1].timestamp for i in range(len(log) - 1))
    assert cluster.count() == 5
    assert cluster.count("FindCoordinator") == 2
    assert cluster.count(10, version=4) == 1
    assert cluster.count(api_key=15, node=3) == 1 and cluster.count(api_key=15, node=1) == 0
    cluster.clear_log()
    assert cluster.request_log == [] and cluster.count() == 0


def test_wait_for_requests(cluster: FakeCluster) -> None:
    cluster.clear_log()
    assert not cluster.wait_for_requests(1, "Metadata", timeout=0.05)
    with connect(cluster, 1) as conn:
        conn.request(3, 12, topics=None)
    assert cluster.wait_for_requests(1, "Metadata", node=1, timeout=1)

