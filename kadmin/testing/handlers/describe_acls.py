"""DescribeAcls (key 29): the bindings matching one filter, grouped by resource pattern.

Needs DESCRIBE on the cluster (else CLUSTER_AUTHORIZATION_FAILED); without an authorizer Kafka answers
SECURITY_DISABLED.  Both are top-level errors, as is an invalid filter (INVALID_REQUEST).
"""

from __future__ import annotations

from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing import authorizer as az
from kadmin.testing.handlers.acl_common import Refused, filter_key, gate, read_filter
from kadmin.testing.handlers.base import RequestContext, Response, register, response_class

API_KEY = ApiKey.DESCRIBE_ACLS


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    code, message = gate(ctx, az.DESCRIBE)
    if code != ErrorCode.NONE:
        return R(throttle_time_ms=0, error_code=code, error_message=message, resources=[])
    flt = read_filter(req, version)
    if isinstance(flt, Refused):
        return R(throttle_time_ms=0, error_code=flt.code, error_message=flt.message, resources=[])
    assert ctx.cluster._authorizer is not None
    grouped: dict[az.Pattern, list[az.Entry]] = {}
    for pattern, entry in ctx.cluster._authorizer.matching(flt):
        grouped.setdefault(pattern, []).append(entry)
    resources = [R.DescribeAclsResource(
        resource_type=rtype, resource_name=name, pattern_type=ptype,
        acls=[R.AclDescription(principal=p, host=h, operation=op, permission_type=perm) for p, h, op, perm in entries])
        for (rtype, name, ptype), entries in grouped.items()]
    return R(throttle_time_ms=0, error_code=ErrorCode.NONE, error_message=None, resources=resources)


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    return response_class(API_KEY)(throttle_time_ms=0, error_code=code, error_message=None, resources=[])


register(API_KEY, handle=handle, error_response=error_response, keys=lambda req, v: (filter_key(req, v),))
