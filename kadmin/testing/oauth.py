"""The fake brokers' OAUTHBEARER validators: Kafka's unsecured one and KIP-768's JWKS one.

``UnsecuredValidator`` applies the rules of Kafka's ``OAuthBearerUnsecuredValidatorCallbackHandler``: the
token is a JWS with ``alg: none``; the principal claim (``sub`` unless renamed) is a non-empty string; ``exp``
is a number of seconds not in the past, ``iat`` (optional) a number not in the future, both within the
allowed clock skew; the scope claim (``scope``), a string or a list, must hold every required scope.

``JwksValidator`` applies KIP-768's ``OAuthBearerValidatorCallbackHandler`` rules: the signature checks out
against a key of the JWKS (given as a document, or fetched once from ``jwks_url``), ``exp`` is in the future,
``iss`` and ``aud`` match when expected ones are configured, and the principal claim is present.

A refusal raises :class:`TokenRefused` carrying the JSON status Kafka puts in its server challenge
(``{"status":"invalid_token"}``, or ``insufficient_scope`` with the missing scope).
"""

from __future__ import annotations

import json
import threading
import time
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


class TokenRefused(Exception):
    """``str(exc)`` is the JSON error status for the client."""

    def __init__(self, status: str, **extra: str) -> None:
        super().__init__(json.dumps({"status": status, **extra}, separators=(",", ":")))


@dataclass(frozen=True)
class ValidToken:
    principal: str
    expires_at: float
    scope: tuple[str, ...]


def _scope(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(v for v in value.split(" ") if v)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise TokenRefused("invalid_token")


@dataclass(frozen=True)
class UnsecuredValidator:
    sub_claim: str = "sub"
    scope_claim: str = "scope"
    required_scope: Sequence[str] = ()
    clock_skew_s: float = 0.0

    def validate(self, token: str) -> ValidToken:
        from joserfc import jws

        try:
            obj = jws.extract_compact(token.encode("ascii"))
            claims = json.loads(obj.payload)
        except Exception:  # noqa: BLE001 - any parse failure is an invalid token
            raise TokenRefused("invalid_token") from None
        if obj.headers().get("alg") != "none" or not isinstance(claims, dict):
            raise TokenRefused("invalid_token")
        return _check_claims(claims, self.sub_claim, self.scope_claim, self.required_scope, self.clock_skew_s)


@dataclass
class JwksValidator:
    jwks: Mapping[str, Any] | None = None
    jwks_url: str | None = None
    issuer: str | None = None
    audience: Sequence[str] = ()
    sub_claim: str = "sub"
    scope_claim: str = "scope"
    clock_skew_s: float = 30.0
    _keys: Any = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def _key_set(self) -> Any:
        from joserfc.jwk import KeySet

        with self._lock:
            if self._keys is None:
                doc = self.jwks
                if doc is None:
                    assert self.jwks_url is not None
                    with urllib.request.urlopen(self.jwks_url, timeout=5) as resp:  # noqa: S310 - a test's JWKS
                        doc = json.loads(resp.read())
                self._keys = KeySet.import_key_set(dict(doc))  # type: ignore[arg-type]
            return self._keys

    def validate(self, token: str) -> ValidToken:
        from joserfc import jwt
        from joserfc.errors import JoseError

        try:
            decoded = jwt.decode(token, self._key_set(), algorithms=["RS256", "RS384", "RS512", "ES256", "PS256"])
        except (JoseError, ValueError):
            raise TokenRefused("invalid_token") from None
        claims = dict(decoded.claims)
        if self.issuer is not None and claims.get("iss") != self.issuer:
            raise TokenRefused("invalid_token")
        if self.audience:
            aud = claims.get("aud")
            auds = [aud] if isinstance(aud, str) else aud if isinstance(aud, list) else []
            if not set(auds) & set(self.audience):
                raise TokenRefused("invalid_token")
        return _check_claims(claims, self.sub_claim, self.scope_claim, (), self.clock_skew_s)


def _check_claims(claims: Mapping[str, Any], sub_claim: str, scope_claim: str, required: Sequence[str],
                  skew: float) -> ValidToken:
    now = time.time()
    sub = claims.get(sub_claim)
    exp = claims.get("exp")
    iat = claims.get("iat")
    if not isinstance(sub, str) or not sub.strip():
        raise TokenRefused("invalid_token")
    if isinstance(exp, bool) or not isinstance(exp, (int, float)) or exp <= now - skew:
        raise TokenRefused("invalid_token")
    if iat is not None and (isinstance(iat, bool) or not isinstance(iat, (int, float)) or iat > now + skew
                            or iat >= exp):
        raise TokenRefused("invalid_token")
    nbf = claims.get("nbf")
    if nbf is not None and (isinstance(nbf, bool) or not isinstance(nbf, (int, float)) or nbf > now + skew):
        raise TokenRefused("invalid_token")  # not valid yet
    scope = _scope(claims.get(scope_claim))
    missing = [s for s in required if s not in scope]
    if missing:
        raise TokenRefused("insufficient_scope", scope=" ".join(required))
    return ValidToken(sub, float(exp), scope)


def validator_from(spec: Mapping[str, Any] | None) -> UnsecuredValidator | JwksValidator:
    """``None`` or ``{"unsecured": True, ...}``: Kafka's default unsecured validator; ``{"jwks": {...}}`` or
    ``{"jwks_url": ...}`` with ``issuer``, ``audience``: the JWKS validator."""
    spec = dict(spec or {})
    v: UnsecuredValidator | JwksValidator
    names = {"sub_claim": spec.pop("sub_claim_name", "sub"), "scope_claim": spec.pop("scope_claim_name", "scope")}
    if "jwks" in spec or "jwks_url" in spec:
        aud = spec.pop("audience", ())
        v = JwksValidator(spec.pop("jwks", None), spec.pop("jwks_url", None), spec.pop("issuer", None),
                          (aud,) if isinstance(aud, str) else tuple(aud),
                          clock_skew_s=float(spec.pop("clock_skew_s", 30.0)), **names)
    else:
        spec.pop("unsecured", None)
        req = spec.pop("required_scope", ())
        v = UnsecuredValidator(required_scope=(req,) if isinstance(req, str) else tuple(req),
                               clock_skew_s=float(spec.pop("clock_skew_s", 0.0)), **names)
    if spec:
        raise ValueError(f"unknown OAUTHBEARER validator setting(s) {sorted(spec)}")
    return v


__all__ = ["JwksValidator", "TokenRefused", "UnsecuredValidator", "ValidToken", "validator_from"]
