"""The plan: desired quotas (a DataFrame) against the cluster's current ones, as a Spark join.

Why the current quotas go to Spark, not the desired rows to the driver: the desired table can be as large
as the input data, while the current quotas of the entities in scope are whatever one DescribeClientQuotas
returns (which the driver holds anyway).  So the driver reads them once, turns them into a small DataFrame,
and the diff is a join that runs where the desired rows are.

**Scope** is the set of entity *shapes* (which of user / client-id / ip an entity has) whose current quotas
are read, and which ``remove_unlisted`` may remove from.  By default it is the shapes present in the valid
input rows: an input of ``user`` rows only reads (and with ``remove_unlisted`` prunes) user entities, never
``user+client-id`` or ``ip`` ones.  Pass ``scope`` to widen or narrow it: ``"user"``, ``["user",
("user", "client-id")]``, or ``"all"`` for every entity in the cluster.  The describe is always one call:
one shape is a strict filter of ``any`` components; several shapes use the components they share,
non-strict, and the entities of other shapes are dropped on the driver.

Actions, per (entity, quota_key):

* ``set``: the desired value is new, or differs from the current one (exact double equality: 0.1+0.2 is
  not 0.3, and a value that reads back with the same bits is unchanged);
* ``remove``: the input asks for it (a null value) and the key is set, or ``remove_unlisted`` is on and the
  key is set on an in-scope entity but not in the input (a rejected row still counts as "in the input",
  so a typo never turns into a removal);
* ``unchanged``: the value is already the desired one, or a removal asks for a key that is not set;
* ``reject``: the row is invalid; ``error`` says why.
"""

from __future__ import annotations

import inspect as _inspect
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import DoubleType, StringType, StructField, StructType

from kadmin.spark.kinds.quotas.schema import (
    COLUMN_ALIASES,
    DEFAULT_ENTITY,
    ENTITY_COLUMNS,
    ENTITY_TYPES,
    KEY_COLUMN,
    RESULT_COLUMNS,
    VALUE_COLUMN,
    entity_schema,
    normalize,
    sql_name,
    sql_string,
)
from kadmin.spark.kinds.quotas.validate import REASON, validate

if TYPE_CHECKING:
    from kadmin.client import AdminClient

log = logging.getLogger("kadmin.spark")

#: An entity shape: the entity columns an entity has, e.g. frozenset({"user", "client_id"}).
Shape = frozenset[str]
ScopeArg: TypeAlias = "str | Iterable[str | Iterable[str]] | None"

_COLUMN_OF_TYPE = {t: c for c, t in ENTITY_TYPES.items()}
_VALID_SHAPES: frozenset[Shape] = frozenset({
    frozenset({"user"}), frozenset({"client_id"}), frozenset({"user", "client_id"}), frozenset({"ip"}),
})


def current_schema() -> StructType:
    return entity_schema([StructField(KEY_COLUMN, StringType(), False), StructField(VALUE_COLUMN, DoubleType(), False)])


# --- scope ----------------------------------------------------------------------------------------------


def _shape_of(names: Iterable[str], where: str) -> Shape:
    cols: set[str] = set()
    for n in names:
        if not isinstance(n, str):
            raise TypeError(f"{where}: entity types must be strings, not {n!r}")
        col = _COLUMN_OF_TYPE.get(n) or (n if n in ENTITY_COLUMNS else COLUMN_ALIASES.get(n))
        if col is None:
            raise ValueError(f"{where}: unknown entity type {n!r} (use user, client-id or ip)")
        cols.add(col)
    shape = frozenset(cols)
    if shape not in _VALID_SHAPES:
        raise ValueError(f"{where}: {sorted(shape) or 'nothing'} is not an entity Kafka accepts "
                         "(user, client-id, user+client-id, or ip alone)")
    return shape


def parse_scope(scope: ScopeArg) -> list[Shape] | None:
    """The shapes ``scope`` names, sorted; None for ``"all"``.  (``scope=None`` is resolved by the caller.)"""
    if scope == "all":
        return None
    if isinstance(scope, str):
        return [_shape_of([scope], "scope")]
    if scope is None:
        raise TypeError("parse_scope needs a scope; None means 'detect from the input'")
    shapes: set[Shape] = set()
    for item in scope:
        shapes.add(_shape_of([item] if isinstance(item, str) else list(item), "scope"))
    if not shapes:
        raise ValueError("scope is empty; pass None to use the entity shapes of the input")
    return sorted(shapes, key=_shape_order)


def _shape_order(s: Shape) -> tuple[int, ...]:
    return tuple(sorted(ENTITY_COLUMNS.index(c) for c in s))


@dataclass(frozen=True)
class InputSummary:
    shapes: list[Shape]  # of the valid rows, sorted
    valid: int
    rejected: int


def inspect(validated: DataFrame) -> InputSummary:
    """The shapes of the valid rows and the valid/rejected row counts, in one small aggregation job."""
    flags = validated.groupBy(*(F.col(c).isNotNull().alias(c) for c in ENTITY_COLUMNS),
                              F.col(REASON).isNull().alias("_valid")).count().collect()
    shapes = {frozenset(c for c in ENTITY_COLUMNS if row[c]) for row in flags if row["_valid"]}
    return InputSummary(sorted((s for s in shapes if s in _VALID_SHAPES), key=_shape_order),
                        sum(int(row["count"]) for row in flags if row["_valid"]),
                        sum(int(row["count"]) for row in flags if not row["_valid"]))


def detect_scope(validated: DataFrame) -> list[Shape]:
    """The shapes of the valid input rows (see :func:`inspect`)."""
    return inspect(validated).shapes


def scope_filter(shapes: list[Shape] | None) -> Any:
    """The one DescribeClientQuotas filter covering ``shapes`` (None = all); see the module docstring."""
    from kadmin.quotas import ClientQuotaFilter, ClientQuotaFilterComponent

    if shapes is None:
        return ClientQuotaFilter.all()
    if len(shapes) == 1:
        return ClientQuotaFilter([ClientQuotaFilterComponent.any(ENTITY_TYPES[c]) for c in sorted(shapes[0])],
                                 strict=True)
    shared = frozenset.intersection(*shapes)
    return ClientQuotaFilter([ClientQuotaFilterComponent.any(ENTITY_TYPES[c]) for c in sorted(shared)],
                             strict=False)


# --- current quotas ---------------------------------------------------------------------------------------


def entity_row(entity: Any) -> tuple[str | None, str | None, str | None] | None:
    """A ClientQuotaEntity as (user, client_id, ip) cells, ``<default>`` for defaults; None if it has a type
    kadmin's columns cannot hold (such an entity is never in a scope)."""
    cells: dict[str, str | None] = dict.fromkeys(ENTITY_COLUMNS)
    for etype, name in entity.items():
        col = _COLUMN_OF_TYPE.get(etype)
        if col is None:
            return None
        cells[col] = DEFAULT_ENTITY if name is None else name
    return cells["user"], cells["client_id"], cells["ip"]


Columns = dict[str, list[Any]]


def current_columns(described: dict[Any, dict[str, float]], shapes: list[Shape] | None) -> Columns:
    """Describe results as columns (user, client_id, ip, quota_key, value), restricted to ``shapes``.

    Consumes ``described`` (popitem) so that the entities are freed as the columns grow: with 100,000
    entities in scope the describe answer is the largest thing the driver ever holds, and holding it twice
    would double the peak.
    """
    wanted = None if shapes is None else set(shapes)
    cols: Columns = {c: [] for c in (*ENTITY_COLUMNS, KEY_COLUMN, VALUE_COLUMN)}
    user, client, ip, keys, values = (cols[c] for c in (*ENTITY_COLUMNS, KEY_COLUMN, VALUE_COLUMN))
    while described:
        entity, quota = described.popitem()
        cells = entity_row(entity)
        if cells is None:
            continue
        if wanted is not None and frozenset(c for c, v in zip(ENTITY_COLUMNS, cells, strict=True)
                                            if v is not None) not in wanted:
            continue
        for key, value in quota.items():
            user.append(cells[0])
            client.append(cells[1])
            ip.append(cells[2])
            keys.append(key)
            values.append(float(value))
    return cols


def check_admin(admin: object) -> None:
    """Refuse the asyncio client up front: its methods return coroutines, which would fail deep inside."""
    for name in ("describe_client_quotas", "alter_client_quotas"):
        method = getattr(admin, name, None)
        if method is None:
            raise TypeError(f"admin must be a kadmin.AdminClient (it has no {name}), not {admin!r}")
        if _inspect.iscoroutinefunction(method):
            raise TypeError("admin must be the synchronous kadmin.AdminClient, not kadmin.aio.AdminClient: "
                            "Spark's driver code is synchronous")


def read_current(admin: AdminClient, shapes: list[Shape] | None) -> Columns:
    """One DescribeClientQuotas on the driver for the scope, as columns (nothing is read for an empty scope)."""
    if shapes is not None and not shapes:
        return current_columns({}, shapes)
    described = admin.describe_client_quotas(scope_filter(shapes))
    entities = len(described)
    cols = current_columns(described, shapes)
    log.info("read %d current quota value(s) of %d entities in scope %s", len(cols[KEY_COLUMN]), entities,
             "all" if shapes is None else [sorted(s) for s in shapes])
    return cols


def current_frame(spark: SparkSession, cols: Columns) -> DataFrame:
    """The current quotas as a DataFrame, through Arrow when pyarrow and PySpark 4 allow it.

    Arrow keeps the driver's peak low (column buffers instead of a Python tuple per row, and no second
    copy for pickling) and carries doubles bit for bit, as the row path does.
    """
    schema = current_schema()
    table = _arrow_table(cols)
    if table is not None:
        return spark.createDataFrame(table, schema=schema)
    names = (*ENTITY_COLUMNS, KEY_COLUMN, VALUE_COLUMN)
    return spark.createDataFrame(list(zip(*(cols[c] for c in names), strict=True)), schema=schema)


def _arrow_table(cols: Columns) -> Any:
    try:
        import pyarrow as pa  # type: ignore[import-untyped]
        import pyspark
    except ImportError:
        return None
    if int(pyspark.__version__.split(".")[0]) < 4:  # createDataFrame(pyarrow.Table) is new in Spark 4.0
        return None
    return pa.table({
        **{c: pa.array(cols[c], type=pa.string()) for c in ENTITY_COLUMNS},
        KEY_COLUMN: pa.array(cols[KEY_COLUMN], type=pa.string()),
        VALUE_COLUMN: pa.array(cols[VALUE_COLUMN], type=pa.float64()),
    })


# --- diff -------------------------------------------------------------------------------------------------


#: Current quota values up to which the diff broadcasts them (the driver holds them anyway); above it, or
#: with remove_unlisted (a full outer join cannot broadcast), Spark joins by shuffling both sides.
BROADCAST_LIMIT = 2_000_000


def diff(validated: DataFrame, current: DataFrame, *, remove_unlisted: bool, broadcast: bool = False,
         change_status: str = "planned") -> DataFrame:
    """The plan: one row per (entity, key) in the results schema, status unchanged / rejected, and
    ``change_status`` for set/remove rows (``planned``; provisioning puts the status a success will have,
    so that the plan it caches is already the results when nothing fails).

    ``validated`` is :func:`kadmin.spark.kinds.quotas.validate.validate`'s output (rejected rows included, so that they
    both show the current value and protect their key from ``remove_unlisted``); ``current`` holds only
    in-scope entities.
    """
    # SQL text, not Column objects: one py4j round trip per select instead of one per column and operator.
    ents = [(sql_name(col), sql_name("d_" + col), sql_name("c_" + col)) for col in ENTITY_COLUMNS]
    d = validated.selectExpr(*(f"{n} AS {dn}" for n, dn, _ in ents), f"{sql_name(KEY_COLUMN)} AS d_key",
                             f"{sql_name(VALUE_COLUMN)} AS new_value", sql_name(REASON), "true AS _desired")
    c = current.selectExpr(*(f"{n} AS {cn}" for n, _, cn in ents), f"{sql_name(KEY_COLUMN)} AS c_key",
                           f"{sql_name(VALUE_COLUMN)} AS old_value")
    if broadcast and not remove_unlisted:
        c = F.broadcast(c)
    cond = F.expr(" AND ".join([f"{dn} <=> {cn}" for _, dn, cn in ents] + ["d_key = c_key"]))
    joined = d.join(c, on=cond, how="full_outer" if remove_unlisted else "left")
    desired, reason = "(_desired IS NOT NULL)", sql_name(REASON)
    action = (
        f"CASE WHEN {desired} AND {reason} IS NOT NULL THEN 'reject' "
        f"WHEN NOT {desired} THEN 'remove' "  # only with remove_unlisted: in scope, set, not in the input
        "WHEN new_value IS NULL AND old_value IS NULL THEN 'unchanged' "
        "WHEN new_value IS NULL THEN 'remove' "
        "WHEN old_value IS NOT NULL AND (new_value = old_value) THEN 'unchanged' "
        "ELSE 'set' END"
    )
    status = f"CASE WHEN action = 'reject' THEN 'rejected' WHEN action = 'unchanged' THEN 'unchanged' " \
             f"ELSE {sql_string(change_status)} END"
    return joined.selectExpr(
        *(f"CASE WHEN {desired} THEN {dn} ELSE {cn} END AS {n}" for n, dn, cn in ents),
        f"CASE WHEN {desired} THEN d_key ELSE c_key END AS {sql_name(KEY_COLUMN)}",
        "old_value",
        f"CASE WHEN {desired} THEN new_value ELSE CAST(NULL AS DOUBLE) END AS new_value",
        f"{action} AS action",
        reason,
    ).selectExpr(*(sql_name(col) for col in RESULT_COLUMNS[:7]), f"{status} AS status", f"{reason} AS error")


def plan_quotas(desired_df: DataFrame, admin: AdminClient, *, scope: ScopeArg = None, remove_unlisted: bool = False,
                format: str | None = None, allow_unknown_keys: bool = False) -> DataFrame:
    """What provisioning ``desired_df`` would do, without sending anything: the results schema with
    status ``planned`` (for set/remove), ``unchanged`` or ``rejected``.

    Runs a small Spark job to find the scope (unless ``scope`` is given) and one DescribeClientQuotas on
    the driver; the returned DataFrame is lazy and never collects the desired table.
    """
    validated, current, n_current = prepare(desired_df, admin, scope=scope, format=format,
                                            allow_unknown_keys=allow_unknown_keys)
    return diff(validated, current, remove_unlisted=remove_unlisted, broadcast=n_current <= BROADCAST_LIMIT)


def prepare(desired_df: DataFrame, admin: AdminClient, *, scope: ScopeArg, format: str | None,
            allow_unknown_keys: bool) -> tuple[DataFrame, DataFrame, int]:
    """(validated desired rows, current quotas of the scope as a DataFrame, how many current values)."""
    check_admin(admin)
    if not isinstance(allow_unknown_keys, bool):
        raise TypeError(f"allow_unknown_keys must be a bool, not {allow_unknown_keys!r}")
    validated = validate(normalize(desired_df, format), allow_unknown_keys=allow_unknown_keys)
    shapes = detect_scope(validated) if scope is None else parse_scope(scope)
    cols = read_current(admin, shapes)
    return validated, current_frame(desired_df.sparkSession, cols), len(cols[KEY_COLUMN])
