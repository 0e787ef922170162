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

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing import authorizer as az
from kadmin.testing.handlers.base import RequestContext, Response, register, response_class
from kadmin.testing.handlers.share_offset_common import (
    check_empty_share_group,
    readable_topic,
    whole_request_error,
)
from kadmin.testing.state.groups import Group, Groups
from kadmin.testing.state.share_groups import ShareStates

API_KEY = ApiKey.ALTER_SHARE_GROUP_OFFSETS


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    gid = req.group_id
    code, message, g = check_empty_share_group(ctx, gid, az.READ)
    if code != ErrorCode.NONE:
        return whole_request_error(API_KEY, code, message)
    writes: list[tuple[str, int, int, int]] = []
    out = []
    for t in req.topics:
        topic_code, topic = readable_topic(ctx, t.topic_name)
        rows = []
        for p in t.partitions:
            code = topic_code
            if topic is not None:
                if p.partition_index in topic.partitions:
                    ps = topic.partitions[p.partition_index]
                    writes.append((t.topic_name, p.partition_index, p.start_offset, ps.leader_epoch))
                else:
                    code = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
            rows.append(R.AlterShareGroupOffsetsResponsePartition(partition_index=p.partition_index, error_code=code,
                                                                  error_message=None))
        tid = topic.topic_id if topic is not None else uuid.UUID(int=0)
        out.append(R.AlterShareGroupOffsetsResponseTopic(topic_name=t.topic_name, topic_id=tid, partitions=rows))
    if g is None:
        g = ctx.state.area(Groups)[gid] = Group(gid, state="Empty", protocol_type="share", group_type="share",
                                                assignor="simple")
    g.group_epoch += 1
    states = ctx.state.area(ShareStates)
    for name, p_index, offset, epoch in writes:
        states.set_start(gid, name, p_index, offset, epoch)
    return R(throttle_time_ms=0, error_code=ErrorCode.NONE, error_message=None, responses=out)


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    return whole_request_error(API_KEY, code)


register(API_KEY, handle=handle, error_response=error_response, keys=lambda req, _v: (req.group_id,))
