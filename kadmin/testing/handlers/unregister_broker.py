"""UnregisterBroker (key 64): remove a broker's registration from a KRaft cluster (Admin.unregisterBroker).

Kafka's controller needs ALTER on the cluster (CLUSTER_AUTHORIZATION_FAILED) and a registered broker id
(BROKER_ID_NOT_REGISTERED).  The fake's brokers are fixed by its constructor: unregistering one of them
succeeds and changes nothing, as against Kafka, where a broker that is still running registers again at once.
"""

from __future__ import annotations

from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing import authorizer as az
from kadmin.testing.handlers.base import RequestContext, Response, register, response_class

API_KEY = ApiKey.UNREGISTER_BROKER


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    if not ctx.authorize(az.CLUSTER, az.CLUSTER_NAME, az.ALTER):
        return error_response(ctx, req, version, ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
    if req.broker_id not in ctx.cluster.node_ids:
        return response_class(API_KEY)(throttle_time_ms=0, error_code=ErrorCode.BROKER_ID_NOT_REGISTERED,
                                       error_message=f"Broker ID {req.broker_id} is not currently registered")
    return response_class(API_KEY)(throttle_time_ms=0, error_code=ErrorCode.NONE, error_message=None)


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    return response_class(API_KEY)(throttle_time_ms=0, error_code=code, error_message=None)


def keys(req: Any, version: int) -> tuple[str, ...]:
    return (str(req.broker_id),)


register(API_KEY, handle=handle, error_response=error_response, keys=keys)
