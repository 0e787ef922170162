"""Looking offsets up by record timestamp, as a partition leader answers ListOffsets.

Kafka (UnifiedLog.fetchOffsetByTimestamp, LogSegment.findOffsetByTimestamp, FileRecords.searchForTimestamp):

* a timestamp T finds the first record, in offset order, whose timestamp is >= T: the batches are walked until
  one whose max timestamp is >= T, then its records are scanned; the answer is that record's offset and
  timestamp and the batch's leader epoch, or none at all (offset -1, timestamp -1) when no record qualifies;
* MAX_TIMESTAMP (KIP-734) finds the first batch holding the largest max timestamp, and in it the first record
  with that timestamp;
* a record's timestamp is the producer's (CreateTime) or, in a batch the broker stamped because the topic has
  message.timestamp.type=LogAppendTime, the batch's append time for every record.

The fake keeps one segment per partition.  Offsets between the log start and the log end that no batch
covers (set by a test, see kadmin.testing.record_log) are records without a timestamp (-1): no T >= 0 finds
them.  For a codec the fake cannot read (snappy, lz4, zstd) a batch's records are taken to carry its first
timestamp (the first record's) and then its max timestamp: exact for the first and the max, approximate between.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator

from kadmin.testing.record_log import PartitionLog, RecordError, StoredBatch, crc32c, record_timestamps

NO_TIMESTAMP = -1
LOG_APPEND_TIME_FLAG = 0x08
_ATTRS = struct.Struct(">h")
_TIMESTAMPS = struct.Struct(">qq")  # first (base) timestamp and max timestamp, at byte 27
_EPOCH = struct.Struct(">i")  # partition leader epoch, at byte 12


def is_log_append_time(data: bytes) -> bool:
    return bool(_ATTRS.unpack_from(data, 21)[0] & LOG_APPEND_TIME_FLAG)


def stamp_log_append_time(data: bytes, now_ms: int) -> bytes:
    """A v2 batch as a broker stores it for a LogAppendTime topic: the timestamp-type bit set and the max
    timestamp made the append time (records are left alone, compressed or not), CRC recomputed."""
    out = bytearray(data)
    struct.pack_into(">h", out, 21, _ATTRS.unpack_from(out, 21)[0] | LOG_APPEND_TIME_FLAG)
    struct.pack_into(">q", out, 35, now_ms)
    struct.pack_into(">I", out, 17, crc32c(bytes(out[21:])))
    return bytes(out)


def max_timestamp(data: bytes) -> int:
    return int(_TIMESTAMPS.unpack_from(data, 27)[1])


def timestamps(batch: StoredBatch) -> tuple[int, ...]:
    """Each record's timestamp (worked out once per batch, then kept on it)."""
    if batch.timestamps is None:
        count = batch.last_offset - batch.base_offset + 1
        first, top = _TIMESTAMPS.unpack_from(batch.data, 27)
        if is_log_append_time(batch.data):
            stamps = (top,) * count  # without decoding the records
        else:
            try:
                stamps = tuple(record_timestamps(batch.data))
            except RecordError:
                stamps = (first,) + (top,) * (count - 1)
        batch.timestamps = stamps
    return batch.timestamps


def _visible(log: PartitionLog, log_start: int, log_end: int) -> Iterator[StoredBatch]:
    """Batches a reader sees: a lowered log end drops whole batches, the log start may cut into the first."""
    for b in log.batches:
        if b.last_offset >= log_start and b.last_offset < log_end:
            yield b


def _epoch(batch: StoredBatch) -> int:
    return int(_EPOCH.unpack_from(batch.data, 12)[0])


def offset_for_timestamp(log: PartitionLog, target: int, log_start: int,
                         log_end: int) -> tuple[int, int, int] | None:
    """(offset, timestamp, leader epoch) of the first record at or after ``target``, or None."""
    for b in _visible(log, log_start, log_end):
        if max(timestamps(b)) < target:
            continue
        for i, ts in enumerate(timestamps(b)):
            offset = b.base_offset + i
            if ts >= target and offset >= log_start:
                return offset, ts, _epoch(b)
    return None


def offset_of_max_timestamp(log: PartitionLog, log_start: int, log_end: int) -> tuple[int, int, int] | None:
    """(offset, timestamp, leader epoch) of the first record with the largest timestamp, or None for an empty
    log; a log holding only records without timestamps answers its first offset with timestamp -1."""
    best: StoredBatch | None = None
    best_ts = NO_TIMESTAMP
    for b in _visible(log, log_start, log_end):
        top = max(ts for i, ts in enumerate(timestamps(b)) if b.base_offset + i >= log_start)
        if top > best_ts:
            best, best_ts = b, top
    if best is None:
        return (log_start, NO_TIMESTAMP, -1) if log_end > log_start else None
    for i, ts in enumerate(timestamps(best)):
        if ts == best_ts and best.base_offset + i >= log_start:
            return best.base_offset + i, ts, _epoch(best)
    return None  # pragma: no cover - best_ts came from this batch


def legacy_offsets_before(log: PartitionLog, target: int, max_offsets: int, log_start: int, log_end: int,
                          now_ms: int) -> list[int]:
    """ListOffsets v0 (Kafka's legacyFetchOffsetsBefore): the base offsets of segments last modified at or
    before ``target``, newest first, preceded by the log end (stamped "now") if the active segment holds
    data; -1 (LATEST) starts at the log end, -2 (EARLIEST) at the first segment.  One segment here."""
    entries = [(log_start, log.modified_ms)]
    if log_end > log_start:
        entries.append((log_end, now_ms))
    if target == -1:
        start = len(entries) - 1
    elif target == -2:
        start = 0
    else:
        start = len(entries) - 1
        while start >= 0 and entries[start][1] > target:
            start -= 1
    return sorted((entries[i][0] for i in range(start, start - min(max_offsets, start + 1), -1)), reverse=True)


__all__ = ["is_log_append_time", "legacy_offsets_before", "max_timestamp", "offset_for_timestamp",
           "offset_of_max_timestamp", "stamp_log_append_time", "timestamps"]
