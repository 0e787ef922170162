"""AlterConfigs (key 33): the pre-2.3 way to change configs, which REPLACES a resource's dynamic configs.

Every dynamic config of the resource that the request leaves out is removed (Kafka's AdminManager writes the
given set as the whole entity config), which is why a client must read, merge and write back.  Same resource
checks as DescribeConfigs; a null value is INVALID_REQUEST; an unknown key or bad value INVALID_CONFIG;
broker-logger resources are refused (only IncrementalAlterConfigs changes log levels).  ValidateOnly checks
and changes nothing.
"""

from __future__ import annotations

from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing import authorizer as az
from kadmin.testing import configs as C
from kadmin.testing.handlers.base import RequestContext, Response, register, response_class
from kadmin.testing.handlers.describe_configs import resource_error

API_KEY = ApiKey.ALTER_CONFIGS


def _one(ctx: RequestContext, res: Any, validate_only: bool) -> tuple[int, str | None]:
    err = resource_error(ctx, res.resource_type, res.resource_name, az.ALTER_CONFIGS)
    if err is not None:
        return err
    try:
        new = C.replace_all(res.resource_type, [(c.name, c.value) for c in res.configs], ctx.table)
    except C.ConfigValueError as exc:
        return exc.code, exc.message
    if not validate_only:
        C.store(ctx.state, res.resource_type, res.resource_name, new)
    return ErrorCode.NONE, None


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    seen: set[tuple[int, str]] = set()
    out = []
    code: int
    msg: str | None
    for res in req.resources:
        key = (res.resource_type, res.resource_name)
        if key in seen:
            code, msg = ErrorCode.INVALID_REQUEST, "Error due to duplicate resources in the request"
        else:
            code, msg = _one(ctx, res, req.validate_only)
        seen.add(key)
        out.append(R.AlterConfigsResourceResponse(error_code=code, error_message=msg,
                                                  resource_type=res.resource_type, resource_name=res.resource_name))
    return R(responses=out)


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    R = response_class(API_KEY)
    return R(responses=[R.AlterConfigsResourceResponse(error_code=code, error_message=None,
                                                       resource_type=r.resource_type, resource_name=r.resource_name)
                        for r in req.resources])


def keys(req: Any, version: int) -> tuple[str, ...]:
    return tuple(f"{r.resource_type}:{r.resource_name}" for r in req.resources)


register(API_KEY, handle=handle, error_response=error_response, keys=keys)
