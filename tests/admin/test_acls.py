"""ACLs: types and validation, the fake cluster's authorizer rules, and kadmin's operations against the fake,
read back with kafka-python's KafkaAdminClient (an independent client) so that one bug cannot hide on both
sides.  Traffic claims ("nothing was sent", "three requests") come from the fake's request log.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import pytest
from kafka.admin import (
    ACL,
    ACLFilter,
    ACLOperation,
    ACLPermissionType,
    ACLResourcePatternType,
    KafkaAdminClient,
)
from kafka.admin import ResourcePattern as KpPattern
from kafka.admin import ResourcePatternFilter as KpPatternFilter
from kafka.admin import ResourceType as KpResourceType

from kadmin.acls import (
    AccessControlEntry,
    AccessControlEntryFilter,
    AclBinding,
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourcePattern,
    ResourcePatternFilter,
    ResourceType,
    operations_from_bits,
)
from kadmin.client import AdminClient
from kadmin.errors import (
    ClusterAuthorizationFailedError,
    InvalidRequestError,
    KafkaTimeoutError,
    SecurityDisabledError,
    UnsupportedVersionError,
)
from kadmin.testing import FakeCluster
from kadmin.versions import release_table
from tests.support.clusters import shared_cluster

ADMIN = {"super_users": ["User:ANONYMOUS"]}


cluster = shared_cluster(brokers=3, authorizer=ADMIN)


@pytest.fixture
def fresh(cluster: FakeCluster) -> FakeCluster:
    cluster.clear_acls()
    cluster.clear_log()
    cluster.clear_faults()
    return cluster


@pytest.fixture(scope="module")
def admin(cluster: FakeCluster) -> Iterator[AdminClient]:
    with AdminClient(cluster.bootstrap, default_timeout_s=10) as a:
        yield a


@pytest.fixture(scope="module")
def kp(cluster: FakeCluster) -> Iterator[KafkaAdminClient]:
    client = KafkaAdminClient(bootstrap_servers=cluster.bootstrap, request_timeout_ms=10000)
    yield client
    client.close()


def acl_requests(c: FakeCluster) -> int:
    return sum(c.count(api) for api in ("DescribeAcls", "CreateAcls", "DeleteAcls"))


def kp_bindings(kp: KafkaAdminClient) -> set[tuple[str, str, str, str, str, str, str]]:
    flt = ACLFilter(None, None, ACLOperation.ANY, ACLPermissionType.ANY,
                    KpPatternFilter(KpResourceType.ANY, None, ACLResourcePatternType.ANY))
    found, err = kp.describe_acls(flt)
    assert err.errno == 0
    return {(a.resource_pattern.resource_type.name, a.resource_pattern.resource_name,
             a.resource_pattern.pattern_type.name, a.principal, a.host, a.operation.name, a.permission_type.name)
            for a in found}


# --- types and validation ------------------------------------------------------------------------------------


def test_names_codes_and_spellings() -> None:
    assert ResourceType.parse("transactional-id") is ResourceType.TRANSACTIONAL_ID == 5
    assert AclOperation.parse("Describe_Configs") is AclOperation.parse("describe configs") == 10
    assert PatternType.parse("PREFIXED") == 4 and AclPermissionType.parse("deny") == 2
    assert AclOperation.from_code(99) is AclOperation.UNKNOWN
    assert operations_from_bits((1 << 3) | (1 << 8)) == {AclOperation.READ, AclOperation.DESCRIBE}
    assert operations_from_bits(-(2**31)) == frozenset()


def test_equal_bindings_hash_alike_however_built_and_across_processes() -> None:
    """The binding's hash is cached at construction; every way of making one must give equal bindings one hash
    (they are the keys of create_acls' results), and a pickled one must not carry this process's str hashes."""
    import pickle
    import subprocess
    import sys

    from kadmin.acls import binding_from_wire

    ways = [AclBinding.of("topic", "orders-", "User:a", "read", pattern_type="prefixed"),
            AclBinding.of(ResourceType.TOPIC, "orders-", "User:a", AclOperation.READ, "Allow", pattern_type="PREFIXED"),
            AclBinding(ResourcePattern("Topic", "orders-", PatternType.PREFIXED),
                       AccessControlEntry("User:a", "read", AclPermissionType.ALLOW, "*")),
            binding_from_wire(2, "orders-", 4, "User:a", "*", 3, 3),
            pickle.loads(pickle.dumps(AclBinding.of("topic", "orders-", "User:a", "read", pattern_type="prefixed")))]
    assert len(set(ways)) == 1 and all(w == ways[0] and hash(w) == hash(ways[0]) for w in ways)
    assert AclBinding.of("topic", "orders-", "User:a", "read") not in set(ways)  # literal, not prefixed
    f = AclBindingFilter.of("topic", "orders-", principal="User:a", pattern_type="match")
    assert pickle.loads(pickle.dumps(f)) == f and hash(pickle.loads(pickle.dumps(f))) == hash(f)
    code = ("import pickle, sys; from kadmin.acls import AclBinding; "
            "b = pickle.loads(sys.stdin.buffer.read()); "
            "print({AclBinding.of('topic', 'orders-', 'User:a', 'read', pattern_type='prefixed'): 1}.get(b))")
    for seed in ("1", "2"):
        out = subprocess.run([sys.executable, "-c", code], input=pickle.dumps(ways[0]), capture_output=True,
                             env={"PYTHONHASHSEED": seed, "PATH": ""}, check=True)
        assert out.stdout.strip() == b"1", out.stderr


def test_a_reported_binding_keeps_what_the_broker_said_and_only_the_wire_path_skips_the_checks() -> None:
    """Issue #24: a binding's parts are made without their constructor's checks in one fenced place per class
    (``_reported``), called only by binding_from_wire: what a newer broker or another tool stored (codes this
    kadmin does not know, a principal without a type) is reported as it is, never refused, and no caller-facing
    path skips the checks."""
    import ast
    from pathlib import Path

    from kadmin.acls import binding_from_wire

    odd = binding_from_wire(99, "t", 42, "alice", "", 77, 9)
    assert (odd.pattern.resource_type, odd.pattern.pattern_type) == (ResourceType.UNKNOWN, PatternType.UNKNOWN)
    assert (odd.entry.operation, odd.entry.permission) == (AclOperation.UNKNOWN, AclPermissionType.UNKNOWN)
    assert (odd.entry.principal, odd.entry.host) == ("alice", "")
    with pytest.raises(ValueError):
        AclBinding.of(ResourceType.UNKNOWN, "t", "alice", "read")  # the caller's path still checks
    import kadmin

    package = Path(kadmin.__file__).resolve().parent
    bypasses: list[str] = []
    callers: list[str] = []
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text())
        scopes = {id(n): s.name for s in ast.walk(tree)
                  if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) for n in ast.walk(s)}
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and node.attr == "__new__" and isinstance(node.value, ast.Name)
                    and node.value.id == "object" and path.name == "acls.py" and path.parent == package):
                bypasses.append(scopes.get(id(node), "<module>"))
            if isinstance(node, ast.Attribute) and node.attr == "_reported":
                callers.append(f"{path.name}:{scopes.get(id(node), '<module>')}")
    assert bypasses == ["_reported", "_reported"]
    assert callers == ["acls.py:binding_from_wire"] * 2


@pytest.mark.parametrize(("make", "exc", "text"), [
    (lambda: ResourcePattern(2, "t"), TypeError, "ResourceType or its name"),  # type: ignore[arg-type]
    (lambda: ResourcePattern("topic", "t", True), TypeError, "PatternType or its name"),  # type: ignore[arg-type]
    (lambda: ResourcePattern("topic", b"t"), TypeError, "resource name must be a string"),  # type: ignore[arg-type]
    (lambda: AclBinding.of("topic", "t", "User:a", "fly"), ValueError, "unknown acl operation 'fly'"),
    (lambda: AclBinding.of("topic", "t", "User:a", "read", "maybe"), ValueError, "unknown permission"),
    (lambda: AclBinding.of("table", "t", "User:a", "read"), ValueError, "unknown resource type"),
    (lambda: AclBinding.of("topic", "t", "alice", "read"), ValueError, "Type:name"),
    (lambda: AclBinding.of("topic", "t", ":alice", "read"), ValueError, "Type:name"),
    (lambda: AclBinding.of("topic", "t", "User:a", "read", pattern_type="any"), ValueError, "LITERAL or PREFIXED"),
    (lambda: AclBinding.of("topic", "t", "User:a", "read", pattern_type="match"), ValueError, "LITERAL or PREFIXED"),
    (lambda: AclBinding.of("any", "t", "User:a", "read"), ValueError, "concrete resource type"),
    (lambda: AclBinding.of("topic", "t", "User:a", "any"), ValueError, "concrete operation"),
    (lambda: AclBinding.of("topic", "t", "User:a", "read", "any"), ValueError, "ALLOW or DENY"),
    (lambda: AclBinding.of("topic", "", "User:a", "read"), ValueError, "name is empty"),
    (lambda: AclBinding.of("cluster", "c1", "User:a", "alter"), ValueError, "kafka-cluster"),
    (lambda: AclBinding.of("topic", "t", "User:a", "read", host=""), ValueError, "host is empty"),
    (lambda: AclBinding.of("topic", "t", 7, "read"), TypeError, "principal must be a string"),  # type: ignore[arg-type]
    (lambda: AclBinding.of("topic", "t", "User:a", 3), TypeError, "AclOperation or its name"),  # type: ignore[arg-type]
    (lambda: AclBindingFilter.of(principal="alice"), ValueError, "Type:name"),
    (lambda: AclBindingFilter.of(operation="unknown"), ValueError, "not UNKNOWN"),
    (lambda: AclBindingFilter.of(resource_type="unknown"), ValueError, "not UNKNOWN"),
    (lambda: AclBinding("x", "y"), TypeError, "ResourcePattern"),  # type: ignore[arg-type]
])
def test_bad_bindings_and_filters_are_refused_at_construction(make: Any, exc: type[Exception], text: str) -> None:
    with pytest.raises(exc, match=text):
        make()


def test_bad_input_to_the_calls_sends_nothing(fresh: FakeCluster, admin: AdminClient) -> None:
    good = AclBinding.of("topic", "t", "User:a", "read")
    for call in (lambda: admin.create_acls("topic:t"),  # type: ignore[arg-type]
                 lambda: admin.create_acls([good, "x"]),  # type: ignore[list-item]
                 lambda: admin.create_acls([good], batch_size=0),
                 lambda: admin.delete_acls(AclBindingFilter.all()),  # type: ignore[arg-type]
                 lambda: admin.describe_acls(good),  # type: ignore[arg-type]
                 lambda: admin.describe_acls(principal="alice"),
                 lambda: admin.describe_acls(AclBindingFilter.all(), principal="User:a")):
        with pytest.raises((TypeError, ValueError)):
            call()
    assert acl_requests(fresh) == 0


def test_filter_matching_rules() -> None:
    lit = ResourcePattern("topic", "orders", "literal")
    star = ResourcePattern("topic", "*")
    pre = ResourcePattern("topic", "ord", "prefixed")
    match = ResourcePatternFilter("topic", "orders", "match")
    assert match.matches(lit) and match.matches(star) and match.matches(pre)
    assert not match.matches(ResourcePattern("topic", "orders-x"))
    assert not match.matches(ResourcePattern("group", "orders"))
    assert ResourcePatternFilter("topic", "ord", "prefixed").matches(pre)
    assert not ResourcePatternFilter("topic", "ord", "literal").matches(pre)
    assert AccessControlEntryFilter("User:a").matches(AccessControlEntry("User:a", "read", "allow"))
    assert not AccessControlEntryFilter("User:a").matches(AccessControlEntry("User:*", "read", "allow"))


# --- the fake's authorizer ------------------------------------------------------------------------------------


def test_fake_authorizer_follows_kafkas_rules() -> None:
    with FakeCluster(brokers=1, authorizer={"super_users": ["User:root"]}, start=False) as c:
        assert not c.authorize("User:alice", "topic", "t", "read")  # no ACL on the resource: denied
        assert c.authorize("User:root", "topic", "t", "alter")  # super user
        c.add_acl("topic", "pay-", "User:alice", "read", pattern_type="prefixed")
        assert c.authorize("User:alice", "topic", "pay-1", "read")
        assert c.authorize("User:alice", "topic", "pay-1", "describe")  # READ implies DESCRIBE
        assert not c.authorize("User:alice", "topic", "pay-1", "write")
        assert not c.authorize("User:alice", "topic", "pa", "read")  # shorter than the prefix
        assert not c.authorize("User:bob", "topic", "pay-1", "read")
        c.add_acl("topic", "pay-secret", "User:alice", "read", "deny")
        assert not c.authorize("User:alice", "topic", "pay-secret", "read")  # deny wins over the prefix allow
        assert c.authorize("User:alice", "topic", "pay-secret", "describe")  # a READ deny is not a DESCRIBE deny
        c.add_acl("topic", "*", "User:*", "describe")
        assert c.authorize("User:bob", "topic", "anything", "describe")  # wildcard name and principal
        assert not c.authorize("User:bob", "topic", "anything", "read")
        c.add_acl("group", "g", "User:alice", "all", host="10.0.0.1")
        assert c.authorize("User:alice", "group", "g", "delete", host="10.0.0.1")
        assert not c.authorize("User:alice", "group", "g", "delete", host="10.0.0.2")
        c.add_acl("group", "g", "User:alice", "all", "deny", host="10.0.0.1")
        assert not c.authorize("User:alice", "group", "g", "read", host="10.0.0.1")
    with FakeCluster(brokers=1, authorizer={"allow_everyone_if_no_acl_found": True}, start=False) as c:
        assert c.authorize("User:x", "topic", "free", "write")
        c.add_acl("topic", "guarded", "User:a", "read")
        assert not c.authorize("User:x", "topic", "guarded", "read")


def test_acl_apis_without_an_authorizer_are_security_disabled() -> None:
    with FakeCluster(brokers=1) as c, AdminClient(c.bootstrap, default_timeout_s=5) as a:
        with pytest.raises(SecurityDisabledError):
            a.describe_acls()
        b = AclBinding.of("topic", "t", "User:a", "read")
        assert isinstance(a.create_acls([b])[b], SecurityDisabledError)


# --- kadmin against the fake, read back independently ---------------------------------------------------------


def test_created_acls_read_back_by_kafka_python(fresh: FakeCluster, admin: AdminClient,
                                                kp: KafkaAdminClient) -> None:
    bindings = [
        AclBinding.of("topic", "orders", "User:alice", "read"),
        AclBinding.of("topic", "orders", "User:alice", "write", "deny", host="10.1.2.3"),
        AclBinding.of("group", "bob-", "User:bob", "read", pattern_type="prefixed"),
        AclBinding.of("cluster", "kafka-cluster", "User:ops", "describe_configs"),
        AclBinding.of("transactional_id", "tx-*", "User:app", "write"),
        AclBinding.of("topic", "*", "User:*", "describe"),
    ]
    res = admin.create_acls(bindings)
    assert list(res) == bindings and all(v is None for v in res.values())
    assert kp_bindings(kp) == {
        ("TOPIC", "orders", "LITERAL", "User:alice", "*", "READ", "ALLOW"),
        ("TOPIC", "orders", "LITERAL", "User:alice", "10.1.2.3", "WRITE", "DENY"),
        ("GROUP", "bob-", "PREFIXED", "User:bob", "*", "READ", "ALLOW"),
        ("CLUSTER", "kafka-cluster", "LITERAL", "User:ops", "*", "DESCRIBE_CONFIGS", "ALLOW"),
        ("TRANSACTIONAL_ID", "tx-*", "LITERAL", "User:app", "*", "WRITE", "ALLOW"),
        ("TOPIC", "*", "LITERAL", "User:*", "*", "DESCRIBE", "ALLOW"),
    }
    # and what kadmin describes is exactly what it created
    assert set(admin.describe_acls()) == set(bindings)


def test_acls_written_by_kafka_python_are_described_by_kadmin(fresh: FakeCluster, admin: AdminClient,
                                                               kp: KafkaAdminClient) -> None:
    theirs = ACL("User:carol", "*", ACLOperation.ALTER, ACLPermissionType.ALLOW,
                 KpPattern(KpResourceType.TOPIC, "inv-", ACLResourcePatternType.PREFIXED))
    assert kp.create_acls([theirs])["failed"] == []
    listing = admin.describe_acls(AclBindingFilter.of("topic", "inv-1", pattern_type="match"))
    assert list(listing) == [AclBinding.of("topic", "inv-", "User:carol", "alter", pattern_type="prefixed")]


def test_principal_view_folds_per_resource_and_includes_wildcard_grants(fresh: FakeCluster,
                                                                       admin: AdminClient) -> None:
    mine = [AclBinding.of("topic", "a", "User:alice", op) for op in ("read", "write")]
    everyone = AclBinding.of("topic", "*", "User:*", "describe")
    other = AclBinding.of("topic", "a", "User:bob", "read")
    admin.create_acls([*mine, everyone, other])
    fresh.clear_log()
    view = admin.describe_acls(principal="User:alice")
    assert fresh.count("DescribeAcls") == 2  # her own bindings and User:*'s
    assert view.by_resource() == {ResourcePattern("topic", "*"): (everyone.entry,),
                                  ResourcePattern("topic", "a"): tuple(b.entry for b in mine)}
    assert other not in view


def test_many_bindings_are_batched(fresh: FakeCluster, admin: AdminClient) -> None:
    bindings = [AclBinding.of("topic", f"t-{i}", "User:batch", "read") for i in range(2500)]
    res = admin.create_acls(bindings, batch_size=1000)
    assert len(res) == 2500 and all(v is None for v in res.values())
    assert fresh.count("CreateAcls") == math.ceil(2500 / 1000)
    assert len(fresh.acls) == 2500
    gone = admin.delete_acls([AclBindingFilter.of("topic", f"t-{i}") for i in range(10)]
                             + [AclBindingFilter.of(principal="User:batch")], batch_size=4)
    assert fresh.count("DeleteAcls") == 3
    deleted = [d.deleted for d in gone.values()]  # type: ignore[union-attr]
    assert [len(d) for d in deleted[:10]] == [1] * 10
    # The last request matches its filters before deleting (as Kafka does), so the principal filter also
    # reports t-8 and t-9, deleted by filters in the same request.
    assert len(deleted[10]) == 2492
    assert len({b for d in deleted for b in d}) == 2500
    assert fresh.acls == []


def test_per_binding_errors_come_back_in_order(fresh: FakeCluster, admin: AdminClient) -> None:
    ok = AclBinding.of("topic", "fine", "User:a", "read")
    bad = AclBinding.of("topic", "x", "User:a", "read")
    fresh.inject(None, "CreateAcls", 42, count=1)  # INVALID_REQUEST for the whole (only) request
    res = admin.create_acls([bad])
    assert isinstance(res[bad], InvalidRequestError)
    res = admin.create_acls([ok, bad])
    assert res == {ok: None, bad: None}


def test_lost_delete_is_reported_possibly_applied(fresh: FakeCluster, admin: AdminClient) -> None:
    admin.create_acls([AclBinding.of("topic", "doomed", "User:a", "read")])
    fresh.drop_connection(None, "DeleteAcls", when="after")
    flt = AclBindingFilter.of("topic", "doomed")
    res = admin.delete_acls([flt])[flt]
    assert isinstance(res, KafkaTimeoutError) and res.possibly_applied
    assert fresh.acls == []  # it was in fact applied


def test_not_authorized_principal_gets_cluster_authorization_failed() -> None:
    cfg = {"mechanism": "PLAIN", "users": {"root": "r", "eve": "e"}}
    with FakeCluster(brokers=1, sasl=cfg, authorizer={"super_users": ["User:root"]}) as c:
        settings = dict(security_protocol="SASL_PLAINTEXT", sasl_mechanism="PLAIN", default_timeout_s=5)
        with AdminClient(c.bootstrap, sasl_username="eve", sasl_password="e", **settings) as eve:
            with pytest.raises(ClusterAuthorizationFailedError):
                eve.describe_acls()
            b = AclBinding.of("topic", "t", "User:eve", "all")
            assert isinstance(eve.create_acls([b])[b], ClusterAuthorizationFailedError)
            who = eve.whoami()
            assert who.principal == "User:eve" and who.cluster_operations == frozenset()
        c.add_acl("cluster", "kafka-cluster", "User:eve", "describe")
        with AdminClient(c.bootstrap, sasl_username="eve", sasl_password="e", **settings) as eve:
            assert list(eve.describe_acls(principal="User:eve")) == [
                AclBinding.of("cluster", "kafka-cluster", "User:eve", "describe")]
            assert eve.whoami().cluster_operations == {AclOperation.DESCRIBE}
        with AdminClient(c.bootstrap, sasl_username="root", sasl_password="r", **settings) as root:
            assert AclOperation.ALTER in (root.whoami().cluster_operations or ())


# --- per-node negotiation ---------------------------------------------------------------------------------------


def _acl_v0(release: str = "3.9") -> dict[int, tuple[int, int]]:
    """A broker whose ACL APIs stop at v0, as before Kafka 2.0 (KIP-290)."""
    table = release_table(release)
    for key in (29, 30, 31):
        table[key] = (0, 0)
    return table


def test_prefixed_is_refused_unsent_where_no_node_speaks_v1() -> None:
    with FakeCluster(brokers=2, versions=_acl_v0(), authorizer=ADMIN) as c, \
            AdminClient(c.bootstrap, default_timeout_s=5) as a:
        lit = AclBinding.of("topic", "orders", "User:a", "read")
        pre = AclBinding.of("topic", "orders-", "User:a", "read", pattern_type="prefixed")
        res = a.create_acls([lit, pre])
        assert res[lit] is None
        assert isinstance(res[pre], UnsupportedVersionError) and "v1+" in res[pre].message
        sent = [k for e in c.request_log if e.api_key == 30 for k in e.keys]
        assert sent == ["2:orders:User:a:3"] and {e.version for e in c.request_log if e.api_key == 30} == {0}
        assert [b.pattern.pattern_type for b in a.describe_acls()] == [PatternType.LITERAL]
        with pytest.raises(UnsupportedVersionError):
            a.describe_acls(AclBindingFilter.of("topic", "orders-1", pattern_type="match"))


def test_user_resources_need_v3() -> None:
    table = release_table("2.6")
    assert table[30] == (0, 2)  # Kafka 2.6: no USER resource type yet
    with FakeCluster(brokers=1, versions=table, authorizer=ADMIN) as c, \
            AdminClient(c.bootstrap, default_timeout_s=5) as a:
        user = AclBinding.of("user", "bob", "User:ops", "create_tokens")
        pre = AclBinding.of("topic", "bob-", "User:bob", "read", pattern_type="prefixed")
        res = a.create_acls([user, pre])
        assert res[pre] is None and isinstance(res[user], UnsupportedVersionError) and "v3+" in res[user].message
        assert [a.resource_type for a in c.acls] == ["TOPIC"]


def test_mixed_cluster_sends_prefixed_bindings_to_a_node_that_carries_them() -> None:
    with FakeCluster(brokers=2, versions={1: _acl_v0(), 2: "3.9"}, authorizer=ADMIN) as c, \
            AdminClient(c.bootstrap, default_timeout_s=5) as a:
        pre = AclBinding.of("group", "bob-", "User:bob", "read", pattern_type="prefixed")
        assert a.create_acls([pre]) == {pre: None}
        assert {(e.node_id, e.version) for e in c.request_log if e.api_key == 30} == {(2, 3)}
        assert list(a.describe_acls(AclBindingFilter.of(pattern_type="prefixed"))) == [pre]


def test_no_broker_with_the_acl_apis_is_one_clear_error() -> None:
    table = release_table("3.9")
    for key in (29, 30, 31):
        del table[key]
    with FakeCluster(brokers=1, versions=table, authorizer=ADMIN) as c, \
            AdminClient(c.bootstrap, default_timeout_s=5) as a:
        with pytest.raises(UnsupportedVersionError, match="DescribeAcls"):
            a.describe_acls()
        with pytest.raises(UnsupportedVersionError, match="CreateAcls"):
            a.create_acls([AclBinding.of("topic", "t", "User:a", "read")])


# --- the authorizer is enforced on every API the fake serves ------------------------------------------------


def test_every_api_enforces_the_authorizer() -> None:
    """A principal with a few grants sees exactly those, through each API family (topics, configs, groups,
    offsets, quotas, cluster-wide calls), with Kafka's error per key."""
    from kadmin.configs import ConfigResource
    from kadmin.errors import (
        GroupAuthorizationFailedError,
        TopicAuthorizationFailedError,
    )
    from kadmin.quotas import ClientQuotaFilter
    from kadmin.topics import NewTopic
    from kadmin.types import TopicPartition

    cfg = {"mechanism": "PLAIN", "users": {"root": "r", "eve": "e"}}
    with FakeCluster(brokers=2, sasl=cfg, authorizer={"super_users": ["User:root"]}) as c:
        c.add_topic("open", partitions=1, offsets=5)
        c.add_topic("secret", partitions=1, offsets=5)
        c.add_group("eve-g")
        c.add_group("other-g")
        c.commit("eve-g", "open", 0, 3)
        c.commit("eve-g", "secret", 0, 2)
        for op in ("describe", "describe_configs", "delete"):
            c.add_acl("topic", "open", "User:eve", op)
        c.add_acl("group", "eve-", "User:eve", "read", pattern_type="prefixed")
        settings = dict(security_protocol="SASL_PLAINTEXT", sasl_mechanism="PLAIN", default_timeout_s=5)
        with AdminClient(c.bootstrap, sasl_username="eve", sasl_password="e", **settings) as eve:
            assert [t.name for t in eve.list_topics()] == ["open"]
            got = eve.describe_topics(["open", "secret", "missing"])
            assert not isinstance(got["open"], Exception)
            assert isinstance(got["secret"], TopicAuthorizationFailedError)
            assert isinstance(got["missing"], TopicAuthorizationFailedError)  # existence does not leak
            created = eve.create_topics([NewTopic("new", 1, 1)])
            assert isinstance(created["new"], TopicAuthorizationFailedError)
            configs = eve.describe_configs([ConfigResource.topic("open"), ConfigResource.topic("secret")])
            assert not isinstance(configs[ConfigResource.topic("open")], Exception)
            assert isinstance(configs[ConfigResource.topic("secret")], TopicAuthorizationFailedError)
            groups = eve.describe_consumer_groups(["eve-g", "other-g"])
            assert not isinstance(groups["eve-g"], Exception)
            assert isinstance(groups["other-g"], GroupAuthorizationFailedError)
            assert [g.group_id for g in eve.list_consumer_groups().groups] == ["eve-g"]
            offsets = eve.list_consumer_group_offsets(["eve-g"])["eve-g"]
            assert set(offsets) == {TopicPartition("open", 0)}  # type: ignore[arg-type]
            ends = eve.list_offsets({TopicPartition("open", 0): "latest", TopicPartition("secret", 0): "latest"})
            assert isinstance(ends[TopicPartition("secret", 0)], TopicAuthorizationFailedError)
            with pytest.raises(ClusterAuthorizationFailedError):
                eve.describe_client_quotas(ClientQuotaFilter.all())
            assert isinstance(eve.delete_topics(["secret"])["secret"], TopicAuthorizationFailedError)
            assert eve.delete_topics(["open"]) == {"open": None}
        assert set(c.topics) == {"secret"}


def test_whoami_on_a_broker_without_describe_cluster() -> None:
    with FakeCluster(brokers=1, versions="2.6") as c, AdminClient(c.bootstrap, default_timeout_s=5) as a:
        me = a.whoami()
        assert (me.principal, me.cluster_operations) == ("User:ANONYMOUS", None)
