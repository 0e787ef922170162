"""ListTransactions (key 66, KIP-664): the transactions this broker coordinates, optionally filtered.

As Kafka's TransactionStateManager.listTransactionStates: only ids the principal may DESCRIBE are listed;
StateFilters keeps the named states (names Kafka does not know come back in UnknownStateFilters),
ProducerIdFilters the named producer ids, DurationFilter (v1, KIP-994) the transactions running longer than
that many ms, TransactionalIdPattern (v2, KIP-1152) the ids the regular expression matches whole
(INVALID_REGULAR_EXPRESSION for one that does not compile).  Every broker answers for the ids it coordinates,
so a client asks them all.
"""

from __future__ import annotations

import re
from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing import authorizer as az
from kadmin.testing.handlers.base import RequestContext, Response, register, response_class
from kadmin.testing.handlers.txn_common import TXN_KEY_TYPE
from kadmin.testing.state.transactions import TXN_STATES, Transactions, expire, now_ms

API_KEY = ApiKey.LIST_TRANSACTIONS


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    expire(ctx.state)
    pattern = None
    if version >= 2 and req.transactional_id_pattern:
        try:
            pattern = re.compile(req.transactional_id_pattern)
        except re.error:
            return error_response(ctx, req, version, ErrorCode.INVALID_REGULAR_EXPRESSION)
    states = set(req.state_filters)
    pids = set(req.producer_id_filters)
    duration = req.duration_filter if version >= 1 else -1
    now = now_ms()
    out = []
    for tid, meta in sorted(ctx.state.area(Transactions).by_id.items()):
        if ctx.coordinator_for(tid, TXN_KEY_TYPE) != ctx.node_id:
            continue
        if not ctx.authorize(az.TRANSACTIONAL_ID, tid, az.DESCRIBE):
            continue
        if states and meta.state not in states:
            continue
        if pids and meta.producer_id not in pids:
            continue
        if duration >= 0 and (meta.start_ms < 0 or now - meta.start_ms <= duration):
            continue
        if pattern is not None and not pattern.fullmatch(tid):
            continue
        out.append(R.TransactionState(transactional_id=tid, producer_id=meta.producer_id,
                                      transaction_state=meta.state))
    return R(throttle_time_ms=0, error_code=ErrorCode.NONE,
             unknown_state_filters=sorted(states - set(TXN_STATES)), transaction_states=out)


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    return response_class(API_KEY)(throttle_time_ms=0, error_code=code, unknown_state_filters=[],
                                   transaction_states=[])


register(API_KEY, handle=handle, error_response=error_response)
