"""DescribeShareGroupOffsets (key 90): share groups' start offsets (SPSO) per partition, and from v1 the lag.

Kafka's rules (KafkaApis / GroupCoordinatorService): DESCRIBE on the group, else GROUP_AUTHORIZATION_FAILED
for that group; a null topic list asks for every partition whose share state the group has initialised (an
unknown group then has none: an empty answer, not an error); named topics the caller may not describe answer
TOPIC_AUTHORIZATION_FAILED per partition; a topic that does not exist, or a partition the group never read,
answers start offset -1 without an error (as OffsetFetch does for "no offset").  v1 adds the lag: log end -
SPSO - records already finished above the SPSO, -1 where the start offset is not known.
"""

from __future__ import annotations

import uuid
from typing import Any

from kadmin.testing import authorizer as az
from kadmin.testing.handlers.base import (
    GROUP_AUTHORIZATION_FAILED,
    NONE,
    TOPIC_AUTHORIZATION_FAILED,
    RequestContext,
    Response,
    register,
    response_class,
)
from kadmin.testing.state.share_groups import ShareStates
from kadmin.testing.state.topics import Topics

API_KEY = 90


def _group(ctx: RequestContext, R: Any, g: Any) -> Any:
    gid = g.group_id
    if not ctx.authorize(az.GROUP, gid, az.DESCRIBE):
        return R.DescribeShareGroupOffsetsResponseGroup(group_id=gid, topics=[], error_code=GROUP_AUTHORIZATION_FAILED)
    err = ctx.group_error(gid)
    if err != NONE:
        return R.DescribeShareGroupOffsetsResponseGroup(group_id=gid, topics=[], error_code=err)
    states = ctx.state.area(ShareStates).get(gid, {})
    topics = ctx.state.area(Topics)
    if g.topics is None:
        wanted: dict[str, list[int]] = {}
        for t, p in sorted(states):
            if t in topics and ctx.authorize(az.TOPIC, t, az.DESCRIBE):  # unauthorized topics are left out
                wanted.setdefault(t, []).append(p)
    else:
        wanted = {t.topic_name: list(t.partitions) for t in g.topics}
    out = []
    for name, parts in wanted.items():
        topic = topics.get(name)
        allowed = ctx.authorize(az.TOPIC, name, az.DESCRIBE)
        rows = []
        for p in parts:
            sp = states.get((name, p)) if topic is not None and allowed else None
            start, epoch, lag, code = -1, 0, -1, NONE
            if not allowed:
                code = TOPIC_AUTHORIZATION_FAILED
            elif sp is not None and topic is not None and p in topic.partitions:
                end = topic.partitions[p].log_end
                start, epoch = sp.start_offset, sp.leader_epoch
                lag = max(0, end - sp.start_offset - sp.finished_above_start(end))
            rows.append(R.DescribeShareGroupOffsetsResponsePartition(
                partition_index=p, start_offset=start, leader_epoch=epoch, lag=lag, error_code=code,
                error_message=None))
        out.append(R.DescribeShareGroupOffsetsResponseTopic(
            topic_name=name, topic_id=topic.topic_id if topic is not None and allowed else uuid.UUID(int=0),
            partitions=rows))
    return R.DescribeShareGroupOffsetsResponseGroup(group_id=gid, topics=out, error_code=NONE)


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    return R(throttle_time_ms=0, groups=[_group(ctx, R, g) for g in req.groups])


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    R = response_class(API_KEY)
    return R(groups=[R.DescribeShareGroupOffsetsResponseGroup(group_id=g.group_id, topics=[], error_code=code)
                     for g in req.groups])


register(API_KEY, handle=handle, error_response=error_response,
         keys=lambda req, _v: tuple(g.group_id for g in req.groups))
