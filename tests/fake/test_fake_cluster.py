"""FakeCluster handlers over raw sockets: ApiVersions, Metadata, DescribeCluster, FindCoordinator, groups, offsets.

Requests are built with kadmin.protocol and sent with kadmin.testing.rawclient, so each test controls the
exact version on the wire; tests with an independent client (kafka-python) are in
test_fake_cluster_clients.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from kadmin.errors import (
    CoordinatorLoadInProgressError,
    GroupIdNotFoundError,
    InvalidRequestError,
    NonEmptyGroupError,
    NotCoordinatorError,
    UnsupportedVersionError,
)
from kadmin.protocol import message_type
from kadmin.testing import FakeCluster, Member
from kadmin.testing.rawclient import ConnectionClosed, RawConnection
from kadmin.versions import RELEASES

NOT_COORDINATOR = NotCoordinatorError.code
LOADING = CoordinatorLoadInProgressError.code


def connect(cluster: FakeCluster, node: int) -> RawConnection:
    host, port = cluster.addresses[node]
    return RawConnection(host, port)


def req(api_key: int, **fields: Any) -> Any:
    return message_type(api_key, "request")(**fields)


@pytest.fixture(scope="module")
def cluster() -> Iterator[FakeCluster]:
    """A 3-node 3.9 cluster shared by the read-mostly tests of this module."""
    with FakeCluster(brokers=3) as c:
        c.add_topic("orders", partitions=3, offsets={0: 10, 1: (5, 20), 2: 0})
        c.add_topic("single", partitions=1, replication_factor=1)
        c.add_group("stable", members=[
            Member("m-1", client_id="c-1", host="/10.0.0.1", metadata=b"sub", assignment=b"asg"),
            Member("m-2", client_id="c-2", group_instance_id="static-2")])
        c.add_group("empty")
        c.add_group("rebalancing", state="PreparingRebalance", members=[Member("m-9", metadata=b"x")])
        c.commit("empty", "orders", 0, 7, metadata="meta")
        c.commit("empty", "orders", 1, 12, leader_epoch=3)
        yield c


# ---------------------------------------------------------------------------------------------- ApiVersions


@pytest.mark.parametrize("version", [0, 1, 2, 3, 4])
def test_api_versions_lists_the_broker_table(cluster: FakeCluster, version: int) -> None:
    fields = {"client_software_name": "kadmin-test", "client_software_version": "1.0"} if version >= 3 else {}
    with connect(cluster, 1) as conn:
        resp = conn.request(18, version, **fields)
    assert resp.error_code == 0
    assert {k.api_key: (k.min_version, k.max_version) for k in resp.api_keys} == RELEASES["3.9"]


def test_api_versions_kip511_fallback_for_a_too_new_version() -> None:
    with FakeCluster(brokers=1, versions="2.2") as c, connect(c, 1) as conn:
        # 2.2 tops out at ApiVersions v2: a v3 request gets a v0-format answer with header v0.
        corr = conn.send(18, 3, req(18, client_software_name="x", client_software_version="1"))
        got, resp = conn.receive(18, 0)
        assert got == corr
        assert resp.error_code == UnsupportedVersionError.code
        assert [(k.api_key, k.min_version, k.max_version) for k in resp.api_keys] == [(18, 0, 2)]
        # The connection stays usable: retry at a supported version.
        again = conn.request(18, 2)
        assert again.error_code == 0 and len(again.api_keys) == len(RELEASES["2.2"])


def test_api_versions_fallback_also_for_versions_beyond_any_schema(cluster: FakeCluster) -> None:
    with connect(cluster, 2) as conn:
        corr = conn.send(18, 9, b"\x00\x00\x00")  # a future version whose body we cannot even parse
        got, resp = conn.receive(18, 0)
    assert got == corr and resp.error_code == UnsupportedVersionError.code
    assert [(k.api_key, k.max_version) for k in resp.api_keys] == [(18, 4)]


def test_api_versions_rejects_invalid_software_name(cluster: FakeCluster) -> None:
    with connect(cluster, 1) as conn:
        resp = conn.request(18, 3, client_software_name="bad name!", client_software_version="1")
    assert resp.error_code == InvalidRequestError.code and resp.api_keys == []


def test_too_new_version_of_another_api_closes_the_connection() -> None:
    with FakeCluster(brokers=1, versions="2.8") as c, connect(c, 1) as conn:
        conn.send(10, 4, req(10, key_type=0, coordinator_keys=["g"]))  # 2.8 has FindCoordinator v0-v3
        assert conn.is_closed()
    assert [(e.api_key, e.version) for e in c.request_log] == [(10, 4)]


def test_api_missing_from_the_table_closes_the_connection() -> None:
    with FakeCluster(brokers=1, versions="2.2") as c, connect(c, 1) as conn:
        conn.send(48, 0, req(48, components=[], strict=False))  # quota APIs arrived in 2.6
        with pytest.raises(ConnectionClosed):
            conn.recv_frame()


def test_mixed_version_cluster_reports_each_table() -> None:
    with FakeCluster(brokers=3, versions={1: "2.8", 2: "3.9", 3: "4.0"}) as c:
        for node, release in ((1, "2.8"), (2, "3.9"), (3, "4.0")):
            with connect(c, node) as conn:
                resp = conn.request(18, 3, client_software_name="t", client_software_version="1")
            assert {k.api_key: (k.min_version, k.max_version) for k in resp.api_keys} == RELEASES[release]
            assert c.versions_of(node) == RELEASES[release]


def test_cluster_wide_custom_table_and_set_versions() -> None:
    with FakeCluster(brokers=2, versions={18: (0, 3), 3: (0, 9), 10: (0, 2)}) as c:
        with connect(c, 2) as conn:
            resp = conn.request(18, 3, client_software_name="t", client_software_version="1")
            assert {k.api_key for k in resp.api_keys} == {3, 10, 18}
        c.set_versions(2, "3.0")
        with connect(c, 2) as conn:
            assert len(conn.request(18, 3, client_software_name="t", client_software_version="1").api_keys) \
                == len(RELEASES["3.0"])


# ---------------------------------------------------------------------------------------------- Metadata


def test_metadata_all_topics(cluster: FakeCluster) -> None:
    with connect(cluster, 3) as conn:
        resp = conn.request(3, 12, topics=None)
    assert [(b.node_id, b.port) for b in resp.brokers] == [(n, cluster.addresses[n][1]) for n in (1, 2, 3)]
    assert resp.cluster_id == cluster.cluster_id and resp.controller_id == 1
    topics = {t.name: t for t in resp.topics}
    assert set(topics) == {"orders", "single"}
    orders = topics["orders"]
    assert [p.partition_index for p in orders.partitions] == [0, 1, 2]
    for p in orders.partitions:
        assert p.error_code == 0 and len(p.replica_nodes) == 3 and p.leader_id == p.replica_nodes[0]
        assert p.isr_nodes == p.replica_nodes
        assert cluster.leader_of("orders", p.partition_index) == p.leader_id
    assert len(topics["single"].partitions[0].replica_nodes) == 1


def test_metadata_v0_empty_list_means_all_and_unknown_topic_errors(cluster: FakeCluster) -> None:
    with connect(cluster, 1) as conn:
        v0 = conn.request(3, 0, topics=[])
        v1 = conn.request(3, 1, topics=[])
        unknown = conn.request(3, 9, topics=[req(3).MetadataRequestTopic(name="nope")])
    assert {t.name for t in v0.topics} == {"orders", "single"}
    assert v1.topics == []
    assert [(t.name, t.error_code) for t in unknown.topics] == [("nope", 3)]


def test_describe_cluster(cluster: FakeCluster) -> None:
    with connect(cluster, 2) as conn:
        v0 = conn.request(60, 0, include_cluster_authorized_operations=False)
        v1 = conn.request(60, 1, include_cluster_authorized_operations=True, endpoint_type=1)
        controller = conn.request(60, 1, endpoint_type=2)
    assert v0.error_code == 0 and v0.cluster_id == cluster.cluster_id and v0.controller_id == 1
    assert [b.broker_id for b in v0.brokers] == [1, 2, 3]
    assert v0.cluster_authorized_operations == -2147483648
    assert v1.cluster_authorized_operations > 0
    assert controller.error_code == 114  # MISMATCHED_ENDPOINT_TYPE: a broker is not a controller


def test_describe_cluster_absent_before_2_8() -> None:
    with FakeCluster(brokers=1, versions="2.6") as c, connect(c, 1) as conn:
        conn.send(60, 0, req(60))
        assert conn.is_closed()


# ---------------------------------------------------------------------------------------------- FindCoordinator


@pytest.mark.parametrize("version", [0, 1, 2, 3])
def test_find_coordinator_single_key(cluster: FakeCluster, version: int) -> None:
    node = cluster.coordinator_of("stable")
    assert node in (1, 2, 3)
    with connect(cluster, 1) as conn:
        resp = conn.request(10, version, key="stable")
    assert (resp.error_code, resp.node_id, resp.port) == (0, node, cluster.addresses[node][1])


@pytest.mark.parametrize("version", [4, 5, 6])
def test_find_coordinator_batched(cluster: FakeCluster, version: int) -> None:
    keys = ["stable", "empty", "rebalancing", "unknown-group"]
    with connect(cluster, 2) as conn:
        resp = conn.request(10, version, key_type=0, coordinator_keys=keys)
    assert [c.key for c in resp.coordinators] == keys
    for c in resp.coordinators:
        assert c.error_code == 0 and c.node_id == cluster.coordinator_of(c.key)
        assert c.port == cluster.addresses[c.node_id][1]


def test_find_coordinator_spreads_groups_by_hash(cluster: FakeCluster) -> None:
    owners = {cluster.coordinator_of(f"group-{i}") for i in range(40)}
    assert owners == {1, 2, 3}


def test_find_coordinator_key_types(cluster: FakeCluster) -> None:
    with connect(cluster, 1) as conn:
        txn = conn.request(10, 1, key="txn-1", key_type=1)
        bad = conn.request(10, 3, key="g", key_type=7)
        share_too_old = conn.request(10, 5, key_type=2, coordinator_keys=["s"])
        share = conn.request(10, 6, key_type=2, coordinator_keys=["s"])
        empty = conn.request(10, 4, key_type=0, coordinator_keys=[""])
    assert txn.error_code == 0 and txn.node_id == cluster.coordinator_of("txn-1", key_type=1)
    assert bad.error_code == InvalidRequestError.code and bad.node_id == -1
    assert share_too_old.coordinators[0].error_code == InvalidRequestError.code
    assert share.coordinators[0].error_code == 0
    assert empty.coordinators[0].error_code == InvalidRequestError.code


def test_move_coordinator_and_not_coordinator() -> None:
    with FakeCluster(brokers=3) as c:
        c.add_group("g", members=[Member("m")])
        old = c.coordinator_of("g")
        new = next(n for n in c.node_ids if n != old)
        c.move_coordinator("g", new)
        assert c.coordinator_of("g") == new
        with connect(c, old) as conn:
            stale = conn.request(15, 5, groups=["g"])
            fc = conn.request(10, 4, key_type=0, coordinator_keys=["g"])
        assert stale.groups[0].error_code == NOT_COORDINATOR
        assert fc.coordinators[0].node_id == new
        with connect(c, new) as conn:
            assert conn.request(15, 5, groups=["g"]).groups[0].group_state == "Stable"
        c.move_coordinator("g", None)
        assert c.coordinator_of("g") == old


# ---------------------------------------------------------------------------------------------- groups


def describe(cluster: FakeCluster, group: str, version: int = 5, node: int | None = None) -> Any:
    with connect(cluster, node or cluster.coordinator_of(group) or 1) as conn:
        return conn.request(15, version, groups=[group], include_authorized_operations=False).groups[0]


@pytest.mark.parametrize("version", [0, 1, 2, 3, 4, 5])
def test_describe_groups_stable(cluster: FakeCluster, version: int) -> None:
    g = describe(cluster, "stable", version)
    assert (g.error_code, g.group_state, g.protocol_type, g.protocol_data) == (0, "Stable", "consumer", "range")
    assert [(m.member_id, m.client_id, m.member_metadata, m.member_assignment) for m in g.members] == [
        ("m-1", "c-1", b"sub", b"asg"), ("m-2", "c-2", b"", b"")]
    assert g.members[0].client_host == "/10.0.0.1"
    assert g.members[1].group_instance_id == ("static-2" if version >= 4 else None)


def test_describe_groups_unknown_is_dead_without_error(cluster: FakeCluster) -> None:
    g = describe(cluster, "no-such-group")
    assert (g.error_code, g.group_state, g.members) == (0, "Dead", [])


def test_describe_groups_rebalancing_hides_protocol_and_metadata(cluster: FakeCluster) -> None:
    g = describe(cluster, "rebalancing")
    assert g.group_state == "PreparingRebalance" and g.protocol_data == ""
    assert [(m.member_id, m.member_metadata) for m in g.members] == [("m-9", b"")]


def test_describe_groups_on_a_non_coordinator(cluster: FakeCluster) -> None:
    other = next(n for n in cluster.node_ids if n != cluster.coordinator_of("stable"))
    assert describe(cluster, "stable", node=other).error_code == NOT_COORDINATOR


def test_describe_groups_authorized_operations(cluster: FakeCluster) -> None:
    with connect(cluster, cluster.coordinator_of("empty") or 1) as conn:
        asked = conn.request(15, 3, groups=["empty"], include_authorized_operations=True).groups[0]
        not_asked = conn.request(15, 3, groups=["empty"], include_authorized_operations=False).groups[0]
    assert asked.authorized_operations > 0 and not_asked.authorized_operations == -2147483648


def list_all(cluster: FakeCluster, version: int, **fields: Any) -> dict[int, list[Any]]:
    out = {}
    for node in cluster.node_ids:
        with connect(cluster, node) as conn:
            resp = conn.request(16, version, **fields)
        assert resp.error_code == 0
        out[node] = resp.groups
    return out


def test_list_groups_each_broker_lists_its_own(cluster: FakeCluster) -> None:
    per_node = list_all(cluster, 3)
    for node, groups in per_node.items():
        for g in groups:
            assert cluster.coordinator_of(g.group_id) == node
    assert sorted(g.group_id for gs in per_node.values() for g in gs) == ["empty", "rebalancing", "stable"]


def test_list_groups_filters(cluster: FakeCluster) -> None:
    by_state = list_all(cluster, 4, states_filter=["stable", "Empty"])
    assert sorted((g.group_id, g.group_state) for gs in by_state.values() for g in gs) == [
        ("empty", "Empty"), ("stable", "Stable")]
    by_type = list_all(cluster, 5, types_filter=["consumer"])
    assert [g for gs in by_type.values() for g in gs] == []
    classic = list_all(cluster, 5, types_filter=["Classic"])
    assert sorted(g.group_id for gs in classic.values() for g in gs) == ["empty", "rebalancing", "stable"]
    assert {g.group_type for gs in classic.values() for g in gs} == {"classic"}


def test_delete_groups() -> None:
    with FakeCluster(brokers=1) as c:
        c.add_group("busy", members=[Member("m")])
        c.add_group("idle")
        c.commit("idle", "t", 0, 5)
        with connect(c, 1) as conn:
            resp = conn.request(42, 2, groups_names=["busy", "idle", "ghost"])
        assert {r.group_id: r.error_code for r in resp.results} == {
            "busy": NonEmptyGroupError.code, "idle": 0, "ghost": GroupIdNotFoundError.code}
        assert set(c.groups) == {"busy"}


def test_delete_groups_wrong_node_and_loading() -> None:
    with FakeCluster(brokers=2) as c:
        c.add_group("g")
        coord = c.coordinator_of("g")
        other = 3 - (coord or 1)
        c.coordinator_loading("g", count=1)
        with connect(c, other) as conn:
            assert conn.request(42, 1, groups_names=["g"]).results[0].error_code == NOT_COORDINATOR
        with connect(c, coord or 1) as conn:
            assert conn.request(42, 0, groups_names=["g"]).results[0].error_code == LOADING
            assert conn.request(42, 0, groups_names=["g"]).results[0].error_code == 0
        assert c.groups == {}


# ---------------------------------------------------------------------------------------------- offsets


def commit_req(group: str, offsets: dict[tuple[str, int], int], generation: int = -1, member: str = "") -> Any:
    R = message_type(8, "request")
    topics: dict[str, list[Any]] = {}
    for (t, p), off in offsets.items():
        topics.setdefault(t, []).append(R.OffsetCommitRequestPartition(
            partition_index=p, committed_offset=off, committed_metadata="m"))
    return R(group_id=group, generation_id_or_member_epoch=generation, member_id=member,
             topics=[R.OffsetCommitRequestTopic(name=t, partitions=ps) for t, ps in topics.items()])


@pytest.mark.parametrize("version", [2, 7, 8, 9])
def test_offset_commit_admin_style_creates_empty_group(version: int) -> None:
    with FakeCluster(brokers=2) as c:
        c.add_topic("t", partitions=2)
        node = c.coordinator_of("new-group") or 1
        with connect(c, node) as conn:
            resp = conn.request(8, version, commit_req("new-group", {("t", 0): 11, ("t", 1): 12, ("x", 0): 1}))
        codes = {(t.name, p.partition_index): p.error_code for t in resp.topics for p in t.partitions}
        assert codes == {("t", 0): 0, ("t", 1): 0, ("x", 0): 3}
        snap = c.groups["new-group"]
        assert snap.state == "Empty" and snap.offsets[("t", 1)].offset == 12
        assert snap.offsets[("t", 0)].metadata == "m"


def test_offset_commit_rules_for_groups_with_members() -> None:
    with FakeCluster(brokers=1) as c:
        c.add_topic("t", partitions=1)
        c.add_group("g", members=[Member("m-1")], generation_id=4)
        with connect(c, 1) as conn:
            def code(**kw: Any) -> int:
                return int(conn.request(8, 7, commit_req("g", {("t", 0): 5}, **kw)).topics[0].partitions[0].error_code)

            assert code() == 25  # UNKNOWN_MEMBER_ID: an admin commit to a live group
            assert code(generation=3, member="m-1") == 22  # ILLEGAL_GENERATION
            assert code(generation=4, member="other") == 25
            assert code(generation=4, member="m-1") == 0
            big = commit_req("g", {("t", 0): 6}, generation=4, member="m-1")
            big.topics[0].partitions[0].committed_metadata = "x" * 5000
            assert conn.request(8, 7, big).topics[0].partitions[0].error_code == 12  # OFFSET_METADATA_TOO_LARGE
        assert c.groups["g"].offsets[("t", 0)].offset == 5


@pytest.mark.parametrize("version", [1, 2, 5, 7])
def test_offset_fetch_single_group(cluster: FakeCluster, version: int) -> None:
    R = message_type(9, "request")
    with connect(cluster, cluster.coordinator_of("empty") or 1) as conn:
        resp = conn.request(9, version, group_id="empty", topics=[
            R.OffsetFetchRequestTopic(name="orders", partition_indexes=[0, 1, 2])])
    parts = {p.partition_index: p for p in resp.topics[0].partitions}
    assert (parts[0].committed_offset, parts[0].metadata) == (7, "meta")
    assert parts[1].committed_offset == 12 and parts[2].committed_offset == -1
    if version >= 5:
        assert parts[1].committed_leader_epoch == 3
    if version >= 2:
        assert resp.error_code == 0


def test_offset_fetch_all_topics_and_errors(cluster: FakeCluster) -> None:
    coord = cluster.coordinator_of("empty") or 1
    other = next(n for n in cluster.node_ids if n != coord)
    with connect(cluster, coord) as conn:
        every = conn.request(9, 7, group_id="empty", topics=None)
    assert [(t.name, [p.partition_index for p in t.partitions]) for t in every.topics] == [("orders", [0, 1])]
    with connect(cluster, other) as conn:
        wrong_v7 = conn.request(9, 7, group_id="empty", topics=None)
        wrong_v1 = conn.request(9, 1, group_id="empty", topics=[
            message_type(9, "request").OffsetFetchRequestTopic(name="orders", partition_indexes=[0])])
    assert wrong_v7.error_code == NOT_COORDINATOR and wrong_v7.topics == []
    assert wrong_v1.topics[0].partitions[0].error_code == NOT_COORDINATOR  # v0-v1: no top-level error


@pytest.mark.parametrize("version", [8, 9])
def test_offset_fetch_batched(version: int) -> None:
    with FakeCluster(brokers=1) as c:
        c.commit("a", "t", 0, 1)
        c.commit("b", "t", 0, 2)
        c.commit("b", "u", 3, 4)
        R = message_type(9, "request")
        with connect(c, 1) as conn:
            resp = conn.request(9, version, groups=[
                R.OffsetFetchRequestGroup(group_id="a", topics=[R.OffsetFetchRequestTopics(name="t",
                                                                                           partition_indexes=[0, 1])]),
                R.OffsetFetchRequestGroup(group_id="b", topics=None),
                R.OffsetFetchRequestGroup(group_id="c", topics=None)])
        got = {g.group_id: {(t.name, p.partition_index): p.committed_offset for t in g.topics for p in t.partitions}
               for g in resp.groups}
        assert got == {"a": {("t", 0): 1, ("t", 1): -1}, "b": {("t", 0): 2, ("u", 3): 4}, "c": {}}
        assert [g.error_code for g in resp.groups] == [0, 0, 0]


def test_offset_fetch_batched_absent_before_3_0() -> None:
    with FakeCluster(brokers=1, versions="2.8") as c, connect(c, 1) as conn:
        conn.send(9, 8, req(9, groups=[]))
        assert conn.is_closed()


@pytest.mark.parametrize("version", [0, 1, 5, 7, 9])
def test_list_offsets_earliest_latest(cluster: FakeCluster, version: int) -> None:
    R = message_type(2, "request")
    leader = cluster.leader_of("orders", 1)
    with connect(cluster, leader) as conn:
        def ask(ts: int) -> Any:
            return conn.request(2, version, replica_id=-1, topics=[R.ListOffsetsTopic(name="orders", partitions=[
                R.ListOffsetsPartition(partition_index=1, timestamp=ts, max_num_offsets=1)])]).topics[0].partitions[0]

        earliest, latest = ask(-2), ask(-1)
    assert earliest.error_code == 0 and latest.error_code == 0
    if version == 0:
        assert (earliest.old_style_offsets, latest.old_style_offsets) == ([5], [20])
    else:
        assert (earliest.offset, latest.offset) == (5, 20)


def test_list_offsets_errors_and_set_log_end() -> None:
    with FakeCluster(brokers=2) as c:
        c.add_topic("t", partitions=1, offsets=3, replication_factor=1)
        leader = c.leader_of("t", 0)
        R = message_type(2, "request")

        def ask(node: int, topic: str = "t") -> int:
            with connect(c, node) as conn:
                p = conn.request(2, 7, replica_id=-1, topics=[R.ListOffsetsTopic(name=topic, partitions=[
                    R.ListOffsetsPartition(partition_index=0, timestamp=-1)])]).topics[0].partitions[0]
            return int(p.offset) if p.error_code == 0 else -1000 - int(p.error_code)

        assert ask(leader) == 3
        c.set_log_end("t", 0, 42)
        assert ask(leader) == 42
        assert c.topics["t"] == {0: (0, 42)}
        assert ask(3 - leader) == -1006  # NOT_LEADER_OR_FOLLOWER
        assert ask(leader, "nope") == -1003  # UNKNOWN_TOPIC_OR_PARTITION


def test_state_api_validation() -> None:
    with FakeCluster(brokers=1) as c:
        with pytest.raises(ValueError, match="unknown group state"):
            c.add_group("g", state="Bogus")
        with pytest.raises(ValueError, match="has no members"):
            c.add_group("g", state="Empty", members=[Member("m")])
        with pytest.raises(ValueError, match="no broker with node id"):
            c.move_coordinator("g", 7)
        with pytest.raises(ValueError, match="no partition"):
            c.set_log_end("nope", 0, 1)
        c.add_topic("t", partitions=1, offsets={0: (5, 9)})
        with pytest.raises(ValueError, match="below log start"):
            c.set_log_end("t", 0, 4)
    with pytest.raises(ValueError, match="unknown node id"):
        FakeCluster(brokers=2, versions={3: "2.8"}, start=False)


# ---------------------------------------------------------------------------------------------- Kafka 4.0 extras


def test_kafka_4_0_versions_beyond_the_shipped_schemas() -> None:
    """A 4.0 broker speaks Metadata v13, DescribeGroups v6 and DescribeCluster v2 to clients that pick them."""
    with FakeCluster(brokers=1, versions="4.0") as c:
        c.add_group("g", members=[Member("m")])
        with connect(c, 1) as conn:
            md = conn.request(3, 13, topics=None)
            groups = conn.request(15, 6, groups=["g", "ghost"]).groups
            dc = conn.request(60, 2, include_fenced_brokers=True)
        assert md.error_code == 0 and [b.node_id for b in md.brokers] == [1]
        assert (groups[0].error_code, groups[0].group_state, groups[0].error_message) == (0, "Stable", None)
        # KIP-1043: from v6 an unknown group is GROUP_ID_NOT_FOUND instead of a Dead group without error.
        assert (groups[1].error_code, groups[1].error_message) == (GroupIdNotFoundError.code, "Group ghost not found.")
        assert dc.error_code == 0 and [(b.broker_id, b.is_fenced) for b in dc.brokers] == [(1, False)]


def test_kafka_4_0_raised_minimums_close_the_connection() -> None:
    with FakeCluster(brokers=1, versions="4.0") as c, connect(c, 1) as conn:
        conn.send(8, 1, commit_req("g", {("t", 0): 1}))  # KIP-896: OffsetCommit starts at v2 in 4.0
        assert conn.is_closed()
