"""The fake cluster's delegation tokens (KIP-48): what Kafka's DelegationTokenManager keeps and decides.

Off unless the cluster is made with ``delegation_tokens=True`` (or a mapping of the settings below), as Kafka
answers DELEGATION_TOKEN_AUTH_DISABLED until ``delegation.token.secret.key`` is set.  Kafka's rules:

* tokens are only handed out, renewed, expired or described over a SASL connection that did not itself log
  in with a token (DELEGATION_TOKEN_REQUEST_NOT_ALLOWED otherwise);
* a token logs in over SCRAM with the ``tokenauth=true`` extension, its id as the name and its HMAC in base64
  as the password, as its owner, until it expires (:meth:`TokenStore.login`);
* a token's HMAC is HMAC-SHA512 of its id under the cluster's secret; renew/expire name the token by HMAC;
* only the owner or a renewer may renew or expire it (DELEGATION_TOKEN_OWNER_MISMATCH), not after it expired
  (DELEGATION_TOKEN_EXPIRED); the expiry never passes the token's max timestamp;
* creating a token for another owner (CreateDelegationToken v3) needs CREATE_TOKENS on that USER;
* a token is described to its owner, its requester, its renewers, or whoever has DESCRIBE on it.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kadmin.testing.authorizer import MECHANISM_CODES, MIN_ITERATIONS, ScramCredential

#: Kafka's defaults: delegation.token.max.lifetime.ms (7 days) and delegation.token.expiry.time.ms (24 h).
MAX_LIFETIME_MS = 7 * 24 * 3600 * 1000
EXPIRY_TIME_MS = 24 * 3600 * 1000


@dataclass
class Token:
    token_id: str
    hmac: bytes
    owner: str
    requester: str
    renewers: tuple[str, ...]
    issued_ms: int
    expires_ms: int
    max_ms: int


@dataclass
class TokenStore:
    secret: bytes = field(default_factory=lambda: os.urandom(32))
    max_lifetime_ms: int = MAX_LIFETIME_MS
    expiry_time_ms: int = EXPIRY_TIME_MS
    tokens: dict[bytes, Token] = field(default_factory=dict)
    #: (hmac, mechanism code) -> the token's SCRAM credential, made at its first login (PBKDF2 is slow).
    _credentials: dict[tuple[bytes, int], ScramCredential] = field(default_factory=dict, repr=False)

    @staticmethod
    def now_ms() -> int:
        return int(time.time() * 1000)

    def create(self, owner: str, requester: str, renewers: tuple[str, ...], max_lifetime_ms: int) -> Token:
        now = self.now_ms()
        life = self.max_lifetime_ms if max_lifetime_ms <= 0 else min(max_lifetime_ms, self.max_lifetime_ms)
        token_id = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        mac = hmac.new(self.secret, token_id.encode(), hashlib.sha512).digest()
        token = Token(token_id, mac, owner, requester, renewers, now, min(now + self.expiry_time_ms, now + life),
                      now + life)
        self.tokens[mac] = token
        return token

    def login(self, token_id: str, mechanism_name: str) -> tuple[ScramCredential, str] | None:
        """(SCRAM credential, owner principal) for a ``tokenauth=true`` login with ``token_id``; None for an
        unknown or expired token.  Kafka's DelegationTokenManager gives every token a credential per SCRAM
        mechanism whose "password" is the token's HMAC in base64, at the mechanism's minimum iterations."""
        code = MECHANISM_CODES.get(mechanism_name)
        token = next((t for t in self.tokens.values() if t.token_id == token_id), None)
        if code is None or token is None or token.expires_ms < self.now_ms():
            return None
        key = (token.hmac, code)
        cred = self._credentials.get(key)
        if cred is None:
            password = base64.b64encode(token.hmac).decode()
            cred = self._credentials[key] = ScramCredential.from_password(code, password, MIN_ITERATIONS)
        return cred, token.owner


def store_from(spec: bool | Mapping[str, Any] | None) -> TokenStore | None:
    """``True``: Kafka's defaults; a mapping: ``max_lifetime_ms``, ``expiry_time_ms``."""
    if spec is None or spec is False:
        return None
    if spec is True:
        return TokenStore()
    unknown = set(spec) - {"max_lifetime_ms", "expiry_time_ms"}
    if unknown:
        raise ValueError(f"unknown delegation token setting(s) {sorted(unknown)}")
    return TokenStore(max_lifetime_ms=int(spec.get("max_lifetime_ms", MAX_LIFETIME_MS)),
                      expiry_time_ms=int(spec.get("expiry_time_ms", EXPIRY_TIME_MS)))
