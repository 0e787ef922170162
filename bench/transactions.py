"""Benchmark: describe_producers over 1,000 partitions and list_transactions over a 3-broker FakeCluster, kadmin
against kafka-python's calls of the same names (KafkaAdminClient.describe_producers / list_transactions), in the
same run, on the same cluster.

Setup: a topic of 1,000 partitions on 3 brokers (preset 3.9, 1 ms of broker latency per request), one
confluent-kafka transactional producer with a transaction open over every partition (one record each, never
committed), and 30 more transactional ids with an open transaction each, so that every partition has an
active producer with a transaction start offset and every broker coordinates some transactions.

The cluster runs in a child process of its own (as real brokers are other processes), so broker-side CPU is not
charged to the client under test.  Each client is created and bootstrapped first; the wall time covers the one
call, best of a few interleaved repetitions.  Request counts come from the brokers' request log.  Targets: kadmin
sends one DescribeProducers per partition leader (3) and one ListTransactions per broker (3), the minimum.

``python -m bench.transactions`` prints a markdown table (``--quick``: 200 partitions).
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import time
import warnings
from multiprocessing.connection import Connection
from typing import Any

from bench.common import markdown_table, print_run
from kadmin.protocol.apis import ApiKey
from kadmin.testing import FakeCluster
from kadmin.types import TopicPartition

log = logging.getLogger("bench.transactions")

BROKERS = 3
LATENCY_S = 0.001
PRESET = "3.9"
TOPIC = "bench-txn"
EXTRA_TRANSACTIONS = 30
REPEAT = 3
COUNTED = {ApiKey.DESCRIBE_PRODUCERS: "describe_producers", ApiKey.LIST_TRANSACTIONS: "list_transactions",
           ApiKey.METADATA: "metadata"}


def _serve(conn: Connection, partitions: int) -> None:
    """The child: a FakeCluster with the topic; answers "counts", "clear_log" and "close"."""
    try:
        cluster = FakeCluster(brokers=BROKERS, versions=PRESET, latency_s=LATENCY_S)
        cluster.add_topic(TOPIC, partitions=partitions)
    except BaseException as exc:  # noqa: BLE001 - reported to the parent, which raises it
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
        return
    try:
        conn.send(("ok", cluster.bootstrap))
        while True:
            try:
                command = conn.recv()
            except (EOFError, OSError):
                return
            if command == "close":
                conn.send(("ok", None))
                return
            if command == "clear_log":
                cluster.clear_log()
                conn.send(("ok", None))
            elif command == "counts":
                counts = {name: sum(1 for e in cluster.request_log if e.api_key == key)
                          for key, name in COUNTED.items()}
                counts["requests"] = len(cluster.request_log)
                conn.send(("ok", counts))
            elif command == "leaders":
                conn.send(("ok", len({cluster.partition(TOPIC, p).leader for p in range(partitions)})))
            else:
                conn.send(("error", f"unknown command {command!r}"))
    finally:
        cluster.close()
        conn.close()


class _Cluster:
    def __init__(self, partitions: int) -> None:
        ctx = multiprocessing.get_context("spawn")
        self._conn, child_end = ctx.Pipe()
        self._proc = ctx.Process(target=_serve, args=(child_end, partitions), daemon=True,
                                 name="bench-txn-cluster")
        self._proc.start()
        child_end.close()
        self.bootstrap: str = self.call(None, timeout_s=120.0)

    def call(self, command: str | None, timeout_s: float = 120.0) -> Any:
        if command is not None:
            self._conn.send(command)
        if not self._conn.poll(timeout_s):
            raise RuntimeError("the cluster process did not answer")
        status, value = self._conn.recv()
        if status != "ok":
            raise RuntimeError(f"the cluster process failed: {value}")
        return value

    def close(self) -> None:
        try:
            if self._proc.is_alive():
                self._conn.send("close")
                self._conn.poll(10.0)
                self._proc.join(10.0)
        finally:
            if self._proc.is_alive():
                self._proc.kill()
                self._proc.join()
            self._conn.close()


def _open_transactions(bootstrap: str, partitions: int) -> list[Any]:
    """Producers left with open transactions (kept alive by the caller until the measurements end)."""
    from confluent_kafka import Producer

    producers = []
    p = Producer({"bootstrap.servers": bootstrap, "transactional.id": "bench-wide", "linger.ms": 5})
    p.init_transactions(60)
    p.begin_transaction()
    for i in range(partitions):
        p.produce(TOPIC, value=b"v", partition=i)
    if p.flush(120) != 0:
        raise RuntimeError("the wide transaction's records were not all written")
    producers.append(p)
    for i in range(EXTRA_TRANSACTIONS):
        q = Producer({"bootstrap.servers": bootstrap, "transactional.id": f"bench-tx-{i}"})
        q.init_transactions(60)
        q.begin_transaction()
        q.produce(TOPIC, value=b"w", partition=i % partitions)
        if q.flush(60) != 0:
            raise RuntimeError("a transaction's record was not written")
        producers.append(q)
    return producers


def _measure(cluster: _Cluster, partitions: int) -> dict[str, Any]:
    from kafka import TopicPartition as KpTP
    from kafka.admin import KafkaAdminClient

    from kadmin.aio import AdminClient

    tps = [TopicPartition(TOPIC, i) for i in range(partitions)]
    kp_tps = [KpTP(TOPIC, i) for i in range(partitions)]
    out: dict[str, Any] = {}
    loop = asyncio.new_event_loop()
    admin = AdminClient(cluster.bootstrap, default_timeout_s=120.0)
    kp = KafkaAdminClient(bootstrap_servers=cluster.bootstrap, request_timeout_ms=120_000)
    try:
        loop.run_until_complete(admin.describe_cluster())

        def kadmin_producers() -> Any:
            return loop.run_until_complete(admin.describe_producers(tps))

        def kadmin_list() -> Any:
            return loop.run_until_complete(admin.list_transactions())

        def kp_producers() -> Any:
            return kp.describe_producers(kp_tps)

        def kp_list() -> Any:
            return kp.list_transactions()

        cases = {"describe_producers": {"kadmin": kadmin_producers, "kafka-python": kp_producers},
                 "list_transactions": {"kadmin": kadmin_list, "kafka-python": kp_list}}
        for case, fns in cases.items():
            best: dict[str, float] = {}
            counts: dict[str, Any] = {}
            sizes: dict[str, int] = {}
            for _ in range(REPEAT):
                for client, fn in fns.items():
                    cluster.call("clear_log")
                    t0 = time.perf_counter()
                    got = fn()
                    wall = time.perf_counter() - t0
                    best[client] = min(best.get(client, float("inf")), wall)
                    counts[client] = cluster.call("counts")
                    sizes[client] = _size(case, client, got)
            out[case] = {"wall_s": best, "counts": counts, "sizes": sizes}
    finally:
        kp.close()
        loop.run_until_complete(admin.close())
        loop.close()
    return out


def _size(case: str, client: str, got: Any) -> int:
    """How many partitions with an open transaction / how many transactions the answer holds."""
    if case == "describe_producers":
        if client == "kadmin":
            return sum(1 for v in got.values() if not isinstance(v, Exception)
                       and any(s.current_transaction_start_offset >= 0 for s in v))
        return sum(1 for v in got.values() if any(s.current_transaction_start_offset >= 0
                                                  for s in v.active_producers))
    if client == "kadmin":
        return len(got.transactions)
    return sum(len(v) for v in got.values())


def run(quick: bool = False, *, partitions: int | None = None) -> dict[str, Any]:
    n = partitions if partitions is not None else (200 if quick else 1000)
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    cluster = _Cluster(n)
    producers: list[Any] = []
    try:
        producers = _open_transactions(cluster.bootstrap, n)
        leaders = cluster.call("leaders")
        measured = _measure(cluster, n)
    finally:
        del producers
        cluster.close()
    rows = []
    targets = []
    for case, m in measured.items():
        k, p = m["wall_s"]["kadmin"], m["wall_s"]["kafka-python"]
        key = case  # the request kind the case counts
        rows.append({"case": f"{case} ({n:,} partitions)" if case == "describe_producers" else
                     f"{case} ({BROKERS} brokers, {EXTRA_TRANSACTIONS + 1} transactions)",
                     "kadmin_s": round(k, 4), "peer": "kafka-python", "peer_s": round(p, 4),
                     "ratio": round(p / k, 2) if k > 0 else None,
                     "kadmin_requests": m["counts"]["kadmin"][key],
                     "peer_requests": m["counts"]["kafka-python"][key],
                     "kadmin_total_requests": m["counts"]["kadmin"]["requests"],
                     "peer_total_requests": m["counts"]["kafka-python"]["requests"],
                     "answer_size": m["sizes"]})
        minimum = leaders if case == "describe_producers" else BROKERS
        targets.append({"what": f"{case}: kadmin's {key} requests", "target": f"<= {minimum} (one per "
                        f"{'leader' if case == 'describe_producers' else 'broker'})",
                        "measured": m["counts"]["kadmin"][key], "met": m["counts"]["kadmin"][key] <= minimum})
        if m["sizes"]["kadmin"] != m["sizes"]["kafka-python"]:
            targets.append({"what": f"{case}: both clients see the same answer", "target": "equal",
                            "measured": str(m["sizes"]), "met": False})
    return {"name": "transactions", "partitions": n, "brokers": BROKERS, "latency_s": LATENCY_S, "rows": rows,
            "notes": [f"preset {PRESET}, {LATENCY_S * 1000:g} ms latency per request, cluster in a child process; "
                      f"wall time of the call, best of {REPEAT} interleaved runs",
                      "kafka-python's admin has describe_producers and list_transactions (KIP-664), "
                      "measured as they are"],
            "targets": targets}


def format_table(result: dict[str, Any]) -> str:
    rows = [[r["case"], f"{r['kadmin_s']:.4f}", f"{r['peer_s']:.4f}", f"{r['ratio']}x",
             f"{r['kadmin_requests']} ({r['kadmin_total_requests']})",
             f"{r['peer_requests']} ({r['peer_total_requests']})"] for r in result["rows"]]
    return markdown_table(["case", "kadmin s", "kafka-python s", "ratio", "kadmin requests (all)",
                           "kafka-python requests (all)"], rows)


def main() -> None:
    print_run(run, format_table)


if __name__ == "__main__":
    main()
