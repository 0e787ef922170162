"""Row validation of desired quotas, as Spark column expressions (no Python UDFs: rows never leave the JVM).

Each rule yields a reason or null; a row's ``reason`` is all of its failed rules joined with ``"; "`` (null
when the row is valid), so one pass reports everything wrong with a row instead of the first thing only.
The rules are the ones ``AdminClient.alter_client_quotas`` applies before sending: checking them here, per
row, keeps one bad row from failing the whole batch it would otherwise travel in.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from pyspark.sql import DataFrame

from kadmin.spark.kinds.quotas.schema import (
    ENTITY_COLUMNS,
    KEY_COLUMN,
    UNPARSED,
    VALUE_COLUMN,
    sql_name,
    sql_string,
)

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


def _double(x: float) -> str:
    """A double constant, exact: Python's repr round-trips, and Spark parses text to double correctly rounded."""
    return f"CAST({sql_string(repr(float(x)))} AS DOUBLE)"


def _in(col: str, values: Iterable[str]) -> str:
    vals = sorted(values)
    return f"({col} IN ({', '.join(sql_string(v) for v in vals)}))" if vals else "false"


def _when(cond: str, then: str) -> str:
    return f"CASE WHEN {cond} THEN {then} END"


def validate(df: DataFrame, *, allow_unknown_keys: bool = False) -> DataFrame:
    """The normalized rows, identical duplicates merged, with a ``reason`` column (null = valid).

    Identical rows (same entity, key and value) are one desire and become one result row.  Rows of the
    same entity and key with *different* values are all rejected: which one was meant cannot be guessed,
    and applying any of them would be a coin toss.

    The rules are built as SQL text and handed to Spark in three ``selectExpr`` calls: a Column per rule
    and operator costs one py4j round trip each (about 1,500 for these rules), SQL text one per select.
    The text names only this module's own columns and literals it escapes (:func:`sql_string`).
    """
    rules_table = Rules.from_quotas()
    known = {"user_client": rules_table.user_client, "ip": rules_table.ip}
    user, client, ip = (sql_name(c) for c in ENTITY_COLUMNS)
    key, value, unparsed = sql_name(KEY_COLUMN), sql_name(VALUE_COLUMN), sql_name(UNPARSED)
    is_ip = f"({ip} IS NOT NULL)"
    all_known = known["user_client"] | known["ip"]
    known_here = f"(CASE WHEN {is_ip} THEN {_in(key, known['ip'])} ELSE {_in(key, known['user_client'])} END)"
    kind_name = f"(CASE WHEN {is_ip} THEN 'ip' ELSE 'user/client-id' END)"
    known_list = (f"(CASE WHEN {is_ip} THEN {sql_string(', '.join(sorted(known['ip'])))} "
                  f"ELSE {sql_string(', '.join(sorted(known['user_client'])))} END)")
    key_ok = f"({key} IS NOT NULL AND {key} != '')"
    if allow_unknown_keys:
        # Unknown keys pass (a newer broker may know them); a key known for the *other* entity kind is
        # still certainly wrong.
        unknown_key = f"({key_ok} AND NOT {known_here} AND {_in(key, all_known)})"
    else:
        unknown_key = f"({key_ok} AND NOT {known_here})"
    value_str = f"CAST({value} AS STRING)"

    rules: list[str] = [
        _when(f"{user} IS NULL AND {client} IS NULL AND {ip} IS NULL",
              sql_string("no entity: user, client_id and ip are all empty")),
        _when(f"{is_ip} AND ({user} IS NOT NULL OR {client} IS NOT NULL)",
              sql_string("ip cannot be combined with user or client_id in one entity")),
        _when(f"NOT {key_ok}", sql_string("quota_key is empty")),
        _when(f"{unparsed} IS NOT NULL",
              "concat(" + ", ".join((sql_string("value '"), unparsed, sql_string("' is not a number"))) + ")"),
        _when(f"isnan({value}) OR abs({value}) = {_double(float('inf'))}",
              f"concat('value must be a finite number, not ', {value_str})"),
        _when(f"{value} < 0", f"concat('value must be >= 0, not ', {value_str})"),
        *_whole_number_rules(key, value, value_str, rules_table.maximum),
        _when(unknown_key,
              "concat(" + ", ".join((sql_string("unknown quota key '"), key, sql_string("' for "), kind_name,
                                     "' entities (known: '", known_list, "')'")) + ")"),
    ]

    # One shuffle for both: within each (entity, key), rows ordered by value; the first row of each run of
    # equal values is kept (row_number == rank), and more than one distinct value (dense_rank > 1) is a
    # conflict.  Spark orders NaN equal to NaN, and -0.0 was folded to 0.0 on input.
    group = f"PARTITION BY {user}, {client}, {ip}, {key}"
    ordered = f"({group} ORDER BY {value} ASC NULLS FIRST, {unparsed} ASC NULLS FIRST)"
    columns = [sql_name(c) for c in df.columns]
    ranked = df.selectExpr(*columns, f"row_number() OVER {ordered} AS _rn", f"rank() OVER {ordered} AS _rk",
                           f"dense_rank() OVER {ordered} AS _dr")
    merged = ranked.filter("_rn = _rk")
    rules.append(_when(f"max(_dr) OVER ({group}) > 1",
                       sql_string("conflicting values for the same entity and quota_key in the input")))
    # Computed once into a column, then emptied to null (using the expression twice would evaluate it twice).
    joined = merged.selectExpr(*columns, f"concat_ws('; ', {', '.join(rules)}) AS _reasons")
    return joined.selectExpr(*columns, f"CASE WHEN _reasons = '' THEN CAST(NULL AS STRING) ELSE _reasons END "
                                       f"AS {sql_name(REASON)}")


def _whole_number_rules(key: str, value: str, value_str: str, maximum: dict[str, int]) -> list[str]:
    """Integral keys: no fraction, and not above the broker's Java type (a double compares to the int exactly
    here because every limit is 2**k - 1: ``value > 2**k - 1`` is ``value >= 2.0**k`` for a double)."""
    finite = f"(NOT isnan({value}) AND abs({value}) != {_double(float('inf'))})"
    # value % 1, not floor(value): floor returns a long, which overflows (an error under ANSI) above 2**63.
    out = [_when(f"{_in(key, maximum)} AND {finite} AND ({value} % {_double(1.0)}) != {_double(0.0)}",
                 f"concat({key}, ' must be a whole number, not ', {value_str})")]
    for limit in sorted(set(maximum.values())):
        keys = [k for k, m in maximum.items() if m == limit]
        out.append(_when(f"{_in(key, keys)} AND {finite} AND {value} >= {_double(float(limit + 1))}",
                         f"concat({key}, {sql_string(f' must be at most {limit}, not ')}, {value_str})"))
    return out
