"""Heartbeat (key 12): a classic member is alive; the answer says whether it must join again.

See :mod:`kadmin.testing.classic_groups` for the protocol.
"""

from __future__ import annotations

from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.testing import authorizer as az
from kadmin.testing import classic_groups as classic
from kadmin.testing.handlers.base import NONE, RequestContext, Response, register, response_class

API_KEY = 12


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    if not ctx.authorize(az.GROUP, req.group_id, az.READ):  # KafkaApis: READ on the group first
        return error_response(ctx, req, version, ErrorCode.GROUP_AUTHORIZATION_FAILED)
    R = response_class(API_KEY)
    err = ctx.group_error(req.group_id)
    if err != NONE:
        return R(error_code=err)
    g = ctx.group(req.group_id)
    if g is not None:
        classic.expire(g)
    return R(error_code=classic.heartbeat(g, req.member_id, req.group_instance_id if version >= 3 else None,
                                          req.generation_id))


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    return response_class(API_KEY)(error_code=code)


register(API_KEY, handle=handle, error_response=error_response, keys=lambda req, _v: (req.group_id,))
