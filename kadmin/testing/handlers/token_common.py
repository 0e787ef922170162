"""What the four delegation token handlers share: the channel check and the token manager's switch."""

from __future__ import annotations

from kadmin._error_codes import ErrorCode
from kadmin.testing.handlers.base import RequestContext
from kadmin.testing.tokens import TokenStore


def gate(ctx: RequestContext) -> tuple[int, TokenStore | None]:
    """(error, store): tokens only over SASL (KafkaApis.allowTokenRequests), and only when enabled."""
    if not ctx.sasl.authenticated:
        return ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, None
    store = ctx.cluster._tokens
    if store is None:
        return ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED, None
    return ErrorCode.NONE, store


def split(principal: str) -> tuple[str, str]:
    kind, _, name = principal.partition(":")
    return kind, name
