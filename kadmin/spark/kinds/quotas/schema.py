"""Input formats for desired quotas, and their normalization to one long table of doubles.

Two layouts are accepted because both are what people already keep:

* **long**: entity columns plus ``quota_key`` and ``value`` (one row per entity and key): what
  ``kafka-configs.sh --describe`` prints, and the only layout that can say "remove this key"
  (a null ``value``);
* **wide**: entity columns plus one column per quota key (one row per entity): what a spreadsheet of
  tenants looks like.  A null cell means "this key is not specified for this entity", never "remove it":
  a sparse sheet must not wipe every key it leaves blank.  Remove keys in wide format with
  ``remove_unlisted=True``, or use long format.

Entity columns are ``user``, ``client_id`` and ``ip`` (``client-id`` is accepted as a spelling of
``client_id``); any subset may be present.  Within a row, a null or empty entity cell means "not part of this
entity", and the literal ``<default>`` addresses the default entity of that type, as ``kafka-configs.sh
--entity-default`` does (so a user really named ``<default>`` cannot be addressed, as with that tool).

Values are normalized to ``DoubleType`` in Spark, because quotas are doubles on the wire:

* ``DoubleType`` keeps its exact bits all the way to the request (only ``-0.0`` becomes ``0.0``);
* integer columns convert exactly up to 2**53; larger integers become the nearest double;
* ``DecimalType`` converts to the nearest double: a decimal with more significant digits than a double
  holds (about 15-17) cannot be sent exactly, and is sent as that nearest double;
* ``FloatType`` widens exactly, but a float32 ``0.1`` is 0.100000001490116..., not the double 0.1;
* strings are parsed as Spark parses doubles (correctly rounded, like Python's ``float()``); a blank string
  counts as null, and a string that is not a number is kept and rejected later with its text in the reason.
"""

from __future__ import annotations

import logging

from pyspark.sql import DataFrame
from pyspark.sql.types import (
    DataType,
    DecimalType,
    DoubleType,
    IntegralType,
    NullType,
    NumericType,
    StringType,
    StructField,
    StructType,
)

from kadmin.spark.sqltext import sql_name as sql_name
from kadmin.spark.sqltext import sql_string as sql_string

log = logging.getLogger("kadmin.spark")

ENTITY_COLUMNS: tuple[str, ...] = ("user", "client_id", "ip")
#: Kafka's entity type name for each entity column.
ENTITY_TYPES: dict[str, str] = {"user": "user", "client_id": "client-id", "ip": "ip"}
COLUMN_ALIASES: dict[str, str] = {"client-id": "client_id"}
DEFAULT_ENTITY = "<default>"
KEY_COLUMN = "quota_key"
VALUE_COLUMN = "value"
FORMATS = ("long", "wide")

#: Columns of every results DataFrame (plan, validate and apply), in this order.
RESULT_COLUMNS: tuple[str, ...] = (
    "user", "client_id", "ip", "quota_key", "old_value", "new_value", "action", "status", "error",
)

# Internal column of the normalized table: the raw text of a value that did not parse as a number.
UNPARSED = "_unparsed"


def result_schema() -> StructType:
    """The schema of the results DataFrame; a function so that importing this module builds nothing."""
    return StructType([
        StructField("user", StringType(), True),
        StructField("client_id", StringType(), True),
        StructField("ip", StringType(), True),
        StructField("quota_key", StringType(), True),
        StructField("old_value", DoubleType(), True),
        StructField("new_value", DoubleType(), True),
        StructField("action", StringType(), False),
        StructField("status", StringType(), False),
        StructField("error", StringType(), True),
    ])


def entity_schema(extra: list[StructField] | None = None) -> StructType:
    return StructType([StructField(c, StringType(), True) for c in ENTITY_COLUMNS] + (extra or []))


def detect_format(df: DataFrame, format: str | None = None) -> str:
    """``long`` when the frame has both ``quota_key`` and ``value``, else ``wide``; or check ``format``."""
    cols = set(_canonical_names(df))
    if format is not None:
        if format not in FORMATS:
            raise ValueError(f"format must be one of {FORMATS}, not {format!r}")
        if format == "long" and not {KEY_COLUMN, VALUE_COLUMN} <= cols:
            raise ValueError(f"long format needs columns {KEY_COLUMN!r} and {VALUE_COLUMN!r}; "
                             f"the input has {sorted(df.columns)}")
        return format
    has_key, has_value = KEY_COLUMN in cols, VALUE_COLUMN in cols
    if has_key and has_value:
        return "long"
    if has_key != has_value:
        missing = VALUE_COLUMN if has_key else KEY_COLUMN
        raise ValueError(f"the input looks like long format but has no {missing!r} column; pass format='wide' "
                         f"if {KEY_COLUMN!r}/{VALUE_COLUMN!r} really are quota keys")
    return "wide"


def normalize(df: DataFrame, format: str | None = None) -> DataFrame:
    """The input as long rows: ``user, client_id, ip, quota_key, value`` (double) and ``_unparsed``.

    Schema problems (no entity column, a column of a type that cannot hold a quota) raise here, before
    any Spark job runs; problems of single rows are left for validation to report per row.
    """
    fmt = detect_format(df, format)
    names = _canonical_names(df)
    present = [c for c in ENTITY_COLUMNS if c in names.values()]
    if not present:
        raise ValueError(f"the input has none of the entity columns {list(ENTITY_COLUMNS)}; "
                         f"it has {sorted(df.columns)}")
    by_canonical = {canon: original for original, canon in names.items()}
    # SQL text, not Column objects: one py4j round trip per select instead of one per column and operator.
    entity_cols = [_entity_column(df, by_canonical[c], c) if c in by_canonical
                   else f"CAST(NULL AS STRING) AS {sql_name(c)}" for c in ENTITY_COLUMNS]

    if fmt == "long":
        key_field = _field(df, by_canonical[KEY_COLUMN])
        if not isinstance(key_field.dataType, (StringType, NullType)):
            raise TypeError(f"column {key_field.name!r} must hold strings (quota key names), "
                            f"not {key_field.dataType.simpleString()}")
        ignored = sorted(o for o, c in names.items() if c not in (*ENTITY_COLUMNS, KEY_COLUMN, VALUE_COLUMN))
        if ignored:
            log.debug("long-format input: ignoring columns %s", ignored)
        value, unparsed = _value_columns(df, by_canonical[VALUE_COLUMN])
        return df.selectExpr(
            *entity_cols,
            f"CAST({sql_name(key_field.name)} AS STRING) AS {sql_name(KEY_COLUMN)}",
            f"{value} AS {sql_name(VALUE_COLUMN)}",
            f"{unparsed} AS {sql_name(UNPARSED)}",
        )

    key_columns = [o for o, c in names.items() if c not in ENTITY_COLUMNS]
    if not key_columns:
        raise ValueError("wide-format input needs at least one quota key column besides the entity columns; "
                         f"it has {sorted(df.columns)}")
    cells = []
    for original in key_columns:
        value, unparsed = _value_columns(df, original)
        specified = f"({sql_name(original)} IS NOT NULL AND NOT {_is_blank(df, original)})"
        cells.append(f"named_struct({sql_string(KEY_COLUMN)}, {sql_string(original)}, "
                     f"{sql_string(VALUE_COLUMN)}, {value}, "
                     f"{sql_string(UNPARSED)}, {unparsed}, '_specified', {specified})")
    exploded = df.selectExpr(*entity_cols, f"explode(array({', '.join(cells)})) AS _cell")
    return exploded.filter("_cell._specified").selectExpr(
        *(sql_name(c) for c in ENTITY_COLUMNS),
        *(f"_cell.{sql_name(c)} AS {sql_name(c)}" for c in (KEY_COLUMN, VALUE_COLUMN, UNPARSED)),
    )


def _canonical_names(df: DataFrame) -> dict[str, str]:
    """{column as named in the input: canonical name}; refuses two columns that mean the same thing."""
    out: dict[str, str] = {}
    seen: dict[str, str] = {}
    for name in df.columns:
        canon = COLUMN_ALIASES.get(name, name)
        if canon in seen:
            raise ValueError(f"columns {seen[canon]!r} and {name!r} both name the {canon!r} column")
        seen[canon] = name
        out[name] = canon
    return out


def _field(df: DataFrame, name: str) -> StructField:
    for f in df.schema.fields:
        if f.name == name:
            return f
    raise KeyError(name)  # pragma: no cover - names come from df.columns


def _entity_column(df: DataFrame, original: str, canonical: str) -> str:
    dtype: DataType = _field(df, original).dataType
    if not isinstance(dtype, (StringType, NullType, IntegralType)):
        raise TypeError(f"entity column {original!r} must hold strings, not {dtype.simpleString()}")
    col = f"CAST({sql_name(original)} AS STRING)"
    return f"CASE WHEN {col} = '' THEN CAST(NULL AS STRING) ELSE {col} END AS {sql_name(canonical)}"


def _is_blank(df: DataFrame, name: str) -> str:
    if isinstance(_field(df, name).dataType, StringType):
        return f"coalesce(trim({sql_name(name)}) = '', false)"
    return "false"


def _value_columns(df: DataFrame, name: str) -> tuple[str, str]:
    """(the value as a double with -0.0 folded to 0.0, the raw text when it is not a number else null), as
    SQL expressions."""
    dtype = _field(df, name).dataType
    raw = sql_name(name)
    no_text = "CAST(NULL AS STRING)"
    if isinstance(dtype, NullType):
        return "CAST(NULL AS DOUBLE)", no_text
    if isinstance(dtype, (NumericType, DecimalType)):
        as_double = f"CAST({raw} AS DOUBLE)"
        unparsed = no_text
    elif isinstance(dtype, StringType):
        blank = f"(trim({raw}) = '')"
        # try_cast, not cast: Spark 4 runs ANSI casts by default, where bad text fails the whole job.
        # (A SQL expression, so that pyspark 3.5 has it too.)
        parsed = f"try_cast(trim({raw}) AS DOUBLE)"
        as_double = f"(CASE WHEN {blank} THEN CAST(NULL AS DOUBLE) ELSE {parsed} END)"
        unparsed = f"(CASE WHEN {raw} IS NOT NULL AND NOT {blank} AND {parsed} IS NULL THEN {raw} ELSE {no_text} END)"
    else:
        raise TypeError(f"quota value column {name!r} must be numeric (or numeric text), "
                        f"not {dtype.simpleString()}")
    zero = "CAST('0.0' AS DOUBLE)"
    return f"(CASE WHEN {as_double} = {zero} THEN {zero} ELSE {as_double} END)", unparsed
