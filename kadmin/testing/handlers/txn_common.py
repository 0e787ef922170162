"""What the transaction coordinator's handlers share (InitProducerId with a transactional id,
AddPartitionsToTxn, AddOffsetsToTxn, EndTxn, DescribeTransactions, ListTransactions): the checks Kafka's
TransactionCoordinator makes before it touches a transactional id, in its order.

Registers nothing (a helper module beside the handlers).
"""

from __future__ import annotations

from kadmin._error_codes import ErrorCode
from kadmin.testing import authorizer as az
from kadmin.testing.handlers.base import RequestContext
from kadmin.testing.state.transactions import Transactions, TxnMeta, expire

#: FindCoordinator's key type for a transactional id.
TXN_KEY_TYPE = 1
#: The first version of each API whose clients know PRODUCER_FENCED (KIP-588); older ones get
#: INVALID_PRODUCER_EPOCH for a fenced producer.
PRODUCER_FENCED_SINCE = {22: 4, 24: 2, 25: 2, 26: 2, 28: 3}


def fenced(api_key: int, version: int) -> int:
    """The error a fenced producer gets at this API version."""
    return ErrorCode.PRODUCER_FENCED if version >= PRODUCER_FENCED_SINCE[api_key] else ErrorCode.INVALID_PRODUCER_EPOCH


def coordinator_error(ctx: RequestContext, transactional_id: str, operation: int = az.WRITE) -> int:
    """Authorization on the transactional id, then this node coordinating it (NOT_COORDINATOR tells the
    client to ask FindCoordinator again).  Also lets expired transactions be aborted first."""
    if not transactional_id:
        return ErrorCode.INVALID_REQUEST
    if not ctx.authorize(az.TRANSACTIONAL_ID, transactional_id, operation):
        return ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
    if ctx.coordinator_for(transactional_id, TXN_KEY_TYPE) != ctx.node_id:
        return ErrorCode.NOT_COORDINATOR
    expire(ctx.state)
    return ErrorCode.NONE


def producer_error(ctx: RequestContext, transactional_id: str, producer_id: int, epoch: int, api_key: int,
                   version: int) -> tuple[int, TxnMeta | None]:
    """The coordinator's checks of a producer acting on its transaction: the id must be the one the
    transactional id holds (INVALID_PRODUCER_ID_MAPPING), the epoch current (fenced otherwise), and no
    marker round in flight (CONCURRENT_TRANSACTIONS, which the client retries)."""
    meta = ctx.state.area(Transactions).by_id.get(transactional_id)
    if meta is None or meta.producer_id != producer_id:
        return ErrorCode.INVALID_PRODUCER_ID_MAPPING, None
    if epoch != meta.epoch:
        return fenced(api_key, version), None
    if meta.state in ("PrepareCommit", "PrepareAbort", "PrepareEpochFence"):
        return ErrorCode.CONCURRENT_TRANSACTIONS, None
    return ErrorCode.NONE, meta


__all__ = ["TXN_KEY_TYPE", "coordinator_error", "fenced", "producer_error"]
