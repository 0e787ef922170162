"""Benchmark: provision 100,000 quota entities (two keys each) from a Spark DataFrame into a FakeCluster.

Measured (``run(quick)`` returns the bench runner's shape, with every figure under ``figures``;
``python -m bench.spark_provision [--quick]`` prints it):

* ``apply_s``: ``provision_quotas(mode="apply")`` end to end (validation, describe, plan, streaming, sending,
  results materialized); ``plan_s`` is its part up to the "planned" progress event (validation, describe,
  diff, totals) and ``send_phase_s`` the part from "planned" to "done";
* ``alter_requests`` / ``describe_requests``: what the brokers received during the apply, from the cluster's
  request log; the target is ``alter_requests <= ceil(entities / batch_size)`` and one describe;
* ``rerun_s`` and ``rerun_alter_requests``: the same input again (target: 0 alterations);
* ``peak_python_mb_apply`` / ``peak_python_mb_rerun``: the driver's peak Python heap (tracemalloc) during a
  separate traced apply and re-run against a FakeCluster in a child process (``python -m kadmin.testing``),
  so that only the driver is measured.  The traced runs are not the timed ones: tracemalloc slows
  allocation-heavy Python several-fold.  The JVM's memory and Arrow's native buffers are not counted;
* ``direct_s``: building the same ``ClientQuotaAlteration`` objects in Python and sending them with
  ``AdminClient.alter_client_quotas`` (same batch size and concurrency) on a fresh cluster: what the Spark
  path adds is ``apply_over_direct = apply_s / direct_s`` (target: <= 2; the bench runner's ``ratio`` is the
  inverse, direct / Spark).

The desired table is generated in Spark (``spark.range``), so the driver never holds it.  The FakeCluster
runs in this process (its brokers share the GIL with the driver), as the direct baseline does.

Fairness (what is kept out of the timers, and why):

* a full ``gc.collect()`` precedes each timed section (apply, re-run, direct), outside the timer, as in
  ``bench.common``: otherwise the garbage of the step before (for the direct run, a 100,000-entity
  describe) is collected inside the next step's timer and billed to it;
* the JVM warm-up is a run at the full size (``--small-warmup``: a tenth, as before), because its purpose
  is to keep class loading, code generation and JIT compilation out of the timing, and a tenth-size run
  leaves the JIT only partly warm for the full-size code paths (the plan phase measured 4.6-8.8 s after
  it, ~2.5 s once warm); the direct path has no JVM, so only the Spark side needs a warm-up.  The warm-up
  is not timed and its cluster state is cleared before the timed run.
``quick=True``: 10,000 entities.

Dry runs of ``kadmin provision`` (issue #29: the start-up of a small spec), not part of ``run()`` (each is a
fresh process with its own JVM, tens of seconds): ``python -m bench.spark_provision --dry-run [--repeat N]
[--baseline TREE] [--variants JSON] [--cases A,B]`` runs the CLI's dry run of a 4-row spec (a topic, an ACL, a
SCRAM user, a quota) and of the README's sample (``examples/tenants``: 750 entities) against a FakeCluster in a
child process (``python -m kadmin.testing --authorizer``), ``N`` times each (default 3), interleaved with the
same runs of ``TREE``'s kadmin (e.g. the main branch's checkout: the "before") and of each variant of the
session settings (:mod:`bench.spark_dryrun_child` says how); it prints the medians per phase (import, JVM and
session start, spec reading, the Spark actions and how many Spark jobs they ran, the rest of the CLI, exit).
"""

from __future__ import annotations

import contextlib
import gc
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
def _cluster_process(*extra: str) -> Iterator[str]:
    """``python -m kadmin.testing`` in a child process; yields its bootstrap address."""
    proc = subprocess.Popen([sys.executable, "-m", "kadmin.testing", "--brokers", str(BROKERS), *extra],
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


def run(quick: bool, small_warmup: bool = False) -> dict[str, Any]:
    from kadmin import AdminClient
    from kadmin.spark import Progress, provision_quotas
    from kadmin.testing import FakeCluster

    n = 10_000 if quick else 100_000
    spark = _spark()
    desired = _desired(spark, n)
    fig: dict[str, Any] = {"entities": n, "keys_per_entity": len(KEYS), "batch_size": BATCH_SIZE,
                           "max_concurrency": MAX_CONCURRENCY, "brokers": BROKERS}
    opts = {"batch_size": BATCH_SIZE, "max_concurrency": MAX_CONCURRENCY}

    with FakeCluster(brokers=BROKERS) as cluster, AdminClient(cluster.bootstrap) as admin:
        # A run first, so that class loading, code generation and the JVM's JIT are not in the timings: a
        # long-running driver pays them once (a one-shot job pays them every time).  Full size by default
        # (see the module docstring), a tenth with small_warmup.
        warm = n // 10 if small_warmup else n
        fig["warmup_entities"] = warm
        provision_quotas(_desired(spark, warm), admin, **opts).unpersist()
        cluster.quotas = {}
        cluster.clear_log()

        stamps: dict[str, float] = {}

        def progress(p: Progress) -> None:
            stamps.setdefault(p.phase, time.perf_counter())

        gc.collect()
        t = time.perf_counter()
        results = provision_quotas(desired, admin, progress=progress, **opts)
        fig["apply_s"] = round(time.perf_counter() - t, 2)
        fig["plan_s"] = round(stamps["planned"] - t, 2)
        fig["send_phase_s"] = round(stamps["done"] - stamps["planned"], 2)
        fig["alter_requests"] = cluster.count(ALTER)
        fig["describe_requests"] = cluster.count(DESCRIBE)
        fig["target_alter_requests"] = math.ceil(n / BATCH_SIZE)
        statuses = {r["status"]: r["count"] for r in results.groupBy("status").count().collect()}
        fig["apply_statuses"] = statuses
        results.unpersist()
        applied = cluster.quotas

        cluster.clear_log()
        gc.collect()
        t = time.perf_counter()
        again = provision_quotas(desired, admin, **opts)
        fig["rerun_s"] = round(time.perf_counter() - t, 2)
        fig["rerun_alter_requests"] = cluster.count(ALTER)
        fig["rerun_statuses"] = {r["status"]: r["count"] for r in again.groupBy("status").count().collect()}
        again.unpersist()

    with FakeCluster(brokers=BROKERS) as cluster, AdminClient(cluster.bootstrap) as admin:
        admin.describe_cluster()
        gc.collect()
        t = time.perf_counter()
        answers = admin.alter_client_quotas(_alterations(n), **opts)
        fig["direct_s"] = round(time.perf_counter() - t, 2)
        fig["direct_alter_requests"] = cluster.count(ALTER)
        fig["direct_failures"] = sum(1 for v in answers.values() if v is not None)
        fig["same_state_as_spark"] = cluster.quotas == applied

    # Memory: traced copies of the two runs above, against a cluster in another process, so that the
    # fake brokers' own allocations (building a 100,000-entity describe answer) are not counted as the
    # driver's.
    with _cluster_process() as bootstrap, AdminClient(bootstrap) as admin:
        admin.describe_cluster()
        tracemalloc.start()
        provision_quotas(desired, admin, **opts).unpersist()
        fig["peak_python_mb_apply"] = round(tracemalloc.get_traced_memory()[1] / 2**20, 1)
        tracemalloc.reset_peak()
        provision_quotas(desired, admin, **opts).unpersist()
        fig["peak_python_mb_rerun"] = round(tracemalloc.get_traced_memory()[1] / 2**20, 1)
        tracemalloc.stop()

    over = fig["apply_s"] / fig["direct_s"] if fig["direct_s"] else math.inf
    fig["apply_over_direct"] = round(over, 2)
    targets = [
        {"what": "AlterClientQuotas requests (+ describes) for the apply",
         "target": f"<= ceil({n} / {BATCH_SIZE}) = {fig['target_alter_requests']} (+ 1 describe)",
         "measured": f"{fig['alter_requests']} (+ {fig['describe_requests']})",
         "met": fig["alter_requests"] <= fig["target_alter_requests"] and fig["describe_requests"] == 1},
        {"what": "Spark apply time against the direct alter_client_quotas call", "target": "<= 2x",
         "measured": f"{over:.2f}x ({fig['apply_s']} s vs {fig['direct_s']} s)", "met": over <= 2.0},
        {"what": "re-run of the same input", "target": "0 AlterClientQuotas requests",
         "measured": fig["rerun_alter_requests"], "met": fig["rerun_alter_requests"] == 0},
        {"what": "every key applied, same cluster state as the direct call", "target": f"{n * len(KEYS)} ok",
         "measured": statuses.get("ok", 0),
         "met": statuses.get("ok") == n * len(KEYS) and bool(fig["same_state_as_spark"])},
    ]
    notes = [
        "peer = kadmin's own alter_client_quotas without Spark (kafka-python has no client-quota API); "
        "ratio = direct / Spark, so below 1 means Spark is slower",
        f"plan {fig['plan_s']} s (validate, describe, diff, totals), send phase {fig['send_phase_s']} s, "
        f"re-run {fig['rerun_s']} s; driver peak Python heap {fig['peak_python_mb_apply']} MB (apply), "
        f"{fig['peak_python_mb_rerun']} MB (re-run: describe of {n:,} entities)",
        "the FakeCluster runs in the driver's process for the timed runs (it shares the GIL), in a child "
        f"process for the memory runs; a warm-up run of {fig['warmup_entities']:,} entities precedes the timed "
        "ones, and a full gc.collect() (outside the timers) each timed section",
    ]
    row = {"case": f"provision {n:,} entities x {len(KEYS)} keys from a DataFrame (validate, plan, apply)",
           "kadmin_s": fig["apply_s"], "peer": "kadmin alter_client_quotas, no Spark", "peer_s": fig["direct_s"],
           "ratio": round(fig["direct_s"] / fig["apply_s"], 2) if fig["apply_s"] else None,
           **{k: fig[k] for k in ("plan_s", "send_phase_s", "rerun_s", "alter_requests", "rerun_alter_requests",
                                  "peak_python_mb_apply", "peak_python_mb_rerun")}}
    return {"name": "spark_provision", "rows": [row], "notes": notes, "targets": targets, "figures": fig}


# --- dry runs of ``kadmin provision``: a 4-row spec and the README's 750-entity sample ----------------------

SAMPLE_SPEC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples", "tenants")
CHILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "spark_dryrun_child.py")
DRY_PASSWORD_ENV = "KADMIN_BENCH_DRY_PASSWORD"
#: one row per kind that has a column table: a topic, an ACL, a SCRAM user, a quota (one key)
SMALL_SPEC = {
    "topics.csv": "name,partitions,replication_factor,configs\nb01-orders,3,3,\n",
    "acls.csv": "principal,host,operation,permission,resource_type,resource_name,pattern_type\n"
                "User:b01,*,READ,ALLOW,TOPIC,b01-,PREFIXED\n",
    "scram_users.csv": f"user,mechanism,iterations,password_ref\nb01,SCRAM-SHA-512,8192,env:{DRY_PASSWORD_ENV}\n",
    "quotas.csv": "user,producer_byte_rate\nb01,1048576\n",
}
PHASES = ("total_s", "import_s", "session_s", "read_s", "jobs_s", "other_s", "exit_s")


def _small_spec(where: str) -> str:
    os.makedirs(where, exist_ok=True)
    for name, text in SMALL_SPEC.items():
        with open(os.path.join(where, name), "w", encoding="utf-8") as f:
            f.write(text)
    return where


def _dry_run_once(tree: str, spec: str, bootstrap: str, variant: dict[str, Any] | None = None) -> dict[str, Any]:
    """One ``kadmin provision SPEC --dry-run`` in a fresh process (its own JVM), with ``tree``'s kadmin (and the
    session settings ``variant`` changes): the phases of :mod:`bench.spark_dryrun_child`, and the process's
    wall time measured here."""
    env = {**os.environ, "PYTHONPATH": tree, DRY_PASSWORD_ENV: "bench-only", "KADMIN_TENANT_PASSWORD": "bench-only"}
    if variant:
        env["KADMIN_BENCH_SPARK_VARIANT"] = json.dumps(variant)
    t = time.time()
    proc = subprocess.run([sys.executable, CHILD, spec, bootstrap], env=env, capture_output=True, text=True,
                          timeout=900, check=False)
    end = time.time()
    if proc.returncode != 0 or not proc.stdout.strip():
        raise RuntimeError(f"dry-run child failed ({proc.returncode}): {proc.stderr[-2000:]}")
    st = json.loads(proc.stdout.strip().splitlines()[-1])
    if st["code"] not in (0, 1):
        raise RuntimeError(f"kadmin provision exited {st['code']}: {st.get('stderr')}")
    jobs_s = sum(j["s"] for j in st["jobs"])
    session_s = st.get("session_s", 0.0)
    return {"total_s": end - t, "import_s": st["t_imported"] - t, "session_s": session_s, "read_s": st["read_s"],
            "jobs_s": jobs_s, "other_s": st["cli_s"] - session_s - st["read_s"] - jobs_s,
            "exit_s": end - st["t_end"], "actions": len(st["jobs"]),
            "spark_jobs": sum(j["spark_jobs"] for j in st["jobs"]), "job_list": st["jobs"],
            "summary": st["summary"], "code": st["code"]}


def _median(xs: list[float]) -> float:
    ys = sorted(xs)
    return ys[len(ys) // 2] if len(ys) % 2 else (ys[len(ys) // 2 - 1] + ys[len(ys) // 2]) / 2


def dry_runs(repeat: int = 3, baseline: str | None = None, variants: dict[str, Any] | None = None,
             cases: tuple[str, ...] = ("4-row spec", "750-entity sample")) -> dict[str, Any]:
    """The 4-row and the sample spec's dry runs, ``repeat`` times each, interleaved (case, tree) so that the
    machine's load falls on all alike; medians per phase.  ``baseline``: another tree's kadmin (e.g. the main
    branch's checkout) timed in the same run, as the "before".  ``variants``: name -> session settings to time
    against this tree's own (see :mod:`bench.spark_dryrun_child`)."""
    import tempfile

    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    trees: dict[str, tuple[str, Any]] = {"this": (here, None), **({"baseline": (baseline, None)} if baseline else {}),
                                         **{name: (here, v) for name, v in (variants or {}).items()}}
    runs: dict[tuple[str, str], list[dict[str, Any]]] = {}
    with tempfile.TemporaryDirectory(prefix="kadmin-bench-dry-") as tmp, \
            _cluster_process("--authorizer") as bootstrap:
        specs = {"4-row spec": _small_spec(os.path.join(tmp, "small")), "750-entity sample": SAMPLE_SPEC}
        for _ in range(repeat):
            for case in cases:
                for tree_name, (tree, variant) in trees.items():
                    r = _dry_run_once(tree, specs[case], bootstrap, variant)
                    log.warning("%s %s: %.1f s", case, tree_name, r["total_s"])
                    runs.setdefault((case, tree_name), []).append(r)
    rows = []
    for (case, tree_name), rs in runs.items():
        row: dict[str, Any] = {"case": case, "tree": tree_name, "runs": len(rs)}
        for k in (*PHASES, "actions", "spark_jobs"):
            row[k] = round(_median([r[k] for r in rs]), 2)
        row["summary"] = rs[0]["summary"]
        row["job_list_first_run"] = rs[0]["job_list"]
        rows.append(row)
    return {"rows": rows, "load_average": os.getloadavg(), "repeat": repeat}


def _dry_table(result: dict[str, Any]) -> str:
    head = "| case | tree | " + " | ".join(PHASES) + " | actions | spark jobs |"
    lines = [head, "|" + "---|" * (len(PHASES) + 4)]
    for r in result["rows"]:
        lines.append(f"| {r['case']} | {r['tree']} | " + " | ".join(f"{r[k]:.2f}" for k in PHASES)
                     + f" | {r['actions']:g} | {r['spark_jobs']:g} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    logging.basicConfig(level=logging.WARNING)
    if "--dry-run" in args:
        # python -m bench.spark_provision --dry-run [--repeat N] [--baseline TREE] [--variants JSON] [--cases A,B]
        repeat = int(args[args.index("--repeat") + 1]) if "--repeat" in args else 3
        baseline = args[args.index("--baseline") + 1] if "--baseline" in args else None
        variants = json.loads(args[args.index("--variants") + 1]) if "--variants" in args else None
        cases = tuple(args[args.index("--cases") + 1].split(",")) if "--cases" in args else None
        result = dry_runs(repeat, baseline, variants, *((cases,) if cases else ()))
        print(json.dumps(result, indent=2, sort_keys=True))
        print(_dry_table(result))
        return 0
    print(json.dumps(run(quick="--quick" in args, small_warmup="--small-warmup" in args), indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
