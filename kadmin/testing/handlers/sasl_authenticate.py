"""SaslAuthenticate (key 36): the SASL exchange's steps after a v1 SaslHandshake (sasl_handshake.py).

Any failure is answered and then the connection is closed, as Kafka's SaslServerAuthenticator does.
"""

from __future__ import annotations

import time
from typing import Any

from kadmin.testing.handlers.base import (
    ILLEGAL_SASL_STATE,
    NONE,
    SASL_AUTHENTICATION_FAILED,
    RequestContext,
    Response,
    register,
    response_class,
)
from kadmin.testing.sasl import SaslFailure

API_KEY = 36


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    if ctx.sasl.exchange is None or ctx.sasl.handshake_version != 1 or (ctx.sasl.authenticated
                                                                         and not ctx.sasl.reauthenticating):
        ctx.sasl.close_after_response = True
        return R(error_code=ILLEGAL_SASL_STATE, error_message="SaslAuthenticate out of sequence", auth_bytes=b"")
    try:
        token, done = ctx.sasl.exchange.step(bytes(req.auth_bytes))
    except SaslFailure as exc:
        ctx.sasl.close_after_response = True
        return R(error_code=SASL_AUTHENTICATION_FAILED, error_message=str(exc), auth_bytes=b"")
    lifetime_ms = 0
    if done and ctx.sasl.reauthenticating:
        ctx.sasl.reauthenticating = False
        if ctx.sasl.exchange.principal != ctx.sasl.principal:
            ctx.sasl.close_after_response = True
            return R(error_code=SASL_AUTHENTICATION_FAILED, auth_bytes=b"",
                     error_message=f"Cannot change principals during re-authentication from User:{ctx.sasl.principal}"
                                   f": User:{ctx.sasl.exchange.principal}")
        ctx.sasl.reauthentications += 1
    if done:
        ctx.sasl.authenticated = True
        ctx.sasl.principal = ctx.sasl.exchange.principal
        ctx.sasl.token_authenticated = ctx.sasl.exchange.token_authenticated
        max_reauth_ms = ctx.cluster.sasl.max_reauth_ms if ctx.cluster.sasl is not None else 0
        lifetime_ms = session_lifetime_ms(max_reauth_ms, ctx.sasl.exchange.expires_at)
        if lifetime_ms > 0 and version >= 1:
            # KIP-368: the broker closes the connection on the first request after the session ends.
            ctx.sasl.session_expires_at = time.monotonic() + lifetime_ms / 1000.0
    return R(error_code=NONE, error_message=None, auth_bytes=token, session_lifetime_ms=lifetime_ms)


def session_lifetime_ms(max_reauth_ms: int, expires_at: float | None) -> int:
    """Kafka's rule: no lifetime unless connections.max.reauth.ms is set; then that, capped by the
    credential's expiry (an OAUTHBEARER token's ``exp``)."""
    if max_reauth_ms <= 0:
        return 0
    if expires_at is None:
        return max_reauth_ms
    return max(1, min(max_reauth_ms, int((expires_at - time.time()) * 1000)))


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    return response_class(API_KEY)(error_code=code, auth_bytes=b"")


register(API_KEY, handle=handle, error_response=error_response)
