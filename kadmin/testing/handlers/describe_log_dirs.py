"""DescribeLogDirs (key 35): each broker describes its own log directories and the replicas in them.

As Kafka's ReplicaManager.describeLogDirs: one result per log directory of the answering broker; an offline
directory answers KAFKA_STORAGE_ERROR and no topics; a null topic list means every replica the broker holds,
and requested partitions the broker holds no replica of are left out (not errors).  A current log's offset
lag is how far its end trails the high watermark (0 here: every fake replica is caught up); a future log's
(AlterReplicaLogDirs moving it to another directory) is how far it trails the current log.  A size is what the
log's segments take on disk (PartitionState.size_bytes): the bytes of the record batches producers wrote, plus
:data:`kadmin.testing.state.BYTES_PER_RECORD` per offset no producer wrote; DeleteRecords does not shrink it, as
Kafka frees segments only on its retention check.  v3 adds the top-level error, v4 the volume's total and usable
bytes (usable: total minus what the directory's replicas take).
"""

from __future__ import annotations

from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing import authorizer as az
from kadmin.testing.handlers.base import RequestContext, Response, register, response_class
from kadmin.testing.state.log_dirs import LogDirs
from kadmin.testing.state.topics import Topics

API_KEY = ApiKey.DESCRIBE_LOG_DIRS

# (topic, partition, size, offset lag, is future)
_Entry = tuple[str, int, int, int, bool]


def _wanted(req: Any) -> set[tuple[str, int]] | None:
    if req.topics is None:
        return None
    return {(t.topic, p) for t in req.topics for p in t.partitions}


def _entries(ctx: RequestContext, wanted: set[tuple[str, int]] | None) -> dict[str, list[_Entry]]:
    """Per directory path, the replicas this broker holds there."""
    by_dir: dict[str, list[_Entry]] = {}
    for name, topic in sorted(ctx.state.area(Topics).items()):
        for index, part in sorted(topic.partitions.items()):
            if ctx.node_id not in part.replicas or (wanted is not None and (name, index) not in wanted):
                continue
            by_dir.setdefault(ctx.state.area(LogDirs).replica_dir(part, ctx.node_id), []).append(
                (name, index, part.size_bytes(), 0, False))
            future = part.future.get(ctx.node_id)
            if future is not None:
                path, behind = future
                by_dir.setdefault(path, []).append((name, index, part.size_bytes(lag=behind), behind, True))
    return by_dir


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    if not ctx.authorize(az.CLUSTER, az.CLUSTER_NAME, az.DESCRIBE):
        # KafkaApis: v3+ says so at the top; before, an unauthorized request just gets no directories.
        return R(error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED, results=[]) if version >= 3 else R(results=[])
    by_dir = _entries(ctx, _wanted(req))
    results = []
    for d in ctx.state.area(LogDirs).dirs_of(ctx.node_id):
        if d.offline:
            results.append(R.DescribeLogDirsResult(error_code=ErrorCode.KAFKA_STORAGE_ERROR, log_dir=d.path,
                                                   topics=[], total_bytes=-1, usable_bytes=-1))
            continue
        entries = by_dir.get(d.path, [])
        topics: dict[str, list[Any]] = {}
        for name, index, size, lag, future in entries:
            topics.setdefault(name, []).append(R.DescribeLogDirsPartition(
                partition_index=index, partition_size=size, offset_lag=lag, is_future_key=future))
        used = sum(e[2] for e in entries)
        results.append(R.DescribeLogDirsResult(
            error_code=ErrorCode.NONE, log_dir=d.path,
            topics=[R.DescribeLogDirsTopic(name=n, partitions=ps) for n, ps in topics.items()],
            total_bytes=d.total_bytes if version >= 4 else -1,
            usable_bytes=max(0, d.total_bytes - used) if version >= 4 else -1))
    return R(error_code=ErrorCode.NONE, results=results)


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    """Before v3 there is no top-level error: Kafka answers an unauthorized request with no directories, so an
    injected error goes on each directory instead."""
    R = response_class(API_KEY)
    if version >= 3:
        return R(error_code=code, results=[])
    return R(results=[R.DescribeLogDirsResult(error_code=code, log_dir=d.path, topics=[])
                      for d in ctx.state.area(LogDirs).dirs_of(ctx.node_id)])


def keys(req: Any, version: int) -> tuple[str, ...]:
    if req.topics is None:
        return ()
    return tuple(f"{t.topic}-{p}" for t in req.topics for p in t.partitions)


register(API_KEY, handle=handle, error_response=error_response, keys=keys)
