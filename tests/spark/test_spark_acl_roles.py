"""The ``acl_roles`` kind: a role row expands to the bindings kafka-acls.sh's ``--producer``/``--consumer`` make.

Real PySpark (the session ``spark`` fixture) against FakeCluster.  The witness of "the same bindings as the CLI"
is confluent-kafka's describe_acls (librdkafka), reading what ``kadmin acls create --producer ...`` made and,
after the cluster's ACLs are cleared, what the provisioning of the same roles made.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import confluent_kafka.admin
import pytest

from kadmin import AdminClient
from kadmin.protocol.apis import ApiKey
from kadmin.testing import FakeCluster
from tests.spark.test_spark_tenants import ACLS, USERS, by_key, secrets
from tests.support.cli import run_main

pytestmark = pytest.mark.spark
ck: Any = confluent_kafka.admin

ROLES = ("principal string, role string, topic string, pattern_type string, `group` string, "
         "transactional_id string, idempotent string, host string")
#: (role row, the kadmin acls create flags that make the same bindings)
CASES = [
    (("User:svc-x", "producer", "orders-", "prefixed", None, "tx-", "true", None),
     ["--producer", "--topic", "orders-", "--transactional-id", "tx-", "--idempotent",
      "--resource-pattern-type", "prefixed", "--allow-principal", "User:svc-x"]),
    (("User:svc-x", "consumer", "events", None, "billing", None, None, None),
     ["--consumer", "--topic", "events", "--group", "billing", "--allow-principal", "User:svc-x"]),
    (("User:svc-y", "Producer", "logs", "LITERAL", None, None, "false", "10.0.0.7"),
     ["--producer", "--topic", "logs", "--allow-principal", "User:svc-y", "--allow-host", "10.0.0.7"]),
    (("User:svc-y", "consumer", "in-", "prefixed", "svc-y-", None, "", None),
     ["--consumer", "--topic", "in-", "--group", "svc-y-", "--resource-pattern-type", "prefixed",
      "--allow-principal", "User:svc-y"]),
]


@pytest.fixture
def kafka() -> Iterator[tuple[FakeCluster, AdminClient]]:
    with FakeCluster(brokers=1, authorizer={"super_users": ["User:ANONYMOUS"]}) as cluster, \
            AdminClient(cluster.bootstrap) as admin:
        yield cluster, admin


def seen_by_confluent(bootstrap: str) -> set[tuple[str, ...]]:
    c = ck.AdminClient({"bootstrap.servers": bootstrap, "log_level": 0})
    flt = ck.AclBindingFilter(ck.ResourceType.ANY, None, ck.ResourcePatternType.ANY, None, None,
                              ck.AclOperation.ANY, ck.AclPermissionType.ANY)
    return {(a.principal, a.host, a.operation.name, a.permission_type.name, a.restype.name, a.name,
             a.resource_pattern_type.name) for a in c.describe_acls(flt).result(10)}


def roles(spark: Any, rows: list[tuple[Any, ...]]) -> Any:
    return spark.createDataFrame(rows, ROLES)


def test_roles_make_exactly_the_bindings_of_the_cli_shortcuts(spark: Any,
                                                              kafka: tuple[FakeCluster, AdminClient]) -> None:
    from kadmin.spark import TenantSpec, provision

    cluster, admin = kafka
    for _, flags in CASES:
        r = run_main("-b", cluster.bootstrap, "acls", "create", *flags)
        assert r.code == 0, r.err
    by_cli = seen_by_confluent(cluster.bootstrap)
    assert len(by_cli) == 6 + 3 + 3 + 3, by_cli  # producer+txn+idempotent, consumer, producer, consumer
    cluster.clear_acls()

    spec = TenantSpec(acl_roles=roles(spark, [row for row, _ in CASES]))
    plan = by_key(provision(spec, admin, "plan"))
    assert {k[0] for k in plan} == {"acl_roles"} and len(plan) == len(by_cli)
    assert {r["action"] for r in plan.values()} == {"create"}
    idem = [r for k, r in plan.items() if "IDEMPOTENT_WRITE" in k[1]]
    assert len(idem) == 1 and idem[0]["new_value"] == (
        "present (role User:svc-x producer topic=orders- transactional_id=tx- idempotent prefixed)")
    hosted = [r for k, r in plan.items() if k[1].endswith("@10.0.0.7")]
    assert len(hosted) == 3 and all("host=10.0.0.7" in r["new_value"] for r in hosted)

    before = len(cluster.request_log)
    res = by_key(provision(spec, admin, "apply"))
    assert {r["status"] for r in res.values()} == {"ok"}, res
    assert seen_by_confluent(cluster.bootstrap) == by_cli
    creates = [e for e in cluster.request_log[before:] if e.api_key == ApiKey.CREATE_ACLS]
    assert len(creates) == 1  # the roles' bindings go in the acls kind's batched calls: ceil(15 / 1000)

    again = provision(spec, admin, "plan")
    assert again.filter("action != 'unchanged'").count() == 0


def test_a_binding_listed_by_acls_and_a_role_is_one_binding_and_deletions_spare_both(
        spark: Any, kafka: tuple[FakeCluster, AdminClient]) -> None:
    from kadmin.acls import AclBinding
    from kadmin.spark import TenantSpec, provision

    cluster, admin = kafka
    admin.create_acls([AclBinding.of("TOPIC", "events", "User:svc-x", "ALTER", "ALLOW"),  # unlisted: revoked
                       AclBinding.of("TOPIC", "events", "User:other", "ALTER", "ALLOW")])  # out of scope
    role_rows = roles(spark, [CASES[1][0]])
    shared = ("User:svc-x", "*", "read", "allow", "topic", "events", "literal")
    spec = TenantSpec(acls=spark.createDataFrame([shared], ACLS), acl_roles=role_rows)
    scope = ["principals=User:svc-"]
    plan = by_key(provision(spec, admin, "plan", scope=scope, remove_unlisted=True))
    read_key = "User:svc-x ALLOW READ TOPIC:LITERAL:events @*"
    assert plan[("acls", read_key)]["action"] == "create"
    assert ("acl_roles", read_key) not in plan  # one binding: planned as the acls row
    assert sorted(k for k in plan if k[0] == "acl_roles") == [
        ("acl_roles", "User:svc-x ALLOW DESCRIBE TOPIC:LITERAL:events @*"),
        ("acl_roles", "User:svc-x ALLOW READ GROUP:LITERAL:billing @*")]
    deleted = [k for k, r in plan.items() if r["action"] == "delete"]
    assert deleted == [("acls", "User:svc-x ALLOW ALTER TOPIC:LITERAL:events @*")]  # once, by the acls kind

    res = by_key(provision(spec, admin, "apply", scope=scope, remove_unlisted=True))
    assert {r["status"] for r in res.values()} == {"ok"}, res
    assert {(a.principal, a.operation, a.name) for a in cluster.acls} == {
        ("User:svc-x", "READ", "events"), ("User:svc-x", "DESCRIBE", "events"), ("User:svc-x", "READ", "billing"),
        ("User:other", "ALTER", "events")}

    # Only the roles now, deleting within the scope: the binding the acls row made is the role's too, kept.
    admin.create_acls([AclBinding.of("GROUP", "old", "User:svc-x", "READ", "ALLOW")])
    alone = TenantSpec(acl_roles=role_rows)
    plan = by_key(provision(alone, admin, "plan", scope=scope, remove_unlisted=True))
    assert [k for k, r in plan.items() if r["action"] != "unchanged"] == [
        ("acl_roles", "User:svc-x ALLOW READ GROUP:LITERAL:old @*")]
    assert plan[("acl_roles", "User:svc-x ALLOW READ GROUP:LITERAL:old @*")]["action"] == "delete"
    provision(alone, admin, "apply", scope=scope, remove_unlisted=True)
    assert provision(alone, admin, "plan", scope=scope, remove_unlisted=True).filter(
        "action != 'unchanged'").count() == 0
    assert {(a.principal, a.operation, a.name) for a in cluster.acls} == {
        ("User:svc-x", "READ", "events"), ("User:svc-x", "DESCRIBE", "events"), ("User:svc-x", "READ", "billing"),
        ("User:other", "ALTER", "events")}


def test_a_rejected_owner_skips_its_roles_and_a_bad_role_row_is_rejected_alone(
        spark: Any, kafka: tuple[FakeCluster, AdminClient]) -> None:
    from kadmin.spark import TenantSpec, provision

    cluster, admin = kafka
    spec = TenantSpec(
        scram_users=spark.createDataFrame([("t-ok", None, None, "vault:ok"), ("t-bad", None, 100, "vault:bad")],
                                          USERS),
        acl_roles=roles(spark, [
            ("User:t-ok", "producer", "t-ok-", "prefixed", None, None, None, None),
            ("User:t-bad", "consumer", "t-bad-", "prefixed", "t-bad-", None, None, None),
            ("User:t-ok", "consumer", "t-ok-in", None, None, None, None, None),  # no group
            ("User:t-ok", "reader", "t-ok-x", None, None, None, "maybe", None),
        ]), secrets=secrets)
    res = by_key(provision(spec, admin, "apply"))
    bad = {k: r for k, r in res.items() if k[0] == "acl_roles" and k[1].startswith("User:t-bad")}
    assert len(bad) == 3, bad  # its role's three grants (READ, DESCRIBE on the topics, READ on the group)
    for r in bad.values():
        assert r["status"] == "skipped" and "SCRAM user t-bad" in r["error"] and "iterations" in r["error"], r
    refused = {k[1]: r for k, r in res.items() if r["status"] == "rejected" and k[0] == "acl_roles"}
    assert refused == {
        "User:t-ok consumer topic=t-ok-in": refused["User:t-ok consumer topic=t-ok-in"],
        "User:t-ok reader topic=t-ok-x": refused["User:t-ok reader topic=t-ok-x"]}, refused
    assert "needs a group" in refused["User:t-ok consumer topic=t-ok-in"]["error"]
    why = refused["User:t-ok reader topic=t-ok-x"]["error"]
    assert "unknown role 'reader'" in why and "idempotent must be true or false, not 'maybe'" in why
    ok = {k for k, r in res.items() if k[0] == "acl_roles" and r["status"] == "ok"}
    assert len(ok) == 3 and all(k[1].startswith("User:t-ok ALLOW") for k in ok), ok
    assert {(a.principal, a.name) for a in cluster.acls} == {("User:t-ok", "t-ok-")}
    sent = [k for e in cluster.request_log if e.api_key == ApiKey.CREATE_ACLS for k in e.keys]
    assert sent and not [k for k in sent if "t-bad" in k], sent


def test_a_policy_checks_the_bindings_a_role_expands_to(spark: Any, kafka: tuple[FakeCluster, AdminClient]) -> None:
    """A role may not grant what the policy forbids an acls row: the idempotent producer's cluster grant and the
    short prefixed grants are rejected by name, the role's other bindings are planned, and nothing is sent."""
    from kadmin.spark import TenantSpec, provision

    cluster, admin = kafka
    policy = {"rules": [{"name": "no-cluster", "kind": "forbidden_acls", "resource_types": ["CLUSTER"]},
                        {"name": "long-prefix", "kind": "min_prefixed_length", "min": 4}]}
    spec = TenantSpec(acl_roles=roles(spark, [("User:svc-x", "producer", "ord-", "prefixed", None, "tx-", "true",
                                               None)]))
    plan = by_key(provision(spec, admin, "plan", policy=policy))
    rejected = {k[1]: r["error"] for k, r in plan.items() if r["status"] == "rejected"}
    assert set(rejected) == {"User:svc-x ALLOW IDEMPOTENT_WRITE CLUSTER:LITERAL:kafka-cluster @*",
                             "User:svc-x ALLOW WRITE TRANSACTIONAL_ID:PREFIXED:tx- @*",
                             "User:svc-x ALLOW DESCRIBE TRANSACTIONAL_ID:PREFIXED:tx- @*"}, rejected
    assert rejected["User:svc-x ALLOW IDEMPOTENT_WRITE CLUSTER:LITERAL:kafka-cluster @*"].startswith(
        "policy rule 'no-cluster' ")
    assert all(e.startswith("policy rule 'long-prefix' ") for k, e in rejected.items() if "tx-" in k)
    planned = sorted(k[1] for k, r in plan.items() if r["status"] == "planned")
    assert planned == [f"User:svc-x ALLOW {op} TOPIC:PREFIXED:ord- @*" for op in ("CREATE", "DESCRIBE", "WRITE")]
    assert not [e for e in cluster.request_log if e.api_key == ApiKey.CREATE_ACLS]
