"""The ``groups_offsets`` kind and kinds the cluster cannot describe, on real PySpark against FakeCluster.

Each provision run costs Spark jobs on the shared session, so each test proves one theme with few runs and
tiny specs: plan/apply/re-run/drift of reset targets (with every reject reason), a reset on a topic the spec
creates (after it, skipped when its creation fails), and a kind the cluster cannot describe failing row by
row while the other kinds are provisioned.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kadmin import AdminClient
from kadmin.errors import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing import FakeCluster
from tests.spark.test_spark_tenants import by_key

GROUPS = "group string, topic string, partition int, target string"
TOPICS = "name string, partitions int, replication_factor int, configs string"
ACLS = ("principal string, host string, operation string, permission string, resource_type string, "
        "resource_name string, pattern_type string")
USERS = "user string, mechanism string, iterations int, password_ref string"
QUOTAS = "user string, client_id string, ip string, quota_key string, value double"
WRITES = {ApiKey.CREATE_TOPICS, ApiKey.DELETE_TOPICS, ApiKey.CREATE_PARTITIONS, ApiKey.INCREMENTAL_ALTER_CONFIGS,
          ApiKey.ALTER_CONFIGS, ApiKey.CREATE_ACLS, ApiKey.DELETE_ACLS, ApiKey.ALTER_USER_SCRAM_CREDENTIALS,
          ApiKey.ALTER_CLIENT_QUOTAS, ApiKey.ALTER_PARTITION_REASSIGNMENTS, ApiKey.OFFSET_COMMIT,
          ApiKey.OFFSET_DELETE}

pytestmark = pytest.mark.spark


@pytest.fixture
def kafka() -> Iterator[tuple[FakeCluster, AdminClient]]:
    with FakeCluster(brokers=3) as cluster, AdminClient(cluster.bootstrap) as admin:
        yield cluster, admin


def writes(cluster: FakeCluster) -> list[Any]:
    return [e.api_key for e in cluster.request_log if e.api_key in WRITES]


def committed(cluster: FakeCluster, group: str) -> dict[tuple[str, int], int]:
    g = cluster.groups.get(group)
    return {} if g is None else {tp: o.offset for tp, o in g.offsets.items()}


def test_groups_offsets_plan_apply_rerun_and_drift(tspark: Any, kafka: tuple[FakeCluster, AdminClient]) -> None:
    from kadmin.spark import TenantSpec, drift, provision

    spark = tspark
    cluster, admin = kafka
    cluster.add_topic("o", partitions=2, offsets={0: (2, 10), 1: (0, 5)})
    cluster.commit("g-idle", "o", 0, 8)
    cluster.commit("g-idle", "o", 1, 5)
    cluster.add_group("g-live", members=[{"member_id": "m-1", "client_id": "c"}])
    cluster.commit("g-live", "o", 0, 3)
    spec = TenantSpec(
        topics=spark.createDataFrame([("t-new", 2, None, None)], TOPICS),
        groups_offsets=spark.createDataFrame([
            ("g-idle", "o", None, "earliest"),            # every partition: 8 -> 2 (log start), 5 -> 0
            ("g-idle", "o", 1, " Earliest "),            # the same partition and target again: merged
            ("g-new", "o", 1, "offset:50"),              # a group that does not exist yet; clamped to the end
            ("g-new", "o", 0, "timestamp:2024-05-01T00:00:00Z"),   # no record after it: the log end
            ("g-new", "t-new", None, "latest"),          # a topic this spec creates: after it, at 0
            ("g-live", "o", 0, "latest"),                # the group has a member: refused
            ("g-idle", "nope", None, "latest"),          # no such topic
            ("g-idle", "o", 7, "latest"),                # no such partition
            ("g-x", "o", 0, "shift:-1"),                 # relative: a re-run would move it again
            ("g-x", "o", 1, "somewhere"),
            ("g-x", "o", None, "timestamp:2024-05-01 00:00"),  # no zone
            ("", "o", 0, "offset:x"),
        ], GROUPS))

    cluster.clear_log()
    rows = by_key(provision(spec, admin, "plan"))
    assert writes(cluster) == []
    g = {k: r for (kind, k), r in rows.items() if kind == "groups_offsets"}
    assert {k: (r["action"], r["old_value"], r["new_value"]) for k, r in g.items() if r["action"] != "reject"} == {
        "g-idle/o:0": ("alter", "8", "2 (earliest)"),
        "g-idle/o:1": ("alter", "5", "0 (earliest)"),
        "g-new/o:1": ("alter", None, "5 (offset:50, clamped to the log end)"),
        "g-new/o:0": ("alter", None, "10 (timestamp:2024-05-01T00:00:00Z)"),
        "g-new/t-new:0": ("alter", None, "0 (latest, the topic is new)"),
        "g-new/t-new:1": ("alter", None, "0 (latest, the topic is new)"),
    }
    errors = {k: r["error"] for k, r in g.items() if r["action"] == "reject"}
    assert {k: r["status"] for k, r in g.items() if r["action"] == "reject"} == dict.fromkeys(errors, "rejected")
    assert "active group" in errors["g-live/o:0"] and "Stable with 1 member(s)" in errors["g-live/o:0"]
    assert "topic nope does not exist" in errors["g-idle/nope:*"]
    assert "partition 7 of topic o does not exist (it has 2" in errors["g-idle/o:7"]
    assert "relative" in errors["g-x/o:0"]
    assert "unknown target 'somewhere'" in errors["g-x/o:1"]
    assert "with a zone" in errors["g-x/o:*"]
    assert "group is empty" in errors["/o:0"] and "offset:N" in errors["/o:0"]

    # Validate: OffsetCommit has no validate_only, so nothing is sent for the kind; the rows were checked.
    validated = by_key(provision(spec, admin, "validate"))
    assert {r["status"] for (kind, _), r in validated.items() if kind == "groups_offsets"} == {"validated", "rejected"}
    assert cluster.count(ApiKey.OFFSET_COMMIT) == 0 and "g-new" not in cluster.groups

    cluster.clear_log()
    res = by_key(provision(spec, admin, "apply"))
    assert {k: r["status"] for (kind, k), r in res.items() if k in ("g-idle/o:0", "g-new/t-new:1")} == {
        "g-idle/o:0": "ok", "g-new/t-new:1": "ok"}
    assert committed(cluster, "g-idle") == {("o", 0): 2, ("o", 1): 0}
    assert committed(cluster, "g-new") == {("o", 0): 10, ("o", 1): 5, ("t-new", 0): 0, ("t-new", 1): 0}
    assert committed(cluster, "g-live") == {("o", 0): 3} and "g-x" not in cluster.groups
    order = writes(cluster)
    assert order == [ApiKey.CREATE_TOPICS, ApiKey.OFFSET_COMMIT, ApiKey.OFFSET_COMMIT]  # one per group, topics first

    cluster.clear_log()
    again = by_key(provision(spec, admin, "apply"))
    assert writes(cluster) == []
    assert {r["status"] for (kind, _), r in again.items() if kind == "groups_offsets"} == {"unchanged", "rejected"}

    # Drift: a consumer committed by hand; resets are never deletions, whatever the scope says.
    cluster.commit("g-idle", "o", 0, 9)
    cluster.commit("g-idle", "other", 0, 1)
    changed = {(r["kind"], r["key"], r["action"], r["old_value"]) for r in drift(provision(
        spec, admin, "plan", scope=["topics=", "principals=", "kinds=groups_offsets"], remove_unlisted=True)).collect()
        if r["action"] != "reject"}
    assert changed == {("groups_offsets", "g-idle/o:0", "alter", "9")}


def test_groups_offsets_conflicts_and_a_failed_topic_skips_its_resets(spark: Any,
                                                                      kafka: tuple[FakeCluster, AdminClient]) -> None:
    from kadmin.spark import TenantSpec, provision

    cluster, admin = kafka
    cluster.add_topic("o", partitions=1, offsets=4)
    spec = TenantSpec(
        topics=spark.createDataFrame([("t-new", 1, None, None), ("t-dflt", None, None, None)], TOPICS),
        groups_offsets=spark.createDataFrame([
            ("g", "t-new", 0, "earliest"), ("g", "o", 0, "earliest"), ("g", "o", None, "latest"),
            ("h", "o", 0, "offset:1"), ("h", "t-dflt", None, "earliest")], GROUPS))
    cluster.inject(None, ApiKey.CREATE_TOPICS, ErrorCode.POLICY_VIOLATION)
    rows = provision(spec, admin, "apply").collect()
    conflict = [r for r in rows if r["key"] == "g/o:0"]
    assert len(conflict) == 2 and {r["status"] for r in conflict} == {"rejected"}
    assert all("conflicting targets" in r["error"] for r in conflict)
    new = next(r for r in rows if r["key"] == "g/t-new:0")
    assert new["status"] == "skipped" and "topic t-new was not created" in new["error"]
    assert next(r for r in rows if r["key"] == "h/o:0")["status"] == "ok"
    dflt = next(r for r in rows if r["key"] == "h/t-dflt:*")
    assert dflt["status"] == "rejected" and "default partition count" in dflt["error"]
    assert committed(cluster, "h") == {("o", 0): 1} and "g" not in cluster.groups


def test_a_kind_the_cluster_cannot_describe_fails_per_row(spark: Any) -> None:
    """SCRAM users on a 2.6 broker (no DescribeUserScramCredentials): their rows fail with the reason, ACL
    grants to them are skipped, and topics, other ACLs and quotas are provisioned.  Then ACLs the caller may
    not describe (an authorization error): the ACL rows fail, the rest goes on."""
    from kadmin.spark import TenantSpec, provision

    def secrets(ref: str) -> str:
        return "pw-" + ref

    def spec() -> Any:
        return TenantSpec(
            topics=spark.createDataFrame([("a-events", 1, None, None)], TOPICS),
            scram_users=spark.createDataFrame([("a", None, None, "x")], USERS),
            acls=spark.createDataFrame([("User:a", "*", "read", "allow", "topic", "a-", "prefixed"),
                                        ("User:ext", "*", "read", "allow", "topic", "a-events", "literal")], ACLS),
            quotas=spark.createDataFrame([("a", None, None, "producer_byte_rate", 1024.0)], QUOTAS),
            secrets=secrets)

    with FakeCluster(brokers=1, versions="2.6", authorizer={"super_users": ["User:ANONYMOUS"]}) as cluster, \
            AdminClient(cluster.bootstrap) as admin:
        res = by_key(provision(spec(), admin, "apply"))
        user = res[("scram_users", "a/SCRAM-SHA-256")]
        assert (user["action"], user["status"]) == ("reject", "failed")
        assert "DescribeUserScramCredentials" in user["error"] and "does not support" in user["error"]
        grant = res[("acls", "User:a ALLOW READ TOPIC:PREFIXED:a- @*")]
        assert grant["status"] == "skipped" and grant["error"].startswith("SCRAM user a could not be provisioned")
        others = {k: r["status"] for k, r in res.items() if k[0] != "scram_users" and k != ("acls", grant["key"])}
        assert set(others.values()) == {"ok"} and len(others) == 3
        assert cluster.count(ApiKey.ALTER_USER_SCRAM_CREDENTIALS) == 0
        assert {a.principal for a in cluster.acls} == {"User:ext"} and "a-events" in cluster.topics

    with FakeCluster(brokers=1, authorizer={"allow_everyone_if_no_acl_found": True}) as cluster, \
            AdminClient(cluster.bootstrap) as admin:
        cluster.add_acl("cluster", "kafka-cluster", "User:ANONYMOUS", "describe", "deny")
        res = by_key(provision(TenantSpec(
            topics=spark.createDataFrame([("b-events", 1, None, None)], TOPICS),
            acls=spark.createDataFrame([("User:b", "*", "read", "allow", "topic", "b-", "prefixed")], ACLS)),
            admin, "apply"))
        acl = res[("acls", "User:b ALLOW READ TOPIC:PREFIXED:b- @*")]
        assert acl["status"] == "failed" and "ACLs could not be read" in acl["error"]
        assert "CLUSTER_AUTHORIZATION_FAILED" in acl["error"], acl
        assert res[("topics", "b-events")]["status"] == "ok" and cluster.count(ApiKey.CREATE_ACLS) == 0


def test_cli_provision_reads_a_groups_offsets_file(spark: Any, kafka: tuple[FakeCluster, AdminClient],
                                                   tmp_path: Path) -> None:
    import io
    import json

    from kadmin.cli.main import main

    cluster, _ = kafka
    cluster.add_topic("o", partitions=2, offsets=6)
    cluster.commit("g", "o", 0, 6)
    spec = tmp_path / "spec"
    spec.mkdir()
    (spec / "groups_offsets.csv").write_text("group,topic,partition,target\ng,o,,offset:2\ng,o,9,latest\n")
    out, err = io.StringIO(), io.StringIO()
    code = main(["-b", cluster.bootstrap, "-o", "json", "provision", str(spec), "--apply"], stdout=out, stderr=err)
    assert code == 1, err.getvalue()  # a rejected row (no partition 9)
    doc = json.loads(out.getvalue())
    assert {(s["kind"], s["action"], s["status"]): s["count"] for s in doc["summary"]} == {
        ("groups_offsets", "alter", "ok"): 2, ("groups_offsets", "reject", "rejected"): 1}
    assert committed(cluster, "g") == {("o", 0): 2, ("o", 1): 2}
    [bad] = [r for r in doc["rows"] if r["status"] == "rejected"]
    assert bad["key"] == "g/o:9" and "partition 9 of topic o does not exist" in bad["error"]


def test_groups_the_cluster_cannot_describe_fail_per_row(spark: Any) -> None:
    """A broker without DescribeGroups (nor ConsumerGroupDescribe): the reset rows fail with the API named,
    nothing is committed, and the topics of the same spec are created."""
    from kadmin.spark import TenantSpec, provision
    from kadmin.versions import release_table

    table = release_table("3.9")
    for key in (ApiKey.DESCRIBE_GROUPS, ApiKey.CONSUMER_GROUP_DESCRIBE):
        table.pop(key, None)
    with FakeCluster(brokers=1, versions=table) as cluster, AdminClient(cluster.bootstrap) as admin:
        cluster.add_topic("o", partitions=1, offsets=3)
        res = by_key(provision(TenantSpec(
            topics=spark.createDataFrame([("t-new", 1, None, None)], TOPICS),
            groups_offsets=spark.createDataFrame([("g", "o", 0, "earliest"), ("g", "o", None, "soon")], GROUPS)),
            admin, "apply"))
        row = next(r for (k, _), r in res.items() if k == "groups_offsets" and r["status"] != "rejected")
        assert (row["action"], row["status"]) == ("reject", "failed") and "DescribeGroups" in row["error"], row
        assert res[("topics", "t-new")]["status"] == "ok"
        assert cluster.count(ApiKey.OFFSET_COMMIT) == 0 and "g" not in cluster.groups
