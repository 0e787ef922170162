"""The transactions area: the transaction coordinator's state (one entry per transactional id) and how a
transaction ends on its partitions (markers), plus the test-facing methods that inspect it and inject a lost
marker.

Kafka's TransactionCoordinator keeps, per transactional id, the producer id and epoch, the transaction timeout,
the state (Empty, Ongoing, PrepareCommit/PrepareAbort, CompleteCommit/CompleteAbort, PrepareEpochFence, Dead),
the partitions added to the ongoing transaction and when it started.  EndTxn moves it to Prepare*, the
coordinator then sends WriteTxnMarkers to every partition's leader and moves to Complete*.  The fake writes the
markers at once, under the cluster lock (so Prepare* is never seen), straight into each partition's log.

Why a fault for lost markers (:meth:`TransactionsAdmin.lose_txn_markers`): a real hanging transaction is one
whose coordinator has moved on (Complete*) while a partition never got its marker, so the partition's last
stable offset stays below the open transaction for good and every read_committed consumer stops there.  That
is what ``kafka-transactions.sh find-hanging`` finds and ``abort`` clears; a producer that merely died is not
it (its coordinator still holds the transaction Ongoing and aborts it when its timeout passes: :func:`expire`).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field

from kadmin._error_codes import ErrorCode
from kadmin.testing import producer_state
from kadmin.testing.record_log import IncomingBatch, build_marker_batch
from kadmin.testing.state.base import AreaAdmin, ClusterState
from kadmin.testing.state.groups import CommittedOffset, Group, Groups
from kadmin.testing.state.topics import PartitionState, Topics

#: Kafka's transaction state names, as DescribeTransactions and ListTransactions report them.
TXN_STATES = ("Empty", "Ongoing", "PrepareCommit", "PrepareAbort", "CompleteCommit", "CompleteAbort", "Dead",
              "PrepareEpochFence")
#: The epoch of the fake's transaction coordinators (the leader epoch of __transaction_state's partitions,
#: which never changes here): markers carry it and partitions remember it per producer.
COORDINATOR_EPOCH = 0


def now_ms() -> int:
    return int(time.time() * 1000)


@dataclass
class TxnMeta:
    """One transactional id on its coordinator."""

    transactional_id: str
    producer_id: int
    epoch: int
    timeout_ms: int
    state: str = "Empty"
    #: (topic, partition) added to the ongoing transaction (AddPartitionsToTxn, AddOffsetsToTxn's offsets
    #: partition is not listed: the fake keeps group offsets outside the log).
    partitions: set[tuple[str, int]] = field(default_factory=set)
    #: Consumer groups whose offsets the transaction commits (AddOffsetsToTxn).
    groups: set[str] = field(default_factory=set)
    #: TxnOffsetCommit's offsets, applied to the groups when the transaction commits.
    pending_offsets: dict[str, dict[tuple[str, int], CommittedOffset]] = field(default_factory=dict)
    #: Wall-clock ms the ongoing transaction started (its first partition), -1 if none is ongoing.
    start_ms: int = -1
    last_update_ms: int = field(default_factory=now_ms)


@dataclass(frozen=True)
class TxnSnapshot:
    """An immutable view of one transactional id (``cluster.transaction``)."""

    transactional_id: str
    producer_id: int
    epoch: int
    state: str
    timeout_ms: int
    partitions: frozenset[tuple[str, int]]
    start_ms: int


@dataclass
class Transactions:
    """The area: every transactional id the coordinators know, and the injected lost markers."""

    by_id: dict[str, TxnMeta] = field(default_factory=dict)
    #: (topic, partition) -> how many of the next markers the coordinators write there are lost.
    lost_markers: dict[tuple[str, int], int] = field(default_factory=dict)

    def take_lost(self, tp: tuple[str, int]) -> bool:
        left = self.lost_markers.get(tp, 0)
        if left <= 0:
            return False
        if left == 1:
            del self.lost_markers[tp]
        else:
            self.lost_markers[tp] = left - 1
        return True


def append_marker(part: PartitionState, pid: int, epoch: int, commit: bool, coordinator_epoch: int,
                  *, strict: bool) -> tuple[int, str | None]:
    """Append a commit/abort marker for producer ``pid`` to the partition's log (its leader's WriteTxnMarkers).

    ``strict`` (an admin's WriteTxnMarkers) checks the marker against the producer's state first
    (producer_state.check_marker); the coordinator's own markers (strict False) are written even for a
    producer that never wrote to the partition, as Kafka does.  Returns (error code, message)."""
    producers = part.log.producers
    producer_state.forget_gone(producers, part.log_start, part.log_end, True)
    if strict:
        verdict = producer_state.check_marker(producers, pid, epoch, coordinator_epoch)
        if verdict.code != ErrorCode.NONE:
            return verdict.code, verdict.message
    elif pid not in producers:
        producers[pid] = producer_state.ProducerEntry(epoch)
    ts = now_ms()
    offset = part.log_end
    data = build_marker_batch(0, pid, epoch, commit, coordinator_epoch, ts)
    part.log.append(IncomingBatch(data, 1, pid), offset, part.leader_epoch, part.log_start)
    part.log_end += 1
    started = producer_state.record_marker(producers, pid, epoch, coordinator_epoch, ts)
    if not commit and started is not None:
        part.log.aborted.append((pid, started, offset))
    part.log.notify()
    return ErrorCode.NONE, None


def _partition(state: ClusterState, tp: tuple[str, int]) -> PartitionState | None:
    topic = state.area(Topics).get(tp[0])
    return topic.partitions.get(tp[1]) if topic is not None else None


def complete(state: ClusterState, meta: TxnMeta, commit: bool) -> None:
    """End ``meta``'s ongoing transaction as its coordinator does: a marker on every partition added to it
    (unless an injected fault loses it), the transaction's offsets into their groups on commit, then
    CompleteCommit / CompleteAbort."""
    txns = state.area(Transactions)
    for tp in sorted(meta.partitions):
        part = _partition(state, tp)
        if part is None or txns.take_lost(tp):
            continue
        append_marker(part, meta.producer_id, meta.epoch, commit, COORDINATOR_EPOCH, strict=False)
    if commit:
        groups = state.area(Groups)
        for group_id, offsets in meta.pending_offsets.items():
            g = groups.get(group_id)
            if g is None:
                g = groups[group_id] = Group(group_id, state="Empty", protocol_type="")
            g.offsets.update(offsets)
    meta.partitions = set()
    meta.groups = set()
    meta.pending_offsets = {}
    meta.state = "CompleteCommit" if commit else "CompleteAbort"
    meta.start_ms = -1
    meta.last_update_ms = now_ms()


def fence_and_abort(state: ClusterState, meta: TxnMeta) -> None:
    """Abort an ongoing transaction for good (its timeout passed, or a new producer took the id): the
    epoch is bumped first, so the old producer is fenced, and the markers carry the new epoch."""
    meta.state = "PrepareEpochFence"
    meta.epoch += 1
    complete(state, meta, commit=False)


def expire(state: ClusterState, now: int | None = None) -> None:
    """Abort every ongoing transaction older than its timeout, as the coordinator's expiration check does
    (transaction.abort.timed.out.transaction.cleanup.interval.ms; here whenever a transactional API, a
    Fetch or a DescribeProducers looks)."""
    t = now_ms() if now is None else now
    for meta in state.area(Transactions).by_id.values():
        if meta.state == "Ongoing" and 0 <= meta.start_ms and meta.start_ms + meta.timeout_ms < t:
            fence_and_abort(state, meta)


class TransactionsAdmin(AreaAdmin):
    """FakeCluster's methods for transactions (mixed into it)."""

    def transaction(self, transactional_id: str) -> TxnSnapshot | None:
        """The coordinator's view of ``transactional_id`` (None if unknown)."""
        with self._lock:
            expire(self._state)
            m = self._state.area(Transactions).by_id.get(transactional_id)
            if m is None:
                return None
            return TxnSnapshot(m.transactional_id, m.producer_id, m.epoch, m.state, m.timeout_ms,
                               frozenset(m.partitions), m.start_ms)

    def lose_txn_markers(self, partitions: Iterable[tuple[str, int]], count: int = 1) -> None:
        """Lose the next ``count`` commit/abort markers a coordinator writes to each partition: the
        coordinator completes the transaction, the partition never learns, and its transaction hangs there
        (a fault Kafka has seen: KAFKA-12671, KAFKA-14402)."""
        with self._lock:
            lost = self._state.area(Transactions).lost_markers
            for topic, partition in partitions:
                lost[(str(topic), int(partition))] = lost.get((str(topic), int(partition)), 0) + int(count)

    def last_stable_offset(self, topic: str, partition: int) -> int:
        """The partition's last stable offset (the log end when no transaction is open on it)."""
        with self._lock:
            expire(self._state)
            part = self._state.area(Topics)[topic].partitions[partition]
            return part.log.last_stable_offset(part.log_end)


__all__ = ["COORDINATOR_EPOCH", "TXN_STATES", "Transactions", "TransactionsAdmin", "TxnMeta", "TxnSnapshot",
           "append_marker", "complete", "expire", "fence_and_abort", "now_ms"]
