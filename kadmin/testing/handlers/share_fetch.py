"""ShareFetch (key 78): a share-group member fetches records, each handed to it alone under an acquisition lock.

As Kafka's KafkaApis.handleShareFetchRequest and SharePartition, minimally: READ on the group, else
GROUP_AUTHORIZATION_FAILED for the whole request; a member id is required (INVALID_REQUEST); the share session
(kadmin/testing/handlers/share_common.py) adds the request's partitions and drops the forgotten ones; the
request's acknowledgements are applied first (AcknowledgeErrorCode per partition); then, for every partition
of the session this broker leads, records from the group's start offset that are neither finished nor held by
another member are acquired for group.share.record.lock.duration.ms (at most MaxRecords, and at most
group.share.partition.max.record locks in flight), and the batches covering them are returned with the
acquired ranges and their delivery counts.  A partition led elsewhere is NOT_LEADER_OR_FOLLOWER with the
leader's endpoint; an unknown topic id UNKNOWN_TOPIC_ID; TOPIC_AUTHORIZATION_FAILED without READ.  Epoch -1
(closing the session) only acknowledges.  With nothing to hand out and MaxWaitMs > 0 the answer is held until
a producer appends to one of the partitions or the time is up (kadmin.testing.deferred), as Kafka's share
fetch purgatory does.
"""

from __future__ import annotations

import asyncio
import struct
import time
from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.testing import authorizer as az
from kadmin.testing import share_groups as sg
from kadmin.testing.deferred import Deferred, new_future
from kadmin.testing.handlers import share_common as sc
from kadmin.testing.handlers.base import RequestContext, Response, register, response_class
from kadmin.testing.handlers.records_common import find_partition, node_endpoints
from kadmin.testing.state.topics import PartitionState, Topics

API_KEY = 78
#: A client before v1 sends no MaxRecords; Kafka's share consumer default (max.poll.records).
DEFAULT_MAX_RECORDS = 500


def _covered_until(records: bytes) -> int:
    """The offset after the last record of the last v2 batch in ``records`` (-1 for none)."""
    pos, end = 0, -1
    while pos + 27 <= len(records):
        base, length = struct.unpack_from(">qi", records, pos)
        (last_delta,) = struct.unpack_from(">i", records, pos + 23)
        end = base + last_delta + 1
        pos += 12 + length
    return end


def _answer(ctx: RequestContext, req: Any, version: int, session: Any, fetch: bool,
            apply_acks: bool = True) -> tuple[Response, int, list[PartitionState]]:
    """(response, records acquired, partitions that had nothing to hand out) as things are now; the request's
    acknowledgements are applied unless ``apply_acks`` is False (a held fetch answered later applied them)."""
    R = response_class(API_KEY)
    topics = ctx.state.area(Topics)
    names = sc.names_by_id(ctx)
    live = ctx.live_ids()
    leaders: set[int] = set()
    acks: dict[tuple[str, int], list[Any]] = {}
    unknown: dict[Any, list[int]] = {}
    for t in req.topics:
        name = names.get(t.topic_id)
        for p in t.partitions:
            if name is None:
                unknown.setdefault(t.topic_id, []).append(p.partition_index)
                continue
            acks[(name, p.partition_index)] = list(p.acknowledgement_batches) if apply_acks else []
    wanted = sorted(set(session.partitions) | set(acks)) if fetch else sorted(acks)
    max_records = getattr(req, "max_records", 0) or DEFAULT_MAX_RECORDS
    budget = req.max_bytes if req.max_bytes > 0 else 0x7FFFFFFF
    total_bytes = acquired_count = 0
    idle: list[PartitionState] = []
    by_topic: dict[str, list[Any]] = {}
    for name, index in wanted:
        topic = topics.get(name)
        pd = R.PartitionData(partition_index=index, error_code=ErrorCode.NONE, acknowledge_error_code=ErrorCode.NONE,
                             current_leader=R.LeaderIdAndEpoch(leader_id=-1, leader_epoch=-1), records=b"",
                             acquired_records=[])
        found = find_partition(ctx, topic, name, index, az.READ, live)
        if found.code != ErrorCode.NONE:
            pd.error_code = found.code
            if found.code == ErrorCode.NOT_LEADER_OR_FOLLOWER and found.part is not None:
                pd.current_leader = R.LeaderIdAndEpoch(leader_id=found.leader, leader_epoch=found.part.leader_epoch)
                if found.leader >= 0:
                    leaders.add(found.leader)
            by_topic.setdefault(name, []).append(pd)
            continue
        ps = found.part
        assert ps is not None
        pd.current_leader = R.LeaderIdAndEpoch(leader_id=ctx.node_id, leader_epoch=ps.leader_epoch)
        pd.acknowledge_error_code = sc.acknowledge(ctx, req.group_id, req.member_id, name, index, ps,
                                                   acks.get((name, index), []))
        if fetch and acquired_count < max_records and total_bytes < budget:
            sp = sc.share_partition(ctx, req.group_id, name, index, ps)
            first = next((o for o in range(sp.start_offset, ps.log_end)
                          if o not in sp.acquired and o not in sp.complete), None)
            if first is not None:
                records = ps.log.read(first, max(budget - total_bytes, 1), ps.log_start, ps.log_end,
                                      ps.leader_epoch, 2, at_least_one=total_bytes == 0)
                upto = min(_covered_until(records), ps.log_end)
                ranges = sp.acquire(req.member_id, upto, max_records - acquired_count, sg.MAX_RECORD_LOCKS,
                                    time.monotonic(), sg.lock_seconds(ctx.state)) if upto > first else []
                if ranges:
                    pd.records = records
                    total_bytes += len(records)
                    acquired_count += sum(last - f + 1 for f, last, _c in ranges)
                    pd.acquired_records = [R.AcquiredRecords(first_offset=f, last_offset=last, delivery_count=c)
                                           for f, last, c in ranges]
            if not pd.acquired_records:
                idle.append(ps)
        by_topic.setdefault(name, []).append(pd)
    # A topic deleted since the session named it has no id left to answer under: its partitions are dropped
    # from the session instead (the member's next heartbeat drops them from its assignment).
    for name in [n for n in by_topic if n not in topics]:
        session.partitions = {k for k in session.partitions if k[0] != name}
        del by_topic[name]
    responses = [R.ShareFetchableTopicResponse(topic_id=topics[name].topic_id, partitions=parts)
                 for name, parts in by_topic.items()]
    for topic_id, indexes in unknown.items():
        responses.append(R.ShareFetchableTopicResponse(topic_id=topic_id, partitions=[
            R.PartitionData(partition_index=i, error_code=ErrorCode.UNKNOWN_TOPIC_ID,
                            acknowledge_error_code=ErrorCode.UNKNOWN_TOPIC_ID,
                            current_leader=R.LeaderIdAndEpoch(leader_id=-1, leader_epoch=-1), records=b"",
                            acquired_records=[]) for i in indexes]))
    resp = R(throttle_time_ms=0, error_code=ErrorCode.NONE, error_message=None,
             acquisition_lock_timeout_ms=int(sg.lock_seconds(ctx.state) * 1000), responses=responses,
             node_endpoints=node_endpoints(ctx, R, leaders) if leaders else [])
    return resp, acquired_count, idle


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    if not ctx.authorize(az.GROUP, req.group_id or "", az.READ):
        return error_response(ctx, req, version, ErrorCode.GROUP_AUTHORIZATION_FAILED)
    if not req.group_id or not req.member_id:
        return _top(ErrorCode.INVALID_REQUEST, "GroupId and MemberId are required.")
    code, session = sc.session_for(ctx, req.group_id, req.member_id, req.share_session_epoch, may_open=True)
    if code != ErrorCode.NONE or session is None:
        return _top(code, None)
    names = sc.names_by_id(ctx)
    closing = req.share_session_epoch == -1
    if not closing:
        for t in req.topics:
            if t.topic_id in names:
                session.partitions |= {(names[t.topic_id], p.partition_index) for p in t.partitions}
        for f in req.forgotten_topics_data:
            if f.topic_id in names:
                session.partitions -= {(names[f.topic_id], p) for p in f.partitions}
    resp, got, idle = _answer(ctx, req, version, session, fetch=not closing)
    if closing:
        sc.close_session(ctx, req.group_id, req.member_id)
    if closing or got or req.max_wait_ms <= 0 or not idle:
        return resp
    future: asyncio.Future[None] = new_future()
    for ps in idle:
        ps.log.waiters = [w for w in ps.log.waiters if not w.done()]
        ps.log.waiters.append(future)

    def finish() -> Response:
        for ps in idle:
            if future in ps.log.waiters:
                ps.log.waiters.remove(future)
        return _answer(ctx, req, version, session, fetch=True, apply_acks=False)[0]

    return Deferred(future, req.max_wait_ms / 1000.0, finish)


def _top(code: int, message: str | None) -> Response:
    return response_class(API_KEY)(throttle_time_ms=0, error_code=code, error_message=message,
                                   acquisition_lock_timeout_ms=0, responses=[], node_endpoints=[])


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    return _top(code, None)


register(API_KEY, handle=handle, error_response=error_response,
         keys=lambda req, _v: (req.group_id or "", req.member_id or ""))
