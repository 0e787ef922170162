"""KIP-368: sessions with a lifetime are renewed on the same connection, before they end, without failing calls.

The fake announces a session lifetime (connections.max.reauth.ms, capped by a token's expiry), closes a
connection that sends anything after its session ended or while it re-authenticates, and refuses a renewal
that changes the principal, as Kafka's broker does.  A client that did not renew in place, or sent requests
during a renewal, would open another connection, which the tests count.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from kadmin.aio import AdminClient
from kadmin.errors import AuthenticationError
from kadmin.network.oauth import OAuthToken, UnsecuredJwsSource, client_first_message
from kadmin.testing import FakeCluster
from kadmin.testing.rawclient import RawConnection
from tests.support.aio import run
from tests.support.settings import AUTH_FAST as FAST


def raw(c: FakeCluster) -> RawConnection:
    host, port = c.addresses[c.node_ids[0]]
    return RawConnection(host, port)


def login(conn: RawConnection, sub: str) -> Any:
    assert conn.request(17, 1, mechanism="OAUTHBEARER").error_code == 0
    return conn.request(36, 2, auth_bytes=client_first_message(UnsecuredJwsSource({"sub": sub})().value))


def test_fake_renews_a_session_in_place_and_refuses_a_new_principal() -> None:
    with FakeCluster(brokers=1, sasl={"mechanism": "OAUTHBEARER", "max_reauth_ms": 60_000}) as c:
        with raw(c) as conn:
            assert login(conn, "alice").session_lifetime_ms == 60_000
            again = login(conn, "alice")  # a SaslHandshake on an authenticated connection: re-authentication
            assert (again.error_code, again.session_lifetime_ms) == (0, 60_000)
            assert conn.request(3, 12, topics=[]).throttle_time_ms == 0
            changed = login(conn, "mallory")
            assert changed.error_code == 58 and "Cannot change principals" in changed.error_message
            assert conn.is_closed()
        with raw(c) as conn:  # anything but the renewal while it runs closes the connection
            login(conn, "alice")
            assert conn.request(17, 1, mechanism="OAUTHBEARER").error_code == 0
            conn.send(3, 12, b"\x01\x00\x00\x00")
            assert conn.is_closed()
    with FakeCluster(brokers=1, sasl={"mechanism": "OAUTHBEARER"}) as c, raw(c) as conn:
        # Without a session lifetime there is nothing to renew: a second handshake is out of sequence (Kafka).
        assert login(conn, "alice").session_lifetime_ms == 0
        assert conn.request(17, 1, mechanism="OAUTHBEARER").error_code == 34  # ILLEGAL_SASL_STATE


def test_an_idle_connection_past_its_session_is_replaced_and_the_call_succeeds() -> None:
    async def body() -> None:
        with FakeCluster(brokers=1, sasl={"mechanism": "PLAIN", "users": {"bob": "pw"}, "max_reauth_ms": 400}) as c:
            async with AdminClient(c.bootstrap, security_protocol="SASL_PLAINTEXT", sasl_mechanism="PLAIN",
                                   sasl_username="bob", sasl_password="pw", **FAST) as a:
                await a.list_topics()
                await asyncio.sleep(0.6)  # past the session: a renewal now would be closed by the broker
                assert await a.list_topics() == []
                assert len(a.net.connections_opened) == 2

    run(body(), timeout=30)


@pytest.mark.parametrize("mechanism", ["PLAIN", "SCRAM-SHA-512"])
def test_password_sessions_are_renewed_on_one_connection_under_load(mechanism: str) -> None:
    async def body() -> None:
        with FakeCluster(brokers=1, latency_s=0.03, sasl={"mechanism": mechanism, "users": {"bob": "pw"},
                                                          "max_reauth_ms": 1500}) as c:
            async with AdminClient(c.bootstrap, security_protocol="SASL_PLAINTEXT", sasl_mechanism=mechanism,
                                   sasl_username="bob", sasl_password="pw", **FAST) as a:
                failures: list[BaseException] = []
                end = time.monotonic() + 3.5
                while time.monotonic() < end:
                    got = await asyncio.gather(*(a.list_topics() for _ in range(5)), return_exceptions=True)
                    failures += [g for g in got if isinstance(g, BaseException)]
                assert failures == []
                assert len(a.net.connections_opened) == 1
            assert len([e for e in c.request_log if e.api_key == 17]) >= 3

    run(body(), timeout=30)


def test_a_refused_renewal_closes_the_connection_and_the_call_logs_in_afresh(
        caplog: pytest.LogCaptureFixture) -> None:
    tokens: list[Any] = [{"sub": "alice"}]

    def provider() -> OAuthToken:  # short tokens, so each renewal fetches the current one
        current = tokens[-1]
        if isinstance(current, str):
            return OAuthToken(current, time.time() + 60)
        return UnsecuredJwsSource(current, lifetime_s=4.0)()

    async def body() -> None:
        with FakeCluster(brokers=1, sasl={"mechanism": "OAUTHBEARER", "max_reauth_ms": 60_000}) as c:
            async with AdminClient(c.bootstrap, security_protocol="SASL_PLAINTEXT", sasl_mechanism="OAUTHBEARER",
                                   sasl_oauthbearer_token_provider=provider, sasl_login_refresh_min_period_s=0,
                                   sasl_login_refresh_buffer_s=0, sasl_login_refresh_window_jitter=0, **FAST) as a:
                await a.list_topics()
                # A renewal may not change the principal: Kafka refuses it and closes the connection.  The call
                # that waited for it is retried by the admin layer on a new connection, which logs in afresh.
                tokens.append({"sub": "mallory"})
                await asyncio.sleep(3.6)  # past the renewal point (85%), within the session
                assert await a.list_topics() == []
                assert len(a.net.connections_opened) == 2 and a.net.token_subject == "mallory"
                assert any("Cannot change principals" in r.getMessage() for r in caplog.records)
                # A token the broker refuses: the renewal and the fresh login fail, with its status, in one line.
                tokens.append("not-a-jwt")
                await asyncio.sleep(3.6)
                with pytest.raises(AuthenticationError) as err2:
                    await a.list_topics()
                assert "invalid_token" in str(err2.value) and "\n" not in str(err2.value)

    caplog.set_level("INFO", logger="kadmin.network.connection")
    run(body(), timeout=30)


def test_a_call_in_flight_when_the_renewal_starts_is_answered_on_the_same_connection() -> None:
    async def body() -> None:
        with FakeCluster(brokers=1, sasl={"mechanism": "PLAIN", "users": {"bob": "pw"}, "max_reauth_ms": 4000}) as c:
            async with AdminClient(c.bootstrap, security_protocol="SASL_PLAINTEXT", sasl_mechanism="PLAIN",
                                   sasl_username="bob", sasl_password="pw", **FAST) as a:
                await a.list_topics()
                conn = a.net.connection(1)
                assert conn is not None and conn.reauth_at is not None
                loop = asyncio.get_running_loop()
                await asyncio.sleep(conn.reauth_at - 0.4 - time.monotonic())
                c.delay(1, "Metadata", 0.6)  # A is held by the broker across the renewal point
                slow = loop.create_task(a.list_topics())
                await asyncio.sleep(conn.reauth_at + 0.1 - time.monotonic())
                assert conn.in_flight == 1 and not slow.done()
                # B starts the renewal while A is in flight: SaslHandshake goes out behind A, B after the renewal.
                assert await a.list_topics() == []
                assert await slow == []
                assert a.net.connection(1) is conn and not conn.closed
                assert len(a.net.connections_opened) == 1
            keys = [e.api_key for e in c.request_log]
            assert keys.count(17) == 2  # the login and the renewal
            # The renewal's SaslHandshake came while A (Metadata) was held, and before B.
            first_renewal = [i for i, k in enumerate(keys) if k == 17][1]
            assert 3 in keys[first_renewal:]

    run(body(), timeout=30)
