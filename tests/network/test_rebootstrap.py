"""Rebootstrap (KIP-1102): on REBOOTSTRAP_REQUIRED (Metadata v13's top-level error) or when every known node
is unreachable, the client goes back to its bootstrap addresses, resolving their names again, instead of
failing with stale metadata.  The fake answers REBOOTSTRAP_REQUIRED when a fault tells it to.
"""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import pytest

from kadmin.aio import AdminClient
from kadmin.protocol.apis import ApiKey
from kadmin.testing import FakeCluster
from kadmin.versions import release_table

pytestmark = pytest.mark.timeout(60)

REBOOTSTRAP_REQUIRED = 129
FAST: dict[str, Any] = {"default_timeout_s": 10.0, "retry_backoff_s": 0.05, "retry_backoff_max_s": 0.2}


def test_rebootstrap_required_on_a_metadata_request_is_retried_after_rebootstrapping() -> None:
    with FakeCluster(brokers=3, versions="4.3") as c:
        c.add_topic("orders", 2)

        async def go() -> Any:
            async with AdminClient(c.bootstrap, **FAST) as admin:
                opened = len(admin.net.connections_opened)
                c.inject(None, ApiKey.METADATA, REBOOTSTRAP_REQUIRED, count=1)
                topics = await admin.list_topics()
                new = admin.net.connections_opened[opened:]
                return topics, admin.net.rebootstraps, new
        topics, rebootstraps, new = asyncio.run(go())
        assert [t.name for t in topics] == ["orders"]
        assert rebootstraps == 1
        # The client connected to a bootstrap address (no node id) to learn the cluster again.
        assert any(node_id is None for _h, _p, node_id in new)
        metadata = [e for e in c.request_log if e.api_key == ApiKey.METADATA]
        assert {e.version for e in metadata} == {13}
        assert len(metadata) >= 2  # the refused request, then the one asked again


def test_rebootstrap_required_during_a_metadata_refresh() -> None:
    """Brokers without DescribeCluster: the refresh itself reads Metadata v13 and meets the error."""
    table = release_table("4.3")
    del table[ApiKey.DESCRIBE_CLUSTER]
    with FakeCluster(brokers=2, versions=table) as c:
        async def go() -> Any:
            async with AdminClient(c.bootstrap, **FAST) as admin:
                c.inject(None, ApiKey.METADATA, REBOOTSTRAP_REQUIRED, count=1)
                md = await admin.net.refresh_metadata()
                return sorted(md.nodes), md.source, admin.net.rebootstraps
        nodes, source, rebootstraps = asyncio.run(go())
        assert nodes == [1, 2] and rebootstraps == 1
        assert source.startswith("Metadata v13 from ") and "node" not in source.split(" from ")[1]


def test_every_known_node_unreachable_goes_back_to_the_bootstrap_servers() -> None:
    """The cluster the client knew is gone; the bootstrap list still leads to a (new) cluster."""
    with FakeCluster(brokers=2, versions="4.3") as old, FakeCluster(brokers=2, versions="4.3") as new:
        old.add_topic("before", 1)
        new.add_topic("after", 1)
        first_old = old.bootstrap.split(",")[0]
        first_new = new.bootstrap.split(",")[0]

        async def go() -> Any:
            async with AdminClient(f"{first_old},{first_new}", **FAST) as admin:
                assert [t.name for t in await admin.list_topics()] == ["before"]
                for n in old.node_ids:
                    old.stop_broker(n)
                after = [t.name for t in await admin.list_topics()]
                return after, admin.net.rebootstraps, admin.net.cluster_id
        after, rebootstraps, cluster_id = asyncio.run(go())
        assert after == ["after"] and cluster_id == new.cluster_id
        assert rebootstraps == 1


def test_rebootstrap_resolves_the_bootstrap_name_again(monkeypatch: pytest.MonkeyPatch) -> None:
    name = "bootstrap.kadmin.invalid"
    asked: list[str] = []
    real = socket.getaddrinfo

    def resolver(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host == name:
            asked.append(host)
            host = "127.0.0.1"
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", resolver)
    with FakeCluster(brokers=2, versions="4.3") as c:
        port = c.bootstrap.split(",")[0].rsplit(":", 1)[1]

        async def go() -> int:
            async with AdminClient(f"{name}:{port}", **FAST) as admin:
                before = len(asked)
                c.inject(None, ApiKey.METADATA, REBOOTSTRAP_REQUIRED, count=1)
                await admin.list_topics()
                return len(asked) - before
        again = asyncio.run(go())
        assert asked and again >= 1  # resolved at start, and again when rebootstrapping


def test_metadata_v13_without_error_needs_no_rebootstrap() -> None:
    with FakeCluster(brokers=1, versions="4.3") as c:
        async def go() -> int:
            async with AdminClient(c.bootstrap, **FAST) as admin:
                await admin.list_topics()
                await admin.net.refresh_metadata()
                return admin.net.rebootstraps
        assert asyncio.run(go()) == 0
