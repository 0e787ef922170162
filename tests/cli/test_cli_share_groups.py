"""``kadmin share-groups``: list, describe (offsets, members, state), reset-offsets (a dry run, then --execute),
delete-offsets and delete against the fake cluster's 4.3 preset, and the exit statuses of docs/cli.md: 0 all
keys succeeded, 1 some failed (a group with members refused with NON_EMPTY_GROUP), 2 nothing could run (bad
input before connecting, a cluster without share groups)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kadmin.testing import FakeCluster
from tests.support.cli import run_main

pytestmark = pytest.mark.timeout(120)

ALTER_OFFSETS = 91


@pytest.fixture
def cluster() -> Iterator[FakeCluster]:
    with FakeCluster(brokers=2, versions="4.3") as c:
        c.add_topic("orders", 2, offsets={0: (0, 100), 1: (10, 50)})
        c.set_share_offsets("invoices", {("orders", 0): 40, ("orders", 1): 20})
        c.add_group("busy", group_type="share", members=[
            {"member_id": "m1", "client_id": "share-1", "subscribed_topic_names": ["orders"],
             "assigned": [("orders", 0), ("orders", 1)], "member_epoch": 2}], generation_id=2)
        c.set_share_offsets("busy", {("orders", 0): 70})
        c.clear_log()
        yield c


def starts(c: FakeCluster, group: str) -> dict[tuple[str, int], int]:
    return {k: v.start_offset for k, v in c.share_offsets(group).items()}


def test_list_and_describe(cluster: FakeCluster) -> None:
    b = ("-b", cluster.bootstrap)
    r = run_main("share-groups", "list", "-o", "json", *b)
    assert r.code == 0
    assert sorted((g["group_id"], g["state"]) for g in r.json()["groups"]) == [("busy", "Stable"),
                                                                              ("invoices", "Empty")]

    r = run_main("share-groups", "describe", "invoices", "-o", "json", *b)
    assert r.code == 0 and r.json()["command"] == "share-groups describe --offsets"
    assert r.json()["groups"][0]["offsets"] == [
        {"topic": "orders", "partition": 0, "error": None, "start_offset": 40, "leader_epoch": 0, "lag": 60},
        {"topic": "orders", "partition": 1, "error": None, "start_offset": 20, "leader_epoch": 0, "lag": 30}]

    r = run_main("share-groups", "describe", "busy", "--members", *b)
    assert r.code == 0 and "m1" in r.out and "orders:0,1" in r.out and "share-1" in r.out

    r = run_main("share-groups", "describe", "busy", "nobody", "--state", "-o", "json", *b)
    assert r.code == 1  # nobody: GROUP_ID_NOT_FOUND
    by_id = {g["group_id"]: g for g in r.json()["groups"]}
    assert (by_id["busy"]["state"], by_id["busy"]["members"], by_id["busy"]["group_epoch"]) == ("Stable", 1, 2)
    assert by_id["nobody"]["error"]["name"] == "GROUP_ID_NOT_FOUND"


def test_reset_is_a_dry_run_until_execute_and_a_group_with_members_fails_alone(cluster: FakeCluster) -> None:
    b = ("-b", cluster.bootstrap)
    r = run_main("share-groups", "reset-offsets", "invoices", "busy", "--to-earliest", *b)
    assert r.code == 1
    assert "invoices" in r.out and "orders" in r.out and "NON_EMPTY_GROUP" in r.err and "busy" in r.err
    assert "dry run: nothing was written" in r.err
    assert cluster.count(ALTER_OFFSETS) == 0
    assert starts(cluster, "invoices") == {("orders", 0): 40, ("orders", 1): 20}

    r = run_main("share-groups", "reset-offsets", "invoices", "busy", "--to-earliest", "--execute", "-o", "json", *b)
    assert r.code == 1 and r.json()["dry_run"] is False
    by_id = {g["group_id"]: g for g in r.json()["groups"]}
    assert by_id["busy"]["error"]["name"] == "NON_EMPTY_GROUP"
    assert [(p["partition"], p["current_offset"], p["new_offset"], p["applied"])
            for p in by_id["invoices"]["partitions"]] == [(0, 40, 0, True), (1, 20, 10, True)]
    assert starts(cluster, "invoices") == {("orders", 0): 0, ("orders", 1): 10}
    assert starts(cluster, "busy") == {("orders", 0): 70}  # nothing of the active group was written
    assert cluster.count(ALTER_OFFSETS) == 1

    r = run_main("share-groups", "reset-offsets", "invoices", "--topic", "orders:1", "--to-offset", "45",
                 "--execute", *b)
    assert r.code == 0 and "wrote 1 start offset" in r.err
    assert starts(cluster, "invoices") == {("orders", 0): 0, ("orders", 1): 45}


def test_delete_offsets_and_delete(cluster: FakeCluster) -> None:
    b = ("-b", cluster.bootstrap)
    r = run_main("share-groups", "delete-offsets", "invoices", "--topic", "orders", "--topic", "typo", "-o", "json", *b)
    assert r.code == 1
    assert [(t["topic"], t["error"] and t["error"]["name"]) for t in r.json()["topics"]] == [
        ("orders", None), ("typo", "UNKNOWN_TOPIC_OR_PARTITION")]
    assert starts(cluster, "invoices") == {}
    r = run_main("share-groups", "delete", "invoices", "busy", *b)
    assert r.code == 1 and "invoices" in r.out and "NON_EMPTY_GROUP" in r.err
    assert "invoices" not in cluster.groups and "busy" in cluster.groups
    r = run_main("share-groups", "delete", "busy", "--timeout", "5", *b)
    assert r.code == 1


def test_bad_input_exits_2_before_connecting(cluster: FakeCluster) -> None:
    b = ("-b", cluster.bootstrap)
    for argv, says in [
        (("share-groups", "reset-offsets", "invoices"), "one of the arguments"),
        (("share-groups", "reset-offsets", "invoices", "--to-offset", "-1"), "--to-offset must be >= 0"),
        (("share-groups", "reset-offsets", "invoices", "--to-earliest", "--execute", "--dry-run"), "contradict"),
        (("share-groups", "reset-offsets", "", "--to-earliest"), "group id is empty"),
        (("share-groups", "list", "--state", "sleepy"), "unknown group state"),
        (("share-groups", "delete-offsets", "invoices", "--topic", "orders:0"), "whole topics"),
        (("share-groups", "describe", "invoices", "--members", "--state"), "not allowed with"),
    ]:
        r = run_main(*argv, *b)
        assert r.code == 2, (argv, r.err)
        assert says in r.err, (argv, r.err)
    assert cluster.request_log == []


def test_a_cluster_without_share_groups_exits_2_naming_the_release() -> None:
    with FakeCluster(brokers=1, versions="4.0") as c:
        for argv in (("share-groups", "describe", "g"), ("share-groups", "describe", "g", "--state"),
                     ("share-groups", "reset-offsets", "g", "--to-latest"),
                     ("share-groups", "delete-offsets", "g", "--topic", "t")):
            r = run_main(*argv, "-b", c.bootstrap)
            assert r.code == 2, (argv, r.out, r.err)
            assert "unsupported by this broker" in r.err and "Kafka 4.1" in r.err, r.err
