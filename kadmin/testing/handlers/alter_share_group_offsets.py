"""AlterShareGroupOffsets (key 91): set a share group's start offsets (SPSO); the group must be empty.

Kafka's rules (KafkaApis / GroupMetadataManager.alterShareGroupOffsets): READ on the group, else
GROUP_AUTHORIZATION_FAILED for the whole request; READ on each topic, else TOPIC_AUTHORIZATION_FAILED for its
partitions; a topic that does not exist, or a partition beyond its count, UNKNOWN_TOPIC_OR_PARTITION.  The
group is made (Empty) if it does not exist; a group of another type is GROUP_ID_NOT_FOUND ("not a share
group"); a group with members is NON_EMPTY_GROUP, and then nothing is written.  A write bumps the group
epoch and gives each partition a fresh share state at the new start offset (nothing in flight).
"""

from __future__ import annotations

import uuid
from typing import Any

from kadmin.testing import authorizer as az
from kadmin.testing import consumer_groups as cg
from kadmin.testing.handlers.base import (
    GROUP_AUTHORIZATION_FAILED,
    GROUP_ID_NOT_FOUND,
    NON_EMPTY_GROUP,
    NONE,
    TOPIC_AUTHORIZATION_FAILED,
    UNKNOWN_TOPIC_OR_PARTITION,
    RequestContext,
    Response,
    register,
    response_class,
)
from kadmin.testing.state.groups import Group, Groups
from kadmin.testing.state.share_groups import ShareStates
from kadmin.testing.state.topics import Topics

API_KEY = 91
INVALID_GROUP_ID = 24


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    gid = req.group_id
    if not ctx.authorize(az.GROUP, gid, az.READ):
        return error_response(ctx, req, version, GROUP_AUTHORIZATION_FAILED)
    err = ctx.group_error(gid)
    if err != NONE:
        return error_response(ctx, req, version, err)
    if not gid:
        return error_response(ctx, req, version, INVALID_GROUP_ID)
    groups = ctx.state.area(Groups)
    g = groups.get(gid)
    if g is not None:
        cg.expire(ctx.state, g)
        if g.state == "Dead":
            g = None
    if g is not None and g.group_type != "share":
        return _top(R, GROUP_ID_NOT_FOUND, f"Group {gid} is not a share group.")
    if g is not None and g.consumer_members:
        return _top(R, NON_EMPTY_GROUP, "The group is not empty.")
    topics = ctx.state.area(Topics)
    writes: list[tuple[str, int, int, int]] = []
    out = []
    for t in req.topics:
        topic = topics.get(t.topic_name)
        if not ctx.authorize(az.TOPIC, t.topic_name, az.READ):
            topic_code = TOPIC_AUTHORIZATION_FAILED
        elif topic is None:
            topic_code = UNKNOWN_TOPIC_OR_PARTITION
        else:
            topic_code = NONE
        rows = []
        for p in t.partitions:
            code = topic_code
            if code == NONE and topic is not None:
                if p.partition_index in topic.partitions:
                    ps = topic.partitions[p.partition_index]
                    writes.append((t.topic_name, p.partition_index, p.start_offset, ps.leader_epoch))
                else:
                    code = UNKNOWN_TOPIC_OR_PARTITION
            rows.append(R.AlterShareGroupOffsetsResponsePartition(partition_index=p.partition_index, error_code=code,
                                                                  error_message=None))
        tid = topic.topic_id if topic is not None and topic_code == NONE else uuid.UUID(int=0)
        out.append(R.AlterShareGroupOffsetsResponseTopic(topic_name=t.topic_name, topic_id=tid, partitions=rows))
    if g is None:
        g = groups[gid] = Group(gid, state="Empty", protocol_type="share", group_type="share", assignor="simple")
    g.group_epoch += 1
    states = ctx.state.area(ShareStates)
    for name, p_index, offset, epoch in writes:
        states.set_start(gid, name, p_index, offset, epoch)
    return R(throttle_time_ms=0, error_code=NONE, error_message=None, responses=out)


def _top(R: Any, code: int, message: str | None) -> Response:
    return R(throttle_time_ms=0, error_code=code, error_message=message, responses=[])


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    return _top(response_class(API_KEY), code, None)


register(API_KEY, handle=handle, error_response=error_response, keys=lambda req, _v: (req.group_id,))
