"""Issue #25's streams groups, groups of every type, rebootstrap and the small new-version options against the
third-party peers: Tansu and librdkafka's mock cluster.

What they serve (ApiVersions, checked below so that a peer release that changes it fails here):
* neither serves StreamsGroupDescribe (89), ListConfigResources (74) or AlterPartitionReassignments (45);
* neither speaks DescribeCluster v2 (Tansu stops at v1, the mock has no DescribeCluster) nor ListOffsets v11
  (Tansu v9, the mock v7);
* the mock speaks Metadata v13 (KIP-1102's top-level error code) and kadmin now negotiates it there; Tansu stops
  at v12;
* Tansu serves ListGroups v5 but ignores both its state and its type filter (every group is listed as a classic
  group in state Unknown), so kadmin leaves out a listing whose type was not asked for; DescribeGroups v0-5 is
  served.  The mock has no group listing or description at all.
So kadmin must refuse each unserved feature plainly (per key where the key is the unit, before sending), and
still work where the peer serves the older versions.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from typing import TypeVar

import pytest
from confluent_kafka import Producer

from kadmin.admin.partitions import ListedOffset, OffsetSpec
from kadmin.aio import AdminClient
from kadmin.errors import UnsupportedVersionError
from kadmin.protocol.apis import ApiKey
from kadmin.topics import NewTopic
from kadmin.types import GroupDescription
from tests.support import peers
from tests.support.peers import RunningBroker

T = TypeVar("T")


def run(bootstrap: str, body: Callable[[AdminClient], Awaitable[T]]) -> T:
    async def go() -> T:
        async with AdminClient(bootstrap, default_timeout_s=15) as admin:
            return await body(admin)
    return asyncio.run(go())


@pytest.fixture(params=["tansu", "rdkafka_mock"])
def peer(request: pytest.FixtureRequest) -> RunningBroker:
    return request.getfixturevalue(request.param)  # type: ignore[no-any-return]


def _table(broker: RunningBroker) -> dict[int, tuple[int, int]]:
    host, port = broker.bootstrap.split(",")[0].rsplit(":", 1)
    return peers.api_versions((host, int(port)))


def test_what_the_peers_serve(peer: RunningBroker, request: pytest.FixtureRequest) -> None:
    table = _table(peer)
    for key in (ApiKey.STREAMS_GROUP_DESCRIBE, ApiKey.LIST_CONFIG_RESOURCES, ApiKey.ALTER_PARTITION_REASSIGNMENTS):
        assert key not in table, key.name
    assert table.get(ApiKey.DESCRIBE_CLUSTER, (0, 1))[1] < 2
    assert table[ApiKey.LIST_OFFSETS][1] < 11
    if "tansu" in request.node.name:
        assert table[ApiKey.METADATA][1] == 12 and table[ApiKey.LIST_GROUPS][1] == 5
    else:
        assert table[ApiKey.METADATA][1] == 13 and ApiKey.LIST_GROUPS not in table


def test_unserved_features_are_refused_before_sending(peer: RunningBroker) -> None:
    streams = run(peer.bootstrap, lambda a: a.describe_streams_groups(["app"]))
    assert isinstance(streams["app"], UnsupportedVersionError)
    with pytest.raises(UnsupportedVersionError):
        run(peer.bootstrap, lambda a: a.describe_cluster(include_fenced_brokers=True))
    with pytest.raises(UnsupportedVersionError):
        run(peer.bootstrap, lambda a: a.list_config_resources(["client-metrics"]))
    # The client still works on the same peer afterwards (nothing was sent that could close a connection).
    assert run(peer.bootstrap, lambda a: a.describe_cluster()).nodes


def _topic_with_a_record(peer: RunningBroker, request: pytest.FixtureRequest) -> str:
    """A topic with one record: created by kadmin on Tansu, auto-created by the produce on the mock (which has
    no CreateTopics)."""
    topic = f"pending-upload-{uuid.uuid4().hex[:8]}"
    if "tansu" in request.node.name:
        made = run(peer.bootstrap, lambda a: a.create_topics([NewTopic(topic, 1, 1)]))
        assert made[topic] is not None and not isinstance(made[topic], Exception), made
    producer = Producer({"bootstrap.servers": peer.bootstrap, "log_level": 0})
    producer.produce(topic, value=b"x", partition=0)
    assert producer.flush(15) == 0
    return topic


def test_earliest_pending_upload_refused_per_partition_and_latest_still_served(
        peer: RunningBroker, request: pytest.FixtureRequest) -> None:
    t = _topic_with_a_record(peer, request)
    offsets = run(peer.bootstrap, lambda a: a.list_offsets({(t, 0): OffsetSpec.earliest_pending_upload(),
                                                            (t, 1): OffsetSpec.latest()}
                                                           if "rdkafka" in request.node.name else
                                                           {(t, 0): OffsetSpec.earliest_pending_upload()}))
    assert isinstance(offsets[(t, 0)], UnsupportedVersionError)
    assert "v11+" in str(offsets[(t, 0)])
    latest = run(peer.bootstrap, lambda a: a.list_offsets({(t, 0): OffsetSpec.latest()}))
    assert isinstance(latest[(t, 0)], ListedOffset) and latest[(t, 0)].offset >= 1


def test_metadata_v13_on_the_mock_needs_no_rebootstrap(rdkafka_mock: RunningBroker) -> None:
    async def go() -> tuple[int, int]:
        async with AdminClient(rdkafka_mock.bootstrap, default_timeout_s=15) as admin:
            await admin.list_topics()
            await admin.net.refresh_metadata()
            node = sorted(admin.net.nodes)[0]
            return await admin.net.negotiated_version(node, ApiKey.METADATA), admin.net.rebootstraps
    version, rebootstraps = asyncio.run(go())
    assert version == 13 and rebootstraps == 0


def test_list_groups_by_type_and_describe_classic_groups_on_tansu(
        tansu: RunningBroker, request: pytest.FixtureRequest) -> None:
    t = _topic_with_a_record(tansu, request)
    gid = f"classic-peer-{uuid.uuid4().hex[:8]}"
    assert run(tansu.bootstrap, lambda a: a.alter_consumer_group_offsets(gid, {(t, 0): 1})) == {(t, 0): None}
    listed = run(tansu.bootstrap, lambda a: a.list_groups(types=["classic"]))
    assert listed.complete and gid in listed.group_ids()
    assert all(g.group_type == "classic" for g in listed.groups)
    streams = run(tansu.bootstrap, lambda a: a.list_groups(types=["streams"]))
    assert gid not in streams.group_ids()
    sent = run(tansu.bootstrap, lambda a: a.describe_classic_groups([gid]))
    assert isinstance(sent[gid], GroupDescription) and sent[gid].group_type == "classic"
