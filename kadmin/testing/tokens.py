"""The fake cluster's delegation tokens (KIP-48): what Kafka's DelegationTokenManager keeps and decides.

Off unless the cluster is made with ``delegation_tokens=True`` (or a mapping of the settings below), as Kafka
answers DELEGATION_TOKEN_AUTH_DISABLED until ``delegation.token.secret.key`` is set.  Kafka's rules:

* tokens are only handed out, renewed, expired or described over a SASL connection that did not itself log
  in with a token (DELEGATION_TOKEN_REQUEST_NOT_ALLOWED otherwise);
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
