"""FindCoordinator (key 10): which broker coordinates a group (KeyType 0) or a transactional id (1).

v0-v3 look up one ``Key`` and answer in top-level fields; v4+ (KIP-699, Kafka 3.0) look up a batch of
``CoordinatorKeys`` with one result each.  A broker whose table stops at v3 never sees a v4 request: the
broker layer closes the connection first, as Kafka does for a version it cannot parse.
"""

from __future__ import annotations

from typing import Any

from kadmin.testing import authorizer as az
from kadmin.testing.handlers.base import (
    COORDINATOR_NOT_AVAILABLE,
    GROUP_AUTHORIZATION_FAILED,
    INVALID_REQUEST,
    NONE,
    TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
    RequestContext,
    Response,
    register,
    response_class,
)

API_KEY = 10


def _lookup(ctx: RequestContext, key: str, key_type: int, version: int) -> tuple[int, str | None, int, str, int]:
    """(error, message, node, host, port) for one key."""
    # KeyType 1 (transaction) exists from v1; 2 (share group, KIP-932) from v6; anything else is invalid.
    if key_type not in (0, 1, 2) or (key_type == 2 and version < 6):
        return INVALID_REQUEST, f"invalid coordinator type {key_type}", -1, "", -1
    if key_type == 0 and not key:
        return INVALID_REQUEST, "group id must not be empty", -1, "", -1
    # KafkaApis: DESCRIBE on the group (or the transactional id) before anything is looked up.
    if key_type == 1 and not ctx.authorize(az.TRANSACTIONAL_ID, key, az.DESCRIBE):
        return TRANSACTIONAL_ID_AUTHORIZATION_FAILED, None, -1, "", -1
    if key_type != 1 and not ctx.authorize(az.GROUP, key, az.DESCRIBE):
        return GROUP_AUTHORIZATION_FAILED, None, -1, "", -1
    node = ctx.coordinator_for(key, key_type)
    if node is None:
        return COORDINATOR_NOT_AVAILABLE, "no live broker", -1, "", -1
    for n, host, port in ctx.live_brokers():
        if n == node:
            return NONE, None, n, host, port
    return COORDINATOR_NOT_AVAILABLE, "coordinator is not alive", -1, "", -1


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    if version >= 4:
        out = []
        for key in req.coordinator_keys:
            err, msg, node, host, port = _lookup(ctx, key, req.key_type, version)
            out.append(R.Coordinator(key=key, node_id=node, host=host, port=port, error_code=err,
                                     error_message=msg))
        return R(coordinators=out)
    err, msg, node, host, port = _lookup(ctx, req.key, req.key_type if version >= 1 else 0, version)
    return R(error_code=err, error_message=msg if version >= 1 else None, node_id=node, host=host, port=port)


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    R = response_class(API_KEY)
    if version >= 4:
        return R(coordinators=[R.Coordinator(key=k, node_id=-1, host="", port=-1, error_code=code)
                               for k in req.coordinator_keys])
    return R(error_code=code, node_id=-1, host="", port=-1)


def keys(req: Any, version: int) -> tuple[str, ...]:
    return tuple(req.coordinator_keys) if version >= 4 else (req.key,)


register(API_KEY, handle=handle, error_response=error_response, keys=keys)
