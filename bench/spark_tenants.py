"""Tenant provisioning through Spark (``kadmin.spark.provision``) against kadmin's batched calls made directly.

Per tenant, the issue's proportions: 0.2 topics, 2 ACL bindings, 1 SCRAM user, 2 quota keys (5.2 entities; a
million entities is 192,308 tenants: 38,462 topics, 384,616 bindings, 192,308 users, 384,616 quota keys).
Three ways to the same end state, each on a fresh fake cluster:

* **spark**: plan (Spark join against the state read once per kind) + apply from the driver, then a re-run
  that must plan no change and send no write;
* **direct**: kadmin's batched operations called straight from Python with the same batch size (no Spark,
  no plan: what a hand-written script that already knows the cluster is empty would do);
* **loop**: one call per resource (Terraform-style), on a slice of the tenants, scaled linearly.

The fake cluster (:class:`kadmin.testing.FakeCluster`, brokers with an authorizer) runs in a child process
of its own (``python -m bench.spark_tenants --fake-child``), which also answers the request counts per API:
so the driver's memory is the pipeline's alone (the fake holds every entity it is sent, and its brokers would
otherwise share the driver's heap and GIL), and the fake's own memory is reported beside it.  The Spark
spec is generated in Spark (``spark.range``), so the driver never holds the input either; the direct path
builds its request objects in Python, as a script would.

Time is wall time (the Spark path runs in a JVM and over threads; CPU time of this process would hide it).
Memory: peak RSS (VmHWM, reset before each timed section) of the driver, of Spark's JVM (local mode:
driver and executors in one JVM) and of the fake cluster's process; with ``--trace`` a separate traced run
gives the driver's peak Python heap (tracemalloc) and the lines that hold it at the peak.  SCRAM salting
(PBKDF2, 4096 rounds per user) costs the same on every path and is part of each.

    python -m bench.spark_tenants [--entities N | --tenants N] [--loop-tenants N] [--trace]
    KADMIN_BENCH_ENTITIES=1000000 python -m bench --only spark_tenants --budget 3600   # into bench/results

Default 10,000 tenants (52,000 entities); ``--quick`` 300.  ``KADMIN_BENCH_ENTITIES`` (or
``KADMIN_BENCH_TENANTS``) sets the size when run by ``python -m bench``.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import logging
import math
import os
import subprocess
import sys
import threading
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

log = logging.getLogger("bench.spark_tenants")

BATCH = 1000
PASSWORD_ENV = "KADMIN_BENCH_TENANT_PASSWORD"
ROOT = Path(__file__).resolve().parent.parent
#: Entities per tenant: 0.2 topics + 2 ACL bindings + 1 SCRAM user + 2 quota keys.
PER_TENANT = 5.2


def tenants_for(entities: int) -> int:
    """The number of tenants whose entities reach ``entities`` (1,000,000 -> 192,308)."""
    return max(1, math.ceil(entities / PER_TENANT))


def _name(i: int) -> str:
    return f"t{i:07d}"


def _spark() -> Any:
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master("local[2]").appName("kadmin bench tenants")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.shuffle.partitions", "4").config("spark.driver.host", "127.0.0.1")
             .config("spark.driver.bindAddress", "127.0.0.1").config("spark.driver.memory", "2g").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def tenant_rows(n: int) -> dict[str, list[tuple[Any, ...]]]:
    """The direct path's input (and the loop's): the same rows :func:`spec_frames` makes in Spark."""
    ts = [_name(i) for i in range(n)]
    return {
        "topics": [(f"{t}-events", 1, 1) for i, t in enumerate(ts) if i % 5 == 0],
        "acls": [(f"User:{t}", "*", op, "ALLOW", rt, f"{t}-", "PREFIXED")
                 for t in ts for op, rt in (("READ", "TOPIC"), ("READ", "GROUP"))],
        "users": [(t, "SCRAM-SHA-256", 4096, "env:" + PASSWORD_ENV) for t in ts],
        "quotas": [(t, 1048576.0, 2097152.0) for t in ts],
    }


def spec_frames(spark: Any, n: int) -> Any:
    """The tenant spec of ``n`` tenants, generated in Spark (the driver holds none of it)."""
    from kadmin.spark import TenantSpec, env_or_file_secrets

    t = spark.range(n).selectExpr("format_string('t%07d', id) AS t", "id")
    acl = "named_struct('op', 'READ', 'rt', {})"
    return TenantSpec(
        topics=t.filter("id % 5 = 0").selectExpr("concat(t, '-events') AS name", "1 AS partitions",
                                                 "1 AS replication_factor"),
        acls=t.selectExpr("concat('User:', t) AS principal", "'*' AS host", "concat(t, '-') AS resource_name",
                          f"explode(array({acl.format(repr('TOPIC'))}, {acl.format(repr('GROUP'))})) AS x")
        .selectExpr("principal", "host", "x.op AS operation", "'ALLOW' AS permission",
                    "x.rt AS resource_type", "resource_name", "'PREFIXED' AS pattern_type"),
        scram_users=t.selectExpr("t AS user", "'SCRAM-SHA-256' AS mechanism", "4096 AS iterations",
                                 f"'env:{PASSWORD_ENV}' AS password_ref"),
        quotas=t.selectExpr("t AS user", "1048576.0D AS producer_byte_rate", "2097152.0D AS consumer_byte_rate"),
        secrets=env_or_file_secrets)


def sizes(n: int) -> dict[str, int]:
    """Entities per API for ``n`` tenants (quota *entities*: one AlterClientQuotas entry holds both keys)."""
    return {"CreateTopics": (n + 4) // 5, "CreateAcls": 2 * n, "AlterUserScramCredentials": n,
            "AlterClientQuotas": n}


def entities(n: int) -> int:
    s = sizes(n)
    return s["CreateTopics"] + s["CreateAcls"] + s["AlterUserScramCredentials"] + 2 * s["AlterClientQuotas"]


# --- the fake cluster in a child process ------------------------------------------------------------------


WRITE_APIS = ("CreateTopics", "CreateAcls", "AlterUserScramCredentials", "AlterClientQuotas", "DeleteAcls",
              "DeleteTopics", "IncrementalAlterConfigs", "CreatePartitions")


def _counts(cluster: Any) -> dict[str, int]:
    from kadmin.protocol.apis import ApiKey

    keys = {"CreateTopics": ApiKey.CREATE_TOPICS, "CreateAcls": ApiKey.CREATE_ACLS,
            "AlterUserScramCredentials": ApiKey.ALTER_USER_SCRAM_CREDENTIALS,
            "AlterClientQuotas": ApiKey.ALTER_CLIENT_QUOTAS, "DeleteAcls": ApiKey.DELETE_ACLS,
            "DeleteTopics": ApiKey.DELETE_TOPICS, "IncrementalAlterConfigs": ApiKey.INCREMENTAL_ALTER_CONFIGS,
            "CreatePartitions": ApiKey.CREATE_PARTITIONS}
    return {n: cluster.count(k) for n, k in keys.items() if cluster.count(k)}


def fake_child() -> int:
    """``--fake-child``: a FakeCluster (3 brokers, authorizer, ``User:ANONYMOUS`` super user); prints its
    bootstrap, then answers lines on stdin: ``counts`` (write requests per API, JSON), ``clear`` (empties the
    request log), EOF ends it."""
    from kadmin.testing import FakeCluster

    with FakeCluster(brokers=3, authorizer={"super_users": ["User:ANONYMOUS"]}) as cluster:
        print(cluster.bootstrap, flush=True)
        for line in sys.stdin:
            if line.strip() == "counts":
                print(json.dumps(_counts(cluster)), flush=True)
            elif line.strip() == "clear":
                cluster.clear_log()
                print("{}", flush=True)
    return 0


class FakeProcess:
    """The child's handle: its bootstrap, its request counts, its memory."""

    def __init__(self, proc: subprocess.Popen[str], bootstrap: str) -> None:
        self.proc, self.bootstrap = proc, bootstrap

    def _ask(self, cmd: str) -> dict[str, int]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(cmd + "\n")
        self.proc.stdin.flush()
        answer: dict[str, int] = json.loads(self.proc.stdout.readline())
        return answer

    def counts(self) -> dict[str, int]:
        return self._ask("counts")

    def clear(self) -> None:
        self._ask("clear")


@contextlib.contextmanager
def fake_process() -> Iterator[FakeProcess]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    proc = subprocess.Popen([sys.executable, "-m", "bench.spark_tenants", "--fake-child"], cwd=ROOT, env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        bootstrap = proc.stdout.readline().strip()
        if not bootstrap:
            raise RuntimeError("the fake cluster's child process printed no bootstrap address")
        yield FakeProcess(proc, bootstrap)
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


# --- memory -----------------------------------------------------------------------------------------------


def _rss_mb(pid: int | None, field: str = "VmHWM") -> float | None:
    """A process's resident set from /proc (``VmHWM``: its peak, ``VmRSS``: now); None without /proc."""
    if pid is None:
        return None
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return round(int(line.split()[1]) / 1024, 1)
    except (OSError, ValueError):
        return None
    return None


def _reset_peak(pid: int | None) -> bool:
    """Linux: writing 5 to clear_refs resets the process's peak RSS to its current RSS."""
    if pid is None:
        return False
    try:
        with open(f"/proc/{pid}/clear_refs", "w", encoding="ascii") as f:
            f.write("5")
        return True
    except OSError:
        return False


def _jvm_pid(spark: Any) -> int | None:
    try:
        return int(spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid())
    except (AttributeError, ValueError):
        return None


class Peaks:
    """Peak RSS of named processes over a section: each reset at the start, read at the end."""

    def __init__(self, **pids: int | None) -> None:
        self.pids = pids
        self.before = {k: _rss_mb(p, "VmRSS") for k, p in pids.items()}
        self.reset = all(_reset_peak(p) for p in pids.values() if p is not None)

    def read(self) -> dict[str, dict[str, float | None]]:
        return {k: {"before_mb": self.before[k], "peak_mb": _rss_mb(p) if self.reset else None,
                    "growth_mb": _growth(self.before[k], _rss_mb(p) if self.reset else None)}
                for k, p in self.pids.items()}


def _growth(before: float | None, peak: float | None) -> float | None:
    return None if before is None or peak is None else round(peak - before, 1)


class HeapTrace:
    """tracemalloc over a section: the peak, and at the largest sample (every 2 s) the lines holding most."""

    def __init__(self) -> None:
        self._stop = threading.Event()
        self._best: tuple[int, Any] = (0, None)
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def __enter__(self) -> HeapTrace:
        gc.collect()
        tracemalloc.start()
        self._start = tracemalloc.take_snapshot()
        self._thread.start()
        return self

    def _sample(self) -> None:
        while not self._stop.wait(2.0):
            current = tracemalloc.get_traced_memory()[0]
            if current > self._best[0] * 1.05:
                self._best = (current, tracemalloc.take_snapshot())

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak_mb = round(tracemalloc.get_traced_memory()[1] / 2**20, 1)
        tracemalloc.stop()

    def top(self, n: int = 10) -> list[str]:
        if self._best[1] is None:
            return []
        own = tracemalloc.Filter(False, tracemalloc.__file__)
        stats = self._best[1].filter_traces([own]).compare_to(self._start.filter_traces([own]), "lineno")
        return [f"{s.traceback[0].filename.replace(str(ROOT) + '/', '')}:{s.traceback[0].lineno} "
                f"{s.size_diff / 2**20:+.1f} MB ({s.count_diff:+d} blocks)" for s in stats[:n]]


# --- the three paths --------------------------------------------------------------------------------------


def run_spark(spark: Any, n: int) -> dict[str, Any]:
    from kadmin import AdminClient
    from kadmin.spark import provision
    from kadmin.spark.apply import ApplyReport

    spec = spec_frames(spark, n)
    with fake_process() as fake, AdminClient(fake.bootstrap) as admin:
        admin.describe_cluster()
        report: list[ApplyReport] = []
        tracker = spark.sparkContext.statusTracker()
        jobs_before = set(tracker.getJobIdsForGroup(None))
        gc.collect()
        peaks = Peaks(driver=os.getpid(), jvm=_jvm_pid(spark), fake=fake.proc.pid)
        t0 = time.perf_counter()
        results = provision(spec, admin, "apply", batch_size=BATCH, report=report)
        apply_s = time.perf_counter() - t0
        memory = peaks.read()
        # Spark jobs the plan+apply ran (each costs scheduling and, under AQE, one per shuffle stage).
        spark_jobs = len(set(tracker.getJobIdsForGroup(None)) - jobs_before)
        statuses = {r["status"]: r["count"] for r in results.groupBy("status").count().collect()}
        results.unpersist()
        counts = fake.counts()
        log.info("spark apply of %d tenants: %.1f s, %s, requests %s, memory %s", n, apply_s, statuses, counts,
                 json.dumps(memory))
        fake.clear()
        gc.collect()
        peaks = Peaks(driver=os.getpid(), jvm=_jvm_pid(spark))
        t1 = time.perf_counter()
        again = provision(spec, admin, "apply", batch_size=BATCH)
        rerun_s = time.perf_counter() - t1
        rerun_memory = peaks.read()
        rerun_statuses = {r["status"]: r["count"] for r in again.groupBy("status").count().collect()}
        again.unpersist()
        return {"apply_s": round(apply_s, 2), "rerun_s": round(rerun_s, 2), "spark_jobs": spark_jobs,
                "requests": counts, "memory": memory, "rerun_memory": rerun_memory, "statuses": statuses,
                "rerun_statuses": rerun_statuses, "rerun_writes": sum(fake.counts().values()),
                "phase_requests": report[0].requests if report else {}}


def trace_spark(spark: Any, n: int) -> dict[str, Any]:
    """A traced copy of the Spark run (not timed: tracemalloc slows allocation several-fold)."""
    from kadmin import AdminClient
    from kadmin.spark import provision

    spec = spec_frames(spark, n)
    with fake_process() as fake, AdminClient(fake.bootstrap) as admin:
        admin.describe_cluster()
        with HeapTrace() as trace:
            provision(spec, admin, "apply", batch_size=BATCH).unpersist()
        return {"tenants": n, "peak_python_heap_mb": trace.peak_mb, "top_lines_at_peak": trace.top()}


def _objects(rows: dict[str, list[tuple[Any, ...]]]) -> dict[str, list[Any]]:
    from kadmin.acls import AclBinding
    from kadmin.quotas import ClientQuotaAlteration, ClientQuotaEntity, Set
    from kadmin.topics import NewTopic

    return {
        "topics": [NewTopic(n, p, r) for n, p, r in rows["topics"]],
        "acls": [AclBinding.of(rt, name, pr, op, perm, pattern_type=pt, host=h)
                 for pr, h, op, perm, rt, name, pt in rows["acls"]],
        "users": [(u, m, it) for u, m, it, _ in rows["users"]],
        "quotas": [ClientQuotaAlteration(ClientQuotaEntity({"user": u}), [Set("producer_byte_rate", p),
                                                                          Set("consumer_byte_rate", c)])
                   for u, p, c in rows["quotas"]],
    }


def run_direct(n: int) -> dict[str, Any]:
    from kadmin import AdminClient
    from kadmin.scram import ScramUpsertion

    password = os.environ[PASSWORD_ENV]
    with fake_process() as fake, AdminClient(fake.bootstrap) as admin:
        admin.describe_cluster()
        gc.collect()
        before = _rss_mb(os.getpid(), "VmRSS")
        objs = _objects(tenant_rows(n))  # a script's input: outside the timer, its size reported apart
        input_mb = _growth(before, _rss_mb(os.getpid(), "VmRSS"))
        peaks = Peaks(driver=os.getpid(), fake=fake.proc.pid)
        t0 = time.perf_counter()
        for i in range(0, len(objs["users"]), BATCH):
            admin.alter_user_scram_credentials([ScramUpsertion(u, m, password, it)
                                                for u, m, it in objs["users"][i:i + BATCH]], batch_size=BATCH)
        for i in range(0, len(objs["topics"]), BATCH):
            admin.create_topics(objs["topics"][i:i + BATCH])
        admin.create_acls(objs["acls"], batch_size=BATCH)
        admin.alter_client_quotas(objs["quotas"], batch_size=BATCH)
        apply_s = time.perf_counter() - t0
        memory = peaks.read()
        del objs
        return {"apply_s": round(apply_s, 2), "requests": fake.counts(), "memory": memory, "input_mb": input_mb}


def run_loop(n: int) -> dict[str, Any]:
    from kadmin import AdminClient
    from kadmin.scram import ScramUpsertion

    objs = _objects(tenant_rows(n))
    password = os.environ[PASSWORD_ENV]
    with fake_process() as fake, AdminClient(fake.bootstrap) as admin:
        admin.describe_cluster()
        t0 = time.perf_counter()
        for u, m, it in objs["users"]:
            admin.alter_user_scram_credentials([ScramUpsertion(u, m, password, it)])
        for t in objs["topics"]:
            admin.create_topics([t])
        for b in objs["acls"]:
            admin.create_acls([b])
        for q in objs["quotas"]:
            admin.alter_client_quotas([q])
        return {"apply_s": round(time.perf_counter() - t0, 2), "requests": fake.counts()}


# --- the run ----------------------------------------------------------------------------------------------


def _mem_text(m: dict[str, dict[str, float | None]]) -> str:
    parts = [f"{k} {v['before_mb']:.0f} -> {v['peak_mb']:.0f} MB ({v['growth_mb']:+.0f})" for k, v in m.items()
             if v.get("before_mb") is not None and v.get("peak_mb") is not None and v.get("growth_mb") is not None]
    return ", ".join(parts) or "n/a (needs Linux /proc)"


def size_from_env(quick: bool) -> int:
    """Tenants: ``KADMIN_BENCH_TENANTS``, else ``KADMIN_BENCH_ENTITIES`` / 5.2, else 300 (quick) or 10,000."""
    if os.environ.get("KADMIN_BENCH_TENANTS"):
        return int(os.environ["KADMIN_BENCH_TENANTS"])
    if os.environ.get("KADMIN_BENCH_ENTITIES"):
        return tenants_for(int(os.environ["KADMIN_BENCH_ENTITIES"]))
    return 300 if quick else 10_000


def run(quick: bool = False, tenants: int | None = None, loop_tenants: int | None = None,
        trace: bool | None = None) -> dict[str, Any]:
    n = tenants or size_from_env(quick)
    m = loop_tenants or max(1, min(n // 10, 2000))
    trace = bool(os.environ.get("KADMIN_BENCH_TRACE")) if trace is None else trace
    os.environ.setdefault(PASSWORD_ENV, "bench-password")
    # The direct path before and after the Spark path: the machine's load changes over a long run, and the
    # two directs bracket it (their mean is the peer's time).
    direct_before = run_direct(n)
    log.info("direct (before): %s", json.dumps(direct_before))
    spark = _spark()
    try:
        run_spark(spark, max(20, min(n // 50, 2000)))  # warm-up: JVM, codegen
        spark_res = run_spark(spark, n)
        log.info("spark: %s", json.dumps(spark_res))  # each stage as it ends: a long run stopped early keeps them
        traced = trace_spark(spark, n) if trace else None
        log.info("traced: %s", json.dumps(traced))
        jvm_peak_mb = _rss_mb(_jvm_pid(spark))
    finally:
        spark.stop()
    direct = run_direct(n)
    direct["runs_s"] = [direct_before["apply_s"], direct["apply_s"]]
    direct["apply_s"] = round(sum(direct["runs_s"]) / 2, 2)
    log.info("direct: %s", json.dumps(direct))
    loop = run_loop(m)
    return _summary(n, m, spark_res, direct, loop, traced, jvm_peak_mb)


def _summary(n: int, m: int, spark_res: dict[str, Any], direct: dict[str, Any], loop: dict[str, Any],
             traced: dict[str, Any] | None, jvm_peak_mb: float | None) -> dict[str, Any]:
    total = entities(n)
    loop_scaled = loop["apply_s"] * total / entities(m)
    bound = {api: math.ceil(k / BATCH) for api, k in sizes(n).items()}
    ratio = spark_res["apply_s"] / direct["apply_s"]
    s = sizes(n)
    notes = [
        f"{n} tenants = {total} entities ({s['CreateTopics']} topics, {s['CreateAcls']} ACL bindings, "
        f"{n} SCRAM users, {2 * n} quota keys of {n} quota entities), batch {BATCH}, fake cluster (3 brokers) "
        "in a child process; a shared 2-core machine, loaded by other work: times are noisy, the ratio is the "
        "figure.",
        f"Spark plan+apply {spark_res['apply_s']:.1f}s vs direct batched calls {direct['apply_s']:.1f}s "
        f"(mean of {direct.get('runs_s', [direct['apply_s']])}, one before and one after the Spark path) "
        f"({ratio:.2f}x, {spark_res['spark_jobs']} Spark jobs); re-run (plan, nothing to send) "
        f"{spark_res['rerun_s']:.1f}s, statuses {spark_res['rerun_statuses']}, "
        f"{spark_res['rerun_writes']} write requests.",
        f"Requests per API (Spark path) {spark_res['requests']}; ceil(n/{BATCH}) per API {bound}; direct path "
        f"{direct['requests']}.",
        f"One call per resource: {loop['apply_s']:.1f}s for {m} tenants, {loop_scaled:.0f}s scaled to {n}. The "
        "fake answers locally (well under 1 ms a call), so this understates the loop on a real cluster: the "
        f"request counts ({sum(loop['requests'].values())} for {m} tenants vs {sum(direct['requests'].values())} "
        f"for {n}) are the comparable figure.",
        f"Peak RSS during plan+apply: {_mem_text(spark_res['memory'])}; during the re-run (reads the whole "
        f"state back into the plan): {_mem_text(spark_res['rerun_memory'])}; direct calls: "
        f"{_mem_text(direct['memory'])} (plus {direct['input_mb']} MB of input objects built before).  "
        f"Spark JVM peak over the run {jvm_peak_mb} MB (local mode: driver and executors, 2g heap).",
    ]
    if traced is not None:
        notes.append(f"Driver peak Python heap (tracemalloc, separate run) {traced['peak_python_heap_mb']} MB; "
                     f"at the peak: {'; '.join(traced['top_lines_at_peak'][:5])}.")
    targets = [
        {"what": "Spark plan+apply / direct batched calls", "target": "<= 1.5x", "measured": round(ratio, 2),
         "met": ratio <= 1.5},
        {"what": "re-run: planned changes and write requests", "target": "0 and 0",
         "measured": f"{total - spark_res['rerun_statuses'].get('unchanged', 0)} and {spark_res['rerun_writes']}",
         "met": spark_res["rerun_writes"] == 0 and spark_res["rerun_statuses"] == {"unchanged": total}},
        {"what": "every entity applied", "target": f"{total} ok", "measured": spark_res["statuses"].get("ok", 0),
         "met": spark_res["statuses"] == {"ok": total}},
        *({"what": f"{api} requests", "target": f"{b} (ceil({sizes(n)[api]}/{BATCH}))",
           "measured": spark_res["requests"].get(api, 0), "met": spark_res["requests"].get(api, 0) == b}
          for api, b in bound.items()),
    ]
    rows_out = [
        {"case": f"provision {n} tenants ({total} entities): Spark vs direct", "kadmin_s": spark_res["apply_s"],
         "peer": "kadmin batched calls, no Spark", "peer_s": direct["apply_s"],
         "ratio": round(direct["apply_s"] / spark_res["apply_s"], 3)},
        {"case": f"provision {n} tenants: Spark vs one call per resource (scaled from {m})",
         "kadmin_s": spark_res["apply_s"], "peer": "kadmin one call per resource", "peer_s": round(loop_scaled, 1),
         "ratio": round(loop_scaled / spark_res["apply_s"], 3)},
    ]
    return {"name": "spark_tenants", "rows": rows_out, "notes": notes, "targets": targets, "spark": spark_res,
            "direct": direct, "loop": loop, "traced": traced, "peak_jvm_rss_mb": jvm_peak_mb, "tenants": n,
            "entities": total, "loop_tenants": m}


def rebuild(saved: dict[str, Any]) -> dict[str, Any]:
    """The full result (rows included) from what :func:`main` printed."""
    return _summary(saved["tenants"], saved["loop_tenants"], saved["spark"], saved["direct"], saved["loop"],
                    saved.get("traced"), saved.get("peak_jvm_rss_mb"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    size = ap.add_mutually_exclusive_group()
    size.add_argument("--tenants", type=int)
    size.add_argument("--entities", type=int, help="tenants = ceil(entities / 5.2)")
    ap.add_argument("--loop-tenants", type=int)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--trace", action="store_true", help="a traced run more: the driver's peak Python heap")
    ap.add_argument("--fake-child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.fake_child:
        return fake_child()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    tenants = args.tenants or (tenants_for(args.entities) if args.entities else None)
    res = run(args.quick, tenants, args.loop_tenants, args.trace)
    print(json.dumps({k: v for k, v in res.items() if k != "rows"}, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
