"""DeleteAcls (key 31): remove every binding each filter matches; one result per filter, listing them.

Needs ALTER on the cluster.  Matches are computed for every filter before anything is removed, so two filters
that match the same binding both report it (as Kafka's authorizers do).
"""

from __future__ import annotations

from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing import authorizer as az
from kadmin.testing.handlers.acl_common import Refused, filter_key, gate, read_filter
from kadmin.testing.handlers.base import RequestContext, Response, register, response_class

API_KEY = ApiKey.DELETE_ACLS


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    code, message = gate(ctx, az.ALTER)
    if code != ErrorCode.NONE:
        return R(throttle_time_ms=0, filter_results=[
            R.DeleteAclsFilterResult(error_code=code, error_message=message, matching_acls=[]) for _ in req.filters])
    auth = ctx.cluster._authorizer
    assert auth is not None
    matched: list[list[az.Binding] | Refused] = []
    for f in req.filters:
        flt = read_filter(f, version)
        matched.append(flt if isinstance(flt, Refused) else auth.matching(flt))
    results = []
    for m in matched:
        if isinstance(m, Refused):
            results.append(R.DeleteAclsFilterResult(error_code=m.code, error_message=m.message, matching_acls=[]))
            continue
        for binding in m:
            auth.remove(binding)
        results.append(R.DeleteAclsFilterResult(error_code=ErrorCode.NONE, error_message=None, matching_acls=[
            R.DeleteAclsMatchingAcl(error_code=ErrorCode.NONE, error_message=None, resource_type=rt, resource_name=n,
                                    pattern_type=pt, principal=p, host=h, operation=op, permission_type=perm)
            for (rt, n, pt), (p, h, op, perm) in m]))
    return R(throttle_time_ms=0, filter_results=results)


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    R = response_class(API_KEY)
    return R(throttle_time_ms=0, filter_results=[
        R.DeleteAclsFilterResult(error_code=code, error_message=None, matching_acls=[]) for _ in req.filters])


register(API_KEY, handle=handle, error_response=error_response,
         keys=lambda req, v: tuple(filter_key(f, v) for f in req.filters))
