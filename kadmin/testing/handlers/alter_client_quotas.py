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

from kadmin.protocol.rows import AlterOpRow, AlterRow, UniformAlterations
from kadmin.protocol.rows_broker import request_rows, response_with_rows, uniform_alterations
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
#: An alteration's entity as sent: its (type, name) pairs; and its ops as sent: (key, value, remove).
Pairs = tuple[tuple[str, "str | None"], ...]
OpRows = tuple[tuple[str, float, bool], ...]


def _valid_ip(name: str | None) -> bool:
    if name is None or name == "localhost":
        return True
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        return False


def _entity_keys(pairs: Pairs) -> tuple[QuotaEntity, Mapping[str, str]]:
    """Checked entity and the config keys (name -> type) valid for it; raises QuotaRequestError.

    Checks each component in order (duplicate type, unknown type, empty name), then the combination."""
    if len(pairs) == 1:  # the usual entity, one component: the same checks, without the bookkeeping
        (etype, name), = pairs
        keys = _KEYS_OF.get(etype)
        if keys is None:
            raise QuotaRequestError(INVALID_REQUEST, f"Unhandled client quota entity type: {etype}")
        if name == "":
            raise QuotaRequestError(INVALID_REQUEST, f"Empty {etype} not supported")
        if keys is IP_KEYS and not _valid_ip(name):
            raise QuotaRequestError(INVALID_REQUEST, f"{name} is not a valid IP or resolvable host.")
        return ((etype, name),), keys
    if not pairs:
        raise QuotaRequestError(INVALID_REQUEST, "Invalid empty client quota entity")
    seen: dict[str, str | None] = {}
    for etype, name in pairs:
        if etype in seen:
            raise QuotaRequestError(INVALID_REQUEST, f"Invalid client quota entity, duplicate entity entry {etype}")
        if etype not in QUOTA_ENTITY_TYPES:
            raise QuotaRequestError(INVALID_REQUEST, f"Unhandled client quota entity type: {etype}")
        if name is not None and name == "":
            raise QuotaRequestError(INVALID_REQUEST, f"Empty {etype} not supported")
        seen[etype] = name
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


def checked_entry(pairs: Pairs, ops: OpRows, seen_entities: set[QuotaEntity],
                  zero_allowed: bool) -> tuple[QuotaEntity, Ops]:
    """The alteration's entity and ops, every rule of the module docstring checked in Kafka's order (entity,
    duplicate entity, duplicate key, then each value); raises QuotaRequestError.  Records the entity in
    ``seen_entities``."""
    entity, keys = _entity_keys(pairs)
    if entity in seen_entities:
        raise QuotaRequestError(INVALID_REQUEST, f"Ignoring duplicate entity {_entity_text(entity)}")
    seen_entities.add(entity)
    checked: Ops = {}
    for key, value, remove in ops:
        if key in checked:
            raise QuotaRequestError(INVALID_REQUEST, f"Duplicate quota key {key} not updating quota for "
                                    f"this entity {_entity_text(entity)}")
        checked[key] = None if remove else value
    for key, wanted in checked.items():
        if wanted is not None:
            _check_value(keys, key, wanted, zero_allowed)
    return entity, checked


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


def _rows(req: Any) -> list[AlterOpRow]:
    """The request's alterations as rows: as the codec read them (kadmin.protocol.rows_broker; AlterClientQuotas v1 in
    the common shape), else from its structs (v0, non-ASCII names, tagged fields...)."""
    rows = request_rows(req)
    if rows is not None:
        return rows
    return [(tuple([(e.entity_type, e.entity_name) for e in entry.entity]),
             tuple([(op.key, op.value, op.remove) for op in entry.ops])) for entry in req.entries]


#: The entity types whose quota keys are USER_CLIENT_KEYS (what the common alteration sets).
_USER_OR_CLIENT = frozenset({"user", "client-id"})
_INF = math.inf


class _Alter:
    """One request's alterations being checked and applied, in order, with the entities seen so far."""

    def __init__(self, area: Quotas, validate_only: bool, zero_allowed: bool) -> None:
        self.area = area
        self.validate_only = validate_only
        self.zero_allowed = zero_allowed
        self.seen: set[QuotaEntity] = set()
        # The answer is written from rows (kadmin.protocol.rows_broker.response_with_rows): one tuple per entry instead
        # of an entry struct, its entity structs and a list each (issue #28).
        self.out: list[AlterRow] = []

    def checked(self, pairs: Pairs, ops: OpRows) -> None:
        """Every rule of the module docstring (checked_entry), then the change unless validate_only."""
        code, message = NONE, None
        try:
            entity, checked = checked_entry(pairs, ops, self.seen, self.zero_allowed)
        except QuotaRequestError as e:
            code, message = e.code, e.message
        else:
            if not self.validate_only:
                apply_ops(self.area, entity, checked)
        self.out.append((code, message, pairs))

    def rows(self, rows: list[AlterOpRow]) -> None:
        """Any alterations.  The common one, one Set of a user or client-id entity, is checked in a few comparisons
        (the rules that can fail it: a non-empty name, a valid key, a float in range, for a LONG a whole number; its
        entity is its pairs, not seen before); anything else, and anything that would fail, goes through
        :meth:`checked`: the same rules, order and messages."""
        zero_allowed, validate_only, seen = self.zero_allowed, self.validate_only, self.seen
        current_of, area, add = self.area.get, self.area, self.out.append
        max_long = _MAX[LONG]
        for pairs, ops in rows:
            if len(pairs) == 1 and len(ops) == 1 and pairs not in seen:
                (etype, name), = pairs
                (key, value, remove), = ops
                kind = USER_CLIENT_KEYS.get(key) if etype in _USER_OR_CLIENT and name != "" and not remove else None
                if (kind is not None and type(value) is float and (0.0 < value or zero_allowed and value == 0.0)
                        and (value < _INF if kind == DOUBLE else value <= max_long and value.is_integer())):
                    seen.add(pairs)
                    if not validate_only:
                        current = current_of(pairs)
                        if current is None:
                            area[pairs] = {key: value}
                        else:
                            current[key] = value
                    add((NONE, None, pairs))
                    continue
            self.checked(pairs, ops)

    def uniform(self, alts: UniformAlterations) -> None:
        """Alterations that all set one key on one-component entities of one type (as the codec read them): the
        checks of :meth:`rows` that depend on the type and key made once, each entry's on its name and value."""
        etype, key = alts.entity_type, alts.key
        kind = USER_CLIENT_KEYS.get(key) if etype in _USER_OR_CLIENT else None
        if kind is None:
            self.rows(alts.rows())
            return
        zero_allowed, validate_only, seen = self.zero_allowed, self.validate_only, self.seen
        current_of, area, add = self.area.get, self.area, self.out.append
        max_long = _INF if kind == DOUBLE else _MAX[LONG]
        whole = kind != DOUBLE
        # Distinct names (the usual bulk request) cannot repeat an entity: then no entry needs the seen set.
        distinct = len(set(alts.names)) == len(alts.names)
        for name, value in zip(alts.names, alts.values, strict=True):
            pairs = ((etype, name),)
            if (name != "" and (0.0 < value or zero_allowed and value == 0.0) and value <= max_long
                    and (value.is_integer() if whole else value < _INF)):
                if not distinct:
                    before = len(seen)
                    seen.add(pairs)
                    if len(seen) == before:  # a repeated entity: checked() says so
                        self.checked(pairs, ((key, value, False),))
                        continue
                if not validate_only:
                    current = current_of(pairs)
                    if current is None:
                        area[pairs] = {key: value}
                    else:
                        current[key] = value
                add((NONE, None, pairs))
                continue
            self.checked(pairs, ((key, value, False),))


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    if not ctx.authorize(az.CLUSTER, az.CLUSTER_NAME, az.ALTER_CONFIGS):
        return error_response(ctx, req, version, CLUSTER_AUTHORIZATION_FAILED)
    run = _Alter(ctx.state.area(Quotas), bool(req.validate_only), ZK_CONTROLLER_KEY in ctx.table)
    uniform = uniform_alterations(req)
    if uniform is not None:
        run.uniform(uniform)
    else:
        run.rows(_rows(req))
    return response_with_rows(R, run.out, throttle_time_ms=0)


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    return response_with_rows(response_class(API_KEY), [(code, None, pairs) for pairs, _ops in _rows(req)],
                              throttle_time_ms=0)


def _key(pairs: Pairs) -> str:
    return ",".join(f"{t}={'<default>' if n is None else n}" for t, n in pairs)


def keys(req: Any, version: int) -> tuple[str, ...]:
    uniform = uniform_alterations(req)
    if uniform is not None:
        prefix = uniform.entity_type + "="
        return tuple([prefix + ("<default>" if name is None else name) for name in uniform.names])
    out: list[str] = []
    add = out.append
    for pairs, _ops in _rows(req):
        if len(pairs) == 1:  # the usual entity: one string, no join
            (etype, name), = pairs
            add(f"{etype}=<default>" if name is None else f"{etype}={name}")
        else:
            add(_key(pairs))
    return tuple(out)


register(API_KEY, handle=handle, error_response=error_response, keys=keys)
