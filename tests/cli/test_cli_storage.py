"""``kadmin offsets|records|log-dirs|leaders|reassignments`` against the fake cluster: output, exit statuses,
confirmation before destructive changes, and nothing sent for bad input (the fake's request log)."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from kadmin.testing import FakeCluster, LogDir
from kadmin.testing.state import BYTES_PER_RECORD
from tests.support.cli import ROOT, cli_env, run_cli, run_main

pytestmark = [pytest.mark.timeout(60), pytest.mark.fake_cluster(brokers=3)]


@pytest.fixture
def cluster(fake_cluster: FakeCluster) -> FakeCluster:
    c = fake_cluster
    c.add_topic("orders", partitions=3, offsets=[100, 200, 0])
    c.add_topic("audit", partitions=1, offsets=[50], replication_factor=2)
    return c


def b(c: FakeCluster) -> list[str]:
    return ["--bootstrap-server", c.bootstrap, "--timeout", "10"]


# --- offsets list ----------------------------------------------------------------------------------------


def test_offsets_list_whole_topics_and_named_partitions(cluster: FakeCluster) -> None:
    cluster.set_log_start("orders", 1, 20)
    r = run_main(*b(cluster), "-o", "json", "offsets", "list", "orders", "audit:0", "--time", "earliest")
    assert r.code == 0, r
    doc = r.json()
    assert doc["command"] == "offsets list" and doc["time"] == "earliest"
    assert [(p["topic"], p["partition"], p["offset"]) for p in doc["partitions"]] == [
        ("orders", 0, 0), ("orders", 1, 20), ("orders", 2, 0), ("audit", 0, 0)]
    r = run_main(*b(cluster), "offsets", "list", "orders:1", "nope", "orders:9", "--time", "-1")
    assert r.code == 1
    assert r.out.splitlines()[1].split() == ["orders", "1", "200", "-", "0"]
    assert any(line.startswith("kadmin: nope: UNKNOWN_TOPIC_OR_PARTITION") for line in r.err_lines)
    assert any(line.startswith("kadmin: orders-9: UNKNOWN_TOPIC_OR_PARTITION") for line in r.err_lines)


# --- records delete --------------------------------------------------------------------------------------


def test_records_delete_needs_yes_without_a_terminal(cluster: FakeCluster) -> None:
    r = run_cli(*b(cluster), "records", "delete", "orders:0=10")
    assert r.code == 2 and "refusing without --yes" in r.err and r.out == ""
    assert cluster.request_log == [] and cluster.topics["orders"][0] == (0, 100)


def test_records_delete_with_yes_and_a_json_file(cluster: FakeCluster, tmp_path: Path) -> None:
    f = tmp_path / "offsets.json"
    f.write_text(json.dumps({"version": 1, "partitions": [{"topic": "orders", "partition": 1, "offset": -1},
                                                          {"topic": "orders", "partition": 2, "offset": 5}]}))
    r = run_main(*b(cluster), "-o", "json", "records", "delete", "orders:0=10", "--offset-json-file", str(f),
                 "--yes")
    assert r.code == 1  # orders-2 has no offset 5
    parts = {(p["topic"], p["partition"]): p for p in r.json()["partitions"]}
    assert parts[("orders", 0)]["low_watermark"] == 10 and parts[("orders", 1)]["low_watermark"] == 200
    assert parts[("orders", 2)]["error"]["name"] == "OFFSET_OUT_OF_RANGE"
    assert cluster.topics["orders"] == {0: (10, 100), 1: (200, 200), 2: (0, 0)}


def _with_terminal(args: list[str], answer: bytes) -> tuple[int, str]:
    """Run the CLI with a pseudo-terminal as stdin, answering the confirmation prompt."""
    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen([sys.executable, "-m", "kadmin.cli", *args], stdin=slave,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=cli_env(), cwd=ROOT)
        os.write(master, answer)
        out, err = proc.communicate(timeout=60)
    finally:
        os.close(master)
        os.close(slave)
    return proc.returncode, err.decode()


def test_records_delete_asks_on_a_terminal(cluster: FakeCluster) -> None:
    code, err = _with_terminal([*b(cluster), "records", "delete", "orders:0=30"], b"n\n")
    assert code == 2 and "[y/N]" in err and "nothing was done" in err
    assert cluster.topics["orders"][0] == (0, 100)
    code, err = _with_terminal([*b(cluster), "records", "delete", "orders:0=30"], b"y\n")
    assert code == 0, err
    assert cluster.topics["orders"][0] == (30, 100)


def test_a_lost_delete_answer_says_it_may_have_been_applied(cluster: FakeCluster) -> None:
    cluster.drop_connection(cluster.leader_of("orders", 0), "DeleteRecords", when="after", count=1000)
    r = run_main("--bootstrap-server", cluster.bootstrap, "--timeout", "1.5", "records", "delete", "orders:0=7",
                 "--yes")
    assert r.code == 1
    assert "may have been applied" in r.err
    assert cluster.topics["orders"][0] == (7, 100)


# --- log dirs ----------------------------------------------------------------------------------------------


def test_log_dirs_describe_and_sizes(cluster: FakeCluster) -> None:
    cluster.set_log_dirs(3, ["/data/a", LogDir("/data/gone", offline=True)])
    r = run_main(*b(cluster), "-o", "json", "log-dirs", "describe", "--broker-list", "3,7", "--topic-list", "audit")
    assert r.code == 1  # broker 7 does not exist
    brokers = {x["broker"]: x for x in r.json()["brokers"]}
    assert brokers[7]["error"]["name"] == "BROKER_NOT_AVAILABLE"
    dirs = {d["path"]: d for d in brokers[3]["log_dirs"]}
    assert dirs["/data/gone"]["error"]["name"] == "KAFKA_STORAGE_ERROR"
    assert dirs["/data/a"]["replicas"] == [{"topic": "audit", "partition": 0, "size_bytes": 50 * BYTES_PER_RECORD,
                                            "offset_lag": 0, "is_future": False}]
    r = run_main(*b(cluster), "-o", "json", "log-dirs", "sizes", "orders", "--all-replicas")
    doc = r.json()
    assert r.code == 1 and not doc["complete"] and doc["counted"] == "all"  # broker 3's offline dir
    assert doc["topics"] == [{"topic": "orders", "size_bytes": 3 * 300 * BYTES_PER_RECORD}]
    r = run_main(*b(cluster), "log-dirs", "sizes", "audit")
    assert r.code == 1 and r.out.splitlines()[1].split() == ["audit", str(50 * BYTES_PER_RECORD)]
    assert "incomplete" in r.err


# --- leaders and reassignments -------------------------------------------------------------------------------


def test_leaders_elect(cluster: FakeCluster) -> None:
    cluster.move_leader("orders", 0, cluster.partition("orders", 0).replicas[1])
    r = run_main(*b(cluster), "-o", "json", "leaders", "elect", "--election-type", "preferred", "orders:0,1",
                 "nope:0")
    assert r.code == 1
    got = {(p["topic"], p["partition"]): (p["result"], p["error"] and p["error"]["name"])
           for p in r.json()["partitions"]}
    assert got == {("orders", 0): ("elected", None), ("orders", 1): ("not_needed", None),
                   ("nope", 0): (None, "UNKNOWN_TOPIC_OR_PARTITION")}
    assert cluster.leader_of("orders", 0) == cluster.partition("orders", 0).replicas[0]
    r = run_cli(*b(cluster), "leaders", "elect", "--election-type", "unclean", "--all-topic-partitions")
    assert r.code == 2 and "refusing without --yes" in r.err
    r = run_main(*b(cluster), "leaders", "elect", "--election-type", "unclean", "--all-topic-partitions", "--yes")
    assert r.code == 0 and "no partition needed an election" in r.err


def test_reassignments_alter_list_cancel(cluster: FakeCluster, tmp_path: Path) -> None:
    before = list(cluster.partition("audit", 0).replicas)
    newcomer = next(n for n in cluster.node_ids if n not in before)
    f = tmp_path / "move.json"
    f.write_text(json.dumps({"version": 1, "partitions": [{"topic": "audit", "partition": 0,
                                                          "replicas": [newcomer, before[0]]}]}))
    r = run_main(*b(cluster), "reassignments", "alter", "--reassignment-json-file", str(f), "--yes")
    assert r.code == 0 and r.out.splitlines()[1].split() == ["audit", "0", "started"]
    r = run_main(*b(cluster), "-o", "json", "reassignments", "list", "audit", "orders:1")
    items = {(p["topic"], p["partition"]): p for p in r.json()["partitions"]}
    assert items[("audit", 0)]["adding"] == [newcomer] and items[("audit", 0)]["removing"] == [before[1]]
    assert items[("audit", 0)]["target"] == [newcomer, before[0]]
    assert items[("orders", 1)]["reassigning"] is False
    r = run_main(*b(cluster), "reassignments", "cancel", "audit:0", "orders:0")
    assert r.code == 1 and "NO_REASSIGNMENT_IN_PROGRESS" in r.err  # orders-0 was not moving
    assert cluster.partition("audit", 0).adding == ()


# --- bad input: exit 2, nothing sent ---------------------------------------------------------------------------

BAD = [
    ("offsets", "list"),
    ("offsets", "list", "orders", "--time", "yesterday"),
    ("offsets", "list", "bad topic"),
    ("offsets", "list", "orders:x"),
    ("records", "delete", "--yes"),
    ("records", "delete", "orders:0", "--yes"),
    ("records", "delete", "orders=5", "--yes"),
    ("records", "delete", "orders:0=-2", "--yes"),
    ("records", "delete", "orders:0=1", "orders:0=2", "--yes"),
    ("records", "delete", "--offset-json-file", "/nonexistent/file.json", "--yes"),
    ("log-dirs", "describe", "--broker-list", "one"),
    ("log-dirs", "sizes", "a/b"),
    ("leaders", "elect", "--election-type", "preferred"),
    ("leaders", "elect", "--election-type", "preferred", "orders:0", "--all-topic-partitions"),
    ("leaders", "elect", "--election-type", "preferred", "orders"),
    ("leaders", "elect", "--election-type", "random", "orders:0"),
    ("reassignments", "alter", "orders:0=1,1", "--yes"),
    ("reassignments", "alter", "orders:0=", "--yes"),
    ("reassignments", "alter", "--yes"),
    ("reassignments", "cancel", "orders"),
]


@pytest.mark.parametrize("args", BAD, ids=[" ".join(a) for a in BAD])
def test_bad_input_exits_2_and_sends_nothing(cluster: FakeCluster, args: tuple[str, ...]) -> None:
    r = run_main(*b(cluster), *args)
    assert r.code == 2, r
    assert len(r.err_lines) == 1 and r.out == "", r
    assert cluster.request_log == []


# --- a broker without the reassignment APIs (review4 item 4) -----------------------------------------------------


@pytest.mark.parametrize("args", [("reassignments", "list"), ("reassignments", "alter", "orders:0=1", "--yes"),
                                  ("reassignments", "cancel", "orders:0,1")], ids=["list", "alter", "cancel"])
@pytest.mark.parametrize("fmt", ["table", "json"])
def test_reassignments_on_a_broker_without_the_api_exit_2(args: tuple[str, ...], fmt: str) -> None:
    # Kafka 2.2 has neither AlterPartitionReassignments nor ListPartitionReassignments (KIP-455 is 2.4): every
    # subcommand says so in one line and exits 2, rather than failing each partition as if a retry could help.
    with FakeCluster(brokers=2, versions="2.2") as old:
        old.add_topic("orders", partitions=2)
        r = run_main(*b(old), "-o", fmt, *args)
        assert old.partition("orders", 0).adding == ()
    assert r.code == 2, r
    assert r.out == ""
    assert len(r.err_lines) == 1 and r.err.startswith("kadmin: error: unsupported by this broker: "), r.err
    assert "PartitionReassignments" in r.err


def test_reassignments_alter_on_a_mixed_cluster_follows_the_controller() -> None:
    # A rolling upgrade: the controller (the lowest id on the fake) is still 2.2, so the move cannot be made now;
    # that is the one-line exit 2 too, as `reassignments list` gives on the same cluster.
    with FakeCluster(brokers=2, versions={1: "2.2", 2: "3.9"}) as mixed:
        mixed.add_topic("orders", partitions=2)
        listed = run_main(*b(mixed), "reassignments", "list")
        r = run_main(*b(mixed), "reassignments", "cancel", "orders:0")
    assert listed.code == r.code == 2, (listed, r)
    assert len(r.err_lines) == 1 and "unsupported by this broker" in r.err


def test_reassignments_per_partition_errors_stay_per_partition(cluster: FakeCluster) -> None:
    # The API exists: a partition the controller refuses is one failed key (exit 1), not a whole-command error.
    r = run_main(*b(cluster), "reassignments", "alter", "audit:0=1,2", "nope:0=1", "--yes")
    assert r.code == 1, r
    assert r.out.splitlines()[1].split() == ["audit", "0", "started"]
    assert [line.split(":")[1].strip() for line in r.err_lines] == ["nope-0"]


# --- reassignments list names what does not exist (review4 item 6) ---------------------------------------------


def test_reassignments_list_reports_unknown_topics_and_partitions(cluster: FakeCluster) -> None:
    # Kafka answers a missing topic or partition as "not being moved": a misspelt name must not read as "nothing
    # in progress, exit 0".
    r = run_main(*b(cluster), "reassignments", "list", "orders", "nope")
    assert r.code == 1, r
    assert r.err_lines == ["kadmin: no reassignment in progress",
                           "kadmin: nope: UNKNOWN_TOPIC_OR_PARTITION: topic 'nope': This server does not host "
                           "this topic-partition."]
    r = run_main(*b(cluster), "-o", "json", "reassignments", "list", "nope", "orders:1", "orders:7", "ghost:0")
    assert r.code == 1, r
    got = {(p["topic"], p["partition"]): (p["reassigning"], p["error"] and p["error"]["name"])
           for p in r.json()["partitions"]}
    assert got == {("nope", None): (None, "UNKNOWN_TOPIC_OR_PARTITION"), ("orders", 1): (False, None),
                   ("orders", 7): (None, "UNKNOWN_TOPIC_OR_PARTITION"),
                   ("ghost", 0): (None, "UNKNOWN_TOPIC_OR_PARTITION")}
    r = run_main(*b(cluster), "reassignments", "list", "orders", "audit")
    assert r.code == 0 and r.err_lines == ["kadmin: no reassignment in progress"]


# --- offsets list: the JSON "time" is the option's spelling (review4 item 8) ------------------------------------


@pytest.mark.parametrize(("time", "spelt"), [("max-timestamp", "max-timestamp"), ("-3", "max-timestamp"),
                                             ("earliest-local", "earliest-local"), ("-4", "earliest-local"),
                                             ("latest-tiered", "latest-tiered"), ("-5", "latest-tiered"),
                                             ("LATEST", "latest"), ("-2", "earliest")])
def test_offsets_list_json_time_is_the_options_spelling(cluster: FakeCluster, time: str, spelt: str) -> None:
    r = run_main(*b(cluster), "-o", "json", "offsets", "list", "audit", "--time", time)
    assert r.code == 0, r
    doc = r.json()
    assert (doc["time"], doc["timestamp"]) == (spelt, None)


def test_offsets_list_json_time_of_a_timestamp_is_a_number(cluster: FakeCluster) -> None:
    r = run_main(*b(cluster), "-o", "json", "offsets", "list", "audit", "--time", "1700000000000")
    assert r.code == 0, r
    doc = r.json()
    assert (doc["time"], doc["timestamp"]) == ("timestamp", 1700000000000)
    # The fake's records carry no timestamp at or after it: Kafka's "no such record" is offset -1.
    assert [p["offset"] for p in doc["partitions"]] == [-1]
