"""Idempotent producers' state per partition: the sequence checks a partition leader makes on Produce.

Kafka keeps, per partition and producer id, the producer's epoch and the metadata of its last five batches
(ProducerStateManager / ProducerStateEntry / ProducerAppendInfo).  A client's batch is checked against it
before it is appended:

* the same epoch and the exact sequence range of one of those five batches is a retry of a batch already
  written: nothing is appended and the answer is the original batch's offsets (success, not an error: brokers
  since 1.0 answer a duplicate this way, so a producer whose answer was lost does not write twice);
* an epoch older than the one seen is INVALID_PRODUCER_EPOCH (a fenced producer);
* a newer epoch must start at sequence 0, else OUT_OF_ORDER_SEQUENCE_NUMBER;
* the same epoch must continue at the last sequence + 1 (wrapping after 2^31 - 1), else
  OUT_OF_ORDER_SEQUENCE_NUMBER;
* a producer the partition knows nothing of: since 2.4 (KAFKA-7190) any sequence is accepted, as the state may
  have gone with retention or DeleteRecords; before 2.4 a first sequence other than 0 is UNKNOWN_PRODUCER_ID,
  and a producer's state is forgotten once the log start passes its last batch.

Transactional producers (kadmin.testing.state.transactions): an entry also holds the first offset of the
producer's open transaction on this partition (``txn_start``, the last stable offset stays below it) and the
epoch of the coordinator whose marker it last took (a marker from an older coordinator is fenced).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from kadmin._error_codes import ErrorCode

#: ProducerStateEntry.NUM_BATCHES_TO_RETAIN: how many batches per producer a duplicate is looked for in.
BATCHES_RETAINED = 5
INT32_MAX = 2**31 - 1
NO_SEQUENCE = -1
NO_EPOCH = -1


def last_sequence(first: int, count: int) -> int:
    """The sequence of a batch's last record: sequences wrap from 2^31 - 1 to 0."""
    return (first + count - 1) % (INT32_MAX + 1)


def _in_sequence(last: int, nxt: int) -> bool:
    return nxt == last + 1 or (nxt == 0 and last == INT32_MAX)


@dataclass(frozen=True)
class BatchMeta:
    """What a partition remembers of one appended batch: its sequences, offsets and max timestamp."""

    first_seq: int
    last_seq: int
    first_offset: int
    last_offset: int
    timestamp: int


@dataclass
class ProducerEntry:
    epoch: int
    batches: list[BatchMeta] = field(default_factory=list)
    #: First offset of the producer's open transaction on this partition; None when none is open.
    txn_start: int | None = None
    #: Epoch of the transaction coordinator that wrote the last marker for this producer (-1: none yet).
    coordinator_epoch: int = -1
    #: Max timestamp of the last batch or marker appended for this producer (DescribeProducers' LastTimestamp).
    last_timestamp: int = -1

    def copy(self) -> ProducerEntry:
        """A copy whose batch list can change without touching this one (Produce checks on a trial copy)."""
        return dataclasses.replace(self, batches=list(self.batches))

    @property
    def last_seq(self) -> int:
        return self.batches[-1].last_seq if self.batches else NO_SEQUENCE


@dataclass(frozen=True)
class Verdict:
    """The outcome of checking one batch: ``code`` NONE and ``duplicate`` set for a retried batch."""

    code: int
    duplicate: BatchMeta | None = None
    message: str | None = None


OK = Verdict(ErrorCode.NONE)


def forget_gone(producers: dict[int, ProducerEntry], log_start: int, log_end: int, keep_after_delete: bool) -> None:
    """Drop what the log no longer holds: batches cut off by a lowered log end (the state is rebuilt from the
    log when it is truncated), and before 2.4 (``keep_after_delete`` False) producers whose last batch lies
    below the log start (after DeleteRecords or retention)."""
    for pid in list(producers):
        entry = producers[pid]
        if entry.batches and entry.batches[-1].last_offset >= log_end:
            entry.batches = [b for b in entry.batches if b.last_offset < log_end]
            if entry.txn_start is not None and entry.txn_start >= log_end:
                entry.txn_start = None
            if not entry.batches and entry.txn_start is None:
                del producers[pid]
                continue
        if not keep_after_delete and entry.batches and entry.batches[-1].last_offset < log_start \
                and entry.txn_start is None:
            del producers[pid]


def check(producers: dict[int, ProducerEntry], pid: int, epoch: int, first_seq: int, count: int,
          keep_after_delete: bool) -> Verdict:
    """Check a client's batch of ``count`` records from producer ``pid`` at ``epoch`` starting at ``first_seq``."""
    entry = producers.get(pid)
    current = entry.epoch if entry is not None else NO_EPOCH
    last = last_sequence(first_seq, count)
    if entry is not None and epoch == entry.epoch:
        for b in entry.batches:
            if (b.first_seq, b.last_seq) == (first_seq, last):
                return Verdict(ErrorCode.NONE, duplicate=b)
    if epoch < current:
        return Verdict(ErrorCode.INVALID_PRODUCER_EPOCH,
                       message=f"Epoch of producer {pid} is {epoch}, which is smaller than the last seen epoch "
                               f"{current}")
    if epoch != current:
        if first_seq == 0:
            return OK
        if current != NO_EPOCH:
            return Verdict(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
                           message=f"Invalid sequence number for new epoch of producer {pid}: {epoch} (request "
                                   f"epoch), {first_seq} (seq. number), {current} (current producer epoch)")
        if keep_after_delete:
            return OK
        return Verdict(ErrorCode.UNKNOWN_PRODUCER_ID,
                       message=f"Found no record of producerId={pid} on the broker")
    assert entry is not None
    if not _in_sequence(entry.last_seq, first_seq):
        return Verdict(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
                       message=f"Out of order sequence number for producer {pid}: {first_seq} (incoming seq. "
                               f"number), {entry.last_seq} (current end sequence number)")
    return OK


def record(producers: dict[int, ProducerEntry], pid: int, epoch: int, first_seq: int, count: int,
           first_offset: int, max_timestamp: int, transactional: bool = False) -> None:
    """Remember an appended batch (a new epoch starts the producer's batch list afresh); a transactional
    batch opens the producer's transaction on the partition if none is open."""
    entry = producers.get(pid)
    if entry is None or entry.epoch != epoch:
        old = entry
        entry = producers[pid] = ProducerEntry(epoch)
        if old is not None:
            entry.txn_start, entry.coordinator_epoch = old.txn_start, old.coordinator_epoch
    entry.batches.append(BatchMeta(first_seq, last_sequence(first_seq, count), first_offset,
                                   first_offset + count - 1, max_timestamp))
    del entry.batches[:-BATCHES_RETAINED]
    entry.last_timestamp = max_timestamp
    if transactional and entry.txn_start is None:
        entry.txn_start = first_offset


def check_marker(producers: dict[int, ProducerEntry], pid: int, epoch: int, coordinator_epoch: int) -> Verdict:
    """Check a transaction marker (WriteTxnMarkers) for producer ``pid``, as Kafka's ProducerAppendInfo does
    for a control batch: an epoch older than the producer's is INVALID_PRODUCER_EPOCH, a coordinator epoch
    older than the one of the producer's last marker is TRANSACTION_COORDINATOR_FENCED.  A producer the
    partition holds no state for is UNKNOWN_PRODUCER_ID (Kafka would append a marker no reader needs; the
    fake says so, so that an abort aimed at the wrong producer or partition is visible)."""
    entry = producers.get(pid)
    if entry is None:
        return Verdict(ErrorCode.UNKNOWN_PRODUCER_ID, message=f"Found no record of producerId={pid} here")
    if epoch < entry.epoch:
        return Verdict(ErrorCode.INVALID_PRODUCER_EPOCH,
                       message=f"Epoch of producer {pid} is {epoch}, smaller than the last seen epoch {entry.epoch}")
    if coordinator_epoch < entry.coordinator_epoch:
        return Verdict(ErrorCode.TRANSACTION_COORDINATOR_FENCED,
                       message=f"Coordinator epoch {coordinator_epoch} is older than {entry.coordinator_epoch}")
    return OK


def record_marker(producers: dict[int, ProducerEntry], pid: int, epoch: int, coordinator_epoch: int,
                  timestamp: int) -> int | None:
    """Remember a marker appended for ``pid``: its transaction on the partition ends.  Returns the first
    offset of the transaction it ended (None if none was open)."""
    entry = producers[pid]
    if epoch != entry.epoch:
        entry.epoch, entry.batches = epoch, []
    started, entry.txn_start = entry.txn_start, None
    entry.coordinator_epoch = coordinator_epoch
    entry.last_timestamp = timestamp
    return started


__all__ = ["BATCHES_RETAINED", "BatchMeta", "ProducerEntry", "Verdict", "check", "check_marker", "forget_gone",
           "last_sequence", "record", "record_marker"]
