"""DescribeTopicPartitions (key 75, KIP-966, KRaft brokers of Kafka 3.8+; here the 4.0 preset).

As Kafka's DescribeTopicPartitionsRequestHandler: the requested topics (every topic when the list is empty)
in name order, from the cursor's topic and partition on; at most ResponsePartitionLimit partitions (capped at
the broker's max.request.partition.size.limit, 2000) per answer.  When the limit cuts a topic, NextCursor names
where to resume; it is null when everything was sent.  An unknown topic is an entry with
UNKNOWN_TOPIC_OR_PARTITION and no partitions.
"""

from __future__ import annotations

from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing import authorizer as az
from kadmin.testing.handlers.base import RequestContext, Response, register, response_class
from kadmin.testing.state.topics import Topics

API_KEY = ApiKey.DESCRIBE_TOPIC_PARTITIONS
MAX_PARTITIONS = 2000


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    live = ctx.live_ids()
    # Every topic: only those the principal may describe; named ones it may not: TOPIC_AUTHORIZATION_FAILED.
    names = sorted({t.name for t in req.topics}) if req.topics else \
        sorted(n for n in ctx.state.area(Topics) if ctx.authorize(az.TOPIC, n, az.DESCRIBE))
    cursor = req.cursor
    if cursor is not None:
        names = [n for n in names if n >= cursor.topic_name]
    budget = max(1, min(req.response_partition_limit, MAX_PARTITIONS))
    out = []
    next_cursor = None
    for name in names:
        topic = ctx.state.area(Topics).get(name)
        if not ctx.authorize(az.TOPIC, name, az.DESCRIBE):
            out.append(R.DescribeTopicPartitionsResponseTopic(
                error_code=ErrorCode.TOPIC_AUTHORIZATION_FAILED, name=name, is_internal=False, partitions=[]))
            continue
        if topic is None:
            out.append(R.DescribeTopicPartitionsResponseTopic(
                error_code=ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, name=name, is_internal=False, partitions=[]))
            continue
        if budget == 0:
            next_cursor = R.Cursor(topic_name=name, partition_index=0)
            break
        start = cursor.partition_index if cursor is not None and name == cursor.topic_name else 0
        parts = []
        indexes = sorted(i for i in topic.partitions if i >= start)
        for i in indexes:
            if budget == 0:
                next_cursor = R.Cursor(topic_name=name, partition_index=i)
                break
            p = topic.partitions[i]
            isr = [r for r in p.replicas if r in live]
            parts.append(R.DescribeTopicPartitionsResponsePartition(
                error_code=ErrorCode.NONE if isr else ErrorCode.LEADER_NOT_AVAILABLE, partition_index=i,
                leader_id=p.leader_id(live), leader_epoch=p.leader_epoch, replica_nodes=list(p.replicas),
                isr_nodes=p.in_sync(live), eligible_leader_replicas=[], last_known_elr=[],
                offline_replicas=[r for r in p.replicas if r not in live]))
            budget -= 1
        out.append(R.DescribeTopicPartitionsResponseTopic(
            error_code=ErrorCode.NONE, name=name, topic_id=topic.topic_id, is_internal=topic.internal,
            partitions=parts, topic_authorized_operations=ctx.authorized_operations(az.TOPIC, name)))
        if next_cursor is not None:
            break
    return R(topics=out, next_cursor=next_cursor)


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    R = response_class(API_KEY)
    return R(topics=[R.DescribeTopicPartitionsResponseTopic(error_code=code, name=t.name, partitions=[])
                     for t in req.topics])


def keys(req: Any, version: int) -> tuple[str, ...]:
    return tuple(t.name for t in req.topics)


register(API_KEY, handle=handle, error_response=error_response, keys=keys)
