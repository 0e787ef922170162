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
  and read back can be applied unchanged (:func:`kadmin.spark.tenant_apply.apply_plan`).

What is decided where: the rules that make a row invalid are SQL expressions evaluated in Spark (a rejected
row never stops the valid ones, and every row says all that is wrong with it); the cluster's state comes from
:mod:`kadmin.spark.tenant_state`; the join is a plain left join, and deletions (only with
``remove_unlisted`` and only of entities the :class:`~kadmin.spark.spec.Scope` covers) are the in-scope
current entities *anti-joined* against every desired key, rejected rows included; and since a typo in a key
field (a mechanism, an operation) makes a key that names nothing, no entity of an owner (a SCRAM user, an ACL
principal, a topic's configs, a quota entity) with a rejected row is deleted: those deletions are ``skipped``
with the reason (:func:`_hold_deletions`), so a typo never becomes a deletion.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import MapType, StringType, StructField, StructType

from kadmin.spark.schema import ENTITY_COLUMNS, sql_name, sql_string
from kadmin.spark.spec import Scope, SpecError, TenantSpec, column_or, configs_column, int_column
from kadmin.spark.tenant_state import (
    ACLS_SCHEMA,
    CONFIGS_SCHEMA,
    QUOTAS_SCHEMA,
    SCRAM_SCHEMA,
    TOPICS_SCHEMA,
    Columns,
    frame,
    read_acls,
    read_quotas,
    read_scram,
    read_topic_configs,
    read_topics,
)
from kadmin.spark.tenant_unreadable import read_kind, skip_acl_grants, unreadable

if TYPE_CHECKING:
    from kadmin.client import AdminClient

log = logging.getLogger("kadmin.spark")

PLAN_COLUMNS: tuple[str, ...] = ("kind", "key", "action", "old_value", "new_value", "status", "error", "args")
CHANGES = ("create", "alter", "delete", "reassign")
ACTIONS = (*CHANGES, "unchanged", "reject")
PLANNED, UNCHANGED, REJECTED = "planned", "unchanged", "rejected"

_MAX_INT32 = 2**31 - 1
_MAX_INT16 = 2**15 - 1


def plan_schema() -> StructType:
    return StructType([
        *(StructField(c, StringType(), c not in ("kind", "key", "action", "status")) for c in PLAN_COLUMNS[:7]),
        StructField("args", MapType(StringType(), StringType(), True), True),
    ])


# --- SQL helpers ----------------------------------------------------------------------------------------


def _when(cond: str, reason: str) -> str:
    return f"CASE WHEN {cond} THEN {reason} END"


def _reasons(rules: Iterable[str]) -> str:
    joined = f"concat_ws('; ', {', '.join(rules)})"
    return f"nullif({joined}, '')"


def _in(col: str, values: Iterable[str]) -> str:
    return f"({col} IN ({', '.join(sql_string(v) for v in sorted(values))}))"


def _enum(col: str) -> str:
    """Kafka's enum spelling of a cell: trimmed, upper case, ``-`` and spaces as ``_``."""
    return f"upper(regexp_replace(trim({col}), '[- ]', '_'))"


def _dedupe(df: DataFrame, key: str, sig: str, reason: str) -> DataFrame:
    """One row per (key, identical content); all rows of a key with different contents rejected.

    One window (one shuffle): rows of a key ordered by content; the first of each run of equal contents is
    kept (row_number == rank) and a second distinct content (dense_rank > 1) is a conflict.  ``reason`` is
    the column of the row's own reasons; it gains the conflict."""
    cols = [sql_name(c) for c in df.columns]
    w = f"(PARTITION BY {key} ORDER BY _sig)"
    ranked = df.selectExpr(*cols, f"{sig} AS _sig").selectExpr(
        *cols, f"row_number() OVER {w} AS _rn", f"rank() OVER {w} AS _rk", f"dense_rank() OVER {w} AS _dr")
    kept = ranked.filter("_rn = _rk").selectExpr(*cols, f"max(_dr) OVER (PARTITION BY {key}) AS _variants")
    conflict = sql_string("conflicting rows for the same entity in the spec")
    out = [c for c in cols if c != sql_name(reason)]
    return kept.selectExpr(
        *out, f"CASE WHEN _variants > 1 THEN concat_ws('; ', {sql_name(reason)}, {conflict}) "
              f"ELSE {sql_name(reason)} END AS {sql_name(reason)}")


_STATUS = (f"CASE WHEN action = 'reject' THEN '{REJECTED}' WHEN action = 'unchanged' THEN '{UNCHANGED}' "
           f"ELSE '{PLANNED}' END")


def _finish(df: DataFrame, kind: str) -> DataFrame:
    """Rows with ``key, action, old_value, new_value, error, args`` into the plan's columns."""
    return df.selectExpr(f"{sql_string(kind)} AS kind", "key", "action", "old_value", "new_value",
                         f"{_STATUS} AS status", "CASE WHEN action = 'reject' THEN error END AS error", "args")


def _deletions(current: DataFrame, desired_keys: DataFrame, old_value: str, args: str) -> DataFrame:
    """In-scope current entities that no desired row (valid or not) names, as ``delete`` rows."""
    gone = current.filter("in_scope").join(desired_keys, on="key", how="left_anti")
    return gone.selectExpr("key", "'delete' AS action", f"{old_value} AS old_value",
                           "CAST(NULL AS STRING) AS new_value", "CAST(NULL AS STRING) AS error", f"{args} AS args")


def _hold_deletions(gone: DataFrame, rejected: DataFrame, on: str, what: str) -> DataFrame:
    """Deletion rows (the plan's columns) of an owner (``on``: SQL over the row, e.g. ``args['user']``) that
    has a rejected row in the spec (``rejected``: one column ``_held``), as ``skipped`` with the reason.

    Why: a rejected row's key is built from what it says, so a typo in a key field (``SCRAM-SHA-265``, an
    operation ``READD``) names nothing on the cluster, and the entity it meant would look unlisted: with
    ``remove_unlisted`` the typo would delete the tenant's credential or grant and lock it out.  Nothing of
    an owner the spec got wrong is deleted until its rows are fixed."""
    held = rejected.filter("_held IS NOT NULL").distinct()
    j = gone.selectExpr("*", f"{on} AS _on").join(held, F.col("_on") == F.col("_held"), "left")
    hit = "(_held IS NOT NULL AND action = 'delete')"
    why = (f"concat('not deleted: the spec has a rejected row for {what} ', _held, "
           "' (fix it first: a typo never becomes a deletion)')")
    return j.selectExpr(
        "kind", "key", f"CASE WHEN {hit} THEN 'reject' ELSE action END AS action", "old_value", "new_value",
        f"CASE WHEN {hit} THEN 'skipped' ELSE status END AS status", f"CASE WHEN {hit} THEN {why} ELSE error END "
        "AS error", "args")


def _topic_name_rules(col: str, what: str) -> list[str]:
    return [
        _when(f"{col} IS NULL OR {col} = ''", sql_string(f"{what} is empty")),
        _when(f"{col} IN ('.', '..')", f"concat({sql_string(what + ' ')}, {col}, ' is not allowed')"),
        _when(f"length({col}) > 249", sql_string(f"{what} is longer than 249 characters")),
        _when(f"{col} != '' AND NOT {col} RLIKE '^[a-zA-Z0-9._-]+$'",
              f"concat({sql_string(what + ' ')}, {sql_string(chr(39))}, {col}, {sql_string(chr(39))}, "
              f"' has characters Kafka refuses (legal: a-z A-Z 0-9 . _ -)')"),
    ]


def _int_rules(value: str, bad: str, what: str, lo: int, hi: int) -> list[str]:
    return [
        _when(f"{bad} IS NOT NULL", f"concat({sql_string(what + ' ')}, {sql_string(chr(39))}, {bad}, "
                                    f"{sql_string(chr(39) + ' is not a whole number')})"),
        _when(f"{value} < {lo} OR {value} > {hi}",
              f"concat({sql_string(f'{what} must be between {lo} and {hi}, not ')}, CAST({value} AS STRING))"),
    ]


# --- topics and their configs -----------------------------------------------------------------------------


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


def _topic_text(p: str, r: str) -> str:
    return (f"concat_ws(' ', CASE WHEN {p} IS NOT NULL THEN concat('partitions=', CAST({p} AS STRING)) END, "
            f"CASE WHEN {r} IS NOT NULL THEN concat('replication_factor=', CAST({r} AS STRING)) END)")


def plan_topics(desired: DataFrame, configs: DataFrame | None, current: DataFrame, *,
                remove_unlisted: bool) -> DataFrame:
    """create / alter (partitions grow; a replication-factor change rides along) / reassign (only the
    replication factor differs) / unchanged / reject (partitions would shrink) / delete."""
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


# --- ACLs -----------------------------------------------------------------------------------------------


def _acl_key(principal: str, host: str, op: str, perm: str, rt: str, name: str, pt: str) -> str:
    return (f"concat({principal}, ' ', {perm}, ' ', {op}, ' ', {rt}, ':', {pt}, ':', {name}, ' @', {host})")


def desired_acls(df: DataFrame) -> DataFrame:
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
        f"coalesce({cols['pattern_type']}, 'LITERAL') AS pattern_type")
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
    key = _acl_key(*(f"coalesce({c}, '')" for c in ("principal", "host", "operation", "permission",
                                                     "resource_type", "resource_name", "pattern_type")))
    return base.selectExpr("*", f"{key} AS key", f"{_reasons(rules)} AS reason").dropDuplicates(["key"])


def plan_acls(desired: DataFrame, current: DataFrame, *, remove_unlisted: bool) -> DataFrame:
    """create / unchanged / reject per binding, and deletions of in-scope bindings the spec does not list.
    A binding has no value to alter: a changed binding is a new binding plus the deletion of the old one."""
    fields = ("principal", "host", "operation", "permission", "resource_type", "resource_name", "pattern_type")
    cur = current.selectExpr(f"{_acl_key(*fields)} AS key", *fields, "in_scope")
    c = cur.selectExpr("key AS c_key")
    j = desired.join(c, desired["key"] == c["c_key"], "left")
    args = "map(" + ", ".join(f"{sql_string(f)}, {f}" for f in fields) + ")"
    rows = j.selectExpr("key", "CASE WHEN reason IS NOT NULL THEN 'reject' WHEN c_key IS NULL THEN 'create' "
                               "ELSE 'unchanged' END AS action",
                        "CASE WHEN c_key IS NOT NULL THEN 'present' END AS old_value", "'present' AS new_value",
                        "reason AS error", f"{args} AS args")
    out = _finish(rows, "acls")
    if remove_unlisted:
        gone = _finish(_deletions(cur, desired.select("key"), "'present'", args), "acls")
        out = out.unionByName(_hold_deletions(gone, desired.filter("reason IS NOT NULL").selectExpr(
            "principal AS _held"), "args['principal']", "principal"))
    return out


# --- SCRAM users ----------------------------------------------------------------------------------------


def desired_scram(df: DataFrame) -> DataFrame:
    from kadmin.scram import DEFAULT_ITERATIONS, MAX_ITERATIONS, MIN_ITERATIONS

    it, it_bad = int_column(df, "iterations")
    mech = _enum(column_or(df, "mechanism", "CAST(NULL AS STRING)"))
    mech = f"regexp_replace({mech}, '_', '-')"
    mech = f"CASE WHEN {mech} IS NULL THEN 'SCRAM-SHA-256' WHEN {mech} LIKE 'SCRAM-%' THEN {mech} " \
           f"ELSE concat('SCRAM-', {mech}) END"
    base = df.selectExpr(f"CAST({sql_name('user')} AS STRING) AS user", f"{mech} AS mechanism",
                         f"coalesce({it}, {DEFAULT_ITERATIONS}) AS iterations", f"{it_bad} AS _it_bad",
                         f"nullif(trim(CAST({sql_name('password_ref')} AS STRING)), '') AS password_ref")
    q = sql_string("'")
    rules = [
        _when("user IS NULL OR user = ''", "'user is empty'"),
        _when("NOT mechanism IN ('SCRAM-SHA-256', 'SCRAM-SHA-512')",
              f"concat('unknown SCRAM mechanism ', {q}, mechanism, {q}, ' (SCRAM-SHA-256 or SCRAM-SHA-512)')"),
        *_int_rules("iterations", "_it_bad", "iterations", MIN_ITERATIONS, MAX_ITERATIONS),
        _when("password_ref IS NULL", "'password_ref is empty (the name of the secret to resolve)'"),
    ]
    checked = base.selectExpr("user", "mechanism", "iterations", "password_ref",
                              f"{_reasons(rules)} AS reason", "concat(coalesce(user, ''), '/', mechanism) AS key")
    return _dedupe(checked, "key", "concat(CAST(iterations AS STRING), '|', coalesce(password_ref, ''))", "reason")


def plan_scram(desired: DataFrame, current: DataFrame, *, remove_unlisted: bool) -> DataFrame:
    """create / alter (iterations differ) / unchanged / reject per (user, mechanism); deletions in scope.

    A broker never returns a password (only mechanism and iterations), so an existing credential with the
    same iterations is ``unchanged``: a re-run does not rotate passwords.  To rotate one, delete the
    credential (or change its iterations) and run again."""
    cur = current.selectExpr("concat(user, '/', mechanism) AS key", "user", "mechanism", "iterations", "in_scope")
    c = cur.selectExpr("key AS c_key", "iterations AS c_it")
    j = desired.join(c, desired["key"] == c["c_key"], "left")
    rows = j.selectExpr(
        "key", "CASE WHEN reason IS NOT NULL THEN 'reject' WHEN c_key IS NULL THEN 'create' "
               "WHEN c_it != iterations THEN 'alter' ELSE 'unchanged' END AS action",
        "CASE WHEN c_key IS NOT NULL THEN concat('iterations=', CAST(c_it AS STRING)) END AS old_value",
        "concat('iterations=', CAST(iterations AS STRING), ' password=<', coalesce(password_ref, ''), '>') "
        "AS new_value", "reason AS error",
        "map_filter(map('user', user, 'mechanism', mechanism, 'iterations', CAST(iterations AS STRING), "
        "'password_ref', password_ref), (k, v) -> v IS NOT NULL) AS args")
    out = _finish(rows, "scram_users")
    if remove_unlisted:
        gone = _deletions(cur, desired.select("key"), "concat('iterations=', CAST(iterations AS STRING))",
                          "map('user', user, 'mechanism', mechanism)")
        out = out.unionByName(_hold_deletions(_finish(gone, "scram_users"),
                                              desired.filter("reason IS NOT NULL").selectExpr("user AS _held"),
                                              "args['user']", "user"))
    return out


# --- quotas ---------------------------------------------------------------------------------------------


def _entity_text(prefix: str = "") -> str:
    parts = [f"CASE WHEN {prefix}{c} IS NOT NULL THEN concat({sql_string(t + '=')}, {prefix}{c}) END"
             for c, t in (("user", "user"), ("client_id", "client-id"), ("ip", "ip"))]
    return f"concat_ws(',', {', '.join(parts)})"


def plan_quotas_kind(desired: DataFrame, current: DataFrame, *, remove_unlisted: bool,
                     allow_unknown_keys: bool = False) -> DataFrame:
    """Quota keys in the plan's shape: ``set`` becomes create/alter, ``remove`` delete (exact double
    equality, as :func:`kadmin.spark.plan.diff`)."""
    from kadmin.spark.schema import normalize
    from kadmin.spark.validate import validate

    v = validate(normalize(desired), allow_unknown_keys=allow_unknown_keys)
    d = v.selectExpr(*ENTITY_COLUMNS, "quota_key", "value", "reason",
                     f"concat({_entity_text()}, '/', coalesce(quota_key, '')) AS key")
    cur = current.selectExpr(*ENTITY_COLUMNS, "quota_key", "value", "in_scope",
                             f"concat({_entity_text()}, '/', quota_key) AS key")
    c = cur.selectExpr("key AS c_key", "value AS c_value")
    j = d.join(c, d["key"] == c["c_key"], "left")
    args = ("map_filter(map('user', user, 'client_id', client_id, 'ip', ip, 'quota_key', quota_key, "
            "'value', CAST(value AS STRING)), (k, v) -> v IS NOT NULL)")
    rows = j.selectExpr(
        "key", "CASE WHEN reason IS NOT NULL THEN 'reject' WHEN value IS NULL AND c_key IS NULL THEN 'unchanged' "
               "WHEN value IS NULL THEN 'delete' WHEN c_key IS NULL THEN 'create' "
               "WHEN c_value = value THEN 'unchanged' ELSE 'alter' END AS action",
        "CAST(c_value AS STRING) AS old_value", "CAST(value AS STRING) AS new_value", "reason AS error",
        f"{args} AS args")
    out = _finish(rows, "quotas")
    if remove_unlisted:
        gone = _deletions(cur, d.select("key"), "CAST(value AS STRING)",
                          args.replace("'value', CAST(value AS STRING)", "'value', CAST(NULL AS STRING)"))
        out = out.unionByName(_hold_deletions(_finish(gone, "quotas"), d.filter("reason IS NOT NULL").selectExpr(
            "substring_index(key, '/', 1) AS _held"), "substring_index(key, '/', 1)", "quota entity"))
    return out


# --- the whole plan -------------------------------------------------------------------------------------


def build_plan(spec: TenantSpec, admin: AdminClient, *, scope: Scope | None, remove_unlisted: bool,
               allow_unknown_keys: bool = False) -> DataFrame:
    """The plan of every kind the spec holds, one DataFrame (lazy except for the cluster reads and, when the
    cluster has topics, one small job collecting the desired topic names, whose state is the only one read
    selectively)."""
    spec.check()
    if remove_unlisted and scope is None:
        raise SpecError("remove_unlisted needs an explicit scope (topic and/or principal prefixes): deletions "
                        "happen only inside it")
    spark = spec.session()
    kinds = spec.kinds()
    deletes = {k: remove_unlisted and scope is not None and scope.allows(k) for k in kinds}
    parts: list[DataFrame] = []
    # A kind the cluster cannot describe fails row by row; what depends on it is skipped (tenant_unreadable).
    failed_users: DataFrame | None = None  # user, why: no grant may name them (tenant_unreadable)
    failed_topics: DataFrame | None = None
    topic_plan: DataFrame | None = None

    if "scram_users" in kinds and spec.scram_users is not None:
        scram_cols, why = read_kind("SCRAM credentials", SCRAM_SCHEMA, lambda: read_scram(admin, scope))
        cur = frame(spark, scram_cols, SCRAM_SCHEMA)
        part = plan_scram(desired_scram(spec.scram_users), cur, remove_unlisted=deletes["scram_users"])
        if why is not None:
            part = unreadable(part, why)
        # A user whose credential cannot be planned (unreadable) or whose row is rejected gets no grant.
        failed_users = part.filter("action = 'reject' AND status IN ('failed', 'rejected')").selectExpr(
            "args['user'] AS user", "CASE WHEN status = 'rejected' THEN concat('its row ', key, ' is rejected: ', "
            "error) ELSE error END AS why")
        parts.append(part)

    topics_d = desired_topics(spec.topics) if spec.topics is not None else None
    # Topics without a configs column hold no configs: leaving them out spares the plan an explode, a window
    # and an aggregation over rows that would all be empty.
    with_configs = topics_d if spec.topics is not None and "configs" in spec.topics.columns else None
    configs_d = desired_configs(with_configs, spec.topic_configs)
    if topics_d is not None or configs_d is not None:
        # The topics whose state matters: one small job over the raw name columns (no validation needed).
        raw = [df.selectExpr(f"CAST({sql_name(col)} AS STRING) AS n") for df, col in
               ((spec.topics, "name"), (spec.topic_configs, "topic")) if df is not None]
        names_df = raw[0] if len(raw) == 1 else raw[0].unionByName(raw[1])
        topic_scope = scope if (deletes.get("topics") or deletes.get("topic_configs")) else None
        present: list[str] = []

        def read_topic_state() -> Columns:
            cols, names = read_topics(admin, lambda: {r[0] for r in names_df.distinct().collect() if r[0]},
                                      topic_scope)
            present.extend(names)
            return cols

        topic_cols, topics_why = read_kind("topics", TOPICS_SCHEMA, read_topic_state)
        if not deletes.get("topics"):
            topic_cols["in_scope"] = [False] * len(topic_cols["in_scope"])
        current_topics = frame(spark, topic_cols, TOPICS_SCHEMA)
        if topics_d is not None:
            topic_plan = plan_topics(topics_d, configs_d, current_topics, remove_unlisted=deletes["topics"])
            if topics_why is not None:
                topic_plan = unreadable(topic_plan, topics_why)
                failed_topics = topic_plan.filter("status = 'failed'").selectExpr("key AS topic", "error AS why")
            parts.append(topic_plan)
        if "topic_configs" in kinds:
            cfg_scope = scope if deletes.get("topic_configs") else None
            cfg_cols, cfg_why = read_kind("topic configs", CONFIGS_SCHEMA,
                                          lambda: read_topic_configs(admin, present, cfg_scope))
            current_cfg = frame(spark, cfg_cols, CONFIGS_SCHEMA)
            cfg_part = plan_configs(configs_d, current_cfg, topic_plan, current_topics,
                                    remove_unlisted=deletes["topic_configs"])
            cfg_why = topics_why or cfg_why
            parts.append(unreadable(cfg_part, cfg_why) if cfg_why is not None else cfg_part)

    if "acls" in kinds and spec.acls is not None:
        acl_cols, why = read_kind("ACLs", ACLS_SCHEMA, lambda: read_acls(admin, scope))
        cur = frame(spark, acl_cols, ACLS_SCHEMA)
        part = plan_acls(desired_acls(spec.acls), cur, remove_unlisted=deletes["acls"])
        if why is not None:
            part = unreadable(part, why)
        elif failed_users is not None or failed_topics is not None:
            part = skip_acl_grants(part, users=failed_users, topics=failed_topics)
        parts.append(part)

    if "groups_offsets" in kinds and spec.groups_offsets is not None:
        from kadmin.spark.tenant_groups import plan_groups_offsets

        parts.append(plan_groups_offsets(spec.groups_offsets, admin, topic_plan))

    if "quotas" in kinds and spec.quotas is not None:
        quota_cols, why = read_kind("client quotas", QUOTAS_SCHEMA, lambda: read_quotas(admin, scope))
        cur = frame(spark, quota_cols, QUOTAS_SCHEMA)
        part = plan_quotas_kind(spec.quotas, cur, remove_unlisted=deletes["quotas"],
                                allow_unknown_keys=allow_unknown_keys)
        parts.append(unreadable(part, why) if why is not None else part)

    plan = parts[0]
    for p in parts[1:]:
        plan = plan.unionByName(p)
    return plan


__all__ = ["ACTIONS", "CHANGES", "PLAN_COLUMNS", "build_plan", "plan_schema"]
