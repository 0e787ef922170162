"""Kafka's shell-tool spellings beside kadmin's own (issue #29): ``--topic``, ``--group``, ``--all-groups``,
``--all-topics``, ``--to-current``, and topic ids in Kafka's base64 form, printed and accepted."""

from __future__ import annotations

import base64
from collections.abc import Iterator

import pytest

from kadmin.testing import FakeCluster
from kadmin.testing.__main__ import seed_demo
from tests.support.cli import Result, run_main


@pytest.fixture(scope="module")
def cluster() -> Iterator[FakeCluster]:
    with FakeCluster(brokers=1) as c:
        seed_demo(c)
        yield c


def kadmin(cluster: FakeCluster, *args: str) -> Result:
    return run_main("-b", cluster.bootstrap, *args)


def b64(cluster: FakeCluster, topic: str) -> str:
    return base64.urlsafe_b64encode(cluster.topic_id(topic).bytes).decode().rstrip("=")


def test_topics_describe_takes_topic_flag(cluster: FakeCluster) -> None:
    r = kadmin(cluster, "-o", "json", "topics", "describe", "--topic", "orders")
    assert r.code == 0, r.err
    assert [t["name"] for t in r.json()["topics"]] == ["orders"]


def test_topics_create_add_partitions_delete_take_topic_flag(cluster: FakeCluster) -> None:
    assert kadmin(cluster, "topics", "create", "--topic", "spelled", "--partitions", "1").code == 0
    assert kadmin(cluster, "topics", "add-partitions", "--topic", "spelled", "--partitions", "2").code == 0
    assert len(cluster.replicas("spelled")) == 2
    r = kadmin(cluster, "topics", "delete", "--topic", "spelled")
    assert r.code == 0, r.err
    assert "spelled" not in cluster.topics


def test_topic_ids_are_printed_in_kafkas_base64_form(cluster: FakeCluster) -> None:
    r = kadmin(cluster, "-o", "json", "topics", "list")
    ids = {t["name"]: t["topic_id"] for t in r.json()["topics"]}
    assert ids["orders"] == b64(cluster, "orders")
    table = kadmin(cluster, "topics", "list").out
    assert b64(cluster, "orders") in table
    assert str(cluster.topic_id("orders")) not in table
    described = kadmin(cluster, "-o", "json", "topics", "describe", "orders").json()
    assert described["topics"][0]["topic_id"] == b64(cluster, "orders")


@pytest.mark.parametrize("form", ["base64", "uuid"])
def test_topics_delete_takes_either_id_form(cluster: FakeCluster, form: str) -> None:
    name = f"by-id-{form}"
    assert kadmin(cluster, "topics", "create", name, "--partitions", "1").code == 0
    text = b64(cluster, name) if form == "base64" else str(cluster.topic_id(name))
    r = kadmin(cluster, "topics", "delete", "--topic-id", text)
    assert r.code == 0, r.err
    assert name not in cluster.topics
    assert b64(cluster, "orders") not in r.out  # the deleted topic's id, not another one


def test_a_topic_id_in_neither_form_is_a_usage_error(cluster: FakeCluster) -> None:
    r = kadmin(cluster, "topics", "delete", "--topic-id", "not-an-id")
    assert r.code == 2
    assert "base64" in r.err and "UUID" in r.err


@pytest.mark.parametrize("command", ["describe", "offsets"])
def test_groups_take_group_flag(cluster: FakeCluster, command: str) -> None:
    r = kadmin(cluster, "-o", "json", "groups", command, "--group", "billing", "orders-service")
    assert r.code == 0, r.err
    assert [g["group_id"] for g in r.json()["groups"]] == ["orders-service", "billing"]


@pytest.mark.parametrize("command", ["describe", "offsets"])
def test_all_groups(cluster: FakeCluster, command: str) -> None:
    r = kadmin(cluster, "-o", "json", "groups", command, "--all-groups")
    assert {g["group_id"] for g in r.json()["groups"]} == {"orders-service", "billing", "rebalancing"}


def test_all_groups_and_named_groups_contradict(cluster: FakeCluster) -> None:
    r = kadmin(cluster, "groups", "describe", "billing", "--all-groups")
    assert r.code == 2
    assert "not both" in r.err


def test_no_group_at_all_is_a_usage_error(cluster: FakeCluster) -> None:
    r = kadmin(cluster, "groups", "describe")
    assert r.code == 2
    assert "--all-groups" in r.err


def test_reset_offsets_with_group_all_topics_and_to_current(cluster: FakeCluster) -> None:
    r = kadmin(cluster, "-o", "json", "groups", "reset-offsets", "--group", "billing", "--all-topics",
               "--to-current")
    assert r.code == 0, r.err
    parts = r.json()["partitions"]
    assert [(p["topic"], p["partition"], p["current_offset"], p["new_offset"]) for p in parts] == [
        ("payments", 0, 400, 400)]


def test_delete_offsets_and_remove_members_take_group_flag(cluster: FakeCluster) -> None:
    r = kadmin(cluster, "-o", "json", "groups", "remove-members", "--group", "billing", "--all")
    assert r.code == 0, r.err
    assert r.json()["group_id"] == "billing"
    r = kadmin(cluster, "groups", "delete-offsets", "--group", "billing", "--topic", "payments")
    assert r.code == 0, r.err
    assert "deleted" in r.out


def test_one_group_commands_refuse_two_groups(cluster: FakeCluster) -> None:
    r = kadmin(cluster, "groups", "reset-offsets", "billing", "--group", "other", "--all-topics", "--to-latest")
    assert r.code == 2
    assert "one group" in r.err


def test_a_base64_id_starting_with_a_dash_is_a_value_not_an_option(cluster: FakeCluster) -> None:
    # One Kafka topic id in 32 starts with '-'; argparse alone would read it as an unknown option.
    r = kadmin(cluster, "-o", "json", "topics", "delete", "--topic-id", "-0oJcqVVSXi--5uQrveciQ")
    assert r.code == 1, r.err
    [item] = r.json()["topics"]
    assert item["topic"] == "-0oJcqVVSXi--5uQrveciQ"
    assert item["error"]["name"] == "UNKNOWN_TOPIC_ID"


def test_configs_topic_shortcut_alters_and_describes_a_topic(cluster: FakeCluster) -> None:
    r = kadmin(cluster, "configs", "alter", "--topic", "payments", "--add-config", "retention.ms=7200000")
    assert r.code == 0, r.err
    assert cluster.topic_configs("payments")["retention.ms"] == "7200000"
    d = kadmin(cluster, "-o", "json", "configs", "describe", "--topic", "payments")
    assert d.code == 0, d.err
    [res] = d.json()["resources"]
    assert (res["entity_type"], res["entity_name"]) == ("topics", "payments")


@pytest.mark.parametrize(("shortcut", "expected_name"), [(["--broker", "1"], "1"),
                                                         (["--broker-defaults"], "")])
def test_configs_broker_shortcuts(cluster: FakeCluster, shortcut: list[str], expected_name: str) -> None:
    r = kadmin(cluster, "-o", "json", "configs", "describe", *shortcut)
    assert r.code == 0, r.err
    assert [(x["entity_type"], x["entity_name"]) for x in r.json()["resources"]] == [("brokers", expected_name)]


@pytest.mark.parametrize("args", [
    ["--topic", "orders", "--broker", "1"],
    ["--entity-type", "brokers", "--topic", "orders"],
    [],
])
def test_configs_shortcuts_that_contradict_or_are_missing_are_usage_errors(cluster: FakeCluster,
                                                                           args: list[str]) -> None:
    cluster.clear_log()
    r = kadmin(cluster, "configs", "describe", *args)
    assert r.code == 2
    assert cluster.request_log == []


def test_offsets_list_takes_topic_flag(cluster: FakeCluster) -> None:
    r = kadmin(cluster, "-o", "json", "offsets", "list", "--topic", "orders:1", "--time", "earliest")
    assert r.code == 0, r.err
    assert [(p["topic"], p["partition"]) for p in r.json()["partitions"]] == [("orders", 1)]
    assert kadmin(cluster, "offsets", "list").code == 2  # no topic either way
