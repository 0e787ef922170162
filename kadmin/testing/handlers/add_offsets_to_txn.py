"""AddOffsetsToTxn (key 25): a transactional producer says it will commit a consumer group's offsets in its
transaction (sendOffsetsToTransaction), on the transaction coordinator; TxnOffsetCommit to the group
coordinator follows.

As Kafka: WRITE on the transactional id and READ on the group (GROUP_AUTHORIZATION_FAILED), this node
coordinating the id, the producer's id and epoch current, no marker round in flight.  Kafka adds the group's
__consumer_offsets partition to the transaction; the fake keeps group offsets outside its logs, so it records
the group (the offsets wait in the transaction until EndTxn commits them) and starts the transaction if this
is its first step.
"""

from __future__ import annotations

from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing import authorizer as az
from kadmin.testing.handlers.base import RequestContext, Response, register, response_class
from kadmin.testing.handlers.txn_common import coordinator_error, producer_error
from kadmin.testing.state.transactions import now_ms

API_KEY = ApiKey.ADD_OFFSETS_TO_TXN


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    code = coordinator_error(ctx, req.transactional_id)
    if code == ErrorCode.NONE and not ctx.authorize(az.GROUP, req.group_id, az.READ):
        code = ErrorCode.GROUP_AUTHORIZATION_FAILED
    if code == ErrorCode.NONE:
        code, meta = producer_error(ctx, req.transactional_id, req.producer_id, req.producer_epoch, API_KEY,
                                    version)
        if meta is not None:
            if meta.state != "Ongoing":
                meta.state, meta.start_ms = "Ongoing", now_ms()
            meta.groups.add(req.group_id)
            meta.last_update_ms = now_ms()
    return R(throttle_time_ms=0, error_code=code)


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    return response_class(API_KEY)(throttle_time_ms=0, error_code=code)


def keys(req: Any, version: int) -> tuple[str, ...]:
    return (req.transactional_id,)


register(API_KEY, handle=handle, error_response=error_response, keys=keys)
