"""The issue #26 operations against the third-party peers: Tansu and librdkafka's mock cluster.

Why: neither peer serves DescribeQuorum, UpdateFeatures, AddRaftVoter/RemoveRaftVoter, UnregisterBroker,
AlterReplicaLogDirs or DescribeLogDirs, and neither reports features in ApiVersions (Tansu answers v3+ with
none; the mock speaks ApiVersions up to v2).  kadmin must say so plainly: an empty feature list, a feature update
refused before sending, one UnsupportedVersionError for the quorum calls (exit 2 in the CLI), and the replica
calls failing per replica, unsent.  These tests fail if a peer release starts serving one of them, which is
when kadmin should be tested against it for real.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

import pytest

from kadmin.aio import AdminClient
from kadmin.errors import UnsupportedVersionError
from kadmin.features import FeatureUpdate
from kadmin.protocol.apis import ApiKey
from tests.support import peers
from tests.support.cli import run_cli
from tests.support.peers import RunningBroker

T = TypeVar("T")
CLUSTER_OPS = (ApiKey.ALTER_REPLICA_LOG_DIRS, ApiKey.DESCRIBE_LOG_DIRS, ApiKey.DESCRIBE_QUORUM,
               ApiKey.UPDATE_FEATURES, ApiKey.UNREGISTER_BROKER, ApiKey.ADD_RAFT_VOTER, ApiKey.REMOVE_RAFT_VOTER)


def run(bootstrap: str, body: Callable[[AdminClient], Awaitable[T]]) -> T:
    async def go() -> T:
        async with AdminClient(bootstrap, default_timeout_s=15) as admin:
            return await body(admin)
    return asyncio.run(go())


@pytest.fixture(params=["tansu", "rdkafka_mock"])
def peer(request: pytest.FixtureRequest) -> RunningBroker:
    return request.getfixturevalue(request.param)  # type: ignore[no-any-return]


def _address(broker: RunningBroker) -> tuple[str, int]:
    host, port = broker.bootstrap.split(",")[0].rsplit(":", 1)
    return host, int(port)


def test_peers_serve_none_of_the_cluster_operations(peer: RunningBroker) -> None:
    table = peers.api_versions(_address(peer))
    assert not set(CLUSTER_OPS) & set(table), sorted(set(CLUSTER_OPS) & set(table))


def test_no_features_and_updates_refused_before_sending(peer: RunningBroker) -> None:
    got = run(peer.bootstrap, lambda a: a.describe_features())
    assert got.finalized == {} and got.supported == {} and got.finalized_epoch is None
    with pytest.raises(ValueError, match="the cluster knows: none"):
        run(peer.bootstrap, lambda a: a.update_features({"metadata.version": FeatureUpdate(1)}))


def test_quorum_calls_raise_unsupported(peer: RunningBroker) -> None:
    for call in (lambda a: a.describe_metadata_quorum(), lambda a: a.unregister_broker(1),
                 lambda a: a.remove_raft_voter(1, "AAAAAAAAAAAAAAAAAAAAAA")):
        with pytest.raises(UnsupportedVersionError, match="KRaft"):
            run(peer.bootstrap, call)
    r = run_cli("-b", peer.bootstrap, "--timeout", "15", "quorum", "describe", "--status")
    assert r.code == 2 and "unsupported by this broker" in r.err


def test_replica_log_dir_calls_fail_per_replica(peer: RunningBroker) -> None:
    async def both(a: AdminClient) -> tuple[object, object]:
        node = min(a.net.nodes)
        moved = await a.alter_replica_log_dirs({("t", 0, node): "/data"})
        where = await a.describe_replica_log_dirs([("t", 0, node)])
        return moved[("t", 0, node)], where[("t", 0, node)]
    moved, where = run(peer.bootstrap, both)
    assert isinstance(moved, UnsupportedVersionError) and isinstance(where, UnsupportedVersionError)
