"""Produce (key 0): append the producer's record batches to the partition's log, on its leader.

As Kafka's KafkaApis.handleProduceRequest and ReplicaManager.appendRecords, minimally: acks must be 0, 1 or -1
(else INVALID_REQUIRED_ACKS everywhere); per partition WRITE on the topic (TOPIC_AUTHORIZATION_FAILED), the
partition exists (UNKNOWN_TOPIC_OR_PARTITION), this broker leads it (NOT_LEADER_OR_FOLLOWER, with KIP-951's
leader hint from v10), internal topics refuse clients' records (INVALID_TOPIC_EXCEPTION), a batch larger
than the topic's max.message.bytes is MESSAGE_TOO_LARGE, acks=-1 with fewer live in-sync replicas than
min.insync.replicas is NOT_ENOUGH_REPLICAS, and malformed batches are CORRUPT_MESSAGE / INVALID_RECORD
(kadmin.testing.record_log).  An accepted batch gets the log end offset as its base offset and moves the log
end by its record count; every replica counts as caught up, so the high watermark is the log end and acks=1
and acks=-1 answer alike.  acks=0 gets no answer at all; if a partition failed, the connection is closed
instead, which is the only signal Kafka gives such a producer.

Idempotent producers' batches (a producer id set) are checked per (producer id, partition) as Kafka's
ProducerStateManager does (kadmin.testing.producer_state): a retry of one of the producer's last five batches
is answered with the original offsets and not appended again; an older epoch is INVALID_PRODUCER_EPOCH, a gap
or a new epoch not starting at 0 is OUT_OF_ORDER_SEQUENCE_NUMBER, and before 2.4 an unknown producer not
starting at 0 is UNKNOWN_PRODUCER_ID.  A topic with message.timestamp.type=LogAppendTime gets its batches
stamped with the append time, which the answer carries (log_append_time_ms; -1 for CreateTime).

A transactional producer's request (a transactional id, v3+) needs WRITE on that id
(TRANSACTIONAL_ID_AUTHORIZATION_FAILED), and each transactional batch must belong to the id's ongoing
transaction on its coordinator, the partition added to it (AddPartitionsToTxn) with the batch's producer id:
else INVALID_TXN_STATE, as a broker verifying transactions does (KIP-890).  The batch's first offset opens
the producer's transaction on the partition, which holds the last stable offset below it until a marker
ends it (kadmin.testing.state.transactions).
"""

from __future__ import annotations

import struct
import time
from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing import authorizer as az
from kadmin.testing import producer_state
from kadmin.testing.configs import release
from kadmin.testing.handlers.base import NoResponse, RequestContext, Response, register, response_class
from kadmin.testing.handlers.records_common import find_partition, node_endpoints
from kadmin.testing.record_log import IncomingBatch, RecordError, is_transactional, parse_produce
from kadmin.testing.state.topics import PartitionState, Topic, Topics
from kadmin.testing.state.transactions import Transactions, expire
from kadmin.testing.time_index import max_timestamp, stamp_log_append_time

API_KEY = ApiKey.PRODUCE
#: Kafka's message.max.bytes default (the topic's max.message.bytes default follows it).
MAX_MESSAGE_BYTES = 1048588
#: Producer id, epoch and first sequence of a v2 batch header, at byte 43.
_PRODUCER = struct.Struct(">qhi")


def _keeps_producers_after_delete(ctx: RequestContext) -> bool:
    """Brokers since 2.4 (KAFKA-7190) keep a producer's state when its records are deleted."""
    return tuple(int(p) for p in release(ctx.table).split(".")) >= (2, 4)


def _int_config(topic: Topic, key: str, default: int) -> int:
    try:
        return int(topic.configs.get(key, default))
    except (TypeError, ValueError):
        return default


def _txn_error(ctx: RequestContext, transactional_id: str | None, tp: tuple[str, int],
               batches: list[IncomingBatch]) -> tuple[int, str | None]:
    """KIP-890's check of transactional batches against their coordinator's state."""
    txn = [b for b in batches if is_transactional(b.data)]
    if not txn:
        return ErrorCode.NONE, None
    if transactional_id is None:
        return ErrorCode.INVALID_RECORD, "transactional batch without a transactional id"
    expire(ctx.state)
    meta = ctx.state.area(Transactions).by_id.get(transactional_id)
    for b in txn:
        pid, epoch, _seq = _PRODUCER.unpack_from(b.data, 43)
        if meta is None or meta.producer_id != pid:
            return ErrorCode.INVALID_PRODUCER_ID_MAPPING, f"producer {pid} is not {transactional_id!r}'s"
        if epoch < meta.epoch:
            return ErrorCode.INVALID_PRODUCER_EPOCH, f"producer {pid} epoch {epoch} is fenced by {meta.epoch}"
        if meta.state != "Ongoing" or tp not in meta.partitions:
            return ErrorCode.INVALID_TXN_STATE, f"{tp[0]}-{tp[1]} is not in {transactional_id!r}'s transaction"
    return ErrorCode.NONE, None


def _append(ctx: RequestContext, topic: Topic, part: PartitionState, records: bytes | None, acks: int,
            version: int, live: set[int], tp: tuple[str, int] = ("", -1),
            transactional_id: str | None = None) -> tuple[int, int, str | None, int]:
    """(error code, base offset, error message, log append time) of appending one partition's records."""
    if topic.internal:
        return ErrorCode.INVALID_TOPIC_EXCEPTION, -1, f"Cannot append to internal topic {topic.name}", -1
    try:
        batches = parse_produce(records, version)
    except RecordError as exc:
        return exc.code, -1, str(exc), -1
    code, why = _txn_error(ctx, transactional_id, tp, batches)
    if code != ErrorCode.NONE:
        return code, -1, why, -1
    limit = _int_config(topic, "max.message.bytes", MAX_MESSAGE_BYTES)
    for b in batches:
        if len(b.data) > limit:
            return ErrorCode.MESSAGE_TOO_LARGE, -1, f"batch of {len(b.data)} bytes exceeds {limit}", -1
    if acks == -1:
        need = _int_config(topic, "min.insync.replicas", 1)
        have = len(part.in_sync(live))
        if have < need:
            return ErrorCode.NOT_ENOUGH_REPLICAS, -1, f"{have} in-sync replicas, min.insync.replicas is {need}", -1
    append_time = -1
    if topic.configs.get("message.timestamp.type") == "LogAppendTime":
        append_time = int(time.time() * 1000)
        batches = [IncomingBatch(stamp_log_append_time(b.data, append_time), b.count, b.producer_id)
                   for b in batches]
    if any(b.producer_id >= 0 for b in batches):
        keep = _keeps_producers_after_delete(ctx)
        producer_state.forget_gone(part.log.producers, part.log_start, part.log_end, keep)
        # Check every batch before appending any (a partition's records are appended all or none), each against
        # the state the batches before it in this request leave, as Kafka's ProducerAppendInfo does.
        trial = {pid: e.copy() for pid, e in part.log.producers.items()}
        offset = part.log_end
        for b in batches:
            if b.producer_id >= 0:
                pid, epoch, seq = _PRODUCER.unpack_from(b.data, 43)
                verdict = producer_state.check(trial, pid, epoch, seq, b.count, keep)
                if verdict.duplicate is not None:
                    # Already written: the original offsets, nothing appended (Kafka answers the batch's stored
                    # max timestamp as the log append time here).
                    return ErrorCode.NONE, verdict.duplicate.first_offset, None, verdict.duplicate.timestamp
                if verdict.code != ErrorCode.NONE:
                    return verdict.code, -1, verdict.message, -1
                producer_state.record(trial, pid, epoch, seq, b.count, offset, max_timestamp(b.data),
                                      is_transactional(b.data))
            offset += b.count
        part.log.producers = trial
    base = part.log_end
    for b in batches:
        part.log.append(b, part.log_end, part.leader_epoch, part.log_start)
        part.log_end += b.count
    part.log.notify()
    return ErrorCode.NONE, base, None, append_time


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    acks = req.acks
    live = ctx.live_ids()
    failed = False
    leaders: set[int] = set()
    topics = []
    # v13 (KIP-516, Kafka 4.1) names topics by id only: an id the cluster does not know is UNKNOWN_TOPIC_ID.
    by_id = {tp.topic_id: tp for tp in ctx.state.area(Topics).values()} if version >= 13 else None
    for t in req.topic_data:
        if by_id is None:
            name, topic = t.name, ctx.state.area(Topics).get(t.name)
        else:
            topic = by_id.get(t.topic_id)
            name = topic.name if topic is not None else ""
        parts = []
        for p in t.partition_data:
            leader_hint = None
            message: str | None = None
            base = -1
            append_time = -1
            log_start = -1
            code: int
            if acks not in (0, 1, -1):
                code = ErrorCode.INVALID_REQUIRED_ACKS
            elif version >= 3 and req.transactional_id is not None \
                    and not ctx.authorize(az.TRANSACTIONAL_ID, req.transactional_id, az.WRITE):
                code = ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
            elif by_id is not None and topic is None:
                code = ErrorCode.UNKNOWN_TOPIC_ID
            else:
                found = find_partition(ctx, topic, name, p.index, az.WRITE, live)
                code = found.code
                if code == ErrorCode.NONE:
                    assert found.topic is not None and found.part is not None
                    code, base, message, append_time = _append(
                        ctx, found.topic, found.part, p.records, acks, version, live, (t.name, p.index),
                        req.transactional_id if version >= 3 else None)
                    log_start = found.part.log_start
                elif code == ErrorCode.NOT_LEADER_OR_FOLLOWER and found.part is not None and version >= 10:
                    leader_hint = R.LeaderIdAndEpoch(leader_id=found.leader, leader_epoch=found.part.leader_epoch)
                    if found.leader >= 0:
                        leaders.add(found.leader)
            failed = failed or code != ErrorCode.NONE
            resp = R.PartitionProduceResponse(index=p.index, error_code=code, base_offset=base,
                                              log_append_time_ms=append_time, log_start_offset=log_start,
                                              record_errors=[], error_message=message)
            if leader_hint is not None:
                resp.current_leader = leader_hint
            parts.append(resp)
        topics.append(R.TopicProduceResponse(name=name, topic_id=t.topic_id, partition_responses=parts))
    if acks == 0:
        return NoResponse(close=failed)
    out = R(responses=topics, throttle_time_ms=0)
    if leaders and version >= 10:
        out.node_endpoints = node_endpoints(ctx, R, leaders)
    return out


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    if req.acks == 0:
        return NoResponse(close=code != ErrorCode.NONE)
    R = response_class(API_KEY)
    return R(responses=[R.TopicProduceResponse(name=t.name, topic_id=t.topic_id, partition_responses=[
        R.PartitionProduceResponse(index=p.index, error_code=code, base_offset=-1, log_append_time_ms=-1,
                                   log_start_offset=-1, record_errors=[], error_message=None)
        for p in t.partition_data]) for t in req.topic_data])


def keys(req: Any, version: int) -> tuple[str, ...]:
    return tuple(f"{t.name if version < 13 else t.topic_id}-{p.index}" for t in req.topic_data
                 for p in t.partition_data)


register(API_KEY, handle=handle, error_response=error_response, keys=keys)
