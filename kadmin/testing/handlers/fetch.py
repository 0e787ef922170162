"""Fetch (key 1): the partition's record batches from the fetch offset, on its leader.

As Kafka's KafkaApis.handleFetchRequest and ReplicaManager.fetchMessages, minimally: per partition READ on
the topic (TOPIC_AUTHORIZATION_FAILED), the topic (by name, or by id from v13: UNKNOWN_TOPIC_ID) and
partition exist, this broker leads it (NOT_LEADER_OR_FOLLOWER, with KIP-951's leader hint from v12), the
client's leader epoch is current (v9+: FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH), and the offset lies
between the log start and the log end (else OFFSET_OUT_OF_RANGE; at the log end the answer is empty).
Every answer carries the high watermark (the log end: every replica is caught up) and, from v5, the log
start, and from v4 the last stable offset: the first offset of the oldest transaction still open on the
partition, else the high watermark.  A read_committed fetch (isolation level 1, v4+) reads no batch at or past
it and lists the aborted transactions its records meet (producer id, first offset), so the consumer drops
their records; markers (control batches) reach every reader, which skips them.  Sizes follow KIP-74: at
least one batch, then up to PartitionMaxBytes and the request's MaxBytes.

Waiting: with fewer than MinBytes to return and MaxWaitMs > 0 the answer is held (kadmin.testing.deferred)
until a Produce appends to one of the partitions or the time is up, outside the cluster lock, so other
connections go on being served, as in Kafka's fetch purgatory.

Fetch sessions (KIP-227, v7+): the fake creates none.  A full fetch (session 0, epoch 0 or -1) is answered
with session id 0, which tells the client that no session was made, so it goes on sending full fetches;
a session id the fake never gave is FETCH_SESSION_ID_NOT_FOUND.
"""

from __future__ import annotations

import asyncio
from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing import authorizer as az
from kadmin.testing.deferred import Deferred, new_future
from kadmin.testing.handlers.base import RequestContext, Response, register, response_class
from kadmin.testing.handlers.records_common import epoch_error, find_partition, node_endpoints
from kadmin.testing.record_log import RecordError
from kadmin.testing.state.topics import PartitionState, Topic, Topics
from kadmin.testing.state.transactions import expire

API_KEY = ApiKey.FETCH
READ_COMMITTED = 1


def _topic_of(ctx: RequestContext, t: Any, version: int, by_id: dict[Any, Topic] | None) -> tuple[str, Topic | None]:
    if version >= 13:
        found = (by_id or {}).get(t.topic_id)
        return (found.name if found is not None else ""), found
    return t.topic, ctx.state.area(Topics).get(t.topic)


def _answer(ctx: RequestContext, req: Any, version: int) -> tuple[Any, int, bool, list[PartitionState]]:
    """(response, bytes of records, any partition failed, partitions read) for the request as things are now."""
    R = response_class(API_KEY)
    live = ctx.live_ids()
    magic = 2 if version >= 4 else (1 if version >= 2 else 0)
    budget = req.max_bytes if version >= 3 else 0x7FFFFFFF
    total = 0
    failed = False
    leaders: set[int] = set()
    read: list[PartitionState] = []
    by_id = {tp.topic_id: tp for tp in ctx.state.area(Topics).values()} if version >= 13 else None
    committed = version >= 4 and req.isolation_level == READ_COMMITTED
    expire(ctx.state)
    out_topics = []
    for t in req.topics:
        name, topic = _topic_of(ctx, t, version, by_id)
        parts = []
        for p in t.partitions:
            pd = R.PartitionData(partition_index=p.partition, error_code=ErrorCode.NONE, high_watermark=-1,
                                 last_stable_offset=-1, log_start_offset=-1, preferred_read_replica=-1,
                                 aborted_transactions=None, records=b"")
            if version >= 13 and topic is None:
                pd.error_code = ErrorCode.UNKNOWN_TOPIC_ID
                parts.append(pd)
                failed = True
                continue
            found = find_partition(ctx, topic, name, p.partition, az.READ, live)
            code = found.code
            part = found.part
            if code == ErrorCode.NONE:
                assert part is not None
                code = epoch_error(part, p.current_leader_epoch) if version >= 9 else ErrorCode.NONE
            if code == ErrorCode.NONE:
                assert part is not None
                pd.high_watermark = part.log_end
                lso = part.log.last_stable_offset(part.log_end)
                pd.last_stable_offset = lso
                pd.log_start_offset = part.log_start
                if committed:
                    pd.aborted_transactions = [R.AbortedTransaction(producer_id=pid, first_offset=first)
                                               for pid, first in part.log.aborted_since(p.fetch_offset, lso)]
                if not part.log_start <= p.fetch_offset <= part.log_end:
                    code = ErrorCode.OFFSET_OUT_OF_RANGE
                else:
                    read.append(part)
                    limit = min(p.partition_max_bytes, budget - total)
                    if limit > 0 or total == 0:
                        try:
                            pd.records = part.log.read(p.fetch_offset, max(limit, 1), part.log_start,
                                                       part.log_end, part.leader_epoch, magic,
                                                       at_least_one=total == 0, upto=lso if committed else None)
                        except RecordError as exc:
                            code = exc.code
                        total += len(pd.records)
            elif code == ErrorCode.NOT_LEADER_OR_FOLLOWER and part is not None and version >= 12:
                pd.current_leader = R.LeaderIdAndEpoch(leader_id=found.leader, leader_epoch=part.leader_epoch)
                if found.leader >= 0:
                    leaders.add(found.leader)
            pd.error_code = code
            failed = failed or code != ErrorCode.NONE
            parts.append(pd)
        out_topics.append(R.FetchableTopicResponse(topic=name, topic_id=getattr(t, "topic_id", None),
                                                   partitions=parts))
    resp = R(throttle_time_ms=0, error_code=ErrorCode.NONE, session_id=0, responses=out_topics)
    if leaders and version >= 16:
        resp.node_endpoints = node_endpoints(ctx, R, leaders)
    return resp, total, failed, read


def _session_error(req: Any, version: int) -> int:
    if version < 7:
        return ErrorCode.NONE
    if req.session_id != 0 and req.session_epoch != -1:
        return ErrorCode.FETCH_SESSION_ID_NOT_FOUND
    if req.session_id == 0 and req.session_epoch > 0:
        return ErrorCode.INVALID_FETCH_SESSION_EPOCH
    return ErrorCode.NONE


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    code = _session_error(req, version)
    if code != ErrorCode.NONE:
        return response_class(API_KEY)(throttle_time_ms=0, error_code=code, session_id=0, responses=[])
    resp, total, failed, read = _answer(ctx, req, version)
    if failed or total >= req.min_bytes or req.max_wait_ms <= 0 or not read:
        return resp
    future: asyncio.Future[None] = new_future()
    for part in read:
        part.log.waiters = [w for w in part.log.waiters if not w.done()]
        part.log.waiters.append(future)

    def finish() -> Response:
        for part in read:
            if future in part.log.waiters:
                part.log.waiters.remove(future)
        return _answer(ctx, req, version)[0]

    return Deferred(future, req.max_wait_ms / 1000.0, finish)


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    R = response_class(API_KEY)
    if version >= 7:
        return R(throttle_time_ms=0, error_code=code, session_id=0, responses=[])
    return R(throttle_time_ms=0, responses=[R.FetchableTopicResponse(topic=t.topic, partitions=[
        R.PartitionData(partition_index=p.partition, error_code=code, high_watermark=-1, records=b"")
        for p in t.partitions]) for t in req.topics])


def keys(req: Any, version: int) -> tuple[str, ...]:
    if version >= 13:
        return tuple(f"{t.topic_id}-{p.partition}" for t in req.topics for p in t.partitions)
    return tuple(f"{t.topic}-{p.partition}" for t in req.topics for p in t.partitions)


register(API_KEY, handle=handle, error_response=error_response, keys=keys)
