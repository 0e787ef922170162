"""ListOffsets (key 2): offsets by time, answered by the partition leader.

It must reach the partition leader, which answers as Kafka's UnifiedLog.fetchOffsetByTimestamp: EARLIEST and
EARLIEST_LOCAL (no tiered storage here) the log start, LATEST the log end, both without a timestamp;
LATEST_TIERED and EARLIEST_PENDING_UPLOAD (v11, KIP-1023) offset -1 (nothing is tiered); MAX_TIMESTAMP and
a timestamp look the stored records' timestamps up (kadmin.testing.time_index), and find nothing (offset -1,
timestamp -1) in a log without a match.  v0 answers Kafka's legacy offsets-before list (OldStyleOffsets, at most
MaxNumOffsets of them).  READ_COMMITTED (v2+) ends at the last stable offset, which is the high watermark here:
the fake has no open transactions (:func:`last_fetchable`).
"""

from __future__ import annotations

import time
from typing import Any

from kadmin.testing import authorizer as az
from kadmin.testing.handlers.base import (
    NONE,
    NOT_LEADER_OR_FOLLOWER,
    TOPIC_AUTHORIZATION_FAILED,
    UNKNOWN_TOPIC_OR_PARTITION,
    RequestContext,
    Response,
    register,
    response_class,
)
from kadmin.testing.state.topics import PartitionState, Topics
from kadmin.testing.time_index import legacy_offsets_before, offset_for_timestamp, offset_of_max_timestamp

API_KEY = 2
EARLIEST, LATEST, MAX_TIMESTAMP, EARLIEST_LOCAL, LATEST_TIERED, EARLIEST_PENDING_UPLOAD = -2, -1, -3, -4, -5, -6


def last_fetchable(ps: PartitionState, isolation_level: int) -> int:
    """The end a reader at this isolation level may see, as Kafka's Partition.fetchOffsetForTimestamp picks it:
    the high watermark for READ_UNCOMMITTED, the last stable offset for READ_COMMITTED.  The LSO is the first
    offset of the earliest still-open transaction, or the high watermark when none is open (the fake's high
    watermark is the log end: every replica is in sync)."""
    if isolation_level == 1:
        return ps.log.last_stable_offset(ps.log_end)
    return ps.log_end


#: The special timestamps and the ListOffsets version that introduced each (KIP-734 max-timestamp v7, KIP-405's
#: earliest-local v8 and latest-tiered v9, KIP-1023's earliest-pending-upload v11): a broker whose release
#: predates one reads it as a plain timestamp.
_SPECIAL_SINCE = {MAX_TIMESTAMP: 7, EARLIEST_LOCAL: 8, LATEST_TIERED: 9, EARLIEST_PENDING_UPLOAD: 11}


def _lookup(ps: PartitionState, ts: int, isolation_level: int = 0, max_version: int = 10) -> tuple[int, int, int]:
    """(offset, timestamp, leader epoch) for a v1+ request's timestamp; offset -1 when nothing matches.  LATEST
    is the last offset the isolation level may see, and a timestamp match at or beyond it is no match.
    ``max_version`` is the answering broker's highest ListOffsets version: a special timestamp its release does
    not know (-3 on Kafka 2.x, say) is looked up as the plain timestamp it is, as that broker would."""
    end = last_fetchable(ps, isolation_level)
    if _SPECIAL_SINCE.get(ts, 0) > max_version:
        found = offset_for_timestamp(ps.log, ts, ps.log_start, ps.log_end)
        return found if found is not None and found[0] < end else (-1, -1, -1)
    if ts in (EARLIEST, EARLIEST_LOCAL):
        return ps.log_start, -1, ps.leader_epoch
    if ts == LATEST:
        return end, -1, ps.leader_epoch
    if ts in (LATEST_TIERED, EARLIEST_PENDING_UPLOAD):  # as Kafka answers for a log without remote storage
        return -1, -1, -1
    found = offset_of_max_timestamp(ps.log, ps.log_start, ps.log_end) if ts == MAX_TIMESTAMP \
        else offset_for_timestamp(ps.log, ts, ps.log_start, ps.log_end)
    return found if found is not None and found[0] < end else (-1, -1, -1)


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    live = {n for n, _h, _p in ctx.live_brokers()}
    topics = []
    for t in req.topics:
        topic = ctx.state.area(Topics).get(t.name)
        parts = []
        allowed = ctx.authorize(az.TOPIC, t.name, az.DESCRIBE)
        for p in t.partitions:
            ps = topic.partitions.get(p.partition_index) if topic else None
            if not allowed:
                parts.append(R.ListOffsetsPartitionResponse(partition_index=p.partition_index,
                                                            error_code=TOPIC_AUTHORIZATION_FAILED))
                continue
            if ps is None:
                parts.append(R.ListOffsetsPartitionResponse(partition_index=p.partition_index,
                                                            error_code=UNKNOWN_TOPIC_OR_PARTITION))
                continue
            if ps.leader_id(live) != ctx.node_id:
                parts.append(R.ListOffsetsPartitionResponse(partition_index=p.partition_index,
                                                            error_code=NOT_LEADER_OR_FOLLOWER))
                continue
            if version == 0:
                # v0 answers in OldStyleOffsets only; Timestamp and Offset exist from v1.
                parts.append(R.ListOffsetsPartitionResponse(
                    partition_index=p.partition_index, error_code=NONE, old_style_offsets=legacy_offsets_before(
                        ps.log, p.timestamp, p.max_num_offsets, ps.log_start, ps.log_end,
                        int(time.time() * 1000))))
                continue
            offset, stamp, epoch = _lookup(ps, p.timestamp, req.isolation_level if version >= 2 else 0,
                                           ctx.table[API_KEY][1])
            parts.append(R.ListOffsetsPartitionResponse(
                partition_index=p.partition_index, error_code=NONE, timestamp=stamp, offset=offset,
                leader_epoch=epoch if version >= 4 else -1))
        topics.append(R.ListOffsetsTopicResponse(name=t.name, partitions=parts))
    return R(topics=topics)


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    R = response_class(API_KEY)
    return R(topics=[R.ListOffsetsTopicResponse(name=t.name, partitions=[
        R.ListOffsetsPartitionResponse(partition_index=p.partition_index, error_code=code)
        for p in t.partitions]) for t in req.topics])


def keys(req: Any, version: int) -> tuple[str, ...]:
    return tuple(f"{t.name}-{p.partition_index}" for t in req.topics for p in t.partitions)


register(API_KEY, handle=handle, error_response=error_response, keys=keys)
