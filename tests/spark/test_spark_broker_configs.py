"""The ``broker_configs`` kind (issue #30): per-broker and cluster-default dynamic configs planned against
DescribeConfigs (read-only and unknown brokers rejected per row), applied with IncrementalAlterConfigs, read back
by confluent-kafka, with deletions only of the brokers the spec names and only with ``kinds=broker_configs``.

librdkafka cannot describe the cluster-default resource (an empty broker name is refused on the client), so the
default is read back where every broker reports it: a broker's entries whose source is
DYNAMIC_DEFAULT_BROKER_CONFIG.
"""

from __future__ import annotations

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

SCHEMA = "broker string, config string, value string"


def rows_of(plan: Any) -> dict[str, tuple[str, str, str | None]]:
    return {r["key"]: (r["action"], r["status"], r["error"]) for r in plan.collect()}


def dynamic_by_confluent(bootstrap: str, broker: int) -> dict[str, dict[str, str]]:
    """Broker ``broker``'s own dynamic values and the cluster default's, as librdkafka reads them."""
    c = ck.AdminClient({"bootstrap.servers": bootstrap, "log_level": 0})
    (fut,) = c.describe_configs([ck.ConfigResource("broker", str(broker))]).values()
    entries = fut.result(10)
    # An entry shows its highest-precedence source; the default's value also shows in its synonyms.
    default = {e.name: e.value for e in entries.values()
               if e.source == ck.ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG.value}
    own = {e.name: e.value for e in entries.values() if e.source == ck.ConfigSource.DYNAMIC_BROKER_CONFIG.value}
    return {"own": own, "default": default}


def test_broker_configs_plan_apply_read_back_and_rerun(spark: Any) -> None:
    with FakeCluster(brokers=3) as cluster, AdminClient(cluster.bootstrap) as admin:
        first, second, third = cluster.node_ids
        admin.alter_configs({ConfigResource.broker(first): [SetConfig("log.cleaner.threads", "2"),
                                                            SetConfig("num.io.threads", "9")],
                             ConfigResource.broker(second): [SetConfig("log.cleaner.threads", "5")],
                             ConfigResource.broker(None): [SetConfig("message.max.bytes", "2000000")]})
        spec = TenantSpec(broker_configs=spark.createDataFrame([
            ("default", "log.cleaner.threads", "3"),          # create, cluster-wide
            (None, "log.retention.ms", "86400000"),           # an empty cell is the default too
            (str(first), "log.cleaner.threads", "4"),         # alter
            (f"0{first}", "num.io.threads", "9"),             # unchanged (0N is broker N)
            (str(first), "broker.id", "77"),                  # read-only (static)
            ("99", "log.cleaner.threads", "1"),               # no such broker
            ("b1", "log.cleaner.threads", "1"),               # not an id
        ], SCHEMA))
        scope: dict[str, Any] = {"scope": ["kinds=broker_configs"], "remove_unlisted": True}
        got = rows_of(provision(spec, admin, "plan", **scope))
        assert {k: v[:2] for k, v in got.items()} == {
            "default:log.cleaner.threads": ("create", "planned"),
            "default:log.retention.ms": ("create", "planned"),
            f"{first}:log.cleaner.threads": ("alter", "planned"),
            f"{first}:num.io.threads": ("unchanged", "unchanged"),
            f"{first}:broker.id": ("reject", "rejected"),
            "99:log.cleaner.threads": ("reject", "rejected"),
            "b1:log.cleaner.threads": ("reject", "rejected"),
            "default:message.max.bytes": ("delete", "planned"),  # the default is named: its unlisted value goes
        }  # broker `second` is not named: its log.cleaner.threads is never read for deletion
        assert f"broker.id is read-only on broker {first}" in (got[f"{first}:broker.id"][2] or "")
        assert "broker 99 is not in the cluster" in (got["99:log.cleaner.threads"][2] or "")
        assert "broker must be a broker id or 'default'" in (got["b1:log.cleaner.threads"][2] or "")
        # A scope that does not name the kind deletes no broker config, even with remove_unlisted.
        loose = rows_of(provision(spec, admin, "plan", scope=["topics=a-"], remove_unlisted=True))
        assert "default:message.max.bytes" not in loose

        # validate: the brokers check the changes (validate_only) and nothing changes.
        checked = rows_of(provision(spec, admin, "validate", **scope))
        assert {k for k, v in checked.items() if v[1] == "validated"} == {k for k, v in got.items()
                                                                         if v[1] == "planned"}
        assert (dynamic_by_confluent(cluster.bootstrap, third)
                == {"own": {}, "default": {"message.max.bytes": "2000000"}})

        applied = rows_of(provision(spec, admin, "apply", **scope))
        assert {k for k, v in applied.items() if v[1] == "ok"} == {k for k, v in got.items() if v[1] == "planned"}
        seen = dynamic_by_confluent(cluster.bootstrap, first)
        assert seen["own"] == {"log.cleaner.threads": "4", "num.io.threads": "9"}
        assert seen["default"] == {"log.retention.ms": "86400000"}  # log.cleaner.threads: the broker's own wins
        assert dynamic_by_confluent(cluster.bootstrap, third) == {
            "own": {}, "default": {"log.cleaner.threads": "3", "log.retention.ms": "86400000"}}
        assert dynamic_by_confluent(cluster.bootstrap, second)["own"] == {"log.cleaner.threads": "5"}

        cluster.clear_log()
        again = rows_of(provision(spec, admin, "apply", **scope))
        assert {v[:2] for v in again.values()} == {("unchanged", "unchanged"), ("reject", "rejected")}
        assert cluster.count(ApiKey.INCREMENTAL_ALTER_CONFIGS) == 0


def test_a_value_the_broker_refuses_fails_that_row_at_apply(spark: Any) -> None:
    with FakeCluster(brokers=1) as cluster, AdminClient(cluster.bootstrap) as admin:
        (node,) = cluster.node_ids
        spec = TenantSpec(broker_configs=spark.createDataFrame([
            (str(node), "log.cleaner.threads", "many"), ("default", "log.cleaner.threads", "2")], SCHEMA))
        got = rows_of(provision(spec, admin, "apply"))
        action, status, error = got[f"{node}:log.cleaner.threads"]
        assert (action, status) == ("create", "failed") and "INVALID" in (error or ""), error
        assert got["default:log.cleaner.threads"][:2] == ("create", "ok")
