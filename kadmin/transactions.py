"""Transactions and producers (KIP-664, KIP-939): the results the admin calls return, and their input checks.

Why this family: a transaction whose coordinator lost track of it on one partition (its commit or abort marker
never arrived) holds that partition's last stable offset for good, and every read_committed consumer stops
there.  ``describe_producers`` shows which producer holds a partition's transaction open,
``list_transactions`` / ``describe_transactions`` ask the coordinators what they think, and
``find_hanging_transactions`` puts the two together as ``kafka-transactions.sh find-hanging`` does;
``abort_transaction`` writes the missing abort marker.  ``fence_producers`` and
``force_terminate_transaction`` act on a transactional id through its coordinator.

Every input is checked here, before any request is sent (TypeError/ValueError).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kadmin._keys import normalise_keys
from kadmin.errors import KafkaError
from kadmin.storage import validate_partition
from kadmin.types import TopicPartition

#: The transaction states a coordinator reports (Kafka's TransactionState names).
TRANSACTION_STATES = ("Empty", "Ongoing", "PrepareCommit", "PrepareAbort", "CompleteCommit", "CompleteAbort",
                      "Dead", "PrepareEpochFence")
#: States in which the coordinator still holds a transaction on its partitions (markers not yet written).
HELD_STATES = frozenset({"Ongoing", "PrepareCommit", "PrepareAbort", "PrepareEpochFence"})
_INT16_MAX = 2**15 - 1
_INT32_MAX = 2**31 - 1
_INT64_MAX = 2**63 - 1


@dataclass(frozen=True)
class ProducerState:
    """One producer a partition leader holds state for (DescribeProducers).

    ``current_transaction_start_offset`` is the first offset of the producer's open transaction on the
    partition, or -1 when none is open; ``coordinator_epoch`` is the epoch of the coordinator whose marker it
    last took (-1: none yet).  ``last_timestamp`` is the max timestamp of its last batch or marker (ms)."""

    producer_id: int
    producer_epoch: int
    last_sequence: int
    last_timestamp: int
    coordinator_epoch: int
    current_transaction_start_offset: int

    @property
    def in_transaction(self) -> bool:
        return self.current_transaction_start_offset >= 0


@dataclass(frozen=True)
class TransactionListing:
    """One transaction a coordinator lists (ListTransactions)."""

    transactional_id: str
    producer_id: int
    state: str


@dataclass(frozen=True)
class ListTransactionsResult:
    """Every broker's listing merged (each transactional id once), the brokers that failed, and every broker
    asked (so that "no transactions" from answering brokers is told apart from "no broker could answer")."""

    transactions: tuple[TransactionListing, ...]
    errors: Mapping[int, KafkaError] = field(default_factory=dict)
    brokers: tuple[int, ...] = ()


@dataclass(frozen=True)
class TransactionDescription:
    """A coordinator's state for one transactional id (DescribeTransactions).

    ``transaction_start_time_ms`` is -1 unless a transaction is ongoing; ``partitions`` are those added to
    the ongoing transaction."""

    transactional_id: str
    coordinator_id: int
    state: str
    producer_id: int
    producer_epoch: int
    transaction_timeout_ms: int
    transaction_start_time_ms: int
    partitions: tuple[TopicPartition, ...]


@dataclass(frozen=True)
class AbortTransactionSpec:
    """What ``abort_transaction`` writes: an abort marker for ``producer_id`` at ``producer_epoch`` on
    ``partition``, as coordinator epoch ``coordinator_epoch`` (take them from ``describe_producers``; a
    producer that never took a marker reports coordinator epoch -1, for which 0 is sent, as Kafka's tool
    does)."""

    partition: TopicPartition
    producer_id: int
    producer_epoch: int
    coordinator_epoch: int = 0


@dataclass(frozen=True)
class FencedProducer:
    """The producer id and epoch a transactional id holds after ``fence_producers`` or
    ``force_terminate_transaction`` bumped it: any producer using an older epoch is fenced."""

    transactional_id: str
    producer_id: int
    producer_epoch: int


@dataclass(frozen=True)
class HangingTransaction:
    """A transaction open on ``partition`` whose coordinator does not hold it there.

    ``transactional_id`` and ``coordinator_state`` are what the coordinators said (None when no coordinator
    lists the producer id at all); ``last_timestamp`` is when the producer last wrote to the partition."""

    partition: TopicPartition
    producer_id: int
    producer_epoch: int
    coordinator_epoch: int
    start_offset: int
    last_timestamp: int
    transactional_id: str | None
    coordinator_state: str | None

    def abort_spec(self) -> AbortTransactionSpec:
        """The ``abort_transaction`` argument that ends it."""
        return AbortTransactionSpec(self.partition, self.producer_id, self.producer_epoch,
                                    max(self.coordinator_epoch, 0))


@dataclass(frozen=True)
class HangingTransactionsResult:
    """``find_hanging_transactions``' answer: the hanging transactions, and what could not be checked
    (a partition whose producers could not be described, or a candidate whose coordinator could not be
    asked), keyed by partition."""

    hanging: tuple[HangingTransaction, ...]
    errors: Mapping[TopicPartition, KafkaError] = field(default_factory=dict)
    #: How many partitions were looked at (every partition of the topics or the broker asked about).
    partitions: int = 0


# --- input checks (TypeError/ValueError before any I/O)

def _int_in(value: object, lo: int, hi: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an int, not {type(value).__name__} ({value!r})")
    if not lo <= value <= hi:
        raise ValueError(f"{what} must be from {lo} to {hi}, not {value}")
    return value


def check_partitions(partitions: object, call: str) -> dict[TopicPartition, Any]:
    """{TopicPartition: the caller's key} for a non-empty collection of partitions."""
    if isinstance(partitions, (str, bytes, TopicPartition, Mapping)) or not isinstance(partitions, Iterable):
        raise TypeError(f"{call}: partitions must be a list of TopicPartition (or (topic, partition) pairs)")
    keys = normalise_keys(partitions, validate_partition, call, "partition")
    if not keys:
        raise ValueError(f"{call}: no partitions given")
    return keys


def check_transactional_ids(ids: object, call: str) -> list[str]:
    """A non-empty list of non-empty transactional ids, each once."""
    if isinstance(ids, (str, bytes)) or not isinstance(ids, Iterable):
        raise TypeError(f"{call}: transactional ids must be a list of strings, not {type(ids).__name__}")
    out: list[str] = []
    for tid in ids:
        if not isinstance(tid, str):
            raise TypeError(f"{call}: a transactional id is a string, not {type(tid).__name__} ({tid!r})")
        if not tid:
            raise ValueError(f"{call}: an empty transactional id")
        out.append(tid)
    if not out:
        raise ValueError(f"{call}: no transactional ids given")
    return list(dict.fromkeys(out))


def check_states(states: object) -> list[str]:
    """Transaction states to filter by, by their Kafka names (any case); an unknown one is a ValueError."""
    if states is None:
        return []
    if isinstance(states, (str, bytes)) or not isinstance(states, Iterable):
        raise TypeError("states must be a list of transaction state names")
    by_lower = {s.lower(): s for s in TRANSACTION_STATES}
    out: list[str] = []
    for s in states:
        if not isinstance(s, str):
            raise TypeError(f"a transaction state is a string, not {type(s).__name__}")
        if s.lower() not in by_lower:
            raise ValueError(f"unknown transaction state {s!r}; known: {', '.join(TRANSACTION_STATES)}")
        out.append(by_lower[s.lower()])
    return list(dict.fromkeys(out))


def check_producer_ids(ids: object) -> list[int]:
    if ids is None:
        return []
    if isinstance(ids, (str, bytes)) or not isinstance(ids, Iterable):
        raise TypeError("producer_ids must be a list of ints")
    return list(dict.fromkeys(_int_in(i, 0, _INT64_MAX, "a producer id") for i in ids))


def check_duration(duration_ms: object) -> int | None:
    if duration_ms is None:
        return None
    return _int_in(duration_ms, 0, _INT64_MAX, "duration_filter_ms")


def check_pattern(pattern: object) -> str | None:
    """A transactional id regular expression (KIP-1152: Java syntax, matched whole by the broker); checked to
    compile here as Python's re, which shares the syntax of the common cases."""
    if pattern is None:
        return None
    if not isinstance(pattern, str):
        raise TypeError(f"transactional_id_pattern must be a string, not {type(pattern).__name__}")
    try:
        re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"transactional_id_pattern {pattern!r} is not a regular expression: {exc}") from None
    return pattern or None


def check_abort_specs(specs: object) -> dict[TopicPartition, AbortTransactionSpec]:
    """{partition: spec} of one AbortTransactionSpec or a collection of them, one per partition."""
    if isinstance(specs, AbortTransactionSpec):
        specs = [specs]
    if isinstance(specs, (str, bytes, Mapping)) or not isinstance(specs, Iterable):
        raise TypeError("abort_transaction takes an AbortTransactionSpec or a list of them")
    out: dict[TopicPartition, AbortTransactionSpec] = {}
    for spec in specs:
        if not isinstance(spec, AbortTransactionSpec):
            raise TypeError(f"abort_transaction takes AbortTransactionSpec, not {type(spec).__name__}")
        tp = validate_partition(spec.partition, "abort_transaction partition")
        _int_in(spec.producer_id, 0, _INT64_MAX, "producer_id")
        _int_in(spec.producer_epoch, 0, _INT16_MAX, "producer_epoch")
        _int_in(spec.coordinator_epoch, 0, _INT32_MAX, "coordinator_epoch")
        if tp in out and out[tp] != spec:
            raise ValueError(f"abort_transaction: two different specs for {tp}; give one per partition")
        out[tp] = AbortTransactionSpec(tp, spec.producer_id, spec.producer_epoch, spec.coordinator_epoch)
    if not out:
        raise ValueError("abort_transaction: no specs given")
    return out


def check_max_timeout(ms: object) -> int:
    return _int_in(ms, 0, _INT64_MAX, "max_transaction_timeout_ms")


__all__ = ["HELD_STATES", "TRANSACTION_STATES", "AbortTransactionSpec",
           "FencedProducer", "HangingTransaction", "HangingTransactionsResult", "ListTransactionsResult",
           "ProducerState", "TransactionDescription", "TransactionListing", "check_abort_specs",
           "check_duration", "check_max_timeout", "check_partitions", "check_pattern", "check_producer_ids",
           "check_states", "check_transactional_ids"]
