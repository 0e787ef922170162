"""The fake cluster's OAUTHBEARER server and KIP-368 session lifetime, over raw sockets and with real clients.

Raw sockets check the server side byte for byte (RFC 7628's JSON status challenge, the %x01 that ends a refused
exchange, the session lifetime announced in SaslAuthenticate v1+, the connection closed on the first request
after the session ended).  Then independent clients log in to the same fake, so a bug cannot hide on both
sides: librdkafka (confluent-kafka) with its OIDC client-credentials flow against a real local token endpoint
and with its unsecured JWT, and kafka-python with its OAUTHBEARER token provider.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from kadmin.network.oauth import UnsecuredJwsSource, client_first_message
from kadmin.testing import FakeCluster
from kadmin.testing.rawclient import RawConnection
from tests.support.oidc_server import OidcServer


def raw(c: FakeCluster) -> RawConnection:
    host, port = c.addresses[c.node_ids[0]]
    return RawConnection(host, port)


def test_oauthbearer_exchange_and_refusal_over_raw_frames() -> None:
    with OidcServer({}) as idp, FakeCluster(brokers=1, sasl={"mechanism": "OAUTHBEARER", "max_reauth_ms": 600_000,
                                                               "oauthbearer": {"jwks": idp.jwks, "audience": "kafka",
                                                                               "issuer": idp.issuer}}) as c:
        good = idp.issue("alice", lifetime_s=120)["access_token"]
        with raw(c) as conn:
            assert conn.request(17, 1, mechanism="OAUTHBEARER").error_code == 0
            ok = conn.request(36, 2, auth_bytes=client_first_message(good, {"traceId": "t1"}))
            assert (ok.error_code, ok.auth_bytes) == (0, b"")
            # The session is capped by the token's expiry (120 s), below connections.max.reauth.ms.
            assert 110_000 <= ok.session_lifetime_ms <= 120_000
            assert conn.request(3, 12, topics=[]).throttle_time_ms == 0  # authenticated: Metadata is served
        wrong_aud = idp.issue("alice", audience="elsewhere")["access_token"]
        with raw(c) as conn:
            assert conn.request(17, 1, mechanism="OAUTHBEARER").error_code == 0
            challenge = conn.request(36, 2, auth_bytes=client_first_message(wrong_aud))
            assert (challenge.error_code, challenge.auth_bytes) == (0, b'{"status":"invalid_token"}')
            final = conn.request(36, 2, auth_bytes=b"\x01")
            assert (final.error_code, final.error_message) == (58, '{"status":"invalid_token"}')
            assert conn.is_closed()
        with raw(c) as conn:  # not a GS2 message at all
            assert conn.request(17, 1, mechanism="OAUTHBEARER").error_code == 0
            assert conn.request(36, 2, auth_bytes=b"Bearer x").error_code == 58
            assert conn.is_closed()


def test_an_expired_session_closes_the_connection_on_the_next_request() -> None:
    with FakeCluster(brokers=1, sasl={"mechanism": "OAUTHBEARER", "max_reauth_ms": 600}) as c:
        token = UnsecuredJwsSource({"sub": "alice"})().value
        with raw(c) as conn:
            assert conn.request(17, 1, mechanism="OAUTHBEARER").error_code == 0
            ok = conn.request(36, 1, auth_bytes=client_first_message(token))
            assert ok.error_code == 0 and ok.session_lifetime_ms == 600
            assert conn.request(3, 12, topics=[]).throttle_time_ms == 0
            time.sleep(0.8)
            conn.send(3, 12, b"\x01\x00\x00\x00")
            assert conn.is_closed()
        # SaslAuthenticate v0 has no lifetime field: such a client is never cut off (as with Kafka).
        with raw(c) as conn:
            assert conn.request(17, 1, mechanism="OAUTHBEARER").error_code == 0
            assert conn.request(36, 0, auth_bytes=client_first_message(token)).error_code == 0
            time.sleep(0.8)
            assert conn.request(3, 12, topics=[]).throttle_time_ms == 0


# --------------------------------------------------------------------------------------------- real clients


def _confluent_admin(c: FakeCluster, **conf: Any) -> Any:
    confluent = pytest.importorskip("confluent_kafka.admin")
    return confluent.AdminClient({"bootstrap.servers": c.bootstrap, "security.protocol": "SASL_PLAINTEXT",
                                  "sasl.mechanisms": "OAUTHBEARER", **conf})


def test_librdkafka_oidc_client_credentials_logs_in_to_the_fake() -> None:
    with OidcServer({"rdk": "rdk-secret"}) as idp, FakeCluster(
            brokers=1, sasl={"mechanism": "OAUTHBEARER", "oauthbearer": {
                "jwks_url": idp.jwks_url, "issuer": idp.issuer, "audience": "kafka"}}) as c:
        c.add_topic("seen-by-librdkafka", partitions=1)
        a = _confluent_admin(c, **{"sasl.oauthbearer.method": "oidc", "sasl.oauthbearer.client.id": "rdk",
                                   "sasl.oauthbearer.client.secret": "rdk-secret",
                                   "sasl.oauthbearer.scope": "kafka",
                                   "sasl.oauthbearer.token.endpoint.url": idp.token_url})
        md = a.list_topics(timeout=15)
        assert "seen-by-librdkafka" in md.topics
        assert idp.issued and idp.issued[0]["sub"] == "rdk" and idp.issued[0]["scope"] == "kafka"


def test_librdkafka_unsecured_jwt_logs_in_and_a_bad_secret_does_not() -> None:
    with FakeCluster(brokers=1, sasl={"mechanism": "OAUTHBEARER"}) as c:
        c.add_topic("dev", partitions=1)
        a = _confluent_admin(c, **{"enable.sasl.oauthbearer.unsecure.jwt": True,
                                   "sasl.oauthbearer.config": "principal=alice scope=kafka lifeSeconds=600"})
        assert "dev" in a.list_topics(timeout=15).topics
    with OidcServer({"rdk": "right"}) as idp, FakeCluster(
            brokers=1, sasl={"mechanism": "OAUTHBEARER", "oauthbearer": {"jwks_url": idp.jwks_url}}) as c:
        kafka_exc = pytest.importorskip("confluent_kafka").KafkaException
        a = _confluent_admin(c, **{"sasl.oauthbearer.method": "oidc", "sasl.oauthbearer.client.id": "rdk",
                                   "sasl.oauthbearer.client.secret": "wrong",
                                   "sasl.oauthbearer.token.endpoint.url": idp.token_url})
        with pytest.raises(kafka_exc):
            a.list_topics(timeout=3)
        assert not [e for e in c.request_log if e.api_key == 36]  # no token: no SaslAuthenticate was sent


def test_kafka_python_token_provider_logs_in_to_the_fake_and_a_refused_token_fails() -> None:
    kafka_admin = pytest.importorskip("kafka.admin")
    oauth = pytest.importorskip("kafka.net.sasl.oauth")

    with OidcServer({}) as idp, FakeCluster(brokers=1, sasl={"mechanism": "OAUTHBEARER", "oauthbearer": {
            "jwks_url": idp.jwks_url, "issuer": idp.issuer, "audience": "kafka"}},
            authorizer={"super_users": ["User:kp"]}) as c:

        class Provider(oauth.AbstractTokenProvider):  # type: ignore[misc, name-defined]
            def __init__(self, audience: str) -> None:
                self.audience = audience

            def token(self) -> str:
                return str(idp.issue("kp", audience=self.audience)["access_token"])

        def admin(provider: Any) -> Any:
            return kafka_admin.KafkaAdminClient(bootstrap_servers=c.bootstrap, security_protocol="SASL_PLAINTEXT",
                                                sasl_mechanism="OAUTHBEARER", sasl_oauth_token_provider=provider,
                                                request_timeout_ms=5000, bootstrap_timeout_ms=3000)

        a = admin(Provider("kafka"))
        try:
            a.create_topics([kafka_admin.NewTopic("from-kafka-python", 1, 1)])
        finally:
            a.close()
        assert "from-kafka-python" in c.topics  # the token's subject was authorized as User:kp
        with pytest.raises(Exception):  # noqa: B017 - kafka-python's error classes differ between versions
            admin(Provider("elsewhere"))
        assert [e for e in c.request_log if e.api_key == 36]
