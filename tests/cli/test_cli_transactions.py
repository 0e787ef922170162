"""``kadmin transactions ...`` (issue #26) as a user runs it, against the FakeCluster: the hanging-transaction
round trip (find-hanging, abort by start offset, find-hanging again), list/describe/describe-producers in
JSON and tables, exits 0 / 1 / 2, bad input refused before connecting, and force-terminate refused (exit 2)
by a broker without InitProducerId v6.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pytest

from kadmin.testing import FakeCluster
from tests.support.cli import run_cli, run_main
from tests.support.transactions import commit_losing_a_marker

pytestmark = pytest.mark.timeout(120)

CHILD = """
import sys, time
from confluent_kafka import Producer
p = Producer({"bootstrap.servers": sys.argv[1], "transactional.id": sys.argv[2]})
p.init_transactions(20)
p.begin_transaction()
p.produce("t", value=b"open", partition=0)
assert p.flush(20) == 0
print("READY", flush=True)
time.sleep(600)
"""


@pytest.fixture
def cluster() -> Iterator[FakeCluster]:
    with FakeCluster(versions="3.9") as c:
        c.add_topic("t", partitions=2)
        yield c


def kill_mid_transaction(c: FakeCluster, tid: str) -> None:
    child = subprocess.Popen([sys.executable, "-c", CHILD, c.bootstrap, tid], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "READY"
    finally:
        child.kill()
        child.wait()


def hanging_on_t1(c: FakeCluster) -> None:
    commit_losing_a_marker(c, "lossy", {1: b"x"}, lost=1)


def test_find_hanging_then_abort_by_start_offset(cluster: FakeCluster) -> None:
    hanging_on_t1(cluster)
    kill_mid_transaction(cluster, "dead")  # open on t-0, held by its coordinator: not hanging
    b = cluster.bootstrap
    found = run_cli("transactions", "find-hanging", "-b", b, "--topic", "t", "--max-transaction-timeout", "0",
                    "-o", "json")
    assert found.code == 0, found.err
    doc = found.json()
    assert [(h["topic"], h["partition"], h["transactional_id"], h["coordinator_state"]) for h in doc["hanging"]] \
        == [("t", 1, "lossy", "CompleteCommit")]
    start = doc["hanging"][0]["start_offset"]
    refused = run_cli("transactions", "abort", "-b", b, "--topic", "t", "--partition", "1", "--start-offset",
                      str(start))
    assert refused.code == 2 and "--yes" in refused.err  # no terminal to confirm on: nothing sent
    aborted = run_cli("transactions", "abort", "-b", b, "--topic", "t", "--partition", "1", "--start-offset",
                      str(start), "--yes", "-o", "json")
    assert aborted.code == 0, aborted.err
    assert aborted.json()["error"] is None
    assert cluster.last_stable_offset("t", 1) == cluster.partition("t", 1).log_end
    again = run_cli("transactions", "find-hanging", "-b", b, "--broker-id", "1", "--max-transaction-timeout", "0")
    assert again.code == 0 and "lossy" not in again.out
    # A start offset no open transaction has: that partition fails, exit 1.
    missing = run_cli("transactions", "abort", "-b", b, "--topic", "t", "--partition", "1", "--start-offset",
                      "999", "--yes")
    assert missing.code == 1 and "999" in missing.err


def test_list_describe_and_describe_producers(cluster: FakeCluster) -> None:
    kill_mid_transaction(cluster, "dead")
    b = cluster.bootstrap
    listed = run_cli("transactions", "list", "-b", b, "--state", "ongoing", "-o", "json")
    assert listed.code == 0, listed.err
    assert [(t["transactional_id"], t["state"]) for t in listed.json()["transactions"]] == [("dead", "Ongoing")]
    table = run_cli("transactions", "list", "-b", b)
    assert table.code == 0 and "dead" in table.out and "Ongoing" in table.out
    described = run_cli("transactions", "describe", "-b", b, "--transactional-id", "dead",
                        "--transactional-id", "nobody", "-o", "json")
    assert described.code == 1  # nobody: TRANSACTIONAL_ID_NOT_FOUND
    docs = {d["transactional_id"]: d for d in described.json()["transactions"]}
    assert docs["dead"]["state"] == "Ongoing" and docs["dead"]["partitions"] == [{"topic": "t", "partition": 0}]
    assert docs["nobody"]["error"]["name"] == "TRANSACTIONAL_ID_NOT_FOUND"
    producers = run_cli("transactions", "describe-producers", "-b", b, "t:0,1", "-o", "json")
    assert producers.code == 0, producers.err
    by_part = {p["partition"]: p["producers"] for p in producers.json()["partitions"]}
    assert by_part[1] == [] and by_part[0][0]["current_transaction_start_offset"] == 0
    tab = run_cli("transactions", "describe-producers", "-b", b, "--topic", "t", "--partition", "0")
    assert tab.code == 0 and "TXN-START-OFFSET" in tab.out


def test_bad_input_exits_2_before_connecting(cluster: FakeCluster) -> None:
    b = cluster.bootstrap
    cluster.clear_log()
    for args in (["transactions", "list", "--state", "Nope"],
                 ["transactions", "list", "--duration-filter", "-1"],
                 ["transactions", "describe-producers"],
                 ["transactions", "describe-producers", "t"],
                 ["transactions", "find-hanging", "--broker-id", "1", "--partition", "0"],
                 ["transactions", "find-hanging"],
                 ["transactions", "abort", "--topic", "t", "--partition", "0", "--yes"],
                 ["transactions", "abort", "--topic", "t", "--partition", "0", "--start-offset", "1",
                  "--producer-id", "5", "--yes"],
                 ["transactions", "describe", "--transactional-id", ""]):
        res = run_main(*args, "-b", b)
        assert res.code == 2, (args, res)
    assert cluster.request_log == []


def test_force_terminate_unsupported_exits_2(cluster: FakeCluster) -> None:
    res = run_cli("transactions", "force-terminate", "-b", cluster.bootstrap, "--transactional-id", "x", "--yes")
    assert res.code == 2 and "unsupported by this broker" in res.err


def test_list_filter_some_brokers_cannot_carry_exits_1_all_exits_2() -> None:
    from kadmin.protocol.apis import ApiKey
    from kadmin.versions import release_table

    newer = dict(release_table("3.5"))
    newer[ApiKey.LIST_TRANSACTIONS] = (0, 1)
    with FakeCluster(versions={1: "3.5", 2: "3.5", 3: newer}) as c:
        some = run_cli("transactions", "list", "-b", c.bootstrap, "--duration-filter", "0", "-o", "json")
        assert some.code == 1, some.err
        doc = some.json()
        assert doc["transactions"] == [] and [e["broker"] for e in doc["broker_errors"]] == [1, 2]
    with FakeCluster(versions="3.5") as c:
        none = run_cli("transactions", "list", "-b", c.bootstrap, "--duration-filter", "0")
        assert none.code == 2 and "unsupported by this broker" in none.err and none.out == ""


def test_find_hanging_without_the_apis() -> None:
    with FakeCluster(versions="2.6") as c:  # no DescribeProducers: nothing can be checked
        c.add_topic("t", partitions=2)
        res = run_cli("transactions", "find-hanging", "-b", c.bootstrap, "--topic", "t")
        assert res.code == 2 and "unsupported by this broker" in res.err
    with FakeCluster(versions="2.8") as c:  # DescribeProducers, but no ListTransactions to decide with
        c.add_topic("t", partitions=2)
        hanging_on_t1(c)
        res = run_cli("transactions", "find-hanging", "-b", c.bootstrap, "--topic", "t",
                      "--max-transaction-timeout", "0", "-o", "json")
        assert res.code == 1
        doc = res.json()
        assert doc["hanging"] == [] and [(e["topic"], e["partition"]) for e in doc["errors"]] == [("t", 1)]
