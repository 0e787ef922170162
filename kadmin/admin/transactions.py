"""Transactions and producers (KIP-664, KIP-939) on the one operation shape.

* :class:`DescribeProducers` (API 61): each partition's leader, one request per leader.
* :class:`ListTransactions` (API 66): every broker (each coordinates its share of the transactional ids).
* :class:`DescribeTransactions` (API 65): each id's transaction coordinator (batched FindCoordinator with key
  type 1), one request per coordinator.
* :class:`AbortTransaction` (WriteTxnMarkers, API 27): an abort marker to each partition's leader, one request
  per leader, as Java's Admin.abortTransaction does (the coordinator is not involved: it is the one that lost
  track).  A write: a lost answer leaves the partition "possibly applied".
* :class:`FenceProducers` (InitProducerId, API 22, with the transactional id): on each id's coordinator,
  which bumps the id's epoch, fencing every older producer and aborting an ongoing transaction.
  ``force_terminate`` (KIP-939) sends it at v6 with KeepPreparedTxn false; a coordinator speaking less cannot
  terminate a prepared two-phase transaction, so that id fails alone, unsent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from kadmin._keys import partitions_by_topic
from kadmin.admin._driver import Built, Done, Failed, Operation, Outcome, Retry, split_by_version
from kadmin.admin.coordinators import TRANSACTION, CoordinatorLookup
from kadmin.admin.lookups import AllNodes, PartitionLeader
from kadmin.errors import ErrorCode, KafkaError, UnsupportedVersionError, error_for_code
from kadmin.protocol import Message, message_type
from kadmin.protocol.apis import ApiKey
from kadmin.transactions import (
    AbortTransactionSpec,
    FencedProducer,
    ProducerState,
    TransactionDescription,
    TransactionListing,
)
from kadmin.types import TopicPartition

#: ListTransactions: DurationFilter from v1 (KIP-994), TransactionalIdPattern from v2 (KIP-1152).
DURATION_FILTER_SINCE = 1
PATTERN_FILTER_SINCE = 2
#: InitProducerId v6 (KIP-939) carries KeepPreparedTxn: what terminating a prepared transaction needs.
FORCE_TERMINATE_SINCE = 6
#: The transaction timeout a fencing InitProducerId sends: the id is initialised only to fence older
#: producers, never to write (Java's Admin sends 1 ms too).
FENCING_TIMEOUT_MS = 1


def _leader_error(err: KafkaError, code: int) -> Outcome:
    """The per-partition errors a partition leader answers, shared by DescribeProducers and AbortTransaction."""
    if code in (ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.LEADER_NOT_AVAILABLE):
        # The leader moved: find it again and ask it.
        return Retry(err, relookup=True)
    if code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
        # The metadata named this leader but it does not know the partition (a topic just deleted): final.
        return Failed(err)
    # TOPIC_AUTHORIZATION_FAILED, CLUSTER_AUTHORIZATION_FAILED, INVALID_PRODUCER_EPOCH,
    # TRANSACTION_COORDINATOR_FENCED, UNKNOWN_PRODUCER_ID...: the partition's answer, unless retriable.
    return Retry(err) if err.retriable else Failed(err)


class DescribeProducers(Operation[TopicPartition]):
    """Active producers per partition, one request per partition leader."""

    api = ApiKey.DESCRIBE_PRODUCERS

    def __init__(self) -> None:
        # A topic that does not exist has no producers to describe: its partitions fail at once.
        self.lookup = PartitionLeader(tolerate_unknown_topics=True)

    def build(self, node: int, keys: list[TopicPartition], version: int) -> Message:
        req: Any = message_type(ApiKey.DESCRIBE_PRODUCERS, "request")
        return req(topics=[req.TopicRequest(name=t, partition_indexes=ps)  # type: ignore[no-any-return]
                           for t, ps in partitions_by_topic(keys).items()])

    def handle(self, node: int, keys: list[TopicPartition], response: Any,
               version: int) -> dict[TopicPartition, Outcome]:
        out: dict[TopicPartition, Outcome] = {}
        for t in response.topics:
            for p in t.partitions:
                tp = TopicPartition(t.name, p.partition_index)
                err = error_for_code(p.error_code, p.error_message and f"{tp}: {p.error_message}")
                if err is None:
                    out[tp] = Done(tuple(
                        ProducerState(s.producer_id, s.producer_epoch, s.last_sequence, s.last_timestamp,
                                      s.coordinator_epoch, s.current_txn_start_offset)
                        for s in p.active_producers))
                else:
                    out[tp] = _leader_error(err, p.error_code)
        return out


class ListTransactions(Operation[int]):
    """Every broker's transactions (keys are node ids)."""

    api = ApiKey.LIST_TRANSACTIONS

    def __init__(self, states: list[str], producer_ids: list[int], duration_ms: int | None,
                 pattern: str | None) -> None:
        self.states = states
        self.producer_ids = producer_ids
        self.duration_ms = duration_ms
        self.pattern = pattern
        self.lookup = AllNodes()

    def build(self, node: int, keys: list[int], version: int) -> Message:
        # The filters are the whole request's (a broker answers one list): a broker that cannot carry one
        # fails its key (itself); the other brokers are asked.  Sending without the filter would list
        # transactions the caller asked to leave out.
        if self.duration_ms is not None and version < DURATION_FILTER_SINCE:
            raise UnsupportedVersionError(
                f"node {node} speaks ListTransactions v{version}; duration_filter_ms needs v1+ (Kafka 3.8)")
        if self.pattern is not None and version < PATTERN_FILTER_SINCE:
            raise UnsupportedVersionError(
                f"node {node} speaks ListTransactions v{version}; transactional_id_pattern needs v2+ (Kafka 4.1)")
        kwargs: dict[str, Any] = {"state_filters": self.states, "producer_id_filters": self.producer_ids}
        if version >= DURATION_FILTER_SINCE:
            kwargs["duration_filter"] = -1 if self.duration_ms is None else self.duration_ms
        if version >= PATTERN_FILTER_SINCE:
            kwargs["transactional_id_pattern"] = self.pattern
        return message_type(ApiKey.LIST_TRANSACTIONS, "request")(**kwargs)

    def handle(self, node: int, keys: list[int], response: Any, version: int) -> dict[int, Outcome]:
        err = error_for_code(response.error_code)
        if err is not None:
            # COORDINATOR_LOAD_IN_PROGRESS (the broker is loading its transaction log) is retriable; the rest
            # (INVALID_REGULAR_EXPRESSION, CLUSTER_AUTHORIZATION_FAILED...) is this broker's answer.
            return {node: Retry(err) if err.retriable else Failed(err)}
        return {node: Done([TransactionListing(s.transactional_id, s.producer_id, s.transaction_state)
                            for s in response.transaction_states])}


class DescribeTransactions(Operation[str]):
    """Each transactional id's state, from its coordinator, one request per coordinator."""

    api = ApiKey.DESCRIBE_TRANSACTIONS

    def __init__(self) -> None:
        self.lookup = CoordinatorLookup(TRANSACTION)

    def build(self, node: int, keys: list[str], version: int) -> Message:
        return message_type(ApiKey.DESCRIBE_TRANSACTIONS, "request")(transactional_ids=keys)

    def handle(self, node: int, keys: list[str], response: Any, version: int) -> dict[str, Outcome]:
        out: dict[str, Outcome] = {}
        for s in response.transaction_states:
            err = error_for_code(s.error_code, f"transactional id {s.transactional_id!r}: "
                                               f"{error_for_code(s.error_code)}")
            if err is None:
                parts = tuple(sorted(TopicPartition(t.topic, p) for t in s.topics for p in t.partitions))
                out[s.transactional_id] = Done(TransactionDescription(
                    s.transactional_id, node, s.transaction_state, s.producer_id, s.producer_epoch,
                    s.transaction_timeout_ms, s.transaction_start_time_ms, parts))
            elif s.error_code in (ErrorCode.NOT_COORDINATOR, ErrorCode.COORDINATOR_NOT_AVAILABLE):
                # The id's coordinator moved (or is moving): look it up again.
                out[s.transactional_id] = Retry(err, relookup=True)
            elif s.error_code == ErrorCode.COORDINATOR_LOAD_IN_PROGRESS:
                # The coordinator is still loading its transaction log: the same node will know soon.
                out[s.transactional_id] = Retry(err)
            else:
                # TRANSACTIONAL_ID_NOT_FOUND, TRANSACTIONAL_ID_AUTHORIZATION_FAILED: the id's answer.
                out[s.transactional_id] = Retry(err) if err.retriable else Failed(err)
        return out


class AbortTransaction(Operation[TopicPartition]):
    """An abort marker per partition (WriteTxnMarkers), one request per partition leader."""

    api = ApiKey.WRITE_TXN_MARKERS
    write = True
    # A resend after a lost answer writes one more abort marker, which the partition accepts (NONE): the
    # answer a lost-but-applied first send gets.
    applied_looks_like: ClassVar[frozenset[ErrorCode] | None] = frozenset()

    def __init__(self, specs: Mapping[TopicPartition, AbortTransactionSpec]) -> None:
        self.specs = specs
        self.lookup = PartitionLeader(tolerate_unknown_topics=True)

    def build(self, node: int, keys: list[TopicPartition], version: int) -> Message:
        req: Any = message_type(ApiKey.WRITE_TXN_MARKERS, "request")
        # One marker entry per (producer id, epoch, coordinator epoch), carrying its partitions by topic.
        grouped: dict[tuple[int, int, int], dict[str, list[int]]] = {}
        for tp in keys:
            s = self.specs[tp]
            grouped.setdefault((s.producer_id, s.producer_epoch, s.coordinator_epoch), {}).setdefault(
                tp.topic, []).append(tp.partition)
        markers = [req.WritableTxnMarker(producer_id=pid, producer_epoch=epoch, transaction_result=False,
                                         coordinator_epoch=cepoch,
                                         topics=[req.WritableTxnMarkerTopic(name=t, partition_indexes=ps)
                                                 for t, ps in topics.items()])
                   for (pid, epoch, cepoch), topics in grouped.items()]
        return req(markers=markers)  # type: ignore[no-any-return]

    def handle(self, node: int, keys: list[TopicPartition], response: Any,
               version: int) -> dict[TopicPartition, Outcome]:
        out: dict[TopicPartition, Outcome] = {}
        for m in response.markers:
            for t in m.topics:
                for p in t.partitions:
                    tp = TopicPartition(t.name, p.partition_index)
                    if tp not in self.specs or self.specs[tp].producer_id != m.producer_id:
                        continue
                    err = error_for_code(p.error_code, f"{tp}: {error_for_code(p.error_code)} (abort of producer "
                                                       f"{m.producer_id})")
                    out[tp] = Done(None) if err is None else _leader_error(err, p.error_code)
        return out


class FenceProducers(Operation[str]):
    """InitProducerId with each transactional id, on its coordinator: the id's epoch is bumped.

    ``force_terminate``: KIP-939's form (v6, KeepPreparedTxn false), which also ends a prepared two-phase
    transaction; an id whose coordinator speaks less than v6 fails alone, unsent."""

    api = ApiKey.INIT_PRODUCER_ID
    write = True
    # A resend bumps the epoch once more and answers NONE: what a lost-but-applied first send looks like.
    applied_looks_like: ClassVar[frozenset[ErrorCode] | None] = frozenset()

    def __init__(self, *, force_terminate: bool = False) -> None:
        self.force_terminate = force_terminate
        self.lookup = CoordinatorLookup(TRANSACTION)

    def build(self, node: int, keys: list[str],
              version: int) -> list[tuple[Message, list[str]]] | Built[str]:
        req = message_type(ApiKey.INIT_PRODUCER_ID, "request")
        ok = keys
        refused: dict[str, KafkaError] = {}
        if self.force_terminate:
            ok, refused = split_by_version(keys, version, lambda _k: (FORCE_TERMINATE_SINCE, "force-terminating a "
                                           "transaction (KIP-939, Kafka 4.1)"), api=self.api, node=node)
        # InitProducerId carries one transactional id: one request per id, pipelined on the connection.
        sends: list[tuple[Message, list[str]]] = []
        for tid in ok:
            kwargs: dict[str, Any] = {"transactional_id": tid, "transaction_timeout_ms": FENCING_TIMEOUT_MS}
            if version >= FORCE_TERMINATE_SINCE:
                kwargs.update(enable2_pc=False, keep_prepared_txn=False)
            sends.append((req(**kwargs), [tid]))
        return Built(sends=sends, refused=refused) if refused else sends

    def handle(self, node: int, keys: list[str], response: Any, version: int) -> dict[str, Outcome]:
        tid = keys[0]
        err = error_for_code(response.error_code, f"transactional id {tid!r}: "
                                                  f"{error_for_code(response.error_code)}")
        if err is None:
            return {tid: Done(FencedProducer(tid, response.producer_id, response.producer_epoch))}
        if response.error_code in (ErrorCode.NOT_COORDINATOR, ErrorCode.COORDINATOR_NOT_AVAILABLE):
            # The id's coordinator moved: look it up again.
            return {tid: Retry(err, relookup=True)}
        if response.error_code in (ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, ErrorCode.CONCURRENT_TRANSACTIONS):
            # Loading, or the coordinator is still writing the markers of the transaction this call aborts:
            # the same node answers once done.
            return {tid: Retry(err)}
        # TRANSACTIONAL_ID_AUTHORIZATION_FAILED, INVALID_TXN_STATE...: the id's answer.
        return {tid: Retry(err) if err.retriable else Failed(err)}


__all__ = ["DURATION_FILTER_SINCE", "FORCE_TERMINATE_SINCE", "PATTERN_FILTER_SINCE", "AbortTransaction",
           "DescribeProducers", "DescribeTransactions", "FenceProducers", "ListTransactions"]
