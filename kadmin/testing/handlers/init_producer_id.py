"""InitProducerId (key 22): a producer id and epoch, for idempotent producers (and transactional ids).

As Kafka: without a transactional id any broker hands out a fresh producer id at epoch 0, or, when the
producer names its current id and epoch (v3+, KIP-360), the same id at the next epoch (a new id once the
epoch would overflow); the principal needs IDEMPOTENT_WRITE on the cluster or WRITE on some topic
(CLUSTER_AUTHORIZATION_FAILED).  With a transactional id the request must reach that id's transaction
coordinator (NOT_COORDINATOR; FindCoordinator with key type 1 names it), needs WRITE on the transactional id
(TRANSACTIONAL_ID_AUTHORIZATION_FAILED) and a timeout within transaction.max.timeout.ms
(INVALID_TRANSACTION_TIMEOUT).  As TransactionCoordinator.handleInitProducerId: a new id gets a fresh producer
id at epoch 0; a known one keeps its producer id at the next epoch (a new id once the epoch would overflow),
which fences any older producer of that id (what ``fence_producers`` relies on); a transaction still Ongoing
is aborted first, markers written with the bumped epoch (Kafka answers CONCURRENT_TRANSACTIONS while it does
so and the client retries; the fake's markers are written at once).  From v3 a producer naming an id and
epoch other than the current ones is fenced (PRODUCER_FENCED from v4, else INVALID_PRODUCER_EPOCH).
Version 6 (KIP-939) adds Enable2Pc and KeepPreparedTxn: the fake keeps no prepared two-phase transactions, so
a request asking to keep one is refused (INVALID_TXN_STATE) and any ongoing transaction is aborted, which is
what ``force_terminate_transaction`` asks for; the ongoing-transaction fields answer -1.
"""

from __future__ import annotations

from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing import authorizer as az
from kadmin.testing.handlers.base import RequestContext, Response, register, response_class
from kadmin.testing.handlers.txn_common import coordinator_error, fenced
from kadmin.testing.state.producer_ids import ProducerIds
from kadmin.testing.state.topics import Topics
from kadmin.testing.state.transactions import Transactions, TxnMeta, fence_and_abort, now_ms

API_KEY = ApiKey.INIT_PRODUCER_ID
#: Kafka's transaction.max.timeout.ms default (15 minutes).
TRANSACTION_MAX_TIMEOUT_MS = 900_000
MAX_EPOCH = 32767


def _new_id(ctx: RequestContext) -> int:
    pid = ctx.state.area(ProducerIds).next_id
    ctx.state.area(ProducerIds).next_id += 1
    return pid


def _may_write_idempotently(ctx: RequestContext) -> bool:
    if ctx.authorize(az.CLUSTER, az.CLUSTER_NAME, az.IDEMPOTENT_WRITE):
        return True
    return any(ctx.authorize(az.TOPIC, name, az.WRITE) for name in ctx.state.area(Topics))


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    tid = req.transactional_id
    if tid is None:
        if not _may_write_idempotently(ctx):
            return R(error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED, producer_id=-1, producer_epoch=-1)
        pid, epoch = req.producer_id if version >= 3 else -1, req.producer_epoch if version >= 3 else -1
        if pid >= 0 and 0 <= epoch < MAX_EPOCH - 1:
            return R(error_code=ErrorCode.NONE, producer_id=pid, producer_epoch=epoch + 1)
        return R(error_code=ErrorCode.NONE, producer_id=_new_id(ctx), producer_epoch=0)
    code = coordinator_error(ctx, tid)
    if code != ErrorCode.NONE:
        return _refused(R, code, version)
    if not 0 < req.transaction_timeout_ms <= TRANSACTION_MAX_TIMEOUT_MS:
        return _refused(R, ErrorCode.INVALID_TRANSACTION_TIMEOUT, version)
    if version >= 6 and (req.keep_prepared_txn or req.enable2_pc):
        return _refused(R, ErrorCode.INVALID_TXN_STATE, version)
    txns = ctx.state.area(Transactions).by_id
    meta = txns.get(tid)
    if meta is not None and version >= 3 and req.producer_id >= 0 \
            and (req.producer_id, req.producer_epoch) != (meta.producer_id, meta.epoch):
        return _refused(R, fenced(API_KEY, version), version)
    if meta is None:
        meta = txns[tid] = TxnMeta(tid, _new_id(ctx), 0, req.transaction_timeout_ms)
    else:
        if meta.state == "Ongoing":
            fence_and_abort(ctx.state, meta)
        if meta.epoch >= MAX_EPOCH - 1:
            meta.producer_id, meta.epoch = _new_id(ctx), 0
        else:
            meta.epoch += 1
        meta.state, meta.timeout_ms, meta.last_update_ms = "Empty", req.transaction_timeout_ms, now_ms()
    out = R(error_code=ErrorCode.NONE, producer_id=meta.producer_id, producer_epoch=meta.epoch)
    return out


def _refused(R: Any, code: int, version: int) -> Response:
    return R(error_code=code, producer_id=-1, producer_epoch=-1)


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    return response_class(API_KEY)(error_code=code, producer_id=-1, producer_epoch=-1)


def keys(req: Any, version: int) -> tuple[str, ...]:
    return (req.transactional_id,) if req.transactional_id is not None else ()


register(API_KEY, handle=handle, error_response=error_response, keys=keys)
