"""The ``share_groups_offsets`` kind: share groups' start offsets (KIP-932) planned, set and exported.

Real PySpark (the session ``spark`` fixture) against FakeCluster's 4.3 and 4.0 presets.  What was written is read
back twice: with kadmin (list_share_group_offsets, DescribeShareGroupOffsets) and, independently, from the fake
cluster's own share-coordinator state (``FakeCluster.share_offsets``): confluent-kafka 2.x has no share-group
offset API to read it with.  A busy group's member is seeded into the fake (a real share consumer's session would expire
while Spark plans).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kadmin import AdminClient
from kadmin.errors import UnsupportedVersionError
from kadmin.protocol.apis import ApiKey
from kadmin.share_groups import SharePartitionOffset
from kadmin.testing import FakeCluster
from tests.spark.test_spark_tenants import by_key
from tests.support.settings import FAST

pytestmark = pytest.mark.spark

ROWS = "`group` string, topic string, partition string, target string"
ORDERS = {0: (0, 100), 1: (10, 50), 2: (0, 0)}  # partition: (log start, log end)


def starts(cluster: FakeCluster, group: str) -> dict[tuple[str, int], int]:
    return {k: v.start_offset for k, v in cluster.share_offsets(group).items()}


def test_start_offsets_are_set_read_back_two_ways_and_a_busy_group_fails_alone(spark: Any, tmp_path: Path) -> None:
    from kadmin.spark import TenantSpec, provision
    from kadmin.spark.export import export

    with FakeCluster(brokers=1, versions="4.3") as cluster, AdminClient(cluster.bootstrap, **FAST) as admin:
        cluster.add_topic("orders", 3, offsets=ORDERS)
        cluster.set_share_offsets("sg-a", {("orders", 0): 5})
        cluster.add_group("sg-busy", group_type="share", members=[  # a member: its coordinator refuses writes
            {"member_id": "m1", "client_id": "share-1", "subscribed_topic_names": ["orders"],
             "assigned": [("orders", 0)], "member_epoch": 2}], generation_id=2)
        cluster.set_share_offsets("sg-busy", {("orders", 0): 70})
        rows = spark.createDataFrame([
            ("sg-a", "orders", "0", "offset:40"), ("sg-a", "orders", "1", "earliest"),
            ("sg-new", "orders", None, "latest"), ("sg-busy", "orders", "0", "offset:0"),
            ("sg-a", "orders", "2", "shift-by:-5")], ROWS)
        spec = TenantSpec(share_groups_offsets=rows)
        plan = by_key(provision(spec, admin, "plan"))
        k = "share_groups_offsets"
        assert (plan[(k, "sg-a/orders:0")]["old_value"], plan[(k, "sg-a/orders:0")]["new_value"]) == (
            "5", "40 (offset:40)")
        assert plan[(k, "sg-a/orders:1")]["new_value"] == "10 (earliest)"
        assert [plan[(k, f"sg-new/orders:{p}")]["new_value"] for p in range(3)] == [
            "100 (latest)", "50 (latest)", "0 (latest)"]
        assert plan[(k, "sg-a/orders:2")]["status"] == "rejected"
        assert "relative" in plan[(k, "sg-a/orders:2")]["error"]

        checked = by_key(provision(spec, admin, "validate"))
        assert checked[(k, "sg-busy/orders:0")]["status"] == "failed"
        assert "NON_EMPTY_GROUP" in checked[(k, "sg-busy/orders:0")]["error"]
        assert checked[(k, "sg-a/orders:0")]["status"] == "validated"
        assert starts(cluster, "sg-a") == {("orders", 0): 5}  # nothing written
        assert not [e for e in cluster.request_log if e.api_key == ApiKey.ALTER_SHARE_GROUP_OFFSETS]

        res = by_key(provision(spec, admin, "apply"))
        assert res[(k, "sg-busy/orders:0")]["status"] == "failed"
        assert "NON_EMPTY_GROUP" in res[(k, "sg-busy/orders:0")]["error"]
        ok = {key[1] for key, r in res.items() if r["status"] == "ok"}
        assert ok == {"sg-a/orders:0", "sg-a/orders:1", "sg-new/orders:0", "sg-new/orders:1", "sg-new/orders:2"}
        alters = [e for e in cluster.request_log if e.api_key == ApiKey.ALTER_SHARE_GROUP_OFFSETS]
        assert sorted(e.keys for e in alters) == [("sg-a",), ("sg-busy",), ("sg-new",)], alters  # one per group

        want = {"sg-a": {("orders", 0): 40, ("orders", 1): 10},
                "sg-new": {("orders", 0): 100, ("orders", 1): 50, ("orders", 2): 0}}
        for group, offsets in want.items():
            assert starts(cluster, group) == offsets  # the fake's share-coordinator state
            got = admin.list_share_group_offsets([group])[group]
            assert isinstance(got, dict)
            assert {(tp.topic, tp.partition): v.start_offset for tp, v in got.items()
                    if isinstance(v, SharePartitionOffset)} == offsets
        assert starts(cluster, "sg-busy") == {("orders", 0): 70}  # untouched

        again = provision(spec, admin, "plan")
        assert sorted(r["key"] for r in again.filter("action != 'unchanged'").collect()) == [
            "sg-a/orders:2", "sg-busy/orders:0"]  # the refused row and the busy group: nothing else to do
        done_rows = rows.filter("`group` != 'sg-busy' AND NOT target LIKE 'shift%'")
        assert provision(TenantSpec(share_groups_offsets=done_rows), admin, "plan").filter(
            "action != 'unchanged'").count() == 0

        done = export(admin, spark, str(tmp_path / "out"), include_group_offsets=True)
        assert done.rows[k] == 2 + 3 + 1
        assert "sg-busy" in " ".join(done.notes)
        assert 'sg-a,orders,0,offset:40' in (tmp_path / "out" / f"{k}.csv").read_text()
        assert k not in export(admin, spark, str(tmp_path / "plain")).rows  # only when asked
        exported = spark.read.csv(str(tmp_path / "out" / f"{k}.csv"), header=True)
        round_trip = provision(TenantSpec(share_groups_offsets=exported), admin, "plan")
        assert round_trip.count() == 2 + 3 + 1 and round_trip.filter("action != 'unchanged'").count() == 0


def test_a_broker_without_share_groups_fails_the_rows_alone(spark: Any) -> None:
    from kadmin.spark import TenantSpec, provision

    with FakeCluster(brokers=1, versions="4.0") as cluster, AdminClient(cluster.bootstrap, **FAST) as admin:
        cluster.add_topic("orders", 1, offsets={0: (0, 10)})
        spec = TenantSpec(
            topics=spark.createDataFrame([("fresh", 1, 1)], "name string, partitions int, replication_factor int"),
            share_groups_offsets=spark.createDataFrame([("sg", "orders", "0", "earliest")], ROWS))
        res = by_key(provision(spec, admin, "apply"))
        row = res[("share_groups_offsets", "sg/orders:0")]
        assert row["status"] == "failed", row
        assert "start offsets of share group sg could not be read" in row["error"], row
        assert "Kafka 4.1" in row["error"], row  # the release that brought them
        assert res[("topics", "fresh")]["status"] == "ok"  # the rest of the spec went on
        assert "fresh" in {t.name for t in admin.list_topics()}
        assert not [e for e in cluster.request_log if e.api_key == ApiKey.ALTER_SHARE_GROUP_OFFSETS]
        assert isinstance(admin.list_share_group_offsets(["sg"])["sg"], UnsupportedVersionError)
