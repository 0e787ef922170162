"""Policies checked at plan time (kadmin.spark.policy): real PySpark (the session ``spark`` fixture) against
FakeCluster.

One test per rule kind: a row breaking the rule is ``rejected`` with the rule's name and what it broke, the
rows that conform (or that the rule's prefixes leave out) are planned as without a policy.  Then: no policy
changes nothing; a topic rejected by a policy takes its configs and grants with it, and nothing of it is sent;
the CLI's --validate reports every violation of the docs' sample policy.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from kadmin import AdminClient
from kadmin.cli.main import main
from kadmin.protocol.apis import ApiKey
from kadmin.testing import FakeCluster
from tests.spark.test_spark_tenants import ACLS, CONFIGS, QUOTAS, TOPICS, USERS, by_key, secrets

pytestmark = pytest.mark.spark


@pytest.fixture
def kafka() -> Iterator[tuple[FakeCluster, AdminClient]]:
    with FakeCluster(brokers=3, authorizer={"super_users": ["User:ANONYMOUS"]}) as cluster, \
            AdminClient(cluster.bootstrap) as admin:
        yield cluster, admin


def acl(principal: str, op: str, rtype: str, name: str, pattern: str = "LITERAL",
        perm: str = "ALLOW") -> tuple[str, ...]:
    return (principal, "*", op, perm, rtype, name, pattern)


def acl_key(principal: str, op: str, rtype: str, name: str, pattern: str = "LITERAL", perm: str = "ALLOW") -> str:
    return f"{principal} {perm} {op} {rtype}:{pattern}:{name} @*"


@dataclass(frozen=True)
class Case:
    """A rule, the spec rows ({kind: rows}), the keys it rejects ({(kind, key): the reason's text after the
    rule's name}), the keys planned as usual ({(kind, key): action}) and the dependents of a rejected row,
    skipped ({(kind, key): the reason's text})."""

    rule: dict[str, Any]
    rows: dict[str, list[tuple[Any, ...]]]
    rejected: dict[tuple[str, str], str]
    planned: dict[tuple[str, str], str] = field(default_factory=dict)
    skipped: dict[tuple[str, str], str] = field(default_factory=dict)


SCHEMAS = {"topics": TOPICS, "topic_configs": CONFIGS, "acls": ACLS, "quotas": QUOTAS, "scram_users": USERS}
CASES = {
    "topic_name": Case(
        # a backslash reaches Spark's RLIKE as written (\\d, \\.), and the match is of the whole name
        {"name": "names", "kind": "topic_name", "pattern": "t\\d+-[a-z]+(\\.[a-z]+)*", "topics": ["t"]},
        {"topics": [("t1-orders.v", 1, None, None), ("t1-Orders", 1, None, None), ("t1-a_b", 1, None, None),
                    ("Ops_x", 1, None, None)]},
        {("topics", "t1-Orders"): "(topic_name t\\d+-[a-z]+(\\.[a-z]+)*): topic name t1-Orders does not match",
         ("topics", "t1-a_b"): "topic name t1-a_b does not match"},
        {("topics", "t1-orders.v"): "create", ("topics", "Ops_x"): "create"}),  # Ops_x: not under the prefix
    "min_replication_factor": Case(
        {"name": "min-rf", "kind": "min_replication_factor", "min": 3},
        {"topics": [("low", 1, 1, None), ("ok", 1, 3, None), ("unset", 1, None, None)]},
        {("topics", "low"): "(min_replication_factor 3): replication_factor 1"},
        {("topics", "ok"): "create", ("topics", "unset"): "create"}),
    "partitions": Case(
        {"name": "parts", "kind": "partitions", "min": 2, "max": 12},
        {"topics": [("few", 1, None, None), ("many", 24, None, None), ("fine", 12, None, None)]},
        {("topics", "few"): "(partitions 2..12): partitions 1",
         ("topics", "many"): "(partitions 2..12): partitions 24"},
        {("topics", "fine"): "create"}),
    "min_insync_replicas": Case(
        {"name": "durable", "kind": "min_insync_replicas", "min": 2},
        {"topics": [("i1", 1, 3, '{"min.insync.replicas": "1", "retention.ms": "1000"}'),
                    ("i2", 1, 3, '{"min.insync.replicas": "2"}'), ("i3", 1, 3, None)],
         "topic_configs": [("i2", "min.insync.replicas", "2"), ("i3", "min.insync.replicas", "x")]},
        {("topic_configs", "i1:min.insync.replicas"): "(min_insync_replicas 2): min.insync.replicas 1",
         ("topic_configs", "i3:min.insync.replicas"): "(min_insync_replicas 2): min.insync.replicas x"},
        {("topic_configs", "i2:min.insync.replicas"): "create", ("topic_configs", "i1:retention.ms"): "create",
         ("topics", "i1"): "create"}),
    "forbidden_configs": Case(
        {"name": "no-unclean", "kind": "forbidden_configs", "configs": ["unclean.leader.election.enable"],
         "values": ["true"]},
        {"topics": [("f", 1, 3, None), ("g", 1, 3, None)],
         "topic_configs": [("f", "unclean.leader.election.enable", " TRUE"), ("f", "retention.ms", "1000"),
                           ("g", "unclean.leader.election.enable", "false")]},
        {("topic_configs", "f:unclean.leader.election.enable"):
         "(forbidden_configs unclean.leader.election.enable=true): unclean.leader.election.enable= TRUE"},
        {("topic_configs", "f:retention.ms"): "create", ("topic_configs", "g:unclean.leader.election.enable"): "create",
         ("topics", "f"): "create"}),
    "forbidden_acls": Case(
        {"name": "no-cluster-alter", "kind": "forbidden_acls", "resource_types": ["cluster"], "operations": ["alter"]},
        {"acls": [acl("User:t1", "ALTER", "CLUSTER", "kafka-cluster"),
                  acl("User:t1", "ALL", "CLUSTER", "kafka-cluster"),
                  acl("User:t1", "DESCRIBE", "CLUSTER", "kafka-cluster"),
                  acl("User:t1", "ALTER", "CLUSTER", "kafka-cluster", perm="DENY"),
                  acl("User:t1", "ALTER", "TOPIC", "t1-x")]},
        {("acls", acl_key("User:t1", "ALTER", "CLUSTER", "kafka-cluster")):
         "(forbidden_acls resource_types=CLUSTER operations=ALTER): "
         "ALLOW ALTER on CLUSTER:LITERAL:kafka-cluster to User:t1",
         ("acls", acl_key("User:t1", "ALL", "CLUSTER", "kafka-cluster")): "ALLOW ALL on CLUSTER"},
        {("acls", acl_key("User:t1", "DESCRIBE", "CLUSTER", "kafka-cluster")): "create",
         ("acls", acl_key("User:t1", "ALTER", "CLUSTER", "kafka-cluster", perm="DENY")): "create",
         ("acls", acl_key("User:t1", "ALTER", "TOPIC", "t1-x")): "create"}),
    "forbidden_acls_wildcard": Case(
        {"name": "no-wildcard", "kind": "forbidden_acls", "resource_types": ["TOPIC"], "resource_names": ["*"],
         "principals": ["User:t"]},
        {"acls": [acl("User:t1", "READ", "TOPIC", "*"), acl("User:t1", "READ", "TOPIC", "t1-a"),
                  acl("User:ops", "READ", "TOPIC", "*")]},
        {("acls", acl_key("User:t1", "READ", "TOPIC", "*")): "ALLOW READ on TOPIC:LITERAL:* to User:t1"},
        {("acls", acl_key("User:t1", "READ", "TOPIC", "t1-a")): "create",
         ("acls", acl_key("User:ops", "READ", "TOPIC", "*")): "create"}),
    "min_prefixed_length": Case(
        {"name": "long-prefixes", "kind": "min_prefixed_length", "min": 3},
        {"acls": [acl("User:t1", "READ", "TOPIC", "t", "PREFIXED"), acl("User:t1", "READ", "GROUP", "t1-", "PREFIXED"),
                  acl("User:t1", "READ", "TOPIC", "x")]},
        {("acls", acl_key("User:t1", "READ", "TOPIC", "t", "PREFIXED")):
         "(min_prefixed_length 3): PREFIXED TOPIC:t is 1 character(s)"},
        {("acls", acl_key("User:t1", "READ", "GROUP", "t1-", "PREFIXED")): "create",
         ("acls", acl_key("User:t1", "READ", "TOPIC", "x")): "create"}),
    "scram_credentials": Case(
        {"name": "strong-scram", "kind": "scram_credentials", "mechanisms": ["sha-512"], "min_iterations": 8192,
         "principals": ["User:t"]},
        {"scram_users": [("t1", None, None, "vault:a"), ("t2", "SCRAM-SHA-512", 4096, "vault:b"),
                         ("t3", "scram_sha_512", 8192, "vault:c"), ("ops", None, None, "vault:d")],
         "acls": [acl("User:t1", "READ", "TOPIC", "t1-a"), acl("User:t3", "READ", "TOPIC", "t3-a")]},
        {("scram_users", "t1/SCRAM-SHA-256"):
         "(scram_credentials mechanisms=SCRAM-SHA-512 min_iterations=8192): SCRAM-SHA-256 with 4096 iterations",
         ("scram_users", "t2/SCRAM-SHA-512"): "SCRAM-SHA-512 with 4096 iterations"},
        {("scram_users", "t3/SCRAM-SHA-512"): "create", ("scram_users", "ops/SCRAM-SHA-256"): "create",
         ("acls", acl_key("User:t3", "READ", "TOPIC", "t3-a")): "create"},
        {("acls", acl_key("User:t1", "READ", "TOPIC", "t1-a")):
         "SCRAM user t1 could not be provisioned: its row t1/SCRAM-SHA-256 is rejected: policy rule 'strong-scram' "}),
    "max_quota": Case(
        {"name": "produce-cap", "kind": "max_quota", "quota_key": "producer_byte_rate", "max": 1048576,
         "principals": ["User:t"]},
        {"quotas": [("t1", None, None, "producer_byte_rate", 2097152.0),
                    ("t2", None, None, "producer_byte_rate", 1048576.0),
                    ("t1", None, None, "consumer_byte_rate", 9e9),
                    ("ops", None, None, "producer_byte_rate", 5e7),
                    ("t3", None, None, "producer_byte_rate", 1e17)]},  # shown as Spark writes a double
        {("quotas", "user=t1/producer_byte_rate"): "(max_quota producer_byte_rate 1048576): producer_byte_rate 2097152",
         ("quotas", "user=t3/producer_byte_rate"): "producer_byte_rate 1.0E17"},
        {("quotas", "user=t2/producer_byte_rate"): "create", ("quotas", "user=t1/consumer_byte_rate"): "create",
         ("quotas", "user=ops/producer_byte_rate"): "create"}),
}


def spec_of(spark: Any, rows: dict[str, list[tuple[Any, ...]]]) -> Any:
    from kadmin.spark import TenantSpec

    return TenantSpec(secrets=secrets, **{k: spark.createDataFrame(v, SCHEMAS[k]) for k, v in rows.items()})


@pytest.mark.parametrize("name", list(CASES))
def test_each_rule_kind_rejects_the_rows_breaking_it_by_name(spark: Any, kafka: tuple[FakeCluster, AdminClient],
                                                             name: str) -> None:
    from kadmin.spark import provision

    case = CASES[name]
    cluster, admin = kafka
    plan = by_key(provision(spec_of(spark, case.rows), admin, "plan", policy={"rules": [case.rule]}))
    for key, why in case.rejected.items():
        row = plan[key]
        assert row["action"] == "reject" and row["status"] == "rejected", row
        assert row["error"].startswith(f"policy rule '{case.rule['name']}' ") and why in row["error"], row
    for key, action in case.planned.items():
        assert plan[key]["action"] == action and plan[key]["status"] == "planned", plan[key]
    for key, why in case.skipped.items():
        assert plan[key]["status"] == "skipped" and why in plan[key]["error"], plan[key]
    assert not [r for k, r in plan.items() if r["status"] == "rejected" and k not in case.rejected]
    assert not [e for e in cluster.request_log if e.api_key in (ApiKey.CREATE_TOPICS, ApiKey.CREATE_ACLS)]


def test_a_forbidden_config_is_not_sent_with_its_topic(spark: Any, kafka: tuple[FakeCluster, AdminClient]) -> None:
    """A topic created with configs: the one a rule forbids is rejected and left out of the CreateTopics, the
    others travel with it."""
    from kadmin.spark import provision

    cluster, admin = kafka
    case = CASES["min_insync_replicas"]
    res = by_key(provision(spec_of(spark, {"topics": case.rows["topics"][:2]}), admin, "apply",
                           policy={"rules": [case.rule]}))
    assert res[("topics", "i1")]["status"] == "ok" and res[("topic_configs", "i1:retention.ms")]["status"] == "ok"
    assert res[("topic_configs", "i1:min.insync.replicas")]["status"] == "rejected"
    sent = [k for e in cluster.request_log if e.api_key == ApiKey.CREATE_TOPICS for k in e.keys]
    assert sorted(sent) == ["i1", "i2"], sent
    with AdminClient(cluster.bootstrap) as other:
        from kadmin.configs import ConfigResource, ConfigSource

        got = other.describe_configs([ConfigResource.topic("i1")])[ConfigResource.topic("i1")]
        assert isinstance(got, dict), got
        mine = {n: e.value for n, e in got.items() if e.source is ConfigSource.DYNAMIC_TOPIC_CONFIG}
    assert mine == {"retention.ms": "1000"}, mine


def test_no_policy_changes_nothing(spark: Any, kafka: tuple[FakeCluster, AdminClient]) -> None:
    """Rows that break every rule kind: without a policy, and with rules whose prefixes cover none of them,
    the plan is the same rows, none rejected."""
    from kadmin.spark import provision
    from kadmin.spark.kinds.context import PlanContext

    _, admin = kafka
    rows: dict[str, list[tuple[Any, ...]]] = {}
    for case in CASES.values():
        for kind, rs in case.rows.items():
            rows.setdefault(kind, []).extend(r for r in rs if r not in rows.get(kind, []))
    spec = spec_of(spark, rows)
    bare = by_key(provision(spec, admin, "plan"))
    assert not [r for r in bare.values() if r["status"] == "rejected"], bare
    elsewhere = []
    for case in CASES.values():
        rule = dict(case.rule)
        if case.rule["kind"] in ("forbidden_acls", "min_prefixed_length", "max_quota", "scram_credentials"):
            rule["principals"] = ["User:nobody-"]
        else:
            rule["topics"] = ["nobody-"]
        elsewhere.append(rule)
    assert by_key(provision(spec, admin, "plan", policy={"rules": elsewhere})) == bare
    frame = object()  # without a policy the kinds' rows are the very same frame: not even a select is added
    ctx = PlanContext(spec, admin, None, spark, (), {})
    assert ctx.police("topics", frame) is frame  # type: ignore[arg-type]


def test_a_rejected_topic_takes_its_configs_and_grants_with_it(spark: Any,
                                                               kafka: tuple[FakeCluster, AdminClient]) -> None:
    """A new topic rejected by a policy: its configs rejected, its literal grants skipped naming the rule,
    nothing of it sent; a grant on an existing topic whose row is rejected is no dangling grant: it is made."""
    from kadmin.spark import provision

    cluster, admin = kafka
    cluster.add_topic("t1-old", partitions=1, replication_factor=1)
    spec = spec_of(spark, {
        "topics": [("t1-new", 1, 1, '{"retention.ms": "1000"}'), ("t1-old", 1, 1, None), ("t1-good", 1, 3, None)],
        "topic_configs": [("t1-new", "cleanup.policy", "compact")],
        "acls": [acl("User:t1", "READ", "TOPIC", "t1-new"), acl("User:t1", "READ", "TOPIC", "t1-old"),
                 acl("User:t1", "READ", "TOPIC", "t1-good")]})
    policy = {"rules": [{"name": "min-rf", "kind": "min_replication_factor", "min": 3}]}
    res = by_key(provision(spec, admin, "apply", policy=policy))
    why = "policy rule 'min-rf' (min_replication_factor 3): replication_factor 1"
    assert res[("topics", "t1-new")]["status"] == "rejected" and res[("topics", "t1-new")]["error"] == why
    assert res[("topics", "t1-old")]["status"] == "rejected"
    for key in ("t1-new:retention.ms", "t1-new:cleanup.policy"):
        assert res[("topic_configs", key)]["status"] == "rejected", res[("topic_configs", key)]
        assert "its topic row is rejected" in res[("topic_configs", key)]["error"]
    grant = res[("acls", acl_key("User:t1", "READ", "TOPIC", "t1-new"))]
    assert grant["status"] == "skipped" and grant["error"] == f"topic t1-new could not be provisioned: {why}", grant
    assert res[("acls", acl_key("User:t1", "READ", "TOPIC", "t1-old"))]["status"] == "ok"
    assert res[("acls", acl_key("User:t1", "READ", "TOPIC", "t1-good"))]["status"] == "ok"
    sent = [k for e in cluster.request_log if e.api_key in (ApiKey.CREATE_TOPICS, ApiKey.CREATE_ACLS,
                                                             ApiKey.INCREMENTAL_ALTER_CONFIGS) for k in e.keys]
    assert sent and not [k for k in sent if "t1-new" in str(k)], sent
    assert "t1-new" not in {t.name for t in admin.list_topics()}


def test_a_bad_policy_is_a_value_error_before_anything_is_read(spark: Any,
                                                                kafka: tuple[FakeCluster, AdminClient]) -> None:
    from kadmin.spark import PolicyError, provision

    cluster, admin = kafka
    cluster.clear_log()
    spec = spec_of(spark, {"topics": [("a", 1, 1, None)]})
    with pytest.raises(ValueError, match=r"rule 'x': unknown kind \"min_rf\"") as exc:
        provision(spec, admin, "plan", policy={"rules": [{"name": "x", "kind": "min_rf", "min": 3}]})
    assert isinstance(exc.value, PolicyError)
    # a saved plan was checked when it was made: a policy goes with planning only
    with pytest.raises(ValueError, match="scope, remove_unlisted and policy apply when planning"):
        provision(spark.range(1), admin, "apply", policy={"rules": []})
    assert cluster.request_log == []


SPEC_FILES = {
    "topics.csv": 'name,partitions,replication_factor,configs\n'
                  't1-orders,6,3,"{""min.insync.replicas"": ""2""}"\n'
                  't1-events,64,3,\n'
                  'Bad_Topic,1,1,\n'
                  't1-audit,1,3,"{""min.insync.replicas"": ""1""}"\n',
    "topic_configs.csv": "topic,config,value\nt1-orders,unclean.leader.election.enable,true\n"
                         "t1-orders,retention.ms,1000\n",
    "acls.csv": "principal,host,operation,permission,resource_type,resource_name,pattern_type\n"
                "User:t1,*,ALTER,ALLOW,CLUSTER,kafka-cluster,LITERAL\n"
                "User:t1,*,READ,ALLOW,TOPIC,*,LITERAL\n"
                "User:t1,*,READ,ALLOW,TOPIC,t1,PREFIXED\n"
                "User:t1,*,READ,ALLOW,TOPIC,t1-,PREFIXED\n",
    "quotas.csv": "user,producer_byte_rate\nt1,20971520\nt2,1048576\n",
    "scram_users.csv": "user,mechanism,iterations,password_ref\nt9,SCRAM-SHA-256,4096,env:KADMIN_POLICY_TEST_UNSET\n",
}
#: Every violation of SPEC_FILES under the docs' sample policy: (kind, key) -> the rules named, in order.
VIOLATIONS = {
    ("topics", "Bad_Topic"): ["topic-names", "min-rf"],
    ("topics", "t1-events"): ["partition-bounds"],
    ("topic_configs", "t1-audit:min.insync.replicas"): ["durable"],
    ("topic_configs", "t1-orders:unclean.leader.election.enable"): ["no-unclean"],
    ("acls", acl_key("User:t1", "ALTER", "CLUSTER", "kafka-cluster")): ["no-cluster-alter"],
    ("acls", acl_key("User:t1", "READ", "TOPIC", "*")): ["no-wildcard-topics"],
    ("acls", acl_key("User:t1", "READ", "TOPIC", "t1", "PREFIXED")): ["long-prefixes"],
    ("quotas", "user=t1/producer_byte_rate"): ["produce-cap"],
    ("scram_users", "t9/SCRAM-SHA-256"): ["strong-scram"],
}


def test_cli_validate_with_the_docs_sample_policy_reports_every_violation(
        spark: Any, kafka: tuple[FakeCluster, AdminClient], tmp_path: Path) -> None:
    """``kadmin provision --validate --policy`` with the sample of docs/provision.md: each violating row on
    stderr with every rule it breaks, exit 1; the conforming rows validated by the brokers; nothing
    changed."""
    from tests.cli.test_cli_policy_input import docs_policy_text

    cluster, admin = kafka
    spec = tmp_path / "spec"
    spec.mkdir()
    for name, text in SPEC_FILES.items():
        (spec / name).write_text(text, encoding="utf-8")
    policy = tmp_path / "policy.json"
    policy.write_text(docs_policy_text(), encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    code = main(["-b", cluster.bootstrap, "provision", str(spec), "--validate", "--policy", str(policy)],
                stdout=out, stderr=err)
    assert code == 1, err.getvalue()
    reported = {}
    for line in err.getvalue().splitlines():
        m = re.match(r"kadmin: (\w+) (.+?): (rejected|failed|skipped): (.*)$", line)
        if m:
            reported[(m[1], m[2])] = (m[3], m[4])
    assert set(reported) == set(VIOLATIONS), err.getvalue()
    for key, rules in VIOLATIONS.items():
        status, error = reported[key]
        assert status == "rejected" and re.findall(r"policy rule '([\w-]+)'", error) == rules, (key, error)
    assert "validated" in out.getvalue() and "t1-orders" in out.getvalue()
    assert not [e for e in cluster.request_log
                if e.api_key in (ApiKey.CREATE_ACLS, ApiKey.ALTER_USER_SCRAM_CREDENTIALS)]
    assert not {t.name for t in admin.list_topics()} & {"t1-orders", "t1-audit"}
