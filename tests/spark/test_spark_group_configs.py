"""The ``group_configs`` kind (issue #30): GROUP config resources planned against DescribeConfigs, applied with
IncrementalAlterConfigs in ceil(n/batch) requests, read back by confluent-kafka (librdkafka describes GROUP
config resources), and failing alone, with the reason, on a release without them.
"""

from __future__ import annotations

import math
from typing import Any

import confluent_kafka.admin
import pytest

from kadmin import AdminClient
from kadmin.configs import ConfigResource, SetConfig
from kadmin.protocol.apis import ApiKey
from kadmin.spark import provision
from kadmin.spark.spec import TenantSpec
from kadmin.testing import FakeCluster

pytestmark = pytest.mark.spark
ck: Any = confluent_kafka.admin

SCHEMA = "group string, config string, value string"


def rows_of(plan: Any) -> dict[str, tuple[str, str, str | None]]:
    return {r["key"]: (r["action"], r["status"], r["error"]) for r in plan.collect()}


def own_configs_by_confluent(bootstrap: str, groups: list[str]) -> dict[str, dict[str, str]]:
    """The groups' own (GROUP_CONFIG) values as librdkafka's admin client reads them."""
    c = ck.AdminClient({"bootstrap.servers": bootstrap, "log_level": 0})
    out = {}
    for res, fut in c.describe_configs([ck.ConfigResource("group", g) for g in groups]).items():
        out[res.name] = {k: e.value for k, e in fut.result(10).items()
                         if e.source == ck.ConfigSource.GROUP_CONFIG.value}
    return out


def test_group_configs_plan_apply_read_back_and_rerun(spark: Any) -> None:
    with FakeCluster(brokers=3, versions="4.1") as cluster, AdminClient(cluster.bootstrap) as admin:
        admin.alter_configs({
            ConfigResource.group("a-keep"): [SetConfig("consumer.heartbeat.interval.ms", "4000"),
                                             SetConfig("consumer.session.timeout.ms", "50000")],
            ConfigResource.group("a-old"): [SetConfig("share.session.timeout.ms", "40000")],
            ConfigResource.group("a-held"): [SetConfig("consumer.session.timeout.ms", "50000")],
            ConfigResource.group("b-other"): [SetConfig("consumer.session.timeout.ms", "30000")]})
        spec = TenantSpec(group_configs=spark.createDataFrame([
            ("a-new", "consumer.session.timeout.ms", "60000"),     # a group that does not exist yet
            ("a-new", "share.auto.offset.reset", "earliest"),
            ("a-new", "streams.num.standby.replicas", "1"),
            ("a-keep", "consumer.heartbeat.interval.ms", "6000"),  # alter
            ("a-keep", "consumer.session.timeout.ms", "50000"),    # unchanged
            ("a-held", "consumer.sesion.timeout.ms", "1"),         # unknown to the cluster: a typo
            ("", "consumer.session.timeout.ms", "1"),
        ], SCHEMA))
        options: dict[str, Any] = {"scope": ["groups=a-"], "remove_unlisted": True}
        got = rows_of(provision(spec, admin, "plan", **options))
        assert {k: v[:2] for k, v in got.items()} == {
            "a-new:consumer.session.timeout.ms": ("create", "planned"),
            "a-new:share.auto.offset.reset": ("create", "planned"),
            "a-new:streams.num.standby.replicas": ("create", "planned"),
            "a-keep:consumer.heartbeat.interval.ms": ("alter", "planned"),
            "a-keep:consumer.session.timeout.ms": ("unchanged", "unchanged"),
            "a-held:consumer.sesion.timeout.ms": ("reject", "rejected"),
            # unlisted, in scope, but its group has a refused row: a typo never becomes a deletion
            "a-held:consumer.session.timeout.ms": ("reject", "skipped"),
            ":consumer.session.timeout.ms": ("reject", "rejected"),
            "a-old:share.session.timeout.ms": ("delete", "planned"),  # in scope, unlisted; b-other is not
        }
        assert "consumer.sesion.timeout.ms is not known to the cluster" in (got["a-held:consumer.sesion.timeout.ms"][2]
                                                                          or "")
        assert "not deleted: the spec has a rejected row for group a-held" in (
            got["a-held:consumer.session.timeout.ms"][2] or "")
        assert got[":consumer.session.timeout.ms"][2] == "group is empty"

        cluster.clear_log()
        applied = rows_of(provision(spec, admin, "apply", batch_size=2, **options))
        assert {k for k, v in applied.items() if v[1] == "ok"} == {k for k, v in got.items() if v[1] == "planned"}
        # Three groups change (a-new, a-keep, a-old): ceil(3 / 2) requests.
        assert cluster.count(ApiKey.INCREMENTAL_ALTER_CONFIGS) == math.ceil(3 / 2)
        assert own_configs_by_confluent(cluster.bootstrap, ["a-new", "a-keep", "a-old", "a-held", "b-other"]) == {
            "a-new": {"consumer.session.timeout.ms": "60000", "share.auto.offset.reset": "earliest",
                      "streams.num.standby.replicas": "1"},
            "a-keep": {"consumer.heartbeat.interval.ms": "6000", "consumer.session.timeout.ms": "50000"},
            "a-old": {},
            "a-held": {"consumer.session.timeout.ms": "50000"},
            "b-other": {"consumer.session.timeout.ms": "30000"}}

        cluster.clear_log()
        again = rows_of(provision(spec, admin, "apply", **options))
        assert {v[:2] for v in again.values()} == {("unchanged", "unchanged"), ("reject", "rejected"),
                                                   ("reject", "skipped")}
        assert cluster.count(ApiKey.INCREMENTAL_ALTER_CONFIGS) == 0

        # Without a group prefix in the scope nothing is deleted (a scope must name what it covers).
        admin.alter_configs({ConfigResource.group("a-late"): [SetConfig("share.session.timeout.ms", "40000")]})
        narrow = rows_of(provision(spec, admin, "plan", scope=["topics=a-"], remove_unlisted=True))
        assert not [k for k, v in narrow.items() if v[0] == "delete"]


@pytest.mark.parametrize("release", ["2.2", "3.9"])
def test_a_release_without_group_configs_fails_those_rows_alone(spark: Any, release: str) -> None:
    """2.2 cannot parse the GROUP type (the whole DescribeConfigs is INVALID_REQUEST); 3.9 in ZooKeeper mode
    refuses it ("Unsupported resource type"): the group rows fail with the reason, the topic is still made."""
    with FakeCluster(brokers=1, versions=release) as cluster, AdminClient(cluster.bootstrap) as admin:
        spec = TenantSpec(
            topics=spark.createDataFrame([("t-1", 1, 1)], "name string, partitions int, replication_factor int"),
            group_configs=spark.createDataFrame([("g", "consumer.session.timeout.ms", "60000"),
                                                 ("g", "consumer.heartbeat.interval.ms", "6000")], SCHEMA))
        got = rows_of(provision(spec, admin, "apply"))
        assert got["t-1"][:2] == ("create", "ok")
        for key in ("g:consumer.session.timeout.ms", "g:consumer.heartbeat.interval.ms"):
            action, status, error = got[key]
            assert (action, status) == ("reject", "failed")
            assert "INVALID_REQUEST" in (error or "") and "Kafka 4.0 or later" in (error or ""), error
        assert [t.name for t in admin.list_topics()] == ["t-1"]
        assert cluster.count(ApiKey.INCREMENTAL_ALTER_CONFIGS) == 0
