"""CreateDelegationToken (key 38): a token for the caller, or (v3, KIP-373) for another owner.

Checked in KafkaApis' order: a SASL channel (else DELEGATION_TOKEN_REQUEST_NOT_ALLOWED), CREATE_TOKENS on the
owner's USER resource when the owner is someone else (DELEGATION_TOKEN_AUTHORIZATION_FAILED), renewers that
are User principals (INVALID_PRINCIPAL_TYPE), then the token manager (DELEGATION_TOKEN_AUTH_DISABLED when off).
"""

from __future__ import annotations

from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing import authorizer as az
from kadmin.testing.handlers.base import RequestContext, Response, register, response_class
from kadmin.testing.handlers.token_common import gate, split

API_KEY = ApiKey.CREATE_DELEGATION_TOKEN


def _requester(version: int, principal: str) -> dict[str, str]:
    """The requester fields, which exist from v3 (KIP-373)."""
    if version < 3:
        return {}
    kind, name = split(principal)
    return {"token_requester_principal_type": kind, "token_requester_principal_name": name}


def _refused(R: Any, ctx: RequestContext, code: int, version: int) -> Response:
    kind, name = split(ctx.principal)
    return R(error_code=code, principal_type=kind, principal_name=name, issue_timestamp_ms=-1, expiry_timestamp_ms=-1,
             max_timestamp_ms=-1, token_id="", hmac=b"", throttle_time_ms=0, **_requester(version, ctx.principal))


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    if not ctx.sasl.authenticated or ctx.sasl.token_authenticated:
        return _refused(R, ctx, ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, version)
    owner = ctx.principal
    if version >= 3 and req.owner_principal_name:  # null or empty: the caller (KafkaApis)
        owner = f"{req.owner_principal_type or 'User'}:{req.owner_principal_name}"
        if owner != ctx.principal and not ctx.authorize(az.USER, req.owner_principal_name, az.CREATE_TOKENS):
            return _refused(R, ctx, ErrorCode.DELEGATION_TOKEN_AUTHORIZATION_FAILED, version)
    if any(r.principal_type != "User" for r in req.renewers):
        return _refused(R, ctx, ErrorCode.INVALID_PRINCIPAL_TYPE, version)
    code, store = gate(ctx)
    if store is None:
        return _refused(R, ctx, code, version)
    renewers = tuple(f"{r.principal_type}:{r.principal_name}" for r in req.renewers)
    t = store.create(owner, ctx.principal, renewers, req.max_lifetime_ms)
    okind, oname = split(t.owner)
    return R(error_code=ErrorCode.NONE, principal_type=okind, principal_name=oname, **_requester(version, t.requester),
             issue_timestamp_ms=t.issued_ms, expiry_timestamp_ms=t.expires_ms, max_timestamp_ms=t.max_ms,
             token_id=t.token_id, hmac=t.hmac, throttle_time_ms=0)


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    return _refused(response_class(API_KEY), ctx, code, version)


register(API_KEY, handle=handle, error_response=error_response)
