"""A rejected or failed owner skips its dependents: a SCRAM user whose row is rejected gets none of its grants.

Real PySpark (the session ``spark`` fixture) against FakeCluster; the request log is the witness that nothing
of the rejected user was sent.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from kadmin import AdminClient
from kadmin.protocol.apis import ApiKey
from kadmin.testing import FakeCluster
from tests.spark.test_spark_tenants import ACLS, USERS, by_key, secrets

pytestmark = pytest.mark.spark


@pytest.fixture
def kafka() -> Iterator[tuple[FakeCluster, AdminClient]]:
    with FakeCluster(brokers=1, authorizer={"super_users": ["User:ANONYMOUS"]}) as cluster, \
            AdminClient(cluster.bootstrap) as admin:
        yield cluster, admin


def test_a_rejected_scram_user_gets_none_of_its_grants(spark: Any, kafka: tuple[FakeCluster, AdminClient]) -> None:
    from kadmin.spark import TenantSpec, provision

    cluster, admin = kafka
    spec = TenantSpec(
        scram_users=spark.createDataFrame([("t-ok", None, None, "vault:ok"), ("t-bad", None, 100, "vault:bad")],
                                          USERS),
        acls=spark.createDataFrame([
            ("User:t-ok", "*", "read", "allow", "topic", "t-ok-", "prefixed"),
            ("User:t-ok", "*", "write", "allow", "topic", "t-ok-", "prefixed"),
            ("User:t-bad", "*", "read", "allow", "topic", "t-bad-", "prefixed"),
            ("User:t-bad", "*", "describe", "allow", "group", "t-bad-", "prefixed"),
        ], ACLS), secrets=secrets)
    plan = by_key(provision(spec, admin, "plan"))
    bad_grants = [k for k in plan if k[0] == "acls" and "User:t-bad" in k[1]]
    assert len(bad_grants) == 2
    for key in bad_grants:
        assert plan[key]["status"] == "skipped" and "t-bad" in plan[key]["error"], plan[key]
        assert "iterations" in plan[key]["error"], plan[key]

    res = by_key(provision(spec, admin, "apply"))
    assert res[("scram_users", "t-bad/SCRAM-SHA-256")]["status"] == "rejected"
    for key in bad_grants:
        row = res[key]
        assert row["action"] == "reject" and row["status"] == "skipped", row
        assert "SCRAM user t-bad" in row["error"] and "iterations must be between" in row["error"], row
    others = {k: r["status"] for k, r in res.items() if k not in bad_grants and k[1] != "t-bad/SCRAM-SHA-256"}
    assert len(others) == 3 and set(others.values()) == {"ok"}, others
    sent = [k for e in cluster.request_log if e.api_key in (ApiKey.CREATE_ACLS, ApiKey.ALTER_USER_SCRAM_CREDENTIALS)
            for k in e.keys]
    assert sent and not [k for k in sent if "t-bad" in k], sent
    assert sum(1 for k in sent if "User:t-ok" in k) == 2
    assert "t-bad" not in cluster.scram_users and "t-ok" in cluster.scram_users
    assert not [a for a in cluster.acls if "t-bad" in a.principal]
