"""Issue #25's calls that the peers' tables do reach, beyond what test_share_groups_peers and
test_streams_and_new_options_peers cover: DeleteGroups (share and streams group deletion), OffsetFetch (a
streams group's offsets) and ListGroups by type.

What the peers serve of these (their recorded ApiVersions, tests/data/peer_versions.json): Tansu DeleteGroups
v0-2, OffsetFetch v0-9 and ListGroups v0-5; librdkafka's mock none of DeleteGroups or ListGroups.  So on Tansu
the calls are sent and its answers passed through; on the mock each is refused at once, unsent.  (The mock's
AlterPartitionReassignments, which it lacks too, times out waiting for a controller its metadata never names:
tests/peers/test_storage_peers.py asserts that, "nothing applied".)
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from kadmin.aio import AdminClient
from kadmin.errors import UnsupportedVersionError
from kadmin.protocol.apis import ApiKey
from kadmin.topics import NewTopic
from kadmin.types import OffsetAndMetadata, TopicPartition
from tests.support import peers
from tests.support.peers import RunningBroker
from tests.support.settings import PEER_FAST

T = TypeVar("T")


def run(bootstrap: str, body: Callable[[AdminClient], Awaitable[T]]) -> T:
    async def go() -> T:
        async with AdminClient(bootstrap, **PEER_FAST) as admin:
            return await body(admin)
    return asyncio.run(go())


def _table(broker: RunningBroker) -> dict[int, tuple[int, int]]:
    host, port = broker.bootstrap.split(",")[0].rsplit(":", 1)
    return peers.api_versions((host, int(port)))


def test_tansu_deletes_lists_and_reads_offsets_of_groups_by_the_old_apis(tansu: RunningBroker) -> None:
    table = _table(tansu)
    assert table[ApiKey.DELETE_GROUPS] == (0, 2) and table[ApiKey.LIST_GROUPS] == (0, 5)
    assert ApiKey.STREAMS_GROUP_DESCRIBE not in table and ApiKey.SHARE_GROUP_DESCRIBE not in table
    topic, gid = f"audit-{uuid.uuid4().hex[:8]}", f"audit-app-{uuid.uuid4().hex[:8]}"

    async def calls(a: AdminClient) -> tuple[Any, ...]:
        made = await a.create_topics([NewTopic(topic, 1, 1)])
        assert not isinstance(made[topic], Exception), made
        assert await a.alter_consumer_group_offsets(gid, {(topic, 0): 3}) == {(topic, 0): None}
        return (await a.list_streams_group_offsets([gid]), await a.list_groups(types=["share"]),
                await a.delete_share_groups(["audit-never-made"]), await a.delete_streams_groups([gid]))

    offsets, share_listed, deleted_share, deleted_streams = run(tansu.bootstrap, calls)
    # OffsetFetch answers as for any group (Java's listStreamsGroupOffsets does not check the type either).
    assert offsets == {gid: {TopicPartition(topic, 0): OffsetAndMetadata(3, None, None)}}
    # Tansu lists every group as classic whatever the filter: kadmin leaves out the types not asked for.
    assert share_listed.complete and share_listed.groups == ()
    # Tansu "deletes" a group that never existed (Kafka: GROUP_ID_NOT_FOUND): passed through, not hidden.
    assert deleted_share == {"audit-never-made": None}
    assert deleted_streams == {gid: None}


def test_the_mock_refuses_group_deletion_and_listing_at_once(rdkafka_mock: RunningBroker) -> None:
    table = _table(rdkafka_mock)
    for key in (ApiKey.DELETE_GROUPS, ApiKey.LIST_GROUPS):
        assert key not in table, key.name

    async def calls(a: AdminClient) -> tuple[Any, ...]:
        return (await a.delete_share_groups(["g"]), await a.delete_streams_groups(["g"]),
                await a.list_groups(types=["share"]))

    start = time.monotonic()
    share, streams, listed = run(rdkafka_mock.bootstrap, calls)
    assert isinstance(share["g"], UnsupportedVersionError) and isinstance(streams["g"], UnsupportedVersionError)
    assert listed.groups == () and set(listed.errors) == {1, 2, 3}
    assert all(isinstance(e, UnsupportedVersionError) for e in listed.errors.values())
    # Refused, not waited out: well under one call's deadline (PEER_FAST's 15 s).
    assert time.monotonic() - start < PEER_FAST["default_timeout_s"]
