"""Benchmark: tenant onboarding at scale: 10,000 ACL bindings and 1,000 SCRAM users, kadmin against
kafka-python's and confluent-kafka's admin clients, in the same run, on one 3-broker FakeCluster.

Why these two: every provisioning tool's published failures are here (hours for 1,000 ACLs, a user operator
crash-looping past 9,000 users).  Both peers have both APIs (kafka-python 3's ``create_acls`` and
``alter_user_scram_credentials``; confluent-kafka's, run by librdkafka in C), so the comparison is like for
like: every client starts from the same plain data (names, one principal, one password) and its timer covers
building its own binding / credential objects (for SCRAM, the PBKDF2 salting: 4096 rounds of SHA-256 per
user, done by each client on this machine), sending, and every answer.  The fake broker (1 ms of latency per
request, ``latency_s=0.001``, as in bench.quotas) runs in this process and does the same work for all three;
its request log gives each client's request count, checked against ceil(n / batch) for kadmin (batch 1000
for both APIs).  After each run the cluster's state is checked (every binding / user stored) and cleared.

Wall time, best of ``REPEAT`` runs with the clients taking turns, a full ``gc.collect()`` before each run
(outside the timer).  ``python -m bench.security [--quick]`` prints the table (quick: 2,000 bindings, 200
users, one run).
"""

from __future__ import annotations

import gc
import logging
import math
import sys
import time
import warnings
from collections.abc import Callable
from typing import Any

from bench.common import markdown_table
from kadmin.acls import AclBinding
from kadmin.client import AdminClient
from kadmin.scram import ScramUpsertion
from kadmin.testing import FakeCluster

log = logging.getLogger("bench.security")

BROKERS = 3
LATENCY_S = 0.001
BATCH = 1000
PASSWORD = "bench-password"
PRINCIPAL = "User:bench"
CLIENTS = ("kadmin", "kafka-python", "confluent-kafka")


def _kadmin(cluster: FakeCluster) -> tuple[Callable[[int, str], int], Callable[[int, str], int], Callable[[], None]]:
    admin = AdminClient(cluster.bootstrap, client_id="bench-kadmin")
    admin.describe_cluster()

    def acls(n: int, tag: str) -> int:
        res = admin.create_acls([AclBinding.of("topic", f"{tag}-{i}", PRINCIPAL, "read") for i in range(n)],
                                batch_size=BATCH)
        return sum(v is None for v in res.values())

    def users(n: int, tag: str) -> int:
        res = admin.alter_user_scram_credentials(
            [ScramUpsertion(f"{tag}-{i}", "SCRAM-SHA-256", PASSWORD) for i in range(n)], batch_size=BATCH)
        return sum(v is None for v in res.values())

    return acls, users, admin.close


def _kafka_python(cluster: FakeCluster) -> tuple[Callable[[int, str], int], Callable[[int, str], int],
                                                 Callable[[], None]]:
    from kafka.admin import (
        ACL,
        ACLOperation,
        ACLPermissionType,
        ACLResourcePatternType,
        KafkaAdminClient,
        ResourcePattern,
        ResourceType,
        ScramMechanism,
        UserScramCredentialUpsertion,
    )

    kp = KafkaAdminClient(bootstrap_servers=cluster.bootstrap, client_id="bench-kafka-python",
                          request_timeout_ms=120000)

    def acls(n: int, tag: str) -> int:
        res = kp.create_acls([ACL(PRINCIPAL, "*", ACLOperation.READ, ACLPermissionType.ALLOW,
                                  ResourcePattern(ResourceType.TOPIC, f"{tag}-{i}", ACLResourcePatternType.LITERAL))
                              for i in range(n)])
        return len(res["succeeded"])

    def users(n: int, tag: str) -> int:
        res = kp.alter_user_scram_credentials([UserScramCredentialUpsertion(f"{tag}-{i}", ScramMechanism.SCRAM_SHA_256,
                                                                            PASSWORD) for i in range(n)])
        return sum(v is None for v in res.values())

    return acls, users, kp.close


def _confluent(cluster: FakeCluster) -> tuple[Callable[[int, str], int], Callable[[int, str], int],
                                              Callable[[], None]]:
    from confluent_kafka import admin as ck

    client = ck.AdminClient({"bootstrap.servers": cluster.bootstrap, "client.id": "bench-confluent",
                             "log_level": 3})

    def acls(n: int, tag: str) -> int:
        futures = client.create_acls([ck.AclBinding(ck.ResourceType.TOPIC, f"{tag}-{i}", ck.ResourcePatternType.LITERAL,
                                                    PRINCIPAL, "*", ck.AclOperation.READ, ck.AclPermissionType.ALLOW)
                                      for i in range(n)], request_timeout=120)
        ok = 0
        for f in futures.values():
            f.result()
            ok += 1
        return ok

    def users(n: int, tag: str) -> int:
        info = ck.ScramCredentialInfo(ck.ScramMechanism.SCRAM_SHA_256, 4096)
        futures = client.alter_user_scram_credentials(
            [ck.UserScramCredentialUpsertion(f"{tag}-{i}", info, PASSWORD.encode()) for i in range(n)],
            request_timeout=120)
        ok = 0
        for f in futures.values():
            f.result()
            ok += 1
        return ok

    return acls, users, lambda: None


def _timed(cluster: FakeCluster, api: str, fn: Callable[[int, str], int], n: int, tag: str) -> dict[str, Any]:
    cluster.clear_acls()
    with cluster._lock:  # the bench owns this cluster: drop the previous run's users
        cluster._scram.credentials.clear()
    cluster.clear_log()
    gc.collect()
    start = time.perf_counter()
    ok = fn(n, tag)
    wall = time.perf_counter() - start
    stored = len(cluster.acls) if api == "CreateAcls" else len(cluster.scram_users)
    return {"wall_s": wall, "requests": cluster.count(api), "ok": ok, "stored": stored, "applied": ok == n == stored}


def run(quick: bool = False) -> dict[str, Any]:
    n_acls, n_users = (2000, 200) if quick else (10_000, 1000)
    repeat = 1 if quick else 3
    cases = {"acls": ("CreateAcls", n_acls, f"create {n_acls:,} ACL bindings"),
             "users": ("AlterUserScramCredentials", n_users, f"create {n_users:,} SCRAM users (SHA-256, 4096 rounds)")}
    results: dict[str, dict[str, dict[str, Any]]] = {c: {} for c in cases}
    notes: list[str] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with FakeCluster(brokers=BROKERS, latency_s=LATENCY_S, authorizer={"super_users": ["User:ANONYMOUS"]}) as c:
            makers = {"kadmin": _kadmin, "kafka-python": _kafka_python, "confluent-kafka": _confluent}
            clients: dict[str, Any] = {}
            for name, make in makers.items():
                try:
                    clients[name] = make(c)
                except Exception as exc:  # noqa: BLE001 - a peer that cannot start is reported, not fatal
                    notes.append(f"{name} could not be set up: {type(exc).__name__}: {exc}")
            for case, (api, n, _what) in cases.items():
                for r in range(repeat):
                    for name, (acls, users, _close) in clients.items():
                        fn = acls if case == "acls" else users
                        try:
                            got = _timed(c, api, fn, n, f"{name}-{case}-{r}")
                        except Exception as exc:  # noqa: BLE001
                            notes.append(f"{name} {case} run {r} failed: {type(exc).__name__}: {exc}")
                            continue
                        best = results[case].get(name)
                        if best is None or got["wall_s"] < best["wall_s"]:
                            got["applied"] = got["applied"] and (best is None or best["applied"])
                            results[case][name] = got
            for _acls, _users, close in clients.values():
                close()
    rows: list[dict[str, Any]] = []
    targets: list[dict[str, Any]] = []
    for case, (api, n, what) in cases.items():
        k = results[case].get("kadmin")
        if k is None:
            continue
        for peer in CLIENTS[1:]:
            p = results[case].get(peer)
            rows.append({"case": what, "kadmin_s": round(k["wall_s"], 4), "peer": peer,
                         "peer_s": round(p["wall_s"], 4) if p else None,
                         "ratio": round(p["wall_s"] / k["wall_s"], 2) if p else None,
                         "kadmin_requests": k["requests"], "peer_requests": p["requests"] if p else None,
                         "applied": k["applied"] and bool(p and p["applied"])})
        bound = math.ceil(n / BATCH)
        targets.append({"what": f"{what}: kadmin's {api} requests", "target": f"<= ceil({n} / {BATCH}) = {bound}",
                        "measured": k["requests"], "met": k["requests"] <= bound and k["applied"]})
        peers = [results[case][p]["wall_s"] for p in CLIENTS[1:] if p in results[case]]
        if peers:
            fastest = min(peers)
            targets.append({"what": f"{what}: wall time", "target": "at or below the faster peer",
                            "measured": f"{k['wall_s']:.3f} s vs {fastest:.3f} s", "met": k["wall_s"] <= fastest})
    notes.append(f"{BROKERS} brokers, {LATENCY_S * 1000:.0f} ms latency per request, batch {BATCH}; best of {repeat} "
                 "run(s), clients taking turns; request counts from the fake's log")
    return {"name": "security", "rows": rows, "notes": notes, "targets": targets, "results": results}


def format_table(result: dict[str, Any]) -> str:
    rows = []
    for case, by_client in result["results"].items():
        for name in CLIENTS:
            r = by_client.get(name)
            if r is not None:
                rows.append([case, name, f"{r['wall_s']:.3f}", r["requests"], "yes" if r["applied"] else "NO"])
    return markdown_table(["case", "client", "wall s", "requests", "all stored"], rows)


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING)
    out = run(quick="--quick" in sys.argv)
    print(format_table(out))
    for t in out["targets"]:
        print(("MET " if t["met"] else "MISSED ") + f"{t['what']}: {t['target']} (measured {t['measured']})")
    for note in out["notes"]:
        print("note:", note)
