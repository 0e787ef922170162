"""Benchmark against a cluster of the user's: ``python -m bench --bootstrap-server HOST:PORT [--quick]``.

The other modules measure on the in-process fake or on Tansu; a real broker pays per request and per field
what they do not (issue #28: the controller applies quota requests one after another, CreateTopics v5+ makes it
describe every config of every created topic).  This module runs the same kinds of cases on the cluster given
by ``--bootstrap-server`` (the environment variable ``KADMIN_BENCH_BOOTSTRAP`` in the child process), for
kadmin, confluent-kafka and kafka-python, in the same run, one client at a time, taking turns:

* create N topics, then delete them (1 partition, replication factor 1; names under a fresh prefix);
* describe_cluster and list_topics, per call (the mean of M calls);
* alter N client quotas (client-id entities under the prefix), describe them, remove them (kadmin and
  kafka-python; confluent-kafka has no client quota API).

Nothing outside the prefix ``kadmin-bench-<8 hex>-`` is created, changed or deleted: every topic and quota
entity the run makes is named with it, and a ``finally`` removes them all (with kadmin) even when a case
fails.  Each case records wall time, the CPU time of this process (confluent-kafka's includes librdkafka's
threads) and the requests the client put on the wire: counted inside the client for kadmin (each request its
connections submit) and kafka-python (each request its connections send), from librdkafka's statistics
(``req`` per broker) for confluent-kafka.  Best of ``REPEAT`` runs.
"""

from __future__ import annotations

import gc
import json
import os
import threading
import time
import uuid
import warnings
from collections.abc import Callable
from typing import Any

from bench.common import markdown_table

ENV = "KADMIN_BENCH_BOOTSTRAP"
REPEAT = 3
CLIENTS = ("kadmin", "confluent-kafka", "kafka-python")


def _sizes(quick: bool) -> dict[str, int]:
    return {"topics": 100, "quotas": 1000, "calls": 50} if quick else {"topics": 1000, "quotas": 5000, "calls": 200}


# --- counting requests on the wire ------------------------------------------------------------------------------


class _Counter:
    """Requests put on the wire by kadmin and kafka-python, counted where each client writes them."""

    def __init__(self) -> None:
        self.kadmin = 0
        self.kafka_python = 0
        self._lock = threading.Lock()
        self._undo: list[Callable[[], None]] = []
        from kadmin.network import connection

        original = connection._Submission.__init__

        def counted(sub: Any, conn: Any, api_key: int, version: int, requests: Any, *a: Any, **kw: Any) -> None:
            with self._lock:
                self.kadmin += len(requests)
            original(sub, conn, api_key, version, requests, *a, **kw)

        connection._Submission.__init__ = counted  # type: ignore[method-assign,assignment]
        self._undo.append(lambda: setattr(connection._Submission, "__init__", original))
        try:
            from kafka.net.connection import KafkaConnection  # type: ignore[import-untyped]
        except ImportError:
            return
        send = KafkaConnection._send_request

        def kp_counted(conn: Any, request: Any, *a: Any, **kw: Any) -> Any:
            with self._lock:
                self.kafka_python += 1
            return send(conn, request, *a, **kw)

        KafkaConnection._send_request = kp_counted
        self._undo.append(lambda: setattr(KafkaConnection, "_send_request", send))

    def close(self) -> None:
        """Put the clients' methods back (the counting is this run's only)."""
        for undo in reversed(self._undo):
            undo()


class _CkStats:
    """confluent-kafka's requests, from librdkafka's statistics: the sum of every broker's ``req`` counts."""

    def __init__(self) -> None:
        self.latest: int | None = None
        self.seen = threading.Event()

    def callback(self, text: str) -> None:
        stats = json.loads(text)
        self.latest = sum(sum(b.get("req", {}).values()) for b in stats.get("brokers", {}).values())
        self.seen.set()

    def fresh(self, client: Any) -> int | None:
        self.seen.clear()
        deadline = time.monotonic() + 3.0
        while not self.seen.is_set() and time.monotonic() < deadline:
            client.poll(0.05)
        return self.latest


# --- the clients ------------------------------------------------------------------------------------------------


class _Kadmin:
    name = "kadmin"

    def __init__(self, bootstrap: str) -> None:
        from kadmin import AdminClient

        self.admin = AdminClient(bootstrap)
        self.admin.describe_cluster()

    def create(self, names: list[str]) -> None:
        from kadmin import NewTopic

        failed = {n: r for n, r in self.admin.create_topics([NewTopic(n, 1, 1) for n in names]).items() if r is not None
                  and not hasattr(r, "name")}
        if failed:
            raise RuntimeError(f"kadmin create: {len(failed)} failed, e.g. {next(iter(failed.values()))!r}")

    def delete(self, names: list[str]) -> None:
        failed = {n: r for n, r in self.admin.delete_topics(names).items() if r is not None}
        if failed:
            raise RuntimeError(f"kadmin delete: {len(failed)} failed, e.g. {next(iter(failed.values()))!r}")

    def describe_cluster(self) -> None:
        self.admin.describe_cluster()

    def list_topics(self) -> None:
        self.admin.list_topics()

    def alter_quotas(self, ids: list[str], value: float | None) -> None:
        from kadmin import ClientQuotaAlteration, ClientQuotaEntity, Remove, Set

        op = Set("producer_byte_rate", value) if value is not None else Remove("producer_byte_rate")
        res = self.admin.alter_client_quotas(
            [ClientQuotaAlteration(ClientQuotaEntity({"client-id": i}), [op]) for i in ids])
        failed = [r for r in res.values() if r is not None]
        if failed:
            raise RuntimeError(f"kadmin alter quotas: {len(failed)} failed, e.g. {failed[0]!r}")

    def describe_quotas(self, prefix: str) -> int:
        from kadmin import ClientQuotaFilter

        got = self.admin.describe_client_quotas(ClientQuotaFilter.all())
        return sum(1 for e in got if (e.as_dict().get("client-id") or "").startswith(prefix))

    def close(self) -> None:
        self.admin.close()


class _Confluent:
    name = "confluent-kafka"

    def __init__(self, bootstrap: str, stats: _CkStats) -> None:
        from confluent_kafka.admin import AdminClient

        self.stats = stats
        conf: dict[str, Any] = {"bootstrap.servers": bootstrap, "log_level": 0, "statistics.interval.ms": 100,
                                "stats_cb": stats.callback}
        self.admin = AdminClient(conf)
        self.admin.list_topics(timeout=30)

    def create(self, names: list[str]) -> None:
        from confluent_kafka.admin import NewTopic  # type: ignore[attr-defined]

        for f in self.admin.create_topics([NewTopic(n, 1, 1) for n in names], request_timeout=60).values():
            f.result()

    def delete(self, names: list[str]) -> None:
        for f in self.admin.delete_topics(names, request_timeout=60).values():
            f.result()

    def describe_cluster(self) -> None:
        self.admin.describe_cluster(request_timeout=30).result()

    def list_topics(self) -> None:
        self.admin.list_topics(timeout=30)

    def close(self) -> None:
        pass


class _KafkaPython:
    name = "kafka-python"

    def __init__(self, bootstrap: str) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from kafka.admin import KafkaAdminClient  # type: ignore[import-untyped]

        self.admin = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=60000)
        self.admin.describe_cluster()

    def create(self, names: list[str]) -> None:
        from kafka.admin import NewTopic

        self.admin.create_topics([NewTopic(n, 1, 1) for n in names])

    def delete(self, names: list[str]) -> None:
        self.admin.delete_topics(names)

    def describe_cluster(self) -> None:
        self.admin.describe_cluster()

    def list_topics(self) -> None:
        self.admin.list_topics()

    def alter_quotas(self, ids: list[str], value: float | None) -> None:
        """The hand-built request a kafka-python user can send (its admin client has no quota API), to the
        node kadmin would pick (any: brokers forward to the controller)."""
        from kafka.protocol.admin.client_quotas import AlterClientQuotasRequest  # type: ignore[import-untyped]

        req = AlterClientQuotasRequest(entries=[([("client-id", i)], [("producer_byte_rate", value or 0.0,
                                                                        value is None)]) for i in ids],
                                       validate_only=False)
        node = self.admin._client.least_loaded_node()
        resp = self.admin._manager.run(lambda: self.admin._manager.send(req, node_id=node))
        errors = [e for e in resp.entries if e.error_code]
        if errors:
            raise RuntimeError(f"kafka-python alter quotas: {len(errors)} failed, e.g. {errors[0]!r}")

    def describe_quotas(self, prefix: str) -> int:
        from kafka.protocol.admin.client_quotas import DescribeClientQuotasRequest

        req = DescribeClientQuotasRequest(components=[], strict=False)
        node = self.admin._client.least_loaded_node()
        resp = self.admin._manager.run(lambda: self.admin._manager.send(req, node_id=node))
        return sum(1 for e in resp.entries
                   if any(t == "client-id" and (n or "").startswith(prefix) for t, n in e.entity))

    def close(self) -> None:
        self.admin.close()


# --- running --------------------------------------------------------------------------------------------------


def _timed(fn: Callable[[], Any], requests: Callable[[], int | None]) -> dict[str, Any]:
    gc.collect()
    before = requests()
    c0, t0 = time.process_time(), time.perf_counter()
    out = fn()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    after = requests()
    return {"wall_s": wall, "cpu_s": cpu, "requests": None if before is None or after is None else after - before,
            "value": out}


def _requests_of(name: str, client: Any, counter: _Counter, ck_stats: _CkStats) -> Callable[[], int | None]:
    if name == "kadmin":
        return lambda: counter.kadmin
    if name == "kafka-python":
        return lambda: counter.kafka_python
    return lambda: ck_stats.fresh(client.admin)


def _turn(client: Any, names_prefix: str, prefix: str, sizes: dict[str, int], count: Callable[[], int | None],
          mine: dict[str, list[dict[str, Any]]]) -> None:
    """One client's run of every case it can do, each recorded in ``mine`` under the case's name."""
    names = [f"{names_prefix}{i:05d}" for i in range(sizes["topics"])]
    mine.setdefault("create topics", []).append(_timed(lambda: client.create(names), count))
    time.sleep(1.0)  # let every broker learn of the topics before they are deleted
    mine.setdefault("delete topics", []).append(_timed(lambda: client.delete(names), count))
    calls = sizes["calls"]
    for case in ("describe_cluster", "list_topics"):
        fn = getattr(client, case)

        def many(fn: Callable[[], None] = fn) -> None:
            for _ in range(calls):
                fn()

        row = _timed(many, count)
        mine.setdefault(f"{case}, per call", []).append(
            {**row, "wall_s": row["wall_s"] / calls, "cpu_s": row["cpu_s"] / calls,
             "requests": None if row["requests"] is None else row["requests"] / calls})
    if not hasattr(client, "alter_quotas"):
        return
    ids = [f"{names_prefix}{i:05d}" for i in range(sizes["quotas"])]
    mine.setdefault("alter client quotas", []).append(_timed(lambda: client.alter_quotas(ids, 1024.0), count))
    described = _timed(lambda: client.describe_quotas(names_prefix), count)
    if described["value"] != len(ids):
        raise RuntimeError(f"{client.name}: described {described['value']} of the {len(ids)} quotas it set")
    mine.setdefault("describe client quotas", []).append(described)
    client.alter_quotas(ids, None)


def _best(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return min(rows, key=lambda r: r["wall_s"])


def run(quick: bool = False, *, sizes: dict[str, int] | None = None, repeat: int = REPEAT) -> dict[str, Any]:
    bootstrap = os.environ.get(ENV)
    if not bootstrap:
        raise RuntimeError(f"bench.cluster needs a cluster: python -m bench --bootstrap-server HOST:PORT ({ENV})")
    sizes = sizes or _sizes(quick)
    prefix = f"kadmin-bench-{uuid.uuid4().hex[:8]}-"
    counter = _Counter()
    ck_stats = _CkStats()
    cleanup = _Kadmin(bootstrap)
    results: dict[str, dict[str, list[dict[str, Any]]]] = {}
    notes = [f"cluster {bootstrap}; every topic and quota entity under the prefix {prefix!r}, removed at the end",
             f"{sizes['topics']} topics (1 partition, RF 1), {sizes['quotas']} client-id quotas, "
             f"{sizes['calls']} calls per small-call case; best of {repeat} runs by wall time; CPU is this "
             "process's (confluent-kafka's includes librdkafka's threads)"]
    try:
        for rep in range(repeat):
            for name in CLIENTS:
                try:
                    client: Any = (_Kadmin(bootstrap) if name == "kadmin" else _Confluent(bootstrap, ck_stats)
                                   if name == "confluent-kafka" else _KafkaPython(bootstrap))
                except ImportError as exc:
                    if rep == 0:
                        notes.append(f"{name} is not installed: {exc}")
                    continue
                try:
                    _turn(client, f"{prefix}{name[:2]}{rep}-", prefix, sizes,
                          _requests_of(name, client, counter, ck_stats), results.setdefault(name, {}))
                finally:
                    client.close()
    finally:
        try:
            _clean(cleanup, prefix)
            cleanup.close()
        finally:
            counter.close()
    rows = []
    for case in results.get("kadmin", {}):
        k = _best(results["kadmin"][case])
        row: dict[str, Any] = {"case": case, "kadmin_s": k["wall_s"], "kadmin_cpu_s": k["cpu_s"],
                               "kadmin_requests": k["requests"]}
        best_peer: tuple[str, float] | None = None
        for peer in CLIENTS[1:]:
            got = results.get(peer, {}).get(case)
            if not got:
                continue
            p = _best(got)
            row[f"{peer}_s"], row[f"{peer}_cpu_s"], row[f"{peer}_requests"] = p["wall_s"], p["cpu_s"], p["requests"]
            if best_peer is None or p["wall_s"] < best_peer[1]:
                best_peer = (peer, p["wall_s"])
        row["peer"], row["peer_s"] = best_peer if best_peer else (None, None)
        row["ratio"] = best_peer[1] / k["wall_s"] if best_peer and k["wall_s"] else None
        rows.append(row)
    return {"name": "cluster", "rows": rows, "notes": notes, "targets": []}


def _clean(kadmin: _Kadmin, prefix: str) -> None:
    """Remove every topic and client quota under ``prefix`` (and nothing else)."""
    from kadmin import ClientQuotaAlteration, ClientQuotaFilter, Remove

    topics = [t.name for t in kadmin.admin.list_topics() if t.name.startswith(prefix)]
    if topics:
        kadmin.admin.delete_topics(topics)
    quotas = {e: v for e, v in kadmin.admin.describe_client_quotas(ClientQuotaFilter.all()).items()
              if (e.as_dict().get("client-id") or "").startswith(prefix)}
    if quotas:
        kadmin.admin.alter_client_quotas([ClientQuotaAlteration(e, [Remove(k) for k in v]) for e, v in quotas.items()])


def format_table(result: dict[str, Any]) -> str:
    def ms(x: Any) -> str:
        return "-" if x is None else f"{x * 1000:.2f}"

    def n(x: Any) -> str:
        return "-" if x is None else f"{x:g}"

    header = ["case"] + [f"{c} {what}" for c in CLIENTS for what in ("ms", "CPU ms", "requests")] + ["best peer / kadmin"]
    body = []
    for r in result["rows"]:
        line = [r["case"], ms(r["kadmin_s"]), ms(r["kadmin_cpu_s"]), n(r["kadmin_requests"])]
        for peer in CLIENTS[1:]:
            line += [ms(r.get(f"{peer}_s")), ms(r.get(f"{peer}_cpu_s")), n(r.get(f"{peer}_requests"))]
        line.append("-" if r["ratio"] is None else f"{r['ratio']:.2f}x ({r['peer']})")
        body.append(line)
    return markdown_table(header, body) + "\n" + "\n".join(f"- {x}" for x in result["notes"])
