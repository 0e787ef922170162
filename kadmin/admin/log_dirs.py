"""Log directories: DescribeLogDirs (API 35) to each broker, about its own directories.

Keys are broker ids (:class:`~kadmin.admin.lookups.AllNodes`): each broker describes the directories it has and
the replicas in them.  The per-directory error (an offline directory: KAFKA_STORAGE_ERROR) is part of the
answer, not a failure of the broker's key.  Volume sizes arrived in v4 (KIP-827, Kafka 3.3); older brokers give
None for them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kadmin.admin._driver import Done, Failed, Operation, Outcome, Retry
from kadmin.admin.lookups import AllNodes
from kadmin.errors import ErrorCode, KafkaError, error_for_code
from kadmin.protocol import Message, message_type
from kadmin.protocol.apis import ApiKey
from kadmin.storage import LogDirDescription, ReplicaLogInfo, TopicSizes
from kadmin.types import TopicPartition


class DescribeLogDirs(Operation[int]):
    """{broker id: {path: LogDirDescription}}, one request per broker; ``partitions`` None asks for every
    replica each broker holds."""

    api = ApiKey.DESCRIBE_LOG_DIRS

    def __init__(self, partitions: Sequence[TopicPartition] | None = None) -> None:
        self.partitions = partitions
        self.lookup = AllNodes()

    def build(self, node: int, keys: list[int], version: int) -> Message:
        req: Any = message_type(ApiKey.DESCRIBE_LOG_DIRS, "request")
        if self.partitions is None:
            return req(topics=None)  # type: ignore[no-any-return]
        topics: dict[str, list[int]] = {}
        for tp in self.partitions:
            topics.setdefault(tp.topic, []).append(tp.partition)
        return req(topics=[req.DescribableLogDirTopic(topic=t, partitions=ps)  # type: ignore[no-any-return]
                           for t, ps in topics.items()])

    def handle(self, node: int, keys: list[int], response: Any, version: int) -> dict[int, Outcome]:
        err = error_for_code(response.error_code) if version >= 3 else None
        if err is not None:
            # CLUSTER_AUTHORIZATION_FAILED (v3+; older brokers answer it with no directories): the broker's answer.
            return {node: Retry(err) if err.retriable else Failed(err)}
        dirs: dict[str, LogDirDescription] = {}
        for d in response.results:
            replicas = tuple(
                ReplicaLogInfo(TopicPartition(t.name, p.partition_index), p.partition_size, p.offset_lag,
                               p.is_future_key)
                for t in d.topics for p in t.partitions)
            total = d.total_bytes if version >= 4 and d.total_bytes >= 0 else None
            usable = d.usable_bytes if version >= 4 and d.usable_bytes >= 0 else None
            dirs[d.log_dir] = LogDirDescription(d.log_dir, error_for_code(d.error_code), replicas, total, usable)
        return {node: Done(dirs)}




def unknown_broker(node_id: int) -> KafkaError:
    """The answer for a broker id the cluster metadata does not list (never sent anywhere)."""
    err = error_for_code(ErrorCode.BROKER_NOT_AVAILABLE, f"broker {node_id} is not in the cluster metadata")
    assert err is not None
    return err


def topic_sizes(dirs: Mapping[int, Mapping[str, LogDirDescription] | KafkaError],
                leaders: Mapping[str, Mapping[int, int] | KafkaError], counted: str) -> TopicSizes:
    """Fold every broker's log dirs into bytes per topic (see :class:`~kadmin.storage.TopicSizes`).

    ``leaders``: {topic: {partition: leader id} or the topic's error}, from Metadata, for the topics to size.
    ``counted``: "leader" (the leader's copy of each partition) or "all" (every replica's current log)."""
    broker_errors: dict[int, KafkaError] = {}
    held: dict[TopicPartition, dict[int, int]] = {}
    for node, got in dirs.items():
        if isinstance(got, KafkaError):
            broker_errors[node] = got
            continue
        for path, d in got.items():
            if d.error is not None:
                # An offline directory: its replicas are unknown, so every total may be short.
                broker_errors[node] = error_for_code(d.error.code or ErrorCode.KAFKA_STORAGE_ERROR,
                                                     f"log dir {path}: {d.error.message}") or d.error
            for r in d.replicas:
                if not r.is_future and r.partition.topic in leaders:
                    held.setdefault(r.partition, {})[node] = r.size_bytes
    sizes: dict[str, int] = {}
    missing: dict[TopicPartition, KafkaError] = {}
    topic_errors: dict[str, KafkaError] = {}
    for topic, parts in leaders.items():
        if isinstance(parts, KafkaError):
            topic_errors[topic] = parts
            continue
        total = 0
        for partition, leader in sorted(parts.items()):
            tp = TopicPartition(topic, partition)
            copies = held.get(tp, {})
            if counted == "all":
                total += sum(copies.values())
            elif leader in copies:
                total += copies[leader]
            else:
                missing[tp] = _why_missing(tp, leader, broker_errors)
        sizes[topic] = total
    return TopicSizes(sizes, counted, missing, broker_errors, topic_errors)


def _why_missing(tp: TopicPartition, leader: int, broker_errors: Mapping[int, KafkaError]) -> KafkaError:
    if leader < 0:
        err = error_for_code(ErrorCode.LEADER_NOT_AVAILABLE, f"{tp} has no leader, so no leader copy to measure")
    elif leader in broker_errors:
        err = error_for_code(ErrorCode.KAFKA_STORAGE_ERROR, f"{tp}: its leader, broker {leader}, did not describe "
                             f"its log dirs: {broker_errors[leader]}")
    else:
        err = error_for_code(ErrorCode.REPLICA_NOT_AVAILABLE, f"{tp}: its leader, broker {leader}, reported no log "
                             "for it")
    assert err is not None
    return err


__all__ = ["DescribeLogDirs", "topic_sizes", "unknown_broker"]
