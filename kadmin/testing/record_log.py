"""A partition's records in the fake cluster: the record batches producers sent, and the gaps between them.

Why batches as bytes: Produce and Fetch move Kafka's record format untouched, as a broker does.  The fake only
rewrites what a broker rewrites on append (the batch's base offset and partition leader epoch, neither of
which the CRC covers), so what a consumer reads back is byte for byte what its producer sent.

Why gaps: tests also move offsets without producing (``add_topic(offsets=...)``, ``set_log_end``).  Those
offsets hold records nobody wrote; Fetch serves them as batches of records with no key, no value and no
timestamp, so a consumer positioned anywhere in the log makes progress, exactly as over a real log of that
length.  A log end moved below stored batches truncates them (as a replica truncating to a new leader's log);
a log start moved past them (DeleteRecords) makes them unreadable, though they still count in the partition's
size, as segments on disk do until retention deletes them.

Old message formats (magic 0 and 1, Produce v0-v2 and Fetch v0-v3): appended messages are converted up to
one v2 batch, and Fetch below v4 converts batches down, as a broker does with message.format.version 3.0.
Compressed legacy or down-converted data is handled for gzip (the only codec in Python's standard library);
another codec answers UNSUPPORTED_COMPRESSION_TYPE there.
"""

from __future__ import annotations

import asyncio
import bisect
import gzip
import struct
import time
import zlib
from dataclasses import dataclass, field

from kadmin._error_codes import ErrorCode
from kadmin.testing.producer_state import ProducerEntry

#: How many records one synthetic batch of a gap holds at most (a fetch then spans a few batches).
GAP_BATCH_RECORDS = 500
NO_TIMESTAMP = -1

_V2_HEADER = struct.Struct(">qiiBIhiqqqhii")  # base..records count: 61 bytes
_LEGACY_HEAD = struct.Struct(">qiIbb")  # offset, size, crc, magic, attributes
_COMPRESSION_MASK = 0x07
_GZIP = 1
_CONTROL_FLAG = 0x20
_LOG_APPEND_TIME = 0x08


# --- CRC-32C (Castagnoli), which record batch v2 uses; table-driven, as no codec in the standard library has it
def _crc32c_table() -> list[int]:
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_CRC32C = _crc32c_table()


def crc32c(data: bytes) -> int:
    crc = 0xFFFFFFFF
    table = _CRC32C
    for b in data:
        crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


class RecordError(Exception):
    """Produced data a broker refuses; ``code`` is the partition's error."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


# --- varints (records inside a v2 batch)
def _write_varint(n: int) -> bytes:
    z = (n << 1) ^ (n >> 63)
    out = bytearray()
    while z >= 0x80:
        out.append((z & 0x7F) | 0x80)
        z >>= 7
    out.append(z)
    return bytes(out)


def _read_varint(buf: bytes, pos: int) -> tuple[int, int]:
    shift = z = 0
    while True:
        if pos >= len(buf):
            raise RecordError(ErrorCode.CORRUPT_MESSAGE, "truncated varint")
        b = buf[pos]
        pos += 1
        z |= (b & 0x7F) << shift
        if b < 0x80:
            return (z >> 1) ^ -(z & 1), pos
        shift += 7
        if shift > 63:
            raise RecordError(ErrorCode.CORRUPT_MESSAGE, "varint too long")


@dataclass(frozen=True)
class SimpleRecord:
    """One record, as down-conversion needs it (headers are dropped: magic 0/1 has none)."""

    offset: int
    timestamp: int
    key: bytes | None
    value: bytes | None
    #: Stamped by the broker (message.timestamp.type=LogAppendTime): the batch's max timestamp, for every record.
    log_append_time: bool = False


def build_v2_batch(base_offset: int, records: list[tuple[int, bytes | None, bytes | None]],
                   leader_epoch: int = -1, *, producer_id: int = -1, producer_epoch: int = -1,
                   base_sequence: int = -1, attributes: int = 0) -> bytes:
    """An uncompressed v2 batch of (timestamp, key, value) records with consecutive offsets; an idempotent
    producer's batch carries its producer id, epoch and first sequence number."""
    stamps = [t for t, _k, _v in records]
    base_ts = stamps[0] if stamps else NO_TIMESTAMP
    body = bytearray()
    for i, (ts, key, value) in enumerate(records):
        rec = bytearray(b"\x00")  # attributes
        rec += _write_varint(ts - base_ts if ts >= 0 and base_ts >= 0 else 0)
        rec += _write_varint(i)
        for part in (key, value):
            if part is None:
                rec += _write_varint(-1)
            else:
                rec += _write_varint(len(part)) + part
        rec += _write_varint(0)  # headers
        body += _write_varint(len(rec)) + rec
    max_ts = max(stamps) if stamps else NO_TIMESTAMP
    tail = struct.pack(">hiqqqhii", attributes, len(records) - 1, base_ts, max_ts, producer_id, producer_epoch,
                       base_sequence, len(records)) + bytes(body)
    crc = crc32c(tail)
    head = struct.pack(">qiiBI", base_offset, len(tail) + 9, leader_epoch, 2, crc)
    return head + tail


#: Record batch attribute bits: part of a transaction, and a control batch (a transaction marker).
TRANSACTIONAL_FLAG = 0x10
CONTROL_FLAG = _CONTROL_FLAG


def build_marker_batch(base_offset: int, producer_id: int, producer_epoch: int, commit: bool,
                       coordinator_epoch: int, timestamp: int, leader_epoch: int = -1) -> bytes:
    """A transaction marker as Kafka writes it: a transactional control batch of one record whose key is the
    control type (version 0, type 1 commit / 0 abort) and whose value is the end-transaction marker (version
    0, the coordinator's epoch).  Consumers skip it; read_committed readers use it to end the transaction."""
    key = struct.pack(">hh", 0, 1 if commit else 0)
    value = struct.pack(">hi", 0, coordinator_epoch)
    return build_v2_batch(base_offset, [(timestamp, key, value)], leader_epoch, producer_id=producer_id,
                          producer_epoch=producer_epoch, attributes=TRANSACTIONAL_FLAG | CONTROL_FLAG)


def is_transactional(batch: bytes) -> bool:
    """Whether a v2 batch is part of a transaction (its attributes' transactional bit)."""
    return bool(struct.unpack_from(">h", batch, 21)[0] & TRANSACTIONAL_FLAG)


def _decompress(codec: int, data: bytes) -> bytes:
    if codec == _GZIP:
        try:
            return gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise RecordError(ErrorCode.CORRUPT_MESSAGE, f"bad gzip data: {exc}") from None
    raise RecordError(ErrorCode.UNSUPPORTED_COMPRESSION_TYPE, f"compression codec {codec} is not available here")


def _v2_records(batch: bytes) -> list[SimpleRecord]:
    (base, _len, _epoch, _magic, _crc, attrs, _delta, base_ts, max_ts, _pid, _pe, _seq,
     count) = _V2_HEADER.unpack_from(batch, 0)
    appended = bool(attrs & _LOG_APPEND_TIME)
    body = batch[_V2_HEADER.size:]
    codec = attrs & _COMPRESSION_MASK
    if codec:
        body = _decompress(codec, body)
    out = []
    pos = 0
    for _ in range(count):
        length, pos = _read_varint(body, pos)
        end = pos + length
        pos += 1  # attributes
        ts_delta, pos = _read_varint(body, pos)
        off_delta, pos = _read_varint(body, pos)
        parts: list[bytes | None] = []
        for _part in range(2):
            n, pos = _read_varint(body, pos)
            if n < 0:
                parts.append(None)
            else:
                parts.append(bytes(body[pos:pos + n]))
                pos += n
        pos = end
        ts = max_ts if appended else base_ts + ts_delta if base_ts >= 0 else NO_TIMESTAMP
        out.append(SimpleRecord(base + off_delta, ts, parts[0], parts[1], appended))
    return out


def record_timestamps(batch: bytes) -> list[int]:
    """The timestamp of each record of a v2 batch, in offset order: the producer's (CreateTime), or the batch's
    max timestamp for every record of a batch the broker stamped (LogAppendTime).

    Raises RecordError for a codec the fake cannot read (see _decompress)."""
    return [r.timestamp for r in _v2_records(batch)]


def _legacy_messages(data: bytes) -> list[tuple[int, bytes | None, bytes | None]]:
    """(timestamp, key, value) of every message in a magic 0/1 message set, gzip wrappers unpacked."""
    out: list[tuple[int, bytes | None, bytes | None]] = []
    pos = 0
    while pos + _LEGACY_HEAD.size <= len(data):
        _offset, size, crc, magic, attrs = _LEGACY_HEAD.unpack_from(data, pos)
        start, end = pos + 12, pos + 12 + size
        if size < 6 or end > len(data):
            raise RecordError(ErrorCode.CORRUPT_MESSAGE, "truncated message")
        if zlib.crc32(data[start + 4:end]) != crc:
            raise RecordError(ErrorCode.CORRUPT_MESSAGE, "message CRC mismatch")
        p = start + 6
        ts = NO_TIMESTAMP
        if magic == 1:
            ts = struct.unpack_from(">q", data, p)[0]
            p += 8
        parts: list[bytes | None] = []
        for _part in range(2):
            n = struct.unpack_from(">i", data, p)[0]
            p += 4
            if n < 0:
                parts.append(None)
            else:
                parts.append(bytes(data[p:p + n]))
                p += n
        codec = attrs & _COMPRESSION_MASK
        if codec:
            out.extend(_legacy_messages(_decompress(codec, parts[1] or b"")))
        else:
            out.append((ts, parts[0], parts[1]))
        pos = end
    return out


def legacy_message_set(records: list[SimpleRecord], magic: int) -> bytes:
    """Records as an uncompressed magic 0 or 1 message set (what Fetch v0-v1 / v2-v3 readers understand)."""
    out = bytearray()
    for r in records:
        body = bytearray(struct.pack(">bb", magic, _LOG_APPEND_TIME if magic == 1 and r.log_append_time else 0))
        if magic == 1:
            body += struct.pack(">q", r.timestamp)
        for part in (r.key, r.value):
            body += struct.pack(">i", -1) if part is None else struct.pack(">i", len(part)) + part
        msg = struct.pack(">I", zlib.crc32(body)) + body
        out += struct.pack(">qi", r.offset, len(msg)) + msg
    return bytes(out)


@dataclass(frozen=True)
class IncomingBatch:
    """One batch of a Produce request, checked, ready to be given offsets."""

    data: bytes
    count: int
    producer_id: int = -1


def parse_produce(records: bytes | None, version: int) -> list[IncomingBatch]:
    """Split and check a partition's records as Kafka's ProduceRequest and LogValidator do."""
    if not records:
        raise RecordError(ErrorCode.CORRUPT_MESSAGE, "no records")
    data = bytes(records)
    if len(data) > 16 and data[16] < 2:
        msgs = _legacy_messages(data)
        if not msgs:
            raise RecordError(ErrorCode.CORRUPT_MESSAGE, "no messages")
        if version >= 3:
            raise RecordError(ErrorCode.INVALID_RECORD, "Produce v3+ takes only record batch format v2")
        return [IncomingBatch(build_v2_batch(0, msgs), len(msgs))]
    batches: list[IncomingBatch] = []
    pos = 0
    while pos < len(data):
        if pos + _V2_HEADER.size > len(data):
            raise RecordError(ErrorCode.CORRUPT_MESSAGE, "truncated record batch")
        (_base, length, _epoch, magic, crc, _attrs, delta, _bts, _mts, pid, _pe, _seq,
         count) = _V2_HEADER.unpack_from(data, pos)
        end = pos + 12 + length
        if magic != 2 or end > len(data) or length < _V2_HEADER.size - 12:
            raise RecordError(ErrorCode.CORRUPT_MESSAGE, "not a record batch of format v2")
        if crc32c(data[pos + 21:end]) != crc:
            raise RecordError(ErrorCode.CORRUPT_MESSAGE, "record batch CRC mismatch")
        if count < 1 or delta != count - 1:
            raise RecordError(ErrorCode.INVALID_RECORD, f"{count} records but last offset delta {delta}")
        batches.append(IncomingBatch(data[pos:end], count, pid))
        pos = end
    if version >= 3 and len(batches) != 1:
        raise RecordError(ErrorCode.INVALID_RECORD, "Produce v3+ takes exactly one record batch per partition")
    return batches


@dataclass
class StoredBatch:
    base_offset: int
    last_offset: int
    data: bytes
    #: Each record's timestamp, worked out on first use by kadmin.testing.time_index (ListOffsets).
    timestamps: tuple[int, ...] | None = field(default=None, repr=False)


@dataclass
class PartitionLog:
    """The batches of one partition, in offset order, and the fetches waiting for new ones."""

    batches: list[StoredBatch] = field(default_factory=list)
    waiters: list[asyncio.Future[None]] = field(default_factory=list)
    #: Idempotent producers' state on this partition (kadmin.testing.producer_state), by producer id.
    producers: dict[int, ProducerEntry] = field(default_factory=dict)
    #: Aborted transactions on this partition, (producer id, first offset, offset of the abort marker), in
    #: offset order: what a read_committed Fetch reports so that the consumer drops their records.
    aborted: list[tuple[int, int, int]] = field(default_factory=list)
    #: Wall-clock ms of the last append (the one segment's last-modified time, which ListOffsets v0 reads).
    modified_ms: int = field(default_factory=lambda: int(time.time() * 1000))

    #: Batches wholly below the log start: no longer readable, but still in the segment files a broker keeps
    #: until retention deletes them, so they still count in the partition's size (:meth:`disk_bytes`).
    retired: list[StoredBatch] = field(default_factory=list, repr=False)

    def _trim(self, log_start: int, log_end: int) -> None:
        # A lowered log end truncates whole batches (the gap up to it reads as records nobody wrote).
        while self.batches and self.batches[-1].last_offset >= log_end:
            self.batches.pop()
        while self.retired and self.retired[-1].last_offset >= log_end:
            self.retired.pop()
        drop = 0
        while drop < len(self.batches) and self.batches[drop].last_offset < log_start:
            drop += 1
        if drop:
            self.retired.extend(self.batches[:drop])
            del self.batches[:drop]

    def disk_bytes(self, since: int, until: int, log_start: int, log_end: int, per_gap_offset: int) -> int:
        """The bytes offsets ``since`` to ``until`` (exclusive) take on disk: every stored batch holding one of
        them, whole (a segment holds whole batches), plus ``per_gap_offset`` for each offset no batch covers
        (records nobody wrote have no bytes of their own; the caller's model sizes them).  Batches below the
        log start count while ``since`` reaches them: DeleteRecords only moves the log start, and Kafka keeps
        the segments until retention deletes them."""
        self._trim(log_start, log_end)
        stored = covered = 0
        for b in (*self.retired, *self.batches):
            if b.last_offset < since or b.base_offset >= until:
                continue
            stored += len(b.data)
            covered += min(b.last_offset, until - 1) - max(b.base_offset, since) + 1
        return stored + max(0, until - since - covered) * per_gap_offset

    def append(self, batch: IncomingBatch, base_offset: int, leader_epoch: int, log_start: int) -> bytes:
        """Store ``batch`` at ``base_offset`` (the partition's log end); returns the stored bytes."""
        self._trim(log_start, base_offset)
        data = bytearray(batch.data)
        struct.pack_into(">q", data, 0, base_offset)
        struct.pack_into(">i", data, 12, leader_epoch)
        stored = StoredBatch(base_offset, base_offset + batch.count - 1, bytes(data))
        self.batches.append(stored)
        self.modified_ms = int(time.time() * 1000)
        return stored.data

    def notify(self) -> None:
        """Wake every fetch waiting on this partition (they re-read under the lock)."""
        waiters, self.waiters = self.waiters, []
        for fut in waiters:
            if not fut.done():
                fut.set_result(None)

    def last_stable_offset(self, log_end: int) -> int:
        """The first offset of the oldest open transaction, else the log end (every replica is in sync, so
        the high watermark is the log end): read_committed consumers read no further."""
        starts = [e.txn_start for e in self.producers.values() if e.txn_start is not None]
        return min([*starts, log_end])

    def aborted_since(self, offset: int, upto: int) -> list[tuple[int, int]]:
        """(producer id, first offset) of the aborted transactions a read from ``offset`` to ``upto`` meets."""
        return [(pid, first) for pid, first, last in self.aborted if last >= offset and first < upto]

    def read(self, offset: int, max_bytes: int, log_start: int, log_end: int, leader_epoch: int,
             magic: int = 2, at_least_one: bool = True, upto: int | None = None) -> bytes:
        """Batches from the one holding ``offset`` up to ``log_end`` while within ``max_bytes``, and at least
        one if ``at_least_one`` (KIP-74).  ``magic`` below 2 converts them down for Fetch v0-v3.  ``upto``
        (read_committed: the last stable offset) stops before the first batch reaching it."""
        self._trim(log_start, log_end)
        out: list[bytes] = []
        size = 0
        pos = offset
        lasts = [b.last_offset for b in self.batches]
        stop = log_end if upto is None else min(upto, log_end)
        while pos < stop:
            i = bisect.bisect_left(lasts, pos)
            nxt = self.batches[i] if i < len(self.batches) else None
            if nxt is not None and nxt.base_offset <= pos:
                chunk, pos_after = nxt.data, nxt.last_offset + 1
                if pos_after > stop:
                    break
            else:
                gap_end = nxt.base_offset if nxt is not None else log_end
                n = min(gap_end - pos, GAP_BATCH_RECORDS, stop - pos)
                chunk = build_v2_batch(pos, [(NO_TIMESTAMP, None, None)] * n, leader_epoch)
                pos_after = pos + n
            if magic < 2:
                attrs = struct.unpack_from(">h", chunk, 21)[0]
                if attrs & _CONTROL_FLAG:
                    pos = pos_after
                    continue
                chunk = legacy_message_set([r for r in _v2_records(chunk) if r.offset >= offset], magic)
            if (out or not at_least_one) and size + len(chunk) > max_bytes:
                break
            out.append(chunk)
            size += len(chunk)
            pos = pos_after
            if size >= max_bytes:
                break
        return b"".join(out)


__all__ = ["CONTROL_FLAG", "GAP_BATCH_RECORDS", "TRANSACTIONAL_FLAG", "IncomingBatch", "PartitionLog", "RecordError",
           "SimpleRecord", "StoredBatch", "build_marker_batch", "build_v2_batch", "crc32c", "is_transactional",
           "legacy_message_set", "parse_produce", "record_timestamps"]
