"""AlterConfigs (key 33): the pre-2.3 way to change configs, which REPLACES a resource's dynamic configs.

Every dynamic config of the resource that the request leaves out is removed (Kafka's AdminManager writes the
given set as the whole entity config), which is why a client must read, merge and write back.  Same resource
checks as DescribeConfigs; a null value is INVALID_REQUEST; an unknown topic/group/client-metrics key or bad value
INVALID_CONFIG; a broker's set is judged as Kafka's DynamicBrokerConfig.validateConfigs judges it (any name is
taken as a custom config; read-only ones, unprefixed keystore/truststore secrets, bad values and, at the cluster
default, per-broker configs are INVALID_REQUEST: see kadmin.testing.configs.validate_broker); broker-logger
resources are refused (only IncrementalAlterConfigs changes log levels).  ValidateOnly checks and changes nothing.
"""

from __future__ import annotations

from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing import authorizer as az
from kadmin.testing import configs as C
from kadmin.testing.handlers.alter_configs_common import register_alter
from kadmin.testing.handlers.base import RequestContext
from kadmin.testing.handlers.describe_configs import resource_error

API_KEY = ApiKey.ALTER_CONFIGS


def _one(ctx: RequestContext, res: Any, validate_only: bool) -> tuple[int, str | None]:
    err = resource_error(ctx, res.resource_type, res.resource_name, az.ALTER_CONFIGS)
    if err is not None:
        return err
    try:
        new = C.replace_all(res.resource_type, [(c.name, c.value) for c in res.configs], ctx.table,
                            per_broker=res.resource_name != "")
    except C.ConfigValueError as exc:
        return exc.code, C.answer_message(exc, res.resource_type, res.resource_name, ctx.table)
    if not validate_only:
        C.store(ctx.state, res.resource_type, res.resource_name, new)
    return ErrorCode.NONE, None


register_alter(API_KEY, _one)
