"""The benchmark runner (``python -m bench``) and bench.quotas, at sizes a test can afford.

The runner's job is to turn every module's output into one table of ratios and to survive modules that are
missing, failing or of another shape; those paths are checked here without running the real benchmarks.
"""

from __future__ import annotations

import importlib
import math
from pathlib import Path
from typing import Any

import pytest

bench_main = importlib.import_module("bench.__main__")


def test_common_shape_passes_through_and_fills_the_ratio() -> None:
    raw = {"name": "x", "rows": [{"case": "c", "kadmin_s": 0.5, "peer_s": 2.0}, {"case": "no peer", "kadmin_s": 1.0}],
           "notes": ["n"], "targets": [{"what": "w", "target": "t", "measured": 3, "met": True}]}
    out, problems = bench_main.normalize("x", raw)
    assert problems == []
    assert [r["ratio"] for r in out["rows"]] == [4.0, None]
    assert out["rows"][0]["peer"] == "kafka-python"
    assert out["targets"] == raw["targets"] and out["notes"] == ["n"]


def test_known_other_shapes_are_adapted_and_the_adaptation_is_reported() -> None:
    groups_like = {"cases": {"a": {"what": "batched", "preset": "3.9", "kadmin": {"wall_s": 0.1, "requests": 4},
                                   "kafka_python": {"wall_s": 0.3, "client": "kafka-python 3.0.12",
                                                    "extrapolated": True}}},
                   "targets": {"fast": True, "few_requests": False}}
    out, problems = bench_main.normalize("groups", groups_like)
    (row,) = out["rows"]
    assert row["ratio"] == 3.0 and row["peer_extrapolated"] and row["kadmin_requests"] == 4
    assert [t["met"] for t in out["targets"]] == [True, False]
    assert any("cases" in p for p in problems) and any("targets" in p for p in problems)

    codec_like = {"target": ">= 2x", "target_met": False,
                  "cases": {"M v1": {"bytes": 10, "kadmin": {"encode_ms": 1.0, "decode_ms": 2.0},
                                     "kio": {"encode_ms": 3.0, "decode_ms": 1.0},
                                     "kio/kadmin": {"encode": 3.0, "decode": 0.5}}}}
    out, _ = bench_main.normalize("codec", codec_like)
    assert {(r["case"], r["peer"], r["ratio"]) for r in out["rows"]} == {("M v1: encode", "kio", 3.0),
                                                                          ("M v1: decode", "kio", 0.5)}
    assert out["targets"][0]["met"] is False

    spark_like = {"entities": 10, "apply_s": 4.0, "direct_s": 1.0, "targets": {"ratio_le_2": False}}
    out, _ = bench_main.normalize("spark_provision", spark_like)
    assert out["rows"][0]["ratio"] == 0.25

    out, problems = bench_main.normalize("odd", {"whatever": 1})
    assert out["rows"] == [] and any("no ratios" in p for p in problems)


@pytest.mark.timeout(60)
def test_a_missing_module_is_recorded_and_the_report_still_renders(tmp_path: Path) -> None:
    record = bench_main.run_module("no_such_benchmark", quick=True, timeout_s=30)
    assert "missing" in record["error"]
    ok: dict[str, Any] = {"name": "quotas", "elapsed_s": 1.0, "table": "| t |",
                          "normalized": {"name": "quotas", "notes": ["a note"],
                                         "rows": [{"case": "c", "kadmin_s": 1.0, "peer": "kafka-python",
                                                   "peer_s": 2.0, "ratio": 2.0}],
                                         "targets": [{"what": "w", "target": "t", "measured": 1, "met": False}]}}
    report = {"mode": "quick", "finished_utc": "2026-01-01 00:00 UTC", "elapsed_s": 2.0, "modules": [record, ok],
              "environment": {"commit": "abc", "python": "3.11", "cpus": 2, "platform": "Linux"}}
    md = bench_main.markdown(report)
    assert "no_such_benchmark | *not run:" in md
    assert "| quotas | c | kafka-python | **2.00x** | 1.000 | 2.000 |" in md
    assert "**NO**" in md and "a note" in md and "| t |" in md


@pytest.mark.timeout(120)
def test_quotas_benchmark_counts_requests_and_checks_the_cluster() -> None:
    from bench import quotas

    res = quotas.run(quick=True, n=30, batch_sizes=(1, 7), concurrency=(1, 3))
    assert {r["batch_size"] for r in res["rows"]} == {1, 7}
    for r in res["rows"]:
        assert r["requests"] == math.ceil(30 / r["batch_size"]) == r["peer_requests"]
        assert r["max_in_flight"] <= r["concurrency"]
        assert r["kadmin_s"] > 0 and r["peer_s"] > 0
    assert res["targets"] and all(t["met"] for t in res["targets"])
    assert any("no alter_client_quotas" in n for n in res["notes"]) != res["params"]["peer_has_alter_client_quotas"]
    out, problems = bench_main.normalize("quotas", res)
    assert problems == [] and len(out["rows"]) == len(res["rows"])


@pytest.mark.timeout(120)
def test_quotas_headline_counts_one_request_per_case_and_checks_what_each_client_described() -> None:
    from bench import quotas

    rows, targets, notes = quotas.headline(30, 1, brokers=("fake",))
    assert [r["case"].split(" ")[0] for r in rows] == ["alter", "describe"]
    for r in rows:
        assert r["requests"] == 1 == r["peer_requests"]  # one request each, counted at the broker's process
        assert r["kadmin_s"] > 0 and r["peer_s"] > 0 and r["kadmin_cpu_s"] >= 0 and r["headline"] is True
    assert len(targets) == 2 and all(t["target"] == ">= 1.5x" for t in targets)
    assert any("process of its own" in n for n in notes)
    out, problems = bench_main.normalize("quotas", {"name": "quotas", "rows": rows, "targets": targets, "notes": notes})
    assert problems == [] and len(out["rows"]) == 2
