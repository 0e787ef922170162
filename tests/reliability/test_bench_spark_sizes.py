"""bench.spark_tenants and bench.spark_export without Spark, at sizes a test can afford: the sizes they claim,
the fake cluster in a child process answering request counts, the direct path's ceil(n/batch) requests, and
the export bench's seeding and reads.  (The Spark paths themselves are the provisioning and export tests'.)"""

from __future__ import annotations

import importlib
import math

import pytest

from kadmin import AdminClient

tenants = importlib.import_module("bench.spark_tenants")
export_bench = importlib.import_module("bench.spark_export")


def test_sizes_match_the_rows_and_a_million_entities_is_reached_and_not_overshot() -> None:
    for n in (1, 7, 10, 333):
        rows = tenants.tenant_rows(n)
        s = tenants.sizes(n)
        assert (len(rows["topics"]), len(rows["acls"]), len(rows["users"]), len(rows["quotas"])) == (
            s["CreateTopics"], s["CreateAcls"], s["AlterUserScramCredentials"], s["AlterClientQuotas"])
        assert tenants.entities(n) == len(rows["topics"]) + len(rows["acls"]) + len(rows["users"]) + 2 * n
    n = tenants.tenants_for(1_000_000)
    assert tenants.entities(n) >= 1_000_000 > tenants.entities(n - 1)


def test_size_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KADMIN_BENCH_TENANTS", raising=False)
    monkeypatch.delenv("KADMIN_BENCH_ENTITIES", raising=False)
    assert tenants.size_from_env(True) == 300 and tenants.size_from_env(False) == 10_000
    monkeypatch.setenv("KADMIN_BENCH_ENTITIES", "1000000")
    assert tenants.size_from_env(True) == 192_308
    monkeypatch.setenv("KADMIN_BENCH_TENANTS", "12")
    assert tenants.size_from_env(False) == 12


def test_direct_path_on_the_child_fake_sends_ceil_n_over_batch_per_api(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(tenants.PASSWORD_ENV, "bench-test-password")
    monkeypatch.setattr(tenants, "BATCH", 4)
    n = 9
    got = tenants.run_direct(n)
    assert got["requests"] == {api: math.ceil(k / 4) for api, k in tenants.sizes(n).items()}
    assert set(got["memory"]) == {"driver", "fake"}


def test_export_bench_seeds_and_reads_every_topic_and_its_own_configs() -> None:
    with tenants.fake_process() as fake, AdminClient(fake.bootstrap) as admin:
        export_bench.seed(admin, 25)
        assert len(admin.list_topics()) == 25
        assert export_bench.direct_reads(admin) == len(export_bench.CONFIGS) * 3  # topics 0, 10 and 20
        assert fake.counts() == {"CreateTopics": 1}
        fake.clear()
        assert fake.counts() == {}
