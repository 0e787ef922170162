"""ShareGroupHeartbeat (key 76): join, stay in and leave a share group (KIP-932).

v0 is Kafka 4.0's early-access version, v1 the stable one (4.1+), with the same fields.  The member brings
its own id; epoch 0 joins (SubscribedTopicNames required), -1 leaves, any other epoch must be the member's
current one (FENCED_MEMBER_EPOCH otherwise; UNKNOWN_MEMBER_ID for a member the group does not have).  A group
of another type with that id: GROUP_ID_NOT_FOUND ("not a share group").  The assignment rules live in
:mod:`kadmin.testing.share_groups`.
"""

from __future__ import annotations

import time
from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.testing import authorizer as az
from kadmin.testing import consumer_groups as cg
from kadmin.testing import share_groups as sg
from kadmin.testing.handlers.base import NONE, RequestContext, Response, register, response_class
from kadmin.testing.state.groups import ConsumerMember
from kadmin.testing.state.topics import Topics

API_KEY = 76


def _error(code: int, message: str | None, member_id: str = "", epoch: int = 0) -> Response:
    return response_class(API_KEY)(error_code=code, error_message=message, member_id=member_id or None,
                                   member_epoch=epoch, heartbeat_interval_ms=0, assignment=None)


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    if not ctx.authorize(az.GROUP, req.group_id, az.READ):  # KafkaApis: READ on the group first
        return error_response(ctx, req, version, ErrorCode.GROUP_AUTHORIZATION_FAILED)
    names = list(req.subscribed_topic_names or [])
    if any(not ctx.authorize(az.TOPIC, t, az.DESCRIBE) for t in names):
        return _error(ErrorCode.TOPIC_AUTHORIZATION_FAILED, None, req.member_id, req.member_epoch)
    err = ctx.group_error(req.group_id)
    if err != NONE:
        return _error(err, None, req.member_id, req.member_epoch)
    epoch = req.member_epoch
    if not req.group_id:
        return _error(ErrorCode.INVALID_REQUEST, "GroupId can't be empty.")
    if not req.member_id:
        return _error(ErrorCode.INVALID_REQUEST, "MemberId can't be empty.")
    if epoch == 0 and not names:
        return _error(ErrorCode.INVALID_REQUEST, "SubscribedTopicNames must be set in first request.")
    if epoch < -1:
        return _error(ErrorCode.INVALID_REQUEST, f"MemberEpoch is {epoch}, but must be greater than or equal to -1.")
    code, message, g = sg.group_for_heartbeat(ctx.state, req.group_id, epoch)
    if g is None:
        return _error(code, message, req.member_id, epoch)
    cg.expire(ctx.state, g)
    if epoch == -1:
        sg.remove(ctx.state, g, [req.member_id])
        return _error(NONE, None, req.member_id, -1)
    changed = False
    if epoch == 0:
        m = g.consumer_members.get(req.member_id)
        if m is None:
            m = g.consumer_members[req.member_id] = ConsumerMember(req.member_id, client_id=ctx.client_id,
                                                                   host=ctx.client_host)
            changed = True
        m.last_sent = None  # a (re)joining member is told its assignment
    else:
        found = g.consumer_members.get(req.member_id)
        if found is None:
            return _error(ErrorCode.UNKNOWN_MEMBER_ID,
                          f"Member {req.member_id} is not a member of group {req.group_id}.", req.member_id, epoch)
        m = found
        if epoch != m.member_epoch:
            return _error(ErrorCode.FENCED_MEMBER_EPOCH,
                          f"The share group member has a smaller member epoch ({epoch}) than the one known by "
                          f"the group coordinator ({m.member_epoch}).", req.member_id, epoch)
    if req.rack_id is not None:
        m.rack_id = req.rack_id
    if req.subscribed_topic_names is not None and tuple(names) != m.subscribed_topic_names:
        m.subscribed_topic_names = tuple(names)
        changed = True
    m.last_seen = time.monotonic()
    if changed:
        sg.compute_assignment(ctx.state, g)
    m.previous_member_epoch, m.member_epoch = m.member_epoch, g.assignment_epoch
    R = response_class(API_KEY)
    assignment = None
    if cg.assignment_changed(m):
        ids = {name: t.topic_id for name, t in ctx.state.area(Topics).items()}
        by_topic: dict[str, list[int]] = {}
        for t, p in sorted(m.assigned):
            by_topic.setdefault(t, []).append(p)
        assignment = R.Assignment(topic_partitions=[R.TopicPartitions(topic_id=ids[t], partitions=ps)
                                                    for t, ps in by_topic.items() if t in ids])
    return R(error_code=NONE, error_message=None, member_id=m.member_id, member_epoch=m.member_epoch,
             heartbeat_interval_ms=cg.config(ctx.state, "group.share.heartbeat.interval.ms"),
             assignment=assignment)


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    return _error(code, None, req.member_id, req.member_epoch)


register(API_KEY, handle=handle, error_response=error_response, keys=lambda req, _v: (req.group_id,))
