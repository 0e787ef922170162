"""Benchmark: describe many consumer groups on a 3-broker FakeCluster, kadmin against kafka-python.

Two clusters, 1 ms of broker latency per request (``latency_s=0.001``):

(a) brokers with FindCoordinator v4+ (preset "3.9"): one batched lookup is possible.  Target for kadmin: at
    most 1 lookup request and 1 DescribeGroups per coordinator.
(b) brokers with FindCoordinator at most v3 (preset "2.8"): one lookup request per group.  Target: kadmin's
    wall time at least 20x below kafka-python's.

The cluster runs in a child process of its own (its 3 brokers share that process's asyncio loop), as real
brokers are other processes: an in-process FakeCluster would run its broker code on the client's interpreter
and GIL, charging every request's broker-side CPU to the client under test.  Both clients talk to the same
child-process cluster over 127.0.0.1; on a 2-core machine they still share the cores with it.

Request counts come from the cluster's request log (what the brokers received), wall time covers the describe
call only (each client is created and bootstrapped first).  kafka-python looks keys up one after another on
brokers without batched FindCoordinator; where that would take too long it is measured on a sample of the
groups and extrapolated linearly, and the output says so.

``python -m bench.groups`` prints a markdown table (``--quick``: 1,000 groups instead of 10,000).
"""

from __future__ import annotations

import logging
import multiprocessing
import sys
import time
import warnings
from collections.abc import Sequence
from multiprocessing.connection import Connection
from types import TracebackType
from typing import Any

from kadmin.client import AdminClient
from kadmin.testing import FakeCluster
from kadmin.types import GroupDescription

log = logging.getLogger("bench.groups")

FIND, DESCRIBE = 10, 15
BROKERS = 3
LATENCY_S = 0.001
#: kafka-python's per-key sequential lookups cost several ms each; past this many keys it is sampled.
KAFKA_PYTHON_SAMPLE = 1000
CASES = (("a", "3.9", "FindCoordinator v4+ (batched)"), ("b", "2.8", "FindCoordinator <= v3 (one key each)"))


def _traffic(cluster: FakeCluster) -> dict[str, Any]:
    entries = cluster.request_log
    finds = [e for e in entries if e.api_key == FIND]
    busy = 0.0
    for node in cluster.node_ids:
        stamps = [e.timestamp for e in finds if e.node_id == node]
        if len(stamps) > 1:
            busy = max(busy, stamps[-1] - stamps[0])
    return {
        "find_coordinator": len(finds),
        "find_coordinator_versions": sorted({e.version for e in finds}),
        "describe_groups": sum(1 for e in entries if e.api_key == DESCRIBE),
        "requests": len(entries),
        # How long the busiest broker spent answering lookups, first to last: brokers serve one request per
        # connection at a time, so this is the floor for any client that uses one connection per broker.
        "lookup_span_s": round(busy, 3),
    }


# --- the cluster in a child process ---------------------------------------------------------------------------
#
# Real brokers are other processes (on other machines); an in-process FakeCluster would share the client's
# interpreter, GIL and core, so every request's broker-side CPU would be charged to the client under test.  The
# cluster therefore runs in a child process of its own, and both clients talk to it over 127.0.0.1 exactly as
# before.  The parent drives it through a pipe with a handful of commands; figures that come from the request
# log are computed there, from what the brokers received.


def _serve_cluster(conn: Connection, brokers: int, versions: str, latency_s: float) -> None:
    """The child: run a FakeCluster and answer commands until "close" (or until the parent goes away)."""
    try:
        cluster = FakeCluster(brokers=brokers, versions=versions, latency_s=latency_s)
    except BaseException as exc:  # noqa: BLE001 - reported to the parent, which raises it
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
        return
    try:
        conn.send(("ok", cluster.bootstrap))
        while True:
            try:
                command, arg = conn.recv()
            except (EOFError, OSError):
                return  # the parent is gone
            if command == "close":
                conn.send(("ok", None))
                return
            try:
                if command == "add_groups":
                    for g in arg:
                        cluster.add_group(g)
                    value: Any = None
                elif command == "clear_log":
                    cluster.clear_log()
                    value = None
                elif command == "traffic":
                    value = _traffic(cluster)
                elif command == "coordinators":
                    value = sorted({cluster.coordinator_of(g) for g in arg}, key=str)
                else:
                    raise ValueError(f"unknown command {command!r}")
            except Exception as exc:  # noqa: BLE001 - reported to the parent, which raises it
                conn.send(("error", f"{type(exc).__name__}: {exc}"))
            else:
                conn.send(("ok", value))
    finally:
        cluster.close()
        conn.close()


class ClusterProcess:
    """A FakeCluster in a child process; a context manager that always stops the child."""

    def __init__(self, brokers: int, versions: str, latency_s: float) -> None:
        ctx = multiprocessing.get_context("spawn")  # no fork of a process that may hold threads and locks
        self._conn, child_end = ctx.Pipe()
        self._proc = ctx.Process(target=_serve_cluster, args=(child_end, brokers, versions, latency_s),
                                 name="bench-groups-cluster", daemon=True)
        self._proc.start()
        child_end.close()
        try:
            self.bootstrap: str = self._reply(timeout_s=60.0)
        except BaseException:
            self._stop()
            raise

    def _reply(self, timeout_s: float = 600.0) -> Any:
        if not self._conn.poll(timeout_s):
            raise RuntimeError(f"the cluster process did not answer within {timeout_s:g} s")
        try:
            status, value = self._conn.recv()
        except EOFError:
            raise RuntimeError(f"the cluster process exited (status {self._proc.exitcode})") from None
        if status != "ok":
            raise RuntimeError(f"the cluster process failed: {value}")
        return value

    def _call(self, command: str, arg: Any = None) -> Any:
        self._conn.send((command, arg))
        return self._reply()

    def add_groups(self, ids: Sequence[str]) -> None:
        self._call("add_groups", list(ids))

    def clear_log(self) -> None:
        self._call("clear_log")

    def traffic(self) -> dict[str, Any]:
        """Request counts and the lookup span, from the brokers' request log."""
        result: dict[str, Any] = self._call("traffic")
        return result

    def coordinators(self, ids: Sequence[str]) -> int:
        """How many distinct coordinators the groups have."""
        return len(self._call("coordinators", list(ids)))

    def _stop(self) -> None:
        try:
            if self._proc.is_alive():
                try:
                    self._conn.send(("close", None))
                    self._conn.poll(10.0)
                except (OSError, ValueError):
                    pass
                self._proc.join(10.0)
        finally:
            if self._proc.is_alive():
                self._proc.terminate()
                self._proc.join(5.0)
            if self._proc.is_alive():
                self._proc.kill()
                self._proc.join()
            self._conn.close()

    def __enter__(self) -> ClusterProcess:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._stop()


def _kadmin(cluster: ClusterProcess, ids: Sequence[str]) -> dict[str, Any]:
    with AdminClient(cluster.bootstrap, default_timeout_s=600.0) as admin:
        admin.describe_cluster()
        cluster.clear_log()
        t0 = time.perf_counter()
        res = admin.describe_consumer_groups(ids, timeout=600.0)
        wall = time.perf_counter() - t0
        traffic = cluster.traffic()
    ok = sum(1 for v in res.values() if isinstance(v, GroupDescription))
    if ok != len(ids):
        raise RuntimeError(f"kadmin described {ok} of {len(ids)} groups")
    return {"client": "kadmin", "groups": len(ids), "measured_groups": len(ids), "extrapolated": False,
            "wall_s": round(wall, 3), "coordinators": cluster.coordinators(ids), **traffic}


def _kafka_python(cluster: ClusterProcess, ids: Sequence[str], sample: int) -> dict[str, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from kafka.admin import KafkaAdminClient
    logging.getLogger("kafka").setLevel(logging.ERROR)
    measured = list(ids[:sample])
    admin = KafkaAdminClient(bootstrap_servers=cluster.bootstrap, request_timeout_ms=600_000)
    try:
        # kafka-python 3.0 renamed describe_consumer_groups to describe_groups; use whichever exists.
        method_name = "describe_consumer_groups" if hasattr(admin, "describe_consumer_groups") else "describe_groups"
        describe = getattr(admin, method_name)
        cluster.clear_log()
        t0 = time.perf_counter()
        res = describe(measured)
        wall = time.perf_counter() - t0
        traffic = cluster.traffic()
    finally:
        admin.close()
    ok = sum(1 for v in res.values() if isinstance(v, dict) and v.get("error") is None)
    if ok != len(measured):
        raise RuntimeError(f"kafka-python described {ok} of {len(measured)} groups")
    scale = len(ids) / len(measured)
    out: dict[str, Any] = {"client": f"kafka-python {_kafka_python_version()} ({method_name})",
                           "groups": len(ids), "measured_groups": len(measured), "extrapolated": scale != 1.0,
                           "wall_s": round(wall * scale, 3), "measured_wall_s": round(wall, 3), **traffic}
    if scale != 1.0:
        # Lookups are one request per key here, so they scale with the keys; DescribeGroups is one per
        # coordinator either way.
        out["find_coordinator"] = round(traffic["find_coordinator"] * scale)
        out["requests"] = traffic["requests"] - traffic["find_coordinator"] + out["find_coordinator"]
        out["lookup_span_s"] = round(traffic["lookup_span_s"] * scale, 3)
    return out


def _kafka_python_version() -> str:
    from importlib.metadata import version

    return version("kafka-python")


def run(quick: bool = False, *, groups: int | None = None) -> dict[str, Any]:
    """Run both cases; returns every figure plus whether the targets were met (see the module docstring).

    ``groups`` overrides the size (for a smoke test that must stay cheap on a shared machine).
    """
    n = groups if groups is not None else (1000 if quick else 10_000)
    ids = [f"bench-group-{i}" for i in range(n)]
    cases: dict[str, Any] = {}
    for label, preset, what in CASES:
        with ClusterProcess(BROKERS, preset, LATENCY_S) as cluster:
            cluster.add_groups(ids)
            kadmin = _kadmin(cluster, ids)
            batched = preset != "2.8"
            sample = n if batched or n <= KAFKA_PYTHON_SAMPLE else KAFKA_PYTHON_SAMPLE
            kp = _kafka_python(cluster, ids, sample)
        cases[label] = {"preset": preset, "what": what, "kadmin": kadmin, "kafka_python": kp,
                        "speedup": round(kp["wall_s"] / kadmin["wall_s"], 1) if kadmin["wall_s"] else None}
    a, b = cases["a"]["kadmin"], cases["b"]
    targets = {
        "a_at_most_1_lookup_and_1_describe_per_coordinator":
            a["find_coordinator"] <= 1 and a["describe_groups"] <= a["coordinators"],
        "b_wall_time_20x_below_kafka_python": b["speedup"] is not None and b["speedup"] >= 20,
    }
    return {"groups": n, "brokers": BROKERS, "latency_s": LATENCY_S, "quick": quick, "cases": cases,
            "targets": targets}


def format_table(result: dict[str, Any]) -> str:
    lines = [
        f"Describe {result['groups']:,} consumer groups, {result['brokers']} FakeCluster brokers, "
        f"{result['latency_s'] * 1000:g} ms latency per request.",
        "",
        "| case | client | FindCoordinator | DescribeGroups | requests | lookup span s | wall s | speedup |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    notes = []
    for label, case in result["cases"].items():
        for key in ("kadmin", "kafka_python"):
            r = case[key]
            wall = f"{r['wall_s']:.3f}"
            if r["extrapolated"]:
                wall += " *"
                notes.append(f"\\* {case['preset']}: kafka-python measured on {r['measured_groups']:,} groups "
                             f"({r['measured_wall_s']:.3f} s) and extrapolated linearly to {r['groups']:,}; "
                             "its FindCoordinator count and lookup span are scaled the same way.")
            versions = ",".join(f"v{v}" for v in r["find_coordinator_versions"])
            speed = f"{case['speedup']}x" if key == "kadmin" and case["speedup"] is not None else ""
            lines.append(f"| ({label}) {case['preset']}: {case['what']} | {r['client']} | "
                         f"{r['find_coordinator']:,} ({versions}) | {r['describe_groups']} | {r['requests']:,} | "
                         f"{r['lookup_span_s']:.3f} | {wall} | {speed} |")
    lines.append("")
    lines.extend(notes)
    lines.append("")
    for name, ok in result["targets"].items():
        lines.append(f"- target {name}: {'met' if ok else 'NOT met'}")
    lines.append("- the cluster runs in a child process (3 brokers on one asyncio loop), like real brokers outside the "
                 "client's process; both clients use the same one. The machine's cores are shared by both.")
    lines.append("- lookup span: first to last FindCoordinator on the busiest broker; a broker answers one request "
                 "per connection at a time, so this is the floor for a client with one connection per broker.")
    kb = result["cases"]["b"]["kadmin"]
    if kb["find_coordinator"] > 1 and kb["lookup_span_s"] > 0:
        per = kb["lookup_span_s"] / (kb["find_coordinator"] - 1) * 1000
        lines.append(f"- (b) kadmin: the busiest broker spent {kb['lookup_span_s']:.3f} s answering its "
                     f"{kb['find_coordinator']:,} pipelined lookups back to back ({per:.2f} ms each) of a "
                     f"{kb['wall_s']:.3f} s call; the rest is the DescribeGroups round and the client's own work "
                     "before the first lookup and after the last answer.")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    result = run(quick="--quick" in args)
    sys.stdout.write(format_table(result) + "\n")


if __name__ == "__main__":
    main()
