"""WriteTxnMarkers (key 27): commit or abort markers on the partitions this broker leads.  Kafka's transaction
coordinators send it to partition leaders; an admin sends it to abort a hanging transaction (KIP-664,
``kafka-transactions.sh abort``), which is the only sender the fake sees: its own coordinators write their
markers directly (kadmin.testing.state.transactions.complete).

As Kafka's KafkaApis.handleWriteTxnMarkersRequest: CLUSTER_ACTION on the cluster
(CLUSTER_AUTHORIZATION_FAILED for every partition), then per partition: it exists
(UNKNOWN_TOPIC_OR_PARTITION), this broker leads it (NOT_LEADER_OR_FOLLOWER), and the marker passes the
producer's state there (kadmin.testing.producer_state.check_marker: INVALID_PRODUCER_EPOCH for an older
epoch, TRANSACTION_COORDINATOR_FENCED for an older coordinator epoch, UNKNOWN_PRODUCER_ID for a producer the
partition holds no state for).  An abort marker ends the producer's open transaction on the partition: the
last stable offset moves past it and read_committed fetches report it aborted.
"""

from __future__ import annotations

from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing import authorizer as az
from kadmin.testing.handlers.base import RequestContext, Response, register, response_class
from kadmin.testing.state.topics import Topics
from kadmin.testing.state.transactions import append_marker, expire

API_KEY = ApiKey.WRITE_TXN_MARKERS
COMMIT = True


def _answer(R: Any, req: Any, code_of: Any) -> Response:
    return R(markers=[R.WritableTxnMarkerResult(producer_id=m.producer_id, topics=[
        R.WritableTxnMarkerTopicResult(name=t.name, partitions=[
            R.WritableTxnMarkerPartitionResult(partition_index=p, error_code=code_of(m, t.name, p))
            for p in t.partition_indexes]) for t in m.topics]) for m in req.markers])


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    if not ctx.authorize(az.CLUSTER, az.CLUSTER_NAME, az.CLUSTER_ACTION):
        return error_response(ctx, req, version, ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
    expire(ctx.state)
    live = ctx.live_ids()
    topics = ctx.state.area(Topics)

    def write(m: Any, name: str, index: int) -> int:
        topic = topics.get(name)
        part = topic.partitions.get(index) if topic is not None else None
        if part is None:
            return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
        if part.leader_id(live) != ctx.node_id:
            return ErrorCode.NOT_LEADER_OR_FOLLOWER
        code, _why = append_marker(part, m.producer_id, m.producer_epoch, bool(m.transaction_result),
                                   m.coordinator_epoch, strict=True)
        return code

    return _answer(R, req, write)


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    return _answer(response_class(API_KEY), req, lambda _m, _n, _p: code)


def keys(req: Any, version: int) -> tuple[str, ...]:
    return tuple(f"{t.name}-{p}" for m in req.markers for t in m.topics for p in t.partition_indexes)


register(API_KEY, handle=handle, error_response=error_response, keys=keys)
