"""The small new-version options of issue #25, each refused before sending where the node is too old:
describe_cluster(include_fenced_brokers=True) (DescribeCluster v2, KIP-1073),
alter_partition_reassignments(allow_replication_factor_change=False) (v1, KIP-860),
OffsetSpec.earliest_pending_upload() (ListOffsets v11, KIP-1023) and list_config_resources(types=...)
(ListConfigResources v0/v1, KIP-1142), on the fake's 4.x presets, older ones and a mixed 3.9 + 4.3 cluster.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from kadmin.admin.partitions import ListedOffset, OffsetSpec
from kadmin.aio import AdminClient
from kadmin.configs import ConfigResource, ConfigResourceType
from kadmin.errors import (
    InvalidReplicationFactorError,
    NoReassignmentInProgressError,
    UnsupportedVersionError,
)
from kadmin.testing import FakeCluster
from tests.support.cli import run_main

pytestmark = pytest.mark.timeout(60)

DESCRIBE_CLUSTER, ALTER_REASSIGNMENTS, LIST_OFFSETS, LIST_CONFIG_RESOURCES = 60, 45, 2, 74
FAST: dict[str, Any] = {"default_timeout_s": 10.0, "retry_backoff_s": 0.05}


def _run(c: FakeCluster, fn: Any) -> Any:
    async def go() -> Any:
        async with AdminClient(c.bootstrap, **FAST) as admin:
            return await fn(admin)
    return asyncio.run(go())


# --- describe_cluster(include_fenced_brokers=True) ------------------------------------------------------------


def test_fenced_brokers_listed_when_asked_on_4_3() -> None:
    with FakeCluster(brokers=3, versions="4.3") as c:
        c.stop_broker(3)
        plain = _run(c, lambda a: a.describe_cluster())
        fenced = _run(c, lambda a: a.describe_cluster(include_fenced_brokers=True))
    assert [n.node_id for n in plain.nodes] == [1, 2] and plain.fenced_brokers == frozenset()
    assert [n.node_id for n in fenced.nodes] == [1, 2, 3] and fenced.fenced_brokers == {3}
    asked = [e for e in c.request_log if e.api_key == DESCRIBE_CLUSTER]
    assert {e.version for e in asked} == {2}


def test_fenced_brokers_refused_before_kafka_4_0() -> None:
    with FakeCluster(brokers=2, versions="3.9") as c:
        with pytest.raises(UnsupportedVersionError, match="fenced brokers.*DescribeCluster v2"):
            _run(c, lambda a: a.describe_cluster(include_fenced_brokers=True))
        # The Metadata fallback (brokers before 2.8) is not taken either: it would list live brokers only.
        assert c.count(3) == 0


# --- alter_partition_reassignments(allow_replication_factor_change=...) --------------------------------------


@pytest.mark.parametrize("release", ["4.1", "4.3"])
def test_replication_factor_change_refused_when_not_allowed(release: str) -> None:
    with FakeCluster(brokers=4, versions=release) as c:
        c.add_topic("t", 3, replication_factor=3)
        got = _run(c, lambda a: a.alter_partition_reassignments(
            {("t", 0): [1, 2], ("t", 1): [4, 1, 2], ("t", 2): None}, allow_replication_factor_change=False))
        assert isinstance(got[("t", 0)], InvalidReplicationFactorError)
        assert "changed from 3 to 2" in str(got[("t", 0)])
        assert got[("t", 1)] is None  # same size: a move, allowed
        assert isinstance(got[("t", 2)], NoReassignmentInProgressError)  # a cancel travels regardless
        assert len(c.replicas("t")[0]) == 3
        # The default (Kafka's too) lets the factor change.
        again = _run(c, lambda a: a.alter_partition_reassignments({("t", 0): [1, 2]}))
        assert again[("t", 0)] is None
        sent = [e for e in c.request_log if e.api_key == ALTER_REASSIGNMENTS]
        assert {e.version for e in sent} == {1}


def test_replication_factor_flag_refused_per_move_on_an_old_controller() -> None:
    with FakeCluster(brokers=3, versions="3.9") as c:
        c.add_topic("t", 2, replication_factor=2)
        got = _run(c, lambda a: a.alter_partition_reassignments(
            {("t", 0): [1, 2, 3], ("t", 1): None}, allow_replication_factor_change=False))
        assert isinstance(got[("t", 0)], UnsupportedVersionError)
        assert "KIP-860" in str(got[("t", 0)]) and "v1+" in str(got[("t", 0)])
        assert isinstance(got[("t", 1)], NoReassignmentInProgressError)  # sent at v0, answered
        sent = [e for e in c.request_log if e.api_key == ALTER_REASSIGNMENTS]
        assert [e.keys for e in sent] == [("t-1",)]
        assert len(c.replicas("t")[0]) == 2


# --- OffsetSpec.earliest_pending_upload() ---------------------------------------------------------------------


@pytest.mark.parametrize("release, served", [("4.1", False), ("4.2", True), ("4.3", True)])
def test_earliest_pending_upload(release: str, served: bool) -> None:
    with FakeCluster(brokers=2, versions=release) as c:
        c.add_topic("t", 2, offsets=50)
        specs = {("t", 0): OffsetSpec.earliest_pending_upload(), ("t", 1): OffsetSpec.latest()}
        got = _run(c, lambda a: a.list_offsets(specs))
    assert got[("t", 1)] == ListedOffset(50, None, got[("t", 1)].leader_epoch)
    if served:
        assert isinstance(got[("t", 0)], ListedOffset) and got[("t", 0)].offset == -1  # nothing tiered
        assert {e.version for e in c.request_log if e.api_key == LIST_OFFSETS} == {11}
    else:
        assert isinstance(got[("t", 0)], UnsupportedVersionError)
        assert "earliest_pending_upload" in str(got[("t", 0)]) and "v11+" in str(got[("t", 0)])
        assert all("t-0" not in " ".join(e.keys) for e in c.request_log if e.api_key == LIST_OFFSETS)


def test_earliest_pending_upload_on_a_mixed_3_9_and_4_3_cluster() -> None:
    with FakeCluster(brokers=2, versions={1: "3.9", 2: "4.3"}) as c:
        c.add_topic("t", 4, offsets=10, replication_factor=1)
        leaders = {p: r[0] for p, r in c.replicas("t").items()}
        got = _run(c, lambda a: a.list_offsets({("t", p): OffsetSpec.earliest_pending_upload() for p in range(4)}))
    for p, leader in leaders.items():
        if leader == 1:
            assert isinstance(got[("t", p)], UnsupportedVersionError), p
        else:
            assert got[("t", p)].offset == -1, p
    assert {1, 2} == set(leaders.values())


# --- list_config_resources(types=...) ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def c43() -> Iterator[FakeCluster]:
    with FakeCluster(brokers=2, versions="4.3") as c:
        c.add_topic("orders", 1)
        c.add_group("live-group")
        c.set_resource_config(ConfigResourceType.GROUP, "configured-only", "consumer.session.timeout.ms", "50000")
        c.set_resource_config(ConfigResourceType.CLIENT_METRICS, "sub-a", "metrics", "org.apache.kafka.")
        c.set_resource_config(ConfigResourceType.CLIENT_METRICS, "sub-b", "interval.ms", "1000")
        yield c


def test_list_config_resources_by_type_on_4_3(c43: FakeCluster) -> None:
    every = _run(c43, lambda a: a.list_config_resources())
    groups = _run(c43, lambda a: a.list_config_resources(["groups"]))
    metrics = _run(c43, lambda a: a.list_config_resources([ConfigResourceType.CLIENT_METRICS]))
    G, M = ConfigResourceType.GROUP, ConfigResourceType.CLIENT_METRICS
    assert groups == [ConfigResource(G, "configured-only"), ConfigResource(G, "live-group")]
    assert metrics == [ConfigResource(M, "sub-a"), ConfigResource(M, "sub-b")]
    assert set(groups) | set(metrics) | {ConfigResource(ConfigResourceType.TOPIC, "orders"),
                                         ConfigResource(ConfigResourceType.BROKER, "1")} <= set(every)
    assert {e.version for e in c43.request_log if e.api_key == LIST_CONFIG_RESOURCES} == {1}


def test_list_config_resources_on_a_v0_broker() -> None:
    with FakeCluster(brokers=1, versions="4.0") as c:
        c.set_resource_config(ConfigResourceType.CLIENT_METRICS, "sub-a", "metrics", "org.apache.kafka.")
        got = _run(c, lambda a: a.list_config_resources(["client-metrics"]))
        assert got == [ConfigResource(ConfigResourceType.CLIENT_METRICS, "sub-a")]
        c.clear_log()
        with pytest.raises(UnsupportedVersionError, match="ListConfigResources v1.*Kafka 4.1"):
            _run(c, lambda a: a.list_config_resources(["groups", "client-metrics"]))
        with pytest.raises(UnsupportedVersionError, match="every resource type"):
            _run(c, lambda a: a.list_config_resources())
        assert c.count(LIST_CONFIG_RESOURCES) == 0


def test_list_config_resources_bad_types_refused_before_io(c43: FakeCluster) -> None:
    c43.clear_log()
    with pytest.raises(ValueError, match="unknown config resource type 'queues'"):
        _run(c43, lambda a: a.list_config_resources(["queues"]))
    with pytest.raises(TypeError, match="not a single value"):
        _run(c43, lambda a: a.list_config_resources("groups"))
    assert c43.count(LIST_CONFIG_RESOURCES) == 0


def test_configs_describe_without_a_name_lists_client_metrics_and_groups(c43: FakeCluster) -> None:
    r = run_main("configs", "describe", "--entity-type", "client-metrics", "-b", c43.bootstrap, "-o", "json")
    assert r.code == 0, r.err
    items = {x["entity_name"]: x for x in r.json()["resources"]}
    assert set(items) == {"sub-a", "sub-b"}
    assert {c["name"]: c["value"] for c in items["sub-b"]["configs"]} == {"interval.ms": "1000"}
    r = run_main("configs", "describe", "--entity-type", "groups", "-b", c43.bootstrap, "-o", "json")
    assert r.code == 0, r.err
    # A group with configs but no members is listed (KIP-1142), which ListGroups alone would miss.
    assert [x["entity_name"] for x in r.json()["resources"]] == ["configured-only", "live-group"]


def test_mixed_3_9_and_4_3_list_topics_and_offsets_still_work() -> None:
    """Metadata v13 to the 4.3 node, v12 to the 3.9 one: both read."""
    with FakeCluster(brokers=2, versions={1: "3.9", 2: "4.3"}) as c:
        c.add_topic("t", 2, offsets=5)
        topics = _run(c, lambda a: a.list_topics())
        ends = _run(c, lambda a: a.list_offsets({("t", 0): "latest", ("t", 1): "latest"}))
    assert [t.name for t in topics] == ["t"]
    assert {k: v.offset for k, v in ends.items()} == {("t", 0): 5, ("t", 1): 5}
    by_node = {n: {e.version for e in c.request_log if e.api_key == 3 and e.node_id == n} for n in (1, 2)}
    assert by_node[1] <= {12} and by_node[2] <= {13} and by_node[1] | by_node[2]


def test_a_reassignment_whose_answer_is_lost_is_possibly_applied() -> None:
    from kadmin.errors import KafkaTimeoutError

    with FakeCluster(brokers=4, versions="4.3") as c:
        c.add_topic("t", 1, replication_factor=3)
        c.drop_connection(None, ALTER_REASSIGNMENTS, when="after")
        got = _run(c, lambda a: a.alter_partition_reassignments({("t", 0): [4, 1, 2]},
                                                                allow_replication_factor_change=False, timeout=5.0))
        r = got[("t", 0)]
        # Applied (the move started) and unanswered: either the resend's answer (None: same target again) or
        # in doubt; never a failure while the move is under way on the cluster.
        assert r is None or (isinstance(r, KafkaTimeoutError) and r.possibly_applied), r
        assert 4 in c.replicas("t")[0]


def test_cli_reassignments_alter_disallow_replication_factor_change() -> None:
    with FakeCluster(brokers=4, versions="4.3") as c:
        c.add_topic("t", 2, replication_factor=3)
        r = run_main("reassignments", "alter", "t:0=1,2", "t:1=4,1,2", "--disallow-replication-factor-change",
                     "--yes", "-b", c.bootstrap)
        assert r.code == 1, (r.out, r.err)
        assert "t-0" in r.err and "INVALID_REPLICATION_FACTOR" in r.err
        assert len(c.replicas("t")[0]) == 3 and 4 in c.replicas("t")[1]
