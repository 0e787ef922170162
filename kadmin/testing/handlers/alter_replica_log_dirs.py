"""AlterReplicaLogDirs (key 34): move a broker's replicas to another of its log directories (KIP-113).

As Kafka's KafkaApis (ALTER on the cluster, else CLUSTER_AUTHORIZATION_FAILED for every partition) and
ReplicaManager.alterReplicaLogDirs: a directory the broker does not have is LOG_DIR_NOT_FOUND, an offline one
KAFKA_STORAGE_ERROR, a partition the broker holds no replica of REPLICA_NOT_AVAILABLE.  The fake copies a log
instantly, so an accepted move is already complete when the answer leaves: the replica lives in the new
directory and any future log of an earlier move is gone (``cluster.place_replica`` sets up a move in
progress, which DescribeLogDirs shows as a future log).  Moving a replica to the directory it is in is a
no-op that also cancels such a move, as in Kafka.
"""

from __future__ import annotations

from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing import authorizer as az
from kadmin.testing.handlers.base import RequestContext, Response, register, response_class
from kadmin.testing.state.log_dirs import LogDirs
from kadmin.testing.state.topics import Topics

API_KEY = ApiKey.ALTER_REPLICA_LOG_DIRS


def _move(ctx: RequestContext, path: str, topic: str, index: int) -> int:
    dirs = {d.path: d for d in ctx.state.area(LogDirs).dirs_of(ctx.node_id)}
    if path not in dirs:
        return ErrorCode.LOG_DIR_NOT_FOUND
    if dirs[path].offline:
        return ErrorCode.KAFKA_STORAGE_ERROR
    t = ctx.state.area(Topics).get(topic)
    part = t.partitions.get(index) if t is not None else None
    if part is None or ctx.node_id not in part.replicas:
        return ErrorCode.REPLICA_NOT_AVAILABLE
    current = ctx.state.area(LogDirs).replica_dir(part, ctx.node_id)
    if dirs.get(current) is not None and dirs[current].offline:
        return ErrorCode.KAFKA_STORAGE_ERROR
    part.future.pop(ctx.node_id, None)
    part.dirs[ctx.node_id] = path
    return ErrorCode.NONE


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    if not ctx.authorize(az.CLUSTER, az.CLUSTER_NAME, az.ALTER):
        return error_response(ctx, req, version, ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
    R = response_class(API_KEY)
    by_topic: dict[str, list[Any]] = {}
    for d in req.dirs:
        for t in d.topics:
            for index in t.partitions:
                by_topic.setdefault(t.name, []).append(R.AlterReplicaLogDirPartitionResult(
                    partition_index=index, error_code=_move(ctx, d.path, t.name, index)))
    return R(throttle_time_ms=0, results=[R.AlterReplicaLogDirTopicResult(topic_name=name, partitions=parts)
                                          for name, parts in by_topic.items()])


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    R = response_class(API_KEY)
    by_topic: dict[str, list[Any]] = {}
    for d in req.dirs:
        for t in d.topics:
            by_topic.setdefault(t.name, []).extend(
                R.AlterReplicaLogDirPartitionResult(partition_index=i, error_code=code) for i in t.partitions)
    return R(throttle_time_ms=0, results=[R.AlterReplicaLogDirTopicResult(topic_name=name, partitions=parts)
                                          for name, parts in by_topic.items()])


def keys(req: Any, version: int) -> tuple[str, ...]:
    return tuple(f"{t.name}-{p}" for d in req.dirs for t in d.topics for p in t.partitions)


register(API_KEY, handle=handle, error_response=error_response, keys=keys)
