"""OAUTHBEARER tokens (KIP-255, KIP-768): where they come from, how long they are kept, and the SASL message.

Three sources, as Kafka's clients have them:

* a **token provider**: any callable (plain or ``async``) returning an :class:`OAuthToken`, or a
  ``(token, expires_at)`` pair; the hook for Amazon MSK IAM, Azure and any identity provider with its own SDK;
* the **OIDC client-credentials flow** (KIP-768): an HTTP POST to a token endpoint with the client id and secret,
  retried with backoff, the answer's JWT kept until its refresh time (``sasl.login.refresh.*``);
* an **unsecured JWS** (``alg: none``) built locally from claims, Kafka's default for development clusters.

Whatever the source, the token is cached by :class:`TokenCache` and refreshed, as Java's
``ExpiringCredentialRefreshingLogin`` does, once ``window_factor`` (+ jitter) of its lifetime has passed, but
never within ``min_period_s`` of the last fetch and never later than ``buffer_s`` before it expires.

Secrets (the client secret, the tokens themselves) are never logged and never in a ``repr``: the token leaves
the process only inside the SASL frame.  The JSON and JOSE parts use ``joserfc`` (the ``kafka-kadmin[oauth]`` extra),
imported only when a JWT must be read or made, so a token-provider user needs nothing extra.
"""

from __future__ import annotations

import asyncio
import base64
import inspect
import json
import logging
import random
import ssl
import time
import urllib.error
import urllib.parse
import urllib.request
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

from kadmin.errors import AuthenticationError

logger = logging.getLogger("kadmin.network.oauth")

#: RFC 7628's separator between key/value pairs of the client's first message.
_KVSEP = "\x01"
_EXTENSION_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


def _need_joserfc() -> Any:
    try:
        import joserfc.jws
    except ImportError:  # pragma: no cover - the test extra installs it
        raise AuthenticationError("OAUTHBEARER with an OIDC token endpoint or an unsecured token needs the "
                                  "'joserfc' package: pip install 'kafka-kadmin[oauth]'") from None
    return joserfc.jws


@dataclass(frozen=True, repr=False)
class OAuthToken:
    """A bearer token and when it stops being valid (``expires_at``, seconds since the epoch).

    ``principal`` is informational (for log lines); the broker takes the principal from the token itself.
    """

    value: str
    expires_at: float
    principal: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.value, str) or not self.value:
            raise AuthenticationError("the OAUTHBEARER token provider returned an empty token")
        if any(c in self.value for c in " \x01\r\n"):
            raise AuthenticationError("the OAUTHBEARER token contains a space or control character; a bearer "
                                      "token is one printable word (RFC 6750)")
        if isinstance(self.expires_at, bool) or not isinstance(self.expires_at, (int, float)):
            raise AuthenticationError(f"the OAUTHBEARER token's expiry must be seconds since the epoch, not "
                                      f"{type(self.expires_at).__name__}")

    def __repr__(self) -> str:
        return f"OAuthToken(value=***, expires_at={self.expires_at!r}, principal={self.principal!r})"

    __str__ = __repr__




def _as_token(got: Any) -> OAuthToken:
    if isinstance(got, OAuthToken):
        return got
    if isinstance(got, tuple) and len(got) == 2:
        value, expiry = got
        if isinstance(expiry, (int, float)) and not isinstance(expiry, bool) and expiry > 1e11:
            expiry = expiry / 1000.0  # milliseconds, as Java's and the MSK signer's expiries are
        return OAuthToken(str(value), expiry)
    raise AuthenticationError("the OAUTHBEARER token provider must return an OAuthToken or a (token, "
                              f"expires_at) pair, not {type(got).__name__}")


def client_first_message(token: str, extensions: Mapping[str, str] | None = None,
                         authzid: str | None = None) -> bytes:
    """RFC 7628 section 3.1: ``gs2-header kvsep auth=Bearer <token> kvsep *(key=value kvsep) kvsep``.

    The GS2 header is ``n,,`` (no channel binding, Kafka has none) or ``n,a=<authzid>,``; extensions are
    Kafka's SASL extensions (KIP-342), whose names are letters only and ``auth`` is reserved.
    """
    parts = [f"auth=Bearer {token}"]
    for key, value in sorted((extensions or {}).items()):
        check_extension(key, value)
        parts.append(f"{key}={value}")
    gs2 = "n," + (f"a={authzid.replace('=', '=3D').replace(',', '=2C')}" if authzid else "") + ","
    return (gs2 + _KVSEP + _KVSEP.join(parts) + _KVSEP + _KVSEP).encode("utf-8")


def check_extension(key: str, value: str) -> None:
    """Kafka's rules for a SASL extension (OAuthBearerClientInitialResponse): a name of letters, not
    ``auth``; a value of printable ASCII, spaces and tabs allowed."""
    if not key or not set(key) <= _EXTENSION_NAME_CHARS or key == "auth":
        raise ValueError(f"OAUTHBEARER extension name {key!r} is invalid: letters only, and not 'auth'")
    if any(not (0x21 <= ord(c) <= 0x7E or c in " \t\r\n") for c in value):
        raise ValueError(f"OAUTHBEARER extension {key!r} has a value with characters outside printable ASCII")


def jwt_claims(token: str) -> dict[str, Any]:
    """The claims of a compact JWS, unverified (only the broker can verify it: the client just needs to know
    when it expires and whom it names)."""
    jws = _need_joserfc()
    try:
        payload = jws.extract_compact(token.encode("ascii")).payload
        claims = json.loads(payload)
    except Exception as exc:  # joserfc raises its own DecodeError family, json ValueError
        raise AuthenticationError(f"the OAUTHBEARER token is not a JWT (compact JWS): {type(exc).__name__}") \
            from None
    if not isinstance(claims, dict):
        raise AuthenticationError("the OAUTHBEARER token's payload is not a JSON object")
    return claims


# --------------------------------------------------------------------------------------------- sources


@dataclass(frozen=True, repr=False)
class UnsecuredJwsSource:
    """Kafka's ``OAuthBearerUnsecuredLoginCallbackHandler``: an ``alg: none`` JWT made here, for development
    clusters whose brokers use the unsecured validator.  ``claims`` are the JAAS
    ``unsecuredLoginStringClaim_<name>`` / ``NumberClaim`` / ``ListClaim`` options; ``sub`` is required."""

    claims: Mapping[str, Any]
    lifetime_s: float = 3600.0
    principal_claim: str = "sub"

    def __repr__(self) -> str:
        return f"UnsecuredJwsSource(principal={self.claims.get(self.principal_claim)!r})"

    def __call__(self) -> OAuthToken:
        jws = _need_joserfc()
        now = time.time()
        claims = dict(self.claims)
        if not claims.get(self.principal_claim):
            raise AuthenticationError(f"an unsecured OAUTHBEARER token needs a '{self.principal_claim}' claim "
                                      f"(unsecuredLoginStringClaim_{self.principal_claim})")
        claims.setdefault("iat", now)
        claims["exp"] = now + self.lifetime_s
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # joserfc warns that 'none' is deprecated: it is the point here
            value = jws.serialize_compact({"alg": "none"}, json.dumps(claims).encode(), None, algorithms=["none"])
        return OAuthToken(value, claims["exp"], str(claims[self.principal_claim]))


@dataclass(frozen=True, repr=False)
class OidcClientCredentials:
    """The KIP-768 login: ``grant_type=client_credentials`` at ``token_endpoint_url``.

    The client id and secret go in an HTTP Basic ``Authorization`` header (each URL-encoded first, as Kafka's
    ``HttpAccessTokenRetriever`` does); ``scope`` is sent when given.  Failures are retried with exponential
    backoff from ``retry_backoff_s`` to ``retry_backoff_max_s`` (HTTP 4xx other than 408/429 are not: a wrong
    secret does not fix itself), all within the caller's time budget.  A ``file://`` URL reads a token from a
    file, as Kafka allows.
    """

    token_endpoint_url: str
    client_id: str | None = None
    client_secret: str | None = field(default=None, repr=False)
    scope: str | None = None
    connect_timeout_s: float = 10.0
    read_timeout_s: float = 10.0
    retry_backoff_s: float = 0.1
    retry_backoff_max_s: float = 10.0
    #: TLS to an https:// endpoint (the client's own ssl settings, as Kafka's clients use them); None: the
    #: system's CA certificates.
    ssl_context: ssl.SSLContext | None = field(default=None, compare=False)

    def __repr__(self) -> str:
        return (f"OidcClientCredentials(token_endpoint_url={self.token_endpoint_url!r}, "
                f"client_id={self.client_id!r}, client_secret={'***' if self.client_secret else None}, "
                f"scope={self.scope!r})")

    __str__ = __repr__

    async def __call__(self, budget_s: float | None = None) -> OAuthToken:
        one_try = self.connect_timeout_s + self.read_timeout_s
        # Within the caller's budget; without one (or an endless one), the time of one attempt plus retries.
        budget = budget_s if budget_s is not None and budget_s != float("inf") else 2 * one_try
        deadline = time.monotonic() + budget
        delay = self.retry_backoff_s
        attempt = 0
        while True:
            attempt += 1
            left = deadline - time.monotonic()
            try:
                body = await asyncio.to_thread(self._fetch, max(min(left, one_try), 0.05))
                return self._token(body)
            except _Retriable as exc:
                left = deadline - time.monotonic()
                if left <= delay:
                    raise AuthenticationError(f"OAUTHBEARER: no token from {self.token_endpoint_url} after "
                                              f"{attempt} attempt(s): {exc}") from None
                logger.info("OAUTHBEARER: token endpoint %s failed (%s); retrying in %.2fs",
                            self.token_endpoint_url, exc, delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, self.retry_backoff_max_s)

    def _fetch(self, timeout: float) -> bytes:
        url = self.token_endpoint_url
        if url.startswith("file:"):
            path = urllib.parse.urlparse(url).path
            try:
                with open(path, "rb") as f:
                    return json.dumps({"access_token": f.read().decode("utf-8").strip()}).encode()
            except OSError as exc:
                raise AuthenticationError(f"OAUTHBEARER: cannot read the token file {path}: "
                                          f"{exc.strerror or exc}") from None
        form = {"grant_type": "client_credentials"}
        if self.scope:
            form["scope"] = self.scope
        headers = {"Accept": "application/json", "Content-Type": "application/x-www-form-urlencoded",
                   "Cache-Control": "no-cache"}
        if self.client_id is not None and self.client_secret is not None:
            pair = f"{urllib.parse.quote(self.client_id, safe='')}:{urllib.parse.quote(self.client_secret, safe='')}"
            headers["Authorization"] = "Basic " + base64.b64encode(pair.encode()).decode()
        request = urllib.request.Request(url, data=urllib.parse.urlencode(form).encode(), headers=headers,
                                         method="POST")
        try:
            with urllib.request.urlopen(request, timeout=timeout,  # noqa: S310 - the user's endpoint
                                        context=self.ssl_context if url.startswith("https:") else None) as resp:
                data: bytes = resp.read(1 << 20)
                return data
        except urllib.error.HTTPError as exc:
            detail = _error_detail(exc)
            message = f"HTTP {exc.code} {exc.reason}{detail}"
            if exc.code in (HTTPStatus.REQUEST_TIMEOUT, HTTPStatus.TOO_MANY_REQUESTS) \
                    or exc.code >= HTTPStatus.INTERNAL_SERVER_ERROR:
                raise _Retriable(message) from None
            raise AuthenticationError(f"OAUTHBEARER: the token endpoint {url} refused the client credentials "
                                      f"of {self.client_id!r}: {message}") from None
        except (urllib.error.URLError, OSError, TimeoutError) as exc:
            reason = getattr(exc, "reason", exc)
            if isinstance(reason, ssl.SSLError):  # a certificate or handshake refusal does not fix itself
                why = getattr(reason, "verify_message", None) or reason.reason or str(reason)
                raise AuthenticationError(f"OAUTHBEARER: TLS to the token endpoint {url} failed: {why} (its CA "
                                          "goes in ssl.truststore.location / ssl_cafile)") from None
            raise _Retriable(f"{type(reason).__name__}: {reason}") from None

    def _token(self, body: bytes) -> OAuthToken:
        try:
            doc = json.loads(body)
            value = doc["access_token"]
        except (ValueError, KeyError, TypeError):
            raise AuthenticationError(f"OAUTHBEARER: the answer of {self.token_endpoint_url} has no "
                                      "access_token") from None
        if not isinstance(value, str) or not value:
            raise AuthenticationError(f"OAUTHBEARER: the access_token from {self.token_endpoint_url} is empty")
        claims = jwt_claims(value)
        exp = claims.get("exp")
        if not isinstance(exp, (int, float)) or isinstance(exp, bool):
            expires_in = doc.get("expires_in") if isinstance(doc, dict) else None
            if not isinstance(expires_in, (int, float)):
                raise AuthenticationError(f"OAUTHBEARER: the token from {self.token_endpoint_url} has no 'exp' "
                                          "claim and the answer no expires_in")
            exp = time.time() + float(expires_in)
        sub = claims.get("sub")
        return OAuthToken(value, float(exp), str(sub) if sub is not None else None)


class _Retriable(Exception):
    pass


def _error_detail(exc: urllib.error.HTTPError) -> str:
    """The OAuth error of a refused token request (RFC 6749 5.2), never the request (it holds the secret)."""
    try:
        doc = json.loads(exc.read(4096) or b"{}")
    except (ValueError, OSError):
        return ""
    if not isinstance(doc, dict) or "error" not in doc:
        return ""
    text = str(doc["error"]) + (f" ({doc['error_description']})" if doc.get("error_description") else "")
    return ": " + text


# --------------------------------------------------------------------------------------------- refresh


@dataclass(frozen=True)
class RefreshPolicy:
    """Kafka's ``sasl.login.refresh.*`` settings (ExpiringCredentialRefreshingLogin)."""

    window_factor: float = 0.8
    window_jitter: float = 0.05
    min_period_s: float = 60.0
    buffer_s: float = 300.0

    def refresh_at(self, fetched_at: float, expires_at: float) -> float:
        """When a token fetched at ``fetched_at`` (epoch seconds) should be replaced."""
        lifetime = max(expires_at - fetched_at, 0.0)
        at = fetched_at + lifetime * (self.window_factor + random.random() * self.window_jitter)
        if expires_at - at < self.buffer_s:
            at = expires_at - self.buffer_s
        # Not sooner than min_period after the fetch, unless that would be past the expiry itself.
        return min(max(at, fetched_at + min(self.min_period_s, lifetime)), expires_at)


class TokenCache:
    """One client's current token: fetched on first use, shared by its connections, refreshed per policy.

    Concurrent logins wait for one fetch.  A fetch failure is not cached: the next login tries again (with the
    source's own retries), so a token endpoint that comes back is used at once.
    """

    def __init__(self, source: Callable[..., Any], policy: RefreshPolicy, *, describe: str) -> None:
        self._source = source
        self._policy = policy
        self._describe = describe
        self._token: OAuthToken | None = None
        self._refresh_at = 0.0
        self._lock: asyncio.Lock | None = None
        #: How many tokens were fetched: for tests and diagnostics.
        self.fetches = 0

    def __repr__(self) -> str:
        return f"TokenCache({self._describe}, fetches={self.fetches})"

    @property
    def subject(self) -> str | None:
        """The principal the current token names (its ``sub``, or the provider's), None before the first."""
        return self._token.principal if self._token is not None else None

    async def token(self, budget_s: float | None = None) -> OAuthToken:
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            now = time.time()
            if self._token is not None and now < self._refresh_at and now < self._token.expires_at:
                return self._token
            token = await self._fetch(budget_s)
            if token.expires_at <= time.time():
                raise AuthenticationError(f"OAUTHBEARER: the token from {self._describe} has already expired "
                                          f"(exp {token.expires_at:.0f}); check the clocks and the token source")
            self._token = token
            self._refresh_at = self._policy.refresh_at(now, token.expires_at)
            self.fetches += 1
            logger.debug("OAUTHBEARER: new token from %s for %s, expires in %.0fs, refreshed after %.0fs",
                         self._describe, token.principal, token.expires_at - now, self._refresh_at - now)
            return token

    async def _fetch(self, budget_s: float | None) -> OAuthToken:
        source = self._source
        try:
            if isinstance(source, OidcClientCredentials):
                return await source(budget_s)
            got = source()
            if inspect.isawaitable(got):
                got = await got
        except AuthenticationError:
            raise
        except Exception as exc:  # a user's provider: its failure is a login failure, named, without its text
            raise AuthenticationError(f"OAUTHBEARER: the token provider {self._describe} failed: "
                                      f"{type(exc).__name__}: {exc}") from exc
        return _as_token(got)


__all__ = ["OAuthToken", "OidcClientCredentials", "RefreshPolicy", "TokenCache",
           "UnsecuredJwsSource", "check_extension", "client_first_message", "jwt_claims"]
