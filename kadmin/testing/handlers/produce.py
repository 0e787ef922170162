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

The fake keeps no transaction state (the transactional APIs are not advertised, see kadmin.versions), so a
request naming a transactional id is INVALID_TXN_STATE: no partition was ever added to its transaction.
"""

from __future__ import annotations

from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing import authorizer as az
from kadmin.testing.handlers.base import NoResponse, RequestContext, Response, register, response_class
from kadmin.testing.handlers.records_common import find_partition, node_endpoints
from kadmin.testing.record_log import RecordError, parse_produce
from kadmin.testing.state import PartitionState, Topic

API_KEY = ApiKey.PRODUCE
#: Kafka's message.max.bytes default (the topic's max.message.bytes default follows it).
MAX_MESSAGE_BYTES = 1048588


def _int_config(topic: Topic, key: str, default: int) -> int:
    try:
        return int(topic.configs.get(key, default))
    except (TypeError, ValueError):
        return default


def _append(ctx: RequestContext, topic: Topic, part: PartitionState, records: bytes | None, acks: int,
            version: int, live: set[int]) -> tuple[int, int, str | None]:
    """(error code, base offset, error message) of appending one partition's records."""
    if topic.internal:
        return ErrorCode.INVALID_TOPIC_EXCEPTION, -1, f"Cannot append to internal topic {topic.name}"
    try:
        batches = parse_produce(records, version)
    except RecordError as exc:
        return exc.code, -1, str(exc)
    limit = _int_config(topic, "max.message.bytes", MAX_MESSAGE_BYTES)
    for b in batches:
        if len(b.data) > limit:
            return ErrorCode.MESSAGE_TOO_LARGE, -1, f"batch of {len(b.data)} bytes exceeds {limit}"
    if acks == -1:
        need = _int_config(topic, "min.insync.replicas", 1)
        have = len(part.in_sync(live))
        if have < need:
            return ErrorCode.NOT_ENOUGH_REPLICAS, -1, f"{have} in-sync replicas, min.insync.replicas is {need}"
    base = part.log_end
    for b in batches:
        part.log.append(b, part.log_end, part.leader_epoch, part.log_start)
        part.log_end += b.count
    part.log.notify()
    return ErrorCode.NONE, base, None


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    acks = req.acks
    live = ctx.live_ids()
    failed = False
    leaders: set[int] = set()
    topics = []
    for t in req.topic_data:
        topic = ctx.state.topics.get(t.name)
        parts = []
        for p in t.partition_data:
            leader_hint = None
            message: str | None = None
            base = -1
            log_start = -1
            code: int
            if acks not in (0, 1, -1):
                code = ErrorCode.INVALID_REQUIRED_ACKS
            elif version >= 3 and req.transactional_id is not None:
                code = ErrorCode.INVALID_TXN_STATE if ctx.authorize(az.TRANSACTIONAL_ID, req.transactional_id,
                                                                      az.WRITE) \
                    else ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
            else:
                found = find_partition(ctx, topic, t.name, p.index, az.WRITE, live)
                code = found.code
                if code == ErrorCode.NONE:
                    assert found.topic is not None and found.part is not None
                    code, base, message = _append(ctx, found.topic, found.part, p.records, acks, version, live)
                    log_start = found.part.log_start
                elif code == ErrorCode.NOT_LEADER_OR_FOLLOWER and found.part is not None and version >= 10:
                    leader_hint = R.LeaderIdAndEpoch(leader_id=found.leader, leader_epoch=found.part.leader_epoch)
                    if found.leader >= 0:
                        leaders.add(found.leader)
            failed = failed or code != ErrorCode.NONE
            resp = R.PartitionProduceResponse(index=p.index, error_code=code, base_offset=base,
                                              log_append_time_ms=-1, log_start_offset=log_start,
                                              record_errors=[], error_message=message)
            if leader_hint is not None:
                resp.current_leader = leader_hint
            parts.append(resp)
        topics.append(R.TopicProduceResponse(name=t.name, partition_responses=parts))
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
    return R(responses=[R.TopicProduceResponse(name=t.name, partition_responses=[
        R.PartitionProduceResponse(index=p.index, error_code=code, base_offset=-1, log_append_time_ms=-1,
                                   log_start_offset=-1, record_errors=[], error_message=None)
        for p in t.partition_data]) for t in req.topic_data])


def keys(req: Any, version: int) -> tuple[str, ...]:
    return tuple(f"{t.name}-{p.index}" for t in req.topic_data for p in t.partition_data)


register(API_KEY, handle=handle, error_response=error_response, keys=keys)
