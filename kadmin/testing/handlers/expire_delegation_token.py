"""ExpireDelegationToken (key 40): bring a token's expiry forward, by its HMAC; a negative period removes it at
once.  Only its owner or a renewer, only before it expired (Kafka's DelegationTokenManager.expireToken)."""

from __future__ import annotations

from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing.handlers.base import RequestContext, Response, register, response_class
from kadmin.testing.handlers.token_common import changeable

API_KEY = ApiKey.EXPIRE_DELEGATION_TOKEN


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    key = bytes(req.hmac)
    code, store, t, now = changeable(ctx, key)
    if t is None or store is None:
        return R(error_code=code, expiry_timestamp_ms=-1, throttle_time_ms=0)
    if req.expiry_time_period_ms < 0:
        del store.tokens[key]
        return R(error_code=ErrorCode.NONE, expiry_timestamp_ms=now, throttle_time_ms=0)
    t.expires_ms = min(now + req.expiry_time_period_ms, t.max_ms)
    return R(error_code=ErrorCode.NONE, expiry_timestamp_ms=t.expires_ms, throttle_time_ms=0)


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    return response_class(API_KEY)(error_code=code, expiry_timestamp_ms=-1, throttle_time_ms=0)


register(API_KEY, handle=handle, error_response=error_response)
