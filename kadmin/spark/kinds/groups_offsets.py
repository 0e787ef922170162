"""The ``groups_offsets`` kind of a tenant spec: where consumer groups' committed offsets should be.

One spec row is ``group, topic, partition (empty: every partition), target``, the target as
kafka-consumer-groups.sh --reset-offsets names it:

* ``earliest`` / ``latest``: the partition's log start / log end when the plan is made;
* ``offset:N``: ``N``;
* ``timestamp:MS`` (milliseconds since the epoch) or ``timestamp:2024-05-01T00:00:00Z`` (ISO-8601 with a zone;
  without one the time would depend on the Spark session's zone): the first offset at or after that time, the
  log end when there is none.

Every target is clamped to [log start, log end], as the Kafka tool does (the plan's ``new_value`` says so).
``shift-by`` and ``by-duration`` are refused with the reason: they are relative to the committed offset or to
"now", so a spec applied twice would move the group twice, and a re-run would never converge.  ``earliest`` and
``latest`` are evaluated at plan time: once a group sits there, a re-run is ``unchanged`` until new records (or
retention) move the log's end (or start).

**Plan.**  The spec rows are checked in Spark (every broken rule is a ``reject`` with its reason); the distinct
groups, topics and timestamps go to the driver (one small job), which reads the cluster once: the groups'
states and committed offsets (DescribeGroups / ConsumerGroupDescribe, one OffsetFetch), the topics'
partitions, their log start and end (ListOffsets) and the offsets of the timestamps asked for.  Those few
frames are joined against the rows in Spark.  Per (group, topic, partition): ``alter`` (old -> new offset;
old is empty when the group has none), ``unchanged``, or ``reject``: an unknown topic (unless the spec creates
it) or partition, a bad target, or a group that has members (Kafka's coordinator refuses offsets written from
outside an active group; stop its consumers first).  A group that does not exist is *not* refused: as with
kafka-consumer-groups.sh, writing its offsets creates it, which is how a new consumer is made to start at a
chosen position.  A value the cluster could not be asked for (an authorization error, a partition without a
leader) makes the row ``failed`` with the reason.

On a topic the same spec creates (or a partition its growth adds) the log is empty: every target is offset 0,
written after the topic exists (the phase comes after the topics'); if the creation fails the row is
``skipped``.

**Apply.**  One OffsetCommit (kadmin's ``alter_consumer_group_offsets``) per group per batch; the coordinator
refuses the write if consumers joined since the plan (``failed``, with its reason).  ``validate`` sends
nothing (OffsetCommit has no validate_only): the rows were checked when planned.

**Scope.**  Resets are never deletions: ``remove_unlisted`` leaves offsets the spec does not name alone.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from kadmin.spark.kinds import Kind, Owner, Phase, Row, register
from kadmin.spark.kinds._sql import Columns, Schema, error_text, frame, int_column
from kadmin.spark.kinds.context import ApplyContext, ExportContext, Item, PlanContext, one_per_row
from kadmin.spark.sqltext import sql_name, sql_string

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from kadmin.client import AdminClient
    from kadmin.types import TopicPartition

log = logging.getLogger("kadmin.spark")

KIND = "groups_offsets"
_MAX_INT32 = 2**31 - 1
#: States in which a group's offsets may be written from outside it (kafka-consumer-groups.sh's rule).
INACTIVE = ("Empty", "Dead")

COLUMNS = {"group": True, "topic": True, "partition": False, "target": True}
GROUPS_SCHEMA: Schema = (("g_group", "string"), ("g_state", "string"), ("g_members", "bigint"),
                         ("g_error", "string"))
TOPICS_SCHEMA: Schema = (("t_topic", "string"), ("t_partitions", "bigint"), ("t_error", "string"))
BOUNDS_SCHEMA: Schema = (("b_topic", "string"), ("b_partition", "bigint"), ("b_start", "bigint"),
                         ("b_end", "bigint"), ("b_error", "string"))
TIMES_SCHEMA: Schema = (("s_topic", "string"), ("s_partition", "bigint"), ("s_ts", "bigint"),
                        ("s_offset", "bigint"), ("s_error", "string"))
COMMITTED_SCHEMA: Schema = (("c_group", "string"), ("c_topic", "string"), ("c_partition", "bigint"),
                            ("c_offset", "bigint"), ("c_error", "string"))


# --- the spec rows ----------------------------------------------------------------------------------------


def _when(cond: str, reason: str) -> str:
    return f"CASE WHEN {cond} THEN {reason} END"


def desired_groups_offsets(df: DataFrame) -> DataFrame:
    """grp, topic, partition (null: every partition), t_kind, t_value, target (the text), reason.

    The target's text is kept as written (trimmed) for the plan's ``new_value``; its kind is matched case
    insensitively.  An ISO time is read by Spark's own cast (``try_to_timestamp``) and must carry its zone."""
    part, part_bad = int_column(df, "partition")
    text = f"trim(CAST({sql_name('target')} AS STRING))"
    base = df.selectExpr(f"CAST({sql_name('group')} AS STRING) AS grp", f"CAST({sql_name('topic')} AS STRING) AS topic",
                         f"{part} AS partition", f"{part_bad} AS _p_bad", f"nullif({text}, '') AS target")
    low = "lower(target)"
    word = f"regexp_extract({low}, '^([a-z_-]+)[:=]', 1)"
    arg = "trim(regexp_extract(target, '^[A-Za-z_-]+[:=](.*)$', 1))"
    kind = (f"CASE WHEN {low} IN ('earliest', 'latest') THEN {low} "
            f"WHEN {word} IN ('offset', 'to-offset') THEN 'offset' "
            f"WHEN {word} IN ('timestamp', 'datetime', 'to-datetime') THEN 'timestamp' "
            f"WHEN {word} IN ('shift', 'shift-by', 'shift_by', 'duration', 'by-duration', 'by_duration') "
            f"THEN 'relative' END")
    zoned = f"{arg} RLIKE '(Z|z|[+-][0-9][0-9]:?[0-9][0-9])$'"
    value = (f"CASE WHEN _kind = 'offset' AND {arg} RLIKE '^[0-9]+$' THEN try_cast({arg} AS BIGINT) "
             f"WHEN _kind = 'timestamp' AND {arg} RLIKE '^[0-9]+$' THEN try_cast({arg} AS BIGINT) "
             f"WHEN _kind = 'timestamp' AND {zoned} THEN unix_millis(try_to_timestamp({arg})) END")
    typed = base.selectExpr("*", f"{kind} AS _kind").selectExpr("*", f"{value} AS _value")
    q = sql_string("'")
    rules = [
        _when("grp IS NULL OR trim(grp) = ''", "'group is empty'"),
        _when("topic IS NULL OR trim(topic) = ''", "'topic is empty'"),
        _when("topic IN ('.', '..') OR length(topic) > 249 OR NOT topic RLIKE '^[a-zA-Z0-9._-]*$'",
              f"concat('topic name ', {q}, topic, {q}, ' is not a legal Kafka topic name')"),
        _when("_p_bad IS NOT NULL", f"concat('partition ', {q}, _p_bad, {q}, ' is not a whole number')"),
        _when(f"partition < 0 OR partition > {_MAX_INT32}",
              f"concat('partition must be between 0 and {_MAX_INT32}, not ', CAST(partition AS STRING))"),
        _when("target IS NULL", "'target is empty (earliest, latest, offset:N or timestamp:...)'"),
        _when("target IS NOT NULL AND _kind IS NULL",
              f"concat('unknown target ', {q}, target, {q}, ' (earliest, latest, offset:N, timestamp:MS or "
              f"timestamp:ISO-8601 with a zone)')"),
        _when("_kind = 'relative'",
              f"concat('target ', {q}, target, {q}, ' is relative to the committed offset or to now: applied "
              f"twice it would move the group twice; a spec needs an absolute target (earliest, latest, offset:N, "
              f"timestamp:...)')"),
        _when("_kind = 'offset' AND _value IS NULL",
              f"concat('target ', {q}, target, {q}, ' is not offset:N with N a whole number >= 0')"),
        _when("_kind = 'timestamp' AND _value IS NULL",
              f"concat('target ', {q}, target, {q}, ' is neither timestamp:MS (milliseconds since the epoch) "
              f"nor timestamp:ISO-8601 with a zone (2024-05-01T00:00:00Z)')"),
    ]
    reasons = f"nullif(concat_ws('; ', {', '.join(rules)}), '')"
    return typed.selectExpr("grp", "topic", "partition", "_kind AS t_kind", "_value AS t_value", "target",
                            f"{reasons} AS reason")


# --- the cluster's state ----------------------------------------------------------------------------------


def read_state(admin: AdminClient, groups: Iterable[str], topics: Iterable[str],
               times: Iterable[tuple[str, int]]) -> dict[str, Columns]:
    """Everything the plan joins against, read once: groups (state, members), their committed offsets on the
    named topics, the topics' partition counts, every partition's log start/end, the offsets of the asked
    timestamps.  Errors of one group, topic or partition go into its row (``*_error``), never raise."""
    group_list, topic_list = sorted(set(groups)), sorted(set(topics))
    out: dict[str, Columns] = {name: {n: [] for n, _ in schema} for name, schema in (
        ("groups", GROUPS_SCHEMA), ("topics", TOPICS_SCHEMA), ("bounds", BOUNDS_SCHEMA), ("times", TIMES_SCHEMA),
        ("committed", COMMITTED_SCHEMA))}

    def add(table: str, *values: Any) -> None:
        cols = out[table]
        for name, v in zip(cols, values, strict=True):
            cols[name].append(v)

    partitions = _read_topics(admin, topic_list, add)
    every = [tp for tps in partitions.values() for tp in tps]
    _read_bounds(admin, every, add)
    _read_times(admin, partitions, times, add)
    if group_list:
        _read_groups(admin, group_list, set(topic_list), out, add)
    log.info("read %d group(s), %d topic(s), %d partition(s), %d committed offset(s)", len(group_list),
             len(partitions), len(every), len(out["committed"]["c_group"]))
    return out


Add = Callable[..., None]


def _read_topics(admin: AdminClient, topic_list: list[str], add: Add) -> dict[str, list[Any]]:
    """The named topics' partition counts; {topic: its TopicPartitions} of those that exist."""
    from kadmin.errors import KafkaError, UnknownTopicOrPartitionError
    from kadmin.types import TopicPartition

    partitions: dict[str, list[Any]] = {}
    if not topic_list:
        return partitions
    for name, d in admin.describe_topics(topic_list).items():
        if isinstance(d, UnknownTopicOrPartitionError):
            continue  # not there: the plan says so (or the spec creates it)
        if isinstance(d, KafkaError):
            add("topics", name, None, error_text(d))
            continue
        add("topics", name, len(d.partitions), None)
        partitions[name] = [TopicPartition(name, p.partition) for p in d.partitions]
    return partitions


def _read_bounds(admin: AdminClient, every: list[Any], add: Add) -> None:
    """Every partition's log start and end (two ListOffsets)."""
    from kadmin.admin.partitions import ListedOffset, OffsetSpec

    if not every:
        return
    starts = admin.list_offsets(dict.fromkeys(every, OffsetSpec.earliest()))
    ends = admin.list_offsets(dict.fromkeys(every, OffsetSpec.latest()))
    for tp in every:
        lo, hi = starts.get(tp), ends.get(tp)
        bad = next((x for x in (lo, hi) if not isinstance(x, ListedOffset)), None)
        if bad is not None or not isinstance(lo, ListedOffset) or not isinstance(hi, ListedOffset):
            why = error_text(bad) if isinstance(bad, BaseException) else "no log offsets were returned"
            add("bounds", tp.topic, tp.partition, None, None, f"the log offsets of {tp} could not be read: {why}")
        else:
            add("bounds", tp.topic, tp.partition, lo.offset, hi.offset, None)


def _read_times(admin: AdminClient, partitions: dict[str, list[Any]], times: Iterable[tuple[str, int]],
                add: Add) -> None:
    """The offsets of the timestamps asked for (one ListOffsets per timestamp)."""
    from kadmin.admin.partitions import ListedOffset, OffsetSpec

    by_time: dict[int, list[str]] = {}
    for topic, ts in set(times):
        if topic in partitions:
            by_time.setdefault(ts, []).append(topic)
    for ts, names in sorted(by_time.items()):
        tps = [tp for n in sorted(names) for tp in partitions[n]]
        found = admin.list_offsets(dict.fromkeys(tps, OffsetSpec.for_timestamp(ts)))
        for tp in tps:
            got = found.get(tp)
            if isinstance(got, ListedOffset):
                add("times", tp.topic, tp.partition, ts, got.offset, None)
            else:
                why = error_text(got) if isinstance(got, BaseException) else "no offset was returned"
                add("times", tp.topic, tp.partition, ts, None,
                    f"the offset of {tp} at {ts} ms could not be read: {why}")


def add_positions(add: Add, group: str, positions: Mapping[TopicPartition, Any], wanted: set[str],
                  offset_of: Callable[[Any], int | None], what: str) -> None:
    """One ``committed`` row per position of ``group`` on a wanted topic: its offset (``offset_of``; None when
    the answer is the partition's error), else that error as the row's reason; for consumer groups' committed
    offsets and share groups' start offsets alike."""
    for tp, answer in positions.items():
        if tp.topic not in wanted:
            continue
        offset = offset_of(answer)
        if offset is not None:
            add("committed", group, tp.topic, tp.partition, offset, None)
        else:
            add("committed", group, tp.topic, tp.partition, None,
                f"the {what} of {tp} could not be read: {error_text(answer)}")


def _read_groups(admin: AdminClient, group_list: list[str], wanted: set[str], out: dict[str, Columns],
                 add: Add) -> None:
    """The groups' states and members, and their committed offsets on the named topics."""
    from kadmin.errors import GroupIdNotFoundError, KafkaError
    from kadmin.types import OffsetAndMetadata

    described = admin.describe_consumer_groups(group_list)
    for g in group_list:
        gd = described.get(g)
        if isinstance(gd, GroupIdNotFoundError):
            add("groups", g, None, 0, None)  # unknown: writing offsets creates it
        elif isinstance(gd, KafkaError) or gd is None:
            why = error_text(gd) if gd is not None else "it was not described"
            add("groups", g, None, None, f"group {g} could not be described: {why}")
        else:
            add("groups", g, gd.state, len(gd.members), None)
    committed = admin.list_consumer_group_offsets(group_list)
    for g in group_list:
        res = committed.get(g)
        if isinstance(res, GroupIdNotFoundError) or res is None:
            continue
        if isinstance(res, KafkaError):
            # Every row of the group carries it, through a group-level error.
            errors = out["groups"]["g_error"]
            i = group_list.index(g)
            errors[i] = errors[i] or f"the committed offsets of group {g} could not be read: {error_text(res)}"
            continue
        add_positions(add, g, res, wanted, lambda om: om.offset if isinstance(om, OffsetAndMetadata) else None,
                      "committed offset")


# --- the plan ---------------------------------------------------------------------------------------------


def plan_groups_offsets(df: DataFrame, admin: AdminClient, topic_plan: DataFrame | None) -> DataFrame:
    """The kind's plan rows (the plan's columns, see :mod:`kadmin.spark.plan`).

    ``topic_plan``: the topics' own plan rows when the spec has topics, so that a reset on a topic (or on a
    partition) the spec creates is planned against the empty log it will have."""
    spark = df.sparkSession
    d = desired_groups_offsets(df)
    wanted = d.filter("reason IS NULL").selectExpr(
        "grp", "topic", "CASE WHEN t_kind = 'timestamp' THEN t_value END AS ts").distinct().collect()
    from kadmin.errors import KafkaError

    try:
        state = read_state(admin, {r[0] for r in wanted}, {r[1] for r in wanted},
                           {(r[1], int(r[2])) for r in wanted if r[2] is not None})
    except KafkaError as exc:
        return unreadable_offsets(d, exc, KIND, "groups and offsets")
    return dedupe_offsets(offset_rows(targets(d, state, topic_plan, spark), KIND))


def unreadable_offsets(d: DataFrame, exc: BaseException, kind: str, what: str) -> DataFrame:
    """The kind could not be planned at all (no coordinator, no ListOffsets...): every row fails with it, the
    other kinds go on (as an unreadable state does for the rest)."""
    why = f"the cluster's {what} could not be read: {error_text(exc)}"
    log.warning("%s", why)
    return d.selectExpr(
        f"{sql_string(kind)} AS kind",
        "concat(coalesce(grp, ''), '/', coalesce(topic, ''), ':', coalesce(CAST(partition AS STRING), '*')) AS key",
        "'reject' AS action", "CAST(NULL AS STRING) AS old_value", "target AS new_value",
        "CASE WHEN reason IS NOT NULL THEN 'rejected' ELSE 'failed' END AS status",
        f"coalesce(reason, {sql_string(why)}) AS error", "CAST(NULL AS map<string,string>) AS args")


def targets(d: DataFrame, state: dict[str, Columns], topic_plan: DataFrame | None, spark: Any) -> DataFrame:
    """One row per (spec row, partition) joined with the cluster's state; ``fresh`` partitions (of a topic
    the spec creates or grows) start at 0, other targets are clamped to [log start, log end].  Also the
    share groups' start offsets' (:mod:`kadmin.spark.kinds.share_groups_offsets`: ``committed`` holds them)."""
    groups = frame(spark, state["groups"], GROUPS_SCHEMA)
    topics = frame(spark, state["topics"], TOPICS_SCHEMA)
    bounds = frame(spark, state["bounds"], BOUNDS_SCHEMA)
    times = frame(spark, state["times"], TIMES_SCHEMA)
    committed = frame(spark, state["committed"], COMMITTED_SCHEMA)

    j = d.join(topics, d["topic"] == topics["t_topic"], "left")
    if topic_plan is not None:
        tp = topic_plan.filter("status = 'planned' AND action IN ('create', 'alter')").selectExpr(
            "key AS p_topic", "action AS p_action", "CAST(args['partitions'] AS BIGINT) AS p_partitions")
        j = j.join(tp, j["topic"] == tp["p_topic"], "left")
    else:
        j = j.selectExpr("*", "CAST(NULL AS STRING) AS p_action", "CAST(NULL AS BIGINT) AS p_partitions")
    # The partition count the topic has once the topics' phases ran (null: created with the broker's default).
    count = ("CASE WHEN p_action = 'create' THEN p_partitions "
             "WHEN p_action = 'alter' THEN greatest(t_partitions, p_partitions) ELSE t_partitions END")
    j = j.selectExpr("*", f"{count} AS n")
    parts = ("CASE WHEN partition IS NOT NULL THEN array(partition) "
             "WHEN reason IS NULL AND n > 0 THEN sequence(CAST(0 AS BIGINT), n - 1) "
             "ELSE array(CAST(NULL AS BIGINT)) END")
    e = j.selectExpr("*", f"explode({parts}) AS p")
    e = e.join(bounds, (e["topic"] == bounds["b_topic"]) & (e["p"] == bounds["b_partition"]), "left")
    e = e.join(times, (e["topic"] == times["s_topic"]) & (e["p"] == times["s_partition"])
               & (e["t_value"] == times["s_ts"]) & (e["t_kind"] == "timestamp"), "left")
    e = e.join(committed, (e["grp"] == committed["c_group"]) & (e["topic"] == committed["c_topic"])
               & (e["p"] == committed["c_partition"]), "left")
    e = e.join(groups, e["grp"] == groups["g_group"], "left")

    fresh = "(p_action = 'create' OR (p IS NOT NULL AND t_partitions IS NOT NULL AND p >= t_partitions))"
    requested = (f"CASE WHEN {fresh} THEN 0 WHEN t_kind = 'earliest' THEN b_start WHEN t_kind = 'latest' THEN b_end "
                 "WHEN t_kind = 'offset' THEN t_value "
                 "WHEN t_kind = 'timestamp' THEN CASE WHEN s_offset >= 0 THEN s_offset ELSE b_end END END")
    target = f"CASE WHEN {fresh} THEN 0 ELSE least(greatest(_req, b_start), b_end) END"
    return e.selectExpr("*", f"{requested} AS _req", f"{fresh} AS _fresh").selectExpr("*", f"{target} AS _target")


def offset_rows(e: DataFrame, kind: str) -> DataFrame:
    """The plan rows of ``kind``: reject (the spec's fault), failed (the cluster's), alter or unchanged, with
    the reason."""
    fresh = "_fresh"
    missing = "concat('topic ', topic, ' does not exist and the spec does not create it')"
    no_part = ("concat('partition ', CAST(p AS STRING), ' of topic ', topic, ' does not exist (it has ', "
               "CAST(n AS STRING), ' partition(s))')")
    active = ("concat('group ', grp, ' is ', g_state, ' with ', CAST(g_members AS STRING), ' member(s): Kafka refuses "
              "offsets written from outside an active group (stop its consumers first)')")
    rejected = (f"CASE WHEN reason IS NOT NULL THEN reason "
                f"WHEN t_topic IS NULL AND p_action IS NULL THEN {missing} "
                "WHEN p IS NULL THEN concat('topic ', topic, ' is created by this spec with the default partition "
                "count of the broker, unknown here: give its partitions in topics, or name the partition') "
                f"WHEN n IS NOT NULL AND p >= n THEN {no_part} "
                "WHEN g_error IS NULL AND g_state IS NOT NULL "
                f"AND NOT g_state IN ({', '.join(map(sql_string, INACTIVE))}) THEN {active} END")
    failed = (f"CASE WHEN g_error IS NOT NULL THEN g_error WHEN t_error IS NOT NULL THEN concat('topic ', topic, "
              f"' could not be described: ', t_error) WHEN NOT {fresh} AND b_error IS NOT NULL THEN b_error "
              f"WHEN NOT {fresh} AND s_error IS NOT NULL THEN s_error WHEN c_error IS NOT NULL THEN c_error "
              f"WHEN NOT {fresh} AND _target IS NULL THEN 'the log offsets of the partition were not read' END")
    e = e.selectExpr("*", f"{rejected} AS _rejected").selectExpr(
        "*", f"CASE WHEN _rejected IS NULL THEN {failed} END AS _failed")
    key = "concat(coalesce(grp, ''), '/', coalesce(topic, ''), ':', coalesce(CAST(p AS STRING), '*'))"
    clamp = (f"CASE WHEN {fresh} THEN ', the topic is new' WHEN _req < b_start THEN ', clamped to the log start' "
             "WHEN _req > b_end THEN ', clamped to the log end' ELSE '' END")
    action = ("CASE WHEN _rejected IS NOT NULL OR _failed IS NOT NULL THEN 'reject' "
              "WHEN c_offset <=> _target THEN 'unchanged' ELSE 'alter' END")
    status = ("CASE WHEN _rejected IS NOT NULL THEN 'rejected' WHEN _failed IS NOT NULL THEN 'failed' "
              "WHEN c_offset <=> _target THEN 'unchanged' ELSE 'planned' END")
    rows = e.selectExpr(
        f"{sql_string(kind)} AS kind", f"{key} AS key", f"{action} AS action",
        "CAST(c_offset AS STRING) AS old_value",
        f"CASE WHEN _target IS NOT NULL AND _rejected IS NULL AND _failed IS NULL THEN "
        f"concat(CAST(_target AS STRING), ' (', target, {clamp}, ')') ELSE target END AS new_value",
        f"{status} AS status", "coalesce(_rejected, _failed) AS error",
        "map_filter(map('group', grp, 'topic', topic, 'partition', CAST(p AS STRING), 'offset', "
        "CAST(_target AS STRING), 'via', CASE WHEN p_action = 'create' THEN 'topic' END), "
        "(k, v) -> v IS NOT NULL) AS args",
        "coalesce(concat(t_kind, ':', coalesce(CAST(t_value AS STRING), '')), target) AS _sig")
    return rows


def dedupe_offsets(rows: DataFrame) -> DataFrame:
    """One row per key: identical rows (the same target twice, or a partition named by an "every partition"
    row and its own row with the same target) merge; different targets for one partition are all rejected."""
    w = "(PARTITION BY key ORDER BY coalesce(_sig, ''))"
    ranked = rows.selectExpr("*", f"row_number() OVER {w} AS _rn", f"rank() OVER {w} AS _rk",
                             f"dense_rank() OVER {w} AS _dr")
    kept = ranked.filter("_rn = _rk").selectExpr("*", "max(_dr) OVER (PARTITION BY key) AS _variants")
    conflict = "'conflicting targets for the same partition in the spec'"
    return kept.selectExpr(
        "kind", "key", "CASE WHEN _variants > 1 THEN 'reject' ELSE action END AS action", "old_value", "new_value",
        "CASE WHEN _variants > 1 THEN 'rejected' ELSE status END AS status",
        f"CASE WHEN _variants > 1 THEN concat_ws('; ', error, {conflict}) ELSE error END AS error", "args")


# --- apply ------------------------------------------------------------------------------------------------


def write_per_group(payloads: list[tuple[str, str, str, int, int]],
                    write: Callable[[str, dict[TopicPartition, int]], Mapping[TopicPartition, Any]],
                    skip: Callable[[str], BaseException | None] | None = None,
                    ) -> dict[str, BaseException | None]:
    """``payloads``: (plan key, group, topic, partition, offset); one ``write`` per group (its offsets by
    partition), or with ``skip`` (a validate run) none, each row getting what ``skip`` says of its group.
    Returns {plan key: None or the error}: a group whose call fails fails its rows alone."""
    from kadmin.errors import KafkaError
    from kadmin.types import TopicPartition

    by_group: dict[str, dict[TopicPartition, tuple[str, int]]] = {}
    for key, group, topic, partition, offset in payloads:
        by_group.setdefault(group, {})[TopicPartition(topic, partition)] = (key, offset)
    out: dict[str, BaseException | None] = {}
    for group, wanted in by_group.items():
        if skip is not None:
            out.update(dict.fromkeys((k for k, _ in wanted.values()), skip(group)))
            continue
        try:
            got = write(group, {tp: o for tp, (_, o) in wanted.items()})
        except KafkaError as exc:
            out.update(dict.fromkeys((k for k, _ in wanted.values()), exc))
            continue
        for tp, (k, _) in wanted.items():
            out[k] = got.get(tp, KafkaError(f"no result was returned for {tp}"))
    return out


def commit_offsets(admin: AdminClient, payloads: list[tuple[str, str, str, int, int]], validate: bool,
                   ) -> dict[str, BaseException | None]:
    """One OffsetCommit per group (:func:`write_per_group`).  ``validate`` sends nothing: OffsetCommit has no
    validate_only."""
    from kadmin.types import OffsetAndMetadata

    return write_per_group(
        payloads, lambda group, offsets: admin.alter_consumer_group_offsets(
            group, {tp: OffsetAndMetadata(o) for tp, o in offsets.items()}),
        (lambda group: None) if validate else None)


def item_payload(key: str, args: dict[str, str]) -> tuple[str, str, str, int, int]:
    """What one plan row sends: (key, group, topic, partition, offset); KeyError/ValueError on a bad row."""
    return key, args["group"], args["topic"], int(args["partition"]), int(args["offset"])


def plan(ctx: PlanContext) -> DataFrame:
    df = ctx.frame_of(KIND)
    assert df is not None
    return plan_groups_offsets(df, ctx.admin, ctx.parts.get("topics"))


def items(ctx: ApplyContext, phase: Phase, rows: list[Row]) -> list[Item]:
    return one_per_row(ctx, phase, rows, lambda key, action, a: (item_payload(key, a), key), lambda key, a: key)


def send(ctx: ApplyContext, batch: list[Item]) -> dict[str, BaseException | None]:
    return commit_offsets(ctx.admin, [i.payload for i in batch], ctx.validate)


EXPORT_SCHEMA: Schema = (("group", "string"), ("topic", "string"), ("partition", "bigint"), ("target", "string"))


def export(ctx: ExportContext) -> Columns:
    """Every consumer group's committed offsets (on the scope's topics) as ``offset:N`` targets.  A group with
    members is exported too, and noted: a provision refuses to move an active group's offsets."""
    from kadmin.errors import KafkaError
    from kadmin.types import OffsetAndMetadata

    listed = ctx.admin.list_consumer_groups()
    if listed.errors:  # a partial listing would export a partial spec as if it were whole
        broker, err = min(listed.errors.items())
        raise KafkaError(f"broker {broker} could not list its groups: {error_text(err)}")
    groups = listed.group_ids()
    cols: Columns = {n: [] for n, _ in EXPORT_SCHEMA}
    committed = ctx.admin.list_consumer_group_offsets(groups) if groups else {}
    for g in groups:
        res = committed.get(g)
        if isinstance(res, KafkaError) or res is None:
            ctx.notes.append(f"groups_offsets: group {g} left out: "
                             f"{error_text(res) if res is not None else 'no answer'}")
            continue
        for tp, om in sorted(res.items(), key=lambda kv: (kv[0].topic, kv[0].partition)):
            if isinstance(om, OffsetAndMetadata) and ctx.topic_wanted(tp.topic):
                for name, v in zip(cols, (g, tp.topic, tp.partition, f"offset:{om.offset}"), strict=True):
                    cols[name].append(v)
    states = {g.group_id: g.state for g in listed.groups}
    active = sorted(g for g in set(cols["group"]) if str(states.get(g) or "") not in ("", *INACTIVE))
    if active:
        ctx.notes.append(f"groups_offsets: group(s) {', '.join(active)} have members: a provision rejects "
                         "their rows until their consumers stop")
    return cols


register(Kind(
    name=KIND, order=4, columns=COLUMNS, plan=plan, items=items,
    # after the topics they name exist, after the grants; resets are never deletions
    export=export, export_schema=EXPORT_SCHEMA,
    phases=(Phase(KIND, ("alter",), "group offsets reset", 80, send),),
    owners=(Owner("topics", "args['topic']", lambda a: a.get("topic"), "topic ", ("alter",)),),
    group="args['group']",
))


__all__ = ["KIND", "commit_offsets", "dedupe_offsets", "desired_groups_offsets", "item_payload", "offset_rows",
           "plan_groups_offsets", "read_state", "targets", "unreadable_offsets"]
