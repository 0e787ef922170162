"""kadmin.spark.provision against brokers kadmin did not write, read back by clients kadmin did not write.

tests/spark/test_spark_tenants.py runs provisioning on kadmin's fake cluster and reads the result back through kadmin
(or the fake's own state), so a bug shared by kadmin's writer and reader could hide there.  Here:

* Tansu (a real broker): topics and topic configs are provisioned, then read back by confluent-kafka's
  AdminClient; a second run plans nothing for the topics and sends no write request (counted by a proxy).
  Tansu lists a topic's own configs with source DEFAULT_CONFIG (confluent-kafka sees the same), so kadmin,
  which plans only a topic's dynamic values, plans them as "create" on every run: a re-run of topic configs
  on Tansu is therefore not asserted to be write-free here.  Tansu advertises
  CreateAcls and the SCRAM APIs but stores neither (it answers with a null results array, which does not
  decode) and has no quota APIs: those kinds must never come back ``ok``; a kind it cannot describe fails row
  by row (naming the API) and the ACL grants to a SCRAM user that could not be planned are skipped.
* librdkafka's mock: no CreateTopics, no ACL, SCRAM or quota API at all.  One spec of every kind: each entity
  gets an error naming the API it needed (or is skipped behind its topic), nothing is ``ok``, the run does not
  stop, and nothing waits for a deadline.
* kadmin's FakeCluster with SASL/SCRAM and an authorizer: a small tenant bundle is provisioned, its ACLs,
  topics and configs are read back by kafka-python, and each provisioned SCRAM user logs in with
  confluent-kafka (librdkafka's own SCRAM client), while a wrong password or mechanism is refused.

Each provision run costs a few Spark jobs on the shared session, so the specs are tiny (two tenants).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from confluent_kafka import KafkaError as CkError
from confluent_kafka import KafkaException
from confluent_kafka.admin import AdminClient as CkAdminClient
from confluent_kafka.admin import ConfigResource as CkResource
from kafka.admin import (
    ACLFilter,
    ACLOperation,
    ACLPermissionType,
    ACLResourcePatternType,
    ConfigResource,
    ConfigResourceType,
    KafkaAdminClient,
    ResourcePatternFilter,
    ResourceType,
)

from kadmin import AdminClient
from kadmin.protocol.apis import ApiKey
from kadmin.testing import FakeCluster
from tests.spark.test_spark_tenants import by_key
from tests.support.counting_proxy import CountingProxy
from tests.support.peers import RunningBroker

pytestmark = [pytest.mark.spark, pytest.mark.peer, pytest.mark.timeout(240)]

TOPICS = "name string, partitions int, replication_factor int, configs string"
CONFIGS = "topic string, config string, value string"
ACLS = ("principal string, host string, operation string, permission string, resource_type string, "
        "resource_name string, pattern_type string")
USERS = "user string, mechanism string, iterations int, password_ref string"
QUOTAS = "user string, client_id string, ip string, quota_key string, value double"

SECRET = "S3cr3t-peer-tenant-"
ADMIN_PASSWORD = "admin-pw-9f2e"
WRITES = {ApiKey.CREATE_TOPICS, ApiKey.DELETE_TOPICS, ApiKey.CREATE_PARTITIONS, ApiKey.INCREMENTAL_ALTER_CONFIGS,
          ApiKey.ALTER_CONFIGS, ApiKey.CREATE_ACLS, ApiKey.DELETE_ACLS, ApiKey.ALTER_USER_SCRAM_CREDENTIALS,
          ApiKey.ALTER_CLIENT_QUOTAS, ApiKey.ALTER_PARTITION_REASSIGNMENTS}
#: Statuses that say "this entity is not (known to be) in place", each with its reason in ``error``.
NOT_OK = {"failed", "rejected", "skipped", "possibly-applied"}


def secrets(ref: str) -> str:
    """The caller's secret resolver: ``vault:<name>`` only, as a real vault lookup would be."""
    if ref.startswith("vault:"):
        return SECRET + ref[len("vault:"):]
    raise KeyError(f"no secret named {ref!r}")


def unique(prefix: str) -> str:
    return f"{prefix}{uuid.uuid4().hex[:6]}"


def spec_of(spark: Any, **kinds: list[tuple[Any, ...]]) -> Any:
    from kadmin.spark import TenantSpec

    schemas = {"topics": TOPICS, "topic_configs": CONFIGS, "acls": ACLS, "scram_users": USERS, "quotas": QUOTAS}
    return TenantSpec(secrets=secrets, **{k: spark.createDataFrame(v, schemas[k]) for k, v in kinds.items()})


def acl_rows(tenants: list[str]) -> list[tuple[Any, ...]]:
    return ([(f"User:{t}", "*", op, "allow", "topic", f"{t}-", "prefixed") for t in tenants for op in ("read", "write")]
            + [(f"User:{t}", None, "read", None, "group", f"{t}-", "prefixed") for t in tenants])


def undescribable(rows: dict[tuple[str, str], dict[str, Any]], kind: str, api: str) -> None:
    """Every row of a kind the broker cannot describe: not planned (``reject``), ``failed``, and its error says
    which API the cluster could not answer."""
    mine = [r for (k, _), r in rows.items() if k == kind]
    assert mine, f"no {kind} rows"
    for r in mine:
        assert (r["action"], r["status"]) == ("reject", "failed"), r
        assert api in r["error"] and "could not be read" in r["error"], r


# ------------------------------------------------------------------------------------------------- Tansu


@pytest.fixture
def tansu_admin(tansu: RunningBroker) -> Iterator[tuple[AdminClient, CountingProxy]]:
    # Through a counting proxy: Tansu keeps no request log, and "a re-run sends no write" needs one.
    with CountingProxy(tansu.nodes) as proxy, AdminClient(
            proxy.bootstrap, retry_backoff_s=0.02, retry_backoff_max_s=0.2, default_timeout_s=4.0) as admin:
        yield admin, proxy


def writes_seen(proxy: CountingProxy) -> list[int]:
    return [r.api_key for r in proxy.requests if r.api_key in WRITES]


def test_tansu_topics_and_configs_read_back_by_confluent_kafka(spark: Any, tansu: RunningBroker,
                                                               tansu_admin: tuple[AdminClient, CountingProxy]) -> None:
    from kadmin.spark import drift, provision

    admin, proxy = tansu_admin
    p = unique("tp")
    a, b = f"{p}-a-events", f"{p}-b-events"
    spec = spec_of(spark,
                   topics=[(a, 2, 1, '{"retention.ms": "3600000"}'), (b, 3, None, None)],
                   topic_configs=[(a, "cleanup.policy", "compact"), (b, "max.message.bytes", "2097152")])

    plan = by_key(provision(spec, admin, "plan"))
    assert writes_seen(proxy) == []
    assert {k: r["action"] for k, r in plan.items()} == {
        ("topics", a): "create", ("topics", b): "create", ("topic_configs", f"{a}:retention.ms"): "create",
        ("topic_configs", f"{a}:cleanup.policy"): "create", ("topic_configs", f"{b}:max.message.bytes"): "create"}

    proxy.clear()
    res = by_key(provision(spec, admin, "apply"))
    assert {k: (r["status"], r["error"]) for k, r in res.items()} == {k: ("ok", None) for k in plan}
    assert proxy.count(ApiKey.CREATE_TOPICS) == 1  # two topics, one batch

    # Read back by librdkafka, not kadmin.
    ck = CkAdminClient({"bootstrap.servers": tansu.bootstrap, "log_level": 0})
    md = ck.list_topics(timeout=10)
    assert {n: len(md.topics[n].partitions) for n in (a, b) if n in md.topics} == {a: 2, b: 3}
    futures = ck.describe_configs([CkResource("topic", a), CkResource("topic", b)])
    got = {res_.name: {k: e.value for k, e in f.result(timeout=10).items()} for res_, f in futures.items()}
    assert {k: got[a].get(k) for k in ("retention.ms", "cleanup.policy")} == {
        "retention.ms": "3600000", "cleanup.policy": "compact"}
    assert got[b].get("max.message.bytes") == "2097152"

    # Re-run: nothing left to do for the topics, and applying the topics again sends no write request.
    # (Not asserted for topic configs: Tansu reports a topic's own values with source DEFAULT_CONFIG, which
    # the planner does not count as the topic's, so on Tansu they are planned as "create" on every run.)
    replan = by_key(drift(provision(spec, admin, "plan")))
    assert [k for k in replan if k[0] == "topics"] == []
    topics_only = spec_of(spark, topics=[(a, 2, 1, None), (b, 3, None, None)])  # a configs map plans configs
    proxy.clear()
    again = by_key(provision(topics_only, admin, "apply"))
    assert {k: r["status"] for k, r in again.items()} == {("topics", a): "unchanged", ("topics", b): "unchanged"}
    assert writes_seen(proxy) == []


def test_tansu_kinds_it_does_not_store_never_come_back_ok(spark: Any, tansu: RunningBroker,
                                                          tansu_admin: tuple[AdminClient, CountingProxy]) -> None:
    from kadmin.spark import provision

    admin, proxy = tansu_admin
    t = unique("ta")
    # ACLs: Tansu answers DescribeAcls (empty) but its CreateAcls answer does not decode; the grants were sent,
    # so at best "possibly-applied", never "ok".
    acls = spec_of(spark, acls=acl_rows([t]))
    res = by_key(provision(acls, admin, "apply"))
    assert len(res) == 3
    for r in res.values():
        assert r["status"] in NOT_OK and "CreateAcls" in r["error"], r
    # kafka-python's DescribeAcls confirms it: Tansu holds no binding for the tenant.
    kp = KafkaAdminClient(bootstrap_servers=tansu.bootstrap, request_timeout_ms=10000)
    try:
        found, err = kp.describe_acls(ACLFilter(f"User:{t}", None, ACLOperation.ANY, ACLPermissionType.ANY,
                                                ResourcePatternFilter(ResourceType.ANY, None,
                                                                      ACLResourcePatternType.ANY)))
        assert (err.errno, list(found)) == (0, [])
    finally:
        kp.close()
    # SCRAM users (DescribeUserScramCredentials does not decode either) and quotas (no API at all), with the
    # tenant's ACLs in the same spec: the user's rows fail, its grants are skipped, one run, no exception.
    proxy.clear()
    mixed = spec_of(spark, scram_users=[(t, None, None, f"vault:{t}")], acls=acl_rows([t]),
                    quotas=[(t, None, None, "producer_byte_rate", 1024.0)])
    res2 = by_key(provision(mixed, admin, "apply"))
    undescribable(res2, "scram_users", "DescribeUserScramCredentials")
    undescribable(res2, "quotas", "DescribeClientQuotas")
    grants = [r for (k, _), r in res2.items() if k == "acls"]
    assert len(grants) == 3
    for r in grants:
        assert r["status"] == "skipped" and r["error"].startswith(f"SCRAM user {t} could not be provisioned"), r
    assert writes_seen(proxy) == []  # nothing of a kind that could not be planned is sent, nor its dependents
    # No secret ends up in an error text.
    assert all(SECRET not in (r["error"] or "") for r in [*res.values(), *res2.values()])


# ------------------------------------------------------------------------------------------------- mock


def test_rdkafka_mock_gives_every_entity_an_error_at_once(spark: Any, rdkafka_mock: RunningBroker) -> None:
    from kadmin.spark import provision

    p = unique("tm")
    a, b = f"{p}-a-events", f"{p}-b-events"
    spec = spec_of(spark, topics=[(a, 2, None, '{"retention.ms": "3600000"}'), (b, 1, None, None)],
                   topic_configs=[(a, "cleanup.policy", "compact")], acls=acl_rows([p]),
                   scram_users=[(p, None, None, f"vault:{p}")],
                   quotas=[(p, None, None, "producer_byte_rate", 1024.0)])
    # A long deadline: nothing here may wait for it (the mock lacks these APIs, it does not time out).
    with AdminClient(rdkafka_mock.bootstrap, default_timeout_s=30.0) as admin:
        t0 = time.monotonic()
        res = by_key(provision(spec, admin, "apply"))
        elapsed = time.monotonic() - t0
        assert elapsed < 25, f"waited {elapsed:.1f}s: for the deadline instead of failing at once"
        assert {k for k in res if k[0] in ("topics", "topic_configs")} == {
            ("topics", a), ("topics", b), ("topic_configs", f"{a}:retention.ms"),
            ("topic_configs", f"{a}:cleanup.policy")}
        assert len([k for k in res if k[0] == "acls"]) == 3 and len(res) == 9
        for (kind, _key), r in res.items():
            if kind == "topics":
                assert r["status"] == "failed" and "CreateTopics" in r["error"], r
            elif kind == "topic_configs":
                assert r["status"] == "skipped" and f"topic {a} was not created" in r["error"], r
        # The kinds with no API on the mock at all: each row failed, naming the API; the run went on.
        undescribable(res, "acls", "DescribeAcls")
        undescribable(res, "scram_users", "DescribeUserScramCredentials")
        undescribable(res, "quotas", "DescribeClientQuotas")
    md = CkAdminClient({"bootstrap.servers": rdkafka_mock.bootstrap, "log_level": 0}).list_topics(timeout=10)
    assert not {a, b} & set(md.topics)


# ------------------------------------------------------------------------------------------------- fake


@pytest.fixture(scope="module")
def secured() -> Iterator[FakeCluster]:
    """SASL/SCRAM on every listener, an authorizer, and one super user (the admin)."""
    with FakeCluster(brokers=3, sasl={"mechanisms": ["SCRAM-SHA-256", "SCRAM-SHA-512"],
                                      "users": {"admin": ADMIN_PASSWORD}},
                     authorizer={"super_users": ["User:admin"]}) as cluster:
        yield cluster


def ck_login(cluster: FakeCluster, user: str, password: str, mechanism: str) -> tuple[set[str] | None, list[str]]:
    """Log in with librdkafka's SCRAM client: (topics Metadata shows, []) when it gets in, (None, librdkafka's
    authentication errors) when the broker refuses the credentials."""
    errors: list[Any] = []
    ck = CkAdminClient({"bootstrap.servers": cluster.bootstrap, "security.protocol": "SASL_PLAINTEXT",
                        "sasl.mechanism": mechanism, "sasl.username": user, "sasl.password": password,
                        "log_level": 0, "error_cb": errors.append})
    deadline = time.monotonic() + 8
    while time.monotonic() < deadline:
        try:
            return set(ck.list_topics(timeout=1).topics), []
        except KafkaException:
            ck.poll(0.1)  # serves error_cb
            refused = [e.str() for e in errors if e.code() == CkError._AUTHENTICATION]
            if refused:
                return None, refused
    raise AssertionError(f"{user}/{mechanism}: neither logged in nor refused within 8s: {[str(e) for e in errors]}")


def test_fake_tenant_bundle_read_back_by_kafka_python_and_scram_logins(spark: Any, secured: FakeCluster) -> None:
    from kadmin.spark import provision

    spec = spec_of(
        spark,
        topics=[("a-events", 2, 2, '{"retention.ms": "3600000"}'), ("b-events", 1, None, None)],
        topic_configs=[("a-events", "cleanup.policy", "compact"), ("b-events", "max.message.bytes", "2097152")],
        acls=acl_rows(["a", "b"]),
        scram_users=[("a", None, None, "vault:a"), ("b", "SCRAM-SHA-512", 8192, "vault:b")],
        quotas=[("a", None, None, "producer_byte_rate", 1048576.0)])
    with AdminClient(secured.bootstrap, security_protocol="SASL_PLAINTEXT", sasl_mechanism="SCRAM-SHA-512",
                     sasl_username="admin", sasl_password=ADMIN_PASSWORD) as admin:
        results = provision(spec, admin, "apply")
    res = by_key(results)
    assert {r["status"] for r in res.values()} == {"ok"}, [r for r in res.values() if r["status"] != "ok"]
    assert len([k for k in res if k[0] == "acls"]) == 6
    assert SECRET not in str(results.collect())

    kp = KafkaAdminClient(bootstrap_servers=secured.bootstrap, security_protocol="SASL_PLAINTEXT",
                          sasl_mechanism="SCRAM-SHA-256", sasl_plain_username="admin",
                          sasl_plain_password=ADMIN_PASSWORD, request_timeout_ms=10000)
    try:
        found, err = kp.describe_acls(ACLFilter(None, None, ACLOperation.ANY, ACLPermissionType.ANY,
                                                ResourcePatternFilter(ResourceType.ANY, None,
                                                                      ACLResourcePatternType.ANY)))
        assert err.errno == 0, err
        assert {(x.principal, x.host, x.operation.name, x.permission_type.name, x.resource_pattern.resource_type.name,
                 x.resource_pattern.resource_name, x.resource_pattern.pattern_type.name) for x in found} == {
            (f"User:{t}", "*", op, "ALLOW", rt, f"{t}-", "PREFIXED")
            for t in ("a", "b") for op, rt in (("READ", "TOPIC"), ("WRITE", "TOPIC"), ("READ", "GROUP"))}
        assert {"a-events", "b-events"} <= set(kp.list_topics())
        described = kp.describe_configs([ConfigResource(ConfigResourceType.TOPIC, "a-events"),
                                         ConfigResource(ConfigResourceType.TOPIC, "b-events")])
        values = kafka_python_configs(described)
        own = {(t, k): v for t, entries in values.items() for k, (v, source) in entries.items()
               if source == "DYNAMIC_TOPIC_CONFIG"}
        assert own == {("a-events", "retention.ms"): "3600000", ("a-events", "cleanup.policy"): "compact",
                       ("b-events", "max.message.bytes"): "2097152"}
        parts = {t["name"]: t["partitions"] for t in kp.describe_topics(["a-events", "b-events"])}
        assert len(parts["a-events"]) == 2 and len(parts["b-events"]) == 1
        assert {len(p["replica_nodes"]) for p in parts["a-events"]} == {2}
    finally:
        kp.close()

    # SCRAM logins by librdkafka with the passwords the refs resolve to; the ACLs decide what each one sees.
    seen_a, refused = ck_login(secured, "a", secrets("vault:a"), "SCRAM-SHA-256")
    assert refused == [] and seen_a is not None and "a-events" in seen_a and "b-events" not in seen_a
    seen_b, refused = ck_login(secured, "b", secrets("vault:b"), "SCRAM-SHA-512")
    assert refused == [] and seen_b is not None and "b-events" in seen_b and "a-events" not in seen_b
    for user, password, mechanism in (("a", "wrong-password", "SCRAM-SHA-256"),
                                      ("b", secrets("vault:a"), "SCRAM-SHA-512"),   # another tenant's password
                                      ("a", secrets("vault:a"), "SCRAM-SHA-512")):  # a has no SHA-512 credential
        seen, refused = ck_login(secured, user, password, mechanism)
        assert seen is None and refused, (user, mechanism)
    assert secured.quotas == {(("user", "a"),): {"producer_byte_rate": 1048576.0}}


def kafka_python_configs(described: Any) -> dict[str, dict[str, tuple[str | None, str]]]:
    """kafka-python 3's describe_configs answer ({"topic": {name: {config: {...}}}}) as
    {topic: {config: (value, source)}}."""
    return {topic: {name: (entry["value"], entry["config_source"]) for name, entry in entries.items()}
            for topic, entries in described["topic"].items()}
