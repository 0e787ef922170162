"""InitProducerId (key 22): a producer id and epoch, for idempotent producers (and transactional ids).

As Kafka: without a transactional id any broker hands out a fresh producer id at epoch 0, or, when the
producer names its current id and epoch (v3+, KIP-360), the same id at the next epoch (a new id once the
epoch would overflow); the principal needs IDEMPOTENT_WRITE on the cluster or WRITE on some topic
(CLUSTER_AUTHORIZATION_FAILED).  With a transactional id the request must reach that id's transaction
coordinator (NOT_COORDINATOR; FindCoordinator with key type 1 names it), needs WRITE on the transactional id
(TRANSACTIONAL_ID_AUTHORIZATION_FAILED) and a timeout within transaction.max.timeout.ms
(INVALID_TRANSACTION_TIMEOUT); each call bumps that id's epoch.  Ids are kept, nothing else of a transaction
is: the fake does not advertise the transactional APIs (kadmin.versions), so a transactional producer stops
at its first AddPartitionsToTxn, as it would against a broker without them.
"""

from __future__ import annotations

from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing import authorizer as az
from kadmin.testing.handlers.base import RequestContext, Response, register, response_class
from kadmin.testing.state.producer_ids import ProducerIds
from kadmin.testing.state.topics import Topics

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
    if not ctx.authorize(az.TRANSACTIONAL_ID, tid, az.WRITE):
        return R(error_code=ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, producer_id=-1, producer_epoch=-1)
    if ctx.coordinator_for(tid, 1) != ctx.node_id:
        return R(error_code=ErrorCode.NOT_COORDINATOR, producer_id=-1, producer_epoch=-1)
    if not 0 < req.transaction_timeout_ms <= TRANSACTION_MAX_TIMEOUT_MS:
        return R(error_code=ErrorCode.INVALID_TRANSACTION_TIMEOUT, producer_id=-1, producer_epoch=-1)
    known = ctx.state.area(ProducerIds).transactional.get(tid)
    if version >= 3 and req.producer_id >= 0 and known is not None and (req.producer_id, req.producer_epoch) != known:
        return R(error_code=ErrorCode.PRODUCER_FENCED if version >= 4 else ErrorCode.INVALID_PRODUCER_EPOCH,
                 producer_id=-1, producer_epoch=-1)
    if known is None or known[1] >= MAX_EPOCH - 1:
        pid, epoch = _new_id(ctx), 0
    else:
        pid, epoch = known[0], known[1] + 1
    ctx.state.area(ProducerIds).transactional[tid] = (pid, epoch)
    return R(error_code=ErrorCode.NONE, producer_id=pid, producer_epoch=epoch)


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    return response_class(API_KEY)(error_code=code, producer_id=-1, producer_epoch=-1)


def keys(req: Any, version: int) -> tuple[str, ...]:
    return (req.transactional_id,) if req.transactional_id is not None else ()


register(API_KEY, handle=handle, error_response=error_response, keys=keys)
