"""OffsetForLeaderEpoch (key 23): where a leader epoch's log ends, so that a consumer can detect truncation.

As Kafka's Partition.lastOffsetForLeaderEpoch: DESCRIBE on the topic for clients (CLUSTER_ACTION for a
replica, v3+ ReplicaId >= 0), the partition on its leader, the client's current leader epoch fenced as in
Fetch (v2+), then the answer for the asked epoch: the current epoch ends at the log end; an epoch newer than
the current one is unknown (-1, -1).  The fake keeps no epoch history and never truncates a log, so an older
epoch is answered as lasting up to the log end: a consumer's position is then never beyond it, which is what
"no truncation" means to the client, and the truth for a log that never diverged.
"""

from __future__ import annotations

from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing import authorizer as az
from kadmin.testing.handlers.base import RequestContext, Response, register, response_class
from kadmin.testing.handlers.records_common import epoch_error, find_partition
from kadmin.testing.state.topics import Topics

API_KEY = ApiKey.OFFSET_FOR_LEADER_EPOCH


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    live = ctx.live_ids()
    replica = version >= 3 and req.replica_id >= 0
    cluster_ok = not replica or ctx.authorize(az.CLUSTER, az.CLUSTER_NAME, az.CLUSTER_ACTION)
    topics = []
    for t in req.topics:
        topic = ctx.state.area(Topics).get(t.topic)
        parts = []
        for p in t.partitions:
            epoch, end = -1, -1
            code: int
            if not cluster_ok:
                code = ErrorCode.CLUSTER_AUTHORIZATION_FAILED
            else:
                found = find_partition(ctx, topic, t.topic, p.partition, az.DESCRIBE, live)
                code = found.code
                part = found.part
                if code == ErrorCode.NONE and part is not None:
                    code = epoch_error(part, p.current_leader_epoch) if version >= 2 else ErrorCode.NONE
                    if code == ErrorCode.NONE and 0 <= p.leader_epoch <= part.leader_epoch:
                        epoch, end = p.leader_epoch, part.log_end
            parts.append(R.EpochEndOffset(error_code=code, partition=p.partition, leader_epoch=epoch,
                                          end_offset=end))
        topics.append(R.OffsetForLeaderTopicResult(topic=t.topic, partitions=parts))
    return R(throttle_time_ms=0, topics=topics)


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    R = response_class(API_KEY)
    return R(throttle_time_ms=0, topics=[R.OffsetForLeaderTopicResult(topic=t.topic, partitions=[
        R.EpochEndOffset(error_code=code, partition=p.partition, leader_epoch=-1, end_offset=-1)
        for p in t.partitions]) for t in req.topics])


def keys(req: Any, version: int) -> tuple[str, ...]:
    return tuple(f"{t.topic}-{p.partition}" for t in req.topics for p in t.partitions)


register(API_KEY, handle=handle, error_response=error_response, keys=keys)
