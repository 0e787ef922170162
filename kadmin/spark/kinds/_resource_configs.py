"""What the ``group_configs`` and ``broker_configs`` kinds share: configs of a named config resource (a group, a
broker or the cluster-wide broker default) planned against DescribeConfigs and sent with IncrementalAlterConfigs.

Both kinds are long form (the resource, ``config``, ``value``; a null value removes the resource's own value) and
differ only in how the resource is named, which of its described entries are its own (a group's GROUP_CONFIG, a
broker's DYNAMIC_BROKER_CONFIG, the default's DYNAMIC_DEFAULT_BROKER_CONFIG) and what the cluster says about a
config before anything is sent (a group config it does not know; a broker config it reports read-only or
sensitive).  The cluster's answer is read into one *described* frame (every entry of every resource read, own or
not, so that a config name can be judged at plan time) and one *errors* frame (a resource the cluster would not
describe: its rows fail alone, with the reason, and the rest of the plan goes on).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from kadmin.spark.kinds import Phase, Row
from kadmin.spark.kinds._sql import (
    STATUS,
    Columns,
    Schema,
    dedupe,
    deletions,
    hold_deletions,
    reasons,
    union,
    when,
)
from kadmin.spark.kinds.context import ApplyContext, Item
from kadmin.spark.sqltext import sql_name, sql_string

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from kadmin.configs import ConfigResource

#: Every entry read: the resource (``entity``), the config, its value, whether it is the resource's own value,
#: what the cluster says about it, and whether ``remove_unlisted`` may delete it.
DESCRIBED: Schema = (("entity", "string"), ("config", "string"), ("value", "string"), ("own", "boolean"),
                     ("read_only", "boolean"), ("sensitive", "boolean"), ("in_scope", "boolean"))
#: A resource the cluster would not describe: why, and whether that is a failure (the cluster's answer) or a
#: rejection (the spec names something that is not there).
ERRORS: Schema = (("entity", "string"), ("why", "string"), ("failed", "boolean"))


def described_columns() -> Columns:
    return {name: [] for name, _ in DESCRIBED}


def add_entry(cols: Columns, entity: str, config: str, value: str | None, own: bool, read_only: bool,
              sensitive: bool, in_scope: bool) -> None:
    for name, v in zip(("entity", "config", "value", "own", "read_only", "sensitive", "in_scope"),
                       (entity, config, value, own, read_only, sensitive, in_scope), strict=True):
        cols[name].append(v)


def desired(df: DataFrame, column: str, entity_sql: str, entity_rules: list[str]) -> DataFrame:
    """entity, config, value (null: remove the resource's own value), reason, from the kind's frame;
    ``entity_sql`` normalizes the resource column (SQL over ``_raw``), ``entity_rules`` judge it (over
    ``entity``).  The same config of the same resource with two values is a conflict."""
    raw = df.selectExpr(f"CAST({sql_name(column)} AS STRING) AS _raw",
                        f"CAST({sql_name('config')} AS STRING) AS config",
                        f"CAST({sql_name('value')} AS STRING) AS value")
    rows = raw.selectExpr(f"{entity_sql} AS entity", "trim(config) AS config", "value")
    rules = [*entity_rules, when("config IS NULL OR config = ''", "'config name is empty'")]
    checked = rows.selectExpr("entity", "config", "value", f"{reasons(rules)} AS reason")
    return dedupe(checked, "entity, config", "coalesce(value, '\\u0000')", "reason")


def desired_entities(d: DataFrame) -> list[str]:
    """The resources the spec names (one small Spark job): the only ones described, besides those in scope."""
    return sorted(r[0] for r in d.filter("entity IS NOT NULL AND entity != ''").select("entity").distinct()
                  .collect())


def plan_rows(d: DataFrame | None, described: DataFrame, errors: DataFrame, *, kind: str, column: str,
              refuse: str, deleting: bool) -> DataFrame:
    """Per (resource, config): create / alter / delete / unchanged / reject, in the plan's columns.

    ``refuse`` is SQL over the joined row giving why the cluster would refuse the config (null: it would not).
    Deletions: the in-scope own values no desired row names, except for a resource with a rejected row (a typo
    never becomes a deletion)."""
    args = f"map_filter(map({sql_string(column)}, entity, 'config', config, 'value', value), (k, v) -> v IS NOT NULL)"
    pieces: list[DataFrame] = []
    keys = held = None
    if d is not None:
        j = _joined(d, described, errors).selectExpr("*", f"{refuse} AS _refused")
        keys = j.select("key")
        # A row the cluster refuses (a misspelt config name) holds its resource's deletions as a rejected one does.
        held = j.filter("reason IS NOT NULL OR _refused IS NOT NULL").selectExpr("entity AS _held")
        action = ("CASE WHEN reason IS NOT NULL OR e_why IS NOT NULL OR _refused IS NOT NULL THEN 'reject' "
                  "WHEN value IS NULL AND NOT _own THEN 'unchanged' WHEN value IS NULL THEN 'delete' "
                  "WHEN NOT _own THEN 'create' WHEN c_value <=> value THEN 'unchanged' ELSE 'alter' END")
        rows = j.selectExpr(
            "key", f"{action} AS action", "CASE WHEN _own THEN coalesce(c_value, '') END AS old_value",
            "value AS new_value", "coalesce(reason, e_why, _refused) AS error",
            "(reason IS NULL AND e_why IS NOT NULL AND e_failed) AS _failed", f"{args} AS args")
        pieces.append(_finish(rows, kind))
    if deleting:
        cur = described.filter("own").selectExpr("concat(entity, ':', config) AS key", "entity", "config",
                                                 "value", "in_scope")
        gone = deletions(cur, keys if keys is not None else cur.limit(0).select("key"), "coalesce(value, '')",
                         f"map({sql_string(column)}, entity, 'config', config)")
        gone = _finish(gone.selectExpr("*", "false AS _failed"), kind)
        if held is not None:
            gone = hold_deletions(gone, held, f"args[{sql_string(column)}]", column)
        pieces.append(gone)
    return union(pieces)


def _joined(d: DataFrame, described: DataFrame, errors: DataFrame) -> DataFrame:
    from pyspark.sql import functions as F

    c = described.selectExpr("entity AS c_entity", "config AS c_config", "value AS c_value", "own AS _c_own",
                             "read_only AS c_read_only", "sensitive AS c_sensitive")
    e = F.broadcast(errors.selectExpr("entity AS e_entity", "why AS e_why", "failed AS e_failed"))
    j = d.join(c, (d["entity"] == c["c_entity"]) & (d["config"] == c["c_config"]), "left") \
        .join(e, d["entity"] == e["e_entity"], "left")
    return j.selectExpr("*", "concat(coalesce(entity, ''), ':', coalesce(config, '')) AS key",
                       "coalesce(_c_own, false) AS _own")


def _finish(df: DataFrame, kind: str) -> DataFrame:
    """As :func:`kadmin.spark.kinds._sql.finish`, with ``_failed`` rows (a resource the cluster would not
    describe) as ``failed`` rather than ``rejected``: the spec is not wrong, the cluster could not answer."""
    return df.selectExpr(f"{sql_string(kind)} AS kind", "key", "action", "old_value", "new_value",
                         f"CASE WHEN _failed THEN 'failed' ELSE {STATUS} END AS status",
                         "CASE WHEN action = 'reject' THEN error END AS error", "args")


def make_items(kind: str, column: str) -> Callable[[ApplyContext, Phase, list[Row]], list[Item]]:
    """One item per resource: its configs' operations together (rows come grouped by resource)."""
    def items(ctx: ApplyContext, phase: Phase, rows: list[Row]) -> list[Item]:
        from kadmin.configs import DeleteConfig, SetConfig

        ops = [DeleteConfig(a["config"]) if act == "delete" or "value" not in a else SetConfig(a["config"], a["value"])
               for _, act, _, a in rows]
        return [Item([(kind, k) for k, _, _, _ in rows], ops, rows[0][3][column])]
    return items


def make_send(resource: Callable[[str], ConfigResource],
              ) -> Callable[[ApplyContext, list[Item]], dict[str, BaseException | None]]:
    """One IncrementalAlterConfigs call for a batch of resources (``resource``: an item's name to its
    ConfigResource), answered per item name."""
    def send(ctx: ApplyContext, batch: list[Item]) -> dict[str, BaseException | None]:
        names = {resource(i.name): i.name for i in batch}
        got = ctx.admin.alter_configs({r: i.payload for r, i in zip(names, batch, strict=True)},
                                      validate_only=ctx.validate)
        return {names[r]: e for r, e in got.items()}
    return send


__all__ = ["DESCRIBED", "ERRORS", "add_entry", "desired", "desired_entities", "described_columns", "make_items",
           "make_send", "plan_rows"]
