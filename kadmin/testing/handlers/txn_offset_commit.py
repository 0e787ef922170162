"""TxnOffsetCommit (key 28): a transactional producer commits a consumer group's offsets inside its
transaction, on the group's coordinator; they count only once the transaction commits.

As Kafka's KafkaApis.handleTxnOffsetCommitRequest: WRITE on the transactional id
(TRANSACTIONAL_ID_AUTHORIZATION_FAILED), READ on the group (GROUP_AUTHORIZATION_FAILED), this node
coordinating the group (NOT_COORDINATOR), READ on each topic (TOPIC_AUTHORIZATION_FAILED), the partition
existing (UNKNOWN_TOPIC_OR_PARTITION), metadata within offset.metadata.max.bytes (OFFSET_METADATA_TOO_LARGE).
The transaction must have added the group (AddOffsetsToTxn) with the same producer id and epoch, else
INVALID_PRODUCER_ID_MAPPING / fenced / INVALID_TXN_STATE.  The offsets wait in the transaction and are
written to the group by EndTxn's commit (an abort drops them).  Version 6 names topics by id.
"""

from __future__ import annotations

from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing import authorizer as az
from kadmin.testing.handlers.base import (
    OFFSET_METADATA_MAX_BYTES,
    RequestContext,
    Response,
    register,
    response_class,
)
from kadmin.testing.handlers.txn_common import fenced
from kadmin.testing.state.groups import CommittedOffset
from kadmin.testing.state.topics import Topics
from kadmin.testing.state.transactions import Transactions, expire

API_KEY = ApiKey.TXN_OFFSET_COMMIT


def _request_error(ctx: RequestContext, req: Any, version: int) -> int:
    if not ctx.authorize(az.TRANSACTIONAL_ID, req.transactional_id, az.WRITE):
        return ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
    if not ctx.authorize(az.GROUP, req.group_id, az.READ):
        return ErrorCode.GROUP_AUTHORIZATION_FAILED
    if not ctx.is_coordinator(req.group_id):
        return ErrorCode.NOT_COORDINATOR
    expire(ctx.state)
    meta = ctx.state.area(Transactions).by_id.get(req.transactional_id)
    if meta is None or meta.producer_id != req.producer_id:
        return ErrorCode.INVALID_PRODUCER_ID_MAPPING
    if meta.epoch != req.producer_epoch:
        return fenced(API_KEY, version)
    if meta.state != "Ongoing" or req.group_id not in meta.groups:
        return ErrorCode.INVALID_TXN_STATE
    return ErrorCode.NONE


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    code = _request_error(ctx, req, version)
    topics_area = ctx.state.area(Topics)
    by_id = {t.topic_id: t for t in topics_area.values()} if version >= 6 else {}
    pending: dict[tuple[str, int], CommittedOffset] = {}
    out = []
    for t in req.topics:
        topic = by_id.get(t.topic_id) if version >= 6 else topics_area.get(t.name)
        name = topic.name if topic is not None else getattr(t, "name", "")
        parts = []
        for p in t.partitions:
            c = code
            if c == ErrorCode.NONE:
                if not ctx.authorize(az.TOPIC, name, az.READ):
                    c = ErrorCode.TOPIC_AUTHORIZATION_FAILED
                elif topic is None or p.partition_index not in topic.partitions:
                    c = ErrorCode.UNKNOWN_TOPIC_ID if version >= 6 else ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
                elif p.committed_metadata is not None and len(p.committed_metadata) > OFFSET_METADATA_MAX_BYTES:
                    c = ErrorCode.OFFSET_METADATA_TOO_LARGE
                else:
                    epoch = p.committed_leader_epoch if version >= 2 else -1
                    pending[(name, p.partition_index)] = CommittedOffset(p.committed_offset, epoch,
                                                                          p.committed_metadata or "")
            parts.append(R.TxnOffsetCommitResponsePartition(partition_index=p.partition_index, error_code=c))
        entry = R.TxnOffsetCommitResponseTopic(partitions=parts)
        if version >= 6:
            entry.topic_id = t.topic_id
        else:
            entry.name = t.name
        out.append(entry)
    if pending:
        meta = ctx.state.area(Transactions).by_id[req.transactional_id]
        meta.pending_offsets.setdefault(req.group_id, {}).update(pending)
    return R(throttle_time_ms=0, topics=out)


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    R = response_class(API_KEY)
    out = []
    for t in req.topics:
        entry = R.TxnOffsetCommitResponseTopic(partitions=[
            R.TxnOffsetCommitResponsePartition(partition_index=p.partition_index, error_code=code)
            for p in t.partitions])
        if version >= 6:
            entry.topic_id = t.topic_id
        else:
            entry.name = t.name
        out.append(entry)
    return R(throttle_time_ms=0, topics=out)


def keys(req: Any, version: int) -> tuple[str, ...]:
    return (req.transactional_id, req.group_id)


register(API_KEY, handle=handle, error_response=error_response, keys=keys)
