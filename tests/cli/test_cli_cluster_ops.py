"""The issue #26 commands: ``features``, ``quorum``, ``brokers unregister`` and reassignment ``log_dirs``, against
the fake cluster: output (table and JSON), exit statuses 0 / 1 / 2 as the rest of the CLI, bad input refused
before anything is sent, and kafka-python reading back what the commands changed.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from kafka import KafkaAdminClient

from kadmin.protocol.apis import ApiKey
from kadmin.testing import FakeCluster
from kadmin.testing.state.quorum import directory_id
from tests.support.cli import run_cli, run_main

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def kraft() -> Iterator[FakeCluster]:
    with FakeCluster(brokers=3, versions="4.0") as c:
        yield c


@pytest.fixture
def zk() -> Iterator[FakeCluster]:
    with FakeCluster(brokers=3, versions="3.9") as c:
        yield c


def b(c: FakeCluster) -> list[str]:
    return ["--bootstrap-server", c.bootstrap, "--timeout", "10"]


# --- features -------------------------------------------------------------------------------------------------


def test_features_describe_table_and_json(kraft: FakeCluster) -> None:
    r = run_cli(*b(kraft), "features", "describe")
    assert r.code == 0, r
    assert "metadata.version" in r.out and "25 (4.0-IV3)" in r.out and "7 (3.3-IV3)" in r.out
    r = run_main(*b(kraft), "features", "describe", "-o", "json")
    doc = json.loads(r.out)
    assert r.code == 0 and doc["command"] == "features describe" and doc["finalized_epoch"] == 1
    by_name = {f["name"]: f for f in doc["features"]}
    assert by_name["transaction.version"] == {"name": "transaction.version", "supported_min": 0,
                                              "supported_max": 2, "finalized_level": 2}
    assert by_name["eligible.leader.replicas.version"]["finalized_level"] == 0


def test_features_on_kafka_28_describe_nothing() -> None:
    with FakeCluster(brokers=1, versions="2.8") as c:
        r = run_main(*b(c), "features", "describe", "-o", "json")
        assert r.code == 0 and json.loads(r.out)["features"] == []
        r = run_main(*b(c), "features", "upgrade", "--metadata", "3.9")
        assert r.code == 2 and "unknown feature" in r.err
        assert c.count(ApiKey.UPDATE_FEATURES) == 0


def test_features_upgrade_read_back_by_kafka_python(zk: FakeCluster) -> None:
    r = run_main(*b(zk), "features", "upgrade", "--feature", "group.version=1", "--feature",
                 "transaction.version=2", "-o", "json")
    assert r.code == 0, r
    doc = json.loads(r.out)
    assert [f["error"] for f in doc["features"]] == [None, None] and doc["dry_run"] is False
    kp = KafkaAdminClient(bootstrap_servers=zk.bootstrap)
    try:
        got = kp.describe_features()
    finally:
        kp.close()
    assert got["group.version"]["finalized"][1] == 1 and got["transaction.version"]["finalized"][1] == 2


def test_features_dry_run_changes_nothing(kraft: FakeCluster) -> None:
    r = run_main(*b(kraft), "features", "upgrade", "--feature", "eligible.leader.replicas.version=1", "--dry-run")
    assert r.code == 0 and "dry run" in r.out
    assert "eligible.leader.replicas.version" not in kraft.finalized_features()


def test_features_release_version_and_disable(kraft: FakeCluster) -> None:
    r = run_main(*b(kraft), "features", "disable", "--feature", "group.version")
    assert r.code == 0 and "disabled" in r.out
    assert "group.version" not in kraft.finalized_features()
    r = run_main(*b(kraft), "features", "upgrade", "--release-version", "4.0")
    assert r.code == 0, r
    assert kraft.finalized_features()["group.version"] == 1


def test_features_refused_by_the_controller_exit_1(kraft: FakeCluster, zk: FakeCluster) -> None:
    r = run_main(*b(kraft), "features", "downgrade", "--metadata", "3.9")
    assert r.code == 1 and "INVALID_UPDATE_VERSION" in r.err
    r = run_main(*b(zk), "features", "upgrade", "--feature", "group.version=1", "--feature",
                 "transaction.version=9", "-o", "json")
    assert r.code == 1
    errors = {f["name"]: f["error"] for f in json.loads(r.out)["features"]}
    assert errors["group.version"] is None and errors["transaction.version"]["name"] == "INVALID_UPDATE_VERSION"


FEATURE_BAD = [
    ("features", "upgrade"),
    ("features", "upgrade", "--feature", "group.version"),
    ("features", "upgrade", "--feature", "group.version=x"),
    ("features", "upgrade", "--feature", "group.version=0"),
    ("features", "upgrade", "--feature", "a=1", "--feature", "a=2"),
    ("features", "upgrade", "--metadata", "2.1"),
    ("features", "upgrade", "--metadata", "3.9", "--release-version", "4.0"),
    ("features", "upgrade", "--release-version", "9.9"),
    ("features", "downgrade"),
    ("features", "disable"),
    ("quorum", "add-controller", "--controller-id", "x", "--controller-directory-id", str(directory_id(2)),
     "--controller-endpoint", "C://h:1"),
    ("quorum", "add-controller", "--controller-id", "2", "--controller-directory-id", "nope",
     "--controller-endpoint", "C://h:1"),
    ("quorum", "add-controller", "--controller-id", "2", "--controller-directory-id", str(directory_id(2)),
     "--controller-endpoint", "h:1"),
    ("quorum", "remove-controller", "--controller-id", "2"),
    ("quorum", "describe"),
    ("quorum", "describe", "--status", "--replication"),
    ("brokers", "unregister", "--id", "-1"),
]


@pytest.mark.parametrize("args", FEATURE_BAD, ids=[" ".join(a) for a in FEATURE_BAD])
def test_bad_input_exits_2_and_sends_nothing(kraft: FakeCluster, args: tuple[str, ...]) -> None:
    r = run_main(*b(kraft), *args)
    assert r.code == 2, r
    assert r.out == "", r
    assert kraft.request_log == []


def test_impossible_feature_update_exits_2_without_update_features(kraft: FakeCluster) -> None:
    for args in (("upgrade", "--feature", "no.such=1"), ("upgrade", "--metadata", "3.3-IV0"),
                 ("upgrade", "--feature", "transaction.version=1")):
        r = run_main(*b(kraft), "features", *args)
        assert r.code == 2 and len(r.err.splitlines()) == 1, r
    assert kraft.count(ApiKey.UPDATE_FEATURES) == 0


# --- quorum ---------------------------------------------------------------------------------------------------


def test_quorum_describe_status_and_replication(kraft: FakeCluster) -> None:
    kraft.set_quorum_voters([1, 2])
    kraft.set_quorum_lag(2, 5)
    r = run_main(*b(kraft), "quorum", "describe", "--status")
    assert r.code == 0, r
    assert "LeaderId:               1" in r.out and "MaxFollowerLag:         5" in r.out
    assert f"ClusterId:              {kraft.cluster_id}" in r.out
    doc = json.loads(run_main(*b(kraft), "quorum", "describe", "--status", "-o", "json").out)["status"]
    assert [v["id"] for v in doc["current_voters"]] == [1, 2]
    assert [o["id"] for o in doc["current_observers"]] == [3]
    rows = json.loads(run_main(*b(kraft), "quorum", "describe", "--replication", "-o", "json").out)["replication"]
    assert [(x["node_id"], x["status"], x["lag"]) for x in rows] == [(1, "Leader", 0), (2, "Follower", 5),
                                                                    (3, "Observer", 0)]
    r = run_cli(*b(kraft), "quorum", "describe", "--replication")
    assert r.code == 0 and "Observer" in r.out


def test_quorum_on_zookeeper_mode_exits_2(zk: FakeCluster) -> None:
    r = run_main(*b(zk), "quorum", "describe", "--status")
    assert r.code == 2 and "unsupported by this broker" in r.err


def test_add_and_remove_controller(kraft: FakeCluster) -> None:
    d2 = str(directory_id(2))
    r = run_main(*b(kraft), "quorum", "add-controller", "--controller-id", "2", "--controller-directory-id", d2,
                 "--controller-endpoint", "CONTROLLER://ctl2:9093")
    assert r.code == 0 and "added" in r.out, r
    assert 2 in kraft.quorum_voters()
    r = run_main(*b(kraft), "quorum", "add-controller", "--controller-id", "2", "--controller-directory-id", d2,
                 "--controller-endpoint", "CONTROLLER://ctl2:9093", "-o", "json")
    assert r.code == 1 and json.loads(r.out)["error"]["name"] == "DUPLICATE_VOTER"
    r = run_main(*b(kraft), "quorum", "remove-controller", "--controller-id", "2", "--controller-directory-id", d2)
    assert r.code == 0 and 2 not in kraft.quorum_voters()
    r = run_main(*b(kraft), "quorum", "remove-controller", "--controller-id", "1", "--controller-directory-id",
                 str(directory_id(1)))
    assert r.code == 1 and "last voter" in r.err


def test_brokers_unregister(kraft: FakeCluster) -> None:
    assert run_main(*b(kraft), "brokers", "unregister", "--id", "3").code == 0
    r = run_main(*b(kraft), "brokers", "unregister", "--id", "42", "-o", "json")
    assert r.code == 1 and json.loads(r.out)["error"]["name"] == "BROKER_ID_NOT_REGISTERED"


# --- reassignment log dirs ------------------------------------------------------------------------------------


def test_reassignment_json_with_log_dirs(zk: FakeCluster, tmp_path: Path) -> None:
    for n in zk.node_ids:
        zk.set_log_dirs(n, ["/data/a", "/data/b"])
    zk.add_topic("t", partitions=2, replication_factor=2)
    doc = {"version": 1, "partitions": [
        {"topic": "t", "partition": 0, "replicas": [3, 1], "log_dirs": ["/data/b", "any"]},
        {"topic": "t", "partition": 1, "replicas": [2, 3], "log_dirs": ["/data/nowhere", "/data/b"]}]}
    path = tmp_path / "r.json"
    path.write_text(json.dumps(doc))
    r = run_main(*b(zk), "reassignments", "alter", "--reassignment-json-file", str(path), "--yes", "-o", "json")
    assert r.code == 1, r  # one directory does not exist
    out = json.loads(r.out)
    assert [p["error"] for p in out["partitions"]] == [None, None]
    moves = {(m["partition"], m["broker"]): m for m in out["log_dirs"]}
    assert moves[(0, 3)]["error"] is None and moves[(0, 3)]["log_dir"] == "/data/b"
    assert moves[(1, 2)]["error"]["name"] == "LOG_DIR_NOT_FOUND"
    assert moves[(1, 3)]["error"] is None
    assert (0, 1) not in moves  # "any"
    kp = KafkaAdminClient(bootstrap_servers=zk.bootstrap)
    try:
        got = kp.describe_log_dirs(brokers=[3])
    finally:
        kp.close()
    placed = {(t["name"], p["partition_index"]) for d in got[0]["log_dirs"] if d["log_dir"] == "/data/b"
              for t in d["topics"] for p in t["partitions"]}
    assert {("t", 0), ("t", 1)} <= placed


@pytest.mark.parametrize("log_dirs", [["/data/b"], ["data/b", "any"], [1, "any"], "any"])
def test_reassignment_log_dirs_bad_input_exits_2(zk: FakeCluster, tmp_path: Path, log_dirs: object) -> None:
    zk.add_topic("t", partitions=1, replication_factor=2)
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"partitions": [{"topic": "t", "partition": 0, "replicas": [1, 2],
                                                "log_dirs": log_dirs}]}))
    zk.clear_log()
    r = run_main(*b(zk), "reassignments", "alter", "--reassignment-json-file", str(path), "--yes")
    assert r.code == 2 and "log" in r.err, r
    assert zk.request_log == []
