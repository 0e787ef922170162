"""EndTxn (key 26): a transactional producer commits or aborts its transaction, on its coordinator.

As Kafka's TransactionCoordinator.handleEndTransaction: WRITE on the transactional id, this node coordinating
it, the producer's id and epoch current (INVALID_PRODUCER_ID_MAPPING / fenced), no marker round in flight
(CONCURRENT_TRANSACTIONS).  An Ongoing transaction ends: a commit or abort marker on every partition added to
it, its TxnOffsetCommit offsets into their groups on commit (kadmin.testing.state.transactions.complete).  A
retry of the same outcome once complete is answered NONE; anything else (ending an Empty transaction,
committing an aborted one) is INVALID_TXN_STATE.  Version 5 (KIP-890) answers the producer id and epoch.
"""

from __future__ import annotations

from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing.handlers.base import RequestContext, Response, register, response_class
from kadmin.testing.handlers.txn_common import coordinator_error, producer_error
from kadmin.testing.state.transactions import complete

API_KEY = ApiKey.END_TXN


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    code = coordinator_error(ctx, req.transactional_id)
    meta = None
    if code == ErrorCode.NONE:
        code, meta = producer_error(ctx, req.transactional_id, req.producer_id, req.producer_epoch, API_KEY,
                                    version)
    if meta is not None:
        done = "CompleteCommit" if req.committed else "CompleteAbort"
        if meta.state == "Ongoing":
            complete(ctx.state, meta, bool(req.committed))
        elif meta.state != done:
            code = ErrorCode.INVALID_TXN_STATE
    out = R(throttle_time_ms=0, error_code=code)
    if version >= 5:
        out.producer_id = meta.producer_id if meta is not None else -1
        out.producer_epoch = meta.epoch if meta is not None else -1
    return out


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    return response_class(API_KEY)(throttle_time_ms=0, error_code=code)


def keys(req: Any, version: int) -> tuple[str, ...]:
    return (req.transactional_id,)


register(API_KEY, handle=handle, error_response=error_response, keys=keys)
