"""Deleting records: DeleteRecords (API 21) to each partition's leader.

The leader moves the partition's log start offset (its low watermark) up to the requested offset and answers
once the followers have done the same; records below it are gone for every consumer.  A write: a request sent
and never answered leaves its partitions "possibly applied".  Deleting is idempotent (the log start only moves
forward), so a resend after a lost answer gets the true low watermark, and no error code is what "the lost send
was applied" looks like.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from kadmin.admin._driver import Done, Failed, Operation, Outcome, Retry
from kadmin.admin.lookups import PartitionLeader
from kadmin.errors import ErrorCode, error_for_code
from kadmin.protocol import Message, message_type
from kadmin.protocol.apis import ApiKey
from kadmin.storage import DeletedRecords
from kadmin.types import TopicPartition

#: How long a leader may wait for its followers to move their log start too (Kafka's admin default: 30 s; the
#: AdminClient sends the call's remaining time when that is less).
DEFAULT_TIMEOUT_MS = 30_000


class DeleteRecords(Operation[TopicPartition]):
    """Records below an offset deleted, per partition, one request per partition leader."""

    api = ApiKey.DELETE_RECORDS
    write = True
    applied_looks_like: ClassVar[frozenset[ErrorCode] | None] = frozenset()

    def __init__(self, offsets: Mapping[TopicPartition, int], timeout_ms: int = DEFAULT_TIMEOUT_MS) -> None:
        self.offsets = offsets
        self.timeout_ms = timeout_ms
        # A topic the cluster does not have has no records to delete: its partitions fail at once.
        self.lookup = PartitionLeader(tolerate_unknown_topics=True)

    def build(self, node: int, keys: list[TopicPartition], version: int) -> Message:
        req: Any = message_type(ApiKey.DELETE_RECORDS, "request")
        topics: dict[str, list[Any]] = {}
        for tp in keys:
            topics.setdefault(tp.topic, []).append(
                req.DeleteRecordsPartition(partition_index=tp.partition, offset=self.offsets[tp]))
        return req(topics=[req.DeleteRecordsTopic(name=t, partitions=ps)  # type: ignore[no-any-return]
                           for t, ps in topics.items()], timeout_ms=self.timeout_ms)

    def handle(self, node: int, keys: list[TopicPartition], response: Any,
               version: int) -> dict[TopicPartition, Outcome]:
        out: dict[TopicPartition, Outcome] = {}
        for t in response.topics:
            for p in t.partitions:
                tp = TopicPartition(t.name, p.partition_index)
                out[tp] = self._partition(tp, p)
        return out

    def _partition(self, tp: TopicPartition, p: Any) -> Outcome:
        code = p.error_code
        if code == ErrorCode.NONE:
            return Done(DeletedRecords(p.low_watermark))
        err = error_for_code(code, f"{tp}: {error_for_code(code)} (delete before offset {self.offsets[tp]})")
        assert err is not None
        if code in (ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.LEADER_NOT_AVAILABLE, ErrorCode.KAFKA_STORAGE_ERROR):
            # The leader moved (or its log dir failed, and leadership is moving): find it again and ask it.
            return Retry(err, relookup=True)
        if code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
            # The metadata named this leader, but it does not know the partition (the topic was just deleted).
            return Failed(err)
        if code == ErrorCode.OFFSET_OUT_OF_RANGE:
            # The offset is beyond the high watermark: asking again asks for the same impossible thing.
            return Failed(err)
        if code == ErrorCode.POLICY_VIOLATION:
            # cleanup.policy=compact without delete: the topic's config forbids it.
            return Failed(err)
        if code == ErrorCode.REQUEST_TIMED_OUT:
            # The followers did not catch up within timeout_ms; the leader may still finish.  Asking again is
            # harmless (idempotent), and the driver keeps the partition in doubt if no later answer comes.
            return Retry(err)
        # TOPIC_AUTHORIZATION_FAILED, INVALID_TOPIC_EXCEPTION (an internal topic), ...: the answer.
        return Retry(err) if err.retriable else Failed(err)


__all__ = ["DEFAULT_TIMEOUT_MS", "DeleteRecords"]
