"""DescribeCluster (key 60): the cluster id, the controller and the live brokers (KIP-700); from v2, when asked,
the fenced ones too (KIP-1073: a stopped broker of a KRaft preset)."""

from __future__ import annotations

from typing import Any

from kadmin.testing.handlers.base import (
    AUTH_OPS_NOT_REQUESTED,
    MISMATCHED_ENDPOINT_TYPE,
    NONE,
    UNSUPPORTED_ENDPOINT_TYPE,
    RequestContext,
    Response,
    register,
    response_class,
)
from kadmin.testing.handlers.metadata import cluster_operations

API_KEY = 60


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    if version >= 1 and req.endpoint_type != 1:
        # KafkaApis: a broker listener only answers for EndpointType BROKER (1); 2 is the controller's.
        code = MISMATCHED_ENDPOINT_TYPE if req.endpoint_type == 2 else UNSUPPORTED_ENDPOINT_TYPE
        return R(error_code=code, error_message=f"endpoint type {req.endpoint_type} is not served here",
                 endpoint_type=req.endpoint_type, cluster_id=ctx.cluster.cluster_id)
    brokers = [R.DescribeClusterBroker(broker_id=n, host=h, port=p, rack=None) for n, h, p in ctx.live_brokers()]
    if version >= 2 and req.include_fenced_brokers and not ctx.zookeeper_mode:
        # KIP-1073: a stopped KRaft broker stops heartbeating and the controller fences it; it stays registered.
        live = ctx.live_ids()
        brokers += [R.DescribeClusterBroker(broker_id=n, host=b.host, port=b.port, rack=None, is_fenced=True)
                    for n, b in sorted(ctx.cluster._brokers.items()) if n not in live]
        brokers.sort(key=lambda b: b.broker_id)
    return R(error_code=NONE, cluster_id=ctx.cluster.cluster_id, controller_id=ctx.cluster._controller_id(),
             brokers=brokers,
             cluster_authorized_operations=(cluster_operations(ctx) if req.include_cluster_authorized_operations
                                            else AUTH_OPS_NOT_REQUESTED))


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    return response_class(API_KEY)(error_code=code, cluster_id=ctx.cluster.cluster_id)


register(API_KEY, handle=handle, error_response=error_response)
