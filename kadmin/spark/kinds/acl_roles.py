"""The ``acl_roles`` kind: ACL bindings derived from roles, as kafka-acls.sh's ``--producer`` / ``--consumer``
make them.

One spec row is one such command: ``principal`` (``User:svc-x``), ``role`` (``producer`` or ``consumer``),
``topic`` (a name, or with ``pattern_type`` PREFIXED a prefix), ``pattern_type`` (LITERAL, the default, or
PREFIXED: for the row's topic, group and transactional id, as ``--resource-pattern-type``), ``group``
(consumer: the group it reads as, required), ``transactional_id`` (producer, optional), ``idempotent``
(producer, optional: ``true``/``false``) and ``host`` (default ``*``).  A service that produces and consumes
has two rows (which may name different topics).

**Expansion.**  A row becomes exactly the bindings of the one table of :mod:`kadmin.acl_roles` (which the CLI's
shortcuts read too), built into Spark SQL here: producer WRITE, DESCRIBE, CREATE on the topic, WRITE and
DESCRIBE on the transactional id, IDEMPOTENT_WRITE on the cluster when idempotent; consumer READ and DESCRIBE on
the topic, READ on the group.  Every binding is ALLOW.

**Plan.**  Each binding is its own plan row of this kind, keyed as an ``acls`` row
(``principal ALLOW operation RESOURCE_TYPE:PATTERN:name @host``), whose ``new_value`` names the role row(s) it
comes from (``present (role User:svc-x producer topic=t- prefixed)``); the bindings are checked by the acls
kind's rules and diffed against the same DescribeAcls (read once for both kinds).  A row that is wrong as a role
(an unknown role, a consumer without a group, a producer with a group...) is one ``reject`` row keyed by that
description.  Two role rows producing one binding make one row naming both.

**A binding an ``acls`` row lists too** is one binding, not a conflict: it is planned, sent and reported once,
as that ``acls`` row (what the spec says explicitly); the role's rows are the bindings no ``acls`` row lists.

**Deletions** (``remove_unlisted`` with a scope whose principals cover the binding and whose kinds allow this
kind): an in-scope binding that neither the roles nor the ``acls`` rows produce is revoked, once: by the acls
kind when it deletes too, else by this one.  Neither kind deletes a binding the other's rows want, and no
binding of a principal with a rejected role row is deleted (a typo never becomes a revocation).

**Apply.**  The acls kind's items and calls (CreateAcls / DeleteAcls, ``batch_size`` per request), in phases
right after the acls' own: grants after its grants, revocations after its revocations.  Owners as acls: a role
of a SCRAM user that is rejected or fails is ``skipped`` (no dangling grant), and so is a binding on a literal
topic whose creation fails.

**Export.**  None: a role cannot be recovered from bindings reliably (a DESCRIBE on a topic is a producer's and
a consumer's; bindings of a role may have been granted one by one), so an export writes every binding as a
plain ``acls`` row, which plans the same state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kadmin.spark.kinds import Kind, Phase, register
from kadmin.spark.kinds import acls as _acls
from kadmin.spark.kinds._sql import column_or, unreadable
from kadmin.spark.kinds._sql import deletions as _deletions
from kadmin.spark.kinds._sql import enum as _enum
from kadmin.spark.kinds._sql import finish as _finish
from kadmin.spark.kinds._sql import hold_deletions as _hold_deletions
from kadmin.spark.kinds._sql import reasons as _reasons
from kadmin.spark.kinds._sql import when as _when
from kadmin.spark.kinds.context import PlanContext
from kadmin.spark.sqltext import sql_name, sql_string

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

NAME = "acl_roles"
COLUMNS = {"principal": True, "role": True, "topic": True, "pattern_type": False, "group": False,
           "transactional_id": False, "idempotent": False, "host": False}
_FIELDS = ("principal", "host", "operation", "permission", "resource_type", "resource_name", "pattern_type")
_TRUE, _FALSE = ("true", "yes", "1"), ("false", "no", "0")


def _cell(df: DataFrame, name: str) -> str:
    """An optional text column, trimmed, empty as null (kafka-acls.sh trims its resource names too)."""
    return f"nullif(trim({column_or(df, name, 'CAST(NULL AS STRING)')}), '')"


def _normalized(df: DataFrame) -> DataFrame:
    """The rows in one spelling: role lower case, pattern type as Kafka names it, idempotent as a boolean (null
    when not one of the words), and the row's label: how the plan names it."""
    idem = f"lower({_cell(df, 'idempotent')})"
    base = df.selectExpr(
        f"CAST({sql_name('principal')} AS STRING) AS principal", f"lower({_cell(df, 'role')}) AS role",
        f"{_cell(df, 'topic')} AS topic", f"{_cell(df, 'group')} AS grp",
        f"{_cell(df, 'transactional_id')} AS txn", f"{idem} AS _idem_text",
        f"CASE WHEN {idem} IS NULL OR {idem} IN {_words(_FALSE)} THEN false WHEN {idem} IN {_words(_TRUE)} "
        "THEN true END AS idem",
        f"coalesce({_enum(_cell(df, 'pattern_type'))}, 'LITERAL') AS pattern_type",
        f"coalesce({column_or(df, 'host', 'CAST(NULL AS STRING)')}, '*') AS host")
    label = ("concat_ws(' ', coalesce(principal, ''), coalesce(role, '(no role)'), concat('topic=', topic), "
             "concat('group=', grp), concat('transactional_id=', txn), CASE WHEN idem THEN 'idempotent' END, "
             "CASE WHEN pattern_type != 'LITERAL' THEN lower(pattern_type) END, "
             "CASE WHEN host != '*' THEN concat('host=', host) END)")
    return base.selectExpr("*", f"{label} AS role_label")


def _words(words: tuple[str, ...]) -> str:
    return "(" + ", ".join(map(sql_string, words)) + ")"


def _role_reasons() -> str:
    """What makes a row wrong as a role (the CLI refuses the same combinations of its flags)."""
    from kadmin.acl_roles import CONSUMER, PRODUCER

    p, c, q = sql_string(PRODUCER), sql_string(CONSUMER), sql_string("'")
    return _reasons([
        _when(f"role IS NULL OR NOT role IN ({p}, {c})",
              f"concat('unknown role ', {q}, coalesce(role, ''), {q}, ' (producer or consumer)')"),
        _when("topic IS NULL",
              "'topic is empty (the topic, or with pattern_type PREFIXED the prefix, the role is on)'"),
        _when(f"role = {c} AND grp IS NULL", "'a consumer role needs a group (the consumer group it reads as)'"),
        _when(f"role = {p} AND grp IS NOT NULL", "'group goes with a consumer role, not a producer'"),
        _when(f"role = {c} AND txn IS NOT NULL", "'transactional_id goes with a producer role, not a consumer'"),
        _when(f"role = {c} AND idem", "'idempotent goes with a producer role, not a consumer'"),
        _when("idem IS NULL", f"concat('idempotent must be true or false, not ', {q}, _idem_text, {q})"),
        _when("NOT pattern_type IN ('LITERAL', 'PREFIXED')",
              f"concat('pattern_type must be LITERAL or PREFIXED, not ', {q}, pattern_type, {q})"),
    ])


def _grants_sql() -> str:
    """The row's bindings (resource_type, resource_name, pattern_type, operation) as an array, from the table
    of :mod:`kadmin.acl_roles`: one struct per (role, resource type, operation), kept when the row is that
    role and names that resource."""
    from kadmin.acl_roles import IDEMPOTENT_GRANT, PRODUCER, ROLE_OPERATIONS
    from kadmin.acls import ResourceType

    column = {ResourceType.TOPIC: "topic", ResourceType.GROUP: "grp", ResourceType.TRANSACTIONAL_ID: "txn"}

    def grant(keep: str, rt: str, name: str, pattern: str, op: str) -> str:
        return (f"named_struct('keep', {keep}, 'resource_type', {sql_string(rt)}, 'resource_name', {name}, "
                f"'pattern_type', {pattern}, 'operation', {sql_string(op)})")

    structs = [grant(f"role = {sql_string(role)} AND {column[rt]} IS NOT NULL", rt.name, column[rt],
                     "pattern_type", op.name)
               for (role, rt), ops in ROLE_OPERATIONS.items() for op in ops]
    rt, cluster, op = IDEMPOTENT_GRANT
    structs.append(grant(f"role = {sql_string(PRODUCER)} AND idem", rt.name, sql_string(cluster), "'LITERAL'",
                         op.name))
    return f"filter(array({', '.join(structs)}), g -> g.keep)"


def expand(df: DataFrame) -> tuple[DataFrame, DataFrame]:
    """(the bindings the valid rows produce, as :func:`kadmin.spark.kinds.acls.desired_acls` gives them plus
    ``role``: the labels of the rows producing each; the rows refused as roles, with ``role_label``,
    ``principal`` and ``reason``)."""
    rows = _normalized(df).selectExpr("*", f"{_role_reasons()} AS reason")
    refused = rows.filter("reason IS NOT NULL").selectExpr("role_label", "principal", "reason").dropDuplicates(
        ["role_label"])
    grants = rows.filter("reason IS NULL").selectExpr(
        "principal", "host", "role_label", f"explode({_grants_sql()}) AS g").selectExpr(
        "principal", "host", "g.operation AS operation", "'ALLOW' AS permission",
        "g.resource_type AS resource_type", "g.resource_name AS resource_name", "g.pattern_type AS pattern_type",
        "role_label")
    from pyspark.sql import functions as F

    merged = grants.groupBy(*_FIELDS).agg(F.array_join(F.array_sort(F.collect_set("role_label")), "; ").alias("role"))
    return _acls.desired_acls(merged, keep=("role",)), refused


def _spec(ctx: PlanContext) -> tuple[DataFrame, DataFrame] | None:
    """This kind's expansion of the spec, made once per plan (both kinds use it)."""
    df = ctx.frame_of(NAME)
    if df is None:
        return None
    got: tuple[DataFrame, DataFrame] | None = ctx.shared.get(NAME)
    if got is None:
        bindings, refused = expand(df)
        # The expanded bindings answer to the policy's ACL rules as an acls row would (no role grants what a
        # tenant may not be granted directly).
        got = ctx.shared[NAME] = (ctx.police(_acls.NAME, bindings), refused)
    return got


def wanted_by_roles(ctx: PlanContext) -> tuple[DataFrame, DataFrame] | None:
    """For the acls kind's deletions: (the keys of every binding the roles produce, rejected ones included;
    the principals of rows refused as roles or bindings, as ``_held``), or None without roles in the spec."""
    got = _spec(ctx)
    if got is None:
        return None
    bindings, refused = got
    held = refused.selectExpr("principal AS _held").unionByName(
        bindings.filter("reason IS NOT NULL").selectExpr("principal AS _held"))
    return bindings.select("key"), held


def plan(ctx: PlanContext) -> DataFrame:
    """create / unchanged / reject per binding of the roles (those no acls row lists), a reject row per row
    refused as a role, and the revocations this kind makes (see the module docstring)."""
    got = _spec(ctx)
    assert got is not None
    bindings, refused = got
    acls_df = ctx.frame_of(_acls.NAME)
    listed = _acls.desired_acls(acls_df) if acls_df is not None else None
    own = bindings if listed is None else bindings.join(listed.select("key"), on="key", how="left_anti")
    current, why = _acls.current_acls(ctx)
    cur = current.selectExpr(f"{_acls.acl_key(*_FIELDS)} AS key", *_FIELDS, "in_scope")
    rows = _binding_rows(own, cur).unionByName(_finish(refused.selectExpr(
        "role_label AS key", "'reject' AS action", "CAST(NULL AS STRING) AS old_value", "role_label AS new_value",
        "reason AS error", "map('principal', principal, 'role', role_label) AS args"), NAME))
    if ctx.deletes.get(NAME) and not ctx.deletes.get(_acls.NAME):
        wanted = wanted_by_roles(ctx)
        assert wanted is not None
        rows = rows.unionByName(_revocations(cur, wanted, listed))
    return unreadable(rows, why)


def _binding_rows(own: DataFrame, cur: DataFrame) -> DataFrame:
    c = cur.selectExpr("key AS c_key")
    j = own.join(c, own["key"] == c["c_key"], "left")
    args = "map(" + ", ".join(f"{sql_string(f)}, {f}" for f in (*_FIELDS, "role")) + ")"
    return _finish(j.selectExpr(
        "key", "CASE WHEN reason IS NOT NULL THEN 'reject' WHEN c_key IS NULL THEN 'create' ELSE 'unchanged' END "
               "AS action",
        "CASE WHEN c_key IS NOT NULL THEN 'present' END AS old_value",
        "concat('present (role ', role, ')') AS new_value",
        "reason AS error", f"{args} AS args"), NAME)


def _revocations(cur: DataFrame, wanted: tuple[DataFrame, DataFrame], listed: DataFrame | None) -> DataFrame:
    """In-scope bindings neither the roles nor the acls rows produce, as ``delete`` rows; those of a principal
    with a rejected row (of either kind) ``skipped``."""
    keys, held = wanted
    if listed is not None:
        keys = keys.unionByName(listed.select("key"))
        held = held.unionByName(listed.filter("reason IS NOT NULL").selectExpr("principal AS _held"))
    args = "map(" + ", ".join(f"{sql_string(f)}, {f}" for f in _FIELDS) + ")"
    gone = _finish(_deletions(cur, keys, "'present'", args), NAME)
    return _hold_deletions(gone, held, "args['principal']", "principal")


_SENDS = {p.actions: p.send for p in _acls.KIND.phases}

KIND = register(Kind(
    name=NAME, order=10, columns=COLUMNS, plan=plan, items=_acls.items,
    # right after the acls kind's own grants and revocations, with its calls: a binding one kind replaces by
    # another's never leaves a gap (every grant goes before any revocation)
    phases=(Phase(NAME, ("create",), "ACLs granted (roles)", 61, _SENDS[("create",)]),
            Phase(NAME, ("delete",), "ACLs revoked (roles)", 71, _SENDS[("delete",)])),
    owners=_acls.KIND.owners, on_failure=_acls.on_failure,
))


__all__ = ["COLUMNS", "NAME", "expand", "plan", "wanted_by_roles"]
