"""Share groups (KIP-932) against the third-party peers: Tansu and librdkafka's mock cluster.

What they serve (ApiVersions): Tansu none of the share-group keys; librdkafka's mock ShareGroupHeartbeat,
ShareFetch and ShareAcknowledge at v1 (enough for librdkafka's own share consumer) but not ShareGroupDescribe
nor the share-group offset APIs (90-92), and neither ListGroups nor DeleteGroups.  So kadmin must refuse every
share call per group, unsent, with an UnsupportedVersionError naming the release that adds it, and the CLI
must exit 2.  These tests fail when a peer release starts serving one of them, which is when kadmin should be
tested against it for real.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

import pytest

from kadmin.aio import AdminClient
from kadmin.errors import UnsupportedVersionError
from kadmin.protocol.apis import ApiKey
from tests.support import peers
from tests.support.cli import run_cli
from tests.support.peers import RunningBroker
from tests.support.settings import PEER_FAST

T = TypeVar("T")
ADMIN_SHARE_KEYS = (ApiKey.SHARE_GROUP_DESCRIBE, ApiKey.DESCRIBE_SHARE_GROUP_OFFSETS,
                    ApiKey.ALTER_SHARE_GROUP_OFFSETS, ApiKey.DELETE_SHARE_GROUP_OFFSETS)
MEMBER_SHARE_KEYS = (ApiKey.SHARE_GROUP_HEARTBEAT, ApiKey.SHARE_FETCH, ApiKey.SHARE_ACKNOWLEDGE)
#: What each peer advertises of the share-group keys, as recorded when this test was written.
SERVED = {"tansu": {}, "rdkafka_mock": {k: (1, 1) for k in MEMBER_SHARE_KEYS}}


def run(bootstrap: str, body: Callable[[AdminClient], Awaitable[T]]) -> T:
    async def go() -> T:
        async with AdminClient(bootstrap, **PEER_FAST) as admin:
            return await body(admin)
    return asyncio.run(go())


@pytest.fixture(params=["tansu", "rdkafka_mock"])
def peer(request: pytest.FixtureRequest) -> tuple[str, RunningBroker]:
    return request.param, request.getfixturevalue(request.param)


def test_what_the_peers_serve_of_share_groups(peer: tuple[str, RunningBroker]) -> None:
    name, broker = peer
    host, port = broker.bootstrap.split(",")[0].rsplit(":", 1)
    table = peers.api_versions((host, int(port)))
    served = {k: table[k] for k in (*ADMIN_SHARE_KEYS, *MEMBER_SHARE_KEYS) if k in table}
    assert served == SERVED[name]


def test_share_calls_are_refused_per_group_naming_the_release(peer: tuple[str, RunningBroker]) -> None:
    _name, broker = peer

    async def calls(a: AdminClient) -> list[object]:
        described = await a.describe_share_groups(["sg-a", "sg-b"])
        offsets = await a.list_share_group_offsets(["sg-a"])
        altered = await a.alter_share_group_offsets("sg-a", {("t", 0): 1})
        deleted = await a.delete_share_group_offsets("sg-a", ["t"])
        return [*described.values(), *offsets.values(), *altered.values(), *deleted.values()]

    got = run(broker.bootstrap, calls)
    assert len(got) == 5
    for err in got:
        assert isinstance(err, UnsupportedVersionError) and "needs Kafka 4.1" in str(err), err
    r = run_cli("-b", broker.bootstrap, "--timeout", "15", "share-groups", "describe", "sg-a")
    assert r.code == 2 and "unsupported by this broker" in r.err and "Kafka 4.1" in r.err
