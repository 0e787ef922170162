"""ListClientMetricsResources (key 74; ListConfigResources from Kafka 4.1): v0 names the cluster's client-metrics
subscriptions (KIP-714), i.e. the client-metrics config resources that have configs; v1 (KIP-1142) lists the
resources of the asked types (none asked: all of them): topics, brokers and broker loggers (by id), groups
(those that exist, and those with configs), client metrics.  A type it cannot list is INVALID_REQUEST.

Kafka needs DESCRIBE_CONFIGS on the cluster (CLUSTER_AUTHORIZATION_FAILED).  The names come from the configs
the fake keeps for resource type 16 (IncrementalAlterConfigs / set_resource_config).
"""

from __future__ import annotations

from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing import authorizer as az
from kadmin.testing.handlers.base import RequestContext, Response, register, response_class
from kadmin.testing.state.groups import Groups
from kadmin.testing.state.resource_configs import ResourceConfigs
from kadmin.testing.state.topics import Topics

API_KEY = ApiKey.LIST_CONFIG_RESOURCES
TOPIC, BROKER, BROKER_LOGGER, CLIENT_METRICS, GROUP = 2, 4, 8, 16, 32
#: What v1 lists when the request names no type (KIP-1142), and the only types it accepts.
LISTABLE = (TOPIC, BROKER, BROKER_LOGGER, CLIENT_METRICS, GROUP)


def _names(ctx: RequestContext, rtype: int) -> list[str]:
    configs = ctx.state.area(ResourceConfigs)
    with_configs = {name for (t, name), cfg in configs.items() if t == rtype and cfg}
    if rtype == TOPIC:
        return sorted(ctx.state.area(Topics))
    if rtype in (BROKER, BROKER_LOGGER):
        return [str(n) for n in sorted(ctx.cluster.node_ids)]
    if rtype == GROUP:
        # Groups that exist, and groups with configs set before any member joined (KIP-848 group configs).
        return sorted(with_configs | {g for g, grp in ctx.state.area(Groups).items() if grp.state != "Dead"})
    return sorted(with_configs)  # client metrics: a subscription is its configs


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    if not ctx.authorize(az.CLUSTER, az.CLUSTER_NAME, az.DESCRIBE_CONFIGS):
        return error_response(ctx, req, version, ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
    R = response_class(API_KEY)
    if version == 0:
        return R(throttle_time_ms=0, error_code=ErrorCode.NONE,
                 config_resources=[R.ConfigResource(resource_name=n) for n in _names(ctx, CLIENT_METRICS)])
    asked = list(dict.fromkeys(req.resource_types)) or list(LISTABLE)
    if any(t not in LISTABLE for t in asked):
        return error_response(ctx, req, version, ErrorCode.INVALID_REQUEST)
    return R(throttle_time_ms=0, error_code=ErrorCode.NONE,
             config_resources=[R.ConfigResource(resource_name=n, resource_type=t)
                               for t in asked for n in _names(ctx, t)])


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    return response_class(API_KEY)(throttle_time_ms=0, error_code=code, config_resources=[])


register(API_KEY, handle=handle, error_response=error_response)
