"""DescribeClientQuotas (key 48), KIP-546 (Kafka 2.6+): the quotas whose entities match a filter.

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
"""

from __future__ import annotations

from typing import Any

from kadmin.protocol.rows_broker import response_written
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
from kadmin.testing.state.quotas import QUOTA_ENTITY_TYPES, QuotaEntity, Quotas

API_KEY = 48


class QuotaRequestError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


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
    if not comps:  # no components (describe everything): only strict narrows it, to entities of no type
        return not strict or not entity
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


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    if not ctx.authorize(az.CLUSTER, az.CLUSTER_NAME, az.DESCRIBE_CONFIGS):
        return error_response(ctx, req, version, CLUSTER_AUTHORIZATION_FAILED)
    try:
        comps, strict = _filter(req)
    except QuotaRequestError as e:
        return R(error_code=e.code, error_message=e.message, entries=None)
    area = ctx.state.area(Quotas)
    # Entities in answer order (by repr, kept by the area while its entities stay the same) with their values:
    # the answer's entries are written from them here, under the cluster's lock, as they are now
    # (kadmin.protocol.rows_broker.response_written): no copy of the values, no 25,000 structs for 5,000 entities
    # (issue #28).
    items = area.answer_items()
    if comps or strict:
        rows = [item for item in items if item[1] and _matches(item[0], comps, strict)]
    else:
        rows = [item for item in items if item[1]]
    return response_written(R, rows, throttle_time_ms=0, error_code=NONE, error_message=None)


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    return response_class(API_KEY)(error_code=code, error_message=None, entries=None)


def keys(req: Any, version: int) -> tuple[str, ...]:
    kinds = {0: "", 1: "<default>", 2: "<any>"}
    return tuple(f"{c.entity_type}={c.match if c.match_type == 0 else kinds.get(c.match_type, '?')}"
                 for c in req.components)


register(API_KEY, handle=handle, error_response=error_response, keys=keys)
