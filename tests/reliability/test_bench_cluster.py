"""bench.cluster (``python -m bench --bootstrap-server``) against a cluster standing in for a user's: every case
reports wall time, CPU and requests for kadmin and its peers, and nothing outside the run's prefix is touched."""

from __future__ import annotations

import importlib

import pytest

from kadmin import AdminClient, ClientQuotaAlteration, ClientQuotaEntity, ClientQuotaFilter, Set
from kadmin.testing import FakeCluster
from tests.support.settings import FAST

bench_cluster = importlib.import_module("bench.cluster")


def test_every_case_reports_time_cpu_and_requests_and_only_the_prefix_is_touched(
        monkeypatch: pytest.MonkeyPatch) -> None:
    mine = ClientQuotaEntity({"client-id": "users-own-client"})
    with FakeCluster(brokers=1, versions="3.9") as c:
        c.add_topic("users-own-topic", 1, replication_factor=1)
        with AdminClient(c.bootstrap, **FAST) as a:
            assert a.alter_client_quotas([ClientQuotaAlteration(mine, [Set("producer_byte_rate", 5.0)])]) == {
                mine: None}
        monkeypatch.setenv(bench_cluster.ENV, c.bootstrap)
        monkeypatch.setattr(bench_cluster.time, "sleep", lambda _s: None)
        result = bench_cluster.run(sizes={"topics": 4, "quotas": 6, "calls": 2}, repeat=1, pairs=3)
        cases = {r["case"]: r for r in result["rows"]}
        assert set(cases) == {"create topics", "delete topics", "describe_cluster, per call",
                              "list_topics, per call", "alter client quotas", "describe client quotas",
                              "describe one group, per call", "describe configs of one topic, per call"}
        for row in cases.values():
            assert row["kadmin_s"] > 0 and row["kadmin_cpu_s"] >= 0 and row["kadmin_requests"] >= 1
            assert row["kafka-python_s"] > 0 and row["kafka-python_requests"] >= 1
        assert cases["describe_cluster, per call"]["kadmin_requests"] == 1  # one request per call
        assert cases["create topics"]["confluent-kafka_requests"] is not None
        assert "confluent-kafka_s" not in cases["alter client quotas"]  # it has no client quota API
        assert " create topics | " in bench_cluster.format_table(result)
        # The create/delete targets come from the paired runs: one ratio per pair, their median and interval.
        assert set(result["paired"]) == {"create topics", "delete topics", "describe_cluster, per call",
                                         "list_topics, per call"}
        for case, p in result["paired"].items():
            assert len(p["wall"]) == len(p["cpu"]) == 3 and all(x > 0 for x in p["wall"])
            lo, hi = p["wall_interval"]
            assert min(p["wall"]) <= lo <= p["wall_median"] <= hi <= max(p["wall"])
            target = next(t for t in result["targets"] if t["what"].startswith(f"{case}: "))
            assert "3 paired runs" in target["what"] and target["met"] == (
                p["wall_median"] >= 1.0 and p["cpu_median"] >= 1.0)
        # Only the run's prefix was touched, and it was cleaned up.
        assert sorted(c.topics) == ["users-own-topic"]
        with AdminClient(c.bootstrap, **FAST) as a:
            assert a.list_consumer_groups().groups == ()  # the small calls' group went with the prefix
        with AdminClient(c.bootstrap, **FAST) as a:
            assert a.describe_client_quotas(ClientQuotaFilter.all()) == {mine: {"producer_byte_rate": 5.0}}
    # The request counting was undone: kadmin's connections are the library's own again.
    from kadmin.network import connection
    assert connection.Connection._start.__qualname__ == "Connection._start"
