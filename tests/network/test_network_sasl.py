"""SASL: SCRAM pinned to the RFC test vectors (both sides), PLAIN and SCRAM end to end, clear failures, and
no secret in any log record, repr or exception text."""

from __future__ import annotations

import asyncio
import base64
import logging
from typing import Any

import pytest

from kadmin.config import ClientConfig
from kadmin.errors import AuthenticationError, KafkaError, UnsupportedSaslMechanismError
from kadmin.network import Deadline, NetworkClient
from kadmin.network.sasl import ScramClient, plain_token
from kadmin.protocol import message_type
from tests.support.aio import run
from tests.support.sasl_server import FakeBroker, ScramCredential, ScramServer, hi

PASSWORD = "s3cr3t-Pa55word-XYZZY"


# --------------------------------------------------------------------------------------------- RFC vectors

# RFC 5802 section 5 (SCRAM-SHA-1) and RFC 7677 section 3 (SCRAM-SHA-256): user "user", password "pencil".
RFC5802 = {
    "hash": "sha1",
    "client_nonce": "fyko+d2lbbFgONRv9qkxdawL",
    "server_first": "r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096",
    "client_final": "c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,p=v0X8v3Bz2T0CJGbJQyF0X+HI4Ts=",
    "server_final": "v=rmF9pqV8S7suAoZWja4dJRkFsKQ=",
}
RFC7677 = {
    "hash": "sha256",
    "client_nonce": "rOprNGfwEbeRWgbNEkqO",
    "server_first": "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",
    "client_final": "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
                    "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=",
    "server_final": "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=",
}


@pytest.mark.parametrize("vec", [RFC5802, RFC7677], ids=["rfc5802-sha1", "rfc7677-sha256"])
def test_scram_client_reproduces_rfc_vectors(vec: dict[str, str]) -> None:
    client = ScramClient("user", "pencil", vec["hash"], nonce_factory=lambda: vec["client_nonce"])
    assert client.first() == f"n,,n=user,r={vec['client_nonce']}".encode()
    assert client.final(vec["server_first"].encode()).decode() == vec["client_final"]
    client.verify(vec["server_final"].encode())  # raises if the server signature were wrong
    with pytest.raises(AuthenticationError, match="signature is wrong"):
        client.verify(b"v=" + base64.b64encode(b"\x00" * 32))


@pytest.mark.parametrize("vec", [RFC5802, RFC7677], ids=["rfc5802-sha1", "rfc7677-sha256"])
def test_scram_test_server_reproduces_rfc_vectors(vec: dict[str, str]) -> None:
    server_first = dict(p.split("=", 1) for p in vec["server_first"].split(","))
    cred = ScramCredential.make(vec["hash"], "pencil", base64.b64decode(server_first["s"]), 4096)
    server = ScramServer(vec["hash"], {"user": cred},
                         server_nonce=server_first["r"][len(vec["client_nonce"]):])
    reply, done, err = server.step(f"n,,n=user,r={vec['client_nonce']}".encode())
    assert (reply.decode(), done, err) == (vec["server_first"], False, None)
    reply, done, err = server.step(vec["client_final"].encode())
    assert (reply.decode(), done, err) == (vec["server_final"], True, None)


def test_hi_matches_pbkdf2() -> None:
    import hashlib

    assert hi("sha256", b"pencil", b"salt", 4096) == hashlib.pbkdf2_hmac("sha256", b"pencil", b"salt", 4096)


def test_scram_client_rejects_bad_server_messages() -> None:
    c = ScramClient("user", "pencil", "sha256", nonce_factory=lambda: "abc")
    with pytest.raises(AuthenticationError, match="nonce"):
        c.final(b"r=zzz123,s=QSXCR+Q6sek8bf92,i=4096")
    with pytest.raises(AuthenticationError, match="iterations"):
        ScramClient("user", "pencil", "sha256", nonce_factory=lambda: "abc").final(b"r=abcdef,s=QSXC,i=10")
    with pytest.raises(AuthenticationError, match="refused"):
        ScramClient("user", "pencil", "sha256").final(b"e=unknown-user")


def test_saslname_escaping_and_plain_token() -> None:
    c = ScramClient("a=b,c", "pw", "sha256", nonce_factory=lambda: "n0")
    assert c.first() == b"n,,n=a=3Db=2Cc,r=n0"
    assert plain_token("alice", "pw") == b"\x00alice\x00pw"


# --------------------------------------------------------------------------------------------- end to end


def _config(broker: FakeBroker, mechanism: str, password: str = PASSWORD, **kw: Any) -> ClientConfig:
    opts: dict[str, Any] = {"request_timeout_s": 5, "default_timeout_s": 5, **kw}
    return ClientConfig(broker.bootstrap, security_protocol="SASL_PLAINTEXT", sasl_mechanism=mechanism,
                        sasl_username="alice", sasl_password=password, **opts)


@pytest.mark.parametrize("mechanism", ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"])
def test_sasl_login_then_requests_work(mechanism: str) -> None:
    async def main() -> None:
        async with FakeBroker(sasl=True, users={"alice": PASSWORD}) as broker:
            net = NetworkClient(_config(broker, mechanism))
            try:
                await net.start()
                assert net.nodes[7].host == "127.0.0.1" and net.cluster_id == "fake-cluster"
                md = message_type(3, "request")
                resp = await net.send(7, md(topics=[]), 9, deadline=Deadline(5))
                assert resp.brokers[0].node_id == 7
            finally:
                await net.close()
            # handshake, then one (PLAIN) or two (SCRAM) authenticate round trips, before any Metadata
            keys = [k for k, _v, _t in broker.received]
            rounds = 1 if mechanism == "PLAIN" else 2
            assert keys[:2 + rounds] == [18, 17] + [36] * rounds
            assert broker.received_keys(17) == [1]
            assert broker.received_keys(36) == [2] * rounds  # SaslAuthenticate at the negotiated v2
            assert broker.auth_failures == []

    run(main())


@pytest.mark.parametrize("mechanism", ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"])
def test_wrong_password_is_authentication_error_without_secrets(mechanism: str,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    wrong = "WRONG-" + PASSWORD

    async def main() -> BaseException:
        async with FakeBroker(sasl=True, users={"alice": PASSWORD}) as broker:
            cfg = _config(broker, mechanism, password=wrong, default_timeout_s=3)
            net = NetworkClient(cfg)
            try:
                with pytest.raises(AuthenticationError) as info:
                    await net.start()
                assert broker.auth_failures, "the server must have rejected the credentials"
                assert "alice" in str(info.value) and mechanism in str(info.value)
                assert PASSWORD not in repr(cfg) and wrong not in repr(cfg) and wrong not in str(cfg)
                return info.value
            finally:
                await net.close()

    caplog.set_level(logging.DEBUG)
    err = run(main())
    assert isinstance(err, KafkaError) and not err.retriable
    texts = [str(err), repr(err), str(err.__cause__), str(err.__context__)]
    texts += [r.getMessage() for r in caplog.records] + [str(r.args) for r in caplog.records]
    for secret in (wrong, PASSWORD, base64.b64encode(wrong.encode()).decode()):
        assert all(secret not in t for t in texts), secret
    assert any("kadmin" in r.name for r in caplog.records), "DEBUG logging of the attempt was captured"


def test_unsupported_mechanism_lists_the_brokers_mechanisms() -> None:
    async def main() -> None:
        async with FakeBroker(sasl=True, mechanisms=("SCRAM-SHA-512",), users={"alice": PASSWORD}) as broker:
            net = NetworkClient(_config(broker, "PLAIN", default_timeout_s=3))
            try:
                with pytest.raises(UnsupportedSaslMechanismError, match="enabled mechanisms are: SCRAM-SHA-512"):
                    await net.start()
            finally:
                await net.close()

    run(main())


def test_unknown_scram_user_fails_cleanly() -> None:
    async def main() -> None:
        async with FakeBroker(sasl=True, users={"bob": PASSWORD}) as broker:
            net = NetworkClient(_config(broker, "SCRAM-SHA-256", default_timeout_s=3))
            try:
                with pytest.raises(AuthenticationError, match="alice"):
                    await net.start()
            finally:
                await net.close()

    run(main())


def test_sasl_client_against_plaintext_listener_is_authentication_error() -> None:
    async def main() -> None:
        async with FakeBroker(sasl=False, versions={3: (0, 12), 18: (0, 4)}) as broker:
            net = NetworkClient(_config(broker, "PLAIN", default_timeout_s=3))
            try:
                with pytest.raises(AuthenticationError, match="SaslHandshake"):
                    await net.start()
            finally:
                await net.close()

    run(main())


def test_session_lifetime_makes_the_client_reauthenticate() -> None:
    async def main() -> None:
        async with FakeBroker(sasl=True, users={"alice": PASSWORD}, session_lifetime_ms=300) as broker:
            net = NetworkClient(_config(broker, "SCRAM-SHA-256"))
            try:
                await net.start()
                first = net.connection(7)
                md = message_type(3, "request")
                await net.send(7, md(topics=[]), 9, deadline=Deadline(5))
                assert net.connection(7) is first
                await asyncio.sleep(0.35)
                await net.send(7, md(topics=[]), 9, deadline=Deadline(5))
                await asyncio.sleep(0.1)  # the old connection is closed once it has nothing in flight
                assert net.connection(7) is not first and first is not None and first.closed
                assert broker.received_keys(17) == [1, 1]
            finally:
                await net.close()

    run(main())
