"""The ``acls`` kind: ACL bindings granted or revoked, one row per binding.

A binding has no value to alter: a changed binding is a new binding plus the deletion of the old one.  A grant
depends on its SCRAM user (``User:<name>``) and on its literal topic: if either is rejected or fails, the grant
is ``skipped`` with the reason (no dangling grant for a later user or topic of that name to inherit).  A
revocation that does not succeed holds the deletion of the user or literal topic it names, for the same reason.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from kadmin.spark.kinds import Kind, Owner, Phase, Row, register
from kadmin.spark.kinds._sql import (
    Columns,
    Schema,
    column_or,
    frame,
    pick,
    read_kind,
    unreadable,
)
from kadmin.spark.kinds._sql import (
    deletions as _deletions,
)
from kadmin.spark.kinds._sql import (
    enum as _enum,
)
from kadmin.spark.kinds._sql import (
    finish as _finish,
)
from kadmin.spark.kinds._sql import (
    hold_deletions as _hold_deletions,
)
from kadmin.spark.kinds._sql import (
    is_in as _in,
)
from kadmin.spark.kinds._sql import (
    reasons as _reasons,
)
from kadmin.spark.kinds._sql import (
    when as _when,
)
from kadmin.spark.kinds.context import ApplyContext, ExportContext, Item, PlanContext, all_ok, one_per_row
from kadmin.spark.sqltext import sql_name, sql_string

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from kadmin.client import AdminClient
    from kadmin.spark.spec import Scope

log = logging.getLogger("kadmin.spark")

NAME = "acls"
COLUMNS = {"principal": True, "host": False, "operation": True, "permission": False, "resource_type": True,
           "resource_name": True, "pattern_type": False}
SCHEMA: Schema = tuple((c, "string") for c in COLUMNS) + (("in_scope", "boolean"),)
#: SQL over an ACL plan row: the SCRAM user it grants to, and the literal topic it grants on.
USER_SQL = "CASE WHEN args['principal'] LIKE 'User:%' THEN substring(args['principal'], 6) END"
TOPIC_SQL = ("CASE WHEN args['resource_type'] = 'TOPIC' AND args['pattern_type'] = 'LITERAL' "
             "THEN args['resource_name'] END")


def read_acls(admin: AdminClient, scope: Scope | None) -> Columns:
    """Every binding on the cluster (one DescribeAcls), names as Kafka's enum names."""
    listing = admin.describe_acls()
    cols: Columns = {n: [] for n, _ in SCHEMA}
    for b in listing:
        p, e = b.pattern, b.entry
        cols["principal"].append(e.principal)
        cols["host"].append(e.host)
        cols["operation"].append(e.operation.name)
        cols["permission"].append(e.permission.name)
        cols["resource_type"].append(p.resource_type.name)
        cols["resource_name"].append(p.name)
        cols["pattern_type"].append(p.pattern_type.name)
        cols["in_scope"].append(scope is not None and scope.principal_in_scope(e.principal))
    log.info("read %d ACL binding(s)", len(cols["principal"]))
    return cols


EXPORT_SCHEMA: Schema = tuple((c, "string") for c in COLUMNS)


def export(ctx: ExportContext) -> Columns:
    """Every binding (of the scope's principals), with every column written out (no default left implied)."""
    cols = read_acls(ctx.admin, None)
    keep = [i for i, p in enumerate(cols["principal"]) if ctx.principal_wanted(p)]
    return pick(cols, keep, EXPORT_SCHEMA)


def acl_key(principal: str, host: str, op: str, perm: str, rt: str, name: str, pt: str) -> str:
    return (f"concat({principal}, ' ', {perm}, ' ', {op}, ' ', {rt}, ':', {pt}, ':', {name}, ' @', {host})")


def desired_acls(df: DataFrame, keep: tuple[str, ...] = ()) -> DataFrame:
    """The spec's bindings in Kafka's spelling, with their key and the reasons a row is refused; ``keep``:
    columns of ``df`` carried through (the role a binding comes from, :mod:`kadmin.spark.kinds.acl_roles`)."""
    from kadmin.acls import VALID_OPERATIONS, AclOperation, ResourceType

    cols = {
        "principal": f"CAST({sql_name('principal')} AS STRING)",
        "host": column_or(df, "host", "CAST(NULL AS STRING)"),
        "operation": _enum(f"CAST({sql_name('operation')} AS STRING)"),
        "permission": _enum(column_or(df, "permission", "CAST(NULL AS STRING)")),
        "resource_type": _enum(f"CAST({sql_name('resource_type')} AS STRING)"),
        "resource_name": f"CAST({sql_name('resource_name')} AS STRING)",
        "pattern_type": _enum(column_or(df, "pattern_type", "CAST(NULL AS STRING)")),
    }
    base = df.selectExpr(
        f"{cols['principal']} AS principal", f"coalesce({cols['host']}, '*') AS host",
        f"{cols['operation']} AS operation", f"coalesce({cols['permission']}, 'ALLOW') AS permission",
        f"{cols['resource_type']} AS resource_type", f"{cols['resource_name']} AS resource_name",
        f"coalesce({cols['pattern_type']}, 'LITERAL') AS pattern_type", *map(sql_name, keep))
    types = [t.name for t in ResourceType if t not in (ResourceType.ANY, ResourceType.UNKNOWN)]
    ops = [o.name for o in AclOperation if o not in (AclOperation.ANY, AclOperation.UNKNOWN)]
    valid_pairs = " OR ".join(
        f"(resource_type = {sql_string(rt.name)} AND {_in('operation', [o.name for o in valid])})"
        for rt, valid in VALID_OPERATIONS.items())
    q = sql_string("'")
    rules = [
        _when("principal IS NULL OR principal = ''", "'principal is empty'"),
        _when("principal != '' AND NOT principal RLIKE '^[^:]+:.+$'",
              f"concat('principal ', {q}, principal, {q}, ' is not of the form Type:name (e.g. User:alice)')"),
        _when("host = ''", "'host is empty (use * for any host)'"),
        _when(f"operation IS NULL OR NOT {_in('operation', ops)}",
              f"concat('unknown operation ', {q}, coalesce(operation, ''), {q})"),
        _when("NOT permission IN ('ALLOW', 'DENY')", f"concat('permission must be ALLOW or DENY, not ', {q}, "
                                                     f"permission, {q})"),
        _when(f"resource_type IS NULL OR NOT {_in('resource_type', types)}",
              f"concat('unknown resource type ', {q}, coalesce(resource_type, ''), {q})"),
        _when("NOT pattern_type IN ('LITERAL', 'PREFIXED')",
              f"concat('pattern_type must be LITERAL or PREFIXED, not ', {q}, pattern_type, {q})"),
        _when("resource_name IS NULL OR resource_name = ''", "'resource_name is empty'"),
        _when("resource_type = 'CLUSTER' AND resource_name != 'kafka-cluster'",
              "'the CLUSTER resource is named kafka-cluster'"),
        _when(f"{_in('resource_type', types)} AND {_in('operation', ops)} AND NOT ({valid_pairs})",
              "concat('operation ', operation, ' does not apply to ', resource_type, ' resources')"),
    ]
    key = acl_key(*(f"coalesce({c}, '')" for c in ("principal", "host", "operation", "permission",
                                                     "resource_type", "resource_name", "pattern_type")))
    return base.selectExpr("*", f"{key} AS key", f"{_reasons(rules)} AS reason").dropDuplicates(["key"])


def plan_acls(desired: DataFrame, current: DataFrame, *, remove_unlisted: bool,
              kept: tuple[DataFrame, DataFrame] | None = None) -> DataFrame:
    """create / unchanged / reject per binding, and deletions of in-scope bindings the spec does not list.
    A binding has no value to alter: a changed binding is a new binding plus the deletion of the old one.
    ``kept``: (keys, principals) that other rows of the spec want (the bindings its roles produce, and the
    principals with a rejected role row): never deleted as unlisted."""
    fields = ("principal", "host", "operation", "permission", "resource_type", "resource_name", "pattern_type")
    cur = current.selectExpr(f"{acl_key(*fields)} AS key", *fields, "in_scope")
    c = cur.selectExpr("key AS c_key")
    j = desired.join(c, desired["key"] == c["c_key"], "left")
    args = "map(" + ", ".join(f"{sql_string(f)}, {f}" for f in fields) + ")"
    rows = j.selectExpr("key", "CASE WHEN reason IS NOT NULL THEN 'reject' WHEN c_key IS NULL THEN 'create' "
                               "ELSE 'unchanged' END AS action",
                        "CASE WHEN c_key IS NOT NULL THEN 'present' END AS old_value", "'present' AS new_value",
                        "reason AS error", f"{args} AS args")
    out = _finish(rows, "acls")
    if remove_unlisted:
        keys, held = desired.select("key"), desired.filter("reason IS NOT NULL").selectExpr("principal AS _held")
        if kept is not None:
            keys, held = keys.unionByName(kept[0]), held.unionByName(kept[1])
        gone = _finish(_deletions(cur, keys, "'present'", args), "acls")
        out = out.unionByName(_hold_deletions(gone, held, "args['principal']", "principal"))
    return out


def current_acls(ctx: PlanContext) -> tuple[DataFrame, str | None]:
    """The cluster's bindings as a frame (and why they could not be read), read once for the two kinds that
    diff against them (this one and ``acl_roles``)."""
    got: tuple[DataFrame, str | None] | None = ctx.shared.get(NAME)
    if got is None:
        cols, why = read_kind("ACLs", SCHEMA, lambda: read_acls(ctx.admin, ctx.scope))
        got = ctx.shared[NAME] = (frame(ctx.spark, cols, SCHEMA), why)
    return got


def plan(ctx: PlanContext) -> DataFrame:
    from kadmin.spark.kinds.acl_roles import wanted_by_roles

    df = ctx.frame_of(NAME)
    assert df is not None
    current, why = current_acls(ctx)
    part = plan_acls(ctx.police(NAME, desired_acls(df)), current, remove_unlisted=ctx.deletes[NAME],
                     kept=wanted_by_roles(ctx))
    return unreadable(part, why)


def user_of(principal: str) -> str | None:
    kind, _, name = principal.partition(":")
    return name if kind == "User" else None


def _literal_topic(a: dict[str, str]) -> str | None:
    return a.get("resource_name") if a.get("resource_type") == "TOPIC" and a.get("pattern_type") == "LITERAL" \
        else None


def _binding(args: dict[str, str]) -> Any:
    from kadmin.acls import AclBinding

    return AclBinding.of(args["resource_type"], args["resource_name"], args["principal"], args["operation"],
                         args["permission"], pattern_type=args["pattern_type"], host=args["host"])


def items(ctx: ApplyContext, phase: Phase, rows: list[Row]) -> list[Item]:
    def build(key: str, action: str, a: dict[str, str]) -> tuple[Any, str]:
        binding = _binding(a)
        return binding, str(binding)

    return one_per_row(ctx, phase, rows, build, lambda key, a: key)


def _grant(ctx: ApplyContext, batch: list[Item]) -> dict[str, BaseException | None]:
    if ctx.validate:
        return all_ok(batch)
    res = ctx.admin.create_acls([i.payload for i in batch], batch_size=ctx.batch_size, max_concurrency=1)
    return {str(b): e for b, e in res.items()}


def _revoke(ctx: ApplyContext, batch: list[Item]) -> dict[str, BaseException | None]:
    if ctx.validate:
        return all_ok(batch)
    dres = ctx.admin.delete_acls([i.payload.to_filter() for i in batch], batch_size=ctx.batch_size,
                                 max_concurrency=1)
    return {str(i.name): (r if isinstance(r, BaseException) else None)
            for i, r in zip(batch, dres.values(), strict=True)}


def on_failure(ctx: ApplyContext, phase: Phase, item: Item, status: str, error: str) -> None:
    """A revocation that failed or may not have happened holds the deletion of its user and literal topic."""
    if phase.actions != ("delete",) or item.payload is None:
        return
    b = item.payload
    why = f"revoking {b} did not succeed ({status}: {error})"
    user = user_of(b.entry.principal)
    if user is not None:
        ctx.out.held.setdefault(("scram_users", user), why)
    if b.pattern.resource_type.name == "TOPIC" and b.pattern.pattern_type.name == "LITERAL":
        ctx.out.held.setdefault(("topics", b.pattern.name), why)


KIND = register(Kind(
    name=NAME, order=3, columns=COLUMNS, plan=plan, items=items,
    export=export, export_schema=EXPORT_SCHEMA,
    phases=(Phase(NAME, ("create",), "ACLs granted", 60, _grant),
            Phase(NAME, ("delete",), "ACLs revoked", 70, _revoke)),
    owners=(Owner("scram_users", USER_SQL, lambda a: user_of(a.get("principal", "")), "SCRAM user "),
            Owner("topics", TOPIC_SQL, _literal_topic, "topic ")),
    on_failure=on_failure,
))
