"""ExpireDelegationToken (key 40): bring a token's expiry forward, by its HMAC; a negative period removes it at
once.  Only its owner or a renewer, only before it expired (Kafka's DelegationTokenManager.expireToken)."""

from __future__ import annotations

from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing.handlers.base import RequestContext, Response, register, response_class
from kadmin.testing.handlers.token_common import gate

API_KEY = ApiKey.EXPIRE_DELEGATION_TOKEN


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    code, store = gate(ctx)
    if store is None:
        return R(error_code=code, expiry_timestamp_ms=-1, throttle_time_ms=0)
    key = bytes(req.hmac)
    t = store.tokens.get(key)
    if t is None:
        return R(error_code=ErrorCode.DELEGATION_TOKEN_NOT_FOUND, expiry_timestamp_ms=-1, throttle_time_ms=0)
    if ctx.principal != t.owner and ctx.principal not in t.renewers:
        return R(error_code=ErrorCode.DELEGATION_TOKEN_OWNER_MISMATCH, expiry_timestamp_ms=-1, throttle_time_ms=0)
    now = store.now_ms()
    if t.expires_ms < now:
        return R(error_code=ErrorCode.DELEGATION_TOKEN_EXPIRED, expiry_timestamp_ms=-1, throttle_time_ms=0)
    if req.expiry_time_period_ms < 0:
        del store.tokens[key]
        return R(error_code=ErrorCode.NONE, expiry_timestamp_ms=now, throttle_time_ms=0)
    t.expires_ms = min(now + req.expiry_time_period_ms, t.max_ms)
    return R(error_code=ErrorCode.NONE, expiry_timestamp_ms=t.expires_ms, throttle_time_ms=0)


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    return response_class(API_KEY)(error_code=code, expiry_timestamp_ms=-1, throttle_time_ms=0)


register(API_KEY, handle=handle, error_response=error_response)
