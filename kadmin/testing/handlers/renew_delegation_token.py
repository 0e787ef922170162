"""RenewDelegationToken (key 39): push a token's expiry out, by its HMAC; only its owner or a renewer, only
before it expired, never past its max timestamp (a negative period means the broker's default)."""

from __future__ import annotations

from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing.handlers.base import RequestContext, Response, register, response_class
from kadmin.testing.handlers.token_common import changeable

API_KEY = ApiKey.RENEW_DELEGATION_TOKEN


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    code, store, t, now = changeable(ctx, bytes(req.hmac))
    if t is None or store is None:
        return R(error_code=code, expiry_timestamp_ms=-1, throttle_time_ms=0)
    period = store.expiry_time_ms if req.renew_period_ms < 0 else req.renew_period_ms
    t.expires_ms = min(now + period, t.max_ms)
    return R(error_code=ErrorCode.NONE, expiry_timestamp_ms=t.expires_ms, throttle_time_ms=0)


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    return response_class(API_KEY)(error_code=code, expiry_timestamp_ms=-1, throttle_time_ms=0)


register(API_KEY, handle=handle, error_response=error_response)
