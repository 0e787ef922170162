"""kadmin.spark.provision: what must never happen (a typo deleting a tenant's login, a dangling grant, a saved
plan that forgets its secrets, one bad row aborting a run) and what a lost answer must look like.

Real PySpark (the session ``spark`` fixture) against FakeCluster; each test keeps to as few provision runs as
its point needs (each run is several Spark jobs on shared 2-core machines).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pytest

from kadmin import AdminClient
from kadmin.errors import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing import FakeCluster
from tests.spark.test_spark_tenants import ACLS, QUOTAS, TOPICS, USERS, by_key, secrets, writes

pytestmark = pytest.mark.spark


@pytest.fixture
def kafka() -> Iterator[tuple[FakeCluster, AdminClient]]:
    with FakeCluster(brokers=1, authorizer={"super_users": ["User:ANONYMOUS"]}) as cluster, \
            AdminClient(cluster.bootstrap) as admin:
        yield cluster, admin


def test_a_typo_in_a_key_field_never_becomes_a_deletion(spark: Any, kafka: tuple[FakeCluster, AdminClient]) -> None:
    from kadmin.spark import TenantSpec, provision

    cluster, admin = kafka
    cluster.set_scram_password("t1", "pw")                       # t1's login, SCRAM-SHA-256
    cluster.add_acl("topic", "t1-", "User:t1", "read", "allow", pattern_type="prefixed")
    cluster.set_quota({"user": "t1"}, "producer_byte_rate", 100.0)
    cluster.set_scram_password("t9", "pw")                       # really unlisted: deleted
    spec = TenantSpec(
        scram_users=spark.createDataFrame([("t1", "SCRAM-SHA-265", None, "vault:t1")], USERS),
        acls=spark.createDataFrame([("User:t1", "*", "readd", "allow", "topic", "t1-", "prefixed")], ACLS),
        quotas=spark.createDataFrame([("t1", None, None, "producer_byte_rat", 5.0)], QUOTAS), secrets=secrets)
    rows = by_key(provision(spec, admin, "plan", scope=["principals=User:t"], remove_unlisted=True))
    for key in (("scram_users", "t1/SCRAM-SHA-256"), ("acls", "User:t1 ALLOW READ TOPIC:PREFIXED:t1- @*"),
                ("quotas", "user=t1/producer_byte_rate")):
        assert rows[key]["action"] == "reject" and rows[key]["status"] == "skipped", rows[key]
        assert "not deleted: the spec has a rejected row" in rows[key]["error"]
    assert rows[("scram_users", "t9/SCRAM-SHA-256")]["action"] == "delete"
    assert rows[("scram_users", "t1/SCRAM-SHA-265")]["status"] == "rejected"
    assert rows[("acls", "User:t1 ALLOW READD TOPIC:PREFIXED:t1- @*")]["status"] == "rejected"
    assert not writes(cluster)


def test_lost_answers_failed_revocations_and_resolver_errors(spark: Any, kafka: tuple[FakeCluster, AdminClient],
                                                             caplog: pytest.LogCaptureFixture) -> None:
    """One apply: a CreateTopics whose answer is lost (its configs share its status), a revocation that fails
    (the user and the literal topic it names are not deleted: no dangling grant), a resolver whose KeyError
    quotes a token (never in the results), a quota key kadmin does not know with allow_unknown_keys (sent)."""
    from kadmin.spark import TenantSpec, provision

    cluster, admin = kafka
    cluster.add_topic("t-gone", partitions=1)
    cluster.set_scram_password("t-old", "pw")
    cluster.add_acl("topic", "t-gone", "User:t-old", "read", "allow")
    token = "hvs.SECRET-TOKEN-123"

    def vault(ref: str) -> str:
        if ref == "vault:denied":
            raise KeyError(f"vault answered 403 for token {token}")
        return secrets(ref)

    spec = TenantSpec(
        topics=spark.createDataFrame([("t-new", 1, None, '{"retention.ms": "1000"}')], TOPICS),
        acls=spark.createDataFrame([], ACLS),
        scram_users=spark.createDataFrame([("t-a", None, None, "vault:a"), ("t-b", None, None, "vault:denied")],
                                          USERS),
        quotas=spark.createDataFrame([("t-a", None, None, "future_rate", 5.0)], QUOTAS), secrets=vault)
    cluster.drop_connection(None, ApiKey.CREATE_TOPICS, "after")
    cluster.inject(None, ApiKey.DELETE_ACLS, ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
    caplog.set_level(logging.DEBUG)
    res = by_key(provision(spec, admin, "apply", scope=["topics=t-", "principals=User:t-"], remove_unlisted=True,
                           allow_unknown_keys=True))
    assert res[("topics", "t-new")]["status"] == "possibly-applied"
    cfg = res[("topic_configs", "t-new:retention.ms")]
    assert cfg["status"] == "possibly-applied" and "answer was lost" in cfg["error"]
    assert res[("acls", "User:t-old ALLOW READ TOPIC:LITERAL:t-gone @*")]["status"] == "failed"
    for key in (("topics", "t-gone"), ("scram_users", "t-old/SCRAM-SHA-256")):
        assert res[key]["status"] == "skipped" and "revoking" in res[key]["error"], res[key]
    assert "t-gone" in cluster.topics and "t-old" in cluster.scram_users
    assert cluster.count(ApiKey.DELETE_TOPICS) == 0
    denied = res[("scram_users", "t-b/SCRAM-SHA-256")]
    assert denied["status"] == "failed" and "vault:denied" in denied["error"] and "KeyError" in denied["error"]
    assert not any(token in str(r) for r in res.values()) and token not in caplog.text
    assert cluster.count(ApiKey.ALTER_CLIENT_QUOTAS) == 1  # sent: the broker decides about the key
    assert res[("quotas", "user=t-a/future_rate")]["status"] != "failed" or \
        "allow_unknown_keys" not in res[("quotas", "user=t-a/future_rate")]["error"]


def test_a_saved_plan_without_secrets_and_bad_rows_of_a_hand_edited_plan(
        spark: Any, kafka: tuple[FakeCluster, AdminClient]) -> None:
    from kadmin.spark import SpecError, provision
    from kadmin.spark.plan import plan_schema

    cluster, admin = kafka

    def row(kind: str, key: str, **args: str) -> tuple[Any, ...]:
        return (kind, key, "create", None, None, "planned", None, args)

    users = spark.createDataFrame([row("scram_users", "u/SCRAM-SHA-256", user="u", mechanism="SCRAM-SHA-256",
                                       iterations="4096", password_ref="vault:u")], plan_schema())
    with pytest.raises(SpecError, match="secrets"):
        provision(users, admin, "apply")
    assert writes(cluster) == []

    quotas = spark.createDataFrame(
        [row("quotas", f"user={u}/producer_byte_rate", user=u, quota_key="producer_byte_rate", value=v)
         for u, v in (("q1", "abc"), ("q2", "-5"), ("q3", "10"))], plan_schema())
    res = by_key(provision(quotas, admin, "apply"))
    assert res[("quotas", "user=q1/producer_byte_rate")]["status"] == "failed"
    assert "negative" in res[("quotas", "user=q2/producer_byte_rate")]["error"]
    assert res[("quotas", "user=q3/producer_byte_rate")]["status"] == "ok"
    assert list(cluster.quotas.values()) == [{"producer_byte_rate": 10.0}]


def test_batch_options_are_checked_before_the_cluster_is_read(spark: Any,
                                                              kafka: tuple[FakeCluster, AdminClient]) -> None:
    from kadmin.spark import TenantSpec, provision

    cluster, admin = kafka
    spec = TenantSpec(acls=spark.createDataFrame([("User:a", "*", "read", "allow", "topic", "t", "literal")], ACLS))
    for bad in ({"batch_size": 0}, {"max_concurrency": 0}, {"batch_size": True}):
        with pytest.raises(ValueError, match="positive int"):
            provision(spec, admin, "apply", **bad)
    # the client's own start-up (ApiVersions, cluster metadata) aside, nothing was asked: the ACLs were not read
    assert {e.api_key for e in cluster.request_log} <= {ApiKey.API_VERSIONS, ApiKey.METADATA, ApiKey.DESCRIBE_CLUSTER}
