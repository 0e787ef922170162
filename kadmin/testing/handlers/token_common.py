"""What the four delegation token handlers share: the channel check and the token manager's switch."""

from __future__ import annotations

from kadmin._error_codes import ErrorCode
from kadmin.testing.handlers.base import RequestContext
from kadmin.testing.tokens import Token, TokenStore


def gate(ctx: RequestContext) -> tuple[int, TokenStore | None]:
    """(error, store): tokens only over SASL, not over a token login (KafkaApis.allowTokenRequests), and only
    when enabled."""
    if not ctx.sasl.authenticated or ctx.sasl.token_authenticated:
        return ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, None
    store = ctx.cluster._tokens
    if store is None:
        return ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED, None
    return ErrorCode.NONE, store


def split(principal: str) -> tuple[str, str]:
    kind, _, name = principal.partition(":")
    return kind, name


def changeable(ctx: RequestContext, hmac: bytes) -> tuple[int, TokenStore | None, Token | None, int]:
    """What Renew and Expire both check first (Kafka's DelegationTokenManager): the token service is on, the
    token exists, the caller owns or may renew it, it has not expired.  (error code, store, token, now ms):
    a non-zero code means answer with it."""
    code, store = gate(ctx)
    if store is None:
        return code, None, None, 0
    t = store.tokens.get(hmac)
    if t is None:
        return ErrorCode.DELEGATION_TOKEN_NOT_FOUND, store, None, 0
    if ctx.principal != t.owner and ctx.principal not in t.renewers:
        return ErrorCode.DELEGATION_TOKEN_OWNER_MISMATCH, store, None, 0
    now = store.now_ms()
    if t.expires_ms < now:
        return ErrorCode.DELEGATION_TOKEN_EXPIRED, store, None, now
    return ErrorCode.NONE, store, t, now
