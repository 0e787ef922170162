"""Every cluster operation of issue #26 on the newer presets (Kafka 4.1, 4.2 and 4.3), through one client.

Why: issue #26 is done when every call works on the fake's 2.8, 3.9 and 4.0 presets *and* on the newer presets
of the Kafka 4.3 issue.  The per-area files run 2.8/3.9/4.0 in depth (and some of them 4.3); this file runs
each of the fifteen calls once per newer preset, where the version tables differ (ListTransactions v2 with the
transactional-id pattern filter from 4.1, AddRaftVoter v1 and WriteTxnMarkers v2 from 4.2, DescribeLogDirs v5
on 4.3), with a transaction from confluent-kafka and results read back from the cluster's own state.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from confluent_kafka import Producer

from kadmin import aio
from kadmin.errors import InvalidRequestError, UnsupportedVersionError
from kadmin.features import FeatureUpdate, UpgradeType, release_feature_levels
from kadmin.protocol.apis import ApiKey
from kadmin.replicas import ReplicaLogDirInfo, TopicPartitionReplica
from kadmin.testing import FakeCluster
from kadmin.testing.state.quorum import directory_id
from kadmin.transactions import FencedProducer, TransactionDescription
from kadmin.types import TopicPartition
from tests.support.aio import with_admin as run
from tests.support.transactions import commit_losing_a_marker

pytestmark = pytest.mark.timeout(120)

NEWER = ["4.1", "4.2", "4.3"]


@pytest.fixture(params=NEWER)
def release(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def cluster(release: str) -> Iterator[FakeCluster]:
    with FakeCluster(4, versions=release) as c:
        c.add_topic("t", partitions=3)
        yield c


def test_features_and_quorum_calls(release: str, cluster: FakeCluster) -> None:
    got = run(cluster, lambda a: a.describe_features())
    assert got.level("metadata.version") == release_feature_levels(release)["metadata.version"]
    epoch = got.finalized_epoch
    assert epoch is not None
    # group.version off (a safe downgrade to 0), then on again: applied, read back, one epoch step each.
    assert run(cluster, lambda a: a.update_features(
        {"group.version": FeatureUpdate(0, UpgradeType.SAFE_DOWNGRADE)})) == {"group.version": None}
    assert "group.version" not in cluster.finalized_features()
    assert run(cluster, lambda a: a.update_features({"group.version": FeatureUpdate(1)})) == {"group.version": None}
    after = run(cluster, lambda a: a.describe_features())
    assert after.level("group.version") == 1 and after.finalized_epoch == epoch + 2
    with pytest.raises(ValueError, match="unknown feature"):
        run(cluster, lambda a: a.update_features({"no.such.feature": FeatureUpdate(1)}))

    info = run(cluster, lambda a: a.describe_metadata_quorum())
    controller = cluster.controller
    assert info.leader_id == controller and [v.replica_id for v in info.voters] == [controller]
    observer = next(n for n in cluster.node_ids if n != controller)
    run(cluster, lambda a: a.add_raft_voter(observer, directory_id(observer), ["CONTROLLER://ctl.example:9093"]))
    assert set(cluster.quorum_voters()) == {controller, observer}
    assert cluster.count(ApiKey.ADD_RAFT_VOTER) == 1
    run(cluster, lambda a: a.remove_raft_voter(observer, directory_id(observer)))
    assert cluster.quorum_voters() == {controller: directory_id(controller)}
    with pytest.raises(InvalidRequestError, match="last voter"):
        run(cluster, lambda a: a.remove_raft_voter(controller, directory_id(controller), timeout=20))
    gone = max(cluster.node_ids)
    assert run(cluster, lambda a: a.unregister_broker(gone)) is None
    assert cluster.count(ApiKey.UNREGISTER_BROKER) == 1


def test_replica_log_dir_calls(cluster: FakeCluster) -> None:
    leader = cluster.partition("t", 0).leader
    cluster.set_log_dirs(leader, ["/data/a", "/data/b"])
    cluster.add_topic("moving", partitions=1, replication_factor=1)
    broker = cluster.partition("moving", 0).leader
    cluster.set_log_dirs(broker, ["/data/a", "/data/b"])
    replica = TopicPartitionReplica("moving", 0, broker)
    assert run(cluster, lambda a: a.alter_replica_log_dirs({replica: "/data/b"})) == {replica: None}
    where = run(cluster, lambda a: a.describe_replica_log_dirs([replica]))[replica]
    assert isinstance(where, ReplicaLogDirInfo) and where.current_dir == "/data/b" and where.future_dir is None


def test_transaction_calls(cluster: FakeCluster) -> None:
    open_tx = Producer({"bootstrap.servers": cluster.bootstrap, "transactional.id": "app-open"})
    open_tx.init_transactions(10)
    open_tx.begin_transaction()
    open_tx.produce("t", value=b"open", partition=0)
    assert open_tx.flush(10) == 0
    commit_losing_a_marker(cluster, "other-lossy", {1: b"lost"}, lost=1)
    assert cluster.last_stable_offset("t", 1) == 0  # its commit marker never came: hanging

    async def reads(admin: aio.AdminClient) -> tuple[Any, ...]:
        return (await admin.describe_producers([("t", 0), ("t", 1)]),
                await admin.list_transactions(transactional_id_pattern="app-.*"),
                await admin.describe_transactions(["app-open", "nobody"]),
                await admin.find_hanging_transactions(topics=["t"], max_transaction_timeout_ms=0))

    cluster.clear_log()
    producers, listed, described, hanging = run(cluster, reads)
    assert [s.current_transaction_start_offset for s in producers[("t", 0)]] == [0]
    # The pattern filter is carried by ListTransactions v2 (Kafka 4.1+) to every broker, none refuses it.
    assert [(t.transactional_id, t.state) for t in listed.transactions] == [("app-open", "Ongoing")]
    assert listed.errors == {}
    assert {e.version for e in cluster.request_log if e.api_key == ApiKey.LIST_TRANSACTIONS} == {2}
    d = described["app-open"]
    assert isinstance(d, TransactionDescription) and d.partitions == (TopicPartition("t", 0),)
    assert type(described["nobody"]).__name__ == "TransactionalIdNotFoundError"
    # The open transaction is held by its coordinator: not hanging; the lost marker's is.
    assert [(h.partition, h.transactional_id) for h in hanging.hanging] == [(TopicPartition("t", 1), "other-lossy")]
    assert run(cluster, lambda a: a.abort_transaction(hanging.hanging[0].abort_spec())) == {
        TopicPartition("t", 1): None}
    assert cluster.last_stable_offset("t", 1) == cluster.partition("t", 1).log_end

    fenced = run(cluster, lambda a: a.fence_producers(["app-open"]))["app-open"]
    assert isinstance(fenced, FencedProducer) and fenced.producer_epoch >= 1
    assert cluster.last_stable_offset("t", 0) == cluster.partition("t", 0).log_end  # its transaction aborted
    # KIP-939 needs InitProducerId v6, which none of these presets advertises: refused, nothing sent.
    cluster.clear_log()
    terminated = run(cluster, lambda a: a.force_terminate_transaction("app-open"))
    assert isinstance(terminated, UnsupportedVersionError) and "v6" in str(terminated)
    assert cluster.count(ApiKey.INIT_PRODUCER_ID) == 0
