"""AlterClientQuotas (key 49), KIP-546 (Kafka 2.6+): set or remove quotas, entry by entry.

Validation follows Kafka's brokers; the rules and messages (sources in brackets):

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
from collections.abc import Mapping
from typing import Any

from kadmin.testing import authorizer as az
from kadmin.testing.handlers.base import (
    CLUSTER_AUTHORIZATION_FAILED,
    INVALID_REQUEST,
    NONE,
    RequestContext,
    Response,
    register,
    response_class,
)
from kadmin.testing.handlers.describe_client_quotas import QuotaRequestError
from kadmin.testing.state.quotas import QUOTA_ENTITY_TYPES, QuotaEntity, Quotas

API_KEY = 49

LONG, INT, DOUBLE = "LONG", "INT", "DOUBLE"
USER_CLIENT_KEYS = {"producer_byte_rate": LONG, "consumer_byte_rate": LONG, "request_percentage": DOUBLE,
                    "controller_mutation_rate": DOUBLE}
IP_KEYS = {"connection_creation_rate": INT}
#: The keys valid for an entity, by the type that decides them (an entity with an ip has no other type).
_KEYS_OF = {"user": USER_CLIENT_KEYS, "client-id": USER_CLIENT_KEYS, "ip": IP_KEYS}
_MAX = {LONG: float(2**63 - 1), INT: float(2**31 - 1)}

#: One alteration's ops once checked: {quota key: value, or None to remove it}.
Ops = dict[str, "float | None"]


def _valid_ip(name: str | None) -> bool:
    if name is None or name == "localhost":
        return True
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        return False


def _entity_keys(entity_data: list[Any]) -> tuple[QuotaEntity, Mapping[str, str]]:
    """Checked entity and the config keys (name -> type) valid for it; raises QuotaRequestError.

    Checks each component in order (duplicate type, unknown type, empty name), then the combination."""
    if len(entity_data) == 1:  # the usual entity, one component: the same checks, without the bookkeeping
        e = entity_data[0]
        etype, name = e.entity_type, e.entity_name
        keys = _KEYS_OF.get(etype)
        if keys is None:
            raise QuotaRequestError(INVALID_REQUEST, f"Unhandled client quota entity type: {etype}")
        if name == "":
            raise QuotaRequestError(INVALID_REQUEST, f"Empty {etype} not supported")
        if keys is IP_KEYS and not _valid_ip(name):
            raise QuotaRequestError(INVALID_REQUEST, f"{name} is not a valid IP or resolvable host.")
        return ((etype, name),), keys
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
    # The types are distinct (checked above), so sorting the pairs sorts them by type, as quota_entity does.
    return tuple(sorted(seen.items())), IP_KEYS if "ip" in seen else USER_CLIENT_KEYS


def _check_value(keys: Mapping[str, str], key: str, value: float, zero_allowed: bool) -> None:
    kind = keys.get(key)
    if kind is None:
        raise QuotaRequestError(INVALID_REQUEST, f"Invalid configuration key {key}")
    if not math.isfinite(value):
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


def checked_entry(entry: Any, seen_entities: set[QuotaEntity], zero_allowed: bool) -> tuple[QuotaEntity, Ops]:
    """The entry's entity and ops, every rule of the module docstring checked in Kafka's order (entity, duplicate
    entity, duplicate key, then each value); raises QuotaRequestError.  Records the entity in ``seen_entities``."""
    entity, keys = _entity_keys(entry.entity)
    if entity in seen_entities:
        raise QuotaRequestError(INVALID_REQUEST, f"Ignoring duplicate entity {_entity_text(entity)}")
    seen_entities.add(entity)
    ops: Ops = {}
    for op in entry.ops:
        if op.key in ops:
            raise QuotaRequestError(INVALID_REQUEST, f"Duplicate quota key {op.key} not updating quota for "
                                    f"this entity {_entity_text(entity)}")
        ops[op.key] = None if op.remove else op.value
    for key, value in ops.items():
        if value is not None:
            _check_value(keys, key, value, zero_allowed)
    return entity, ops


def apply_ops(area: Quotas, entity: QuotaEntity, ops: Ops) -> None:
    """Set and remove the entity's values; an entity left without values is dropped."""
    current = area.setdefault(entity, {})
    for key, value in ops.items():
        if value is None:
            current.pop(key, None)
        else:
            current[key] = float(value)
    if not current:
        del area[entity]


def _entity_text(entity: QuotaEntity) -> str:
    return "ClientQuotaEntity(entries={" + ", ".join(f"{t}={n}" for t, n in entity) + "})"


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    if not ctx.authorize(az.CLUSTER, az.CLUSTER_NAME, az.ALTER_CONFIGS):
        return error_response(ctx, req, version, CLUSTER_AUTHORIZATION_FAILED)
    validate_only = bool(req.validate_only)
    zero_allowed = ZK_CONTROLLER_KEY in ctx.table
    area = ctx.state.area(Quotas)
    # Answers are built with the structs' positional constructors (every field, in schema order: error code,
    # message, entity; type, name): 5,000 entries are 10,000 structs, and keyword __init__ was a fifth of this
    # handler's time (issue #28).
    entry_of, part_of = R.EntryData._from_values, R.EntityData._from_values
    out = []
    seen: set[QuotaEntity] = set()
    for entry in req.entries:
        code, message = NONE, None
        try:
            entity, ops = checked_entry(entry, seen, zero_allowed)
        except QuotaRequestError as e:
            code, message = e.code, e.message
        else:
            if not validate_only:
                apply_ops(area, entity, ops)
        out.append(entry_of(code, message, [part_of(e.entity_type, e.entity_name) for e in entry.entity]))
    return R(entries=out)


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    R = response_class(API_KEY)
    return R(entries=[R.EntryData(error_code=code, error_message=None, entity=[
        R.EntityData(entity_type=e.entity_type, entity_name=e.entity_name) for e in entry.entity])
        for entry in req.entries])


def _key(entry: Any) -> str:
    return ",".join(f"{e.entity_type}={'<default>' if e.entity_name is None else e.entity_name}" for e in entry.entity)


def keys(req: Any, version: int) -> tuple[str, ...]:
    return tuple(map(_key, req.entries))


register(API_KEY, handle=handle, error_response=error_response, keys=keys)
