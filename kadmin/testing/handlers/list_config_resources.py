"""ListClientMetricsResources (key 74; ListConfigResources from Kafka 4.1): the names of the cluster's
client-metrics subscriptions (KIP-714), i.e. the client-metrics config resources that have configs.

Kafka needs DESCRIBE_CONFIGS on the cluster (CLUSTER_AUTHORIZATION_FAILED).  The names come from the configs
the fake keeps for resource type 16 (IncrementalAlterConfigs / set_resource_config).
"""

from __future__ import annotations

from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing import authorizer as az
from kadmin.testing.handlers.base import RequestContext, Response, register, response_class
from kadmin.testing.state.resource_configs import ResourceConfigs

API_KEY = ApiKey.LIST_CONFIG_RESOURCES
CLIENT_METRICS = 16


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    if not ctx.authorize(az.CLUSTER, az.CLUSTER_NAME, az.DESCRIBE_CONFIGS):
        return error_response(ctx, req, version, ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
    R = response_class(API_KEY)
    names = sorted(name for (rtype, name), cfg in ctx.state.area(ResourceConfigs).items() if rtype == CLIENT_METRICS and cfg)
    return R(throttle_time_ms=0, error_code=ErrorCode.NONE,
             config_resources=[R.ConfigResource(resource_name=n) for n in names])


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    return response_class(API_KEY)(throttle_time_ms=0, error_code=code, config_resources=[])


register(API_KEY, handle=handle, error_response=error_response)
