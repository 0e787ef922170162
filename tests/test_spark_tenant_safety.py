"""kadmin.spark.provision: what must never happen (a typo deleting a tenant's login, a dangling grant, a saved
plan that forgets its secrets, one bad row aborting a run) and what a lost answer must look like.

Real PySpark (the session ``spark`` fixture) against FakeCluster; each test keeps to as few provision runs as
its point needs (each run is several Spark jobs on shared 2-core machines).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from test_spark_tenants import ACLS, QUOTAS, USERS, by_key, secrets, writes

from kadmin import AdminClient
from kadmin.testing import FakeCluster

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
