"""Export of a live cluster into a spec (``kadmin.spark.export``, ``kadmin provision --export``): 50,000 topics.

The cluster: a fake (3 brokers, authorizer) in a child process (``bench.spark_tenants``' ``--fake-child``,
so that its brokers do not share the driver's GIL), with ``topics`` topics of 1 partition, every tenth with
two configs of its own (``retention.ms``, ``cleanup.policy``), made through kadmin's batched calls before the
clock starts.  Measured, interleaved (the machine is shared and loaded):

* **export**: ``kadmin.spark.export(admin, spark, dir, format=...)`` for CSV and Parquet, end to end (the
  reads, the frames, the files);
* **reads**: the same reads made directly with kadmin's calls (``list_topics``, ``describe_topics``,
  ``describe_configs`` of every topic in chunks of 1,000), no Spark, no file: the floor an export cannot
  go under.

    python -m bench.spark_export [--topics N] [--quick]

``--quick``: 2,000 topics.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from typing import Any

from bench.spark_tenants import _spark, fake_process

CONFIGS = {"retention.ms": "86400000", "cleanup.policy": "compact"}
READ_CHUNK = 1000


def seed(admin: Any, n: int) -> None:
    from kadmin.topics import NewTopic

    topics = [NewTopic(f"exp-{i:06d}", 1, 1, configs=CONFIGS if i % 10 == 0 else {}) for i in range(n)]
    for i in range(0, n, 1000):
        failed = {k: v for k, v in admin.create_topics(topics[i:i + 1000]).items() if isinstance(v, BaseException)}
        if failed:
            raise RuntimeError(f"seeding failed: {next(iter(failed.items()))}")


def direct_reads(admin: Any) -> int:
    """The export's reads without Spark or files: topics, their descriptions, their own configs."""
    from kadmin.configs import ConfigResource, ConfigSource

    names = sorted(t.name for t in admin.list_topics())
    admin.describe_topics(names)
    own = 0
    for i in range(0, len(names), READ_CHUNK):
        for entries in admin.describe_configs([ConfigResource.topic(t) for t in names[i:i + READ_CHUNK]]).values():
            own += sum(1 for e in entries.values() if e.source is ConfigSource.DYNAMIC_TOPIC_CONFIG)
    return own


def run(quick: bool = False, topics: int | None = None, repeat: int = 1) -> dict[str, Any]:
    from kadmin import AdminClient
    from kadmin.spark import export

    n = topics or (2_000 if quick else 50_000)
    spark = _spark()
    times: dict[str, list[float]] = {"csv": [], "parquet": [], "reads": []}
    rows: dict[str, int] = {}
    try:
        with fake_process() as fake, AdminClient(fake.bootstrap) as admin:
            seed(admin, n)
            with tempfile.TemporaryDirectory(prefix="kadmin-bench-export-") as tmp:
                # Warm-up (JVM, codegen) on ten topics: the scope's prefix.
                export(admin, spark, f"{tmp}/warm", scope=["topics=exp-00000"], format="parquet")
                for r in range(repeat):
                    for what in ("reads", "csv", "parquet"):
                        t0 = time.perf_counter()
                        if what == "reads":
                            configs = direct_reads(admin)
                        else:
                            result = export(admin, spark, f"{tmp}/{what}{r}", format=what)
                            rows = dict(result.rows)
                        times[what].append(round(time.perf_counter() - t0, 2))
    finally:
        spark.stop()
    med = {k: statistics.median(v) for k, v in times.items()}
    expected = {"topics": n, "topic_configs": len(CONFIGS) * ((n + 9) // 10)}
    got = {k: rows.get(k, 0) for k in expected}
    notes = [f"{n} topics ({expected['topic_configs']} topic configs of their own), fake cluster (3 brokers) in a "
             f"child process; medians of {repeat} interleaved runs: {times}; a shared, loaded 2-core machine.",
             f"Rows exported {rows}; the direct reads found {configs} own configs."]
    targets = [{"what": "every topic and topic config exported", "target": str(expected), "measured": str(got),
                "met": got == expected}]
    out_rows = [{"case": f"export {n} topics to a spec ({fmt})", "kadmin_s": med[fmt],
                 "peer": "kadmin's reads alone (no Spark, no file)", "peer_s": med["reads"],
                 "ratio": round(med["reads"] / med[fmt], 3) if med[fmt] else None} for fmt in ("csv", "parquet")]
    return {"name": "spark_export", "rows": out_rows, "notes": notes, "targets": targets, "times": times,
            "topics": n}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--topics", type=int)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args(argv)
    print(json.dumps(run(args.quick, args.topics, args.repeat), indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
