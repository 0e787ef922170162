"""Log directories: DescribeLogDirs (API 35) to each broker, about its own directories.

Keys are broker ids (:class:`~kadmin.admin.lookups.AllNodes`): each broker describes the directories it has and
the replicas in them.  The per-directory error (an offline directory: KAFKA_STORAGE_ERROR) is part of the
answer, not a failure of the broker's key.  Volume sizes arrived in v4 (KIP-827, Kafka 3.3); older brokers give
None for them.  Whether a directory is cordoned arrived in v5 (KIP-1066, Kafka 4.3); None before.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kadmin._keys import partitions_by_topic
from kadmin.admin._driver import Context, Done, Failed, Operation, Outcome, Retry, run
from kadmin.admin.lookups import AllNodes
from kadmin.admin.topics import ALL_TOPICS, DescribeTopicsMetadata, ListTopics
from kadmin.errors import ErrorCode, KafkaError, error_for_code
from kadmin.network.retry import Deadline
from kadmin.protocol import Message, message_type
from kadmin.protocol.apis import ApiKey
from kadmin.storage import LogDirDescription, ReplicaLogInfo, TopicSizes
from kadmin.topics import TopicDescription
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
        return req(topics=[req.DescribableLogDirTopic(topic=t, partitions=ps)  # type: ignore[no-any-return]
                           for t, ps in partitions_by_topic(self.partitions).items()])

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
            cordoned = bool(d.is_cordoned) if version >= 5 else None  # KIP-1066, Kafka 4.3
            dirs[d.log_dir] = LogDirDescription(d.log_dir, error_for_code(d.error_code), replicas, total, usable,
                                                cordoned)
        return {node: Done(dirs)}




def unknown_broker(node_id: int) -> KafkaError:
    """The answer for a broker id the cluster metadata does not list (never sent anywhere)."""
    err = error_for_code(ErrorCode.BROKER_NOT_AVAILABLE, f"broker {node_id} is not in the cluster metadata")
    assert err is not None
    return err


async def measure_topic_sizes(ctx: Context, names: list[str] | None, counted: str,
                              deadline: Deadline) -> TopicSizes:
    """Every broker's log dirs folded into bytes per topic (``names`` None: every topic of the cluster).

    The partitions' replica lists come from Metadata, so a copy that no broker reported (its broker down, out of
    the metadata, or silent about it) is named in the result instead of leaving the sum silently short.  Without
    names the topics are those the metadata lists plus those the brokers hold: a topic whose every replica is on
    a broker that is down is still sized (0, and its partitions missing)."""
    nodes = sorted(ctx.net.nodes)
    dirs = await run(ctx, DescribeLogDirs(), nodes, deadline) if nodes else {}
    if names is None:
        listed = (await run(ctx, ListTopics(True), [ALL_TOPICS], deadline))[ALL_TOPICS]
        if isinstance(listed, KafkaError):
            raise listed
        names = sorted({t.name for t in listed} | {r.partition.topic for got in dirs.values()
                                                    if not isinstance(got, KafkaError)
                                                    for d in got.values() for r in d.replicas})
    described = await run(ctx, DescribeTopicsMetadata(False), names, deadline) if names else {}
    return topic_sizes(dirs, described, counted)


def topic_sizes(dirs: Mapping[int, Mapping[str, LogDirDescription] | KafkaError],
                topics: Mapping[str, TopicDescription | KafkaError], counted: str) -> TopicSizes:
    """Fold every broker's log dirs into bytes per topic (see :class:`~kadmin.storage.TopicSizes`).

    ``dirs``: the answer of each broker in the cluster metadata.  ``topics``: {topic: its description or
    error}, from Metadata, for the topics to size.  ``counted``: "leader" (the leader's copy of each partition)
    or "all" (every replica's current log).  With "all", each replica the partition's replica list names must
    have been reported by its broker; one that was not makes the partition missing (and a replica's broker that
    is not in the cluster metadata, so was never asked, a broker error): the sum is then a lower bound."""
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
                if not r.is_future and r.partition.topic in topics:
                    held.setdefault(r.partition, {})[node] = r.size_bytes
    sizes: dict[str, int] = {}
    missing: dict[TopicPartition, KafkaError] = {}
    topic_errors: dict[str, KafkaError] = {}
    absent: set[int] = set()
    for topic, desc in topics.items():
        if isinstance(desc, KafkaError):
            topic_errors[topic] = desc
            continue
        total = 0
        for part in desc.partitions:
            tp = TopicPartition(topic, part.partition)
            copies = held.get(tp, {})
            if counted == "all":
                # Every copy found counts (the disk the topic takes); every copy assigned must have been found.
                total += sum(copies.values())
                unread = [r for r in part.replicas if r not in copies]
                if unread:
                    missing[tp] = _why_replicas_missing(tp, unread, dirs, broker_errors)
                    absent.update(r for r in unread if r not in dirs)
            elif part.leader is not None and part.leader in copies:
                total += copies[part.leader]
            else:
                missing[tp] = _why_missing(tp, part.leader, dirs, broker_errors)
        sizes[topic] = total
    for node in sorted(absent):
        broker_errors[node] = unknown_broker(node)
    return TopicSizes(sizes, counted, missing, broker_errors, topic_errors)


def _why_not_read(node: int, dirs: Mapping[int, object], broker_errors: Mapping[int, KafkaError]) -> str:
    if node not in dirs:
        return f"broker {node} is not in the cluster metadata (down?), so it was not asked"
    if node in broker_errors:
        return f"broker {node} did not describe its log dirs: {broker_errors[node]}"
    return f"broker {node} reported no log for it"


def _why_replicas_missing(tp: TopicPartition, unread: Sequence[int], dirs: Mapping[int, object],
                          broker_errors: Mapping[int, KafkaError]) -> KafkaError:
    if any(n not in dirs for n in unread):
        code = ErrorCode.BROKER_NOT_AVAILABLE
    elif any(n in broker_errors for n in unread):
        code = ErrorCode.KAFKA_STORAGE_ERROR
    else:
        code = ErrorCode.REPLICA_NOT_AVAILABLE
    err = error_for_code(code, f"{tp}: {len(unread)} replica(s) not measured: "
                         + "; ".join(_why_not_read(n, dirs, broker_errors) for n in unread))
    assert err is not None
    return err


def _why_missing(tp: TopicPartition, leader: int | None, dirs: Mapping[int, object],
                 broker_errors: Mapping[int, KafkaError]) -> KafkaError:
    if leader is None:
        err = error_for_code(ErrorCode.LEADER_NOT_AVAILABLE, f"{tp} has no leader, so no leader copy to measure")
    elif leader not in dirs:
        err = error_for_code(ErrorCode.BROKER_NOT_AVAILABLE, f"{tp}: its leader: "
                             f"{_why_not_read(leader, dirs, broker_errors)}")
    elif leader in broker_errors:
        err = error_for_code(ErrorCode.KAFKA_STORAGE_ERROR, f"{tp}: its leader, broker {leader}, did not describe "
                             f"its log dirs: {broker_errors[leader]}")
    else:
        err = error_for_code(ErrorCode.REPLICA_NOT_AVAILABLE, f"{tp}: its leader, broker {leader}, reported no log "
                             "for it")
    assert err is not None
    return err


__all__ = ["DescribeLogDirs", "measure_topic_sizes", "topic_sizes", "unknown_broker"]
