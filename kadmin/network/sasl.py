"""SASL authentication over Kafka's own framing: SaslHandshake v1, then SaslAuthenticate round trips.

PLAIN sends the password in one message (only sensible over TLS); SCRAM-SHA-256/512 (RFC 5802, RFC 7677)
proves knowledge of the password without sending it and checks that the broker knows it too; OAUTHBEARER
(RFC 7628, KIP-255) sends a bearer token from the client's token cache (kadmin.network.oauth).

Passwords are never logged, formatted into messages or kept on exceptions: an authentication failure is
exactly the moment people paste logs into tickets.

The password is used as its UTF-8 bytes without SASLprep, because that is what Kafka's broker does when it
stores and checks SCRAM credentials; applying SASLprep here would lock out users whose passwords it changes.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import secrets
import time
import urllib.parse
from collections.abc import Awaitable, Callable
from typing import Any

from kadmin.config import ClientConfig
from kadmin.errors import (
    AuthenticationError,
    ErrorCode,
    KafkaConnectionError,
    SaslAuthenticationFailedError,
    UnsupportedSaslMechanismError,
    error_for_code,
)
from kadmin.network.connection import Connection
from kadmin.network.negotiation import VersionTable, choose_version, usable_range
from kadmin.network.oauth import (
    OAuthToken,
    OidcClientCredentials,
    RefreshPolicy,
    TokenCache,
    UnsecuredJwsSource,
    client_first_message,
)
from kadmin.network.retry import Deadline
from kadmin.network.sasl_gssapi import gssapi_exchange
from kadmin.network.tls import build_ssl_context
from kadmin.protocol import message_type
from kadmin.protocol.apis import ApiKey

logger = logging.getLogger("kadmin.network.sasl")

SASL_HANDSHAKE = ApiKey.SASL_HANDSHAKE
SASL_AUTHENTICATE = ApiKey.SASL_AUTHENTICATE
_UNSUPPORTED_SASL_MECHANISM = ErrorCode.UNSUPPORTED_SASL_MECHANISM

_HASHES = {"SCRAM-SHA-256": "sha256", "SCRAM-SHA-512": "sha512"}
#: Kafka's broker never issues fewer iterations; fewer from a peer means a downgrade attempt or a broken peer.
MIN_SCRAM_ITERATIONS = 4096
MAX_SCRAM_ITERATIONS = 1_000_000


def plain_token(username: str, password: str) -> bytes:
    """RFC 4616 message with an empty authorization id (the broker then authorizes as ``username``)."""
    return b"\x00" + username.encode("utf-8") + b"\x00" + password.encode("utf-8")


def _saslname(name: str) -> str:
    return name.replace("=", "=3D").replace(",", "=2C")


def _attributes(message: str, what: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for part in message.split(","):
        if len(part) < 2 or part[1] != "=":
            raise AuthenticationError(f"SCRAM: malformed {what} from the broker")
        out.setdefault(part[0], part[2:])
    return out


class ScramClient:
    """The client side of one SCRAM exchange (RFC 5802), for SHA-256 or SHA-512 (RFC 7677).

    ``hash_name`` may be any hashlib name so the RFC 5802 SHA-1 test vectors can be checked too; Kafka only
    offers the SHA-256 and SHA-512 mechanisms.  Use once: first(), final(server_first), verify(server_final).
    """

    def __init__(self, username: str, password: str, hash_name: str, *,
                 nonce_factory: Callable[[], str] | None = None, token_auth: bool = False) -> None:
        self._username = username
        self._password = password.encode("utf-8")
        self._hash = hash_name
        self._nonce = (nonce_factory or _new_nonce)()
        if "," in self._nonce or not self._nonce.isprintable():
            raise ValueError("SCRAM nonce must be printable and contain no comma")
        # RFC 5802 extensions follow the nonce; Kafka's only one is ``tokenauth=true`` (KIP-48): the name is a
        # delegation token's id and the password its HMAC, checked against the token cache, not the users.
        self._client_first_bare = f"n={_saslname(username)},r={self._nonce}" + (",tokenauth=true" if token_auth
                                                                                  else "")
        self._server_signature: bytes | None = None

    def __repr__(self) -> str:
        return f"ScramClient(user={self._username!r}, hash={self._hash})"

    def first(self) -> bytes:
        return ("n,," + self._client_first_bare).encode("utf-8")

    def final(self, server_first: bytes) -> bytes:
        try:
            text = server_first.decode("utf-8")
        except UnicodeDecodeError:
            raise AuthenticationError("SCRAM: the broker's first message is not UTF-8") from None
        if text.startswith("e="):
            raise AuthenticationError(f"SCRAM: the broker refused the first message: {text[2:]}")
        attrs = _attributes(text, "server-first-message")
        if "m" in attrs:
            raise AuthenticationError("SCRAM: the broker asks for an unsupported mandatory extension")
        nonce, salt_b64, iters_s = attrs.get("r"), attrs.get("s"), attrs.get("i")
        if nonce is None or salt_b64 is None or iters_s is None:
            raise AuthenticationError("SCRAM: the broker's first message lacks the nonce, salt or iteration count")
        if not nonce.startswith(self._nonce) or len(nonce) <= len(self._nonce):
            raise AuthenticationError("SCRAM: the broker's nonce does not extend ours (possible replay)")
        try:
            salt = base64.b64decode(salt_b64, validate=True)
            iterations = int(iters_s)
        except ValueError:
            raise AuthenticationError("SCRAM: the broker sent a malformed salt or iteration count") from None
        if not MIN_SCRAM_ITERATIONS <= iterations <= MAX_SCRAM_ITERATIONS:
            raise AuthenticationError(f"SCRAM: the broker asks for {iterations} iterations; accepted are "
                                      f"{MIN_SCRAM_ITERATIONS}..{MAX_SCRAM_ITERATIONS}")
        salted = hashlib.pbkdf2_hmac(self._hash, self._password, salt, iterations)
        client_key = self._hmac(salted, b"Client Key")
        stored_key = hashlib.new(self._hash, client_key).digest()
        without_proof = f"c={base64.b64encode(b'n,,').decode()},r={nonce}"
        auth_message = f"{self._client_first_bare},{text},{without_proof}".encode()
        signature = self._hmac(stored_key, auth_message)
        proof = bytes(a ^ b for a, b in zip(client_key, signature, strict=True))
        self._server_signature = self._hmac(self._hmac(salted, b"Server Key"), auth_message)
        return f"{without_proof},p={base64.b64encode(proof).decode()}".encode()

    def verify(self, server_final: bytes) -> None:
        """Check the broker's signature: a broker that does not know the password must not pass as ours."""
        if self._server_signature is None:
            raise AuthenticationError("SCRAM: final message verified before the exchange")
        text = server_final.decode("utf-8", errors="replace")
        attrs = _attributes(text, "server-final-message")
        if "e" in attrs:
            raise SaslAuthenticationFailedError(f"SCRAM: the broker rejected the proof: {attrs['e']}")
        try:
            got = base64.b64decode(attrs.get("v", ""), validate=True)
        except ValueError:
            got = b""
        if not hmac.compare_digest(got, self._server_signature):
            raise AuthenticationError("SCRAM: the broker's signature is wrong: it does not know this user's "
                                      "credentials (or the connection is being tampered with)")

    def _hmac(self, key: bytes, msg: bytes) -> bytes:
        return hmac.new(key, msg, self._hash).digest()


def _new_nonce() -> str:
    return base64.b64encode(secrets.token_bytes(24)).decode("ascii")


def token_cache_for(config: ClientConfig) -> TokenCache | None:
    """The OAUTHBEARER token cache of one client (None for other mechanisms): made once per client, so its
    connections share one token and one refresh schedule."""
    if config.sasl_mechanism != "OAUTHBEARER" or not config.uses_sasl:
        return None
    policy = RefreshPolicy(config.sasl_login_refresh_window_factor, config.sasl_login_refresh_window_jitter,
                           config.sasl_login_refresh_min_period_s, config.sasl_login_refresh_buffer_s)
    source: Callable[..., Any]
    if config.sasl_oauthbearer_token_provider is not None:
        source = config.sasl_oauthbearer_token_provider
        describe = getattr(source, "__qualname__", None) or type(source).__name__
    elif config.sasl_oauthbearer_token_endpoint_url is not None:
        source = OidcClientCredentials(
            config.sasl_oauthbearer_token_endpoint_url, config.sasl_oauthbearer_client_id,
            config.sasl_oauthbearer_client_secret, config.sasl_oauthbearer_scope,
            connect_timeout_s=config.sasl_login_connect_timeout_s, read_timeout_s=config.sasl_login_read_timeout_s,
            retry_backoff_s=config.sasl_login_retry_backoff_s,
            retry_backoff_max_s=config.sasl_login_retry_backoff_max_s,
            # The client's TLS settings serve the token endpoint too (as in Kafka's clients): one CA file for both.
            ssl_context=build_ssl_context(config) if config.uses_ssl else None)
        describe = config.sasl_oauthbearer_token_endpoint_url
        host = urllib.parse.urlparse(describe).hostname or ""
        if describe.startswith("http://") and host not in ("localhost", "127.0.0.1", "::1"):
            logger.warning("OAUTHBEARER: the token endpoint %s is plain HTTP: the client secret and the tokens "
                           "cross the network unencrypted; use https://", describe)
    else:
        assert config.sasl_oauthbearer_unsecured_claims is not None  # ClientConfig checked there is a source
        source = UnsecuredJwsSource(config.sasl_oauthbearer_unsecured_claims,
                                    config.sasl_oauthbearer_unsecured_lifetime_s)
        describe = "an unsecured token"
    return TokenCache(source, policy, describe=describe)


async def authenticate(conn: Connection, *, config: ClientConfig, versions: VersionTable,
                       deadline: Deadline, tokens: TokenCache | None = None) -> None:
    """Authenticate ``conn`` as ``config.sasl_username`` (or with an OAUTHBEARER token from ``tokens``, the
    client's token cache); raises AuthenticationError with a useful reason.

    Sets ``conn.reauth_at`` when the broker limits the session (KIP-368), so the client replaces the
    connection, with a fresh login (for OAUTHBEARER, a token fetched again once the cached one is due for
    refresh), before the broker closes it.
    """
    mechanism = config.sasl_mechanism
    username = config.sasl_username
    password = config.sasl_password
    token: OAuthToken | None = None
    if mechanism == "OAUTHBEARER":
        if tokens is None:
            tokens = token_cache_for(config)
        assert tokens is not None
        # The token is fetched before the handshake, so a token endpoint that is down fails the login without
        # leaving a half-authenticated connection behind, within the caller's budget.
        token = await tokens.token(deadline.remaining())
        username, password = token.principal or "(token)", ""
    elif mechanism == "GSSAPI":
        username, password = config.sasl_kerberos_principal or "(Kerberos ticket)", ""
    elif mechanism is None or username is None or password is None:
        raise AuthenticationError("SASL needs sasl_mechanism, sasl_username and sasl_password")
    await _handshake(conn, mechanism, config=config, versions=versions, deadline=deadline)
    who = (f"delegation token {username!r}" if config.sasl_token_auth
           else f"Kerberos principal {username!r}" if mechanism == "GSSAPI"
           else f"the token of {username!r}" if mechanism == "OAUTHBEARER" else f"user {username!r}")
    round_trip = _round_trip(conn, mechanism, who, config=config, versions=versions, deadline=deadline)
    lifetime_ms = await _exchange(conn, mechanism, who, round_trip, username, password, token, config)
    _arm_renewal(conn, lifetime_ms, config=config, versions=versions, tokens=tokens)
    logger.debug("authenticated to %s as %s with %s", conn.label, who, mechanism)


async def _handshake(conn: Connection, mechanism: str, *, config: ClientConfig, versions: VersionTable,
                     deadline: Deadline) -> None:
    r = usable_range(SASL_HANDSHAKE, versions, config)
    if r is None or r[1] < 1:
        raise AuthenticationError(f"{conn.label} does not offer SaslHandshake v1: is this listener really "
                                  f"{config.security_protocol}?")
    handshake = message_type(SASL_HANDSHAKE, "request")(mechanism=mechanism)
    resp = await conn.request(handshake, 1, deadline=deadline)
    if resp.error_code == _UNSUPPORTED_SASL_MECHANISM:
        enabled = ", ".join(resp.mechanisms) or "none"
        raise UnsupportedSaslMechanismError(
            f"{conn.label} does not enable SASL mechanism {mechanism}; its enabled mechanisms are: {enabled}")
    if resp.error_code != ErrorCode.NONE:
        err = error_for_code(resp.error_code)
        raise AuthenticationError(f"SaslHandshake with {conn.label} failed: {err!r}")


RoundTrip = Callable[[bytes], Awaitable[tuple[bytes, int]]]


def _round_trip(conn: Connection, mechanism: str, who: str, *, config: ClientConfig, versions: VersionTable,
                deadline: Deadline) -> RoundTrip:
    """One SaslAuthenticate exchange: (the server's bytes, the session lifetime it announced, 0 for none)."""
    auth_version = choose_version(SASL_AUTHENTICATE, versions, config, node=conn.label)
    request_cls = message_type(SASL_AUTHENTICATE, "request")

    async def round_trip(token: bytes) -> tuple[bytes, int]:
        reply = await conn.request(request_cls(auth_bytes=token), auth_version, deadline=deadline)
        if reply.error_code != ErrorCode.NONE:
            err = error_for_code(reply.error_code)
            detail = reply.error_message or (err.message if err else "")
            cls = type(err) if isinstance(err, AuthenticationError) else SaslAuthenticationFailedError
            raise cls(f"SASL {mechanism} authentication of {who} to {conn.label} failed: {detail}")
        return bytes(reply.auth_bytes or b""), int(getattr(reply, "session_lifetime_ms", 0) or 0)

    return round_trip


async def _exchange(conn: Connection, mechanism: str, who: str, round_trip: RoundTrip, username: str,
                    password: str, token: OAuthToken | None, config: ClientConfig) -> int:
    """The mechanism's exchange; the session lifetime the broker announced (ms, 0 for none)."""
    if mechanism == "PLAIN":
        _, lifetime_ms = await round_trip(plain_token(username, password))
    elif mechanism in _HASHES:
        scram = ScramClient(username, password, _HASHES[mechanism], token_auth=config.sasl_token_auth)
        server_first, _ = await round_trip(scram.first())
        server_final, lifetime_ms = await round_trip(scram.final(server_first))
        scram.verify(server_final)
    elif mechanism == "OAUTHBEARER":
        assert token is not None
        challenge, lifetime_ms = await round_trip(client_first_message(token.value,
                                                                       config.sasl_oauthbearer_extensions))
        if challenge:
            # RFC 7628 3.2.2: a refused token is answered with a JSON status as the server's challenge; the
            # client ends the exchange with a lone %x01 and the broker then fails it (with that JSON as the
            # reason).  One line with the broker's words; no retry: the same token would be refused again.
            status = " ".join(challenge.decode("utf-8", "replace").split())
            try:
                await round_trip(b"\x01")
            except AuthenticationError as exc:
                raise type(exc)(f"SASL OAUTHBEARER authentication of {who} to {conn.label} failed: the broker "
                                f"refused the token: {status}") from None
            raise SaslAuthenticationFailedError(f"SASL OAUTHBEARER authentication of {who} to {conn.label} "
                                                f"failed: the broker refused the token: {status}")
    elif mechanism == "GSSAPI":
        _principal, lifetime_ms = await gssapi_exchange(
            conn.host, round_trip, service=config.sasl_kerberos_service_name,
            principal=config.sasl_kerberos_principal, keytab=config.sasl_kerberos_keytab,
            ccache=config.sasl_kerberos_ccache)
    else:  # config validation makes this unreachable; kept so a new mechanism cannot fall through silently
        raise AuthenticationError(f"SASL mechanism {mechanism} is not implemented")
    return lifetime_ms


def _arm_renewal(conn: Connection, lifetime_ms: int, *, config: ClientConfig, versions: VersionTable,
                 tokens: TokenCache | None) -> None:
    """KIP-368: when the broker limits the session, the connection logs in again before it ends."""
    if lifetime_ms <= 0:
        conn.reauth_at, conn.reauthenticate, conn.session_ends_at = None, None, None
        return
    # Re-authenticate well before the broker's limit, as Kafka's clients do (85-95% of the lifetime), on this
    # connection (KIP-368: SaslAuthenticate v1+ brokers renew a session in place), with a fresh login: for
    # OAUTHBEARER the token cache's current token, fetched again once it is due for refresh.
    conn.reauth_at = time.monotonic() + lifetime_ms / 1000.0 * 0.85
    session_ends = conn.session_ends_at = time.monotonic() + lifetime_ms / 1000.0

    async def renew(c: Connection) -> None:
        if time.monotonic() >= session_ends:
            # Idle past its session: Kafka closes such a connection on any request, a renewal too, so the
            # request goes (retriably) to a new connection instead.
            raise KafkaConnectionError(f"the SASL session on {c.label} ended while it was idle; reconnecting")
        await authenticate(c, config=config, versions=versions, deadline=Deadline(config.request_timeout_s),
                           tokens=tokens)
        logger.debug("re-authenticated on %s", c.label)

    conn.reauthenticate = renew


__all__ = ["ScramClient", "authenticate", "plain_token", "token_cache_for"]
