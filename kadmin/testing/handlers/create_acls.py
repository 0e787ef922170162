"""CreateAcls (key 30): store bindings, one result per creation in request order.

Needs ALTER on the cluster; each creation is checked as Kafka's AclApis and AclControlManager check it (the
CLUSTER resource's only name, no empty names, concrete codes, a Type:name principal) and fails alone.
Storing a binding that exists already succeeds (ACLs are a set).
"""

from __future__ import annotations

from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing import authorizer as az
from kadmin.testing.handlers.acl_common import Refused, gate, read_binding
from kadmin.testing.handlers.base import RequestContext, Response, register, response_class

API_KEY = ApiKey.CREATE_ACLS


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    code, message = gate(ctx, az.ALTER)
    if code != ErrorCode.NONE:
        return R(throttle_time_ms=0, results=[R.AclCreationResult(error_code=code, error_message=message)
                                              for _ in req.creations])
    auth = ctx.cluster._authorizer
    assert auth is not None
    results = []
    for c in req.creations:
        binding = read_binding(c, version)
        if isinstance(binding, Refused):
            results.append(R.AclCreationResult(error_code=binding.code, error_message=binding.message))
            continue
        auth.add(binding)
        results.append(R.AclCreationResult(error_code=ErrorCode.NONE, error_message=None))
    return R(throttle_time_ms=0, results=results)


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    R = response_class(API_KEY)
    return R(throttle_time_ms=0, results=[R.AclCreationResult(error_code=code, error_message=None)
                                          for _ in req.creations])


def keys(req: Any, version: int) -> tuple[str, ...]:
    return tuple(f"{c.resource_type}:{c.resource_name}:{c.principal}:{c.operation}" for c in req.creations)


register(API_KEY, handle=handle, error_response=error_response, keys=keys)
