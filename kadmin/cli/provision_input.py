"""``quotas provision``'s input, checked in Python before a Spark session is started.

Why before Spark: starting a local Spark session costs tens of seconds (a JVM), and a file with a wrong
header, a misspelt entity column or a column Spark cannot turn into a quota would only be refused after
it.  This module reads what it can cheaply (a CSV header, every record of a JSON file, streamed, a
Parquet schema when pyarrow is installed) and applies the same rules as :mod:`kadmin.spark.kinds.quotas.schema`; what it
cannot see (the cells of every row) is left to Spark, which reports bad rows one by one.

The file formats (also in docs/cli.md and ``kadmin quotas provision --help``):

* **long**: entity columns plus ``quota_key`` and ``value``, one row per entity and key;
* **wide**: entity columns plus one column per quota key, one row per entity (an empty cell: the key is not
  specified for that entity);
* entity columns: ``user``, ``client_id`` (or ``client-id``), ``ip``; an empty entity cell means "not part
  of the entity", ``<default>`` the default entity of that type.
"""

from __future__ import annotations

import csv
import difflib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kadmin.cli.config import UsageError
from kadmin.cli.csv_check import check_quotes
from kadmin.cli.json_records import JsonRecordError, iter_records

ENTITY_COLUMNS = ("user", "client_id", "ip")
ALIASES = {"client-id": "client_id"}
KEY_COLUMN = "quota_key"
VALUE_COLUMN = "value"

FORMATS_HELP = """\
file formats (CSV with a header line, JSON lines or a JSON array, Parquet):
  long: user,client_id,ip,quota_key,value   one row per entity and quota key
  wide: user,client_id,ip,<key>,<key>...     one row per entity, one column per quota key
  Entity columns: any of user, client_id (or client-id), ip; an empty entity cell is "not part of the
  entity", <default> is the default entity of that type (as kafka-configs.sh --entity-default).
  A long-format row with an empty value asks to remove the key: refused unless --empty-means-remove.
  A wide-format empty cell means "not specified" (never "remove"); --remove-unlisted removes keys that
  entities in scope have on the cluster but the file does not list.
  Scope (which entities are read, and which --remove-unlisted may touch): by default the entity kinds
  present in the file (user rows reach only user entities); --scope names them: user, client-id,
  user+client-id, ip (repeatable), or all."""


@dataclass(frozen=True)
class InputShape:
    """What the header says: the layout, and the columns by their canonical names."""

    layout: str  # "long" | "wide"
    columns: tuple[str, ...]  # as in the file
    entity_columns: tuple[str, ...]  # canonical, in the file's order
    key_columns: tuple[str, ...]  # wide layout: the quota-key columns; long: ()


def check_columns(path: str, columns: Sequence[str]) -> InputShape:
    """The layout ``columns`` describe, or a UsageError saying what is wrong with them."""
    names = [str(c) for c in columns]
    if not names or all(not n.strip() for n in names):
        raise UsageError(f"{path}: no columns (an empty file, or no header line)")
    canonical: dict[str, str] = {}
    for n in names:
        canon = ALIASES.get(n, n)
        if not n.strip():
            raise UsageError(f"{path}: a column has an empty name (columns: {', '.join(names)})")
        if canon in canonical:
            raise UsageError(f"{path}: columns {canonical[canon]!r} and {n!r} both name the {canon!r} column")
        canonical[canon] = n
    entity = tuple(c for c in canonical if c in ENTITY_COLUMNS)
    others = [c for c in canonical if c not in ENTITY_COLUMNS]
    slips = {c: m for c in others if (m := _entity_slip(c)) is not None}
    if slips:
        c, m = next(iter(slips.items()))
        raise UsageError(f"{path}: column {canonical[c]!r} is not an entity column: did you mean {m!r}? "
                         f"(entity columns: {', '.join(ENTITY_COLUMNS)}; client-id is accepted too)")
    if not entity:
        raise UsageError(f"{path}: none of the entity columns {', '.join(ENTITY_COLUMNS)} (the header is "
                         f"{', '.join(names)}; is the first line a header?)")
    has_key, has_value = KEY_COLUMN in canonical, VALUE_COLUMN in canonical
    if has_key != has_value:
        missing = VALUE_COLUMN if has_key else KEY_COLUMN
        raise UsageError(f"{path}: long format needs both {KEY_COLUMN!r} and {VALUE_COLUMN!r}; there is no "
                         f"{missing!r} column (columns: {', '.join(names)})")
    if has_key:
        return InputShape("long", tuple(names), entity, ())
    if not others:
        raise UsageError(f"{path}: no quota columns: long format needs {KEY_COLUMN!r} and {VALUE_COLUMN!r}, "
                         f"wide format one column per quota key (columns: {', '.join(names)})")
    return InputShape("wide", tuple(names), entity, tuple(others))


def _entity_slip(column: str) -> str | None:
    """The entity column a non-entity column name is a slip for ("User", "clientid", "client id")."""
    folded = column.strip().lower().replace("-", "_").replace(" ", "_")
    if folded in ENTITY_COLUMNS:
        return folded
    if folded in ("clientid", "client", "username", "users", "ip_address", "ips"):
        return {"clientid": "client_id", "client": "client_id", "username": "user", "users": "user"}.get(
            folded, "ip")
    close = difflib.get_close_matches(folded, ENTITY_COLUMNS, n=1, cutoff=0.8)
    return close[0] if close else None


def check_input(path: str, fmt: str) -> InputShape | None:
    """Check ``path`` (in ``fmt``: csv, json or parquet) as far as can be done without Spark.

    Returns the shape it found, or None when it could not look (Parquet without pyarrow): Spark checks
    then.  Raises UsageError for what would make Spark fail or misread the whole file."""
    if os.path.isdir(path) and fmt != "parquet":
        raise UsageError(f"{path}: is a directory; a {fmt} input must be one file")
    if fmt == "csv":
        return _check_csv(path)
    if fmt == "json":
        return _check_json(path)
    return _check_parquet(path)


def _check_csv(path: str) -> InputShape:
    try:
        with open(path, encoding="utf-8", newline="") as f:
            header = next(csv.reader(f), None)
    except UnicodeDecodeError:
        raise UsageError(f"{path}: not UTF-8 text (a CSV input must be UTF-8)") from None
    except OSError as exc:
        raise UsageError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if header is None:
        raise UsageError(f"{path}: the file is empty (a CSV input needs a header line)")
    check_quotes(path)
    return check_columns(path, [h.strip().lstrip("\ufeff") for h in header])


def _check_json(path: str) -> InputShape | None:
    """Every record, in one streamed pass (:mod:`kadmin.cli.json_records`): the columns are the union of every
    record's keys (as Spark infers them), and the first record with a value of the wrong type for its column
    is remembered per column, so that once the layout is known the first real problem can be named."""
    columns: dict[str, None] = {}
    not_text: dict[str, tuple[int, Any]] = {}  # column -> (record, value) of its first value that is no name
    not_number: dict[str, tuple[int, Any]] = {}  # column -> first value that is no number
    count = 0
    try:
        with open(path, encoding="utf-8-sig") as f:
            for n, r in iter_records(f):
                count += 1
                if not isinstance(r, dict):
                    raise UsageError(f"{path}: record {n} is not a JSON object: {json.dumps(r)[:60]}")
                for col, v in r.items():
                    if col not in columns:
                        columns[col] = None
                    t = type(v)
                    if v is None or t is str or t is int:
                        continue
                    if col not in not_text:
                        not_text[col] = (n, v)
                    if (t is bool or t is dict or t is list) and col not in not_number:
                        not_number[col] = (n, v)
    except JsonRecordError as exc:
        raise UsageError(f"{path}: {exc}") from None
    except UnicodeDecodeError:
        raise UsageError(f"{path}: not UTF-8 text (a JSON input must be UTF-8)") from None
    except OSError as exc:
        raise UsageError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if not count:
        if os.path.getsize(path) == 0 or not _has_text(path):
            raise UsageError(f"{path}: the file is empty")
        return None  # an empty array: Spark reads no rows
    shape = check_columns(path, list(columns))
    value_columns = (VALUE_COLUMN,) if shape.layout == "long" else shape.key_columns
    bad: list[tuple[int, str, str, Any]] = []
    for col in columns:
        canon = ALIASES.get(col, col)
        if (canon in ENTITY_COLUMNS or canon == KEY_COLUMN) and col in not_text:
            bad.append((not_text[col][0], col, "text", not_text[col][1]))
        elif canon in value_columns and col in not_number:
            bad.append((not_number[col][0], col, "numbers", not_number[col][1]))
    if bad:
        n, col, what, v = min(bad, key=lambda b: b[0])
        raise UsageError(f"{path}: record {n}: column {col!r} must hold {what}, not {json.dumps(v)[:60]}")
    return shape


def _has_text(path: str) -> bool:
    with open(path, encoding="utf-8-sig") as f:
        return any(chunk.strip() for chunk in iter(lambda: f.read(1 << 16), ""))


def _check_parquet(path: str) -> InputShape | None:
    try:
        import pyarrow.parquet as pq  # type: ignore[import-untyped]
    except ImportError:  # not part of the [spark] extra: Spark checks the schema instead
        return None
    try:
        schema = pq.read_schema(path) if os.path.isfile(path) else pq.ParquetDataset(path).schema
    except Exception as exc:  # noqa: BLE001 - pyarrow raises several types for "not Parquet"
        raise UsageError(f"{path}: cannot read as Parquet: {exc}") from None
    import pyarrow as pa

    shape = check_columns(path, [n for n in schema.names if not n.startswith("__")])
    value_columns = (VALUE_COLUMN,) if shape.layout == "long" else shape.key_columns
    for field in schema:
        canon = ALIASES.get(field.name, field.name)
        t = field.type
        if canon in ENTITY_COLUMNS or canon == KEY_COLUMN:
            ok = pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_null(t) or (
                canon != KEY_COLUMN and pa.types.is_integer(t))
            if not ok:
                raise UsageError(f"{path}: column {field.name!r} must hold strings, not {t}")
        elif canon in value_columns:
            ok = (pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_decimal(t)
                  or pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_null(t))
            if not ok:
                raise UsageError(f"{path}: quota column {field.name!r} must be numeric (or numeric text), not {t}")
    return shape
