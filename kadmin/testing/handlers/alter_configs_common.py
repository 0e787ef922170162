"""What AlterConfigs (33) and IncrementalAlterConfigs (44) share: one answer per resource, in order, with a
resource named twice refused as Kafka refuses it; each handler supplies only how one resource is changed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing.handlers.base import RequestContext, Response, register, response_class

#: Changes one resource (unless validate_only): (error code, error message or None).
ChangeOne = Callable[[RequestContext, Any, bool], tuple[int, "str | None"]]


def register_alter(api_key: ApiKey, change_one: ChangeOne) -> None:
    """Register the handler of ``api_key``, which answers each resource with ``change_one``."""

    def handle(ctx: RequestContext, req: Any, version: int) -> Response:
        R = response_class(api_key)
        seen: set[tuple[int, str]] = set()
        out = []
        for res in req.resources:
            code: int
            msg: str | None
            key = (res.resource_type, res.resource_name)
            if key in seen:
                code, msg = int(ErrorCode.INVALID_REQUEST), "Error due to duplicate resources in the request"
            else:
                code, msg = change_one(ctx, res, req.validate_only)
            seen.add(key)
            out.append(R.AlterConfigsResourceResponse(error_code=code, error_message=msg,
                                                      resource_type=res.resource_type,
                                                      resource_name=res.resource_name))
        return R(responses=out)

    def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
        R = response_class(api_key)
        return R(responses=[R.AlterConfigsResourceResponse(error_code=code, error_message=None,
                                                           resource_type=r.resource_type,
                                                           resource_name=r.resource_name)
                            for r in req.resources])

    def keys(req: Any, version: int) -> tuple[str, ...]:
        return tuple(f"{r.resource_type}:{r.resource_name}" for r in req.resources)

    register(api_key, handle=handle, error_response=error_response, keys=keys)
