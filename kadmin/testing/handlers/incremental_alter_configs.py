"""IncrementalAlterConfigs (key 44, KIP-339, Kafka 2.3+): set, delete, append to or subtract from configs.

Per resource, as Kafka's ConfigAdminManager: the resource checks of DescribeConfigs (own broker id or "",
existing topic, a type the broker knows); a config name twice is INVALID_REQUEST; an unknown topic/group/
client-metrics key or a value of the wrong type is INVALID_CONFIG; a broker's configs as the ops leave them are
judged as Kafka's DynamicBrokerConfig.validateConfigs judges them (kadmin.testing.configs.validate_broker: custom
names taken, unprefixed security configs and more refused with INVALID_REQUEST); APPEND/SUBTRACT on a key that is
not a LIST is INVALID_CONFIG "Config value
append is not allowed for config key"; APPEND/SUBTRACT start from the current value, the default when the
resource has none.  Broker-logger resources take SET (a log level) and DELETE (back to the root level) only.
ValidateOnly checks everything and changes nothing.  Releases before 2.3 do not advertise the key at all.
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

API_KEY = ApiKey.INCREMENTAL_ALTER_CONFIGS


def _one(ctx: RequestContext, res: Any, validate_only: bool) -> tuple[int, str | None]:
    err = resource_error(ctx, res.resource_type, res.resource_name, az.ALTER_CONFIGS)
    if err is not None:
        return err
    ops = [(c.name, c.config_operation, c.value) for c in res.configs]
    try:
        new = C.incremental_change(res.resource_type, C.current(ctx.state, res.resource_type, res.resource_name),
                                   ops, ctx.table, per_broker=res.resource_name != "")
    except C.ConfigValueError as exc:
        return exc.code, C.answer_message(exc, res.resource_type, res.resource_name, ctx.table)
    if not validate_only:
        C.store(ctx.state, res.resource_type, res.resource_name, new)
    return ErrorCode.NONE, None


register_alter(API_KEY, _one)
