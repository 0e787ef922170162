"""The ``topics`` kind: topics created, grown (partitions), reassigned (replication factor) or deleted.

Topics are owners: a topic whose creation fails skips the configs, grants and offset resets that need it;
their state (which topics exist, with how many partitions) is read once and shared with ``topic_configs``
(:func:`topic_state`).  A replication-factor change is a partition reassignment, never a re-creation.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kadmin.errors import KafkaError
from kadmin.spark.kinds import Kind, Phase, Row, register
from kadmin.spark.kinds._sql import (
    _MAX_INT16,
    _MAX_INT32,
    Columns,
    Schema,
    configs_column,
    frame,
    int_column,
    pick,
    read_kind,
    unreadable,
)
from kadmin.spark.kinds._sql import (
    dedupe as _dedupe,
)
from kadmin.spark.kinds._sql import (
    deletions as _deletions,
)
from kadmin.spark.kinds._sql import (
    finish as _finish,
)
from kadmin.spark.kinds._sql import (
    int_rules as _int_rules,
)
from kadmin.spark.kinds._sql import (
    reasons as _reasons,
)
from kadmin.spark.kinds._sql import (
    topic_name_rules as _topic_name_rules,
)
from kadmin.spark.kinds._sql import (
    when as _when,
)
from kadmin.spark.kinds.context import (
    POSSIBLY_APPLIED,
    ApplyContext,
    ExportContext,
    Item,
    PlanContext,
    all_ok,
    one_per_row,
)
from kadmin.spark.kinds.context import (
    int_or_none as _int,
)
from kadmin.spark.sqltext import sql_name

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from kadmin.client import AdminClient
    from kadmin.spark.spec import Scope

log = logging.getLogger("kadmin.spark")

NAME = "topics"
COLUMNS = {"name": True, "partitions": False, "replication_factor": False, "configs": False}
SCHEMA: Schema = (("name", "string"), ("partitions", "bigint"), ("replication_factor", "bigint"),
                  ("in_scope", "boolean"))


def read_topics(admin: AdminClient, desired: Callable[[], set[str]], scope: Scope | None,
                ) -> tuple[Columns, list[str]]:
    """Existing topics that the spec names or the scope covers: name, partitions, replication factor.

    ``desired`` gives the names the spec holds; it is called (a Spark job) only when the cluster has topics,
    so planning against an empty cluster costs no job for it.  Returns the columns and the existing topic
    names described (whose configs are read next)."""
    from kadmin.errors import KafkaError, UnknownTopicOrPartitionError

    listed = admin.list_topics()
    names = desired() if listed else set()
    wanted = sorted(t.name for t in listed
                    if t.name in names or (scope is not None and scope.topic_in_scope(t.name)))
    described = admin.describe_topics(wanted) if wanted else {}
    cols: Columns = {"name": [], "partitions": [], "replication_factor": [], "in_scope": []}
    present: list[str] = []
    for name in wanted:
        d = described.get(name)
        if isinstance(d, UnknownTopicOrPartitionError) or d is None:
            continue  # deleted between the listing and the description: it does not exist
        if isinstance(d, KafkaError):
            raise d
        cols["name"].append(name)
        cols["partitions"].append(len(d.partitions))
        cols["replication_factor"].append(d.replication_factor)
        cols["in_scope"].append(scope is not None and scope.topic_in_scope(name))
        present.append(name)
    log.info("read %d existing topic(s) of %d on the cluster", len(present), len(listed))
    return cols, present


EXPORT_SCHEMA: Schema = (("name", "string"), ("partitions", "bigint"), ("replication_factor", "bigint"))


def exported_topics(ctx: ExportContext) -> tuple[Columns, list[str]]:
    """The topics an export covers (every non-internal topic, or those of the scope's topic prefixes), read
    once (:func:`read_topics`, the plan's own read) for ``topics`` and ``topic_configs``."""
    if NAME not in ctx.shared:
        from kadmin.spark.spec import Scope

        prefixes = ctx.scope.topics if ctx.scope is not None and ctx.scope.topics else ("",)
        ctx.shared[NAME] = read_topics(ctx.admin, set, Scope(topics=prefixes))
    got: tuple[Columns, list[str]] = ctx.shared[NAME]
    return got


def export(ctx: ExportContext) -> Columns:
    cols, names = exported_topics(ctx)
    return pick(cols, list(range(len(names))), EXPORT_SCHEMA)


def desired_topics(df: DataFrame) -> DataFrame:
    """name, partitions, rf, configs (map), reason; identical duplicates merged, conflicts rejected."""
    p, p_bad = int_column(df, "partitions")
    r, r_bad = int_column(df, "replication_factor")
    if "configs" in df.columns:
        cfg = configs_column(df)
        raw = sql_name("configs")
        cfg_bad = f"({raw} IS NOT NULL AND {cfg} IS NULL)"
    else:
        cfg, cfg_bad = "CAST(NULL AS map<string,string>)", "false"
    base = df.selectExpr(f"CAST({sql_name('name')} AS STRING) AS name", f"{p} AS partitions",
                         f"{r} AS rf", f"{cfg} AS configs", f"{p_bad} AS _p_bad", f"{r_bad} AS _r_bad",
                         f"{cfg_bad} AS _cfg_bad")
    rules = [
        *_topic_name_rules("name", "topic name"),
        *_int_rules("partitions", "_p_bad", "partitions", 1, _MAX_INT32),
        *_int_rules("rf", "_r_bad", "replication_factor", 1, _MAX_INT16),
        _when("_cfg_bad", "'configs is not a JSON object of strings'"),
    ]
    checked = base.selectExpr("name", "partitions", "rf", "configs", f"{_reasons(rules)} AS reason")
    sig = ("concat_ws('|', coalesce(CAST(partitions AS STRING), '-'), coalesce(CAST(rf AS STRING), '-'), "
           "coalesce(to_json(array_sort(map_entries(configs))), '-'))")
    return _dedupe(checked, "name", sig, "reason")


def _topic_text(p: str, r: str) -> str:
    return (f"concat_ws(' ', CASE WHEN {p} IS NOT NULL THEN concat('partitions=', CAST({p} AS STRING)) END, "
            f"CASE WHEN {r} IS NOT NULL THEN concat('replication_factor=', CAST({r} AS STRING)) END)")


def plan_topics(desired: DataFrame, configs: DataFrame | None, current: DataFrame, *,
                remove_unlisted: bool) -> DataFrame:
    """create / alter (partitions grow; a replication-factor change rides along) / reassign (only the
    replication factor differs) / unchanged / reject (partitions would shrink) / delete."""
    from pyspark.sql import functions as F

    c = current.selectExpr("name AS c_name", "partitions AS c_p", "replication_factor AS c_r")
    j = desired.join(c, desired["name"] == c["c_name"], "left")
    if configs is not None:
        # What a created topic is created with: its valid configs with a value, as one JSON object.
        cfg_json = configs.filter("reason IS NULL AND value IS NOT NULL").selectExpr(
            "topic AS cfg_topic", "struct(config, value) AS kv").groupBy("cfg_topic").agg(
            F.expr("to_json(map_from_entries(array_sort(collect_list(kv)))) AS cfg_json"))
        j = j.join(cfg_json, j["name"] == cfg_json["cfg_topic"], "left")
    else:
        j = j.selectExpr("*", "CAST(NULL AS STRING) AS cfg_json")
    shrink = ("concat('partitions can only grow: the topic has ', CAST(c_p AS STRING), ', the spec asks for ', "
              "CAST(partitions AS STRING), ' (fewer partitions need a new topic)')")
    action = ("CASE WHEN reason IS NOT NULL THEN 'reject' "
              "WHEN c_name IS NULL THEN 'create' "
              "WHEN partitions IS NOT NULL AND partitions < c_p THEN 'reject' "
              "WHEN partitions IS NOT NULL AND partitions > c_p THEN 'alter' "
              "WHEN rf IS NOT NULL AND rf != c_r THEN 'reassign' "
              "ELSE 'unchanged' END")
    rows = j.selectExpr(
        "name AS key", f"{action} AS action", f"CASE WHEN c_name IS NOT NULL THEN {_topic_text('c_p', 'c_r')} END "
        "AS old_value", f"{_topic_text('partitions', 'rf')} AS new_value",
        f"CASE WHEN reason IS NOT NULL THEN reason WHEN partitions < c_p THEN {shrink} END AS error",
        "map_filter(map('name', name, 'partitions', CAST(partitions AS STRING), 'replication_factor', "
        "CAST(rf AS STRING), 'current_replication_factor', CAST(c_r AS STRING), 'configs', "
        "CASE WHEN c_name IS NULL THEN cfg_json END), (k, v) -> v IS NOT NULL) AS args")
    out = _finish(rows, "topics")
    if remove_unlisted:
        cur = current.selectExpr("name AS key", "partitions", "replication_factor", "in_scope")
        gone = _deletions(cur, desired.selectExpr("name AS key"), _topic_text("partitions", "replication_factor"),
                          "map('name', key)")
        out = out.unionByName(_finish(gone, "topics"))
    return out


def topic_state(ctx: PlanContext) -> dict[str, Any]:
    """The desired topics and configs and the cluster's topics, read once for ``topics`` and ``topic_configs``:
    {"desired", "configs" (desired configs or None), "current" (a frame), "present" (existing names), "why"}."""
    if "topic_state" in ctx.shared:
        state: dict[str, Any] = ctx.shared["topic_state"]
        return state
    from kadmin.spark.kinds.topic_configs import desired_configs

    spec = ctx.spec
    topics_d = ctx.police(NAME, desired_topics(spec.topics)) if spec.topics is not None else None
    # Topics without a configs column hold no configs: leaving them out spares the plan an explode, a window
    # and an aggregation over rows that would all be empty.
    with_configs = topics_d if spec.topics is not None and "configs" in spec.topics.columns else None
    configs_d = desired_configs(with_configs, spec.topic_configs)
    configs_d = ctx.police("topic_configs", configs_d) if configs_d is not None else None
    # The topics whose state matters: one small job over the raw name columns (no validation needed).
    raw = [df.selectExpr(f"CAST({sql_name(col)} AS STRING) AS n") for df, col in
           ((spec.topics, "name"), (spec.topic_configs, "topic")) if df is not None]
    names_df = raw[0] if len(raw) == 1 else raw[0].unionByName(raw[1])
    deleting = ctx.deletes.get("topics") or ctx.deletes.get("topic_configs")
    present: list[str] = []

    def read() -> Columns:
        cols, names = read_topics(ctx.admin, lambda: {r[0] for r in names_df.distinct().collect() if r[0]},
                                  ctx.scope if deleting else None)
        present.extend(names)
        return cols

    cols, why = read_kind("topics", SCHEMA, read)
    if not ctx.deletes.get("topics"):
        cols["in_scope"] = [False] * len(cols["in_scope"])
    state = {"desired": topics_d, "configs": configs_d, "current": frame(ctx.spark, cols, SCHEMA),
             "present": present, "why": why}
    ctx.shared["topic_state"] = state
    return state


def plan(ctx: PlanContext) -> DataFrame:
    state = topic_state(ctx)
    part = plan_topics(state["desired"], state["configs"], state["current"], remove_unlisted=ctx.deletes[NAME])
    return unreadable(part, state["why"])


def items(ctx: ApplyContext, phase: Phase, rows: list[Row]) -> list[Item]:
    from kadmin.topics import NewTopic

    def build(key: str, action: str, a: dict[str, str]) -> tuple[Any, str]:
        name = a["name"]
        if action == "create":
            return NewTopic(name, _int(a.get("partitions")), _int(a.get("replication_factor")),
                            configs=json.loads(a["configs"]) if a.get("configs") else {}), name
        if action == "alter":
            rf = _int(a.get("replication_factor"))
            return (_int(a.get("partitions")),
                    rf if rf is not None and str(rf) != a.get("current_replication_factor") else None), name
        if action == "reassign":
            return (None, _int(a.get("replication_factor"))), name
        return name, name

    return one_per_row(ctx, phase, rows, build, lambda key, a: a.get("name", key))


def _create(ctx: ApplyContext, batch: list[Item]) -> dict[str, BaseException | None]:
    created = ctx.admin.create_topics([i.payload for i in batch], validate_only=ctx.validate)
    return {n: (r if isinstance(r, KafkaError) else None) for n, r in created.items()}


def _grow_items(ctx: ApplyContext, batch: list[Item]) -> dict[str, BaseException | None]:
    return _grow(ctx, batch)


def _reassign_items(ctx: ApplyContext, batch: list[Item]) -> dict[str, BaseException | None]:
    return _reassign(ctx, [(i.name, i.payload[1]) for i in batch])


def _delete(ctx: ApplyContext, batch: list[Item]) -> dict[str, BaseException | None]:
    if ctx.validate:
        return all_ok(batch)
    return {str(k): r for k, r in ctx.admin.delete_topics([i.payload for i in batch]).items()}


def _grow(ctx: ApplyContext, items: list[Item]) -> dict[str, BaseException | None]:
    from kadmin.topics import NewPartitions

    got: dict[str, BaseException | None] = dict(ctx.admin.create_partitions(
        {i.name: NewPartitions(i.payload[0]) for i in items}, validate_only=ctx.validate))
    # A replication-factor change that rides along: after the growth, so the new partitions move too.
    rf = [(i.name, i.payload[1]) for i in items if i.payload[1] is not None and got.get(i.name) is None]
    if rf:
        got.update(_reassign(ctx, rf))
    return got

def _reassign(ctx: ApplyContext, wanted: list[tuple[str, int]]) -> dict[str, BaseException | None]:
    """Each partition's replicas grown (brokers added round-robin from the partition's index) or cut (the
    preferred leader and the next ones kept) to the new factor: one AlterPartitionReassignments."""
    from kadmin.spark.spec import SpecError
    from kadmin.types import TopicPartition

    described = ctx.admin.describe_topics([n for n, _ in wanted])
    brokers = sorted(n.node_id for n in ctx.admin.describe_cluster().nodes)
    out: dict[str, BaseException | None] = {}
    moves: dict[TopicPartition, list[int]] = {}
    owner: dict[TopicPartition, str] = {}
    for name, rf in wanted:
        d = described.get(name)
        if isinstance(d, BaseException) or d is None:
            out[name] = d if isinstance(d, BaseException) else KafkaError(f"topic {name} was not described")
            continue
        if rf > len(brokers):
            out[name] = SpecError(f"replication_factor {rf} exceeds the {len(brokers)} broker(s) of the cluster")
            continue
        out[name] = None
        for p in d.partitions:
            reps = list(p.replicas)
            if rf <= len(reps):
                new = reps[:rf]
            else:
                ring = brokers[p.partition % len(brokers):] + brokers[:p.partition % len(brokers)]
                new = reps + [b for b in ring if b not in reps][:rf - len(reps)]
            if new != reps:
                tp = TopicPartition(name, p.partition)
                moves[tp] = new
                owner[tp] = name
    if moves and not ctx.validate:
        for tp, err in ctx.admin.alter_partition_reassignments(moves).items():
            if err is not None and out.get(owner[tp]) is None:
                out[owner[tp]] = err
    return out


def blocks(ctx: PlanContext) -> str | None:
    """Topic rows that skip their grants at plan time: only a topic state that could not be read, without a
    policy (a rejected topic row may well name an existing topic: a grant on it is no dangling grant); with a
    policy, also a rejected topic that does not exist (a grant on it would wait for whoever creates it)."""
    failed = "status = 'failed'" if ctx.shared.get("topic_state", {}).get("why") else None
    if ctx.policy is None:
        return failed
    new_rejected = "(status = 'rejected' AND old_value IS NULL)"
    return new_rejected if failed is None else f"({failed} OR {new_rejected})"


def on_failure(ctx: ApplyContext, phase: Phase, item: Item, status: str, error: str) -> None:
    if status == POSSIBLY_APPLIED and phase.actions == ("create",):
        ctx.out.unsure.setdefault((NAME, item.name), error)


KIND = register(Kind(
    name=NAME, order=1, columns=COLUMNS, plan=plan, items=items,
    export=export, export_schema=EXPORT_SCHEMA,
    phases=(Phase(NAME, ("create",), "topics created", 20, _create, blocks=True),
            Phase(NAME, ("alter",), "partitions added", 30, _grow_items),
            Phase(NAME, ("reassign",), "replicas reassigned", 40, _reassign_items),
            Phase(NAME, ("delete",), "topics deleted", 90, _delete)),
    owner_sql="key",
    blocks_sql=blocks, owner_name=lambda a: a.get("name"), on_failure=on_failure,
))
