"""SQL text and plan-row helpers every kind shares (no PySpark import at module level: see kinds/__init__).

A kind's plan is SQL text handed to Spark in a few ``selectExpr`` calls (one py4j round trip per select, not one
per column and operator); these helpers build the pieces: a rule's reason, the plan's own columns, deletions of
unlisted in-scope entities, the rows of a kind the cluster cannot describe, dependents of a failed owner.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from kadmin.errors import KafkaError
from kadmin.spark.sqltext import sql_name, sql_string

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

log = logging.getLogger("kadmin.spark")

PLANNED, UNCHANGED, REJECTED = "planned", "unchanged", "rejected"
CHANGES = ("create", "alter", "delete", "reassign")
_MAX_INT32 = 2**31 - 1
_MAX_INT16 = 2**15 - 1

#: A kind's current state, as columns (lists) built on the driver.
Columns = dict[str, list[Any]]
#: A state frame's schema: (column, Spark SQL type) pairs (built into a StructType only when used).
Schema = tuple[tuple[str, str], ...]


def error_text(err: BaseException) -> str:
    name = getattr(err, "name", None)
    return f"{name or type(err).__name__}: {err}"


def empty(schema: Schema) -> Columns:
    return {name: [] for name, _ in schema}


def frame(spark: SparkSession, cols: Columns, schema: Schema) -> DataFrame:
    """``cols`` as a DataFrame of ``schema``: through a pyarrow Table when PySpark 4 and pyarrow are there
    (column buffers, no Python tuple per row)."""
    from pyspark.sql.types import BooleanType, DoubleType, LongType, StringType, StructField, StructType

    spark_types = {"string": StringType(), "bigint": LongType(), "double": DoubleType(), "boolean": BooleanType()}
    struct = StructType([StructField(n, spark_types[t], True) for n, t in schema])
    try:
        import pyarrow as pa  # type: ignore[import-untyped]
        import pyspark

        arrow = int(pyspark.__version__.split(".")[0]) >= 4
    except ImportError:
        arrow = False
    if arrow:
        types = {"string": pa.string(), "bigint": pa.int64(), "double": pa.float64(), "boolean": pa.bool_()}
        table = pa.table({n: pa.array(cols[n], type=types[t]) for n, t in schema})
        return spark.createDataFrame(table, schema=struct)
    return spark.createDataFrame(list(zip(*(cols[n] for n, _ in schema), strict=True)), schema=struct)


def pick(cols: Columns, keep: list[int], schema: Schema) -> Columns:
    """The rows ``keep`` (indexes) of ``cols``, in the columns of ``schema`` (an export's own columns)."""
    return {name: [cols[name][i] for i in keep] for name, _ in schema}


def read_kind(what: str, schema: Schema, read: Callable[[], Columns]) -> tuple[Columns, str | None]:
    """``read()``'s columns and None, or empty columns of ``schema`` and the reason the kind's rows fail.

    Why per kind and not a stopped run: a cluster may lack one API (SCRAM users before 2.7, quotas on
    librdkafka's mock, ACLs without an authorizer) or refuse it to the caller, while everything else in the
    spec can be provisioned.  Only kadmin's errors are caught: a bug or bad input still raises."""
    try:
        return read(), None
    except KafkaError as exc:
        reason = f"the cluster's {what} could not be read: {error_text(exc)}"
        log.warning("%s", reason)
        return empty(schema), reason


def unreadable(part: DataFrame, reason: str | None) -> DataFrame:
    """A kind's plan rows (planned against an empty state) as not planned: failed with ``reason``, except rows
    rejected for their own content, which keep their reason.  Nothing of the kind is deleted or sent, so a
    re-run once the cluster can answer plans it normally.  ``reason`` None: the rows as they are."""
    if reason is None:
        return part
    own = "action = 'reject'"
    return part.selectExpr(
        "kind", "key", "'reject' AS action", "CAST(NULL AS STRING) AS old_value", "new_value",
        f"CASE WHEN {own} THEN status ELSE 'failed' END AS status",
        f"CASE WHEN {own} THEN error ELSE {sql_string(reason)} END AS error", "args")


def skip_dependents(part: DataFrame, owners: DataFrame, on: str, what: str,
                    actions: tuple[str, ...] = ("create",)) -> DataFrame:
    """Rows of ``part`` whose owner (``on``: SQL over the row giving the owner's name) is in ``owners``
    (columns ``_dep``: the name, ``_why``: why it cannot be relied on), as ``skipped`` with the reason, when
    they would create something; other rows unchanged.  A grant for a principal with no credential is a
    dangling grant: a later user of that name would inherit it."""
    from pyspark.sql import functions as F

    # One reason per owner (an owner with two bad rows must not double its dependents' rows).
    one = F.broadcast(owners.filter("_dep IS NOT NULL").groupBy("_dep").agg(F.min("_why").alias("_why")))
    j = part.selectExpr("*", f"{on} AS _on").join(one, F.col("_on") == F.col("_dep"), "left")
    hit = f"(_dep IS NOT NULL AND action IN ({', '.join(map(sql_string, actions))}))"
    return j.selectExpr(
        "kind", "key", f"CASE WHEN {hit} THEN 'reject' ELSE action END AS action", "old_value", "new_value",
        f"CASE WHEN {hit} THEN 'skipped' ELSE status END AS status",
        f"CASE WHEN {hit} THEN concat({sql_string(what)}, _dep, ' could not be provisioned: ', _why) "
        "ELSE error END AS error", "args")


def union(parts: Iterable[DataFrame]) -> DataFrame:
    out: DataFrame | None = None
    for p in parts:
        out = p if out is None else out.unionByName(p)
    if out is None:
        raise ValueError("nothing to union")
    return out


def column_or(df: DataFrame, name: str, default_sql: str) -> str:
    """SQL text for ``name`` as a string, or ``default_sql`` when the frame has no such column."""
    if name in df.columns:
        return f"CAST({sql_name(name)} AS STRING)"
    return default_sql


def int_column(df: DataFrame, name: str) -> tuple[str, str]:
    """(the column as a BIGINT or null, the raw text when it is not a whole number) as SQL text."""
    if name not in df.columns:
        return "CAST(NULL AS BIGINT)", "CAST(NULL AS STRING)"
    raw = sql_name(name)
    text = f"trim(CAST({raw} AS STRING))"
    parsed = f"try_cast({text} AS BIGINT)"
    value = f"(CASE WHEN {raw} IS NULL OR {text} = '' THEN CAST(NULL AS BIGINT) ELSE {parsed} END)"
    bad = f"(CASE WHEN {raw} IS NOT NULL AND {text} != '' AND {parsed} IS NULL THEN {text} END)"
    return value, bad


def configs_column(df: DataFrame) -> str:
    """The ``configs`` column as a map<string,string> (null when absent), as SQL text."""
    from pyspark.sql.types import MapType, NullType, StructType

    field_type = next(f.dataType for f in df.schema.fields if f.name == "configs")
    raw = sql_name("configs")
    if isinstance(field_type, MapType):
        return f"transform_values({raw}, (k, v) -> CAST(v AS STRING))"
    if isinstance(field_type, StructType):
        return f"from_json(to_json({raw}), 'map<string,string>')"
    if isinstance(field_type, NullType):
        return "CAST(NULL AS map<string,string>)"
    return f"(CASE WHEN trim({raw}) = '' THEN CAST(NULL AS map<string,string>) " \
           f"ELSE from_json({raw}, 'map<string,string>') END)"


def when(cond: str, reason: str) -> str:
    return f"CASE WHEN {cond} THEN {reason} END"


def reasons(rules: Iterable[str]) -> str:
    joined = f"concat_ws('; ', {', '.join(rules)})"
    return f"nullif({joined}, '')"


def is_in(col: str, values: Iterable[str]) -> str:
    return f"({col} IN ({', '.join(sql_string(v) for v in sorted(values))}))"


def enum(col: str) -> str:
    """Kafka's enum spelling of a cell: trimmed, upper case, ``-`` and spaces as ``_``."""
    return f"upper(regexp_replace(trim({col}), '[- ]', '_'))"


def dedupe(df: DataFrame, key: str, sig: str, reason: str) -> DataFrame:
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


STATUS = (f"CASE WHEN action = 'reject' THEN '{REJECTED}' WHEN action = 'unchanged' THEN '{UNCHANGED}' "
           f"ELSE '{PLANNED}' END")


def finish(df: DataFrame, kind: str) -> DataFrame:
    """Rows with ``key, action, old_value, new_value, error, args`` into the plan's columns."""
    return df.selectExpr(f"{sql_string(kind)} AS kind", "key", "action", "old_value", "new_value",
                         f"{STATUS} AS status", "CASE WHEN action = 'reject' THEN error END AS error", "args")


def deletions(current: DataFrame, desired_keys: DataFrame, old_value: str, args: str) -> DataFrame:
    """In-scope current entities that no desired row (valid or not) names, as ``delete`` rows."""
    gone = current.filter("in_scope").join(desired_keys, on="key", how="left_anti")
    return gone.selectExpr("key", "'delete' AS action", f"{old_value} AS old_value",
                           "CAST(NULL AS STRING) AS new_value", "CAST(NULL AS STRING) AS error", f"{args} AS args")


def hold_deletions(gone: DataFrame, rejected: DataFrame, on: str, what: str) -> DataFrame:
    """Deletion rows (the plan's columns) of an owner (``on``: SQL over the row, e.g. ``args['user']``) that
    has a rejected row in the spec (``rejected``: one column ``_held``), as ``skipped`` with the reason.

    Why: a rejected row's key is built from what it says, so a typo in a key field (``SCRAM-SHA-265``, an
    operation ``READD``) names nothing on the cluster, and the entity it meant would look unlisted: with
    ``remove_unlisted`` the typo would delete the tenant's credential or grant and lock it out.  Nothing of
    an owner the spec got wrong is deleted until its rows are fixed."""
    from pyspark.sql import functions as F

    held = rejected.filter("_held IS NOT NULL").distinct()
    j = gone.selectExpr("*", f"{on} AS _on").join(held, F.col("_on") == F.col("_held"), "left")
    hit = "(_held IS NOT NULL AND action = 'delete')"
    why = (f"concat('not deleted: the spec has a rejected row for {what} ', _held, "
           "' (fix it first: a typo never becomes a deletion)')")
    return j.selectExpr(
        "kind", "key", f"CASE WHEN {hit} THEN 'reject' ELSE action END AS action", "old_value", "new_value",
        f"CASE WHEN {hit} THEN 'skipped' ELSE status END AS status", f"CASE WHEN {hit} THEN {why} ELSE error END "
        "AS error", "args")


def topic_name_rules(col: str, what: str) -> list[str]:
    return [
        when(f"{col} IS NULL OR {col} = ''", sql_string(f"{what} is empty")),
        when(f"{col} IN ('.', '..')", f"concat({sql_string(what + ' ')}, {col}, ' is not allowed')"),
        when(f"length({col}) > 249", sql_string(f"{what} is longer than 249 characters")),
        when(f"{col} != '' AND NOT {col} RLIKE '^[a-zA-Z0-9._-]+$'",
              f"concat({sql_string(what + ' ')}, {sql_string(chr(39))}, {col}, {sql_string(chr(39))}, "
              f"' has characters Kafka refuses (legal: a-z A-Z 0-9 . _ -)')"),
    ]


def int_rules(value: str, bad: str, what: str, lo: int, hi: int) -> list[str]:
    return [
        when(f"{bad} IS NOT NULL", f"concat({sql_string(what + ' ')}, {sql_string(chr(39))}, {bad}, "
                                    f"{sql_string(chr(39) + ' is not a whole number')})"),
        when(f"{value} < {lo} OR {value} > {hi}",
              f"concat({sql_string(f'{what} must be between {lo} and {hi}, not ')}, CAST({value} AS STRING))"),
    ]


# --- topics and their configs -----------------------------------------------------------------------------
