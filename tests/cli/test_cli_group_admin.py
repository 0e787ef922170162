"""``kadmin groups describe|reset-offsets|delete-offsets|remove-members`` against the fake cluster.

Groups are made by real confluent-kafka consumers (classic and KIP-848) on the 4.0 preset; what was written is
read from the fake's state and the request log.  Most cases run ``main`` in-process (no interpreter start-up);
one runs the real console entry point.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kadmin.testing import FakeCluster
from tests.support.cli import run_cli, run_main
from tests.support.groups_consumers import ConsumerGroups, wait_until

pytestmark = pytest.mark.timeout(120)
OFFSET_COMMIT, OFFSET_DELETE, LEAVE_GROUP = 8, 47, 13


@pytest.fixture(scope="module")
def cluster() -> Iterator[FakeCluster]:
    with FakeCluster(brokers=2, versions="4.0") as c:
        c.set_group_config(group_consumer_heartbeat_interval_ms=200)
        c.add_topic("orders", 3, offsets={0: (0, 100), 1: (0, 100), 2: (50, 80)})
        consumers = ConsumerGroups(c.bootstrap)
        consumers.start("live-classic", ["orders"])
        consumers.start("live-kip848", ["orders"], protocol="consumer", count=2)
        wait_until(lambda: c.groups.get("live-classic") is not None and c.groups["live-classic"].state == "Stable"
                   and c.groups.get("live-kip848") is not None and c.groups["live-kip848"].state == "Stable"
                   and len(c.groups["live-kip848"].consumer_members) == 2)
        for p, o in ((0, 40), (1, 60), (2, 70)):
            c.commit("idle", "orders", p, o)
        try:
            yield c
        finally:
            consumers.close()


def kadmin_requests(cluster: FakeCluster) -> list[int]:
    """API keys of the requests not sent by the consumers (librdkafka's client id is "rdkafka")."""
    return [e.api_key for e in cluster.request_log if e.client_id != "rdkafka"]


def cli(cluster: FakeCluster, *args: str) -> tuple[int, str, str]:
    r = run_main("-b", cluster.bootstrap, *args)
    return r.code, r.out, r.err


def test_describe_shows_kip848_and_classic_groups_alike(cluster: FakeCluster) -> None:
    r = run_main("-b", cluster.bootstrap, "-o", "json", "groups", "describe", "live-classic", "live-kip848", "nope")
    assert r.code == 1  # the unknown group
    groups = {g["group_id"]: g for g in r.json()["groups"]}
    assert groups["live-kip848"]["type"] == "consumer" and groups["live-kip848"]["state"] == "Stable"
    assert groups["live-classic"]["type"] == "classic" and groups["live-classic"]["state"] == "Stable"
    kip_members = groups["live-kip848"]["members"]
    assert len(kip_members) == 2 and all(m["member_epoch"] >= 1 for m in kip_members)
    assert sorted(tp["partition"] for m in kip_members for tp in m["current_assignment"]) == [0, 1, 2]
    assert [tp["partition"] for m in groups["live-classic"]["members"] for tp in m["current_assignment"]] == [0, 1, 2]
    assert groups["nope"]["error"]["name"] == "GROUP_ID_NOT_FOUND"
    code, out, _err = cli(cluster, "groups", "describe", "live-kip848")
    assert code == 0 and "consumer" in out and "Stable" in out and "orders:" in out


def test_reset_is_a_dry_run_by_default_and_writes_with_execute(cluster: FakeCluster) -> None:
    cluster.clear_log()
    code, out, err = cli(cluster, "groups", "reset-offsets", "idle", "--topic", "orders", "--to-earliest")
    assert code == 0 and OFFSET_COMMIT not in kadmin_requests(cluster)
    assert "dry run" in err and "CURRENT-OFFSET" in out
    lines = [ln.split() for ln in out.splitlines()[1:]]
    assert [(ln[2], ln[3], ln[4]) for ln in lines] == [("0", "40", "0"), ("1", "60", "0"), ("2", "70", "50")]
    r = run_main("-b", cluster.bootstrap, "-o", "json", "groups", "reset-offsets", "idle", "--topic", "orders:1,2",
                 "--shift-by", "25", "--execute")
    assert r.code == 0
    doc = r.json()
    assert doc["dry_run"] is False
    assert [(p["partition"], p["new_offset"], p["clamped"], p["applied"]) for p in doc["partitions"]] == \
        [(1, 85, False, True), (2, 80, True, True)]
    offsets = cluster.groups["idle"].offsets
    assert (offsets[("orders", 0)].offset, offsets[("orders", 1)].offset, offsets[("orders", 2)].offset) == \
        (40, 85, 80)


def test_reset_of_an_active_group_exits_2_and_writes_nothing(cluster: FakeCluster) -> None:
    cluster.clear_log()
    for gid in ("live-classic", "live-kip848"):
        code, _out, err = cli(cluster, "groups", "reset-offsets", gid, "--topic", "orders", "--to-latest",
                              "--execute")
        assert code == 2 and "inactive" in err
    assert OFFSET_COMMIT not in kadmin_requests(cluster)


@pytest.mark.parametrize("args", [
    ("--topic", "orders"),  # no target
    ("--topic", "orders", "--to-earliest", "--to-latest"),
    ("--topic", "orders:x", "--to-earliest"),
    ("--topic", "orders", "--by-duration", "1 day"),
    ("--topic", "orders", "--to-datetime", "yesterday"),
    ("--topic", "orders", "--to-offset", "-1"),
    ("--topic", "orders", "--to-earliest", "--execute", "--dry-run"),
])
def test_bad_reset_arguments_exit_2_before_connecting(cluster: FakeCluster, args: tuple[str, ...]) -> None:
    cluster.clear_log()
    code, _out, _err = cli(cluster, "groups", "reset-offsets", "idle", *args)
    assert code == 2
    assert kadmin_requests(cluster) == []


def test_delete_offsets_of_a_whole_topic_and_the_unknown_group(cluster: FakeCluster) -> None:
    cluster.commit("to-clean", "orders", 0, 1)
    cluster.commit("to-clean", "orders", 2, 2)
    code, out, _err = cli(cluster, "groups", "delete-offsets", "to-clean", "--topic", "orders")
    assert code == 0 and out.count("deleted") == 2
    assert cluster.groups["to-clean"].offsets == {}
    code, _out, err = cli(cluster, "groups", "delete-offsets", "no-such", "--topic", "orders:0")
    assert code == 1 and "GROUP_ID_NOT_FOUND" in err


def test_remove_members_and_the_api_missing_on_old_brokers(cluster: FakeCluster) -> None:
    member = cluster.groups["live-classic"].members[0].member_id
    code, out, _err = cli(cluster, "groups", "remove-members", "live-classic", "--member", member,
                          "--reason", "test")
    assert code == 0 and "removed" in out
    code, _out, err = cli(cluster, "groups", "remove-members", "live-classic", "--member", "ghost")
    assert code == 1 and "UNKNOWN_MEMBER_ID" in err
    assert cli(cluster, "groups", "remove-members", "live-classic")[0] == 2  # neither members nor --all
    with FakeCluster(brokers=1, versions="2.2") as old:
        old.commit("g", "t", 0, 1)
        old.add_topic("t", 1)
        r = run_main("-b", old.bootstrap, "groups", "delete-offsets", "g", "--topic", "t:0")
        assert r.code == 2 and "unsupported" in r.err
        assert old.count(OFFSET_DELETE) == 0


def test_the_console_entry_point_runs_reset_offsets(cluster: FakeCluster) -> None:
    r = run_cli("-b", cluster.bootstrap, "groups", "reset-offsets", "idle", "--topic", "orders:0", "--to-offset", "7")
    assert r.code == 0 and "dry run" in r.err
