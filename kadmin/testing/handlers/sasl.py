"""SaslHandshake (17) and SaslAuthenticate (36), as Kafka's SaslServerAuthenticator runs them.

Handshake v0 (pre-KIP-152) is followed by raw SASL tokens outside Kafka framing; the broker layer handles
that mode.  Handshake v1 is followed by SaslAuthenticate requests.  Any failure is answered and then the
connection is closed, as Kafka does.
"""

from __future__ import annotations

from typing import Any

from kadmin.testing.handlers.base import (
    ILLEGAL_SASL_STATE,
    NONE,
    SASL_AUTHENTICATION_FAILED,
    UNSUPPORTED_SASL_MECHANISM,
    RequestContext,
    Response,
    register,
    response_class,
)
from kadmin.testing.sasl import SaslFailure, new_exchange

HANDSHAKE = 17
AUTHENTICATE = 36


def handle_handshake(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(HANDSHAKE)
    config = ctx.cluster.sasl
    if config is None or ctx.sasl.authenticated or ctx.sasl.mechanism is not None:
        # No SASL on this listener, or a second handshake: Kafka answers ILLEGAL_SASL_STATE.
        return R(error_code=ILLEGAL_SASL_STATE, mechanisms=list(config.mechanisms) if config else [])
    if req.mechanism not in config.mechanisms:
        ctx.sasl.close_after_response = True
        return R(error_code=UNSUPPORTED_SASL_MECHANISM, mechanisms=list(config.mechanisms))
    ctx.sasl.mechanism = req.mechanism
    ctx.sasl.handshake_version = version
    tokens = ctx.cluster._tokens
    ctx.sasl.exchange = new_exchange(req.mechanism, config.users, ctx.cluster._scram.get,
                                     tokens.login if tokens is not None else None)
    return R(error_code=NONE, mechanisms=list(config.mechanisms))


def error_handshake(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    return response_class(HANDSHAKE)(error_code=code, mechanisms=[])


def handle_authenticate(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(AUTHENTICATE)
    if ctx.sasl.exchange is None or ctx.sasl.handshake_version != 1 or ctx.sasl.authenticated:
        ctx.sasl.close_after_response = True
        return R(error_code=ILLEGAL_SASL_STATE, error_message="SaslAuthenticate out of sequence", auth_bytes=b"")
    try:
        token, done = ctx.sasl.exchange.step(bytes(req.auth_bytes))
    except SaslFailure as exc:
        ctx.sasl.close_after_response = True
        return R(error_code=SASL_AUTHENTICATION_FAILED, error_message=str(exc), auth_bytes=b"")
    if done:
        ctx.sasl.authenticated = True
        ctx.sasl.principal = ctx.sasl.exchange.principal
        ctx.sasl.token_authenticated = ctx.sasl.exchange.token_authenticated
    return R(error_code=NONE, error_message=None, auth_bytes=token, session_lifetime_ms=0)


def error_authenticate(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    return response_class(AUTHENTICATE)(error_code=code, auth_bytes=b"")


register(HANDSHAKE, handle=handle_handshake, error_response=error_handshake,
         keys=lambda req, _v: (req.mechanism,))
register(AUTHENTICATE, handle=handle_authenticate, error_response=error_authenticate)
