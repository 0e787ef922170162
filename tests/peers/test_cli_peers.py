"""The kadmin CLI against brokers kadmin did not write: Tansu 0.6 (one node, id 111) and librdkafka's mock.

Groups are made with confluent-kafka (librdkafka), an independent client, by committing offsets.  Tansu has
no client quota APIs, so every quota command must end with one "unsupported by this broker" line and exit 2
(the policy documented in docs/cli.md: nothing could be looked at, so there are no per-key results).
"""

from __future__ import annotations

import uuid

import pytest

from tests.support.cli import assert_fits, run_cli
from tests.support.peers import RunningBroker


def _make_group(bootstrap: str, offsets: dict[int, int]) -> tuple[str, str]:
    """A topic with 2 partitions and a group with ``offsets`` committed on it, via librdkafka."""
    from confluent_kafka import Consumer, TopicPartition
    from confluent_kafka.admin import AdminClient, NewTopic

    suffix = uuid.uuid4().hex[:8]
    topic, group = f"cli-topic-{suffix}", f"cli-group-{suffix}"
    admin = AdminClient({"bootstrap.servers": bootstrap, "log_level": 3})
    for fut in admin.create_topics([NewTopic(topic, 2, 1)]).values():
        fut.result(15)
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False,
                         "log_level": 3})
    try:
        consumer.commit(offsets=[TopicPartition(topic, p, o) for p, o in offsets.items()], asynchronous=False)
    finally:
        consumer.close()
    return topic, group


def test_api_versions_against_tansu(tansu: RunningBroker) -> None:
    from tests.support import peers

    r = run_cli("-b", tansu.bootstrap, "-o", "json", "api-versions")
    assert r.code == 0, r.err
    (node,) = r.json()["nodes"]
    assert node["node_id"] == 111 and node["port"] == tansu.nodes[111][1]
    advertised = peers.api_versions(tansu.addresses[0])  # measured with kafka-python, not kadmin
    listed = {a["api_key"]: (a["node_min"], a["node_max"]) for a in node["apis"] if a["node_min"] is not None}
    assert listed == {k: tuple(v) for k, v in advertised.items()}
    by_name = {a["name"]: a for a in node["apis"]}
    assert by_name["DescribeGroups"]["negotiated"] == min(by_name["DescribeGroups"]["node_max"], 5)
    assert by_name["DescribeClientQuotas"]["node_min"] is None  # Tansu has no quota APIs
    t = run_cli("-b", tansu.bootstrap, "api-versions")
    assert t.code == 0 and t.out.startswith("node 111 at ")
    assert_fits(t.out)


def test_groups_commands_against_tansu(tansu: RunningBroker) -> None:
    topic, group = _make_group(tansu.bootstrap, {0: 2, 1: 1})
    b = ("-b", tansu.bootstrap, "-o", "json")

    r = run_cli(*b, "groups", "list")
    assert r.code == 0, r.err
    listed = {g["group_id"]: g for g in r.json()["groups"]}
    assert listed[group]["coordinator"] == 111 and listed[group]["protocol_type"] == "consumer"

    r = run_cli(*b, "groups", "describe", group)
    assert r.code == 0, r.err
    (d,) = r.json()["groups"]
    assert (d["group_id"], d["error"], d["state"], d["members"], d["coordinator"]) == (group, None, "Empty", [], 111)

    r = run_cli(*b, "groups", "offsets", group)
    assert r.code == 0, r.err
    (g,) = r.json()["groups"]
    assert [(p["topic"], p["partition"], p["offset"], p["error"]) for p in g["partitions"]] == [
        (topic, 0, 2, None), (topic, 1, 1, None)]

    r = run_cli(*b, "groups", "offsets", group, "--lag")
    assert r.code == 0, r.err
    parts = r.json()["groups"][0]["partitions"]
    # Nothing was produced, so the log end is 0 and a committed offset beyond it is no lag (never negative).
    assert [(p["offset"], p["log_end_offset"], p["lag"]) for p in parts] == [(2, 0, 0), (1, 0, 0)]

    t = run_cli("-b", tansu.bootstrap, "groups", "describe", group)
    assert t.code == 0 and group in t.out
    assert_fits(t.out)

    r = run_cli(*b, "groups", "delete", group)
    assert r.code == 0, r.err
    assert r.json()["groups"] == [{"group_id": group, "error": None}]
    r = run_cli(*b, "groups", "list")
    assert group not in {g["group_id"] for g in r.json()["groups"]}


@pytest.mark.parametrize("args", [
    ("quotas", "describe"),
    ("quotas", "describe", "--user", "alice", "--strict"),
    ("quotas", "alter", "--user", "alice", "--set", "producer_byte_rate=1024"),
    ("quotas", "resolve", "--user", "alice", "--client-id", "etl"),
], ids=["describe", "describe-strict", "alter", "resolve"])
def test_quota_commands_on_a_broker_without_quota_apis_exit_2_with_one_line(tansu: RunningBroker,
                                                                            args: tuple[str, ...]) -> None:
    for fmt in ("table", "json"):
        r = run_cli("-b", tansu.bootstrap, "--timeout", "10", "-o", fmt, *args)
        assert r.code == 2, r
        assert len(r.err.splitlines()) == 1, r.err
        assert r.err.startswith("kadmin: error: unsupported by this broker: ")
        assert "DescribeClientQuotas" in r.err or "AlterClientQuotas" in r.err
        assert r.out == ""


def test_api_versions_against_the_librdkafka_mock_cluster(rdkafka_mock: RunningBroker) -> None:
    r = run_cli("-b", rdkafka_mock.bootstrap, "-o", "json", "api-versions", "--kadmin-only")
    assert r.code == 0, r.err
    nodes = r.json()["nodes"]
    assert [n["node_id"] for n in nodes] == [1, 2, 3]
    for n in nodes:
        apis = {a["name"]: a for a in n["apis"]}
        # The mock answers ApiVersions only up to v2 (see tests/data/peer_versions.json).
        assert (apis["ApiVersions"]["node_max"], apis["ApiVersions"]["negotiated"]) == (2, 2)
        assert apis["DescribeClientQuotas"]["node_min"] is None
