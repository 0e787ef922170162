"""DescribeDelegationToken (key 41): the tokens of the given owners (all with a null list, none with an empty
one) that the caller may see: its own, those it requested or may renew, or any with DESCRIBE on the token."""

from __future__ import annotations

from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing import authorizer as az
from kadmin.testing.handlers.base import RequestContext, Response, register, response_class
from kadmin.testing.handlers.token_common import gate, split

API_KEY = ApiKey.DESCRIBE_DELEGATION_TOKEN


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    code, store = gate(ctx)
    if store is None:
        return R(error_code=code, tokens=[], throttle_time_ms=0)
    owners = None if req.owners is None else {f"{o.principal_type}:{o.principal_name}" for o in req.owners}
    me = ctx.principal
    out = []
    for t in sorted(store.tokens.values(), key=lambda t: t.issued_ms):
        if owners is not None and t.owner not in owners:
            continue
        if me not in (t.owner, t.requester, *t.renewers) and not ctx.authorize(az.DELEGATION_TOKEN, t.token_id,
                                                                              az.DESCRIBE):
            continue
        okind, oname = split(t.owner)
        rkind, rname = split(t.requester)
        requester = {"token_requester_principal_type": rkind, "token_requester_principal_name": rname} \
            if version >= 3 else {}
        out.append(R.DescribedDelegationToken(
            principal_type=okind, principal_name=oname, **requester, issue_timestamp=t.issued_ms,
            expiry_timestamp=t.expires_ms, max_timestamp=t.max_ms, token_id=t.token_id, hmac=t.hmac,
            renewers=[R.DescribedDelegationTokenRenewer(principal_type=k, principal_name=n)
                      for k, n in map(split, t.renewers)]))
    return R(error_code=ErrorCode.NONE, tokens=out, throttle_time_ms=0)


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    return response_class(API_KEY)(error_code=code, tokens=[], throttle_time_ms=0)


register(API_KEY, handle=handle, error_response=error_response)
