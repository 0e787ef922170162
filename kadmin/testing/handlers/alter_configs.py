"""AlterConfigs (key 33): the pre-2.3 way to change configs, which REPLACES a resource's dynamic configs.

Every dynamic config of the resource that the request leaves out is removed (Kafka's AdminManager writes the
given set as the whole entity config), which is why a client must read, merge and write back.  Same resource
checks as DescribeConfigs; a null value is INVALID_REQUEST; an unknown key or bad value INVALID_CONFIG;
broker-logger resources are refused (only IncrementalAlterConfigs changes log levels).  ValidateOnly checks
and changes nothing.
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
        new = C.replace_all(res.resource_type, [(c.name, c.value) for c in res.configs], ctx.table)
    except C.ConfigValueError as exc:
        return exc.code, exc.message
    if not validate_only:
        C.store(ctx.state, res.resource_type, res.resource_name, new)
    return ErrorCode.NONE, None


register_alter(API_KEY, _one)
