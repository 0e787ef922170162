"""SaslHandshake (key 17): pick a SASL mechanism, as Kafka's SaslServerAuthenticator does.

Handshake v0 (pre-KIP-152) is followed by raw SASL tokens outside Kafka framing; the broker layer handles
that mode.  Handshake v1 is followed by SaslAuthenticate requests (sasl_authenticate.py).  An unsupported
mechanism is answered and then the connection is closed, as Kafka does.
"""

from __future__ import annotations

from typing import Any

from kadmin.testing.handlers.base import (
    ILLEGAL_SASL_STATE,
    NONE,
    UNSUPPORTED_SASL_MECHANISM,
    RequestContext,
    Response,
    register,
    response_class,
)
from kadmin.testing.sasl import new_exchange

API_KEY = 17


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    config = ctx.cluster.sasl
    if (config is not None and ctx.sasl.authenticated and ctx.sasl.session_expires_at is not None and version >= 1
            and not ctx.sasl.reauthenticating):
        # KIP-368: a session with an announced lifetime is renewed in place, with the same mechanism.
        if req.mechanism != ctx.sasl.mechanism:
            ctx.sasl.close_after_response = True
            return R(error_code=UNSUPPORTED_SASL_MECHANISM, mechanisms=[ctx.sasl.mechanism])
        ctx.sasl.reauthenticating = True
        ctx.sasl.exchange = _exchange(ctx, req.mechanism)
        return R(error_code=NONE, mechanisms=list(config.mechanisms))
    if config is None or ctx.sasl.authenticated or ctx.sasl.mechanism is not None:
        # No SASL on this listener, or a second handshake: Kafka answers ILLEGAL_SASL_STATE.
        return R(error_code=ILLEGAL_SASL_STATE, mechanisms=list(config.mechanisms) if config else [])
    if req.mechanism not in config.mechanisms:
        ctx.sasl.close_after_response = True
        return R(error_code=UNSUPPORTED_SASL_MECHANISM, mechanisms=list(config.mechanisms))
    ctx.sasl.mechanism = req.mechanism
    ctx.sasl.handshake_version = version
    ctx.sasl.exchange = _exchange(ctx, req.mechanism)
    return R(error_code=NONE, mechanisms=list(config.mechanisms))


def _exchange(ctx: RequestContext, mechanism: str) -> Any:
    config = ctx.cluster.sasl
    assert config is not None
    tokens = ctx.cluster._tokens
    return new_exchange(mechanism, config.users, ctx.cluster._scram.get, tokens.login if tokens is not None else None,
                        oauth=config.oauth, keytab=config.gssapi_keytab)


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    return response_class(API_KEY)(error_code=code, mechanisms=[])


register(API_KEY, handle=handle, error_response=error_response, keys=lambda req, _v: (req.mechanism,))
