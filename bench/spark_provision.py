"""Benchmark: provision 100,000 quota entities (two keys each) from a Spark DataFrame into a FakeCluster.

Measured (``run(quick)`` returns them as a dict; ``python -m bench.spark_provision [--quick]`` prints it):

* ``plan_s``: ``plan_quotas`` plus materializing the plan (``count()``), against the empty cluster;
* ``apply_s``: ``provision_quotas(mode="apply")`` end to end (validation, describe, plan, streaming, sending,
  results materialized), and ``send_phase_s``, its part from "planned" to "done" (progress callback);
* ``alter_requests`` / ``describe_requests``: what the brokers received during the apply, from the cluster's
  request log; the target is ``alter_requests <= ceil(entities / batch_size)`` and one describe;
* ``rerun_s`` and ``rerun_alter_requests``: the same input again (target: 0 alterations);
* ``peak_python_mb_apply`` / ``peak_python_mb_rerun``: the driver's peak Python heap (tracemalloc) during a
  separate traced apply and re-run against a FakeCluster in a child process (``python -m kadmin.testing``),
  so that only the driver is measured.  The traced runs are not the timed ones: tracemalloc slows
  allocation-heavy Python several-fold.  The JVM's memory and Arrow's native buffers are not counted;
* ``direct_s``: building the same ``ClientQuotaAlteration`` objects in Python and sending them with
  ``AdminClient.alter_client_quotas`` (same batch size and concurrency) on a fresh cluster: what the Spark
  path adds is ``ratio = apply_s / direct_s`` (target: <= 2).

The desired table is generated in Spark (``spark.range``), so the driver never holds it.  The FakeCluster
runs in this process (its brokers share the GIL with the driver), as the direct baseline does.
``quick=True``: 10,000 entities.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import os
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Iterator
from typing import Any

log = logging.getLogger("bench.spark_provision")

ALTER, DESCRIBE = 49, 48
BROKERS = 3
BATCH_SIZE = 1000
MAX_CONCURRENCY = 4
KEYS = ("producer_byte_rate", "request_percentage")


def _spark() -> Any:
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    spark = (SparkSession.builder.master("local[2]").appName("kadmin-bench")
             .config("spark.sql.shuffle.partitions", "4").config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false").config("spark.driver.host", "127.0.0.1")
             .config("spark.driver.bindAddress", "127.0.0.1").config("spark.driver.memory", "2g")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def _desired(spark: Any, n: int) -> Any:
    """Wide format: user, producer_byte_rate (whole), request_percentage (fractional)."""
    from pyspark.sql import functions as F

    return spark.range(n).select(
        F.format_string("user-%07d", F.col("id")).alias("user"),
        (F.col("id") * 1024 + 1048576).cast("double").alias("producer_byte_rate"),
        ((F.col("id") % 1000) / 8.0 + 0.125).alias("request_percentage"),
    )


def _alterations(n: int) -> list[Any]:
    """The alterations the Spark path sends, built the way a caller without Spark would."""
    from kadmin.quotas import ClientQuotaAlteration, ClientQuotaEntity, Set

    return [ClientQuotaAlteration(ClientQuotaEntity({"user": f"user-{i:07d}"}), [
        Set("producer_byte_rate", float(i * 1024 + 1048576)), Set("request_percentage", (i % 1000) / 8.0 + 0.125)])
        for i in range(n)]


@contextlib.contextmanager
def _cluster_process() -> Iterator[str]:
    """``python -m kadmin.testing`` in a child process; yields its bootstrap address."""
    proc = subprocess.Popen([sys.executable, "-m", "kadmin.testing", "--brokers", str(BROKERS)],
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        bootstrap = proc.stdout.readline().strip()
        if not bootstrap:
            raise RuntimeError("python -m kadmin.testing did not print a bootstrap address")
        yield bootstrap
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def run(quick: bool) -> dict[str, Any]:
    from kadmin import AdminClient
    from kadmin.spark import Progress, plan_quotas, provision_quotas
    from kadmin.testing import FakeCluster

    n = 10_000 if quick else 100_000
    spark = _spark()
    desired = _desired(spark, n)
    out: dict[str, Any] = {"entities": n, "keys_per_entity": len(KEYS), "batch_size": BATCH_SIZE,
                           "max_concurrency": MAX_CONCURRENCY, "brokers": BROKERS}
    opts = {"batch_size": BATCH_SIZE, "max_concurrency": MAX_CONCURRENCY}

    with FakeCluster(brokers=BROKERS) as cluster, AdminClient(cluster.bootstrap) as admin:
        # Warm the JVM (code generation, class loading) on a tiny input, so the first timing is not its cost.
        provision_quotas(_desired(spark, 10), admin, mode="plan").count()
        cluster.quotas = {}
        cluster.clear_log()

        t = time.perf_counter()
        planned = plan_quotas(desired, admin)
        planned_rows = planned.count()
        out["plan_s"] = round(time.perf_counter() - t, 2)
        out["planned_rows"] = planned_rows

        cluster.clear_log()
        stamps: dict[str, float] = {}

        def progress(p: Progress) -> None:
            stamps.setdefault(p.phase, time.perf_counter())

        t = time.perf_counter()
        results = provision_quotas(desired, admin, progress=progress, **opts)
        out["apply_s"] = round(time.perf_counter() - t, 2)
        out["send_phase_s"] = round(stamps["done"] - stamps["planned"], 2)
        out["alter_requests"] = cluster.count(ALTER)
        out["describe_requests"] = cluster.count(DESCRIBE)
        out["target_alter_requests"] = math.ceil(n / BATCH_SIZE)
        statuses = {r["status"]: r["count"] for r in results.groupBy("status").count().collect()}
        out["apply_statuses"] = statuses
        results.unpersist()
        applied = cluster.quotas
        out["applied_entities"] = len(applied)

        cluster.clear_log()
        t = time.perf_counter()
        again = provision_quotas(desired, admin, **opts)
        out["rerun_s"] = round(time.perf_counter() - t, 2)
        out["rerun_alter_requests"] = cluster.count(ALTER)
        out["rerun_statuses"] = {r["status"]: r["count"] for r in again.groupBy("status").count().collect()}
        again.unpersist()

    # Memory: traced copies of the two runs above, against a cluster in another process, so that the
    # fake brokers' own allocations (building a 100,000-entity describe answer) are not counted as the
    # driver's.
    with _cluster_process() as bootstrap, AdminClient(bootstrap) as admin:
        admin.describe_cluster()
        tracemalloc.start()
        provision_quotas(desired, admin, **opts).unpersist()
        out["peak_python_mb_apply"] = round(tracemalloc.get_traced_memory()[1] / 2**20, 1)
        tracemalloc.reset_peak()
        provision_quotas(desired, admin, **opts).unpersist()
        out["peak_python_mb_rerun"] = round(tracemalloc.get_traced_memory()[1] / 2**20, 1)
        tracemalloc.stop()

    with FakeCluster(brokers=BROKERS) as cluster, AdminClient(cluster.bootstrap) as admin:
        admin.describe_cluster()
        t = time.perf_counter()
        answers = admin.alter_client_quotas(_alterations(n), **opts)
        out["direct_s"] = round(time.perf_counter() - t, 2)
        out["direct_alter_requests"] = cluster.count(ALTER)
        out["direct_failures"] = sum(1 for v in answers.values() if v is not None)
        out["same_state_as_spark"] = cluster.quotas == applied

    out["ratio"] = round(out["apply_s"] / out["direct_s"], 2) if out["direct_s"] else None
    out["targets"] = {
        "requests": out["alter_requests"] <= out["target_alter_requests"] and out["describe_requests"] == 1,
        "ratio_le_2": out["ratio"] is not None and out["ratio"] <= 2.0,
        "rerun_sends_nothing": out["rerun_alter_requests"] == 0,
        "all_ok": statuses.get("ok") == n * len(KEYS) and out["same_state_as_spark"],
    }
    return out


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    logging.basicConfig(level=logging.WARNING)
    print(json.dumps(run(quick="--quick" in args), indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
