"""Per-node ApiVersions negotiation against real peers (Tansu, librdkafka's mock) and the fake broker's
misbehaviours; version choice, pins, and UnsupportedVersionError raised before a single byte is sent."""

from __future__ import annotations

import asyncio
import logging
import re
from typing import Any

import pytest

from kadmin.config import ClientConfig
from kadmin.errors import ProtocolError, UnsupportedVersionError
from kadmin.network import Deadline, NetworkClient
from kadmin.network.negotiation import (
    CLIENT_SOFTWARE_NAME,
    CLIENT_SOFTWARE_VERSION,
    _advertised_api_versions_max,
    our_range,
    software_field,
)
from kadmin.protocol import message_type
from kadmin.protocol.client_versions import CAPS
from tests.support import peers
from tests.support.aio import run
from tests.support.peers import RunningBroker
from tests.support.sasl_server import FakeBroker

_KAFKA_SOFTWARE_RE = re.compile(r"[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?")


def _expected_usable(advertised: dict[int, tuple[int, int]]) -> dict[int, tuple[int, int]]:
    """Computed here from the message classes and the caps table, independently of kadmin.network.negotiation."""
    out = {}
    for key, (lo, hi) in advertised.items():
        try:
            req, resp = message_type(key, "request"), message_type(key, "response")
        except KeyError:
            continue
        a, b = max(lo, req.MIN_VERSION, resp.MIN_VERSION), min(hi, req.MAX_VERSION, resp.MAX_VERSION)
        if key in CAPS:
            b = min(b, CAPS[key].highest)
        if a <= b:
            out[key] = (a, b)
    return out


async def _client(bootstrap: str, **kw: Any) -> NetworkClient:
    opts: dict[str, Any] = {"request_timeout_s": 5, "default_timeout_s": 10, **kw}
    net = NetworkClient(ClientConfig(bootstrap, **opts))
    await net.start()
    return net


# --------------------------------------------------------------------------------------------- real peers


def test_tansu_table_is_what_it_advertises(tansu: RunningBroker) -> None:
    advertised = peers.api_versions(tansu.addresses[0])  # kafka-python, not kadmin

    async def main() -> None:
        net = await _client(tansu.bootstrap)
        try:
            assert await net.api_versions(111) == advertised
            usable = await net.usable_versions(111)
            assert usable == _expected_usable(advertised)
            assert usable[10] == (0, 6) and usable[18] == (0, 4) and 48 not in usable
            neg = net.negotiation(111)
            assert neg is not None and neg.attempts == (4,)  # Tansu answers our newest ApiVersions at once
            assert await net.negotiated_version(111, 10) == 6
            # Metadata: Tansu's v12, now that kadmin sends up to v13 (KIP-1102 read; no client cap).
            assert await net.negotiated_version(111, 3) == min(advertised[3][1], message_type(3).MAX_VERSION)
        finally:
            await net.close()

    run(main())


def test_rdkafka_mock_falls_back_from_v4_to_v2_on_every_node(rdkafka_mock: RunningBroker,
                                                             caplog: pytest.LogCaptureFixture) -> None:
    advertised = peers.api_versions(rdkafka_mock.addresses[0])
    caplog.set_level(logging.DEBUG, logger="kadmin.network.negotiation")

    async def main() -> None:
        net = await _client(rdkafka_mock.bootstrap)
        try:
            for node in sorted(rdkafka_mock.nodes):
                assert await net.api_versions(node) == advertised
                neg = net.negotiation(node)
                assert neg is not None and neg.attempts == (4, 2), neg
                conn = net.connection(node)
                assert conn is not None and conn.requests_sent[(18, 4)] == 1 and conn.requests_sent[(18, 2)] == 1
                assert (await net.usable_versions(node)) == _expected_usable(advertised)
                assert await net.negotiated_version(node, 10) == 3
        finally:
            await net.close()

    run(main())
    fallbacks = [r.getMessage() for r in caplog.records if "UNSUPPORTED_VERSION" in r.getMessage()]
    assert len(fallbacks) >= 3 and all("advertises max 2" in m and "retrying at v2" in m for m in fallbacks)


def test_rdkafka_mock_literal_v3_to_v2_path(rdkafka_mock: RunningBroker) -> None:
    """With ApiVersions pinned to v3 the fallback is exactly v3 -> v2 (the mock's own answer says max 2)."""
    async def main() -> None:
        net = await _client(rdkafka_mock.bootstrap, max_versions={"ApiVersions": 3})
        try:
            neg = net.negotiation(net.least_loaded_node())
            assert neg is not None and neg.attempts == (3, 2)
        finally:
            await net.close()

    run(main())


def test_mock_error_body_layout_is_read() -> None:
    # Exact bytes librdkafka's mock sends for ApiVersions v3+ (tests/data/peer_versions.json notes).
    mock_body = bytes.fromhex("0023" "01" "0012 0000 0002" "00000000".replace(" ", ""))
    assert _advertised_api_versions_max(mock_body) == 2
    v0 = message_type(18, "response")
    kafka_body = v0(error_code=35, api_keys=[v0.ApiVersion(api_key=18, min_version=0, max_version=3)]).encode(0)
    assert _advertised_api_versions_max(kafka_body) == 3
    assert _advertised_api_versions_max(b"\x00\x23") is None


def test_unsupported_api_raises_before_sending(rdkafka_mock: RunningBroker) -> None:
    """The mock closes the connection on unadvertised APIs; we must never get that far."""
    async def main() -> None:
        net = await _client(rdkafka_mock.bootstrap)
        try:
            node = 1
            await net.api_versions(node)
            conn = net.connection(node)
            assert conn is not None
            before = conn.bytes_sent
            with pytest.raises(UnsupportedVersionError) as info:
                await net.negotiated_version(node, 15)
            msg = str(info.value)
            assert "DescribeGroups" in msg and "node 1" in msg and "does not support" in msg
            assert f"kadmin supports v{our_range(15)[0]}-v{our_range(15)[1]}" in msg  # type: ignore[index]
            dg = message_type(15, "request")
            with pytest.raises(UnsupportedVersionError):
                await net.send(node, dg(groups=["g"]), 0, deadline=Deadline(5))
            fc = message_type(10, "request")
            with pytest.raises(UnsupportedVersionError, match=r"v4 of FindCoordinator.*supports v0-v3"):
                await net.send(node, fc(key="g", key_type=0), 4, deadline=Deadline(5))
            assert conn.bytes_sent == before, "nothing may be written for an unsupported version"
            assert not conn.closed and net.connection(node) is conn
            resp = await net.send(node, fc(key="g", key_type=0), 3, deadline=Deadline(5))
            assert resp.error_code == 0
        finally:
            await net.close()

    run(main())


def test_pins_only_clamp(tansu: RunningBroker) -> None:
    async def main() -> None:
        net = await _client(tansu.bootstrap, max_versions={"Metadata": 4, 10: 2, "DescribeGroups": 99},
                            min_versions={"FindCoordinatorRequest": 1})
        try:
            assert await net.negotiated_version(111, 3) == 4
            assert await net.negotiated_version(111, 10) == 2
            assert await net.negotiated_version(111, 15) == 5  # a pin above both ranges widens nothing
            usable = await net.usable_versions(111)
            assert usable[10] == (1, 2) and usable[3] == (0, 4)
            conn = net.connection(111)
            assert conn is not None
            before = conn.bytes_sent
            fc = message_type(10, "request")
            with pytest.raises(UnsupportedVersionError, match="pinned to v1-v2"):
                await net.send(111, fc(key="g", key_type=0), 3, deadline=Deadline(5))
            with pytest.raises(UnsupportedVersionError, match="pinned to v1-v2"):
                await net.send(111, fc(key="g", key_type=0), 0, deadline=Deadline(5))
            assert conn.bytes_sent == before
            assert (await net.send(111, fc(key="g", key_type=0), 2, deadline=Deadline(5))).error_code == 0
        finally:
            await net.close()

    run(main())


def test_pin_outside_node_range_is_unsupported(rdkafka_mock: RunningBroker) -> None:
    async def main() -> None:
        net = await _client(rdkafka_mock.bootstrap, min_versions={"FindCoordinator": 4})
        try:
            with pytest.raises(UnsupportedVersionError, match=r"supports v0-v3.*pinned to v4-v32767"):
                await net.negotiated_version(2, 10)
        finally:
            await net.close()

    run(main())


# --------------------------------------------------------------------------------------------- fake broker paths


@pytest.mark.parametrize("mode, attempts, connections", [
    ("close_v3", (4, 0), 2),            # hangs up at v3+: reconnect, then v0
    ("invalid_v3", (4, 0), 1),          # INVALID_REQUEST at v3+: v0 on the same connection
    ("unsupported_above:1", (4, 1), 1),  # UNSUPPORTED_VERSION, v0 body says max 1
])
def test_api_versions_fallbacks(mode: str, attempts: tuple[int, ...], connections: int) -> None:
    async def main() -> None:
        async with FakeBroker(api_versions_mode=mode) as broker:
            net = await _client(broker.bootstrap)
            try:
                neg = net.negotiation(7)
                assert neg is not None and neg.attempts == attempts
                assert neg.reconnects == connections - 1
                assert broker.received_keys(18) == list(attempts)
                assert broker.connections == connections
                assert await net.negotiated_version(7, 3) == 12
            finally:
                await net.close()

    run(main())


def test_software_name_and_version_are_sent_and_valid() -> None:
    assert _KAFKA_SOFTWARE_RE.fullmatch(CLIENT_SOFTWARE_NAME)
    assert _KAFKA_SOFTWARE_RE.fullmatch(CLIENT_SOFTWARE_VERSION)
    for raw in ("0.1.0+local", "-1.2-", "1.0 beta", "", "++"):
        assert _KAFKA_SOFTWARE_RE.fullmatch(software_field(raw)), raw

    async def main() -> None:
        async with FakeBroker() as broker:
            net = await _client(broker.bootstrap)
            await net.close()
            assert broker.client_software == [("kadmin", CLIENT_SOFTWARE_VERSION)]

    run(main())


def test_reconnect_renegotiates_a_changed_node() -> None:
    """A rolling upgrade (here: a downgrade) changes a node's table; the next connection must see it."""
    async def main() -> None:
        async with FakeBroker() as broker:
            net = await _client(broker.bootstrap)
            try:
                md = message_type(3, "request")
                assert await net.negotiated_version(7, 3) == 12
                await net.send(7, md(topics=[]), 12, deadline=Deadline(5))
                broker.versions[3] = (0, 5)
                old = net.connection(7)
                assert old is not None
                await old.close()
                assert await net.negotiated_version(7, 3) == 5
                with pytest.raises(UnsupportedVersionError):
                    await net.send(7, md(topics=[]), 12, deadline=Deadline(5))
                resp = await net.send(7, md(topics=[]), 5, deadline=Deadline(5))
                assert resp.brokers[0].node_id == 7
                assert broker.received_keys(18) == [4, 4]
            finally:
                await net.close()

    run(main())


@pytest.mark.parametrize("mode, sent", [
    ("always_unsupported:3", [4, 3, 2, 1]),  # keeps refusing: stop after MAX_ATTEMPTS
    ("always_unsupported:-1", [4]),          # claims no version at all: nothing lower to try
])
def test_negotiation_never_loops(mode: str, sent: list[int]) -> None:
    async def main() -> None:
        async with FakeBroker(api_versions_mode=mode) as broker:
            t0 = asyncio.get_running_loop().time()
            with pytest.raises(ProtocolError, match="did not converge"):
                await _client(broker.bootstrap, default_timeout_s=5)
            # A definite answer from the only bootstrap server is not retried until the deadline.
            assert asyncio.get_running_loop().time() - t0 < 2
            assert broker.received_keys(18) == sent
            assert broker.connections == 1

    run(main())
