"""AddPartitionsToTxn (key 24): a transactional producer adds partitions to its ongoing transaction, on the
transaction coordinator, before it produces to them.

As Kafka's KafkaApis.handleAddPartitionsToTxnRequest and TransactionCoordinator.handleAddPartitionsToTransaction:
WRITE on the transactional id, this node coordinating it, WRITE on each topic (TOPIC_AUTHORIZATION_FAILED;
the other partitions then get OPERATION_NOT_ATTEMPTED), each partition existing (UNKNOWN_TOPIC_OR_PARTITION),
the producer id and epoch the ones the transactional id holds (INVALID_PRODUCER_ID_MAPPING, fenced otherwise),
no marker round in flight (CONCURRENT_TRANSACTIONS).  The first partition starts the transaction (Ongoing,
its start time).  Versions 0-3 carry one client transaction; version 4+ (KIP-890) is the brokers' batched
form (partition leaders verifying a transaction, CLUSTER_ACTION), answered per transaction with the same
checks, VerifyOnly adding nothing.
"""

from __future__ import annotations

from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing import authorizer as az
from kadmin.testing.handlers.base import RequestContext, Response, register, response_class
from kadmin.testing.handlers.txn_common import coordinator_error, producer_error
from kadmin.testing.state.topics import Topics
from kadmin.testing.state.transactions import now_ms

API_KEY = ApiKey.ADD_PARTITIONS_TO_TXN


def _results(R: Any, topics: Any, codes: dict[tuple[str, int], int]) -> list[Any]:
    return [R.AddPartitionsToTxnTopicResult(name=t.name, results_by_partition=[
        R.AddPartitionsToTxnPartitionResult(partition_index=p, partition_error_code=codes[(t.name, p)])
        for p in t.partitions]) for t in topics]


def _add(ctx: RequestContext, tid: str, pid: int, epoch: int, topics: Any, version: int,
         verify_only: bool) -> dict[tuple[str, int], int]:
    wanted = [(t.name, p) for t in topics for p in t.partitions]
    code = coordinator_error(ctx, tid)
    if code != ErrorCode.NONE:
        return {tp: code for tp in wanted}
    codes: dict[tuple[str, int], int] = {}
    known = ctx.state.area(Topics)
    for name, p in wanted:
        topic = known.get(name)
        if not ctx.authorize(az.TOPIC, name, az.WRITE):
            codes[(name, p)] = ErrorCode.TOPIC_AUTHORIZATION_FAILED
        elif topic is None or p not in topic.partitions:
            codes[(name, p)] = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
    if codes:
        return {tp: codes.get(tp, ErrorCode.OPERATION_NOT_ATTEMPTED) for tp in wanted}
    code, meta = producer_error(ctx, tid, pid, epoch, API_KEY, version)
    if meta is None:
        return {tp: code for tp in wanted}
    if verify_only:
        ok = meta.state == "Ongoing"
        return {tp: ErrorCode.NONE if ok and tp in meta.partitions else ErrorCode.INVALID_TXN_STATE for tp in wanted}
    if meta.state != "Ongoing":
        meta.state, meta.start_ms = "Ongoing", now_ms()
    meta.partitions.update(wanted)
    meta.last_update_ms = now_ms()
    return {tp: ErrorCode.NONE for tp in wanted}


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    if version <= 3:
        codes = _add(ctx, req.v3_and_below_transactional_id, req.v3_and_below_producer_id,
                     req.v3_and_below_producer_epoch, req.v3_and_below_topics, version, False)
        return R(throttle_time_ms=0, results_by_topic_v3_and_below=_results(R, req.v3_and_below_topics, codes))
    if not ctx.authorize(az.CLUSTER, az.CLUSTER_NAME, az.CLUSTER_ACTION):
        return error_response(ctx, req, version, ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
    results = []
    for txn in req.transactions:
        codes = _add(ctx, txn.transactional_id, txn.producer_id, txn.producer_epoch, txn.topics, version,
                     txn.verify_only)
        results.append(R.AddPartitionsToTxnResult(transactional_id=txn.transactional_id,
                                                  topic_results=_results(R, txn.topics, codes)))
    return R(throttle_time_ms=0, error_code=ErrorCode.NONE, results_by_transaction=results)


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    R = response_class(API_KEY)
    if version <= 3:
        topics = req.v3_and_below_topics
        return R(throttle_time_ms=0, results_by_topic_v3_and_below=_results(
            R, topics, {(t.name, p): code for t in topics for p in t.partitions}))
    return R(throttle_time_ms=0, error_code=code, results_by_transaction=[])


def keys(req: Any, version: int) -> tuple[str, ...]:
    if version <= 3:
        return (req.v3_and_below_transactional_id,)
    return tuple(t.transactional_id for t in req.transactions)


register(API_KEY, handle=handle, error_response=error_response, keys=keys)
