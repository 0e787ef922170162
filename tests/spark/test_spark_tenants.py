"""kadmin.spark.provision end to end: real PySpark (the session ``spark`` fixture) against FakeCluster.

Each provision run costs several Spark jobs (seconds on the shared 2-core machines), so each test proves one
theme with as few runs as it takes: plan/validate/apply/re-run/drift for every kind; the dependency order under
injected failures; scope and remove_unlisted from the fake's request log; secrets nowhere.
"""

from __future__ import annotations

import logging
import math
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kadmin import AdminClient
from kadmin.errors import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.quotas import ClientQuotaEntity
from kadmin.testing import FakeCluster

SECRET = "Tr0ub4dor&3-not-in-any-frame"
WRITES = {ApiKey.CREATE_TOPICS, ApiKey.DELETE_TOPICS, ApiKey.CREATE_PARTITIONS, ApiKey.INCREMENTAL_ALTER_CONFIGS,
          ApiKey.ALTER_CONFIGS, ApiKey.CREATE_ACLS, ApiKey.DELETE_ACLS, ApiKey.ALTER_USER_SCRAM_CREDENTIALS,
          ApiKey.ALTER_CLIENT_QUOTAS, ApiKey.ALTER_PARTITION_REASSIGNMENTS}
TOPICS = "name string, partitions int, replication_factor int, configs string"
CONFIGS = "topic string, config string, value string"
ACLS = ("principal string, host string, operation string, permission string, resource_type string, "
        "resource_name string, pattern_type string")
USERS = "user string, mechanism string, iterations int, password_ref string"
QUOTAS = "user string, client_id string, ip string, quota_key string, value double"


pytestmark = pytest.mark.spark
#: Set by test_provisioning_on_spark_connect for the child run: the same tests on a Spark Connect session.
CONNECT = os.environ.get("KADMIN_TEST_SPARK_CONNECT") == "1"


@pytest.fixture
def kafka() -> Iterator[tuple[FakeCluster, AdminClient]]:
    with FakeCluster(brokers=3, authorizer={"super_users": ["User:ANONYMOUS"]}) as cluster, \
            AdminClient(cluster.bootstrap) as admin:
        yield cluster, admin


def secrets(ref: str) -> str:
    if ref.startswith("vault:"):
        return SECRET + ref[6:]
    raise KeyError(f"no secret named {ref!r}")


def writes(cluster: FakeCluster) -> list[Any]:
    return [e for e in cluster.request_log if e.api_key in WRITES]


def by_key(df: Any) -> dict[tuple[str, str], dict[str, Any]]:
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for r in df.collect():
        k = (r["kind"], r["key"])
        assert k not in out, f"two rows for {k}"
        out[k] = r.asDict()
    return out


def acl_keys(cluster: FakeCluster) -> set[str]:
    return {f"{a.principal} {a.operation} {a.resource_type}:{a.name}" for a in _acls(cluster)}


def _acls(cluster: FakeCluster) -> list[Any]:
    return list(cluster.acls)


def spec_for(spark: Any, tenants: list[str], **extra: Any) -> Any:
    from kadmin.spark import TenantSpec

    return TenantSpec(
        topics=spark.createDataFrame(
            [(f"{t}-events", 2, 1, '{"retention.ms": "3600000"}') for t in tenants], TOPICS),
        topic_configs=spark.createDataFrame([(f"{t}-events", "cleanup.policy", "delete") for t in tenants], CONFIGS),
        acls=spark.createDataFrame(
            [(f"User:{t}", "*", op, "allow", "topic", f"{t}-", "prefixed") for t in tenants for op in ("read", "write")]
            + [(f"User:{t}", None, "read", None, "group", f"{t}-", "prefixed") for t in tenants], ACLS),
        scram_users=spark.createDataFrame([(t, None, None, f"vault:{t}") for t in tenants], USERS),
        quotas=spark.createDataFrame([(t, None, None, "producer_byte_rate", 1048576.0) for t in tenants], QUOTAS),
        secrets=secrets, **extra)


def test_plan_validate_apply_rerun_and_drift(tspark: Any, kafka: tuple[FakeCluster, AdminClient],
                                             tmp_path: Path) -> None:
    spark = tspark
    from kadmin.spark import TENANT_RESULT_COLUMNS, drift, provision

    cluster, admin = kafka
    cluster.add_topic("a-events", partitions=1)          # exists: grows to 2, gets its configs
    cluster.set_topic_config("a-events", "retention.ms", "1000")
    cluster.add_topic("c-events", partitions=4)          # the spec asks for 2: a shrink is rejected
    spec = spec_for(spark, ["a", "b"])
    spec.topics = spec.topics.unionByName(spark.createDataFrame([("c-events", 2, None, None)], TOPICS))

    plan = provision(spec, admin, "plan")
    rows = by_key(plan)
    assert not writes(cluster)
    assert rows[("topics", "a-events")]["action"] == "alter"
    assert rows[("topics", "b-events")]["action"] == "create"
    assert rows[("topics", "c-events")]["action"] == "reject"
    assert "partitions can only grow" in rows[("topics", "c-events")]["error"]
    assert rows[("topic_configs", "a-events:retention.ms")]["action"] == "alter"
    assert rows[("topic_configs", "a-events:retention.ms")]["old_value"] == "1000"
    assert rows[("topic_configs", "b-events:cleanup.policy")]["args"]["via"] == "topic"
    assert {r["action"] for (k, _), r in rows.items() if k in ("acls", "scram_users", "quotas")} == {"create"}
    assert len([k for k in rows if k[0] == "acls"]) == 6

    # Validate: brokers check with validate_only; the cluster does not change.
    before = (dict(cluster.topics), cluster.scram_users, acl_keys(cluster), dict(cluster.quotas))
    validated = by_key(provision(spec, admin, "validate", secrets=secrets))
    assert {r["status"] for r in validated.values()} == {"validated", "rejected"}
    assert (dict(cluster.topics), cluster.scram_users, acl_keys(cluster), dict(cluster.quotas)) == before
    assert cluster.count(ApiKey.CREATE_TOPICS) == 1 and cluster.count(ApiKey.CREATE_ACLS) == 0

    # Apply the saved plan (Parquet round trip), 2 entities per request.
    plan.write.parquet(str(tmp_path / "plan"))
    cluster.clear_log()
    results = provision(spark.read.parquet(str(tmp_path / "plan")), admin, "apply", secrets=secrets, batch_size=2)
    assert tuple(results.columns) == TENANT_RESULT_COLUMNS
    res = by_key(results)
    assert {r["status"] for r in res.values()} == {"ok", "rejected"}
    assert cluster.count(ApiKey.CREATE_ACLS) == math.ceil(6 / 2)
    assert cluster.count(ApiKey.ALTER_USER_SCRAM_CREDENTIALS) == 1
    assert cluster.count(ApiKey.ALTER_CLIENT_QUOTAS) == 1
    assert len(cluster.topics["a-events"]) == 2 and len(cluster.topics["b-events"]) == 2
    assert cluster.topic_configs("b-events") == {"retention.ms": "3600000", "cleanup.policy": "delete"}
    assert cluster.topic_configs("a-events")["retention.ms"] == "3600000"
    assert set(cluster.scram_users) == {"a", "b"}
    assert len(acl_keys(cluster)) == 6
    assert {ClientQuotaEntity(e): v for e, v in cluster.quotas.items()} == {
        ClientQuotaEntity({"user": u}): {"producer_byte_rate": 1048576.0} for u in ("a", "b")}
    # the order: users before the ACLs naming them, topics before their configs, quotas last
    order = [e.api_key for e in writes(cluster)]
    assert order.index(ApiKey.ALTER_USER_SCRAM_CREDENTIALS) < order.index(ApiKey.CREATE_ACLS)
    assert order.index(ApiKey.CREATE_TOPICS) < order.index(ApiKey.INCREMENTAL_ALTER_CONFIGS)
    assert order[-1] == ApiKey.ALTER_CLIENT_QUOTAS

    # Re-run: no write at all.
    cluster.clear_log()
    again = by_key(provision(spec, admin, "apply", secrets=secrets))
    assert writes(cluster) == []
    assert {r["status"] for r in again.values()} == {"unchanged", "rejected"}

    # Drift: changes made by hand are exactly what the plan lists.
    cluster.set_topic_config("b-events", "cleanup.policy", "compact")
    cluster.delete_scram_credential("b")
    cluster.set_quota({"user": "a"}, "producer_byte_rate", 5.0)
    changed = {(r["kind"], r["key"], r["action"]) for r in drift(provision(spec, admin, "plan")).collect()}
    assert changed == {("topic_configs", "b-events:cleanup.policy", "alter"),
                       ("scram_users", "b/SCRAM-SHA-256", "create"),
                       ("quotas", "user=a/producer_byte_rate", "alter"),
                       ("topics", "c-events", "reject")}


def test_a_failure_skips_only_its_dependents(tspark: Any, kafka: tuple[FakeCluster, AdminClient]) -> None:
    spark = tspark
    from kadmin.spark import provision

    cluster, admin = kafka
    spec = spec_for(spark, ["a", "b"])
    spec.acls = spec.acls.unionByName(spark.createDataFrame(
        [("User:ext", "*", "read", "allow", "topic", "a-events", "literal")], ACLS))
    # One entity per request: the first SCRAM request (user a) and the first CreateTopics (a-events) fail.
    cluster.inject(None, ApiKey.ALTER_USER_SCRAM_CREDENTIALS, ErrorCode.UNACCEPTABLE_CREDENTIAL)
    cluster.inject(None, ApiKey.CREATE_TOPICS, ErrorCode.POLICY_VIOLATION)
    res = by_key(provision(spec, admin, "apply", secrets=secrets, batch_size=1))
    assert res[("scram_users", "a/SCRAM-SHA-256")]["status"] == "failed"
    assert res[("topics", "a-events")]["status"] == "failed"
    a_acls = [r for (k, key), r in res.items() if k == "acls" and key.startswith("User:a ")]
    assert a_acls and {r["status"] for r in a_acls} == {"skipped"}
    assert all("SCRAM user a was not created" in r["error"] for r in a_acls)
    ext = res[("acls", "User:ext ALLOW READ TOPIC:LITERAL:a-events @*")]
    assert ext["status"] == "skipped" and "topic a-events was not created" in ext["error"]
    assert {r["status"] for (k, key), r in res.items() if key.startswith("a-events:")} == {"skipped"}
    # b is untouched by a's failures; quotas (not dependent on the user) still go through for both
    assert {r["status"] for (k, key), r in res.items() if key.startswith(("User:b ", "b-", "b/"))} == {"ok"}
    assert res[("quotas", "user=a/producer_byte_rate")]["status"] == "ok"
    assert set(cluster.scram_users) == {"b"} and "a-events" not in cluster.topics
    assert not any(a.principal == "User:a" for a in _acls(cluster))
    # The next run converges: exactly what failed or was skipped is sent again.
    cluster.clear_log()
    res2 = by_key(provision(spec, admin, "apply", secrets=secrets))
    assert {r["status"] for (k, key), r in res2.items() if key.startswith(("User:a ", "a-", "a/", "User:ext"))} \
        == {"ok"}
    assert cluster.count(ApiKey.ALTER_USER_SCRAM_CREDENTIALS) == 1 and set(cluster.scram_users) == {"a", "b"}


def test_scope_and_remove_unlisted_touch_nothing_outside(tspark: Any, kafka: tuple[FakeCluster, AdminClient]) -> None:
    spark = tspark
    from kadmin.spark import SpecError, provision

    cluster, admin = kafka
    for t in ("t-keep", "t-gone", "other-topic"):
        cluster.add_topic(t, partitions=1)
    cluster.set_topic_config("t-keep", "segment.ms", "1000")
    cluster.set_topic_config("other-topic", "segment.ms", "1000")
    cluster.set_scram_password("t-old", "pw")
    cluster.set_scram_password("outsider", "pw")
    cluster.add_acl("topic", "t-keep", "User:t-old", "read", "allow")
    cluster.add_acl("topic", "other-topic", "User:outsider", "read", "allow")
    cluster.set_quota({"user": "t-old"}, "consumer_byte_rate", 10.0)
    cluster.set_quota({"user": "outsider"}, "consumer_byte_rate", 10.0)
    from kadmin.spark import TenantSpec

    spec = TenantSpec(
        topics=spark.createDataFrame([("t-keep", 1, None, None)], TOPICS),
        topic_configs=spark.createDataFrame([], CONFIGS),
        acls=spark.createDataFrame([("User:t-new", "*", "read", "allow", "topic", "t-keep", "literal")], ACLS),
        scram_users=spark.createDataFrame([("t-new", None, None, "vault:x")], USERS),
        quotas=spark.createDataFrame([("t-new", None, None, "consumer_byte_rate", 1.0)], QUOTAS),
        secrets=secrets)

    cluster.clear_log()
    with pytest.raises(SpecError, match="explicit scope"):
        provision(spec, admin, "plan", remove_unlisted=True)
    assert cluster.request_log == []

    res = by_key(provision(spec, admin, "apply", scope=["topics=t-", "principals=User:t-"], remove_unlisted=True))
    deleted = {(k, key) for (k, key), r in res.items() if r["action"] == "delete"}
    assert deleted == {("topics", "t-gone"), ("topic_configs", "t-keep:segment.ms"),
                       ("acls", "User:t-old ALLOW READ TOPIC:LITERAL:t-keep @*"),
                       ("scram_users", "t-old/SCRAM-SHA-256"), ("quotas", "user=t-old/consumer_byte_rate")}
    assert all(res[k]["status"] == "ok" for k in deleted)
    for entry in writes(cluster):  # no write request names anything outside the scope
        assert not any("outsider" in k or "other-topic" in k for k in entry.keys), entry
    assert "other-topic" in cluster.topics and cluster.topic_configs("other-topic") == {"segment.ms": "1000"}
    assert "outsider" in cluster.scram_users and "t-old" not in cluster.scram_users
    assert any(a.principal == "User:outsider" for a in _acls(cluster))
    assert (set(map(ClientQuotaEntity, cluster.quotas))
            == {ClientQuotaEntity({"user": u}) for u in ("outsider", "t-new")})

    # A scope limited to ACLs deletes ACLs only, even with everything else unlisted.
    cluster.add_topic("t-extra", partitions=1)
    cluster.add_acl("group", "g", "User:t-x", "read", "allow")
    cluster.clear_log()
    res = by_key(provision(spec, admin, "apply", scope={"topics": ["t-"], "principals": ["User:t-"],
                                                        "kinds": ["acls"]}, remove_unlisted=True))
    assert {key for (k, key), r in res.items() if r["action"] == "delete"} == {
        "User:t-x ALLOW READ GROUP:LITERAL:g @*"}
    assert [e.api_key for e in writes(cluster)] == [ApiKey.DELETE_ACLS] and "t-extra" in cluster.topics


def test_secrets_never_in_plan_results_or_logs(tspark: Any, kafka: tuple[FakeCluster, AdminClient],
                                               caplog: pytest.LogCaptureFixture) -> None:
    spark = tspark
    from kadmin.spark import SpecError, TenantSpec, provision

    cluster, admin = kafka
    with pytest.raises(SpecError, match="password_ref"):
        provision(TenantSpec(scram_users=spark.createDataFrame([("u", SECRET)], "user string, password string")),
                  admin, "plan")

    def leaky(ref: str) -> str:
        if ref == "vault:broken":
            raise RuntimeError(f"vault said: the value is {SECRET}")
        return secrets(ref)

    spec = TenantSpec(scram_users=spark.createDataFrame(
        [("ok-user", "sha-512", 8192, "vault:1"), ("broken", None, None, "vault:broken"),
         ("missing", None, None, "nowhere")], USERS), secrets=leaky)
    caplog.set_level(logging.DEBUG)
    plan = provision(spec, admin, "plan")
    results = provision(plan, admin, "apply", secrets=leaky)
    texts = [str(r.asDict()) for r in plan.collect()] + [str(r.asDict()) for r in results.collect()]
    texts.append(caplog.text)
    assert not any(SECRET in t for t in texts)
    res = by_key(results)
    assert res[("scram_users", "ok-user/SCRAM-SHA-512")]["status"] == "ok"
    assert res[("scram_users", "broken/SCRAM-SHA-256")]["status"] == "failed"
    assert "vault:broken" in res[("scram_users", "broken/SCRAM-SHA-256")]["error"]
    assert "nowhere" in res[("scram_users", "missing/SCRAM-SHA-256")]["error"]
    assert cluster.scram_users == {"ok-user": {"SCRAM-SHA-512": 8192}}


@pytest.mark.skipif(CONNECT, reason="this is the launcher of the Connect run")
def test_provisioning_on_spark_connect(tmp_path: Path) -> None:
    """The docs promise that kadmin.spark runs on Spark Connect too: the plan/validate/apply/re-run/drift test
    and the secrets test again, in a child process whose session is ``SparkSession.builder.remote("local[2]")``
    (PySpark starts a local Connect server; the pyspark[connect] extra, in the test extra), and the
    groups_offsets kind's plan/validate/apply/re-run/drift test (tests/spark/test_spark_tenant_groups.py): one child
    run, so one Connect server start (about a minute), on an ephemeral port (SPARK_TESTING)."""
    env = {**os.environ, "KADMIN_TEST_SPARK_CONNECT": "1", "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_TESTING": "1"}
    groups = Path(__file__).with_name("test_spark_tenant_groups.py")
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", __file__, str(groups), "-k",
         "plan_validate_apply_rerun_and_drift or secrets_never or groups_offsets_plan_apply_rerun_and_drift"],
        env=env, cwd=str(Path(__file__).resolve().parents[2]), capture_output=True, text=True, timeout=900)
    tail = proc.stdout[-3000:]
    assert proc.returncode == 0, tail
    assert "3 passed" in tail, tail
