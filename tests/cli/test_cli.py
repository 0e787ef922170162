"""The kadmin CLI as a user runs it: a subprocess against the in-process FakeCluster.

Each test checks what comes out (JSON parsed, tables by their lines), the exit status, and for bad input
that nothing reached the cluster (the fake's request log).  ``run_cli`` and ``run_main`` are in
tests/support/cli.py.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from kadmin import __version__
from kadmin.testing import FakeCluster, Member
from tests.support.cli import ROOT, Result, assert_fits, cli_env, run_cli, run_main

pytestmark = pytest.mark.fake_cluster(brokers=2)


@pytest.fixture(scope="module")
def demo() -> Iterator[FakeCluster]:
    """A 3-broker cluster seeded as ``kadmin demo`` seeds it; tests here only read it."""
    from kadmin.testing.__main__ import seed_demo

    with FakeCluster(brokers=3) as cluster:
        seed_demo(cluster)
        yield cluster


@pytest.fixture
def cluster(fake_cluster: FakeCluster) -> FakeCluster:
    """A cluster of the test's own, for tests that change state or read the request log."""
    from kadmin.testing.__main__ import seed_demo

    seed_demo(fake_cluster)
    fake_cluster.clear_log()
    return fake_cluster


# --- basics -------------------------------------------------------------------------------------------------


def test_version_comes_from_the_one_version_module() -> None:
    r = run_cli("--version")
    assert (r.code, r.out.strip()) == (0, f"kadmin {__version__}")


def test_no_command_and_unknown_options_are_one_line_usage_errors() -> None:
    for args in ((), ("groups",), ("groups", "describe"), ("--output", "yaml", "groups", "list"), ("nope",)):
        r = run_cli(*args)
        assert r.code == 2, (args, r)
        assert len(r.err_lines) == 1 and r.err.startswith("kadmin"), (args, r.err)
        assert r.out == ""


def test_without_bootstrap_servers_it_is_a_usage_error_but_the_env_works(demo: FakeCluster) -> None:
    r = run_cli("groups", "list")
    assert r.code == 2
    assert r.err_lines == [r.err_lines[0]] and "KADMIN_BOOTSTRAP_SERVERS" in r.err
    r = run_cli("-o", "json", "groups", "list", env={"KADMIN_BOOTSTRAP_SERVERS": demo.bootstrap})
    assert r.code == 0, r.err
    assert "billing" in [g["group_id"] for g in r.json()["groups"]]


def test_global_options_also_work_after_the_command(demo: FakeCluster) -> None:
    r = run_cli("groups", "list", "--bootstrap-server", demo.bootstrap, "--output", "json")
    assert r.code == 0, r.err
    assert r.json()["command"] == "groups list"


def test_unreachable_cluster_is_exit_2_with_one_line_and_a_traceback_only_with_debug() -> None:
    import socket

    with socket.socket() as s:  # a port that was free a moment ago: connections are refused
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    r = run_cli("-b", f"127.0.0.1:{port}", "--timeout", "1", "groups", "list")
    assert r.code == 2
    assert len(r.err_lines) == 1 and "cannot reach the cluster" in r.err, r.err
    assert "Traceback" not in r.err and r.out == ""
    r = run_cli("-b", f"127.0.0.1:{port}", "--timeout", "1", "--debug", "groups", "list")
    assert r.code == 2 and "Traceback" in r.err
    assert r.err_lines[-1].startswith("kadmin: error: cannot reach the cluster")


# --- api-versions -------------------------------------------------------------------------------------------


def test_api_versions_per_node_on_a_mixed_cluster() -> None:
    with FakeCluster(brokers=2, versions={1: "2.2", 2: "3.9"}) as c:
        r = run_cli("-b", c.bootstrap, "-o", "json", "api-versions")
        assert r.code == 0, r.err
        doc = r.json()
        assert (doc["format"], doc["command"]) == (1, "api-versions")
        nodes = {n["node_id"]: n for n in doc["nodes"]}
        assert (nodes[1]["release_guess"], nodes[2]["release_guess"]) == ("2.2", "3.9")
        assert nodes[1]["port"] == c.addresses[1][1]
        old = {a["name"]: a for a in nodes[1]["apis"]}
        new = {a["name"]: a for a in nodes[2]["apis"]}
        # A 2.2 broker has no quota APIs: listed with a null node range and no negotiated version.
        assert old["DescribeClientQuotas"] == {"api_key": 48, "name": "DescribeClientQuotas", "node_min": None,
                                               "node_max": None, "kadmin_min": 0, "kadmin_max": 1,
                                               "negotiated": None}
        assert new["DescribeClientQuotas"]["negotiated"] == 1
        assert (old["DescribeGroups"]["node_max"], old["DescribeGroups"]["negotiated"]) == (2, 2)
        assert (new["DescribeGroups"]["node_max"], new["DescribeGroups"]["negotiated"]) == (5, 5)
        assert old["Produce"]["kadmin_min"] is None and old["Produce"]["negotiated"] is None

        t = run_cli("-b", c.bootstrap, "api-versions")
        assert t.code == 0
        assert_fits(t.out)
        assert t.out.splitlines()[0] == "mixed versions: node 1 looks like 2.2, node 2 looks like 3.9"
        line = next(x for x in t.out.splitlines() if "DescribeClientQuotas" in x)
        assert line.split() == ["48", "DescribeClientQuotas", "absent", "0-1", "n/a"]


# --- groups -------------------------------------------------------------------------------------------------


def test_groups_list_json_and_state_filter(demo: FakeCluster) -> None:
    r = run_cli("-b", demo.bootstrap, "-o", "json", "groups", "list")
    assert r.code == 0, r.err
    doc = r.json()
    assert doc["errors"] == []
    by_id = {g["group_id"]: g for g in doc["groups"]}
    assert set(by_id) == {"billing", "orders-service", "rebalancing"}
    assert by_id["billing"] == {"group_id": "billing", "protocol_type": "consumer", "state": "Empty",
                                "type": "classic", "coordinator": demo.coordinator_of("billing")}
    r = run_cli("-b", demo.bootstrap, "-o", "json", "groups", "list", "--state", "stable", "empty")
    assert sorted(g["group_id"] for g in r.json()["groups"]) == ["billing", "orders-service"]
    t = run_cli("-b", demo.bootstrap, "groups", "list")
    assert t.code == 0
    assert t.out.split("\n")[0].split() == ["GROUP", "TYPE", "PROTOCOL-TYPE", "STATE", "COORDINATOR"]
    assert [line.split()[0] for line in t.out.splitlines()[1:]] == ["billing", "orders-service", "rebalancing"]


def test_groups_list_reports_a_broker_that_does_not_answer_and_exits_1(cluster: FakeCluster) -> None:
    cluster.inject(2, "ListGroups", error_code=31, count=100)  # CLUSTER_AUTHORIZATION_FAILED, not retriable
    r = run_cli("-b", cluster.bootstrap, "-o", "json", "--timeout", "5", "groups", "list")
    assert r.code == 1, r.err
    doc = r.json()
    assert [e["node_id"] for e in doc["errors"]] == [2]
    assert doc["errors"][0]["error"]["code"] == 31
    t = run_cli("-b", cluster.bootstrap, "--timeout", "5", "groups", "list")
    assert t.code == 1
    assert any(line.startswith("kadmin: node 2: CLUSTER_AUTHORIZATION_FAILED") for line in t.err_lines), t.err


def test_groups_describe_one_result_per_group(demo: FakeCluster) -> None:
    r = run_cli("-b", demo.bootstrap, "-o", "json", "groups", "describe", "orders-service", "no-such",
                "billing", "orders-service")
    assert r.code == 1, r.err  # one group failed
    groups = r.json()["groups"]
    assert [g["group_id"] for g in groups] == ["orders-service", "no-such", "billing"]  # order kept, deduped
    ok, missing, empty = groups
    assert ok["error"] is None and ok["state"] == "Stable" and ok["protocol"] == "range"
    assert [m["member_id"] for m in ok["members"]] == ["orders-service-1", "orders-service-2"]
    assert ok["members"][0]["host"] == "/10.0.0.5" and ok["coordinator"] == demo.coordinator_of("orders-service")
    assert missing == {"group_id": "no-such", "error": {
        "name": "GROUP_ID_NOT_FOUND", "code": 69, "message": missing["error"]["message"], "retriable": False}}
    assert empty["state"] == "Empty" and empty["members"] == []

    t = run_cli("-b", demo.bootstrap, "groups", "describe", "orders-service", "no-such")
    assert t.code == 1
    assert t.err_lines == [t.err_lines[0]] and t.err.startswith("kadmin: no-such: GROUP_ID_NOT_FOUND")
    assert "orders-service-2" in t.out and "no-such" not in t.out
    assert_fits(t.out)

    assert run_cli("-b", demo.bootstrap, "groups", "describe", "billing").code == 0


def test_long_names_are_shortened_to_100_columns() -> None:
    long_id = "g-" + "x" * 150
    with FakeCluster(brokers=1) as c:
        c.add_group(long_id, members=[Member("m-" + "y" * 120, client_id="c" * 80, host="/10.1.2.3")])
        t = run_cli("-b", c.bootstrap, "groups", "describe", long_id)
        assert t.code == 0, t.err
        assert_fits(t.out)
        assert "g-xxxxxx" in t.out and "~" in t.out
        j = run_cli("-b", c.bootstrap, "-o", "json", "groups", "describe", long_id)
        assert j.json()["groups"][0]["group_id"] == long_id  # JSON is never shortened


def test_groups_offsets_with_and_without_lag(demo: FakeCluster) -> None:
    r = run_cli("-b", demo.bootstrap, "-o", "json", "groups", "offsets", "orders-service", "billing")
    assert r.code == 0, r.err
    doc = r.json()
    assert doc["lag"] is False
    billing = next(g for g in doc["groups"] if g["group_id"] == "billing")
    assert billing["partitions"] == [{"topic": "payments", "partition": 0, "error": None, "offset": 400,
                                      "leader_epoch": None, "metadata": "nightly"}]
    r = run_cli("-b", demo.bootstrap, "-o", "json", "groups", "offsets", "orders-service", "billing", "--lag")
    assert r.code == 0, r.err
    lags = {(g["group_id"], p["topic"], p["partition"]): (p["offset"], p["log_end_offset"], p["lag"])
            for g in r.json()["groups"] for p in g["partitions"]}
    assert lags == {("orders-service", "orders", 0): (100, 120, 20), ("orders-service", "orders", 1): (70, 80, 10),
                    ("orders-service", "orders", 2): (45, 45, 0), ("billing", "payments", 0): (400, 500, 100)}
    t = run_cli("-b", demo.bootstrap, "groups", "offsets", "billing", "--lag")
    assert t.out.splitlines()[1].split() == ["billing", "payments", "0", "400", "500", "100"]


def test_groups_delete_deletes_empty_groups_and_reports_the_others(cluster: FakeCluster) -> None:
    r = run_cli("-b", cluster.bootstrap, "-o", "json", "groups", "delete", "billing", "orders-service")
    assert r.code == 1, r.err
    res = {g["group_id"]: g["error"] for g in r.json()["groups"]}
    assert res["billing"] is None
    assert res["orders-service"]["name"] == "NON_EMPTY_GROUP"
    assert "billing" not in cluster.groups and "orders-service" in cluster.groups
    t = run_cli("-b", cluster.bootstrap, "groups", "delete", "rebalancing")
    assert t.code == 1 and t.err.startswith("kadmin: rebalancing: NON_EMPTY_GROUP")
    cluster.add_group("old", state="Empty")
    t = run_cli("-b", cluster.bootstrap, "groups", "delete", "old")
    assert (t.code, t.out.splitlines()[1].split()) == (0, ["old", "deleted"])


# --- quotas -------------------------------------------------------------------------------------------------


def test_quotas_describe_json_keeps_the_float_bits(cluster: FakeCluster) -> None:
    cluster.set_quota({"user": "carol"}, "request_percentage", 0.1 + 0.2)
    r = run_cli("-b", cluster.bootstrap, "-o", "json", "quotas", "describe", "--user", "carol")
    assert r.code == 0, r.err
    doc = r.json()
    assert doc["filter"] == {"components": [{"entity_type": "user", "match": "exact", "name": "carol"}],
                             "strict": False}
    assert doc["entities"] == [{"entity": {"user": "carol"}, "quotas": {"request_percentage": 0.1 + 0.2}}]
    assert doc["entities"][0]["quotas"]["request_percentage"] == 0.30000000000000004

    r = run_cli("-b", cluster.bootstrap, "-o", "json", "quotas", "describe", "--user", "alice")
    assert [e["entity"] for e in r.json()["entities"]] == [{"user": "alice"}, {"user": "alice", "client-id": "etl"}]
    r = run_cli("-b", cluster.bootstrap, "-o", "json", "quotas", "describe", "--user", "alice", "--strict")
    assert [e["entity"] for e in r.json()["entities"]] == [{"user": "alice"}]
    r = run_cli("-b", cluster.bootstrap, "-o", "json", "quotas", "describe", "--user-default")
    assert r.json()["entities"] == [{"entity": {"user": None}, "quotas": {"request_percentage": 50.0}}]

    t = run_cli("-b", cluster.bootstrap, "quotas", "describe")
    assert t.code == 0
    assert_fits(t.out)
    rows = [line.split() for line in t.out.splitlines()[1:]]
    assert ["user=<default>", "request_percentage", "50"] in rows
    assert ["ip='10.0.0.5'", "connection_creation_rate", "20"] in rows


def test_quotas_alter_sets_removes_and_validates_only(cluster: FakeCluster) -> None:
    bob = ("user", "bob")
    r = run_cli("-b", cluster.bootstrap, "-o", "json", "quotas", "alter", "--user", "bob",
                "--set", "producer_byte_rate=1024", "--set", "request_percentage=12.5")
    assert r.code == 0, r.err
    doc = r.json()
    assert doc["validate_only"] is False
    assert doc["entities"] == [{"entity": {"user": "bob"}, "error": None, "ops": [
        {"op": "set", "key": "producer_byte_rate", "value": 1024.0},
        {"op": "set", "key": "request_percentage", "value": 12.5}]}]
    assert cluster.quotas[(bob,)] == {"producer_byte_rate": 1024.0, "request_percentage": 12.5}

    t = run_cli("-b", cluster.bootstrap, "quotas", "alter", "--user", "bob", "--set", "consumer_byte_rate=2048",
                "--remove", "request_percentage", "--validate-only")
    assert t.code == 0, t.err
    assert "validated by the broker (not applied)" in t.out
    assert cluster.quotas[(bob,)] == {"producer_byte_rate": 1024.0, "request_percentage": 12.5}

    t = run_cli("-b", cluster.bootstrap, "quotas", "alter", "--user", "bob", "--remove", "request_percentage")
    assert t.code == 0, t.err
    assert cluster.quotas[(bob,)] == {"producer_byte_rate": 1024.0}

    r = run_cli("-b", cluster.bootstrap, "quotas", "alter", "--ip-default", "--set", "connection_creation_rate=5")
    assert r.code == 0, r.err
    assert cluster.quotas[(("ip", None),)] == {"connection_creation_rate": 5.0}


def test_quotas_alter_per_entity_error_is_exit_1(cluster: FakeCluster) -> None:
    cluster.inject(None, "AlterClientQuotas", error_code=42, count=1)  # INVALID_REQUEST, not retriable
    r = run_cli("-b", cluster.bootstrap, "-o", "json", "quotas", "alter", "--user", "dave",
                "--set", "producer_byte_rate=1")
    assert r.code == 1, r.err
    assert r.json()["entities"][0]["error"]["name"] == "INVALID_REQUEST"


def test_quotas_resolve_says_where_each_value_comes_from(demo: FakeCluster) -> None:
    r = run_cli("-b", demo.bootstrap, "-o", "json", "quotas", "resolve", "--user", "alice", "--client-id", "etl")
    assert r.code == 0, r.err
    doc = r.json()
    assert (doc["user"], doc["client_id"], doc["ip"]) == ("alice", "etl", None)
    assert doc["quotas"] == [
        {"key": "consumer_byte_rate", "value": 2097152.0, "level": 1, "entity": {"user": "alice", "client-id": "etl"}},
        {"key": "producer_byte_rate", "value": 1048576.0, "level": 3, "entity": {"user": "alice"}},
        {"key": "request_percentage", "value": 50.0, "level": 6, "entity": {"user": None}},
    ]
    assert doc["unset"] == ["controller_mutation_rate"]
    r = run_cli("-b", demo.bootstrap, "-o", "json", "quotas", "resolve", "--ip", "10.0.0.5")
    assert [(q["key"], q["value"], q["level"]) for q in r.json()["quotas"]] == [
        ("connection_creation_rate", 20.0, 1)]
    t = run_cli("-b", demo.bootstrap, "quotas", "resolve", "--user", "zed")
    assert t.code == 0
    lines = [line.split() for line in t.out.splitlines()]
    assert ["request_percentage", "50", "6", "user=<default>"] in lines
    assert_fits(t.out)


# --- bad input never reaches the cluster --------------------------------------------------------------------

BAD_INPUT = [
    ("quotas", "alter", "--user", "bob", "--set", "producer_byte_rate=1.5"),
    ("quotas", "alter", "--user", "bob", "--set", "producer_byte_rate"),
    ("quotas", "alter", "--user", "bob", "--set", "producer_byte_rate=nan"),
    ("quotas", "alter", "--user", "bob", "--set", "request_percentage=NaN"),
    ("quotas", "alter", "--user", "bob", "--set", "request_percentage=inf"),
    ("quotas", "alter", "--user", "bob", "--set", "request_percentage=-1"),
    ("quotas", "alter", "--user", "bob", "--set", "request_percentage=12,5"),
    ("quotas", "alter", "--user", "bob", "--set", "producer_byte_rate="),
    ("quotas", "alter", "--user", "bob", "--set", "producer_byte_rate=9007199254740993"),
    ("quotas", "alter", "--user", "bob", "--set", "made_up_rate=1"),
    ("quotas", "alter", "--user", "bob", "--set", "connection_creation_rate=1"),
    ("quotas", "alter", "--user", "bob", "--set", "producer_byte_rate=1", "--set", "producer_byte_rate=2"),
    ("quotas", "alter", "--user", "bob"),
    ("quotas", "alter", "--set", "producer_byte_rate=1"),
    ("quotas", "alter", "--user", "", "--set", "producer_byte_rate=1"),
    ("quotas", "alter", "--user", "bob", "--ip", "1.2.3.4", "--set", "producer_byte_rate=1"),
    ("quotas", "alter", "--user", "bob", "--user-default", "--set", "producer_byte_rate=1"),
    ("quotas", "describe", "--user", "bob", "--ip", "1.2.3.4"),
    ("quotas", "describe", "--strict"),
    ("quotas", "resolve", "--client-id", ""),
    ("groups", "describe", ""),
    ("groups", "list", "--state", "Sleeping"),
    ("--timeout", "0", "groups", "list"),
    ("--timeout", "nan", "groups", "list"),
    ("--command-config", "/nonexistent/kadmin.properties", "groups", "list"),
]


def _assert_refused(r: Result, cluster: FakeCluster) -> None:
    assert r.code == 2, r
    assert len(r.err_lines) == 1 and r.err.startswith("kadmin"), r.err
    assert "Traceback" not in r.err and r.out == ""
    assert cluster.request_log == []


# The issue's own examples, through a real subprocess.
@pytest.mark.parametrize("setting", ["producer_byte_rate=1.5", "x", "request_percentage=NaN"])
def test_bad_input_is_refused_before_connecting(cluster: FakeCluster, setting: str) -> None:
    _assert_refused(run_cli("-b", cluster.bootstrap, "quotas", "alter", "--user", "bob", "--set", setting), cluster)


@pytest.mark.parametrize("args", BAD_INPUT, ids=[" ".join(a) for a in BAD_INPUT])
def test_every_kind_of_bad_input_is_refused_before_connecting(cluster: FakeCluster, args: tuple[str, ...]) -> None:
    _assert_refused(run_main("-b", cluster.bootstrap, *args), cluster)


def test_bad_value_messages_name_the_problem(cluster: FakeCluster) -> None:
    r = run_cli("-b", cluster.bootstrap, "quotas", "alter", "--user", "bob", "--set", "producer_byte_rate=1.5")
    assert "whole number" in r.err and "producer_byte_rate" in r.err
    r = run_cli("-b", cluster.bootstrap, "quotas", "alter", "--user", "bob", "--set", "x")
    assert "expected KEY=VALUE" in r.err
    assert cluster.request_log == []
    # With --allow-unknown-keys the key is sent and the broker decides: Kafka (and the fake) refuse it for
    # this entity, which is that entity's error, so exit 1.
    r = run_cli("-b", cluster.bootstrap, "quotas", "alter", "--user", "bob", "--set", "made_up_rate=1",
                "--allow-unknown-keys", "--validate-only")
    assert r.code == 1, r.err
    assert r.err.startswith("kadmin: user='bob': INVALID_REQUEST") and "made_up_rate" in r.err
    assert cluster.count("AlterClientQuotas") == 1


# --- configuration: --command-config with SASL over TLS ------------------------------------------------------


def test_command_config_sasl_ssl(tmp_path: Path) -> None:
    from tests.support import tls_util

    pki = tls_util.make_ca(tmp_path / "pki")
    server = tls_util.make_cert(pki, "broker", ["localhost", "127.0.0.1"])
    users = {"alice": "pa ss\"word"}
    with FakeCluster(brokers=1, sasl={"mechanism": "SCRAM-SHA-256", "users": users},
                     tls=pki.server_context(server)) as c:
        props = tmp_path / "client.properties"
        props.write_text(
            "# written for kafka-consumer-groups.sh\n"
            f"bootstrap.servers={c.bootstrap}\n"
            "security.protocol=SASL_SSL\n"
            "sasl.mechanism=SCRAM-SHA-256\n"
            "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required \\\n"
            '    username="alice" \\\n'
            '    password="pa ss\\\\"word";\n'
            f"ssl.truststore.type=PEM\nssl.truststore.location={pki.ca.cert}\n", encoding="utf-8")
        r = run_cli("--command-config", str(props), "-o", "json", "groups", "list")
        assert r.code == 0, r.err
        assert r.json()["groups"] == []
        assert c.count("SaslAuthenticate") >= 1

        wrong = tmp_path / "wrong.properties"
        wrong.write_text(props.read_text().replace("pa ss", "nope"), encoding="utf-8")
        r = run_cli("--command-config", str(wrong), "--timeout", "5", "groups", "list")
        assert r.code == 2
        assert len(r.err_lines) == 1 and "authentication failed" in r.err, r.err
        assert "nope" not in r.err  # the password is never echoed

        r = run_cli("-b", c.bootstrap, "--timeout", "5", "groups", "list")  # no TLS: the handshake fails
        assert r.code == 2 and len(r.err_lines) == 1, r.err


def test_bad_command_config_is_a_usage_error(tmp_path: Path) -> None:
    props = tmp_path / "bad.properties"
    props.write_text("bootstrap.servers=127.0.0.1:9\nsecurity.protocol=SASL_PLAINTEXT\n", encoding="utf-8")
    r = run_cli("--command-config", str(props), "groups", "list")
    assert r.code == 2
    assert len(r.err_lines) == 1 and "needs sasl.mechanism" in r.err, r.err


# --- demo ---------------------------------------------------------------------------------------------------


def test_demo_once_prints_the_address_and_what_to_try() -> None:
    r = run_cli("-o", "json", "demo", "--once", "--brokers", "2")
    assert r.code == 0, r.err
    doc = r.json()
    assert doc["command"] == "demo" and doc["brokers"] == [1, 2]
    assert len(doc["bootstrap"].split(",")) == 2
    assert any("groups describe" in s for s in doc["try"])
    t = run_cli("demo", "--once")
    assert t.code == 0 and "it is not Kafka" in t.out
    assert_fits(t.out)


def test_demo_keeps_serving_until_interrupted() -> None:
    proc = subprocess.Popen([sys.executable, "-m", "kadmin.cli", "demo", "--versions", "mixed"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=cli_env(), cwd=ROOT)
    try:
        assert proc.stdout is not None
        lines = [proc.stdout.readline() for _ in range(2)]
        bootstrap = lines[1].strip()
        r = run_cli("-b", bootstrap, "-o", "json", "groups", "list")
        assert r.code == 0, r.err
        assert {g["group_id"] for g in r.json()["groups"]} == {"billing", "orders-service", "rebalancing"}
        r = run_cli("-b", bootstrap, "-o", "json", "api-versions", "--kadmin-only")
        assert [n["release_guess"] for n in r.json()["nodes"]] == ["2.2", "3.9", "3.9"]
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
