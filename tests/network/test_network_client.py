"""NetworkClient: bootstrap and metadata against real peers, any-node requests, connection sharing,
throttling, metadata refresh, closing, fork safety, and use from a private event-loop thread."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from typing import Any

import pytest

from kadmin.config import ClientConfig
from kadmin.errors import (
    ClientClosedError,
    ForkedProcessError,
    KafkaConnectionError,
    NoBrokersAvailableError,
    UnsupportedVersionError,
)
from kadmin.network import Deadline, NetworkClient, Node
from kadmin.protocol import message_type
from tests.support import peers
from tests.support.aio import run
from tests.support.peers import RunningBroker
from tests.support.sasl_server import FakeBroker


def _cfg(bootstrap: str, **kw: Any) -> ClientConfig:
    opts: dict[str, Any] = {"request_timeout_s": 5, "default_timeout_s": 10, **kw}
    return ClientConfig(bootstrap, **opts)


def test_tansu_cluster_view(tansu: RunningBroker) -> None:
    async def main() -> None:
        async with NetworkClient(_cfg(tansu.bootstrap)) as net:
            host, port = tansu.nodes[111]
            assert net.nodes == {111: Node(111, host, port, None)}
            assert net.controller_id == 111
            assert net.cluster_id is not None and net.cluster_id.startswith("kadmin-tests")
            assert net.metadata is not None and net.metadata.source.startswith("DescribeCluster")
            assert net.least_loaded_node() == 111

    run(main())


def test_rdkafka_mock_cluster_view_and_send(rdkafka_mock: RunningBroker) -> None:
    fc = message_type(10, "request")

    async def main() -> None:
        async with NetworkClient(_cfg(rdkafka_mock.bootstrap)) as net:
            assert {n: (x.host, x.port) for n, x in net.nodes.items()} == rdkafka_mock.nodes
            assert net.controller_id is None  # the mock names controller 0, which is not a node
            assert net.metadata is not None and net.metadata.source.startswith("Metadata")
            node = net.least_loaded_node()
            v = await net.negotiated_version(node, 10, deadline=Deadline(5))
            assert v == 3
            resp = await net.send(node, fc(key="kadmin-group", key_type=0), v, deadline=Deadline(5))
            assert resp.error_code == 0 and resp.node_id in rdkafka_mock.nodes
            # The node that answered is used again: it is connected and idle, so least loaded.
            assert net.least_loaded_node() == node
            with pytest.raises(UnsupportedVersionError, match="DescribeClientQuotas"):
                await net.negotiated_version(node, 48, deadline=Deadline(5))

    run(main())


def test_bootstrap_skips_dead_addresses(tansu: RunningBroker) -> None:
    dead = peers.free_port()

    async def main() -> None:
        async with NetworkClient(_cfg(f"127.0.0.1:{dead},{tansu.bootstrap}", retry_backoff_s=0.01)) as net:
            assert list(net.nodes) == [111]

    run(main())


def test_no_reachable_bootstrap_is_no_brokers_available() -> None:
    dead = peers.free_port()

    async def main() -> None:
        net = NetworkClient(_cfg(f"127.0.0.1:{dead}", default_timeout_s=0.8, retry_backoff_s=0.05,
                                 retry_backoff_max_s=0.1))
        t0 = time.monotonic()
        with pytest.raises(NoBrokersAvailableError) as info:
            await net.start()
        assert time.monotonic() - t0 < 3
        assert info.value.retriable and str(dead) in str(info.value)
        await net.close()

    run(main())


def test_concurrent_first_requests_share_one_connection(rdkafka_mock: RunningBroker) -> None:
    async def main() -> None:
        async with NetworkClient(_cfg(rdkafka_mock.bootstrap)) as net:
            target = next(n for n in net.nodes if net.connection(n) is None)
            tables = await asyncio.gather(*(net.api_versions(target) for _ in range(20)))
            assert all(t == tables[0] for t in tables)
            opened = [c for c in net.connections_opened if c[2] == target]
            assert len(opened) == 1, opened

    run(main())


def test_unknown_node_triggers_refresh_then_fails_retriably(tansu: RunningBroker) -> None:
    async def main() -> None:
        async with NetworkClient(_cfg(tansu.bootstrap)) as net:
            assert net.metadata is not None
            before = net.metadata.fetched_at
            with pytest.raises(KafkaConnectionError, match="node 999 is not in the cluster metadata") as info:
                await net.negotiated_version(999, 3)
            assert info.value.retriable
            assert net.metadata.fetched_at > before  # looked again before giving up

    run(main())


def test_metadata_older_than_max_age_is_refreshed(tansu: RunningBroker) -> None:
    async def main() -> None:
        async with NetworkClient(_cfg(tansu.bootstrap, metadata_max_age_s=0.2, retry_backoff_s=0.01)) as net:
            assert net.metadata is not None
            first = net.metadata
            await net.api_versions(111)
            assert net.metadata is first
            await asyncio.sleep(0.3)
            await net.api_versions(111)
            assert net.metadata is not first and net.metadata.fetched_at > first.fetched_at

    run(main())


def test_throttle_time_delays_the_next_request() -> None:
    md = message_type(3, "request")

    async def main() -> None:
        async with FakeBroker(throttle_ms=300, versions={3: (0, 12), 18: (0, 4)}) as broker:
            async with NetworkClient(_cfg(broker.bootstrap)) as net:
                await net.send(7, md(topics=[]), 9, deadline=Deadline(5))
                await net.send(7, md(topics=[]), 9, deadline=Deadline(5))
            times = [t for k, _v, t in broker.received if k == 3]
            assert len(times) == 3  # bootstrap metadata + two sends
            assert times[1] - times[0] >= 0.29 and times[2] - times[1] >= 0.29

    run(main())


def test_throttle_longer_than_the_deadline_times_out() -> None:
    md = message_type(3, "request")

    async def main() -> None:
        async with FakeBroker(throttle_ms=5000, versions={3: (0, 12), 18: (0, 4)}) as broker:
            async with NetworkClient(_cfg(broker.bootstrap)) as net:
                t0 = time.monotonic()
                from kadmin.errors import KafkaTimeoutError

                with pytest.raises(KafkaTimeoutError, match="throttling"):
                    await net.send(7, md(topics=[]), 9, deadline=Deadline(0.3))
                assert time.monotonic() - t0 < 1

    run(main())


def test_closed_client_refuses_and_fails_in_flight(tansu: RunningBroker) -> None:
    async def main() -> None:
        net = NetworkClient(_cfg(tansu.bootstrap))
        await net.start()
        conn = net.connection(111)
        await net.close()
        assert conn is not None and conn.closed
        with pytest.raises(ClientClosedError):
            await net.api_versions(111)
        with pytest.raises(ClientClosedError):
            await net.refresh_metadata()
        await net.close()  # idempotent

    run(main())


def test_forked_process_is_refused(tansu: RunningBroker, monkeypatch: pytest.MonkeyPatch) -> None:
    async def main() -> None:
        net = NetworkClient(_cfg(tansu.bootstrap))
        await net.start()
        real = os.getpid()
        monkeypatch.setattr(os, "getpid", lambda: real + 1)
        with pytest.raises(ForkedProcessError):
            await net.api_versions(111)
        monkeypatch.setattr(os, "getpid", lambda: real)
        await net.close()

    run(main())


def test_clients_in_private_loop_threads(tansu: RunningBroker, rdkafka_mock: RunningBroker) -> None:
    """Two clients, each in its own thread with its own loop (as the sync facade runs them), at once."""
    results: dict[str, Any] = {}

    def worker(name: str, bootstrap: str) -> None:
        loop = asyncio.new_event_loop()
        try:
            async def go() -> dict[int, Node]:
                async with NetworkClient(_cfg(bootstrap)) as net:
                    for node in net.nodes:
                        await net.api_versions(node)
                    return net.nodes

            results[name] = loop.run_until_complete(asyncio.wait_for(go(), 20))
        except BaseException as exc:  # noqa: BLE001 - reported by the assertion below
            results[name] = exc
        finally:
            loop.close()

    threads = [threading.Thread(target=worker, args=("tansu", tansu.bootstrap)),
               threading.Thread(target=worker, args=("mock", rdkafka_mock.bootstrap))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert sorted(results["tansu"]) == [111], results
    assert sorted(results["mock"]) == [1, 2, 3], results


def test_node_that_vanishes_from_metadata_loses_its_connection() -> None:
    async def main() -> None:
        async with FakeBroker() as broker:
            async with NetworkClient(_cfg(broker.bootstrap)) as net:
                conn = net.connection(7)
                assert conn is not None
                broker.node_id = 8  # the same address is now advertised as another node
                await net.refresh_metadata()
                assert list(net.nodes) == [8]
                assert conn.closed or net.connection(8) is conn
                assert net.connection(7) is None
                with pytest.raises(KafkaConnectionError, match="node 7"):
                    await net.api_versions(7)
                assert (await net.api_versions(8))[3] == (0, 12)

    run(main())
