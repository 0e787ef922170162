"""DeleteRecords (key 21): move a partition's log start forward, on its leader.

As Kafka's ReplicaManager/Partition.deleteRecordsOnLeader: offset -1 means the high watermark (the fake's
high watermark is its log end: every replica is caught up); any other negative offset, or one beyond the high
watermark, is OFFSET_OUT_OF_RANGE; the log start never moves back, so the low watermark answered is the larger
of the old log start and the offset.  Only the leader deletes (NOT_LEADER_OR_FOLLOWER elsewhere), and records
of internal topics are refused with INVALID_TOPIC_EXCEPTION (Kafka lets only its own tools delete those).  A
topic whose cleanup.policy is compact only (no delete) answers POLICY_VIOLATION, when the fake keeps configs.
"""

from __future__ import annotations

from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing import authorizer as az
from kadmin.testing.handlers.base import RequestContext, Response, register, response_class
from kadmin.testing.state.topics import PartitionState, Topic, Topics

API_KEY = ApiKey.DELETE_RECORDS
HIGH_WATERMARK = -1


def _compact_only(topic: Topic) -> bool:
    configs = getattr(topic, "configs", None)
    if not isinstance(configs, dict):
        return False
    policy = configs.get("cleanup.policy")
    return isinstance(policy, str) and "delete" not in {p.strip() for p in policy.split(",")}


def _delete(ctx: RequestContext, topic: Topic | None, index: int, offset: int, live: set[int]) -> tuple[int, int]:
    """(error code, low watermark) for one partition."""
    if topic is not None and not ctx.authorize(az.TOPIC, topic.name, az.DELETE):
        return ErrorCode.TOPIC_AUTHORIZATION_FAILED, -1
    part: PartitionState | None = topic.partitions.get(index) if topic is not None else None
    if topic is None or part is None:
        return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, -1
    if part.leader_id(live) != ctx.node_id:
        return ErrorCode.NOT_LEADER_OR_FOLLOWER, -1
    if topic.internal:
        return ErrorCode.INVALID_TOPIC_EXCEPTION, -1
    if _compact_only(topic):
        return ErrorCode.POLICY_VIOLATION, -1
    target = part.log_end if offset == HIGH_WATERMARK else offset
    if target < 0 or target > part.log_end:
        return ErrorCode.OFFSET_OUT_OF_RANGE, -1
    part.delete_records(target)
    return ErrorCode.NONE, part.log_start


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    live = ctx.live_ids()
    topics = []
    for t in req.topics:
        topic = ctx.state.area(Topics).get(t.name)
        parts = []
        for p in t.partitions:
            code, low = _delete(ctx, topic, p.partition_index, p.offset, live)
            parts.append(R.DeleteRecordsPartitionResult(partition_index=p.partition_index, low_watermark=low,
                                                        error_code=code))
        topics.append(R.DeleteRecordsTopicResult(name=t.name, partitions=parts))
    return R(topics=topics)


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    R = response_class(API_KEY)
    return R(topics=[R.DeleteRecordsTopicResult(name=t.name, partitions=[
        R.DeleteRecordsPartitionResult(partition_index=p.partition_index, low_watermark=-1, error_code=code)
        for p in t.partitions]) for t in req.topics])


def keys(req: Any, version: int) -> tuple[str, ...]:
    return tuple(f"{t.name}-{p.partition_index}" for t in req.topics for p in t.partitions)


register(API_KEY, handle=handle, error_response=error_response, keys=keys)
