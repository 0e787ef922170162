"""``kadmin provision``'s Spark side at its two ends: the spec files read as DataFrames, and the plan (or the
results) brought back to the driver for the report, in as few Spark jobs as the spec's size allows.

Why it matters: on a small spec a Spark job's fixed cost (scheduling, code generation in a cold JVM) is most of
the run.  A CSV read with a header and no schema runs a job to learn the columns, although the header was read
in Python already (:mod:`kadmin.cli.tenant_input`); and a small plan comes back in one job and is counted and
sorted here, where a large one is counted and sampled in Spark (three jobs over the cached rows).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from kadmin.cli.tenant_input import SpecFile

#: Spec files up to this many bytes in all make a small run (a few thousand rows): one local core's worth.
SMALL_SPEC_BYTES = 1 << 20
#: A small run brings at most this many result rows to the driver at once (a plan that deletes a whole
#: cluster's entities can be far longer than its spec); a longer one is reported the large way.
SMALL_RESULT_ROWS = 20_000
REPORT_COLUMNS = ("kind", "key", "action", "old_value", "new_value", "status", "error")


def spec_bytes(files: list[SpecFile]) -> int:
    """The spec files' size on disk (a Parquet directory: its files)."""
    total = 0
    for f in files:
        if os.path.isdir(f.path):
            for root, _, names in os.walk(f.path):
                total += sum(os.path.getsize(os.path.join(root, n)) for n in names)
        else:
            total += os.path.getsize(f.path)
    return total


def csv_text_schema(path: str) -> Any | None:
    """Every column of the CSV header as text, for Spark to apply without reading the file first; None when
    Spark would name the columns otherwise than the header does (an empty or repeated name, a byte-order mark),
    so that Spark keeps doing it its own way."""
    import csv

    with open(path, encoding="utf-8", newline="") as f:
        header = next(csv.reader(f), None)
    if not header or any(not n or "\ufeff" in n for n in header) or len({n.lower() for n in header}) < len(header):
        return None
    from pyspark.sql.types import StringType, StructField, StructType

    return StructType([StructField(n, StringType(), True) for n in header])


def csv_local_frame(spark: Any, path: str, schema: Any) -> Any | None:
    """A small CSV file as a DataFrame of its rows (a local relation: Spark plans it without a file scan, and
    the plan's projections and filters over it are folded at planning time), read as Spark's CSV reader reads
    it here: every cell text, an empty cell null, a short row padded with nulls, a longer one cut, blank lines
    skipped.  None (Spark reads the file) when a cell holds a line break, which Spark's line-by-line reader
    would split, or when PySpark < 4 or pyarrow cannot make a local relation."""
    try:
        import pyarrow as pa  # type: ignore[import-untyped]
        import pyspark
    except ImportError:
        return None
    if int(pyspark.__version__.split(".")[0]) < 4:  # createDataFrame(pyarrow.Table) is new in Spark 4.0
        return None
    import csv

    width = len(schema.fields)
    cols: list[list[str | None]] = [[] for _ in range(width)]
    with open(path, encoding="utf-8", newline="") as f:
        reader = csv.reader(f)
        next(reader, None)
        for record in reader:
            if not record:
                continue
            if any("\n" in cell or "\r" in cell for cell in record):
                return None
            record = (record + [""] * width)[:width]
            for i, cell in enumerate(record):
                cols[i].append(cell if cell != "" else None)
    table = pa.table({str(i): pa.array(c, type=pa.string()) for i, c in enumerate(cols)})
    return spark.createDataFrame(table.rename_columns([f.name for f in schema.fields]), schema=schema)


#: Whether a small spec's CSV files are read in Python (:func:`csv_local_frame`) rather than by Spark.
LOCAL_CSV = True


def read_spec_file(spark: Any, spec: SpecFile, small: bool = False) -> Any:
    """One spec file as a DataFrame: a CSV as text columns, with "" inside a quoted cell a quote, as in RFC 4180
    (a configs cell holds JSON: ``"{""retention.ms"": ""1000""}"``); a small spec's CSV as local rows."""
    if spec.fmt == "csv":
        schema = csv_text_schema(spec.path)
        if schema is not None:
            local = csv_local_frame(spark, spec.path, schema) if small and LOCAL_CSV else None
            if local is not None:
                return local
            return spark.read.csv(spec.path, schema=schema, header=True, escape='"')
        return spark.read.csv(spec.path, header=True, inferSchema=False, escape='"')
    from kadmin.cli.quotas import _read_frame

    return _read_frame(spark, spec.path, spec.fmt)


@dataclass
class Report:
    """What the report shows: counts per (kind, action, status), the rows listed, the rows not ok (at most
    ``bad_cap``)."""

    counts: dict[tuple[str, str, str], int]
    rows: list[dict[str, Any]]
    bad: list[dict[str, Any]]


def small_report(results: Any, *, show_all: bool, shown: int | None, not_ok: tuple[str, ...],
                 bad_cap: int) -> Report | None:
    """The report from one Spark job (every result row collected), or None when there are more than
    :data:`SMALL_RESULT_ROWS` rows.  Sorted as Spark sorts strings (by code point, which is UTF-8's byte order)."""
    got = results.select(*REPORT_COLUMNS).limit(SMALL_RESULT_ROWS + 1).collect()
    if len(got) > SMALL_RESULT_ROWS:
        return None
    every = sorted((r.asDict() for r in got), key=lambda r: (r["kind"], r["key"]))
    counts: dict[tuple[str, str, str], int] = {}
    for r in every:
        k = (r["kind"], r["action"], r["status"])
        counts[k] = counts.get(k, 0) + 1
    rows = every if show_all else [r for r in every if r["action"] != "unchanged"]
    if shown is not None:
        rows = rows[:shown]
    bad = [{k: r[k] for k in ("kind", "key", "status", "error")} for r in every if r["status"] in not_ok][:bad_cap]
    return Report(counts, rows, bad)


def large_report(results: Any, *, show_all: bool, shown: int | None, not_ok: tuple[str, ...],
                 bad_cap: int) -> Report:
    """The report of a plan of any size: the rows cached, counted in Spark, and only the listed ones collected."""
    results = results.persist()
    try:
        counts = {(r["kind"], r["action"], r["status"]): int(r["count"])
                  for r in results.groupBy("kind", "action", "status").count().collect()}
        listed = results if show_all else results.filter(results["action"] != "unchanged")
        listed = listed.orderBy("kind", "key")
        if shown is not None:
            listed = listed.limit(shown)
        rows = [r.asDict() for r in listed.select(*REPORT_COLUMNS).collect()]
        bad = [r.asDict() for r in results.filter(results["status"].isin(*not_ok))
               .select("kind", "key", "status", "error").orderBy("kind", "key").limit(bad_cap).collect()]
    finally:
        results.unpersist()
    return Report(counts, rows, bad)
