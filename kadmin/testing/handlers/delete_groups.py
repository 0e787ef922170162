"""DeleteGroups (key 42): the coordinator deletes an empty group (of any type) and its committed offsets or
share-group state."""

from __future__ import annotations

from typing import Any

from kadmin.testing import authorizer as az
from kadmin.testing import classic_groups as classic
from kadmin.testing import consumer_groups as cg
from kadmin.testing.handlers.base import (
    GROUP_AUTHORIZATION_FAILED,
    GROUP_ID_NOT_FOUND,
    NON_EMPTY_GROUP,
    NONE,
    RequestContext,
    Response,
    register,
    response_class,
)
from kadmin.testing.state.groups import Groups
from kadmin.testing.state.share_groups import ShareStates

API_KEY = 42


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
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
                # Deleting a group also drops its committed offsets (GroupMetadataManager.cleanupGroupMetadata),
                # and a share group's share-partition state (KIP-932: the persister's DeleteShareGroupState).
                del ctx.state.area(Groups)[gid]
                ctx.state.area(ShareStates).drop_group(gid)
        results.append(R.DeletableGroupResult(group_id=gid, error_code=err))
    return R(throttle_time_ms=0, results=results)


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    R = response_class(API_KEY)
    return R(results=[R.DeletableGroupResult(group_id=g, error_code=code) for g in req.groups_names])


def keys(req: Any, version: int) -> tuple[str, ...]:
    return tuple(req.groups_names)


register(API_KEY, handle=handle, error_response=error_response, keys=keys)
