"""The ``quotas`` kind: client quota keys per entity (user, client-id, ip), set, altered or removed.

The rows are the quota pipeline's own (:mod:`kadmin.spark.kinds.quotas.schema` formats,
:mod:`kadmin.spark.kinds.quotas.validate` rules, exact double equality), so a spec's quotas and
``provision_quotas`` can never disagree.  An entity's keys travel as one ``ClientQuotaAlteration`` (Kafka
applies an entity's ops together); quotas are sent last, so a quota never applies to a half-made tenant.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from kadmin.spark.kinds import Kind, Phase, Row, register
from kadmin.spark.kinds._sql import (
    Columns,
    Schema,
    frame,
    pick,
    read_kind,
    unreadable,
)
from kadmin.spark.kinds._sql import (
    deletions as _deletions,
)
from kadmin.spark.kinds._sql import (
    finish as _finish,
)
from kadmin.spark.kinds._sql import (
    hold_deletions as _hold_deletions,
)
from kadmin.spark.kinds.context import FAILED, ApplyContext, ExportContext, Item, PlanContext, error_text
from kadmin.spark.sqltext import sql_string

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from kadmin.client import AdminClient
    from kadmin.spark.spec import Scope

NAME = "quotas"
ENTITY_COLUMNS = ("user", "client_id", "ip")
#: Quotas have their own formats (long or wide: :mod:`kadmin.spark.kinds.quotas.schema`), checked when normalized.
COLUMNS: dict[str, bool] = {}
SCHEMA: Schema = (("user", "string"), ("client_id", "string"), ("ip", "string"), ("quota_key", "string"),
                  ("value", "double"), ("in_scope", "boolean"))


def read_quotas(admin: AdminClient, scope: Scope | None) -> Columns:
    """Every client quota (one DescribeClientQuotas, all entities); in scope: entities with a user whose
    principal ``User:<name>`` has a scope prefix (default-user and user-less entities never are)."""
    from kadmin.spark.kinds.quotas.diff import read_current

    base = read_current(admin, None)
    users = base["user"]
    base["in_scope"] = [u is not None and u != "<default>" and scope is not None
                        and scope.principal_in_scope("User:" + u) for u in users]
    base["value"] = base.pop("value")
    return base


EXPORT_SCHEMA: Schema = SCHEMA[:5]


def export(ctx: ExportContext) -> Columns:
    """Every quota key of every entity, long form (``<default>`` for a default entity); with principal prefixes
    in the scope, only entities whose user they cover (as deletions are scoped)."""
    from kadmin.spark.kinds.quotas.diff import read_current

    cols = read_current(ctx.admin, None)
    keep = [i for i, u in enumerate(cols["user"])
            if ctx.principal_wanted(None if u is None or u == "<default>" else "User:" + u)]
    return pick(cols, keep, EXPORT_SCHEMA)


def _entity_text(prefix: str = "") -> str:
    parts = [f"CASE WHEN {prefix}{c} IS NOT NULL THEN concat({sql_string(t + '=')}, {prefix}{c}) END"
             for c, t in (("user", "user"), ("client_id", "client-id"), ("ip", "ip"))]
    return f"concat_ws(',', {', '.join(parts)})"


def plan_quotas_kind(desired: DataFrame, current: DataFrame, *, remove_unlisted: bool,
                     allow_unknown_keys: bool = False,
                     checked: Callable[[DataFrame], DataFrame] | None = None) -> DataFrame:
    """Quota keys in the plan's shape, from the quota pipeline's own validation and diff (the ones
    ``provision_quotas`` runs: :func:`kadmin.spark.kinds.quotas.validate.validate`,
    :func:`kadmin.spark.kinds.quotas.diff.diff`, exact double equality): ``set`` becomes create (no current
    value) or alter, ``remove`` delete.  Deletions of unlisted keys are those of in-scope entities (a
    :class:`~kadmin.spark.spec.Scope` of principals)."""
    from kadmin.spark.kinds.quotas.diff import diff
    from kadmin.spark.kinds.quotas.schema import normalize
    from kadmin.spark.kinds.quotas.validate import validate

    v = validate(normalize(desired), allow_unknown_keys=allow_unknown_keys)
    if checked is not None:  # a policy's rules (kadmin.spark.policy), on the validated rows
        v = checked(v)
    key = f"concat({_entity_text()}, '/', coalesce(quota_key, '')) AS key"
    args = ("map_filter(map('user', user, 'client_id', client_id, 'ip', ip, 'quota_key', quota_key, "
            "'value', CAST({value} AS STRING)), (k, v) -> v IS NOT NULL)")
    rows = diff(v, current, remove_unlisted=False).selectExpr(
        key, "CASE WHEN action = 'set' AND old_value IS NULL THEN 'create' WHEN action = 'set' THEN 'alter' "
             "WHEN action = 'remove' THEN 'delete' ELSE action END AS action",
        "CAST(old_value AS STRING) AS old_value", "CAST(new_value AS STRING) AS new_value", "error",
        f"{args.format(value='new_value')} AS args")
    out = _finish(rows, "quotas")
    if remove_unlisted:
        d = v.selectExpr(key, "reason")
        cur = current.selectExpr(*ENTITY_COLUMNS, "quota_key", "value", "in_scope", key)
        gone = _deletions(cur, d.select("key"), "CAST(value AS STRING)", args.format(value="NULL"))
        out = out.unionByName(_hold_deletions(_finish(gone, "quotas"), d.filter("reason IS NOT NULL").selectExpr(
            "substring_index(key, '/', 1) AS _held"), "substring_index(key, '/', 1)", "quota entity"))
    return out


def plan(ctx: PlanContext) -> DataFrame:
    df = ctx.frame_of(NAME)
    assert df is not None
    cols, why = read_kind("client quotas", SCHEMA, lambda: read_quotas(ctx.admin, ctx.scope))
    part = plan_quotas_kind(df, frame(ctx.spark, cols, SCHEMA), remove_unlisted=ctx.deletes[NAME],
                            allow_unknown_keys=ctx.allow_unknown_keys, checked=lambda v: ctx.police(NAME, v))
    return unreadable(part, why)


def entity(args: dict[str, str]) -> Any:
    from kadmin.quotas import ClientQuotaEntity

    return ClientQuotaEntity({t: (None if args[c] == "<default>" else args[c])
                              for c, t in (("user", "user"), ("client_id", "client-id"), ("ip", "ip")) if c in args})


def items(ctx: ApplyContext, phase: Phase, rows: list[Row]) -> list[Item]:
    """One item per entity: its keys' operations together (rows come grouped by entity)."""
    from kadmin.quotas import ClientQuotaAlteration, Remove, Set

    keys = [(NAME, key) for key, _, _, _ in rows]
    entity_name = rows[0][0].split("/", 1)[0]
    try:
        ops = [Remove(a["quota_key"]) if a.get("value") is None else Set(a["quota_key"], float(a["value"]))
               for _, _, _, a in rows]
        alteration = ClientQuotaAlteration(entity(rows[0][3]), ops)
    except (TypeError, ValueError, KeyError) as exc:
        # A hand-edited or corrupt plan row ("abc", "-5"): this entity fails, the run goes on.
        ctx.out.done += len(keys)
        ctx.fail(phase, Item(keys, None, entity_name), FAILED, error_text(exc))
        return []
    return [Item(keys, alteration, entity_name)]


def alter(admin: AdminClient, alterations: list[Any], validate_only: bool, allow_unknown_keys: bool,
          batch_size: int) -> Mapping[Any, BaseException | None]:
    """One batch of alterations, the one call both quota paths send (a tenant plan's quotas phase and
    ``provision_quotas``' stream): one AlterClientQuotas per ``batch_size`` entities, the in-flight bound
    being the caller's (:class:`kadmin.spark.inflight.InFlight`)."""
    return admin.alter_client_quotas(alterations, validate_only=validate_only, allow_unknown_keys=allow_unknown_keys,
                                     batch_size=batch_size, max_concurrency=1)


def send(ctx: ApplyContext, batch: list[Item]) -> dict[str, BaseException | None]:
    res = alter(ctx.admin, [i.payload for i in batch], ctx.validate, ctx.allow_unknown_keys, ctx.batch_size)
    return {i.name: res.get(i.payload.entity) for i in batch}


KIND = register(Kind(
    name=NAME, order=5, columns=COLUMNS, plan=plan, items=items,
    export=export, export_schema=EXPORT_SCHEMA,
    phases=(Phase(NAME, ("create", "alter", "delete"), "quotas altered", 110, send),),
    group="substring_index(key, '/', 1)",
))
