"""LeaveGroup (key 13): members leave, or an admin removes them (v3+: a batch, static members by instance id).

Classic groups go through :mod:`kadmin.testing.classic_groups`; consumer-protocol groups (KIP-848) accept the
admin removal too, as Kafka 4.x does, through :mod:`kadmin.testing.consumer_groups`.  An unknown group is
not an error of the request: each member gets UNKNOWN_MEMBER_ID (GroupCoordinator.handleLeaveGroup).
"""

from __future__ import annotations

from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.testing import authorizer as az
from kadmin.testing import classic_groups as classic
from kadmin.testing import consumer_groups as consumer
from kadmin.testing.handlers.base import (
    NONE,
    UNKNOWN_MEMBER_ID,
    RequestContext,
    Response,
    register,
    response_class,
)

API_KEY = 13


def _identities(req: Any, version: int) -> list[tuple[str, str | None]]:
    if version < 3:
        return [(req.member_id, None)]
    return [(m.member_id, m.group_instance_id) for m in req.members]


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    if not ctx.authorize(az.GROUP, req.group_id, az.READ):  # KafkaApis: READ on the group first
        return error_response(ctx, req, version, ErrorCode.GROUP_AUTHORIZATION_FAILED)
    err = ctx.group_error(req.group_id)
    if err != NONE:
        return error_response(ctx, req, version, err)
    g = ctx.group(req.group_id)
    results: list[tuple[str, str | None, int]] = []
    for member_id, instance_id in _identities(req, version):
        # The answer names each member as the request did (an admin removing a static member sends "").
        if g is None or g.state == "Dead":
            code = UNKNOWN_MEMBER_ID
        elif g.group_type == "classic":
            classic.expire(g)
            code, _left = classic.leave(g, member_id, instance_id)
        else:
            consumer.expire(ctx.state, g)
            code, _left = consumer.leave(ctx.state, g, member_id, instance_id)
        results.append((member_id, instance_id, code))
    R = response_class(API_KEY)
    if version < 3:
        return R(error_code=results[0][2])
    return R(error_code=NONE, members=[R.MemberResponse(member_id=mid, group_instance_id=iid, error_code=code)
                                       for mid, iid, code in results])


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    R = response_class(API_KEY)
    if version < 3:
        return R(error_code=code)
    return R(error_code=code, members=[])


def keys(req: Any, version: int) -> tuple[str, ...]:
    return (req.group_id,)


register(API_KEY, handle=handle, error_response=error_response, keys=keys)
