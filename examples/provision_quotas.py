"""Provision Kafka client quotas from a CSV or Parquet file with Spark: validate, plan, apply, report.

    python examples/provision_quotas.py                                  # the shipped sample, embedded cluster
    python examples/provision_quotas.py examples/quotas_invalid_sample.csv   # what rejected rows look like
    python examples/provision_quotas.py quotas.parquet --bootstrap-server broker:9092 --mode plan
    python examples/provision_quotas.py quotas.csv --bootstrap-server broker:9092 --remove-unlisted

The input is long (``user,client_id,ip,quota_key,value``) or wide (entity columns plus one column per quota
key); ``<default>`` names a default entity, an empty entity cell is "not part of the entity", and in long
format an empty value removes the key.  CSV is read with every column as text, so that a value that is not a
number is *rejected with its text* instead of silently becoming null (which would mean "remove").

``--mode plan`` sends nothing, ``validate`` has the brokers check every alteration without applying it,
``apply`` (the default) alters.  Running the same input twice changes nothing the second time: every row
comes back ``unchanged``.  The results (one row per entity and key: old and new value, action, status,
error) are written as Parquet (or CSV with ``--output-format csv``) to ``--results DIR``, by default a
new temporary directory whose name is printed (never an earlier run's), and a summary is printed.  Exit
status, as ``kadmin quotas provision``'s: 0 when every row was applied (or unchanged), 1 when some rows
were rejected (reported and skipped; the valid rows are applied) or some entities failed, 2 when
``--strict`` refused an input with rejected rows (then nothing was sent).

Without ``--bootstrap-server`` it starts kadmin's embedded fake cluster (kadmin.testing.FakeCluster: fake
brokers in this process that speak the Kafka protocol, not Kafka) and says so.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SAMPLE = HERE / "quotas_sample.csv"


@contextlib.contextmanager
def cluster_address(bootstrap: str | None) -> Iterator[str]:
    """The given cluster, or an embedded fake one (empty) for as long as the job runs."""
    if bootstrap:
        yield bootstrap
        return
    from kadmin.testing import FakeCluster

    with FakeCluster(brokers=3) as cluster:
        print(f"(no --bootstrap-server: using kadmin's embedded fake cluster at {cluster.bootstrap}; "
              "it starts empty and is gone when this job ends)", file=sys.stderr)
        yield cluster.bootstrap


def spark_session() -> Any:
    """The session spark-submit configured, else a small local one."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    builder = SparkSession.builder.appName("kadmin-provision-quotas")
    if "SPARK_REMOTE" not in os.environ and "spark.master" not in os.environ.get("PYSPARK_SUBMIT_ARGS", ""):
        builder = (builder.master("local[2]").config("spark.sql.shuffle.partitions", "4")
                   .config("spark.ui.showConsoleProgress", "false"))
    spark = builder.getOrCreate()
    return spark


def read_input(spark: Any, path: str) -> Any:
    if path.endswith(".parquet") or Path(path).is_dir():
        return spark.read.parquet(path)
    # Text columns only: kadmin.spark parses the numbers and rejects what does not parse, with its text.
    return spark.read.option("header", True).option("inferSchema", False).csv(path)


def print_summary(results: Any, mode: str) -> tuple[int, int]:
    """Counts per action and status, then a few failed and rejected rows; returns (failed, rejected)."""
    from kadmin.spark import summary

    counts = summary(results)
    print(f"\n{mode}: result rows by action and status")
    print(f"  {'action':<10} {'status':<10} {'rows':>7}")
    for (action, status), n in counts.items():
        print(f"  {action:<10} {status:<10} {n:>7}")
    failed = sum(n for (_, s), n in counts.items() if s == "failed")
    rejected = sum(n for (_, s), n in counts.items() if s == "rejected")
    for status, n in (("failed", failed), ("rejected", rejected)):
        if not n:
            continue
        print(f"\n{n} {status} row(s); the first ones:")
        for r in results.filter(results.status == status).limit(5).collect():
            entity = ", ".join(f"{c}={r[c]}" for c in ("user", "client_id", "ip") if r[c] is not None)
            print(f"  [{entity or 'no entity'}] {r['quota_key']}: {r['error']}")
    return failed, rejected


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Provision Kafka client quotas from a CSV/Parquet file with Spark.")
    ap.add_argument("input", nargs="?", default=str(SAMPLE), help=f"CSV or Parquet file (default: {SAMPLE.name})")
    ap.add_argument("--bootstrap-server", help="host:port[,host:port]; default: an embedded fake cluster")
    ap.add_argument("--mode", choices=("apply", "validate", "plan"), default="apply")
    ap.add_argument("--remove-unlisted", action="store_true",
                    help="remove quota keys that in-scope entities have but the input does not list")
    ap.add_argument("--batch-size", type=int, default=None, help="entities per AlterClientQuotas request")
    ap.add_argument("--max-concurrency", type=int, default=None, help="requests in flight at once")
    ap.add_argument("--format", choices=("long", "wide"), default=None, help="input layout (default: detect)")
    ap.add_argument("--strict", action="store_true", help="refuse to send anything if any row is invalid")
    ap.add_argument("--results", "--output", dest="results", default=None, metavar="DIR",
                    help="directory for the results (default: a new temporary directory)")
    ap.add_argument("--output-format", choices=("parquet", "csv"), default="parquet")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    logging.getLogger("py4j").setLevel(logging.WARNING)

    from kadmin import AdminClient
    from kadmin.spark import RejectedRowsError, provision_quotas

    spark = spark_session()
    desired = read_input(spark, args.input)
    kwargs: dict[str, Any] = {}
    if args.batch_size is not None:
        kwargs["batch_size"] = args.batch_size
    if args.max_concurrency is not None:
        kwargs["max_concurrency"] = args.max_concurrency
    started = time.monotonic()
    with cluster_address(args.bootstrap_server) as bootstrap, AdminClient(bootstrap) as admin:
        try:
            results = provision_quotas(desired, admin, mode=args.mode, remove_unlisted=args.remove_unlisted,
                                       strict=args.strict, format=args.format, **kwargs)
        except RejectedRowsError as exc:
            print(f"refused (--strict): {exc}", file=sys.stderr)
            return 2
        # A fresh directory unless one is named: a second run must never overwrite the first one's results.
        where = args.results or os.path.join(tempfile.mkdtemp(prefix="kadmin-provision-"), "results")
        writer = results.coalesce(1).write.mode("overwrite" if args.results else "errorifexists")
        if args.output_format == "csv":
            writer.option("header", True).csv(where)
        else:
            writer.parquet(where)
        failed, rejected = print_summary(results, args.mode)
    print(f"\nresults ({args.output_format}): {where}   [{time.monotonic() - started:.1f}s]")
    if rejected:
        print(f"{rejected} input row(s) were rejected and skipped; fix them and run again (--strict refuses "
              "such input before sending anything)")
    return 1 if failed or rejected else 0


if __name__ == "__main__":
    sys.exit(main())
