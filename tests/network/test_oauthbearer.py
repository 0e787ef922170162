"""OAUTHBEARER (RFC 7628, KIP-255, KIP-768) from kadmin to the fake cluster, with a real local token endpoint.

The token endpoint (tests.support.oidc_server) is an HTTP server on 127.0.0.1 issuing RS256 JWTs signed with
joserfc; the fake validates them against its JWKS (issuer, audience, expiry, signature), or with Kafka's
unsecured validator.  What is checked: the client's first message byte for byte, a login with each token
source, the principal reaching the authorizer, refresh of the token on a long-lived client, refusals
(expired token, wrong audience, bad client secret) reported in one line with the broker's status, no retry
storm, a token endpoint that is down, and the client secret in no log record, repr or error.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import socket
import time
from typing import Any

import pytest

from kadmin.aio import AdminClient
from kadmin.config import ClientConfig
from kadmin.errors import AuthenticationError, KafkaError, SaslAuthenticationFailedError
from kadmin.network.oauth import OAuthToken, RefreshPolicy, client_first_message, jwt_claims
from kadmin.testing import FakeCluster
from kadmin.testing.oauth import TokenRefused, UnsecuredValidator
from kadmin.topics import NewTopic
from tests.support.aio import run
from tests.support.oidc_server import OidcServer
from tests.support.settings import AUTH_FAST as FAST

SECRET = "s3cr3t-Do-Not-Log-9f2c"


def sync(fn: Any) -> Any:
    """Run an async test body on a fresh loop, under a deadline (tests.support.aio.run)."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return run(fn(*args, **kwargs), timeout=60)
    return wrapper


async def create(a: AdminClient, name: str) -> Any:
    return (await a.create_topics([NewTopic(name, 1, 1)]))[name]


async def names(a: AdminClient) -> set[str]:
    return {t.name for t in await a.list_topics()}


def oauth(cluster: FakeCluster, **kw: Any) -> AdminClient:
    return AdminClient(cluster.bootstrap, security_protocol="SASL_PLAINTEXT", sasl_mechanism="OAUTHBEARER",
                       **{**FAST, **kw})


def oidc(idp: OidcServer, **kw: Any) -> dict[str, Any]:
    return {"sasl_oauthbearer_token_endpoint_url": idp.token_url, "sasl_oauthbearer_client_id": "svc",
            "sasl_oauthbearer_client_secret": SECRET, **kw}


@pytest.fixture
def idp() -> Any:
    with OidcServer({"svc": SECRET, "other": "x"}) as server:
        yield server


def jwks_cluster(idp: OidcServer, **kw: Any) -> FakeCluster:
    return FakeCluster(brokers=1, sasl={"mechanism": "OAUTHBEARER", "oauthbearer": {
        "jwks_url": idp.jwks_url, "issuer": idp.issuer, "audience": "kafka"}, **kw.pop("sasl", {})}, **kw)


# --------------------------------------------------------------------------------------------- the message


def test_client_first_message_is_rfc7628_with_kafka_extensions() -> None:
    assert client_first_message("tok.en.x") == b"n,,\x01auth=Bearer tok.en.x\x01\x01"
    # Extensions (KIP-342) follow the token, sorted for a stable message; an authzid goes in the GS2 header.
    assert client_first_message("t", {"logicalCluster": "lkc-1", "identityPoolId": "pool"}, authzid="a,b") == (
        b"n,a=a=2Cb,\x01auth=Bearer t\x01identityPoolId=pool\x01logicalCluster=lkc-1\x01\x01")
    with pytest.raises(ValueError, match="letters only"):
        client_first_message("t", {"auth": "x"})
    with pytest.raises(ValueError, match="letters only"):
        client_first_message("t", {"bad-name": "x"})


def test_refresh_policy_follows_kafka_window_buffer_and_min_period() -> None:
    p = RefreshPolicy(window_factor=0.8, window_jitter=0.0, min_period_s=0.0, buffer_s=0.0)
    assert p.refresh_at(1000.0, 1100.0) == pytest.approx(1080.0)
    # The buffer before expiry wins over the window ...
    assert RefreshPolicy(0.8, 0.0, 0.0, 30.0).refresh_at(1000.0, 1100.0) == pytest.approx(1070.0)
    # ... and the minimum period over the buffer; never past the expiry itself.
    assert RefreshPolicy(0.8, 0.0, 60.0, 300.0).refresh_at(1000.0, 1100.0) == pytest.approx(1060.0)
    assert RefreshPolicy(0.8, 0.0, 60.0, 300.0).refresh_at(1000.0, 1030.0) == pytest.approx(1030.0)


# --------------------------------------------------------------------------------------------- logins


@sync
async def test_unsecured_token_login_names_the_principal_for_the_authorizer() -> None:
    with FakeCluster(brokers=1, sasl={"mechanism": "OAUTHBEARER"},
                     authorizer={"super_users": ["User:alice"]}) as c:
        async with oauth(c, sasl_oauthbearer_unsecured_claims={"sub": "alice"}) as a:
            assert not isinstance(await create(a, "t1"), KafkaError)
            assert "t1" in await names(a)
        async with oauth(c, sasl_oauthbearer_unsecured_claims={"sub": "mallory"}) as b:
            refused = await create(b, "t2")
            assert isinstance(refused, KafkaError) and "AUTHORIZATION" in repr(refused).upper()
        assert "t2" not in c.topics


@sync
async def test_oidc_client_credentials_login_and_the_secret_is_nowhere(idp: OidcServer,
                                                                      caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    with jwks_cluster(idp, authorizer={"super_users": ["User:svc"]}) as c:
        client = oauth(c, **oidc(idp, sasl_oauthbearer_scope="kafka.admin",
                                  sasl_oauthbearer_extensions={"logicalCluster": "lkc-1"}))
        async with client as a:
            created = await create(a, "orders")
            topics = await a.list_topics()
        assert not isinstance(created, KafkaError) and "orders" in {t.name for t in topics}
        assert idp.issued and idp.issued[0]["scope"] == "kafka.admin" and idp.issued[0]["sub"] == "svc"
        assert idp.requests == 1  # one token for every connection of the client
        shown = [repr(client.config), str(client.config), repr(client), repr(client.net._tokens), repr(topics),
                 repr(created)]
        shown += [r.getMessage() for r in caplog.records] + [str(r.args) for r in caplog.records]
        assert not [s for s in shown if SECRET in s]
        # The token appears only in the SASL frame: not in a log line, a repr or a result either (the token the
        # client used, whole or its signature alone).
        assert len(idp.tokens) == 1
        used = idp.tokens[0]
        assert not [s for s in shown if used in s or used.split(".")[2] in s]


@sync
async def test_on_the_wire_the_token_is_only_in_the_sasl_frame_and_the_secret_nowhere(
        idp: OidcServer, monkeypatch: pytest.MonkeyPatch) -> None:
    from kadmin.network.connection import Connection

    frames: list[bytes] = []
    original = Connection._flush

    def recording(self: Connection) -> None:
        frames.extend(self._outbuf)  # every request frame kadmin writes to a broker, as written
        original(self)

    monkeypatch.setattr(Connection, "_flush", recording)
    with jwks_cluster(idp) as c:
        async with oauth(c, **oidc(idp)) as a:
            await names(a)
    assert idp.issued[0]["sub"] == "svc" and len(idp.tokens) == 1
    token = idp.tokens[0].encode()
    sent = b"".join(frames)
    assert SECRET.encode() not in sent
    signed = [f for f in frames if b"auth=Bearer " in f]
    assert len(signed) == 1 and int.from_bytes(signed[0][4:6], "big") == 36  # SaslAuthenticate, once
    assert b"auth=Bearer " + token + b"\x01" in signed[0]  # the token the endpoint issued, whole
    # Nowhere else: no other frame holds the token, nor its signature alone.
    assert [f for f in frames if token.split(b".")[2] in f] == signed


def test_the_sync_client_logs_in_with_a_token_provider(idp: OidcServer) -> None:
    import kadmin

    calls: list[int] = []

    def provider() -> OAuthToken:
        calls.append(1)
        return OAuthToken(idp.issue("sync-user")["access_token"], time.time() + 600)

    with jwks_cluster(idp) as c:
        c.add_topic("t", partitions=1)
        with kadmin.AdminClient(c.bootstrap, security_protocol="SASL_PLAINTEXT", sasl_mechanism="OAUTHBEARER",
                                sasl_oauthbearer_token_provider=provider, **FAST) as a:
            assert [t.name for t in a.list_topics()] == ["t"]
    assert calls == [1]


@sync
async def test_token_provider_sync_and_async(idp: OidcServer) -> None:
    calls: list[str] = []

    def sync_provider() -> tuple[str, float]:
        calls.append("sync")
        doc = idp.issue("from-sync")
        return doc["access_token"], (time.time() + 600) * 1000  # milliseconds, as the MSK signer returns

    async def async_provider() -> OAuthToken:
        calls.append("async")
        await asyncio.sleep(0)
        return OAuthToken(idp.issue("from-async")["access_token"], time.time() + 600)

    with jwks_cluster(idp, authorizer={"super_users": ["User:from-sync", "User:from-async"]}) as c:
        for provider in (sync_provider, async_provider):
            async with oauth(c, sasl_oauthbearer_token_provider=provider) as a:
                assert not isinstance(await create(a, f"t-{provider.__name__}"), KafkaError)
    assert calls == ["sync", "async"]
    assert {"t-sync_provider", "t-async_provider"} <= set(c.topics)


@sync
async def test_long_lived_client_refreshes_its_token_before_expiry_and_reauthenticates(idp: OidcServer) -> None:
    idp.lifetime_s = 4
    # The broker caps the session at the token's expiry and closes a connection whose session ended (KIP-368).
    with jwks_cluster(idp, sasl={"max_reauth_ms": 60_000}, latency_s=0.05) as c:
        async with oauth(c, **oidc(idp), sasl_login_refresh_min_period_s=0, sasl_login_refresh_buffer_s=0,
                         sasl_login_refresh_window_jitter=0) as a:
            failures: list[BaseException] = []
            end = time.monotonic() + 8.5
            while time.monotonic() < end:
                # Calls in flight while sessions end: none of them may fail.
                got = await asyncio.gather(*(a.list_topics() for _ in range(4)), return_exceptions=True)
                failures += [g for g in got if isinstance(g, BaseException)]
                await asyncio.sleep(0.1)
            assert failures == []
            assert idp.requests >= 3, "the 4 s token was not refreshed on a client that lived 8.5 s"
            # KIP-368 in place: the sessions were renewed on the one connection (the bootstrap connection is
            # kept as the node's), with no request sent during a renewal (the fake closes such a connection)
            # and none after a session ended (the fake closes those too), either of which would have opened
            # another connection.
            assert len(a.net.connections_opened) == 1
        handshakes = [e for e in c.request_log if e.api_key == 17]  # SaslHandshake: one per (re)authentication
        assert len(handshakes) >= 3


@sync
async def test_expired_token_is_refused_with_the_brokers_status_in_one_line(idp: OidcServer) -> None:
    stale = idp.issue("svc", lifetime_s=-120)["access_token"]  # expired two minutes ago

    def provider() -> OAuthToken:  # claims a later expiry: only the broker can tell
        return OAuthToken(stale, time.time() + 600)

    with jwks_cluster(idp) as c:
        started = time.monotonic()
        with pytest.raises(SaslAuthenticationFailedError) as err:
            async with oauth(c, sasl_oauthbearer_token_provider=provider) as a:
                await a.list_topics()
        assert time.monotonic() - started < 3.0  # fail fast: no retry until the deadline
        text = str(err.value)
        assert "\n" not in text and '{"status":"invalid_token"}' in text and "refused the token" in text
        logins = [e for e in c.request_log if e.api_key == 36]  # SaslAuthenticate
        assert len(logins) == 2  # the token, then the %x01 that ends a refused exchange: once, no retry storm


@sync
async def test_wrong_audience_is_refused(idp: OidcServer) -> None:
    idp.audience = "not-kafka"
    with jwks_cluster(idp) as c:
        with pytest.raises(SaslAuthenticationFailedError, match="invalid_token"):
            async with oauth(c, **oidc(idp)) as a:
                await a.list_topics()


@sync
async def test_wrong_client_secret_fails_fast_naming_the_oauth_error(idp: OidcServer,
                                                                    caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    with jwks_cluster(idp) as c:
        started = time.monotonic()
        with pytest.raises(AuthenticationError) as err:
            async with oauth(c, **oidc(idp, sasl_oauthbearer_client_secret="wrong-" + SECRET)) as a:
                await a.list_topics()
        assert time.monotonic() - started < 3.0
        assert "invalid_client" in str(err.value) and "HTTP 401" in str(err.value)
        assert SECRET not in str(err.value) and idp.requests == 1
        assert not [r for r in caplog.records if SECRET in r.getMessage()]


@sync
async def test_token_endpoint_errors_are_retried_with_backoff(idp: OidcServer) -> None:
    idp.fail_next = 2
    with jwks_cluster(idp) as c:
        async with oauth(c, **oidc(idp), sasl_login_retry_backoff_s=0.05) as a:
            await a.list_topics()
    assert idp.requests == 3


def test_a_plain_http_token_endpoint_elsewhere_than_this_host_is_warned_about(
        caplog: pytest.LogCaptureFixture) -> None:
    from kadmin.network.sasl import token_cache_for

    def cfg(url: str) -> ClientConfig:
        return ClientConfig("k:9092", security_protocol="SASL_SSL", sasl_mechanism="OAUTHBEARER",
                            sasl_oauthbearer_token_endpoint_url=url, sasl_oauthbearer_client_id="svc",
                            sasl_oauthbearer_client_secret=SECRET)

    for url in ("https://idp.example.com/token", "http://127.0.0.1:8080/token"):
        token_cache_for(cfg(url))
    assert not [r for r in caplog.records if "unencrypted" in r.getMessage()]
    token_cache_for(cfg("http://idp.example.com/token"))
    warned = [r.getMessage() for r in caplog.records if "unencrypted" in r.getMessage()]
    assert len(warned) == 1 and "idp.example.com" in warned[0] and SECRET not in warned[0]


@sync
async def test_https_token_endpoint_trusted_through_the_clients_own_ca(tmp_path: Any) -> None:
    from tests.support import tls_util

    pki = tls_util.make_ca(tmp_path)
    server = pki.server_context(tls_util.make_cert(pki, "idp", ["127.0.0.1", "localhost"]))
    with OidcServer({"svc": SECRET}, tls=server) as idp, FakeCluster(
            brokers=1, tls=server, sasl={"mechanism": "OAUTHBEARER", "oauthbearer": {"jwks": idp.jwks}}) as c:
        # SASL_SSL with the test CA: the same CA file makes the broker and the token endpoint trusted.
        async with AdminClient(c.bootstrap, security_protocol="SASL_SSL", sasl_mechanism="OAUTHBEARER",
                               ssl_cafile=str(pki.ca.cert), **oidc(idp), **FAST) as a:
            await names(a)
        assert idp.requests == 1
    with OidcServer({"svc": SECRET}, tls=server) as idp, FakeCluster(
            brokers=1, sasl={"mechanism": "OAUTHBEARER", "oauthbearer": {"jwks": idp.jwks}}) as plain:
        # Without the CA (SASL_PLAINTEXT: the system's CAs) the endpoint's certificate is refused at once, not
        # retried, naming the endpoint.
        started = time.monotonic()
        with pytest.raises(AuthenticationError) as err:
            async with oauth(plain, **oidc(idp)) as a:
                await names(a)
        assert idp.token_url in str(err.value) and "certificate" in str(err.value).lower()
        assert time.monotonic() - started < 3.0 and idp.requests == 0  # the handshake failed: no request


@sync
async def test_token_endpoint_down_fails_within_the_bootstrap_budget_naming_it() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed once the block ends: nothing listens there
    url = f"http://127.0.0.1:{port}/token"
    with FakeCluster(brokers=1, sasl={"mechanism": "OAUTHBEARER"}) as c:
        started = time.monotonic()
        with pytest.raises(KafkaError) as err:
            async with oauth(c, sasl_oauthbearer_token_endpoint_url=url, sasl_oauthbearer_client_id="svc",
                             sasl_oauthbearer_client_secret=SECRET, bootstrap_timeout_s=2.0) as a:
                await a.list_topics()
        assert time.monotonic() - started < 5.0
        assert url in str(err.value) and "Connection refused" in str(err.value)
        assert SECRET not in str(err.value)


@sync
async def test_token_endpoint_failing_with_http_errors_fails_within_the_bootstrap_budget_naming_it(
        idp: OidcServer) -> None:
    idp.fail_next = 10**6  # up, but answering HTTP 503 to every token request
    with jwks_cluster(idp) as c:
        started = time.monotonic()
        with pytest.raises(AuthenticationError) as err:
            async with oauth(c, **oidc(idp), bootstrap_timeout_s=2.0, default_timeout_s=30.0) as a:
                await a.list_topics()
        assert time.monotonic() - started < 4.0  # the bootstrap budget, not the 30 s call deadline
        text = str(err.value)
        assert idp.token_url in text and "HTTP 503" in text and "\n" not in text and SECRET not in text
        assert 2 <= idp.requests  # retried with backoff, within the budget
        assert not [e for e in c.request_log if e.api_key == 36]  # no token: nothing sent to the broker


# --------------------------------------------------------------------------------------------- validators


def _unsecured(claims: dict[str, Any]) -> str:
    from kadmin.network.oauth import UnsecuredJwsSource

    tok = UnsecuredJwsSource({"sub": "x"})().value
    header, _, _ = tok.split(".")
    import base64
    import json

    body = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode()
    return f"{header}.{body}."


@pytest.mark.parametrize(("claims", "status"), [  # times relative to now: "exp": 60 is a minute from now
    ({"sub": "a", "exp": 60}, None),
    ({"exp": 60}, "invalid_token"),  # no principal
    ({"sub": "", "exp": 60}, "invalid_token"),
    ({"sub": "a"}, "invalid_token"),  # no expiry
    ({"sub": "a", "exp": -5}, "invalid_token"),
    ({"sub": "a", "exp": 60, "iat": 30}, "invalid_token"),  # issued in the future
    ({"sub": "a", "exp": "soon"}, "invalid_token"),
    ({"sub": "a", "exp": 60, "nbf": 30}, "invalid_token"),  # not valid yet
])
def test_kafka_unsecured_validator_rules(claims: dict[str, Any], status: str | None) -> None:
    now = time.time()
    claims = {k: now + v if k in ("exp", "iat", "nbf") and isinstance(v, int) else v for k, v in claims.items()}
    v = UnsecuredValidator()
    if status is None:
        assert v.validate(_unsecured(claims)).principal == "a"
    else:
        with pytest.raises(TokenRefused, match=status):
            v.validate(_unsecured(claims))


def test_unsecured_validator_scope_and_claim_names() -> None:
    v = UnsecuredValidator(required_scope=("kafka",), scope_claim="scp", sub_claim="uid")
    ok = v.validate(_unsecured({"uid": "a", "exp": time.time() + 60, "scp": ["kafka", "x"]}))
    assert ok.principal == "a" and ok.scope == ("kafka", "x")
    with pytest.raises(TokenRefused, match="insufficient_scope"):
        v.validate(_unsecured({"uid": "a", "exp": time.time() + 60, "scp": "x y"}))
    # A signed token is not an unsecured one.
    with OidcServer({}) as idp, pytest.raises(TokenRefused, match="invalid_token"):
        UnsecuredValidator().validate(idp.issue("a")["access_token"])


def test_unsecured_token_made_by_the_client_has_kafkas_claims() -> None:
    from kadmin.network.oauth import UnsecuredJwsSource

    tok = UnsecuredJwsSource({"sub": "alice", "scope": ["a", "b"]}, lifetime_s=120)()
    claims = jwt_claims(tok.value)
    assert claims["sub"] == "alice" and claims["scope"] == ["a", "b"]
    assert claims["exp"] - claims["iat"] == pytest.approx(120)
    assert tok.principal == "alice" and "***" in repr(tok) and tok.value not in repr(tok)


# --------------------------------------------------------------------------------------------- bad config


@pytest.mark.parametrize(("kw", "message"), [
    ({}, "needs a token source"),
    ({"sasl_oauthbearer_unsecured_claims": {"sub": "a"}, "sasl_oauthbearer_token_provider": lambda: ("t", 1)},
     "takes one token source"),
    ({"sasl_oauthbearer_unsecured_claims": {"scope": "a"}}, "needs a 'sub' claim"),
    ({"sasl_oauthbearer_token_endpoint_url": "http://idp/token"}, "needs sasl_oauthbearer_client_id"),
    ({"sasl_oauthbearer_token_endpoint_url": "ftp://idp/token", "sasl_oauthbearer_client_id": "a",
      "sasl_oauthbearer_client_secret": "b"}, "http://, https:// or file://"),
    ({"sasl_oauthbearer_token_provider": "not callable"}, "must be a callable"),
    ({"sasl_oauthbearer_unsecured_claims": {"sub": "a"}, "sasl_oauthbearer_extensions": {"auth": "x"}},
     "letters only"),
    ({"sasl_oauthbearer_unsecured_claims": {"sub": "a"}, "sasl_username": "u", "sasl_password": "p"},
     "not used by OAUTHBEARER"),
])
def test_bad_oauthbearer_config_is_refused_before_connecting(kw: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ClientConfig("k:9092", security_protocol="SASL_SSL", sasl_mechanism="OAUTHBEARER", **kw)


def test_oidc_without_joserfc_is_refused_before_connecting_naming_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "joserfc" else real(name, *a))
    with pytest.raises(ValueError, match=r"pip install 'kafka-kadmin\[oauth\]'"):
        ClientConfig("k:9092", security_protocol="SASL_SSL", sasl_mechanism="OAUTHBEARER",
                     sasl_oauthbearer_unsecured_claims={"sub": "a"})
    # A token provider needs no extra.
    ClientConfig("k:9092", security_protocol="SASL_SSL", sasl_mechanism="OAUTHBEARER",
                 sasl_oauthbearer_token_provider=lambda: ("t", 1))


def test_oauth_settings_without_oauthbearer_and_unknown_mechanism() -> None:
    with pytest.raises(ValueError, match="not OAUTHBEARER"):
        ClientConfig("k:9092", security_protocol="SASL_SSL", sasl_mechanism="PLAIN", sasl_username="u",
                     sasl_password="p", sasl_oauthbearer_unsecured_claims={"sub": "a"})
    with pytest.raises(ValueError, match="'SCRAM-SHA-1' is not supported; kadmin speaks .*OAUTHBEARER"):
        ClientConfig("k:9092", security_protocol="SASL_SSL", sasl_mechanism="SCRAM-SHA-1")


# --------------------------------------------------------------------------------------------- properties


def test_java_unsecured_jaas_properties() -> None:
    c = ClientConfig.from_properties({
        "bootstrap.servers": "k:9092", "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "OAUTHBEARER",
        "sasl.jaas.config": 'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required '
                            'unsecuredLoginStringClaim_sub="alice" unsecuredLoginListClaim_scope=",a,b" '
                            'unsecuredLoginNumberClaim_level="3" unsecuredLoginLifetimeSeconds="120" '
                            'unsecuredLoginExtension_traceId="abc";'})
    assert dict(c.sasl_oauthbearer_unsecured_claims or {}) == {"sub": "alice", "scope": ["a", "b"], "level": 3}
    assert c.sasl_oauthbearer_unsecured_lifetime_s == 120 and dict(c.sasl_oauthbearer_extensions) == {
        "traceId": "abc"}


def test_java_oidc_properties_keep_the_secret_out_of_the_repr(caplog: pytest.LogCaptureFixture) -> None:
    c = ClientConfig.from_properties({
        "bootstrap.servers": "k:9092", "security.protocol": "SASL_SSL", "sasl.mechanism": "OAUTHBEARER",
        "sasl.login.callback.handler.class":
            "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler",
        "sasl.oauthbearer.token.endpoint.url": "https://idp.example/token",
        "sasl.login.retry.backoff.ms": "250", "sasl.login.retry.backoff.max.ms": "5000",
        "sasl.login.refresh.window.factor": "0.9", "sasl.login.refresh.buffer.seconds": "30",
        "sasl.jaas.config": 'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required '
                            f'clientId="svc" clientSecret="{SECRET}" scope="kafka" extension_logicalCluster="lkc-1";'})
    assert (c.sasl_oauthbearer_token_endpoint_url, c.sasl_oauthbearer_client_id, c.sasl_oauthbearer_scope) == (
        "https://idp.example/token", "svc", "kafka")
    assert c.sasl_oauthbearer_client_secret == SECRET and SECRET not in repr(c)
    assert c.sasl_login_retry_backoff_s == 0.25 and c.sasl_login_retry_backoff_max_s == 5.0
    assert c.sasl_login_refresh_window_factor == 0.9 and c.sasl_login_refresh_buffer_s == 30
    assert dict(c.sasl_oauthbearer_extensions) == {"logicalCluster": "lkc-1"}
    assert not [r for r in caplog.records if SECRET in r.getMessage()]


def test_librdkafka_oidc_and_kip1139_properties() -> None:
    base = {"bootstrap.servers": "k:9092", "security.protocol": "SASL_SSL", "sasl.mechanisms": "OAUTHBEARER"}
    c = ClientConfig.from_properties({**base, "sasl.oauthbearer.method": "oidc",
                                      "sasl.oauthbearer.token.endpoint.url": "https://idp/token",
                                      "sasl.oauthbearer.client.id": "svc", "sasl.oauthbearer.client.secret": "x",
                                      "sasl.oauthbearer.scope": "s1 s2",
                                      "sasl.oauthbearer.extensions": "logicalCluster=lkc-1,identityPoolId=p"})
    assert c.sasl_oauthbearer_client_id == "svc" and c.sasl_oauthbearer_scope == "s1 s2"
    assert dict(c.sasl_oauthbearer_extensions) == {"logicalCluster": "lkc-1", "identityPoolId": "p"}
    k = ClientConfig.from_properties({**base, "sasl.oauthbearer.token.endpoint.url": "https://idp/token",
                                      "sasl.oauthbearer.client.credentials.client.id": "svc2",
                                      "sasl.oauthbearer.client.credentials.client.secret": "y"})
    assert (k.sasl_oauthbearer_client_id, k.sasl_oauthbearer_client_secret) == ("svc2", "y")
    u = ClientConfig.from_properties({**base, "enable.sasl.oauthbearer.unsecure.jwt": "true",
                                      "sasl.oauthbearer.config": "principal=bob scope=a,b lifeSeconds=60"})
    assert dict(u.sasl_oauthbearer_unsecured_claims or {}) == {"sub": "bob", "scope": ["a", "b"]}
    assert u.sasl_oauthbearer_unsecured_lifetime_s == 60


@pytest.mark.parametrize(("props", "message"), [
    ({}, "needs a token source"),
    ({"sasl.login.callback.handler.class": "com.example.MyHandler"}, "Java class kadmin cannot run"),
    ({"sasl.oauthbearer.method": "oidc"}, "needs sasl.oauthbearer.token.endpoint.url"),
    ({"sasl.jaas.config": 'org.apache.kafka.common.security.plain.PlainLoginModule required username="a" '
                          'password="b";'}, "does not go with PlainLoginModule"),
])
def test_bad_oauthbearer_properties(props: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ClientConfig.from_properties({"bootstrap.servers": "k:9092", "security.protocol": "SASL_SSL",
                                      "sasl.mechanism": "OAUTHBEARER", **props})
