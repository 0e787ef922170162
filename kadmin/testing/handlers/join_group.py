"""JoinGroup (key 11): a member enters a classic group's rebalance; answered once the rebalance completes.

The protocol itself lives in :mod:`kadmin.testing.classic_groups`; this module decodes, routes and encodes.
A group that already speaks the consumer protocol (KIP-848) with members refuses a classic join with
INCONSISTENT_GROUP_PROTOCOL: the fake does not model Kafka's mixed (upgrading) groups.
"""

from __future__ import annotations

import time
from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.testing import authorizer as az
from kadmin.testing import classic_groups as classic
from kadmin.testing.deferred import Deferred
from kadmin.testing.handlers.base import NONE, RequestContext, Response, register, response_class
from kadmin.testing.state.groups import Group, Groups

API_KEY = 11
INVALID_GROUP_ID = 24


def _answer(version: int, r: classic.JoinResult) -> Response:
    R = response_class(API_KEY)
    members = [R.JoinGroupResponseMember(member_id=mid, group_instance_id=iid if version >= 5 else None,
                                         metadata=meta) for mid, iid, meta in r.members]
    return R(error_code=r.error, generation_id=r.generation,
             protocol_type=r.protocol_type if version >= 7 else None,
             # ProtocolName is nullable only from v7.
             protocol_name=r.protocol if r.protocol is not None or version >= 7 else "",
             leader=r.leader, member_id=r.member_id, members=members)


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    if not ctx.authorize(az.GROUP, req.group_id, az.READ):  # KafkaApis: READ on the group first
        return error_response(ctx, req, version, ErrorCode.GROUP_AUTHORIZATION_FAILED)
    err = ctx.group_error(req.group_id)
    if err == NONE and not req.group_id:
        err = INVALID_GROUP_ID
    if err != NONE:
        return _answer(version, classic.JoinResult(err, member_id=req.member_id))
    g = ctx.group(req.group_id)
    if g is None or g.state == "Dead":
        g = ctx.state.area(Groups)[req.group_id] = Group(req.group_id, state="Empty", protocol_type=req.protocol_type)
    elif g.group_type != "classic":
        if g.consumer_members:
            return _answer(version, classic.JoinResult(classic.INCONSISTENT_GROUP_PROTOCOL, member_id=req.member_id))
        # An empty consumer-protocol group turns classic again (Kafka's downgrade of an empty group).
        g.group_type, g.state, g.protocol_type, g.runtime = "classic", "Empty", req.protocol_type, None
    classic.expire(g)
    rebalance_ms = req.rebalance_timeout_ms if version >= 1 and req.rebalance_timeout_ms > 0 else \
        req.session_timeout_ms
    got = classic.join(g, req.member_id, req.group_instance_id if version >= 5 else None, ctx.client_id,
                       ctx.client_host, req.session_timeout_ms, rebalance_ms, req.protocol_type,
                       [(p.name, bytes(p.metadata)) for p in req.protocols], require_known_member_id=version >= 4)
    if isinstance(got, classic.JoinResult):
        return _answer(version, got)
    member = got
    if member.joining is None:  # this join completed the rebalance
        return _answer(version, classic.finish_join(g, member))
    wait = classic.runtime(g).rebalance_deadline - time.monotonic()
    return Deferred(member.joining, wait, lambda: _answer(version, classic.finish_join(g, member)))


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    return _answer(version, classic.JoinResult(code, member_id=req.member_id))


register(API_KEY, handle=handle, error_response=error_response, keys=lambda req, _v: (req.group_id,))
