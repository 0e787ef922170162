"""``kadmin provision``'s lean path for small specs (kadmin/cli/provision_frames.py): a CSV spec file read in
Python holds the same rows as Spark's CSV reader gives, and the one-job report equals the Spark-side one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kadmin.cli.provision_frames import csv_local_frame, csv_text_schema, large_report, small_report

TRICKY = (
    'name,partitions,replication_factor,configs\r\n'
    't01-orders,6,3,"{""retention.ms"": ""604800000"", ""min.insync.replicas"": ""2""}"\r\n'
    't01-events,,3,\r\n'                  # empty cells: null
    '"t01-quoted",2,"",""\r\n'            # quoted empty cells: null too
    '\r\n'                                # a blank line: skipped
    't01-short,1\r\n'                     # a short row: nulls after
    't01-long,1,1,,extra,cells\r\n'       # a long row: cut
    '  t01-spaced ,1, 3 ,a\\b\r\n'        # spaces kept, a backslash is no escape
    'tö-ünïcode,1,1,"a,b"\r\n'
)


def _rows(df: Any) -> list[tuple[Any, ...]]:
    return sorted((tuple(r) for r in df.collect()), key=repr)


def test_a_small_csv_read_in_python_holds_the_rows_spark_reads(spark: Any, tmp_path: Path) -> None:
    f = tmp_path / "topics.csv"
    f.write_text(TRICKY, encoding="utf-8")
    schema = csv_text_schema(str(f))
    assert schema is not None and schema.fieldNames() == ["name", "partitions", "replication_factor", "configs"]
    local = csv_local_frame(spark, str(f), schema)
    assert local is not None
    by_spark = spark.read.csv(str(f), schema=schema, header=True, escape='"')
    assert local.schema == by_spark.schema
    assert _rows(local) == _rows(by_spark)
    assert len(_rows(local)) == 7
    # and both as Spark reads the file when it learns the columns itself (what the CLI did before)
    assert _rows(spark.read.csv(str(f), header=True, inferSchema=False, escape='"')) == _rows(local)


def test_a_header_spark_would_rename_or_a_cell_with_a_line_break_is_left_to_spark(spark: Any,
                                                                                  tmp_path: Path) -> None:
    dup = tmp_path / "a.csv"
    dup.write_text("name,Name\nx,y\n", encoding="utf-8")
    assert csv_text_schema(str(dup)) is None
    blank = tmp_path / "b.csv"
    blank.write_text("name,\nx,y\n", encoding="utf-8")
    assert csv_text_schema(str(blank)) is None
    multi = tmp_path / "c.csv"
    multi.write_text('name,configs\nx,"two\nlines"\n', encoding="utf-8")
    schema = csv_text_schema(str(multi))
    assert schema is not None and csv_local_frame(spark, str(multi), schema) is None


def test_the_one_job_report_equals_the_spark_side_report(spark: Any) -> None:
    rows: list[tuple[Any, ...]] = [("topics", f"t{i:02d}", "unchanged" if i % 3 == 0 else "create", None, "x",
             "rejected" if i % 5 == 0 else "planned", "why" if i % 5 == 0 else None) for i in range(40)]
    rows += [("acls", "User:é b", "create", None, "present", "planned", None),
             ("acls", "User:a z", "delete", "present", None, "skipped", "owner rejected")]
    df = spark.createDataFrame(rows, "kind string, key string, action string, old_value string, new_value string, "
                                     "status string, error string")
    for show_all, shown in ((False, 20), (True, None), (False, None)):
        options: dict[str, Any] = {"show_all": show_all, "shown": shown, "not_ok": ("rejected", "skipped"),
                                   "bad_cap": 5}
        small = small_report(df, **options)
        assert small is not None
        assert small == large_report(df, **options)
        assert len(small.bad) == 5 and sum(small.counts.values()) == 42
