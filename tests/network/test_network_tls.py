"""TLS with certificates generated at test time: the right CA works, a wrong host name or an unknown CA is
refused (and not retried), client certificates with encrypted keys load, SASL_SSL combines both."""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import pytest

from kadmin.config import ClientConfig
from kadmin.errors import AuthenticationError, KafkaError
from kadmin.network import Deadline, NetworkClient
from kadmin.network.tls import build_ssl_context
from kadmin.protocol import message_type
from tests.support import tls_util
from tests.support.aio import run
from tests.support.sasl_server import FakeBroker


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> tuple[tls_util.TestPKI, dict[str, tls_util.CertPair]]:
    folder = tmp_path_factory.mktemp("pki")
    pki = tls_util.make_ca(folder)
    certs = {
        "localhost": tls_util.make_cert(pki, "server-ok", ["localhost", "127.0.0.1"]),
        "elsewhere": tls_util.make_cert(pki, "server-elsewhere", ["kafka.example.invalid"]),
        "client": tls_util.make_cert(pki, "client", [], client=True, key_password="k3y-pass"),
    }
    return pki, certs


def _tls_config(broker: FakeBroker, ca: Path, **kw: Any) -> ClientConfig:
    opts: dict[str, Any] = {"security_protocol": "SSL", "ssl_cafile": str(ca), "request_timeout_s": 5,
                            "default_timeout_s": 3, "connect_timeout_s": 3, **kw}
    return ClientConfig(broker.bootstrap, **opts)


async def _start_and_metadata(cfg: ClientConfig) -> Any:
    net = NetworkClient(cfg)
    try:
        await net.start()
        md = message_type(3, "request")
        return await net.send(7, md(topics=[]), 9, deadline=Deadline(5))
    finally:
        await net.close()


def test_tls_with_the_right_ca_works(pki: Any) -> None:
    ca, certs = pki

    async def main() -> None:
        async with FakeBroker(ssl_context=ca.server_context(certs["localhost"])) as broker:
            resp = await _start_and_metadata(_tls_config(broker, ca.ca.cert))
            assert resp.brokers[0].port == broker.port
            assert broker.received_keys(18) == [4]  # negotiation happened inside TLS

    run(main())


def test_hostname_mismatch_is_refused_and_not_retried(pki: Any) -> None:
    ca, certs = pki

    async def main() -> None:
        async with FakeBroker(ssl_context=ca.server_context(certs["elsewhere"])) as broker:
            with pytest.raises(AuthenticationError, match="certificate") as info:
                await _start_and_metadata(_tls_config(broker, ca.ca.cert, default_timeout_s=10))
            assert "127.0.0.1" in str(info.value)
            assert not info.value.retriable
            assert broker.received == []  # not a single Kafka byte reached the impostor

    loop_time = asyncio.run(_timed(main()))
    assert loop_time < 5, "a certificate error must fail fast, not retry until the deadline"


async def _timed(coro: Coroutine[Any, Any, None]) -> float:
    t0 = asyncio.get_running_loop().time()
    await asyncio.wait_for(coro, 20)
    return asyncio.get_running_loop().time() - t0


def test_hostname_check_can_be_switched_off(pki: Any) -> None:
    ca, certs = pki

    async def main() -> None:
        async with FakeBroker(ssl_context=ca.server_context(certs["elsewhere"])) as broker:
            resp = await _start_and_metadata(_tls_config(broker, ca.ca.cert, ssl_check_hostname=False))
            assert resp.brokers[0].node_id == 7

    run(main())


def test_unknown_ca_is_refused(pki: Any, tmp_path: Path) -> None:
    ca, certs = pki
    other = tls_util.make_ca(tmp_path / "other", name="other-ca")

    async def main() -> None:
        async with FakeBroker(ssl_context=ca.server_context(certs["localhost"])) as broker:
            with pytest.raises(AuthenticationError, match="certificate"):
                await _start_and_metadata(_tls_config(broker, other.ca.cert))

    run(main())


def test_client_certificate_with_encrypted_key(pki: Any) -> None:
    ca, certs = pki
    client = certs["client"]

    async def main() -> None:
        server_ctx = ca.server_context(certs["localhost"], require_client_cert=True)
        async with FakeBroker(ssl_context=server_ctx) as broker:
            cfg = _tls_config(broker, ca.ca.cert, ssl_certfile=str(client.cert), ssl_keyfile=str(client.key),
                              ssl_password=client.key_password)
            resp = await _start_and_metadata(cfg)
            assert resp.brokers[0].node_id == 7
            # Without the client certificate the server refuses us.  Under TLS 1.3 the client's handshake
            # completes first and Python's server drops the socket without an alert, so the client only sees
            # closed connections (retriable) until its deadline: any KafkaError, but no hang and no success.
            with pytest.raises(KafkaError):
                await _start_and_metadata(_tls_config(broker, ca.ca.cert, default_timeout_s=1))

    run(main())


def test_wrong_key_password_is_a_config_error_without_the_password(pki: Any) -> None:
    ca, certs = pki
    client = certs["client"]
    cfg = ClientConfig("localhost:9093", security_protocol="SSL", ssl_cafile=str(ca.ca.cert),
                       ssl_certfile=str(client.cert), ssl_keyfile=str(client.key), ssl_password="not-it-42")
    with pytest.raises(ValueError) as info:
        build_ssl_context(cfg)
    assert "not-it-42" not in str(info.value) and str(client.cert) in str(info.value)
    assert "not-it-42" not in repr(cfg)


def test_user_ssl_context_is_used_as_given(pki: Any) -> None:
    ca, certs = pki
    ctx = ssl.create_default_context(cafile=str(ca.ca.cert))

    async def main() -> None:
        async with FakeBroker(ssl_context=ca.server_context(certs["localhost"])) as broker:
            cfg = ClientConfig(broker.bootstrap, security_protocol="SSL", ssl_context=ctx, default_timeout_s=3)
            assert build_ssl_context(cfg) is ctx
            resp = await _start_and_metadata(cfg)
            assert resp.brokers[0].node_id == 7

    run(main())


def test_sasl_ssl_scram(pki: Any) -> None:
    ca, certs = pki

    async def main() -> None:
        async with FakeBroker(ssl_context=ca.server_context(certs["localhost"]), sasl=True,
                              users={"alice": "pw-1234"}) as broker:
            cfg = _tls_config(broker, ca.ca.cert, security_protocol="SASL_SSL", sasl_mechanism="SCRAM-SHA-512",
                              sasl_username="alice", sasl_password="pw-1234")
            resp = await _start_and_metadata(cfg)
            assert resp.brokers[0].node_id == 7
            assert broker.received_keys(36) == [2, 2]

    run(main())


def test_openssl_cli_fallback_makes_working_certificates(tmp_path: Path) -> None:
    """The helper's no-``cryptography`` path must work too, or CI without that package has no TLS tests."""
    pki = tls_util.make_ca(tmp_path, use_openssl=True)
    server = tls_util.make_cert(pki, "server", ["localhost", "127.0.0.1"], use_openssl=True)

    async def main() -> None:
        async with FakeBroker(ssl_context=pki.server_context(server)) as broker:
            resp = await _start_and_metadata(_tls_config(broker, pki.ca.cert))
            assert resp.brokers[0].node_id == 7

    run(main())
