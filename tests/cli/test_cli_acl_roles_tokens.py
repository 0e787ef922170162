"""kafka-acls.sh's ``--producer``/``--consumer`` shortcuts, ``kadmin tokens`` (kafka-delegation-tokens.sh),
and the ACL/identity defects of issue #29 (1: whoami cut its operations; 2: a delete suggestion that deleted
nothing; 5: whoami over a token login blamed the TLS certificate; 6: no authorizer was exit 1 with a row per
binding for create/delete but exit 2 for list; 17: configuration errors named Python attributes)."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path

import pytest

from kadmin.testing import FakeCluster
from tests.support.cli import Result, run_main

USERS = {"root": "r00t-pw", "alice": "al1ce-pw"}
SCRAM = "org.apache.kafka.common.security.scram.ScramLoginModule"


@pytest.fixture(scope="module")
def cluster() -> Iterator[FakeCluster]:
    with FakeCluster(brokers=1, sasl={"mechanisms": ["SCRAM-SHA-256"], "users": USERS},
                     authorizer={"super_users": ["User:root"]}, delegation_tokens=True) as c:
        yield c


@pytest.fixture(scope="module")
def root_props(cluster: FakeCluster, tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("props") / "root.properties"
    path.write_text("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-256\n"
                    f'sasl.jaas.config={SCRAM} required username="root" password="{USERS["root"]}";\n')
    return str(path)


def as_root(cluster: FakeCluster, props: str, *args: str) -> Result:
    return run_main("-b", cluster.bootstrap, "--command-config", props, *args)


def bindings(cluster: FakeCluster, props: str) -> set[tuple[str, str, str, str]]:
    r = as_root(cluster, props, "-o", "json", "acls", "list")
    assert r.code == 0, r.err
    return {(b["resource_type"], b["name"], b["operation"], b["principal"]) for b in r.json()["bindings"]}


@pytest.fixture
def no_acls(cluster: FakeCluster) -> None:
    cluster.clear_acls()


def test_producer_shortcut_makes_kafka_acls_producer_bindings(cluster: FakeCluster, root_props: str,
                                                              no_acls: None) -> None:
    r = as_root(cluster, root_props, "acls", "create", "--producer", "--topic", "orders", "--transactional-id",
                "tx-1", "--idempotent", "--allow-principal", "User:alice")
    assert r.code == 0, r.err
    a = "User:alice"
    assert bindings(cluster, root_props) == {
        ("TOPIC", "orders", "WRITE", a), ("TOPIC", "orders", "DESCRIBE", a), ("TOPIC", "orders", "CREATE", a),
        ("TRANSACTIONAL_ID", "tx-1", "WRITE", a), ("TRANSACTIONAL_ID", "tx-1", "DESCRIBE", a),
        ("CLUSTER", "kafka-cluster", "IDEMPOTENT_WRITE", a)}


def test_consumer_shortcut_makes_and_removes_kafka_acls_consumer_bindings(cluster: FakeCluster, root_props: str,
                                                                          no_acls: None) -> None:
    r = as_root(cluster, root_props, "acls", "create", "--consumer", "--topic", "orders", "--group", "billing",
                "--allow-principal", "User:alice")
    assert r.code == 0, r.err
    a = "User:alice"
    assert bindings(cluster, root_props) == {
        ("TOPIC", "orders", "READ", a), ("TOPIC", "orders", "DESCRIBE", a), ("GROUP", "billing", "READ", a)}
    as_root(cluster, root_props, "acls", "create", "--topic", "orders", "--operation", "alter",
            "--allow-principal", a)
    r = as_root(cluster, root_props, "acls", "delete", "--consumer", "--topic", "orders", "--group", "billing",
                "--allow-principal", a)
    assert r.code == 0, r.err
    assert bindings(cluster, root_props) == {("TOPIC", "orders", "ALTER", a)}  # only the role's bindings went


@pytest.mark.parametrize(("args", "says"), [
    (["--consumer", "--topic", "t"], "--consumer needs a --group"),
    (["--producer", "--topic", "t", "--operation", "read"], "leave --operation out"),
    (["--producer", "--group", "g", "--topic", "t"], "--group goes with --consumer"),
    (["--producer"], "at least one --topic"),
    (["--idempotent", "--topic", "t", "--operation", "write"], "--idempotent goes with --producer"),
    (["--producer", "--topic", "t", "--deny-principal", "User:bob"], "leave --deny-principal"),
])
def test_role_shortcuts_are_refused_as_kafka_acls_refuses_them(cluster: FakeCluster, root_props: str,
                                                               args: list[str], says: str) -> None:
    cluster.clear_log()
    r = as_root(cluster, root_props, "acls", "create", *args, "--allow-principal", "User:alice")
    assert r.code == 2
    assert says in r.err


def test_token_create_describe_renew_expire(cluster: FakeCluster, root_props: str) -> None:
    r = as_root(cluster, root_props, "-o", "json", "tokens", "create", "--renewer-principal", "User:alice",
                "--max-life-time-period", "3600000")
    assert r.code == 0, r.err
    token = r.json()["token"]
    assert token["owner"] == "User:root" and token["renewers"] == ["User:alice"]
    hmac = token["hmac"]
    base64.b64decode(hmac, validate=True)
    table = as_root(cluster, root_props, "tokens", "describe")
    assert table.code == 0 and token["token_id"] in table.out
    assert hmac not in table.out  # the password is printed by create only
    described = as_root(cluster, root_props, "-o", "json", "tokens", "describe", "--owner-principal", "User:root")
    [listed] = [t for t in described.json()["tokens"] if t["token_id"] == token["token_id"]]
    assert "hmac" not in listed
    assert listed["max_timestamp"] == token["max_timestamp"]
    renewed = as_root(cluster, root_props, "-o", "json", "tokens", "renew", "--hmac", hmac, "--renew-time-period",
                      "1000")
    assert renewed.code == 0, renewed.err
    assert renewed.json()["expiry_timestamp"] <= token["max_timestamp"]
    expired = as_root(cluster, root_props, "tokens", "expire", "--hmac", hmac, "--expiry-time-period", "-1")
    assert expired.code == 0, expired.err
    gone = as_root(cluster, root_props, "-o", "json", "tokens", "describe")
    assert token["token_id"] not in {t["token_id"] for t in gone.json()["tokens"]}


def test_token_table_times_are_iso_8601(cluster: FakeCluster, root_props: str) -> None:
    r = as_root(cluster, root_props, "tokens", "create")
    assert r.code == 0, r.err
    header, row = r.out.splitlines()[:2]
    assert "EXPIRES" in header
    assert "Z" in row and "T" in row.split()[-1]
    assert r.out.count("HMAC: ") == 1


def test_a_bad_hmac_is_a_usage_error(cluster: FakeCluster, root_props: str) -> None:
    r = as_root(cluster, root_props, "tokens", "renew", "--hmac", "not base64!")
    assert r.code == 2
    assert "--hmac" in r.err


def test_whoami_over_a_token_login_names_the_token_owner(cluster: FakeCluster, root_props: str,
                                                         tmp_path: Path) -> None:
    token = as_root(cluster, root_props, "-o", "json", "tokens", "create").json()["token"]
    props = tmp_path / "token.properties"
    props.write_text("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-256\n"
                     f'sasl.jaas.config={SCRAM} required username="{token["token_id"]}" '
                     f'password="{token["hmac"]}" tokenauth="true";\n')
    r = run_main("-b", cluster.bootstrap, "--command-config", str(props), "acls", "whoami")
    assert r.code == 0, r.err
    assert "TLS certificate" not in r.out
    assert "delegation token" in r.out


def test_whoami_lists_every_cluster_operation_whole(cluster: FakeCluster, root_props: str) -> None:
    r = as_root(cluster, root_props, "acls", "whoami")
    assert r.code == 0, r.err
    assert "~" not in r.out
    assert "IDEMPOTENT_WRITE" in r.out and "DESCRIBE_CONFIGS" in r.out
    assert all(len(line) <= 100 for line in r.out.splitlines())


def test_delete_without_resource_suggests_nothing_that_deletes_nothing(cluster: FakeCluster) -> None:
    r = run_main("-b", cluster.bootstrap, "acls", "delete")
    assert r.code == 2
    assert "--resource-pattern-type any" not in r.err
    assert "kadmin acls list" in r.err


@pytest.mark.parametrize("args", [
    ["acls", "list"],
    ["acls", "create", "--topic", "t", "--allow-principal", "User:a", "--operation", "read", "--operation", "write"],
    ["acls", "delete", "--topic", "t"],
    ["acls", "delete", "--topic", "t", "--group", "g"],
])
def test_no_authorizer_is_exit_2_with_one_line_for_every_acl_command(args: list[str]) -> None:
    with FakeCluster(brokers=1) as plain:
        r = run_main("-b", plain.bootstrap, *args)
    assert r.code == 2, (r.out, r.err)
    assert r.err.count("SECURITY_DISABLED") == 1 and len(r.err_lines) == 1
    assert r.out == ""


def test_a_properties_error_names_the_properties_not_python_attributes(tmp_path: Path) -> None:
    props = tmp_path / "bad.properties"
    props.write_text("security.protocol=PLAINTEXT\nsasl.mechanism=PLAIN\n")
    r = run_main("-b", "127.0.0.1:1", "--command-config", str(props), "groups", "list")
    assert r.code == 2
    assert "security.protocol" in r.err and "sasl.mechanism" in r.err
    assert "security_protocol" not in r.err and "sasl_mechanism" not in r.err
