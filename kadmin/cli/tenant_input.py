"""``kadmin provision``'s input: a spec directory (or one file), checked in Python before Spark starts.

Why before Spark: a local Spark session costs tens of seconds (a JVM), and a misnamed file, a missing column,
a ``password`` column or a word where a number belongs would only be refused after it.  This module finds the
files (one per kind: ``topics``, ``topic_configs``, ``acls``, ``scram_users``, ``quotas``, ``groups_offsets``,
``group_configs``, ``broker_configs``, ``acl_roles``, ``share_groups_offsets``, each ``.csv``,
``.jsonl``/``.json`` or ``.parquet``), reads what it can cheaply (a CSV header, every JSON record, streamed, a
Parquet schema) and applies the column table of :mod:`kadmin.spark.columns`; quota files get the checks of
``kadmin quotas provision`` (:mod:`kadmin.cli.provision_input`).  The cells of every row are left to Spark,
which reports bad rows one by one as ``reject`` rows.
"""

from __future__ import annotations

import csv
import json
import os
from dataclasses import dataclass

from kadmin.cli.config import UsageError
from kadmin.cli.csv_check import check_quotes
from kadmin.cli.json_records import JsonRecordError, iter_records
from kadmin.cli.provision_input import check_input
from kadmin.spark.columns import COLUMNS, INT_COLUMNS, KINDS, column_problem

EXTENSIONS = {".csv": "csv", ".jsonl": "json", ".ndjson": "json", ".json": "json", ".parquet": "parquet",
              ".pq": "parquet"}

FORMATS_HELP = """\
spec files (one per kind; kinds left out are not touched), CSV with a header, JSON lines or Parquet:
  topics.csv         name,partitions,replication_factor,configs    configs: JSON object text {"k": "v"}
  topic_configs.csv  topic,config,value                             empty value: remove the topic's own value
  acls.csv           principal,host,operation,permission,resource_type,resource_name,pattern_type
  scram_users.csv    user,mechanism,iterations,password_ref         password_ref: env:VAR or file:PATH
  quotas.csv         the format of 'kadmin quotas provision' (long or wide)
  groups_offsets.csv group,topic,partition,target                   target: earliest, latest, offset:N,
                                                                    timestamp:MS or timestamp:ISO-8601 with zone
  group_configs.csv  group,config,value                             GROUP configs (Kafka 4.0+); empty value: remove
  broker_configs.csv broker,config,value                            broker: an id, or default (cluster-wide);
                                                                    dynamic configs only
  share_groups_offsets.csv  group,topic,partition,target           share groups' start offsets, same targets
  acl_roles.csv      principal,role,topic,pattern_type,group,transactional_id,idempotent,host
                     role: producer or consumer (the bindings of kafka-acls.sh --producer / --consumer)
Deletions happen only with --remove-unlisted and only inside --scope (topics=PREFIX, principals=PREFIX,
groups=PREFIX, kinds=KIND,...; broker configs only with kinds=broker_configs, of the brokers the spec names).
--export DIR writes the cluster as such files (SCRAM passwords as env:KADMIN_SCRAM_<USER> references to set).
Full description and examples: docs/provision.md."""


@dataclass(frozen=True)
class SpecFile:
    kind: str
    path: str
    fmt: str  # csv | json | parquet


def find_files(path: str) -> list[SpecFile]:
    """The spec files of a directory (by kind name), or the one file ``path`` names (its kind from its name)."""
    if not os.path.exists(path):
        raise UsageError(f"{path}: no such file or directory")
    if os.path.isdir(path) and not _is_parquet_dir(path):
        found: dict[str, SpecFile] = {}
        for name in sorted(os.listdir(path)):
            if name.startswith((".", "_")):
                continue
            spec = _spec_file(os.path.join(path, name))
            if spec.kind in found:
                raise UsageError(f"{path}: two files for {spec.kind}: {os.path.basename(found[spec.kind].path)} "
                                 f"and {name}")
            found[spec.kind] = spec
        if not found:
            raise UsageError(f"{path}: no spec files (expected {', '.join(KINDS)} with .csv, .jsonl or .parquet)")
        return [found[k] for k in KINDS if k in found]
    return [_spec_file(path)]


def _is_parquet_dir(path: str) -> bool:
    return os.path.splitext(path.rstrip("/"))[1] in (".parquet", ".pq")


def _spec_file(path: str) -> SpecFile:
    base = os.path.basename(path.rstrip("/"))
    stem, ext = os.path.splitext(base)
    fmt = EXTENSIONS.get(ext.lower())
    if fmt is None or stem not in KINDS:
        raise UsageError(f"{path}: not a spec file: the name must be a kind ({', '.join(KINDS)}) with .csv, "
                         ".jsonl, .json or .parquet (see docs/provision.md)")
    return SpecFile(stem, path, fmt)


def check_file(spec: SpecFile) -> None:
    """The file's columns (and, for JSON and Parquet, their types) for its kind; UsageError if wrong."""
    if spec.kind == "quotas":
        check_input(spec.path, spec.fmt)
        return
    if spec.fmt == "csv":
        columns = _csv_header(spec.path)
        _columns(spec, columns)
    elif spec.fmt == "json":
        _check_json(spec)
    else:
        _check_parquet(spec)


def _columns(spec: SpecFile, columns: list[str]) -> None:
    problem = column_problem(spec.kind, columns)
    if problem is not None:
        raise UsageError(f"{spec.path}: {problem}")


def _csv_header(path: str) -> list[str]:
    try:
        with open(path, encoding="utf-8", newline="") as f:
            header = next(csv.reader(f), None)
    except UnicodeDecodeError:
        raise UsageError(f"{path}: not UTF-8 text (a CSV spec file must be UTF-8)") from None
    except OSError as exc:
        raise UsageError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if header is None:
        raise UsageError(f"{path}: the file is empty (a CSV spec file needs a header line)")
    check_quotes(path)
    return [h.strip().lstrip("\ufeff") for h in header]


def _check_json(spec: SpecFile) -> None:
    """Every record of the file (streamed: :mod:`kadmin.cli.json_records`), not a sample: a column that is a
    secret or unknown, or a value of the wrong type, on any record is refused here, naming the record."""
    wanted = COLUMNS[spec.kind]
    required = [c for c, r in wanted.items() if r]
    columns: dict[str, None] = {}
    shapes: set[tuple[str, ...]] = set()
    count = 0
    try:
        with open(spec.path, encoding="utf-8-sig") as f:
            for n, r in iter_records(f):
                count += 1
                if type(r) is not dict:
                    raise UsageError(f"{spec.path}: record {n} is not a JSON object")
                shape = tuple(r)
                if shape not in shapes:  # a new set of keys: a secret or unknown column, named with its record
                    shapes.add(shape)
                    columns.update(dict.fromkeys(shape))
                    problem = column_problem(spec.kind, [*columns, *required])
                    if problem is not None:
                        raise UsageError(f"{spec.path}: record {n}: {problem}")
                for col, v in r.items():  # the common cases inline: this loop runs for every value
                    t = type(v)
                    if v is None or (t is str and col not in INT_COLUMNS) or (t is int and col in INT_COLUMNS):
                        continue
                    if not _json_value_ok(col, v):
                        what = ("a whole number" if col in INT_COLUMNS else "an object of strings"
                                if col == "configs" else "text")
                        raise UsageError(f"{spec.path}: record {n}: column {col!r} must hold {what}, "
                                         f"not {json.dumps(v)[:60]}")
    except JsonRecordError as exc:
        raise UsageError(f"{spec.path}: {exc}") from None
    except (UnicodeDecodeError, OSError) as exc:
        raise UsageError(f"{spec.path}: cannot read as UTF-8 text: {exc}") from None
    if not count:
        raise UsageError(f"{spec.path}: no records")
    _columns(spec, list(columns))  # the required columns, over the union of every record's keys


def _json_value_ok(col: str, v: object) -> bool:
    if isinstance(v, str):
        return col not in INT_COLUMNS or v.strip().isdigit()
    if type(v) is int:  # not a bool
        return col in INT_COLUMNS
    if isinstance(v, dict):
        return col == "configs" and all(x is None or isinstance(x, str) for x in v.values())
    return False


def _check_parquet(spec: SpecFile) -> None:
    try:
        import pyarrow as pa  # type: ignore[import-untyped]
        import pyarrow.parquet as pq  # type: ignore[import-untyped]
    except ImportError:  # Spark checks the schema instead
        return
    try:
        path = spec.path
        schema = pq.read_schema(path) if os.path.isfile(path) else pq.ParquetDataset(path).schema
    except Exception as exc:  # noqa: BLE001 - pyarrow raises several types for "not Parquet"
        raise UsageError(f"{spec.path}: cannot read as Parquet: {exc}") from None
    _columns(spec, [n for n in schema.names if not n.startswith("__")])
    for field in schema:
        t = field.type
        if field.name in INT_COLUMNS:
            ok = pa.types.is_integer(t) or pa.types.is_string(t) or pa.types.is_null(t)
        elif field.name == "configs":
            ok = pa.types.is_map(t) or pa.types.is_struct(t) or pa.types.is_string(t) or pa.types.is_null(t)
        elif field.name in COLUMNS[spec.kind]:
            ok = pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_null(t)
        else:
            ok = True
        if not ok:
            raise UsageError(f"{spec.path}: column {field.name!r} has type {t}, which this column cannot hold")


__all__ = ["FORMATS_HELP", "SpecFile", "check_file", "find_files"]
