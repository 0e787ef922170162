"""Issue #25's calls on each of the fake's 4.1, 4.2 and 4.3 presets and on a mixed 3.9 + 4.3 cluster, in one
matrix (issue #25: "tests on the fake's 4.1/4.2/4.3 presets and on a mixed 3.9 + 4.3 cluster for every call").

The per-call files (test_share_groups_fake, test_streams_groups_fake, test_new_version_options_fake,
tests/protocol/test_client_versions) test each call in depth, but each on some of the four setups only; here
every call runs on all four.  Every cluster has two brokers; in the mixed one node 1 is the 3.9 broker and
node 2 the 4.3 one, and each group is placed on one node (group ``*-1`` on node 1, ``*-2`` on node 2), so a
call answers per group by the release of that group's coordinator.  What a node lacks is read from its
advertised table (kadmin.versions), never assumed: such a group fails with UnsupportedVersionError naming the
release, and the request log shows that nothing of it reached that node.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kadmin.admin.partitions import ListedOffset, OffsetSpec
from kadmin.client import AdminClient
from kadmin.configs import ConfigResource, ConfigResourceType
from kadmin.errors import (
    ErrorCode,
    GroupIdNotFoundError,
    KafkaError,
    UnsupportedVersionError,
)
from kadmin.offset_reset import PartitionReset
from kadmin.protocol.apis import ApiKey
from kadmin.share_groups import SharePartitionOffset
from kadmin.streams_groups import StreamsGroupDescription
from kadmin.testing import FakeCluster
from kadmin.types import GroupDescription, OffsetAndMetadata, TopicPartition
from tests.support.settings import FAST

pytestmark = pytest.mark.timeout(120)

SETUPS: dict[str, dict[int, str]] = {
    "4.1": {1: "4.1", 2: "4.1"},
    "4.2": {1: "4.2", 2: "4.2"},
    "4.3": {1: "4.3", 2: "4.3"},
    "3.9+4.3": {1: "3.9", 2: "4.3"},
}
NODES = (1, 2)
SHARE_KEYS = {ApiKey.SHARE_GROUP_DESCRIBE, ApiKey.DESCRIBE_SHARE_GROUP_OFFSETS, ApiKey.ALTER_SHARE_GROUP_OFFSETS,
              ApiKey.DELETE_SHARE_GROUP_OFFSETS}
TP0 = TopicPartition("orders", 0)


@pytest.fixture(params=list(SETUPS))
def cluster(request: pytest.FixtureRequest) -> Iterator[FakeCluster]:
    with FakeCluster(brokers=2, versions=SETUPS[request.param]) as c:
        c.add_topic("orders", 2, offsets={0: (0, 30), 1: (10, 30)}, replication_factor=1)
        yield c


@pytest.fixture
def admin(cluster: FakeCluster) -> Iterator[AdminClient]:
    with AdminClient(cluster.bootstrap, **FAST) as a:
        yield a


def top(c: FakeCluster, node: int, key: ApiKey) -> int | None:
    """The highest version of ``key`` that ``node`` advertises, None if it has none."""
    rng = c.versions_of(node).get(key)
    return None if rng is None else rng[1]


def sent_to(c: FakeCluster, node: int, keys: set[ApiKey]) -> set[int]:
    return {e.api_key for e in c.request_log if e.node_id == node and e.api_key in keys}


def refused(got: object, release: str) -> bool:
    return isinstance(got, UnsupportedVersionError) and f"Kafka {release}" in str(got)


# --- share groups ----------------------------------------------------------------------------------------------


def test_share_group_calls(cluster: FakeCluster, admin: AdminClient) -> None:
    c = cluster
    has = {n: top(c, n, ApiKey.DESCRIBE_SHARE_GROUP_OFFSETS) is not None for n in NODES}
    for n in NODES:
        c.move_coordinator(f"sg-{n}", n)
        if has[n]:
            c.set_share_offsets(f"sg-{n}", {("orders", 0): 12})
    c.clear_log()
    groups = [f"sg-{n}" for n in NODES]
    described = admin.describe_share_groups(groups)
    listed = admin.list_share_group_offsets(groups)
    for n in NODES:
        g = f"sg-{n}"
        if not has[n]:
            assert refused(described[g], "4.1") and refused(listed[g], "4.1"), (described[g], listed[g])
            with pytest.raises(UnsupportedVersionError, match="Kafka 4.1"):
                admin.reset_share_group_offsets(g, ["orders"], "earliest")
            assert refused(admin.alter_share_group_offsets(g, {TP0: 1})[TP0], "4.1")
            assert refused(admin.delete_share_group_offsets(g, ["orders"])["orders"], "4.1")
            # DeleteGroups is old: the 3.9 coordinator is asked, and knows no such group.
            assert isinstance(admin.delete_share_groups([g])[g], GroupIdNotFoundError)
            assert sent_to(c, n, SHARE_KEYS) == set()
            continue
        d = described[g]
        assert isinstance(d, GroupDescription) and (d.state, d.group_type) == ("Empty", "share")
        lag = None if top(c, n, ApiKey.DESCRIBE_SHARE_GROUP_OFFSETS) == 0 else 18  # the lag: v1, Kafka 4.2
        assert listed[g] == {TP0: SharePartitionOffset(12, 0, lag)}
        before = c.count(ApiKey.ALTER_SHARE_GROUP_OFFSETS)
        plan = admin.reset_share_group_offsets(g, ["orders"], "earliest")
        assert plan.dry_run and plan.partitions[TP0] == PartitionReset(12, 0, 0, 30, 0)
        assert c.count(ApiKey.ALTER_SHARE_GROUP_OFFSETS) == before  # the dry run wrote nothing
        done = admin.reset_share_group_offsets(g, ["orders"], "earliest", dry_run=False)
        assert done.complete and {k: v.start_offset for k, v in c.share_offsets(g).items()} == {
            ("orders", 0): 0, ("orders", 1): 10}
        assert admin.alter_share_group_offsets(g, {TP0: 5}) == {TP0: None}
        assert c.share_offsets(g)[("orders", 0)].start_offset == 5
        assert admin.delete_share_group_offsets(g, ["orders"]) == {"orders": None}
        assert c.share_offsets(g) == {}
        assert admin.delete_share_groups([g]) == {g: None} and g not in c.groups
    share_listed = admin.list_groups(types=["share"])
    assert share_listed.complete and not share_listed.errors


# --- streams groups, list_groups by type and state, classic and consumer groups --------------------------------


def test_streams_group_calls(cluster: FakeCluster, admin: AdminClient) -> None:
    c = cluster
    for n in NODES:
        c.move_coordinator(f"app-{n}", n)
        c.add_streams_group(f"app-{n}")
        c.commit(f"app-{n}", "orders", 0, 7)
        c.move_coordinator(f"gone-{n}", n)
        c.add_streams_group(f"gone-{n}")
    c.clear_log()
    apps = [f"app-{n}" for n in NODES]
    described = admin.describe_streams_groups(apps)
    offsets = admin.list_streams_group_offsets(apps)
    deleted = admin.delete_streams_groups([f"gone-{n}" for n in NODES])
    for n in NODES:
        app = f"app-{n}"
        # Committed offsets and deletion go through the consumer-group APIs (OffsetFetch, DeleteGroups), which
        # every release speaks: answered on each.
        assert offsets[app] == {TP0: OffsetAndMetadata(7, "", None)}, offsets[app]
        assert deleted[f"gone-{n}"] is None and f"gone-{n}" not in c.groups
        if top(c, n, ApiKey.STREAMS_GROUP_DESCRIBE) is None:  # 4.1 (early access only) and 3.9
            # Refused per group, unsent, naming the release that adds streams groups (as the share calls do).
            assert refused(described[app], "4.2") and "StreamsGroupDescribe" in str(described[app]), described[app]
            assert sent_to(c, n, {ApiKey.STREAMS_GROUP_DESCRIBE}) == set()
        else:
            d = described[app]
            assert isinstance(d, StreamsGroupDescription) and d.state == "Empty" and d.group_id == app
    listed = admin.list_groups(types=["streams"], states=["empty"])
    assert listed.complete and listed.group_ids() == apps


def test_groups_of_every_type_listed_and_classic_and_consumer_groups_described(cluster: FakeCluster,
                                                                                admin: AdminClient) -> None:
    c = cluster
    for n in NODES:
        c.move_coordinator(f"classic-{n}", n)
        c.add_group(f"classic-{n}")
        c.move_coordinator(f"kip848-{n}", n)
        c.add_group(f"kip848-{n}", group_type="consumer", members=[{"member_id": f"c{n}", "assigned": [("orders", 0)]}])
    every = admin.list_groups()
    assert every.complete
    types = {g.group_id: g.group_type for g in every.groups}
    assert {f"classic-{n}": "classic" for n in NODES}.items() <= types.items()
    assert {f"kip848-{n}": "consumer" for n in NODES}.items() <= types.items()
    assert admin.list_groups(types=["classic"]).group_ids() == ["classic-1", "classic-2"]
    assert admin.list_groups(types=["consumer"], states=["stable"]).group_ids() == ["kip848-1", "kip848-2"]
    classic = admin.describe_classic_groups(["classic-1", "classic-2", "kip848-1", "kip848-2"])
    consumer = admin.describe_consumer_groups(["kip848-1", "kip848-2"])
    for n in NODES:
        got = classic[f"classic-{n}"]
        assert isinstance(got, GroupDescription) and got.group_type == "classic"
        assert isinstance(classic[f"kip848-{n}"], GroupIdNotFoundError)
        kip = consumer[f"kip848-{n}"]
        assert isinstance(kip, GroupDescription) and kip.group_type == "consumer"
        assert [m.member_id for m in kip.members] == [f"c{n}"]
        # ConsumerGroupDescribe v1 (Kafka 4.0) says each member's type; v0 (3.9) cannot.
        v1 = (top(c, n, ApiKey.CONSUMER_GROUP_DESCRIBE) or 0) >= 1
        assert [m.member_type for m in kip.members] == ["consumer" if v1 else None], (n, kip.members)
    for n in NODES:  # DescribeGroups v6 (GROUP_ID_NOT_FOUND for unknown groups) where the node has it
        if top(c, n, ApiKey.DESCRIBE_GROUPS) == 6:
            assert c.count(ApiKey.DESCRIBE_GROUPS, node=n, version=6) >= 1


# --- the small new-version options, rebootstrap ----------------------------------------------------------------


def test_fenced_brokers_from_a_node_that_can_list_them(cluster: FakeCluster, admin: AdminClient) -> None:
    """DescribeCluster v2 (KIP-1073, Kafka 4.0): every setup has a node with it, so the call is answered; in the
    mixed cluster by the 4.3 node, not the least loaded 3.9 one (which would refuse it)."""
    c = cluster
    c.clear_log()
    desc = admin.describe_cluster(include_fenced_brokers=True)
    assert [b.node_id for b in desc.nodes] == [1, 2] and desc.fenced_brokers == frozenset()
    asked = [(e.node_id, e.version) for e in c.request_log if e.api_key == ApiKey.DESCRIBE_CLUSTER]
    assert asked and all(v >= 2 for _n, v in asked), asked
    assert all((top(c, n, ApiKey.DESCRIBE_CLUSTER) or 0) >= 2 for n, _v in asked)


def test_cordoned_log_dirs_where_the_broker_says(cluster: FakeCluster, admin: AdminClient) -> None:
    """DescribeLogDirs v5 (KIP-1066, Kafka 4.3) says whether a directory is cordoned; before it, None."""
    c = cluster
    dirs = admin.describe_log_dirs(list(NODES))
    for n in NODES:
        by_dir = dirs[n]
        assert not isinstance(by_dir, KafkaError), by_dir
        want = False if (top(c, n, ApiKey.DESCRIBE_LOG_DIRS) or 0) >= 5 else None
        assert {d.is_cordoned for d in by_dir.values()} == {want}, (n, by_dir)


def test_replication_factor_change_refused_by_the_controller_or_unsent(cluster: FakeCluster,
                                                                      admin: AdminClient) -> None:
    """AlterPartitionReassignments v1 (KIP-860, Kafka 4.1) on the controller: with it, the controller refuses
    the factor change; without it (the 3.9 controller), the move is refused unsent.  Nothing moves."""
    c = cluster
    v1 = (top(c, c.controller, ApiKey.ALTER_PARTITION_REASSIGNMENTS) or 0) >= 1
    c.clear_log()
    moved = admin.alter_partition_reassignments({("orders", 0): [1, 2]}, allow_replication_factor_change=False)
    got = moved[("orders", 0)]
    if v1:
        assert isinstance(got, KafkaError) and got.code == ErrorCode.INVALID_REPLICATION_FACTOR, got
        assert c.count(ApiKey.ALTER_PARTITION_REASSIGNMENTS, version=1) == 1
    else:
        assert isinstance(got, UnsupportedVersionError) and "KIP-860" in str(got), got
        assert c.count(ApiKey.ALTER_PARTITION_REASSIGNMENTS) == 0
    assert len(c.replicas("orders")[0]) == 1


def test_earliest_pending_upload_per_partition_leader(cluster: FakeCluster, admin: AdminClient) -> None:
    """ListOffsets v11 (KIP-1023, Kafka 4.2), asked of each partition's leader."""
    c = cluster
    leaders = {p: r[0] for p, r in c.replicas("orders").items()}
    got = admin.list_offsets({("orders", p): OffsetSpec.earliest_pending_upload() for p in leaders})
    for p, leader in leaders.items():
        one = got[("orders", p)]
        if (top(c, leader, ApiKey.LIST_OFFSETS) or 0) >= 11:
            assert isinstance(one, ListedOffset) and one.offset == -1, (p, one)  # nothing tiered
        else:
            assert isinstance(one, UnsupportedVersionError) and "v11+" in str(one), (p, one)


def test_config_resources_listed_by_a_node_that_lists_them(cluster: FakeCluster, admin: AdminClient) -> None:
    """ListConfigResources v1 (KIP-1142, Kafka 4.1) lists groups; the 3.9 node has no such API, so in the
    mixed cluster the 4.3 node is asked."""
    c = cluster
    c.set_resource_config(ConfigResourceType.GROUP, "configured", "consumer.session.timeout.ms", "50000")
    c.clear_log()
    assert admin.list_config_resources(["groups"]) == [ConfigResource(ConfigResourceType.GROUP, "configured")]
    every = admin.list_config_resources()
    assert ConfigResource(ConfigResourceType.TOPIC, "orders") in every
    asked = {(e.node_id, e.version) for e in c.request_log if e.api_key == ApiKey.LIST_CONFIG_RESOURCES}
    assert asked and all(v == 1 for _n, v in asked), asked


def test_rebootstrap_required_is_followed(cluster: FakeCluster, admin: AdminClient) -> None:
    """KIP-1102: Metadata v13 (every 4.x node) answering REBOOTSTRAP_REQUIRED sends the client back to its
    bootstrap addresses, and the call is answered."""
    c = cluster
    modern = [n for n in NODES if (top(c, n, ApiKey.METADATA) or 0) >= 13]
    assert modern
    before = admin._aio.net.rebootstraps
    for n in modern:
        c.inject(n, ApiKey.METADATA, ErrorCode.REBOOTSTRAP_REQUIRED, count=1)
    c.clear_log()
    assert [t.name for t in admin.list_topics()] == ["orders"]
    v13 = [e for e in c.request_log if e.api_key == ApiKey.METADATA and e.version >= 13]
    if v13:  # a 4.x node was asked, and answered REBOOTSTRAP_REQUIRED first
        assert admin._aio.net.rebootstraps > before


# --- kadmin api-versions on the 4.3 preset; bad group types and states ---------------------------------------

#: Issue #25's new keys and the keys whose newer versions it reads.
NEW_OR_BUMPED = (ApiKey.LIST_CONFIG_RESOURCES, ApiKey.SHARE_GROUP_DESCRIBE, ApiKey.STREAMS_GROUP_DESCRIBE,
                 ApiKey.DESCRIBE_SHARE_GROUP_OFFSETS, ApiKey.ALTER_SHARE_GROUP_OFFSETS,
                 ApiKey.DELETE_SHARE_GROUP_OFFSETS, ApiKey.DESCRIBE_GROUPS, ApiKey.CONSUMER_GROUP_DESCRIBE,
                 ApiKey.METADATA, ApiKey.DESCRIBE_CLUSTER, ApiKey.DESCRIBE_LOG_DIRS,
                 ApiKey.ALTER_PARTITION_REASSIGNMENTS, ApiKey.LIST_OFFSETS)


def test_cli_api_versions_on_the_4_3_preset_lists_the_new_keys_with_kadmins_ranges() -> None:
    """The fake's 4.3 preset itself (test_client_versions checks these keys on a recorded 4.3.1 broker's table,
    and on the preset only some): each new or bumped key with the node's range, kadmin's and the one used."""
    from kadmin.protocol.client_versions import client_range
    from kadmin.versions import RELEASES
    from tests.support.cli import run_cli

    with FakeCluster(brokers=1, versions="4.3") as c:
        r = run_cli("-b", c.bootstrap, "-o", "json", "api-versions")
    assert r.code == 0, r.err
    (node,) = r.json()["nodes"]
    assert node["release_guess"] == "4.3"
    apis = {a["name"]: a for a in node["apis"]}
    for key in NEW_OR_BUMPED:
        lo, hi = RELEASES["4.3"][key]
        ours = client_range(key)
        assert ours is not None, key
        row = apis[key.kafka_name]
        assert (row["node_min"], row["node_max"], row["kadmin_min"], row["kadmin_max"]) == (lo, hi, *ours), row
        assert row["negotiated"] == min(hi, ours[1]), row
    # The versions that change what users see are the ones used (issue #25's list).
    used = {k: apis[k.kafka_name]["negotiated"] for k in NEW_OR_BUMPED}
    assert used[ApiKey.DESCRIBE_GROUPS] == 6 and used[ApiKey.CONSUMER_GROUP_DESCRIBE] == 1
    assert used[ApiKey.METADATA] == 13 and used[ApiKey.DESCRIBE_CLUSTER] == 2 and used[ApiKey.DESCRIBE_LOG_DIRS] == 5
    assert used[ApiKey.ALTER_PARTITION_REASSIGNMENTS] == 1 and used[ApiKey.LIST_OFFSETS] == 11
    assert used[ApiKey.LIST_CONFIG_RESOURCES] == 1 and used[ApiKey.SHARE_GROUP_DESCRIBE] == 1
    assert used[ApiKey.DESCRIBE_SHARE_GROUP_OFFSETS] == 1


@pytest.mark.parametrize("call", ["list_groups", "list_consumer_groups"])
def test_unknown_group_types_and_states_name_the_valid_ones_before_any_io(call: str) -> None:
    from kadmin.types import GROUP_STATES, GROUP_TYPES

    with FakeCluster(brokers=1, versions="4.3") as c, AdminClient(c.bootstrap, **FAST) as a:
        c.clear_log()
        with pytest.raises(ValueError) as bad_state:
            getattr(a, call)(states=["Stable", "Sleepy"])
        with pytest.raises(ValueError) as bad_type:
            getattr(a, call)(types=["share", "kstreams"])
        assert c.request_log == []
    assert "'Sleepy'" in str(bad_state.value) and all(s in str(bad_state.value) for s in GROUP_STATES)
    assert "'kstreams'" in str(bad_type.value) and all(t in str(bad_type.value) for t in GROUP_TYPES)
