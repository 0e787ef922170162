"""The ``topic_configs`` kind: a topic's own config values, set, altered or removed (IncrementalAlterConfigs).

Rows come from the ``topic_configs`` frame (long form) and from the ``topics`` frame's ``configs`` column.  The
configs of a topic the plan creates travel in its CreateTopics (``args.via = topic``) and share its outcome;
a topic is their owner: if its creation fails they are ``skipped``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kadmin.spark.kinds import Kind, Owner, Phase, Row, register
from kadmin.spark.kinds._sql import (
    Columns,
    Schema,
    frame,
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
    hold_deletions as _hold_deletions,
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
from kadmin.spark.kinds.context import POSSIBLY_APPLIED, ApplyContext, ExportContext, Item, PlanContext
from kadmin.spark.sqltext import sql_name

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from kadmin.client import AdminClient
    from kadmin.spark.spec import Scope

NAME = "topic_configs"
COLUMNS = {"topic": True, "config": True, "value": True}
SCHEMA: Schema = (("topic", "string"), ("config", "string"), ("value", "string"), ("in_scope", "boolean"))
#: Topics whose configs are described per DescribeConfigs call when the state is read.
READ_CHUNK = 1000


def read_topic_configs(admin: AdminClient, topics: list[str], scope: Scope | None) -> Columns:
    """The topics' own (dynamic) config values: what a spec sets and what ``remove_unlisted`` may delete.

    Defaults and broker-level values are not the topic's: a spec asking for the default value still sets it
    on the topic (so that a later change of the broker default does not move it)."""
    from kadmin.configs import ConfigResource, ConfigSource
    from kadmin.errors import KafkaError, UnknownTopicOrPartitionError

    cols: Columns = {"topic": [], "config": [], "value": [], "in_scope": []}
    # A chunk at a time: a topic has dozens of configs and only a few are its own, so holding every topic's
    # answer at once (50,000 topics: about 1 GB of entries) would size the driver by the cluster, not the spec.
    for start in range(0, len(topics), READ_CHUNK):
        described = admin.describe_configs([ConfigResource.topic(t) for t in topics[start:start + READ_CHUNK]])
        for resource, entries in described.items():
            if isinstance(entries, UnknownTopicOrPartitionError):
                continue
            if isinstance(entries, KafkaError):
                raise entries
            in_scope = scope is not None and scope.topic_in_scope(resource.name)
            for name, entry in entries.items():
                if entry.source is not ConfigSource.DYNAMIC_TOPIC_CONFIG:
                    continue
                cols["topic"].append(resource.name)
                cols["config"].append(name)
                cols["value"].append(entry.value)
                cols["in_scope"].append(in_scope)
    return cols


EXPORT_SCHEMA: Schema = (("topic", "string"), ("config", "string"), ("value", "string"))


def export(ctx: ExportContext) -> Columns:
    """The exported topics' own (dynamic topic) configs, long form.  A sensitive value (the broker answers
    null) is left out and noted: a null ``value`` in a spec means "remove the topic's own value"."""
    from kadmin.spark.kinds.topics import exported_topics

    cols = read_topic_configs(ctx.admin, exported_topics(ctx)[1], None)
    keep = [i for i, v in enumerate(cols["value"]) if v is not None]
    for i in sorted(set(range(len(cols["value"]))) - set(keep)):
        ctx.notes.append(f"topic_configs: {cols['topic'][i]}:{cols['config'][i]} left out: the broker does not "
                         "return its value (sensitive)")
    return pick(cols, keep, EXPORT_SCHEMA)


def desired_configs(topics: DataFrame | None, long: DataFrame | None) -> DataFrame | None:
    """topic, config, value (null: remove the topic's own value), reason: the topics' ``configs`` maps and the
    ``topic_configs`` rows together; the same config with two values anywhere is a conflict."""
    parts: list[DataFrame] = []
    if topics is not None:
        parts.append(topics.selectExpr("name AS topic", "explode_outer(configs) AS (config, value)",
                                       "CASE WHEN reason IS NOT NULL THEN 'its topic row is rejected' END "
                                       "AS _topic_reason").filter("config IS NOT NULL"))
    if long is not None:
        parts.append(long.selectExpr(f"CAST({sql_name('topic')} AS STRING) AS topic",
                                     f"CAST({sql_name('config')} AS STRING) AS config",
                                     f"CAST({sql_name('value')} AS STRING) AS value",
                                     "CAST(NULL AS STRING) AS _topic_reason"))
    if not parts:
        return None
    rows = parts[0]
    for p in parts[1:]:
        rows = rows.unionByName(p)
    rules = [*_topic_name_rules("topic", "topic name"),
             _when("config IS NULL OR trim(config) = ''", "'config name is empty'"), "_topic_reason"]
    checked = rows.selectExpr("topic", "config", "value", f"{_reasons(rules)} AS reason")
    return _dedupe(checked, "topic, config", "coalesce(value, '\\u0000')", "reason")


def plan_configs(desired: DataFrame | None, current: DataFrame, topic_plan: DataFrame | None,
                 current_topics: DataFrame, *, remove_unlisted: bool) -> DataFrame:
    """Per (topic, config): create / alter / delete / unchanged / reject.  Configs of a topic the plan creates
    travel in its CreateTopics (``args.via = topic``) and share its outcome."""
    c = current.selectExpr("topic AS c_topic", "config AS c_config", "value AS c_value", "in_scope")
    topics_now = current_topics.selectExpr("name AS e_topic")
    if topic_plan is not None:
        t = topic_plan.selectExpr("key AS t_topic", "action AS t_action")
    else:
        t = None
    pieces: list[DataFrame] = []
    desired_keys = None
    if desired is not None:
        d = desired.selectExpr("topic", "config", "value", "reason", "concat(topic, ':', config) AS key")
        desired_keys = d.select("key")
        j = d.join(c, (d["topic"] == c["c_topic"]) & (d["config"] == c["c_config"]), "left") \
             .join(topics_now, d["topic"] == topics_now["e_topic"], "left")
        if t is not None:
            j = j.join(t, j["topic"] == t["t_topic"], "left")
        else:
            j = j.selectExpr("*", "CAST(NULL AS STRING) AS t_action")
        missing = "concat('topic ', topic, ' does not exist and the spec does not create it')"
        action = ("CASE WHEN reason IS NOT NULL THEN 'reject' "
                  "WHEN t_action = 'reject' THEN 'reject' "
                  "WHEN t_action = 'create' AND value IS NULL THEN 'unchanged' "
                  "WHEN t_action = 'create' THEN 'create' "
                  "WHEN e_topic IS NULL THEN 'reject' "
                  "WHEN value IS NULL AND c_topic IS NULL THEN 'unchanged' "
                  "WHEN value IS NULL THEN 'delete' "
                  "WHEN c_topic IS NULL THEN 'create' "
                  "WHEN c_value <=> value THEN 'unchanged' "
                  "ELSE 'alter' END")
        error = (f"CASE WHEN reason IS NOT NULL THEN reason WHEN t_action = 'reject' THEN 'its topic row is "
                 f"rejected' WHEN t_action = 'create' THEN NULL WHEN e_topic IS NULL THEN {missing} END")
        rows = j.selectExpr(
            "key", f"{action} AS action", "CASE WHEN c_topic IS NOT NULL THEN coalesce(c_value, '') END AS old_value",
            "value AS new_value", f"{error} AS error",
            "map_filter(map('topic', topic, 'config', config, 'value', value, 'via', "
            "CASE WHEN t_action = 'create' THEN 'topic' END), (k, v) -> v IS NOT NULL) AS args")
        pieces.append(_finish(rows, "topic_configs"))
    if remove_unlisted:
        cur = current.selectExpr("concat(topic, ':', config) AS key", "topic", "config", "value", "in_scope")
        if t is not None:  # a topic the plan deletes takes its configs with it: no row of their own
            cur = cur.join(t.filter("t_action = 'delete'"), cur["topic"] == t["t_topic"], "left_anti")
        keys = desired_keys if desired_keys is not None else cur.limit(0).select("key")
        gone = _finish(_deletions(cur, keys, "coalesce(value, '')", "map('topic', topic, 'config', config)"),
                       "topic_configs")
        if desired is not None:
            gone = _hold_deletions(gone, desired.filter("reason IS NOT NULL").selectExpr("topic AS _held"),
                                   "args['topic']", "topic")
        pieces.append(gone)
    out = pieces[0]
    for p in pieces[1:]:
        out = out.unionByName(p)
    return out


def plan(ctx: PlanContext) -> DataFrame:
    from kadmin.spark.kinds.topics import topic_state

    state = topic_state(ctx)
    cols, why = read_kind("topic configs", SCHEMA, lambda: read_topic_configs(
        ctx.admin, state["present"], ctx.scope_if_deleting(NAME)))
    part = plan_configs(state["configs"], frame(ctx.spark, cols, SCHEMA), ctx.parts.get("topics"),
                        state["current"], remove_unlisted=ctx.deletes[NAME])
    return unreadable(part, state["why"] or why)


def items(ctx: ApplyContext, phase: Phase, rows: list[Row]) -> list[Item]:
    """One item per topic: its configs' operations together (rows come grouped by topic)."""
    from kadmin.configs import DeleteConfig, SetConfig

    topic = rows[0][3]["topic"]
    carried = [k for k, _, _, a in rows if a.get("via") == "topic"]
    unsure = ctx.out.unsure.get(("topics", topic))
    if carried and unsure is not None:  # created with their topic, if it was: the same status
        ctx.out.settle(Item([(NAME, k) for k in carried], None, topic), POSSIBLY_APPLIED,
                       f"sent with topic {topic}, whose creation's answer was lost: {unsure}")
    elif carried:  # created with their topic, which succeeded: nothing more to send
        ctx.out.done += len(carried)
    rest = [(k, act, a) for k, act, _, a in rows if a.get("via") != "topic"]
    if not rest:
        return []
    ops = [DeleteConfig(a["config"]) if act == "delete" or "value" not in a else SetConfig(a["config"], a["value"])
           for _, act, a in rest]
    return [Item([(NAME, k) for k, _, _ in rest], ops, topic)]


def send(ctx: ApplyContext, batch: list[Item]) -> dict[str, BaseException | None]:
    from kadmin.configs import ConfigResource

    got = ctx.admin.alter_configs({ConfigResource.topic(i.name): i.payload for i in batch},
                                  validate_only=ctx.validate)
    return {r.name: e for r, e in got.items()}


KIND = register(Kind(
    name=NAME, order=2, columns=COLUMNS, plan=plan, items=items,
    export=export, export_schema=EXPORT_SCHEMA,
    phases=(Phase(NAME, ("create", "alter", "delete"), "topic configs altered", 50, send),),
    owners=(Owner("topics", "args['topic']", lambda a: a.get("topic"), "topic ", ("create", "alter", "delete")),),
    group="args['topic']",
))
