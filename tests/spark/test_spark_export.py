"""kadmin.spark.export and ``kadmin provision --export`` (issue #30): a live cluster written as a spec.

The round trip is the proof: a provision of the export against the same cluster plans no change (the SCRAM
users included: a credential with the same mechanism and iterations is ``unchanged``, its password is not
re-set), and against an empty cluster recreates it, read back by confluent-kafka (an independent client) the
same as the original.  Each provision costs Spark jobs, so the tests are few.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import confluent_kafka.admin
import pytest

from kadmin import AdminClient
from kadmin.acls import AclBinding
from kadmin.cli.main import main
from kadmin.configs import ConfigResource, SetConfig
from kadmin.protocol.apis import ApiKey
from kadmin.quotas import ClientQuotaAlteration, ClientQuotaEntity, Set
from kadmin.scram import ScramUpsertion
from kadmin.testing import FakeCluster
from kadmin.topics import NewTopic
from tests.support.cli import Result

pytestmark = pytest.mark.spark
#: librdkafka's admin module (its stubs do not re-export the names this test reads).
ck: Any = confluent_kafka.admin

AUTHORIZER = {"super_users": ["User:ANONYMOUS"]}
WRITES = {ApiKey.CREATE_TOPICS, ApiKey.DELETE_TOPICS, ApiKey.CREATE_PARTITIONS, ApiKey.INCREMENTAL_ALTER_CONFIGS,
          ApiKey.CREATE_ACLS, ApiKey.DELETE_ACLS, ApiKey.ALTER_USER_SCRAM_CREDENTIALS, ApiKey.ALTER_CLIENT_QUOTAS,
          ApiKey.ALTER_PARTITION_REASSIGNMENTS, ApiKey.OFFSET_COMMIT}


def seed(admin: AdminClient) -> None:
    """Every exportable kind, made with kadmin: topics with their own configs, bindings of several shapes,
    SCRAM users (one with both mechanisms), quotas of several entity shapes."""
    admin.create_topics([NewTopic("a-events", 3, 2, configs={"retention.ms": "3600000", "cleanup.policy": "compact"}),
                         NewTopic("a-audit", 1, 3), NewTopic("b-jobs", 2, 1)])
    admin.alter_configs({ConfigResource.topic("b-jobs"): [SetConfig("max.message.bytes", "2097152")]})
    admin.create_acls([
        AclBinding.of("topic", "a-", "User:a", "read", "allow", pattern_type="prefixed"),
        AclBinding.of("topic", "a-events", "User:a", "write", "allow"),
        AclBinding.of("group", "a-", "User:a", "read", "allow", pattern_type="prefixed"),
        AclBinding.of("topic", "b-jobs", "User:b", "describe", "deny", host="10.0.0.7"),
        AclBinding.of("cluster", "kafka-cluster", "User:ops", "describe", "allow")])
    admin.alter_user_scram_credentials([ScramUpsertion("a", "SCRAM-SHA-256", "pw-a", 4096),
                                        ScramUpsertion("a", "SCRAM-SHA-512", "pw-a", 8192),
                                        ScramUpsertion("b.svc", "SCRAM-SHA-512", "pw-b", 10000)])
    admin.alter_client_quotas([
        ClientQuotaAlteration(ClientQuotaEntity({"user": "a"}), [Set("producer_byte_rate", 1048576),
                                                                 Set("request_percentage", 12.5)]),
        ClientQuotaAlteration(ClientQuotaEntity({"user": "a", "client-id": "etl"}), [Set("consumer_byte_rate", 2048)]),
        ClientQuotaAlteration(ClientQuotaEntity({"client-id": None}), [Set("producer_byte_rate", 4096)])])
    # Group configs (a group with no member yet: ListConfigResources finds it) and dynamic broker configs, per
    # broker and cluster-wide.
    first = min(n.node_id for n in admin.describe_cluster().nodes)
    admin.alter_configs({ConfigResource.group("a-g"): [SetConfig("consumer.session.timeout.ms", "60000")],
                         ConfigResource.broker(None): [SetConfig("log.cleaner.threads", "2")],
                         ConfigResource.broker(first): [SetConfig("num.io.threads", "9")]})


def cli(*args: str) -> Result:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(args), stdout=out, stderr=err)
    return Result(code, out.getvalue(), err.getvalue())


def seen_by_confluent(bootstrap: str) -> dict[str, Any]:
    """Topics (partitions, replication factor, own configs) and bindings as librdkafka's admin reads them."""
    c = ck.AdminClient({"bootstrap.servers": bootstrap, "log_level": 0})
    topics = {n: (len(t.partitions), len(t.partitions[0].replicas)) for n, t in c.list_topics(timeout=10).topics.items()
              if not n.startswith("__")}
    configs = {}
    for res, fut in c.describe_configs([ck.ConfigResource("topic", n) for n in topics]).items():
        configs[res.name] = {k: e.value for k, e in fut.result(10).items()
                             if e.source == ck.ConfigSource.DYNAMIC_TOPIC_CONFIG.value}
    flt = ck.AclBindingFilter(ck.ResourceType.ANY, None, ck.ResourcePatternType.ANY, None, None,
                              ck.AclOperation.ANY, ck.AclPermissionType.ANY)
    acls = {(a.principal, a.host, a.operation.name, a.permission_type.name, a.restype.name, a.name,
             a.resource_pattern_type.name) for a in c.describe_acls(flt).result(10)}
    (group,) = c.describe_configs([ck.ConfigResource("group", "a-g")]).values()
    group_configs = {k: e.value for k, e in group.result(10).items() if e.source == ck.ConfigSource.GROUP_CONFIG.value}
    brokers = {}  # each broker's own dynamic values and the cluster default's, as each broker reports them
    for b in c.list_topics(timeout=10).brokers.values():  # librdkafka: one BROKER resource per call
        ((res, fut),) = c.describe_configs([ck.ConfigResource("broker", str(b.id))]).items()
        brokers[res.name] = {(k, e.source): e.value for k, e in fut.result(10).items()
                             if e.source in (ck.ConfigSource.DYNAMIC_BROKER_CONFIG.value,
                                             ck.ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG.value)}
    return {"topics": topics, "configs": configs, "acls": acls, "group_configs": group_configs, "brokers": brokers}


def kadmin_state(admin: AdminClient) -> dict[str, Any]:
    from kadmin.quotas import ClientQuotaFilter

    scram = {}
    for user, infos in admin.describe_user_scram_credentials().items():
        assert not isinstance(infos, BaseException), infos
        scram[user] = sorted((i.mechanism.mechanism_name, i.iterations) for i in infos)
    return {"scram": scram, "quotas": admin.describe_client_quotas(ClientQuotaFilter.all())}


@pytest.fixture
def source() -> Iterator[tuple[FakeCluster, AdminClient]]:
    # 4.1: GROUP config resources (4.0+) and ListConfigResources of groups (4.1+).
    with FakeCluster(brokers=3, versions="4.1", authorizer=AUTHORIZER) as cluster, \
            AdminClient(cluster.bootstrap) as admin:
        seed(admin)
        cluster.add_topic("o", partitions=2, offsets=6)
        cluster.commit("g", "o", 0, 4)
        cluster.commit("g", "o", 1, 6)
        yield cluster, admin


def test_export_then_provision_plans_nothing_and_recreates_the_cluster(
        spark: Any, source: tuple[FakeCluster, AdminClient], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kadmin.spark import export

    cluster, admin = source
    spec = tmp_path / "spec"
    result = export(admin, spark, str(spec), include_group_offsets=True)
    assert result.missing == {} and result.complete
    assert result.rows == {"scram_users": 3, "topics": 4, "topic_configs": 3, "acls": 5, "groups_offsets": 2,
                           "quotas": 4, "group_configs": 1, "broker_configs": 2,
                           "share_groups_offsets": 0}  # no share group on the source: no file
    written = {k: n for k, n in result.rows.items() if n}
    assert sorted(os.listdir(spec)) == sorted(f"{k}.csv" for k in written)
    assert result.password_refs == {"a": "env:KADMIN_SCRAM_A", "b.svc": "env:KADMIN_SCRAM_B_SVC"}
    assert (spec / "scram_users.csv").read_text().splitlines() == [
        "user,mechanism,iterations,password_ref", "a,SCRAM-SHA-256,4096,env:KADMIN_SCRAM_A",
        "a,SCRAM-SHA-512,8192,env:KADMIN_SCRAM_A", "b.svc,SCRAM-SHA-512,10000,env:KADMIN_SCRAM_B_SVC"]
    assert "a-events,cleanup.policy,compact" in (spec / "topic_configs.csv").read_text()
    assert "g,o,0,offset:4" in (spec / "groups_offsets.csv").read_text()
    assert (spec / "group_configs.csv").read_text().splitlines() == ["group,config,value",
                                                                     "a-g,consumer.session.timeout.ms,60000"]
    assert "default,log.cleaner.threads,2" in (spec / "broker_configs.csv").read_text()
    assert set(result.frames) == set(written) and result.frames["topics"].count() == 4

    # The secrets are references the caller fills in; with them set, the dry run has nothing to say.
    monkeypatch.setenv("KADMIN_SCRAM_A", "new-a")
    monkeypatch.setenv("KADMIN_SCRAM_B_SVC", "new-b")
    cluster.clear_log()
    r = cli("-b", cluster.bootstrap, "-o", "json", "provision", str(spec), "--all")
    assert r.code == 0, r.err
    doc = r.json()
    assert {(s["action"], s["status"]) for s in doc["summary"]} == {("unchanged", "unchanged")}, doc["summary"]
    assert {s["kind"]: s["count"] for s in doc["summary"]} == written
    # A password cannot be compared (a broker never returns one): an existing credential with the same
    # mechanism and iterations is unchanged, so provisioning an export never re-sets (rotates) a password.
    users = [row for row in doc["rows"] if row["kind"] == "scram_users"]
    assert {row["action"] for row in users} == {"unchanged"} and len(users) == 3
    assert not [e for e in cluster.request_log if e.api_key in WRITES]

    # Against an empty cluster: everything is created, and an independent client reads it as the original.
    original = seen_by_confluent(cluster.bootstrap)
    with FakeCluster(brokers=3, versions="4.1", authorizer=AUTHORIZER) as fresh, \
            AdminClient(fresh.bootstrap) as fresh_admin:
        os.remove(spec / "groups_offsets.csv")  # a committed offset needs records: the empty o has none
        r = cli("-b", fresh.bootstrap, "-o", "json", "provision", str(spec), "--apply")
        assert r.code == 0, r.err
        recreated = seen_by_confluent(fresh.bootstrap)
        assert recreated == original
        assert original["configs"]["a-events"] == {"retention.ms": "3600000", "cleanup.policy": "compact"}
        assert len(original["acls"]) == 5 and original["topics"]["a-events"] == (3, 2)
        assert original["group_configs"] == {"consumer.session.timeout.ms": "60000"}
        assert sorted(map(len, original["brokers"].values())) == [1, 1, 2]  # the default on each, one own
        assert kadmin_state(fresh_admin) == kadmin_state(admin)


def test_a_kind_the_caller_may_not_describe_is_reported_and_the_others_written(spark: Any, tmp_path: Path) -> None:
    from kadmin.spark import export

    # Without an authorizer DescribeAcls is SECURITY_DISABLED: the ACLs are missing, the rest is written.
    with FakeCluster(brokers=3) as cluster, AdminClient(cluster.bootstrap) as admin:
        admin.create_topics([NewTopic("a-events", 3, 2, configs={"retention.ms": "3600000"}), NewTopic("b-jobs", 1, 1)])
        admin.alter_user_scram_credentials([ScramUpsertion("a", "SCRAM-SHA-256", "pw-a", 4096),
                                            ScramUpsertion("b", "SCRAM-SHA-256", "pw-b", 4096)])
        admin.alter_client_quotas([ClientQuotaAlteration(ClientQuotaEntity({"user": u}),
                                                         [Set("producer_byte_rate", 1024)])
                                   for u in ("a", "b")])
        spec = tmp_path / "spec"
        result = export(admin, spark, str(spec), format="jsonl", scope=["topics=a-", "principals=User:a"])
        assert list(result.missing) == ["acls"] and not result.complete
        assert "SECURITY_DISABLED" in result.missing["acls"] and "could not be read" in result.missing["acls"]
        assert sorted(os.listdir(spec)) == ["quotas.jsonl", "scram_users.jsonl", "topic_configs.jsonl", "topics.jsonl"]
        assert [json.loads(line) for line in (spec / "topics.jsonl").read_text().splitlines()] == [
            {"name": "a-events", "partitions": 3, "replication_factor": 2}]
        assert [json.loads(line) for line in (spec / "quotas.jsonl").read_text().splitlines()] == [
            {"user": "a", "client_id": None, "ip": None, "quota_key": "producer_byte_rate", "value": 1024.0}]
        assert result.password_refs == {"a": "env:KADMIN_SCRAM_A"}

        with pytest.raises(FileExistsError, match="not empty"):
            export(admin, spark, str(spec))
        (spec / "notes.txt").write_text("mine")
        again = export(admin, spark, str(spec), force=True, scope=["kinds=topics"])
        assert again.rows == {"topics": 2} and sorted(os.listdir(spec)) == ["notes.txt", "topics.csv"]

    # An authorizer that denies the caller cluster DESCRIBE: ACLs and SCRAM credentials are refused to it.
    with FakeCluster(brokers=1, authorizer={"allow_everyone_if_no_acl_found": True}) as cluster, \
            AdminClient(cluster.bootstrap) as admin:
        cluster.add_topic("t", partitions=2)
        cluster.add_acl("cluster", "kafka-cluster", "User:ANONYMOUS", "describe", "deny")
        result = export(admin, spark, str(tmp_path / "denied"))
        assert {"acls", "scram_users"} <= set(result.missing), result.missing
        assert all("CLUSTER_AUTHORIZATION_FAILED" in why for why in result.missing.values()), result.missing
        assert result.rows["topics"] == 1 and result.files["topics"].endswith("topics.csv")


def test_cli_export_refuses_a_non_empty_folder_and_writes_parquet(
        spark: Any, source: tuple[FakeCluster, AdminClient], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cluster, _ = source
    full = tmp_path / "full"
    full.mkdir()
    (full / "topics.csv").write_text("name\nx\n")
    cluster.clear_log()
    r = cli("-b", cluster.bootstrap, "provision", "--export", str(full))
    assert r.code == 2 and "not empty" in r.err and len(r.err_lines) == 1, r.err
    assert cluster.request_log == []  # refused before anything was read
    r = cli("-b", cluster.bootstrap, "provision", str(full), "--force")
    assert r.code == 2 and "go with --export" in r.err

    spec = tmp_path / "spec"
    r = cli("-b", cluster.bootstrap, "-o", "json", "provision", "--export", str(spec), "--format", "parquet")
    assert r.code == 0, r.err
    doc = r.json()
    assert {k["kind"]: k["rows"] for k in doc["kinds"]} == {"scram_users": 3, "topics": 4, "topic_configs": 3,
                                                           "acls": 5, "quotas": 4, "group_configs": 1,
                                                           "broker_configs": 2}
    assert sorted(os.listdir(spec)) == sorted(f"{k['kind']}.parquet" for k in doc["kinds"])
    assert "KADMIN_SCRAM_B_SVC" in r.err and "password_ref" in r.err
    # The Parquet spec as provision reads it: nothing to change, and the references not set yet are named
    # (the only thing a provision of an export lacks: exit 1 until they are).
    monkeypatch.delenv("KADMIN_SCRAM_A", raising=False)
    monkeypatch.delenv("KADMIN_SCRAM_B_SVC", raising=False)
    r = cli("-b", cluster.bootstrap, "-o", "json", "provision", str(spec))
    assert r.code == 1, r.err
    assert {(s["action"], s["status"]) for s in r.json()["summary"]} == {("unchanged", "unchanged")}
    unset = [line for line in r.err_lines if "password_ref" in line]
    assert len(unset) == 3 and all("is not set" in line for line in unset), r.err
    assert {"env:KADMIN_SCRAM_A", "env:KADMIN_SCRAM_B_SVC"} == {line.split("'")[1] for line in unset}
    r = cli("-b", cluster.bootstrap, "provision", "--export", str(spec), "--force", "--scope", "kinds=acls")
    assert r.code == 0, r.err
    assert os.listdir(spec) == ["acls.csv"]
    assert "acls" in r.out and "5" in r.out
