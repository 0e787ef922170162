"""How fast could a sync small call be?  kadmin's own request building, codec and answer handling on a blocking
socket of the calling thread, against kadmin's sync client and confluent-kafka, in the same run (issue #28).

kadmin's sync ``AdminClient`` hands every call to its event-loop thread and back: the call is an asyncio task
there, goes through the operation driver (lookup, per-key outcomes, deadline) and the connection's protocol, and
its outcome crosses back to the calling thread.  confluent-kafka's ``list_topics`` is C end to end.  The
question this benchmark answers is whether the gap between them is Python's (the codec and the per-key handling
every path keeps) or the design's (the loop thread, asyncio and the driver around one request).

So a third contender does only what cannot be left out of a call: ``Operation.build`` for the node's negotiated
version, the request's encoding, one blocking ``sendall``/``recv`` on a plain socket of the calling thread, the
answer's decoding (the client's lazy decoder) and ``Operation.handle``, whose ``Done`` value must equal what the
sync client returned (checked before any timing).  It is a measuring device, not a client: one plaintext
connection, no retries, no authentication, no per-key guarantees beyond a clean answer.

``python -m bench.small_calls_floor [--quick]``: a one-broker FakeCluster (Kafka 3.9's versions) in a child
process, 20 topics; per case and contender the median of 5 interleaved runs of N calls (N = 2,000; quick: 200),
wall time and this process's CPU time per call.
"""

from __future__ import annotations

import socket
import statistics
import struct
import sys
import time
import warnings
from collections.abc import Callable
from typing import Any

from kadmin import AdminClient, NewTopic
from kadmin.admin import _driver
from kadmin.admin.cluster import CLUSTER, DescribeCluster
from kadmin.admin.topics import ALL_TOPICS, ListTopics
from kadmin.network.connection import decode_response
from kadmin.protocol.headers import encode_request

CONTENDERS = ("blocking floor", "kadmin sync", "confluent-kafka")
CASES = ("describe_cluster", "list_topics")
_SIZE = struct.Struct(">i")


class BlockingFloor:
    """One plaintext connection to ``bootstrap``, used by the calling thread alone (see the module docstring)."""

    def __init__(self, bootstrap: str, versions: dict[int, int]) -> None:
        host, _, port = bootstrap.rpartition(":")
        self.sock = socket.create_connection((host, int(port)), timeout=30)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.versions = versions
        self.correlation = 0

    def call(self, op: Any, key: Any) -> Any:
        """``op``'s answer for ``key`` in one request, or RuntimeError when it is not a clean ``Done``."""
        version = self.versions[op.api]
        request = op.build(0, [key], version)
        self.correlation += 1
        self.sock.sendall(encode_request(op.api, version, self.correlation, "kadmin-floor", request.encode(version)))
        size, = _SIZE.unpack(self._read(4))
        outcome = op.handle(0, [key], decode_response(self._read(size), op.api, version), version)[key]
        if not isinstance(outcome, _driver.Done):
            raise RuntimeError(f"{type(op).__name__}: {outcome!r}")
        return outcome.value

    def _read(self, n: int) -> bytes:
        data = self.sock.recv(n, socket.MSG_WAITALL)
        if len(data) != n:
            raise ConnectionError(f"the broker closed the connection ({len(data)} of {n} bytes)")
        return data

    def close(self) -> None:
        self.sock.close()


def _median_run(fns: dict[str, Callable[[], Any]], calls: int, runs: int) -> dict[str, tuple[float, float]]:
    """{contender: (wall s, CPU s) per call}: medians of ``runs`` runs of ``calls`` calls, contenders taking
    turns run by run (each run begun by another)."""
    names = list(fns)
    got: dict[str, list[tuple[float, float]]] = {n: [] for n in names}
    for run_no in range(runs):
        for name in names[run_no % len(names):] + names[:run_no % len(names)]:
            fn = fns[name]
            c0, t0 = time.process_time(), time.perf_counter()
            for _ in range(calls):
                fn()
            got[name].append(((time.perf_counter() - t0) / calls, (time.process_time() - c0) / calls))
    return {n: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for n, v in got.items()}


def run(quick: bool = False) -> dict[str, Any]:
    from bench.quotas import _FakeBroker

    calls = 200 if quick else 2_000
    broker = _FakeBroker()
    rows: list[dict[str, Any]] = []
    notes = ["one-broker FakeCluster (Kafka 3.9 versions) in a child process, 20 topics; "
             f"medians of 5 interleaved runs of {calls} calls; CPU is this process's (confluent-kafka's includes "
             "librdkafka's threads)",
             "blocking floor: kadmin's Operation.build, codec and Operation.handle on one blocking plaintext socket "
             "of the calling thread (no loop thread, asyncio or driver); a measuring device, not a client"]
    try:
        with AdminClient(broker.bootstrap) as admin:
            admin.create_topics([NewTopic(f"floor-{i:02d}", 1, 1) for i in range(20)])
            node = admin.api_versions()
            versions = {k: r.negotiated for r in next(iter(node.values())).apis.values()
                        for k in [r.api_key] if r.negotiated is not None}
            floor = BlockingFloor(broker.bootstrap, versions)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                from confluent_kafka.admin import AdminClient as Confluent
            ck = Confluent({"bootstrap.servers": broker.bootstrap, "log_level": 0})
            try:
                contenders = {
                    "describe_cluster": {
                        "blocking floor": lambda: floor.call(DescribeCluster(), CLUSTER),
                        "kadmin sync": admin.describe_cluster,
                        "confluent-kafka": lambda: ck.describe_cluster(request_timeout=30).result()},
                    "list_topics": {
                        "blocking floor": lambda: floor.call(ListTopics(False), ALL_TOPICS),
                        "kadmin sync": admin.list_topics,
                        "confluent-kafka": lambda: ck.list_topics(timeout=30)},
                }
                # The floor must give the sync client's answer, or it measures different work.
                if floor.call(DescribeCluster(), CLUSTER) != admin.describe_cluster():
                    raise RuntimeError("the blocking floor's describe_cluster differs from the sync client's")
                if floor.call(ListTopics(False), ALL_TOPICS) != admin.list_topics():
                    raise RuntimeError("the blocking floor's list_topics differs from the sync client's")
                for case in CASES:
                    fns = contenders[case]
                    for fn in fns.values():  # warm
                        for _ in range(max(20, calls // 10)):
                            fn()
                    got = _median_run(fns, calls, 5)
                    row: dict[str, Any] = {"case": f"{case}, per call"}
                    for name in CONTENDERS:
                        row[f"{name} wall us"] = round(got[name][0] * 1e6, 1)
                        row[f"{name} CPU us"] = round(got[name][1] * 1e6, 1)
                    rows.append(row)
            finally:
                floor.close()
    finally:
        broker.close()
    return {"name": "small_calls_floor", "rows": rows, "notes": notes, "targets": []}


def format_table(result: dict[str, Any]) -> str:
    head = ["case"] + [f"{n} {what}" for n in CONTENDERS for what in ("wall us", "CPU us")]
    lines = ["| " + " | ".join(head) + " |", "| --- |" + " ---: |" * (len(head) - 1)]
    for r in result["rows"]:
        lines.append("| " + " | ".join(str(r[h]) for h in head) + " |")
    return "\n".join(lines) + "\n\n" + "".join(f"- {n}\n" for n in result["notes"])


def main() -> None:
    sys.stdout.write(format_table(run(quick="--quick" in sys.argv[1:])))


if __name__ == "__main__":
    main()
