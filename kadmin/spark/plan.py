"""The tenant plan: per kind, the desired rows joined against the cluster's current state, in one DataFrame.

Plan columns (:data:`PLAN_COLUMNS`, schema :func:`plan_schema`):

``kind, key, action, old_value, new_value, status, error, args``

* ``kind``: ``scram_users`` | ``topics`` | ``topic_configs`` | ``acls`` | ``quotas``;
* ``key``: the entity, as text: a topic name; ``topic:config``; ``principal permission operation
  RESOURCE_TYPE:PATTERN:name @host`` for an ACL; ``user/SCRAM-SHA-256``; ``user=alice,client-id=app/key`` for
  a quota key;
* ``action``: ``create`` | ``alter`` | ``delete`` | ``reassign`` (a replication-factor change: a partition
  reassignment, never a re-creation) | ``unchanged`` | ``reject``;
* ``old_value`` / ``new_value``: what the cluster has and what the spec asks for, as text (never a secret:
  a SCRAM user shows its mechanism's iterations and the *name* of its password reference);
* ``status``: ``planned`` for changes, ``unchanged``, ``rejected`` (``error`` says why);
* ``args``: a map of strings holding what applying the row needs, so that a plan saved to Parquet or JSON
  and read back can be applied unchanged (:func:`kadmin.spark.apply.apply_plan`).

What is decided where: the rules that make a row invalid are SQL expressions evaluated in Spark (a rejected
row never stops the valid ones, and every row says all that is wrong with it); the cluster's state comes from
:mod:`kadmin.spark.kinds` (one module per kind: its columns, its state, its diff); the join is a plain left
join, and deletions (only with ``remove_unlisted`` and only of entities the :class:`~kadmin.spark.spec.Scope`
covers) are the in-scope current entities *anti-joined* against every desired key, rejected rows included;
and since a typo in a key field (a mechanism, an operation) makes a key that names nothing, no entity of an
owner (a SCRAM user, an ACL principal, a topic's configs, a quota entity) with a rejected row is deleted:
those deletions are ``skipped`` with the reason, so a typo never becomes a deletion.

This module is generic: it plans each kind of the spec in the registry's order (owners before the kinds that
depend on them) and then skips the dependents of rejected or failed owners (:func:`_skip_dependents`).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from kadmin.spark.kinds import Kind, kinds
from kadmin.spark.kinds._sql import CHANGES, PLANNED, REJECTED, UNCHANGED, skip_dependents, union
from kadmin.spark.kinds.context import PlanContext
from kadmin.spark.spec import Scope, SpecError, TenantSpec

if TYPE_CHECKING:
    from pyspark.sql import DataFrame
    from pyspark.sql.types import StructType

    from kadmin.client import AdminClient
    from kadmin.spark.policy import Policy

log = logging.getLogger("kadmin.spark")

PLAN_COLUMNS: tuple[str, ...] = ("kind", "key", "action", "old_value", "new_value", "status", "error", "args")


def plan_schema() -> StructType:
    from pyspark.sql.types import MapType, StringType, StructField, StructType

    return StructType([
        *(StructField(c, StringType(), c not in ("kind", "key", "action", "status")) for c in PLAN_COLUMNS[:7]),
        StructField("args", MapType(StringType(), StringType(), True), True),
    ])


def build_plan(spec: TenantSpec, admin: AdminClient, *, scope: Scope | None, remove_unlisted: bool,
               allow_unknown_keys: bool = False, policy: Policy | None = None) -> DataFrame:
    """The plan of every kind the spec holds, one DataFrame (lazy except for the cluster reads and, when the
    cluster has topics, one small job collecting the desired topic names, whose state is the only one read
    selectively)."""
    spec.check()
    if remove_unlisted and scope is None:
        raise SpecError("remove_unlisted needs an explicit scope (topic and/or principal prefixes): deletions "
                        "happen only inside it")
    names = spec.kinds()
    ctx = PlanContext(spec, admin, scope, spec.session(), names,
                      {k: remove_unlisted and scope is not None and scope.allows(k) for k in names},
                      allow_unknown_keys, policy=policy)
    for k in kinds():
        if k.name in names:
            ctx.parts[k.name] = _skip_dependents(k, k.plan(ctx), ctx)
    return union(ctx.parts[k] for k in names if k in ctx.parts)


def _skip_dependents(k: Kind, part: DataFrame, ctx: PlanContext) -> DataFrame:
    """``part`` with the rows whose owner (an earlier kind's entity) was rejected or could not be planned as
    ``skipped``, with the owner's reason."""
    from kadmin.spark.kinds import kind

    for owner in k.owners:
        owner_kind = kind(owner.kind)
        owner_part = ctx.parts.get(owner.kind)
        blocks = owner_kind.blocks_sql(ctx) if owner_kind.blocks_sql is not None else None
        if owner_part is None or blocks is None or owner_kind.owner_sql is None:
            continue
        blocked = owner_part.filter(blocks).selectExpr(
            f"{owner_kind.owner_sql} AS _dep", f"{owner_kind.blocks_why_sql} AS _why")
        part = skip_dependents(part, blocked, owner.name_sql, owner.what, owner.actions)
    return part


__all__ = ["CHANGES", "PLANNED", "PLAN_COLUMNS", "REJECTED", "UNCHANGED", "build_plan", "plan_schema"]
