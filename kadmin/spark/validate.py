"""Row validation of desired quotas, as Spark column expressions (no Python UDFs: rows never leave the JVM).

Each rule yields a reason or null; a row's ``reason`` is all of its failed rules joined with ``"; "`` (null
when the row is valid), so one pass reports everything wrong with a row instead of the first thing only.
The rules are the ones ``AdminClient.alter_client_quotas`` applies before sending: checking them here, per
row, keeps one bad row from failing the whole batch it would otherwise travel in.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F
from pyspark.sql.types import StringType

from kadmin.spark.schema import ENTITY_COLUMNS, KEY_COLUMN, UNPARSED, VALUE_COLUMN

REASON = "reason"


class RejectedRowsError(ValueError):
    """Raised by ``strict=True`` when some input rows are invalid; nothing was sent.

    ``count`` is how many result rows were rejected and ``samples`` a few of them (entity, key, reason),
    enough to fix the input without running the plan again.
    """

    def __init__(self, count: int, samples: list[dict[str, object]]) -> None:
        self.count = count
        self.samples = samples
        shown = "; ".join(_describe_sample(s) for s in samples)
        super().__init__(f"{count} input row(s) rejected (strict=True, nothing was sent): {shown}")


def _describe_sample(s: dict[str, object]) -> str:
    entity = ",".join(f"{c}={s[c]}" for c in ENTITY_COLUMNS if s.get(c) is not None) or "(no entity)"
    return f"[{entity} {s.get(KEY_COLUMN)}: {s.get(REASON)}]"


# The largest value of each integral Java type a quota key is stored as, by kadmin.quotas' kind names.
_JAVA_MAX: dict[str, int] = {"long": 2**63 - 1, "int": 2**31 - 1}


@dataclass(frozen=True)
class Rules:
    """The key table of :mod:`kadmin.quotas`, reshaped for column expressions.

    Read from kadmin.quotas (never copied) so that Spark and the client can never disagree about what is
    valid: a row Spark passes is then one ``ClientQuotaAlteration`` accepts.
    """

    user_client: frozenset[str]
    ip: frozenset[str]
    maximum: dict[str, int]  # integral keys -> the largest value the broker's Java type holds

    @classmethod
    def from_quotas(cls) -> Rules:
        from kadmin import quotas

        maximum: dict[str, int] = {}
        for key, kind in {**quotas.USER_CLIENT_KEYS, **quotas.IP_KEYS}.items():
            limit = _JAVA_MAX.get(str(getattr(kind, "value", kind)))
            if limit is not None:
                maximum[key] = limit
        return cls(frozenset(quotas.USER_CLIENT_KEYS), frozenset(quotas.IP_KEYS), maximum)


def _in(col: Column, values: Iterable[str]) -> Column:
    vals = sorted(values)
    return col.isin(vals) if vals else F.lit(False)


def validate(df: DataFrame, *, allow_unknown_keys: bool = False) -> DataFrame:
    """The normalized rows, identical duplicates merged, with a ``reason`` column (null = valid).

    Identical rows (same entity, key and value) are one desire and become one result row.  Rows of the
    same entity and key with *different* values are all rejected: which one was meant cannot be guessed,
    and applying any of them would be a coin toss.
    """
    rules_table = Rules.from_quotas()
    known = {"user_client": rules_table.user_client, "ip": rules_table.ip}
    user, client, ip = (F.col(c) for c in ENTITY_COLUMNS)
    key, value, unparsed = F.col(KEY_COLUMN), F.col(VALUE_COLUMN), F.col(UNPARSED)
    is_ip = ip.isNotNull()
    all_known = known["user_client"] | known["ip"]
    known_here = F.when(is_ip, _in(key, known["ip"])).otherwise(_in(key, known["user_client"]))
    kind_name = F.when(is_ip, F.lit("ip")).otherwise(F.lit("user/client-id"))
    known_list = F.when(is_ip, F.lit(", ".join(sorted(known["ip"])))) \
        .otherwise(F.lit(", ".join(sorted(known["user_client"]))))
    key_ok = key.isNotNull() & (key != "")
    if allow_unknown_keys:
        # Unknown keys pass (a newer broker may know them); a key known for the *other* entity kind is
        # still certainly wrong.
        unknown_key = key_ok & ~known_here & _in(key, all_known)
    else:
        unknown_key = key_ok & ~known_here
    value_str = value.cast(StringType())

    rules: list[Column] = [
        F.when(user.isNull() & client.isNull() & ip.isNull(),
               F.lit("no entity: user, client_id and ip are all empty")),
        F.when(is_ip & (user.isNotNull() | client.isNotNull()),
               F.lit("ip cannot be combined with user or client_id in one entity")),
        F.when(~key_ok, F.lit("quota_key is empty")),
        F.when(unparsed.isNotNull(), F.concat(F.lit("value '"), unparsed, F.lit("' is not a number"))),
        F.when(F.isnan(value) | (F.abs(value) == float("inf")),
               F.concat(F.lit("value must be a finite number, not "), value_str)),
        F.when(value < 0, F.concat(F.lit("value must be >= 0, not "), value_str)),
        *_whole_number_rules(key, value, value_str, rules_table.maximum),
        F.when(unknown_key, F.concat(F.lit("unknown quota key '"), key, F.lit("' for "), kind_name,
                                     F.lit(" entities (known: "), known_list, F.lit(")"))),
    ]

    # One shuffle for both: within each (entity, key), rows ordered by value; the first row of each run of
    # equal values is kept (row_number == rank), and more than one distinct value (dense_rank > 1) is a
    # conflict.  Spark orders NaN equal to NaN, and -0.0 was folded to 0.0 on input.
    group = Window.partitionBy(*ENTITY_COLUMNS, KEY_COLUMN)
    ordered = group.orderBy(value.asc_nulls_first(), unparsed.asc_nulls_first())
    ranked = df.select("*", F.row_number().over(ordered).alias("_rn"), F.rank().over(ordered).alias("_rk"),
                       F.dense_rank().over(ordered).alias("_dr"))
    merged = ranked.filter(F.col("_rn") == F.col("_rk"))
    conflict = F.max(F.col("_dr")).over(group) > 1
    rules.append(F.when(conflict, F.lit("conflicting values for the same entity and quota_key in the input")))
    # Computed once into a column, then emptied to null (using the expression twice would evaluate it twice).
    joined = merged.withColumn("_reasons", F.concat_ws("; ", *rules))
    return joined.withColumn(REASON, F.when(F.col("_reasons") == "", F.lit(None).cast(StringType()))
                             .otherwise(F.col("_reasons"))).drop("_rn", "_rk", "_dr", "_reasons")


def _whole_number_rules(key: Column, value: Column, value_str: Column, maximum: dict[str, int]) -> list[Column]:
    """Integral keys: no fraction, and not above the broker's Java type (a double compares to the int exactly
    here because every limit is 2**k - 1: ``value > 2**k - 1`` is ``value >= 2.0**k`` for a double)."""
    finite = ~F.isnan(value) & (F.abs(value) != float("inf"))
    # value % 1, not floor(value): floor returns a long, which overflows (an error under ANSI) above 2**63.
    out = [F.when(_in(key, maximum) & finite & ((value % F.lit(1.0)) != 0.0),
                  F.concat(key, F.lit(" must be a whole number, not "), value_str))]
    for limit in sorted(set(maximum.values())):
        keys = [k for k, m in maximum.items() if m == limit]
        out.append(F.when(_in(key, keys) & finite & (value >= float(limit + 1)),
                          F.concat(key, F.lit(f" must be at most {limit}, not "), value_str)))
    return out
