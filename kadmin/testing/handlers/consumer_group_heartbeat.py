"""ConsumerGroupHeartbeat (key 68): join, stay in and leave a consumer-protocol group (KIP-848).

Epoch 0 joins (v0: the coordinator makes the member id; v1, KIP-1082: the client brings it), -1 leaves, -2
leaves a static member; any other epoch must be the member's current one (or the one before, while it still
owns only what it owned then), else FENCED_MEMBER_EPOCH.  The assignment logic lives in
:mod:`kadmin.testing.consumer_groups`.
"""

from __future__ import annotations

import time
from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.testing import authorizer as az
from kadmin.testing import consumer_groups as cg
from kadmin.testing.handlers.base import NONE, RequestContext, Response, register, response_class
from kadmin.testing.state.groups import ConsumerMember
from kadmin.testing.state.topics import Topics

API_KEY = 68


def _error(code: int, message: str | None, member_id: str = "", epoch: int = 0) -> Response:
    return response_class(API_KEY)(error_code=code, error_message=message, member_id=member_id or None,
                                   member_epoch=epoch, heartbeat_interval_ms=0, assignment=None)


def _owned(ctx: RequestContext, req: Any) -> list[tuple[str, int]] | None:
    if req.topic_partitions is None:
        return None
    by_id = {t.topic_id: name for name, t in ctx.state.area(Topics).items()}
    return [(by_id[tp.topic_id], p) for tp in req.topic_partitions if tp.topic_id in by_id for p in tp.partitions]


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    if not ctx.authorize(az.GROUP, req.group_id, az.READ):  # KafkaApis: READ on the group first
        return error_response(ctx, req, version, ErrorCode.GROUP_AUTHORIZATION_FAILED)
    err = ctx.group_error(req.group_id)
    if err != NONE:
        return _error(err, None, req.member_id, req.member_epoch)
    epoch = req.member_epoch
    if not req.group_id:
        return _error(cg.INVALID_REQUEST, "GroupId can't be empty.")
    if version >= 1 and not req.member_id:
        return _error(cg.INVALID_REQUEST, "MemberId can't be empty.")
    if epoch == 0 and req.subscribed_topic_names is None and req.subscribed_topic_regex is None:
        return _error(cg.INVALID_REQUEST, "SubscribedTopicNames or SubscribedTopicRegex must be set in first request.")
    if req.server_assignor is not None and req.server_assignor not in cg.ASSIGNORS:
        return _error(cg.UNSUPPORTED_ASSIGNOR, f"ServerAssignor {req.server_assignor} is not supported.")
    code, message, g = cg.group_for_heartbeat(ctx.state, req.group_id, epoch)
    if g is None:
        return _error(code, message, req.member_id, epoch)
    cg.expire(ctx.state, g)
    if epoch in (-1, -2):
        cg.remove(ctx.state, g, [req.member_id])
        return _error(NONE, None, req.member_id, epoch)
    changed = False
    if epoch == 0:
        member_id = req.member_id or cg.new_member_id()
        stale = [m.member_id for m in g.consumer_members.values()
                 if m.member_id == member_id or (req.instance_id is not None and m.instance_id == req.instance_id)]
        for old in stale:  # a member that lost its state joins again; a static member replaces its old self
            del g.consumer_members[old]
        m = g.consumer_members[member_id] = ConsumerMember(member_id, client_id=ctx.client_id, host=ctx.client_host)
        changed = True
    else:
        found = g.consumer_members.get(req.member_id)
        if found is None:
            return _error(cg.UNKNOWN_MEMBER_ID, f"Member {req.member_id} is not a member of group {req.group_id}.",
                          req.member_id, epoch)
        m = found
        owned = _owned(ctx, req)
        if epoch != m.member_epoch and not (epoch == m.previous_member_epoch and owned is not None
                                            and set(owned) <= m.assigned):
            return _error(cg.FENCED_MEMBER_EPOCH, f"The member epoch {epoch} is not the current one "
                                                  f"({m.member_epoch}).", req.member_id, epoch)
    if req.instance_id is not None:
        m.instance_id = req.instance_id
    if req.rack_id is not None:
        m.rack_id = req.rack_id
    if req.rebalance_timeout_ms >= 0:
        m.rebalance_timeout_ms = req.rebalance_timeout_ms
    if req.subscribed_topic_names is not None and tuple(req.subscribed_topic_names) != m.subscribed_topic_names:
        m.subscribed_topic_names = tuple(req.subscribed_topic_names)
        changed = True
    regex = req.subscribed_topic_regex if version >= 1 else None
    if regex is not None and (regex or None) != m.subscribed_topic_regex:
        m.subscribed_topic_regex = regex or None
        changed = True
    if req.server_assignor is not None and req.server_assignor != g.assignor:
        g.assignor = req.server_assignor
        changed = True
    m.last_seen = time.monotonic()
    if changed:
        cg.compute_target(ctx.state, g)
    cg.reconcile(g, m, _owned(ctx, req))
    R = response_class(API_KEY)
    assignment = None
    if cg.assignment_changed(m) or epoch == 0:
        ids = {name: t.topic_id for name, t in ctx.state.area(Topics).items()}
        by_topic: dict[str, list[int]] = {}
        for t, p in sorted(m.assigned):
            by_topic.setdefault(t, []).append(p)
        assignment = R.Assignment(topic_partitions=[R.TopicPartitions(topic_id=ids[t], partitions=ps)
                                                    for t, ps in by_topic.items() if t in ids])
    return R(error_code=NONE, error_message=None, member_id=m.member_id, member_epoch=m.member_epoch,
             heartbeat_interval_ms=cg.config(ctx.state, "group.consumer.heartbeat.interval.ms"),
             assignment=assignment)


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    return _error(code, None, req.member_id, req.member_epoch)


register(API_KEY, handle=handle, error_response=error_response, keys=lambda req, _v: (req.group_id,))
