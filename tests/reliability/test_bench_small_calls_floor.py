"""bench.small_calls_floor: the blocking floor gives the sync client's answers (else it would time other work), and
every case reports wall time and CPU for the three contenders."""

from __future__ import annotations

import importlib

import pytest

from kadmin import AdminClient
from kadmin.admin.cluster import CLUSTER, DescribeCluster
from kadmin.admin.topics import ALL_TOPICS, ListTopics
from kadmin.errors import UnsupportedVersionError
from kadmin.testing import FakeCluster
from tests.support.settings import FAST

floor_bench = importlib.import_module("bench.small_calls_floor")


def _versions(admin: AdminClient) -> dict[int, int]:
    node = next(iter(admin.api_versions().values()))
    return {r.api_key: r.negotiated for r in node.apis.values() if r.negotiated is not None}


def test_the_floor_answers_as_the_sync_client_does() -> None:
    with FakeCluster(brokers=1, versions="3.9") as c:
        c.add_topic("orders", 3, replication_factor=1)
        c.add_topic("__consumer_offsets", 1, replication_factor=1)
        with AdminClient(c.bootstrap, **FAST) as admin:
            floor = floor_bench.BlockingFloor(c.bootstrap, _versions(admin))
            try:
                assert floor.call(ListTopics(False), ALL_TOPICS) == admin.list_topics()
                assert [t.name for t in floor.call(ListTopics(True), ALL_TOPICS)] == ["__consumer_offsets", "orders"]
                assert floor.call(DescribeCluster(), CLUSTER) == admin.describe_cluster()
                # Fenced brokers need DescribeCluster v2 (Kafka 4.0): refused before anything is sent.
                with pytest.raises(UnsupportedVersionError):
                    floor.call(DescribeCluster(include_fenced_brokers=True), CLUSTER)
            finally:
                floor.close()


def test_every_case_reports_wall_and_cpu_for_each_contender() -> None:
    result = floor_bench.run(quick=True)
    assert [r["case"] for r in result["rows"]] == ["describe_cluster, per call", "list_topics, per call"]
    for row in result["rows"]:
        for name in floor_bench.CONTENDERS:
            assert row[f"{name} wall us"] > 0 and row[f"{name} CPU us"] >= 0
    assert "| describe_cluster, per call |" in floor_bench.format_table(result)
