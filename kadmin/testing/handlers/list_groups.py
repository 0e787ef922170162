"""ListGroups (key 16): the groups a broker coordinates.

ListGroups on a broker lists only the groups that broker coordinates (so admin clients must ask them all).
"""

from __future__ import annotations

from typing import Any

from kadmin.testing import authorizer as az
from kadmin.testing import classic_groups as classic
from kadmin.testing import consumer_groups as cg
from kadmin.testing.handlers.base import (
    NONE,
    RequestContext,
    Response,
    register,
    response_class,
)
from kadmin.testing.state.groups import Groups

API_KEY = 16


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    # GroupState.parse / GroupType.parse are case-insensitive in Kafka.
    states = {s.lower() for s in req.states_filter} if version >= 4 else set()
    types = {t.lower() for t in req.types_filter} if version >= 5 else set()
    out = []
    # Without DESCRIBE on the cluster, a principal sees only the groups it may describe (KafkaApis).
    all_visible = ctx.authorize(az.CLUSTER, az.CLUSTER_NAME, az.DESCRIBE)
    for g in sorted(ctx.state.area(Groups).values(), key=lambda g: g.group_id):
        if ctx.is_coordinator(g.group_id):
            classic.expire(g)  # members whose session ran out are gone by now, as with Kafka's timers
            cg.expire(ctx.state, g)
        if g.state == "Dead" or not ctx.is_coordinator(g.group_id):
            continue
        if states and g.state.lower() not in states:
            continue
        if types and g.group_type.lower() not in types:
            continue
        if not all_visible and not ctx.authorize(az.GROUP, g.group_id, az.DESCRIBE):
            continue
        out.append(R.ListedGroup(group_id=g.group_id, protocol_type=g.protocol_type, group_state=g.state,
                                 group_type=g.group_type))
    return R(error_code=NONE, groups=out)


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    return response_class(API_KEY)(error_code=code, groups=[])


def keys(req: Any, version: int) -> tuple[str, ...]:
    out: list[str] = []
    if version >= 4:
        out += [f"state={s}" for s in req.states_filter]
    if version >= 5:
        out += [f"type={t}" for t in req.types_filter]
    return tuple(out)


register(API_KEY, handle=handle, error_response=error_response, keys=keys)
