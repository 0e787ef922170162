"""``kadmin acls`` and ``kadmin users`` in-process against the fake cluster (main() with captured streams).

Usage errors must exit 2 with nothing sent (the fake's request log says so); passwords never come from argv
and never appear in any output.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from typing import Any

import pytest

from kadmin.cli.main import main
from kadmin.testing import FakeCluster
from tests.support.clusters import shared_cluster

PASSWORD = "s3cret-from-the-env-9f1"


@dataclass
class Out:
    code: int
    out: str
    err: str

    @property
    def json(self) -> Any:
        return json.loads(self.out)


cluster = shared_cluster(brokers=2, authorizer={"super_users": ["User:ANONYMOUS"]})


@pytest.fixture
def fresh(cluster: FakeCluster) -> FakeCluster:
    cluster.clear_acls()
    cluster.clear_log()
    return cluster


def run(cluster: FakeCluster, *args: str) -> Out:
    out, err = io.StringIO(), io.StringIO()
    code = main(["-b", cluster.bootstrap, "--timeout", "10", *args], stdout=out, stderr=err)
    return Out(code, out.getvalue(), err.getvalue())


def sent(cluster: FakeCluster) -> int:
    return sum(cluster.count(api) for api in ("DescribeAcls", "CreateAcls", "DeleteAcls",
                                              "DescribeUserScramCredentials", "AlterUserScramCredentials"))


def test_create_list_delete(fresh: FakeCluster) -> None:
    r = run(fresh, "acls", "create", "--topic", "orders", "--topic", "payments", "--allow-principal", "User:alice",
            "--operation", "read", "--operation", "describe", "-o", "json")
    assert r.code == 0, r.err
    assert len(r.json["bindings"]) == 4 and all(b["error"] is None for b in r.json["bindings"])
    assert {(a.name, a.operation) for a in fresh.acls} == {(t, op) for t in ("orders", "payments")
                                                          for op in ("READ", "DESCRIBE")}
    r = run(fresh, "acls", "create", "--group", "bob-", "--resource-pattern-type", "prefixed",
            "--allow-principal", "User:bob", "--operation", "read")
    assert r.code == 0 and "PREFIXED" in r.out and "created" in r.out
    r = run(fresh, "acls", "list", "--principal", "User:bob", "-o", "json")
    assert r.json == {"format": 1, "command": "acls list", "bindings": [
        {"resource_type": "GROUP", "pattern_type": "PREFIXED", "name": "bob-", "principal": "User:bob", "host": "*",
         "operation": "READ", "permission": "ALLOW"}]}
    r = run(fresh, "acls", "list", "--group", "bob-orders", "--resource-pattern-type", "match")
    assert r.code == 0 and "bob-" in r.out and "User:bob" in r.out
    r = run(fresh, "acls", "delete", "--topic", "orders", "--operation", "read", "-o", "json")
    assert r.code == 0 and [len(f["deleted"]) for f in r.json["filters"]] == [1]
    r = run(fresh, "acls", "delete", "--topic", "payments", "--allow-principal", "User:alice")
    assert r.code == 0 and r.out.count("deleted") == 2
    assert {a.name for a in fresh.acls} == {"orders", "bob-"}


@pytest.mark.parametrize("args", [
    ("acls", "create", "--allow-principal", "User:a", "--operation", "read"),  # no resource
    ("acls", "create", "--topic", "t", "--operation", "read"),  # no principal
    ("acls", "create", "--topic", "t", "--allow-principal", "User:a"),  # no operation
    ("acls", "create", "--topic", "t", "--allow-principal", "alice", "--operation", "read"),  # no Type: prefix
    ("acls", "create", "--cluster", "--allow-principal", "User:a", "--operation", "read"),  # not a cluster op
    ("acls", "create", "--topic", "t", "--allow-principal", "User:a", "--operation", "fly"),
    ("acls", "create", "--topic", "t", "--allow-principal", "User:a", "--operation", "read",
     "--resource-pattern-type", "match"),
    ("acls", "list", "--resource-pattern-type", "weird"),
    ("acls", "delete", "--operation", "read"),  # no resource
    ("users", "set-password", "bob", "--password", "on-argv"),  # never from argv
    ("users", "set-password", "bob", "--iterations", "100", "--password-env", "KADMIN_TEST_PW"),
    ("users", "set-password", "bob", "--mechanism", "md5", "--password-env", "KADMIN_TEST_PW"),
    ("users", "set-password", "bob", "--password-env", "KADMIN_TEST_UNSET_VARIABLE"),
    ("users", "describe", ""),
])
def test_usage_errors_exit_2_and_send_nothing(fresh: FakeCluster, monkeypatch: pytest.MonkeyPatch,
                                              args: tuple[str, ...]) -> None:
    monkeypatch.setenv("KADMIN_TEST_PW", PASSWORD)
    monkeypatch.delenv("KADMIN_TEST_UNSET_VARIABLE", raising=False)
    r = run(fresh, *args)
    assert r.code == 2 and r.out == "" and len(r.err.strip().splitlines()) == 1, r
    assert sent(fresh) == 0


def test_no_password_source_without_a_terminal_is_a_usage_error(fresh: FakeCluster,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    r = run(fresh, "users", "set-password", "bob")
    assert r.code == 2 and "--password-stdin" in r.err and sent(fresh) == 0


def test_users_lifecycle(fresh: FakeCluster, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KADMIN_TEST_PW", PASSWORD)
    r = run(fresh, "users", "set-password", "zoe", "--mechanism", "SCRAM-SHA-256", "--mechanism", "scram-sha-512",
            "--iterations", "8192", "--password-env", "KADMIN_TEST_PW")
    assert r.code == 0, r.err
    monkeypatch.setattr("sys.stdin", io.StringIO(PASSWORD + "\n"))
    r2 = run(fresh, "users", "set-password", "yan", "--password-stdin", "-o", "json")
    assert r2.code == 0 and r2.json["users"][0]["changes"] == [
        {"op": "set", "mechanism": "SCRAM-SHA-512", "iterations": 4096}]
    assert fresh.scram_users == {"zoe": {"SCRAM-SHA-256": 8192, "SCRAM-SHA-512": 8192},
                                 "yan": {"SCRAM-SHA-512": 4096}}
    r3 = run(fresh, "users", "list", "-o", "json")
    assert [u["user"] for u in r3.json["users"]] == ["yan", "zoe"]
    r4 = run(fresh, "users", "describe", "zoe", "nobody")
    assert r4.code == 1 and "zoe" in r4.out and "RESOURCE_NOT_FOUND" in r4.err
    r5 = run(fresh, "users", "delete", "zoe", "yan", "-o", "json")
    assert r5.code == 0 and fresh.scram_users == {}
    for res in (r, r2, r3, r4, r5):
        assert PASSWORD not in res.out + res.err
    r6 = run(fresh, "users", "delete", "zoe")
    assert r6.code == 1 and "RESOURCE_NOT_FOUND" in r6.err


def test_whoami(fresh: FakeCluster, tmp_path: Any) -> None:
    r = run(fresh, "acls", "whoami", "-o", "json")
    assert r.code == 0, r.err
    assert r.json["principal"] == "User:ANONYMOUS" and "ALTER" in r.json["cluster_operations"]
    assert r.json["bindings"] == []
    props = tmp_path / "eve.properties"
    props.write_text("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.username=eve\nsasl.password=e\n")
    with FakeCluster(brokers=1, sasl={"mechanism": "PLAIN", "users": {"eve": "e"}}, authorizer=True) as c:
        out, err = io.StringIO(), io.StringIO()
        code = main(["-b", c.bootstrap, "--command-config", str(props), "acls", "whoami"], stdout=out, stderr=err)
        assert code == 0, err.getvalue()
        assert "principal: User:eve" in out.getvalue() and "cluster operations: none" in out.getvalue()
        assert "CLUSTER_AUTHORIZATION_FAILED: bindings not listed" in err.getvalue()
