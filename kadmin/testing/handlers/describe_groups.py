"""DescribeGroups (key 15): the group coordinator describes the classic groups it coordinates.

Each group lives on one coordinator; asking any other broker gets NOT_COORDINATOR for that group.
"""

from __future__ import annotations

from typing import Any

from kadmin.testing import authorizer as az
from kadmin.testing import classic_groups as classic
from kadmin.testing.handlers.base import (
    AUTH_OPS_NOT_REQUESTED,
    GROUP_AUTHORIZATION_FAILED,
    GROUP_ID_NOT_FOUND,
    NONE,
    RequestContext,
    Response,
    register,
    response_class,
)

API_KEY = 15


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


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    include_ops = version >= 3 and req.include_authorized_operations
    return R(groups=[_described(ctx, R, gid, include_ops, version) for gid in req.groups])


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    R = response_class(API_KEY)
    return R(groups=[R.DescribedGroup(error_code=code, group_id=g, group_state="", protocol_type="",
                                      protocol_data="") for g in req.groups])


def keys(req: Any, version: int) -> tuple[str, ...]:
    return tuple(req.groups)


register(API_KEY, handle=handle, error_response=error_response, keys=keys)
