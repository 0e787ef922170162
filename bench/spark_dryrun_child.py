"""One instrumented ``kadmin provision SPEC --dry-run`` in this process, for :mod:`bench.spark_provision`.

    python bench/spark_dryrun_child.py SPEC BOOTSTRAP

Run by path (not as ``bench.``): it imports only the standard library, PySpark and whichever ``kadmin`` is on
PYTHONPATH, so the same script times the current tree and a baseline tree in the same bench run.  It runs
``kadmin.cli.main.main`` unchanged and stamps its phases from the outside, by wrapping PySpark's entry points:

* ``import``: ``kadmin.cli.main`` and ``pyspark.sql`` imported (the CLI imports PySpark on first use: it is
  imported here first so that the JVM phase below is only the JVM's);
* ``session``: ``SparkSession.Builder.getOrCreate`` (the JVM's launch and the SparkContext);
* ``read``: the ``DataFrameReader`` calls (a CSV read with a header and no schema runs a job for the header);
* ``jobs``: each DataFrame action (``collect``, ``count``, ``toLocalIterator``, ``toArrow``, ...), with the
  number of Spark jobs it ran (from the status tracker) and where in kadmin it was called from;
* ``other``: the rest of the CLI run (the plan's Python side, the cluster reads, the report).

The wall time of the whole process (interpreter start to exit) is the parent's to measure.  The stamps are
printed as one JSON line on stdout's last line; the CLI's own output goes to a discarded buffer.
"""

from __future__ import annotations

import io
import json
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any

T0 = time.time()
stamps: dict[str, Any] = {"t_start": T0, "read_s": 0.0, "jobs": []}
_depth = [0]


def _caller() -> str:
    """The innermost kadmin frame that called the action (file:line), or '?'."""
    for frame in reversed(traceback.extract_stack()[:-2]):
        if "/kadmin/" in frame.filename:
            return f"{frame.filename.rsplit('/kadmin/', 1)[1]}:{frame.lineno}"
    return "?"


def _jobs_so_far(spark: Any) -> int:
    try:
        return len(spark.sparkContext.statusTracker().getJobIdsForGroup(None))
    except Exception:  # noqa: BLE001 - a bench: no tracker, no count
        return -1


def _wrap_action(cls: type, name: str) -> None:
    inner: Callable[..., Any] = getattr(cls, name)

    def timed(self: Any, *args: Any, **kwargs: Any) -> Any:
        if _depth[0]:
            return inner(self, *args, **kwargs)
        _depth[0] += 1
        spark = self.sparkSession
        before = _jobs_so_far(spark)
        t = time.time()
        try:
            out = inner(self, *args, **kwargs)
            if name == "toLocalIterator":
                out = list(out)  # the jobs run as the iterator is drained
            return iter(out) if name == "toLocalIterator" else out
        finally:
            _depth[0] -= 1
            stamps["jobs"].append({"action": name, "at": _caller(), "s": round(time.time() - t, 3),
                                   "spark_jobs": _jobs_so_far(spark) - before})

    setattr(cls, name, timed)


def _wrap_reader(cls: type, name: str) -> None:
    inner: Callable[..., Any] = getattr(cls, name)

    def timed(self: Any, *args: Any, **kwargs: Any) -> Any:
        t = time.time()
        try:
            return inner(self, *args, **kwargs)
        finally:
            stamps["read_s"] += time.time() - t

    setattr(cls, name, timed)


def _variant() -> None:
    """KADMIN_BENCH_SPARK_VARIANT (JSON: {"conf": {...}, "small_conf": {...}, "small_java": [...], "master": "local[1]",
    "local_csv": false})
    changes the session kadmin starts, to measure one setting against another in the same bench run."""
    import os

    text = os.environ.get("KADMIN_BENCH_SPARK_VARIANT")
    if not text:
        return
    import kadmin.cli.spark_session as s

    v = json.loads(text)
    s.LEAN_CONF.update(v.get("conf", {}))
    s.SMALL_CONF.update(v.get("small_conf", {}))
    s.SMALL_JAVA_OPTIONS = tuple(v.get("small_java", s.SMALL_JAVA_OPTIONS))
    if "master" in v:
        s.DEFAULT_MASTER = v["master"]
    if "local_csv" in v:
        import kadmin.cli.provision_frames as frames

        frames.LOCAL_CSV = v["local_csv"]


def main(argv: list[str]) -> int:
    spec, bootstrap = argv
    import pyspark.sql  # noqa: F401 - see the module docstring: its import is part of the import phase
    from pyspark.sql import DataFrameReader, SparkSession
    from pyspark.sql.classic.dataframe import DataFrame

    from kadmin.cli.main import main as cli_main

    stamps["t_imported"] = time.time()
    _variant()
    builder_get: Callable[..., Any] = SparkSession.Builder.getOrCreate

    def get_or_create(self: Any) -> Any:
        t = time.time()
        try:
            return builder_get(self)
        finally:
            stamps["session_s"] = stamps.get("session_s", 0.0) + time.time() - t

    SparkSession.Builder.getOrCreate = get_or_create  # type: ignore[method-assign]
    for action in ("collect", "count", "toLocalIterator", "toArrow", "toPandas", "first", "take", "head",
                   "isEmpty", "foreachPartition"):
        _wrap_action(DataFrame, action)
    for reader in ("csv", "json", "parquet"):
        _wrap_reader(DataFrameReader, reader)
    out, err = io.StringIO(), io.StringIO()
    t = time.time()
    code = cli_main(["-b", bootstrap, "provision", spec, "--dry-run"], stdout=out, stderr=err)
    stamps["cli_s"] = time.time() - t
    stamps["code"] = code
    stamps["summary"] = [line for line in out.getvalue().splitlines() if "/" in line and "planned" in line][-3:]
    if code not in (0, 1):
        stamps["stderr"] = err.getvalue()[-2000:]
    stamps["t_end"] = time.time()
    print(json.dumps(stamps), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
