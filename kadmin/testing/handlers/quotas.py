"""DescribeClientQuotas (48) and AlterClientQuotas (49), KIP-546 (Kafka 2.6+).

Validation follows Kafka's brokers; the rules and messages (sources in brackets):

Describe [ZkAdminManager.describeClientQuotas, ClientQuotaControlManager.describeClientQuotas]:
  * a component with an empty entity type -> INVALID_REQUEST "Invalid empty entity type."
  * an entity type twice -> INVALID_REQUEST "Entity type X cannot appear more than once in the filter."
  * an entity type other than user / client-id / ip -> UNSUPPORTED_VERSION "Unsupported entity type X"
  * ip together with user or client-id -> INVALID_REQUEST (IP filter component with user/clientId)
  * match type 0 with a null name, or a match type outside 0-2 -> INVALID_REQUEST
  * match 0 = that exact name, 1 = the default entity (null name), 2 = any entity of that type;
    strict = the entity has no types besides the filter's, non-strict = it may have more.
  Errors go in the top-level ErrorCode/ErrorMessage with null Entries.

Alter, per entry [ClientQuotaControlManager.alterClientQuotas/validateEntity/configKeysForEntityType/
validateQuotaKeyValue; ZkAdminManager.alterClientQuotas for the ip/user combination message]:
  * no entity parts -> "Invalid empty client quota entity"
  * an entity type twice in one entity -> "Invalid client quota entity, duplicate entity entry X"
  * unknown entity type -> "Unhandled client quota entity type: X"
  * an empty (not null) name -> "Empty X not supported"
  * ip with user or client-id -> "Invalid quota entity combination, IP entity should not be used with
    user/client ID entity."
  * an ip name that is not an IP address (the fake does no DNS; "localhost" is accepted) ->
    "X is not a valid IP or resolvable host."
  * the same quota key twice in one entry -> "Duplicate quota key K not updating quota for this entity"
  * the same entity in two entries -> the later one fails with "Ignoring duplicate entity"
  * a key not valid for the entity -> "Invalid configuration key K": user/client-id entities take
    producer_byte_rate, consumer_byte_rate (LONG), request_percentage, controller_mutation_rate (DOUBLE);
    ip entities take only connection_creation_rate (INT)  [QuotaConfig.userAndClientQuotaConfigs/ipConfigs]
  * KRaft brokers (Kafka 3.5+, KAFKA-14943; here: a table without the ZooKeeper-era controller key 4, i.e. the
    4.0 preset): value <= 0 -> "Quota K must be greater than 0".  ZooKeeper-mode brokers (the 2.2-3.9 presets)
    accepted 0 and refused only negatives -> "Quota K must be non-negative" (the message is the fake's own)
  * NaN or infinite -> "Quota K must be a finite number" (the fake's own rule: Kafka would pass NaN)
  * LONG/INT keys: above the type's max -> "Proposed value for K is too large for a LONG." / "an INT.";
    a fraction (|v % 1| > 1e-6) -> "K cannot be a fractional value."
  * a remove op needs no valid key or value (removing an absent key is a no-op), as in Kafka.
  All errors are INVALID_REQUEST, per entry; validate_only checks everything and changes nothing.
"""

from __future__ import annotations

import ipaddress
import math
from typing import Any

from kadmin.testing import authorizer as az
from kadmin.testing.handlers.base import (
    CLUSTER_AUTHORIZATION_FAILED,
    INVALID_REQUEST,
    NONE,
    UNSUPPORTED_VERSION,
    RequestContext,
    Response,
    register,
    response_class,
)
from kadmin.testing.state import QUOTA_ENTITY_TYPES, QuotaEntity, quota_entity

DESCRIBE = 48
ALTER = 49

LONG, INT, DOUBLE = "LONG", "INT", "DOUBLE"
USER_CLIENT_KEYS = {"producer_byte_rate": LONG, "consumer_byte_rate": LONG, "request_percentage": DOUBLE,
                    "controller_mutation_rate": DOUBLE}
IP_KEYS = {"connection_creation_rate": INT}
_MAX = {LONG: float(2**63 - 1), INT: float(2**31 - 1)}


class QuotaRequestError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


# --- describe -----------------------------------------------------------------------------------------


def _filter(req: Any) -> tuple[dict[str, tuple[int, str | None]], bool]:
    comps: dict[str, tuple[int, str | None]] = {}
    for c in req.components:
        if not c.entity_type:
            raise QuotaRequestError(INVALID_REQUEST, "Invalid empty entity type.")
        if c.entity_type in comps:
            raise QuotaRequestError(INVALID_REQUEST,
                                    f"Entity type {c.entity_type} cannot appear more than once in the filter.")
        if c.entity_type not in QUOTA_ENTITY_TYPES:
            raise QuotaRequestError(UNSUPPORTED_VERSION, f"Unsupported entity type {c.entity_type}")
        if c.match_type not in (0, 1, 2):
            raise QuotaRequestError(INVALID_REQUEST, f"Unexpected match type: {c.match_type}")
        if c.match_type == 0 and c.match is None:
            raise QuotaRequestError(INVALID_REQUEST, f"Exact match on {c.entity_type} needs a name")
        comps[c.entity_type] = (c.match_type, c.match)
    if "ip" in comps and ("user" in comps or "client-id" in comps):
        raise QuotaRequestError(INVALID_REQUEST, "Invalid entity filter component combination. IP filter "
                                "component should not be used with user or clientId filter component.")
    return comps, bool(req.strict)


def _matches(entity: QuotaEntity, comps: dict[str, tuple[int, str | None]], strict: bool) -> bool:
    names = dict(entity)
    if strict and set(names) != set(comps):
        return False
    for etype, (mtype, match) in comps.items():
        if etype not in names:
            return False
        if mtype == 0 and names[etype] != match:
            return False
        if mtype == 1 and names[etype] is not None:
            return False
    return True


def handle_describe(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(DESCRIBE)
    if not ctx.authorize(az.CLUSTER, az.CLUSTER_NAME, az.DESCRIBE_CONFIGS):
        return error_describe(ctx, req, version, CLUSTER_AUTHORIZATION_FAILED)
    try:
        comps, strict = _filter(req)
    except QuotaRequestError as e:
        return R(error_code=e.code, error_message=e.message, entries=None)
    entries = []
    for entity, values in sorted(ctx.state.quotas.items(), key=lambda kv: repr(kv[0])):
        if values and _matches(entity, comps, strict):
            entries.append(R.EntryData(
                entity=[R.EntityData(entity_type=t, entity_name=n) for t, n in entity],
                values=[R.ValueData(key=k, value=v) for k, v in sorted(values.items())]))
    return R(error_code=NONE, error_message=None, entries=entries)


def error_describe(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    return response_class(DESCRIBE)(error_code=code, error_message=None, entries=None)


def keys_describe(req: Any, version: int) -> tuple[str, ...]:
    kinds = {0: "", 1: "<default>", 2: "<any>"}
    return tuple(f"{c.entity_type}={c.match if c.match_type == 0 else kinds.get(c.match_type, '?')}"
                 for c in req.components)


# --- alter --------------------------------------------------------------------------------------------


def _valid_ip(name: str | None) -> bool:
    if name is None or name == "localhost":
        return True
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        return False


def _entity_keys(entity_data: list[Any]) -> tuple[QuotaEntity, dict[str, str]]:
    """Checked entity and the config keys (name -> type) valid for it; raises QuotaRequestError."""
    if not entity_data:
        raise QuotaRequestError(INVALID_REQUEST, "Invalid empty client quota entity")
    seen: dict[str, str | None] = {}
    for e in entity_data:
        if e.entity_type in seen:
            raise QuotaRequestError(INVALID_REQUEST,
                                    f"Invalid client quota entity, duplicate entity entry {e.entity_type}")
        if e.entity_type not in QUOTA_ENTITY_TYPES:
            raise QuotaRequestError(INVALID_REQUEST, f"Unhandled client quota entity type: {e.entity_type}")
        if e.entity_name is not None and e.entity_name == "":
            raise QuotaRequestError(INVALID_REQUEST, f"Empty {e.entity_type} not supported")
        seen[e.entity_type] = e.entity_name
    if "ip" in seen:
        if "user" in seen or "client-id" in seen:
            raise QuotaRequestError(INVALID_REQUEST, "Invalid quota entity combination, IP entity should not "
                                    "be used with user/client ID entity.")
        if not _valid_ip(seen["ip"]):
            raise QuotaRequestError(INVALID_REQUEST, f"{seen['ip']} is not a valid IP or resolvable host.")
        return quota_entity(seen), IP_KEYS
    return quota_entity(seen), USER_CLIENT_KEYS


def _check_value(keys: dict[str, str], key: str, value: float, *, zero_allowed: bool = False) -> None:
    kind = keys.get(key)
    if kind is None:
        raise QuotaRequestError(INVALID_REQUEST, f"Invalid configuration key {key}")
    if math.isnan(value) or math.isinf(value):
        raise QuotaRequestError(INVALID_REQUEST, f"Quota {key} must be a finite number")
    if zero_allowed and value < 0.0:
        raise QuotaRequestError(INVALID_REQUEST, f"Quota {key} must be non-negative")
    if not zero_allowed and value <= 0.0:
        raise QuotaRequestError(INVALID_REQUEST, f"Quota {key} must be greater than 0")
    if kind == DOUBLE:
        return
    if value > _MAX[kind]:
        article = "a LONG" if kind == LONG else "an INT"
        raise QuotaRequestError(INVALID_REQUEST, f"Proposed value for {key} is too large for {article}.")
    if abs(math.fmod(value, 1.0)) > 1e-6:
        raise QuotaRequestError(INVALID_REQUEST, f"{key} cannot be a fractional value.")


# LeaderAndIsr: advertised by ZooKeeper-mode brokers only, so its presence tells the two quota rules apart.
ZK_CONTROLLER_KEY = 4


def alter_entry(ctx: RequestContext, entry: Any, seen_entities: set[QuotaEntity], validate_only: bool) -> None:
    entity, keys = _entity_keys(entry.entity)
    if entity in seen_entities:
        raise QuotaRequestError(INVALID_REQUEST, f"Ignoring duplicate entity {_entity_text(entity)}")
    seen_entities.add(entity)
    ops: dict[str, float | None] = {}
    for op in entry.ops:
        if op.key in ops:
            raise QuotaRequestError(INVALID_REQUEST, f"Duplicate quota key {op.key} not updating quota for "
                                    f"this entity {_entity_text(entity)}")
        ops[op.key] = None if op.remove else op.value
    zk_mode = ZK_CONTROLLER_KEY in ctx.table
    for key, value in ops.items():
        if value is not None:
            _check_value(keys, key, value, zero_allowed=zk_mode)
    if validate_only:
        return
    current = ctx.state.quotas.setdefault(entity, {})
    for key, value in ops.items():
        if value is None:
            current.pop(key, None)
        else:
            current[key] = float(value)
    if not current:
        del ctx.state.quotas[entity]


def _entity_text(entity: QuotaEntity) -> str:
    return "ClientQuotaEntity(entries={" + ", ".join(f"{t}={n}" for t, n in entity) + "})"


def handle_alter(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(ALTER)
    if not ctx.authorize(az.CLUSTER, az.CLUSTER_NAME, az.ALTER_CONFIGS):
        return error_alter(ctx, req, version, CLUSTER_AUTHORIZATION_FAILED)
    out = []
    seen: set[QuotaEntity] = set()
    for entry in req.entries:
        code, message = NONE, None
        try:
            alter_entry(ctx, entry, seen, bool(req.validate_only))
        except QuotaRequestError as e:
            code, message = e.code, e.message
        out.append(R.EntryData(error_code=code, error_message=message, entity=[
            R.EntityData(entity_type=e.entity_type, entity_name=e.entity_name) for e in entry.entity]))
    return R(entries=out)


def error_alter(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    R = response_class(ALTER)
    return R(entries=[R.EntryData(error_code=code, error_message=None, entity=[
        R.EntityData(entity_type=e.entity_type, entity_name=e.entity_name) for e in entry.entity])
        for entry in req.entries])


def keys_alter(req: Any, version: int) -> tuple[str, ...]:
    return tuple(",".join(f"{e.entity_type}={'<default>' if e.entity_name is None else e.entity_name}"
                          for e in entry.entity) for entry in req.entries)


register(DESCRIBE, handle=handle_describe, error_response=error_describe, keys=keys_describe)
register(ALTER, handle=handle_alter, error_response=error_alter, keys=keys_alter)
