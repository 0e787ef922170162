"""Provision tenants (SCRAM users, topics with configs, ACLs, quotas) from a spec directory with Spark.

    python examples/provision_tenants.py                          # examples/tenants/ (50 tenants), embedded cluster
    python examples/provision_tenants.py SPEC_DIR --bootstrap-server broker:9092 --mode plan
    python examples/provision_tenants.py SPEC_DIR --bootstrap-server broker:9092 --mode apply \\
        --remove-unlisted --scope topics=t --scope principals=User:t

The spec directory holds one file per kind (``topics``, ``topic_configs``, ``acls``, ``scram_users``,
``quotas``; ``.csv``, ``.jsonl`` or ``.parquet``), described in docs/provision.md.  The job plans (a Spark join
of the spec against the cluster), applies in a safe order (users, topics, configs, ACL grants, revocations,
quotas last) and then plans again to show that nothing is left to do: a second run sends no write.  Results
(one row per entity: kind, key, action, old/new value, status, error) go as Parquet to ``--results DIR`` (by
default a new temporary directory whose name is printed).  Exit status 1 when some row was rejected, failed or
skipped.

SCRAM passwords are ``password_ref`` names (``env:VAR``, ``file:PATH``) resolved on the driver.  Without
``--bootstrap-server`` the job starts kadmin's embedded fake cluster (fake brokers in this process that speak
the Kafka protocol, with an authorizer; not Kafka), says so, and gives the sample's
``KADMIN_TENANT_PASSWORD`` a demo value when it is not set.
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
SAMPLE = HERE / "tenants"


@contextlib.contextmanager
def cluster_address(bootstrap: str | None) -> Iterator[str]:
    if bootstrap:
        yield bootstrap
        return
    from kadmin.testing import FakeCluster

    # The admin connects as User:ANONYMOUS (plaintext); the fake's authorizer lets it administer.
    with FakeCluster(brokers=3, authorizer={"super_users": ["User:ANONYMOUS"]}) as cluster:
        print(f"(no --bootstrap-server: using kadmin's embedded fake cluster at {cluster.bootstrap}; "
              "it starts empty and is gone when this job ends)", file=sys.stderr)
        if "KADMIN_TENANT_PASSWORD" not in os.environ:
            os.environ["KADMIN_TENANT_PASSWORD"] = "demo-only-password"
            print("(KADMIN_TENANT_PASSWORD not set: a demo value is used for the sample's SCRAM users)",
                  file=sys.stderr)
        yield cluster.bootstrap


def spark_session() -> Any:
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    if "PYSPARK_GATEWAY_PORT" in os.environ:  # under spark-submit: its session
        return SparkSession.builder.getOrCreate()
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    spark = (SparkSession.builder.master(os.environ.get("KADMIN_SPARK_MASTER", "local[2]"))
             .appName("kadmin provision tenants").config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false").config("spark.sql.shuffle.partitions", "4")
             .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("spec", nargs="?", default=str(SAMPLE), help="spec directory (default: examples/tenants)")
    ap.add_argument("--bootstrap-server", default=os.environ.get("KADMIN_BOOTSTRAP_SERVERS"))
    ap.add_argument("--mode", choices=("plan", "validate", "apply"), default="apply")
    ap.add_argument("--scope", action="append", default=[], help="topics=PREFIX, principals=PREFIX, kinds=...")
    ap.add_argument("--remove-unlisted", action="store_true")
    ap.add_argument("--batch-size", type=int, default=1000)
    ap.add_argument("--results", help="directory for the results (Parquet); default: a new temporary one")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")

    from kadmin.cli.tenant_input import check_file, find_files

    files = find_files(args.spec)
    for f in files:
        check_file(f)  # names, headers and types, before Spark starts
    from kadmin import AdminClient
    from kadmin.spark import StderrProgress, TenantSpec, env_or_file_secrets, provision

    spark = spark_session()

    def read(path: str, fmt: str) -> Any:
        if fmt == "csv":
            # "" inside a quoted cell is a quote (RFC 4180): the configs cells hold JSON
            return spark.read.csv(path, header=True, inferSchema=False, escape='"')
        return spark.read.parquet(path) if fmt == "parquet" else spark.read.json(path)

    spec = TenantSpec(secrets=env_or_file_secrets, **{f.kind: read(f.path, f.fmt) for f in files})
    out = Path(args.results) if args.results else Path(tempfile.mkdtemp(prefix="kadmin-tenants-"))
    scope = args.scope or None
    with cluster_address(args.bootstrap_server) as bootstrap, AdminClient(bootstrap) as admin:
        t0 = time.perf_counter()
        results = provision(spec, admin, args.mode, scope=scope, remove_unlisted=args.remove_unlisted,
                            batch_size=args.batch_size, progress=StderrProgress())
        results.write.mode("overwrite").parquet(str(out / "results"))
        counts = {(r["kind"], r["action"], r["status"]): r["count"]
                  for r in results.groupBy("kind", "action", "status").count().collect()}
        print(f"{args.mode} in {time.perf_counter() - t0:.1f}s; results in {out / 'results'}")
        for (kind, action, status), n in sorted(counts.items()):
            print(f"  {kind:14} {action:10} {status:17} {n}")
        bad = results.filter(results["status"].isin("failed", "rejected", "skipped", "possibly-applied"))
        for r in bad.limit(20).collect():
            print(f"  {r['status']}: {r['kind']} {r['key']}: {r['error']}", file=sys.stderr)
        if args.mode == "apply":
            again = provision(spec, admin, "plan", scope=scope, remove_unlisted=args.remove_unlisted)
            left = again.filter(again["action"] != "unchanged").count()
            print(f"plan after apply: {left} row(s) still differ (0 means a re-run sends nothing)")
    return 1 if any(s in ("failed", "rejected", "skipped", "possibly-applied") for (_, _, s) in counts) else 0


if __name__ == "__main__":
    sys.exit(main())
