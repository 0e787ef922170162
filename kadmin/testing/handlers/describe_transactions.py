"""DescribeTransactions (key 65, KIP-664): a transaction coordinator's state for each transactional id asked.

As Kafka's TransactionCoordinator.handleDescribeTransactions, per id: DESCRIBE on it
(TRANSACTIONAL_ID_AUTHORIZATION_FAILED), this node coordinating it (NOT_COORDINATOR), known
(TRANSACTIONAL_ID_NOT_FOUND); then its state name, timeout, start time (-1 unless a transaction is
ongoing), producer id and epoch, and the partitions of the ongoing transaction by topic.
"""

from __future__ import annotations

from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing import authorizer as az
from kadmin.testing.handlers.base import RequestContext, Response, register, response_class
from kadmin.testing.handlers.txn_common import coordinator_error
from kadmin.testing.state.transactions import Transactions

API_KEY = ApiKey.DESCRIBE_TRANSACTIONS


def _empty(R: Any, tid: str, code: int) -> Any:
    return R.TransactionState(error_code=code, transactional_id=tid, transaction_state="",
                              transaction_timeout_ms=0, transaction_start_time_ms=-1, producer_id=-1,
                              producer_epoch=-1, topics=[])


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    out = []
    for tid in req.transactional_ids:
        code = coordinator_error(ctx, tid, az.DESCRIBE)
        meta = ctx.state.area(Transactions).by_id.get(tid) if code == ErrorCode.NONE else None
        if code == ErrorCode.NONE and meta is None:
            code = ErrorCode.TRANSACTIONAL_ID_NOT_FOUND
        if meta is None:
            out.append(_empty(R, tid, code))
            continue
        by_topic: dict[str, list[int]] = {}
        for topic, p in sorted(meta.partitions):
            by_topic.setdefault(topic, []).append(p)
        out.append(R.TransactionState(
            error_code=ErrorCode.NONE, transactional_id=tid, transaction_state=meta.state,
            transaction_timeout_ms=meta.timeout_ms, transaction_start_time_ms=meta.start_ms,
            producer_id=meta.producer_id, producer_epoch=meta.epoch,
            topics=[R.TopicData(topic=t, partitions=ps) for t, ps in by_topic.items()]))
    return R(throttle_time_ms=0, transaction_states=out)


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    R = response_class(API_KEY)
    return R(throttle_time_ms=0, transaction_states=[_empty(R, tid, code) for tid in req.transactional_ids])


def keys(req: Any, version: int) -> tuple[str, ...]:
    return tuple(req.transactional_ids)


register(API_KEY, handle=handle, error_response=error_response, keys=keys)
