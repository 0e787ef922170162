"""Replica log directories: AlterReplicaLogDirs (API 34) to each replica's broker, and the replicas' current and
future directories read from DescribeLogDirs (API 35).

Keys are :class:`~kadmin.replicas.TopicPartitionReplica`; each goes to its own broker (:class:`ReplicaBroker`),
one request per broker carrying every replica moved there, grouped by target directory.  A broker id the cluster
metadata does not list fails its replicas at once, unsent.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from kadmin.admin._driver import Context, Done, Failed, Operation, Outcome, run
from kadmin.admin.log_dirs import DescribeLogDirs, unknown_broker
from kadmin.errors import ErrorCode, KafkaError, ProtocolError, error_for_code
from kadmin.network.retry import Deadline
from kadmin.protocol import Message, message_type
from kadmin.protocol.apis import ApiKey
from kadmin.replicas import ReplicaLogDirInfo, TopicPartitionReplica
from kadmin.storage import LogDirDescription
from kadmin.types import TopicPartition


class ReplicaBroker:
    """Each replica to the broker that holds it; a broker the metadata does not list fails its replicas."""

    async def locate(self, ctx: Context, keys: Sequence[TopicPartitionReplica],
                     deadline: Deadline) -> dict[TopicPartitionReplica, int | Outcome]:
        if any(k.broker_id not in ctx.net.nodes for k in keys):
            try:
                await ctx.net.refresh_metadata(deadline=deadline)
            except KafkaError:
                pass  # judged on the nodes known so far
        return {k: k.broker_id if k.broker_id in ctx.net.nodes else Failed(unknown_broker(k.broker_id))
                for k in keys}

    def forget(self, ctx: Context, keys: Iterable[TopicPartitionReplica]) -> None:
        pass

    def forget_node(self, ctx: Context, node_id: int) -> None:
        pass


class AlterReplicaLogDirs(Operation[TopicPartitionReplica]):
    """Move each replica to a log directory of its broker: None when the broker took the move (the copy then
    runs in the background: describe_replica_log_dirs shows its future log), else the broker's error."""

    api = ApiKey.ALTER_REPLICA_LOG_DIRS
    write = True

    def __init__(self, moves: Mapping[TopicPartitionReplica, str]) -> None:
        self.moves = dict(moves)
        self.lookup = ReplicaBroker()

    def build(self, node: int, keys: list[TopicPartitionReplica], version: int) -> Message:
        req: Any = message_type(ApiKey.ALTER_REPLICA_LOG_DIRS, "request")
        by_dir: dict[str, dict[str, list[int]]] = {}
        for k in keys:
            by_dir.setdefault(self.moves[k], {}).setdefault(k.topic, []).append(k.partition)
        return req(dirs=[req.AlterReplicaLogDir(  # type: ignore[no-any-return]
            path=path, topics=[req.AlterReplicaLogDirTopic(name=t, partitions=ps) for t, ps in topics.items()])
            for path, topics in by_dir.items()])

    def handle(self, node: int, keys: list[TopicPartitionReplica], response: Any,
               version: int) -> dict[TopicPartitionReplica, Outcome]:
        wanted = {(k.topic, k.partition): k for k in keys}
        out: dict[TopicPartitionReplica, Outcome] = {}
        for t in response.results:
            for p in t.partitions:
                k = wanted.get((t.topic_name, p.partition_index))
                if k is None:
                    continue
                err = error_for_code(p.error_code)
                # Every code is final here, as in Kafka's own client: LOG_DIR_NOT_FOUND (no such directory on that
                # broker), KAFKA_STORAGE_ERROR (the directory, or the replica's current one, is offline),
                # REPLICA_NOT_AVAILABLE (the broker holds no replica of the partition: only a reassignment would
                # change that), CLUSTER_AUTHORIZATION_FAILED.  Asking again gets the same answer.
                out[k] = Done(None) if err is None else Failed(err)
        for k in keys:
            out.setdefault(k, Failed(ProtocolError(f"broker {node}'s AlterReplicaLogDirs answer left out {k}")))
        return out


async def describe_replica_log_dirs(ctx: Context, replicas: Sequence[TopicPartitionReplica],
                                    deadline: Deadline) -> dict[TopicPartitionReplica, ReplicaLogDirInfo | KafkaError]:
    """One DescribeLogDirs per broker named, for the replicas' partitions, folded per replica."""
    await ctx.net.refresh_metadata(deadline=deadline)
    brokers = sorted({r.broker_id for r in replicas})
    known = [b for b in brokers if b in ctx.net.nodes]
    parts = list(dict.fromkeys(TopicPartition(r.topic, r.partition) for r in replicas))
    got = await _run_describe(ctx, parts, known, deadline) if known else {}
    out: dict[TopicPartitionReplica, ReplicaLogDirInfo | KafkaError] = {}
    for r in replicas:
        answer = got.get(r.broker_id)
        out[r] = unknown_broker(r.broker_id) if answer is None else _fold(r, answer)
    return out


async def _run_describe(ctx: Context, parts: list[TopicPartition], brokers: list[int],
                        deadline: Deadline) -> dict[int, Mapping[str, LogDirDescription] | KafkaError]:
    return await run(ctx, DescribeLogDirs(parts), brokers, deadline)


def _fold(r: TopicPartitionReplica, answer: Mapping[str, LogDirDescription] | KafkaError,
          ) -> ReplicaLogDirInfo | KafkaError:
    if isinstance(answer, KafkaError):
        return answer
    tp = TopicPartition(r.topic, r.partition)
    current: tuple[str, int, int] | None = None
    future: tuple[str, int] | None = None
    offline: list[str] = []
    for path, d in answer.items():
        if d.error is not None:
            offline.append(path)
        for info in d.replicas:
            if info.partition != tp:
                continue
            if info.is_future:
                future = (path, info.offset_lag)
            else:
                current = (path, info.offset_lag, info.size_bytes)
    if current is None:
        code = ErrorCode.KAFKA_STORAGE_ERROR if offline else ErrorCode.REPLICA_NOT_AVAILABLE
        why = (f"; log dir(s) {', '.join(offline)} offline" if offline else "")
        err = error_for_code(code, f"broker {r.broker_id} reports no log of {tp}{why}")
        assert err is not None
        return err
    return ReplicaLogDirInfo(current[0], current[1], current[2], future[0] if future else None,
                             future[1] if future else None)


__all__ = ["AlterReplicaLogDirs", "ReplicaBroker", "describe_replica_log_dirs"]
