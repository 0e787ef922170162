"""DescribeGroups (15), ListGroups (16), DeleteGroups (42): the group coordinator's admin side.

Each group lives on one coordinator; asking any other broker gets NOT_COORDINATOR for that group, and
ListGroups on a broker lists only the groups that broker coordinates (so admin clients must ask them all).
"""

from __future__ import annotations

from typing import Any

from kadmin.testing import authorizer as az
from kadmin.testing import classic_groups as classic
from kadmin.testing import consumer_groups as cg
from kadmin.testing.handlers.base import (
    AUTH_OPS_NOT_REQUESTED,
    GROUP_AUTHORIZATION_FAILED,
    GROUP_ID_NOT_FOUND,
    NON_EMPTY_GROUP,
    NONE,
    RequestContext,
    Response,
    register,
    response_class,
)

DESCRIBE = 15
LIST = 16
DELETE = 42


def _described(ctx: RequestContext, R: Any, group_id: str, include_ops: bool, version: int) -> Any:
    # KafkaApis checks DESCRIBE on the group before asking its coordinator.
    err = GROUP_AUTHORIZATION_FAILED if not ctx.authorize(az.GROUP, group_id, az.DESCRIBE) else \
        ctx.group_error(group_id)
    if err != NONE:
        return R.DescribedGroup(error_code=err, group_id=group_id, group_state="", protocol_type="",
                                protocol_data="")
    g = ctx.group(group_id)
    if g is not None:
        classic.expire(g)
    ops = ctx.authorized_operations(az.GROUP, group_id) if include_ops else AUTH_OPS_NOT_REQUESTED
    # Kafka's group coordinator answers a consumer-protocol (KIP-848) or share group as "not a classic group":
    # exactly like an unknown group, although ListGroups lists it.
    unknown = g is None or g.state == "Dead" or g.group_type != "classic"
    if unknown and version >= 6:
        # KIP-1043 (v6, Kafka 4.0): an unknown group is an error rather than a Dead group.
        text = f"Group {group_id} not found." if g is None or g.group_type == "classic" else \
            f"Group {group_id} is not a classic group."
        return R.DescribedGroup(error_code=GROUP_ID_NOT_FOUND, error_message=text,
                                group_id=group_id, group_state="Dead", protocol_type="", protocol_data="")
    if unknown or g is None:
        # GroupCoordinator.handleDescribeGroup (v0-v5): an unknown group is reported as Dead, without error.
        return R.DescribedGroup(error_code=NONE, group_id=group_id, group_state="Dead", protocol_type="",
                                protocol_data="", members=[], authorized_operations=ops)
    # GroupMetadata.summary: only a Stable group reports its protocol and members' metadata/assignment.
    stable = g.state == "Stable"
    members = [R.DescribedGroupMember(
        member_id=m.member_id, group_instance_id=m.group_instance_id, client_id=m.client_id, client_host=m.host,
        member_metadata=m.metadata if stable else b"", member_assignment=m.assignment if stable else b"")
        for m in g.members]
    return R.DescribedGroup(error_code=NONE, group_id=group_id, group_state=g.state,
                            protocol_type=g.protocol_type, protocol_data=g.protocol if stable else "",
                            members=members, authorized_operations=ops)


def handle_describe(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(DESCRIBE)
    include_ops = version >= 3 and req.include_authorized_operations
    return R(groups=[_described(ctx, R, gid, include_ops, version) for gid in req.groups])


def error_describe(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    R = response_class(DESCRIBE)
    return R(groups=[R.DescribedGroup(error_code=code, group_id=g, group_state="", protocol_type="",
                                      protocol_data="") for g in req.groups])


def keys_groups(req: Any, version: int) -> tuple[str, ...]:
    return tuple(req.groups)


def handle_list(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(LIST)
    # GroupState.parse / GroupType.parse are case-insensitive in Kafka.
    states = {s.lower() for s in req.states_filter} if version >= 4 else set()
    types = {t.lower() for t in req.types_filter} if version >= 5 else set()
    out = []
    # Without DESCRIBE on the cluster, a principal sees only the groups it may describe (KafkaApis).
    all_visible = ctx.authorize(az.CLUSTER, az.CLUSTER_NAME, az.DESCRIBE)
    for g in sorted(ctx.state.groups.values(), key=lambda g: g.group_id):
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


def error_list(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    return response_class(LIST)(error_code=code, groups=[])


def keys_list(req: Any, version: int) -> tuple[str, ...]:
    out: list[str] = []
    if version >= 4:
        out += [f"state={s}" for s in req.states_filter]
    if version >= 5:
        out += [f"type={t}" for t in req.types_filter]
    return tuple(out)


def handle_delete(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(DELETE)
    results = []
    for gid in req.groups_names:
        err = GROUP_AUTHORIZATION_FAILED if not ctx.authorize(az.GROUP, gid, az.DELETE) else ctx.group_error(gid)
        if err == NONE:
            g = ctx.group(gid)
            if g is not None:
                classic.expire(g)
                cg.expire(ctx.state, g)
            if g is None or g.state == "Dead":
                err = GROUP_ID_NOT_FOUND
            elif g.members or g.state not in ("Empty",):
                err = NON_EMPTY_GROUP
            else:
                # Deleting a group also drops its committed offsets (GroupMetadataManager.cleanupGroupMetadata).
                del ctx.state.groups[gid]
        results.append(R.DeletableGroupResult(group_id=gid, error_code=err))
    return R(throttle_time_ms=0, results=results)


def error_delete(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    R = response_class(DELETE)
    return R(results=[R.DeletableGroupResult(group_id=g, error_code=code) for g in req.groups_names])


def keys_delete(req: Any, version: int) -> tuple[str, ...]:
    return tuple(req.groups_names)


register(DESCRIBE, handle=handle_describe, error_response=error_describe, keys=keys_groups)
register(LIST, handle=handle_list, error_response=error_list, keys=keys_list)
register(DELETE, handle=handle_delete, error_response=error_delete, keys=keys_delete)
