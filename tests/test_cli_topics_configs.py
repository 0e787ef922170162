"""``kadmin topics ...`` and ``kadmin configs ...`` against the FakeCluster: JSON, tables, exit statuses, and
bad input refused before anything reaches the cluster.  Most cases run ``main()`` in-process (``run_main``);
one round trip runs the real console entry point in a subprocess."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from test_cli import run_cli, run_main

from kadmin.protocol.apis import ApiKey
from kadmin.testing import FakeCluster

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(scope="module")
def cluster() -> Iterator[FakeCluster]:
    with FakeCluster(3, versions="3.9") as c:
        c.add_topic("orders", 3)
        yield c


def test_create_describe_add_partitions_delete(cluster: FakeCluster) -> None:
    b = ("-b", cluster.bootstrap, "-o", "json")
    r = run_main("topics", "create", "cli-a", "cli-b", "--partitions", "2", "--replication-factor", "2",
                 "--config", "retention.ms=1000", *b)
    assert r.code == 0, r.err
    doc = r.json()
    assert doc["command"] == "topics create"
    assert [t["topic"] for t in doc["topics"]] == ["cli-a", "cli-b"]
    assert all(t["error"] is None and t["partitions"] == 2 for t in doc["topics"])
    assert cluster.topic_configs("cli-a") == {"retention.ms": "1000"}

    r = run_main("topics", "create", "cli-a", "cli-c", "--partitions", "1", "--replication-factor", "1", *b)
    assert r.code == 1
    errs = {t["topic"]: t["error"] for t in r.json()["topics"]}
    assert errs["cli-a"]["name"] == "TOPIC_ALREADY_EXISTS" and errs["cli-c"] is None

    r = run_main("topics", "describe", "cli-a", "missing", *b)
    assert r.code == 1
    items = {t["name"]: t for t in r.json()["topics"]}
    assert [p["replicas"] for p in items["cli-a"]["partitions"]] == list(cluster.replicas("cli-a").values())
    assert items["missing"]["error"]["name"] == "UNKNOWN_TOPIC_OR_PARTITION"

    r = run_main("topics", "add-partitions", "cli-a", "--partitions", "4", *b)
    assert r.code == 0 and len(cluster.replicas("cli-a")) == 4

    r = run_main("topics", "list", *b)
    assert r.code == 0 and {"cli-a", "cli-b", "cli-c", "orders"} <= {t["name"] for t in r.json()["topics"]}

    tid = str(cluster.topic_id("cli-b"))
    r = run_main("topics", "delete", "cli-a", "cli-c", "--topic-id", tid, *b)
    assert r.code == 0, r.out
    assert not {"cli-a", "cli-b", "cli-c"} & set(cluster.topics)


def test_table_output(cluster: FakeCluster) -> None:
    r = run_main("topics", "describe", "orders", "nope", "-b", cluster.bootstrap)
    assert r.code == 1
    lines = r.out.splitlines()
    assert lines[0].split() == ["TOPIC", "PARTITION", "LEADER", "REPLICAS", "ISR", "OFFLINE"]
    assert len(lines) == 4 and all(line.startswith("orders") for line in lines[1:])
    assert r.err_lines == ["kadmin: nope: UNKNOWN_TOPIC_OR_PARTITION: topic 'nope': This server does not host "
                           "this topic-partition."]


def test_configs_describe_and_alter(cluster: FakeCluster) -> None:
    b = ("-b", cluster.bootstrap, "-o", "json")
    r = run_main("configs", "alter", "--entity-type", "topics", "--entity-name", "orders",
                 "--add-config", "retention.ms=5000,cleanup.policy=[delete,compact]", *b)
    assert r.code == 0, r.err
    assert cluster.topic_configs("orders") == {"retention.ms": "5000", "cleanup.policy": "delete,compact"}
    r = run_main("configs", "describe", "--entity-type", "topics", "--entity-name", "orders", *b)
    (res,) = r.json()["resources"]
    assert {c["name"]: c["value"] for c in res["configs"]} == {"retention.ms": "5000",
                                                                 "cleanup.policy": "delete,compact"}
    assert {c["source"] for c in res["configs"]} == {"DYNAMIC_TOPIC_CONFIG"}
    r = run_main("configs", "describe", "--entity-type", "topics", "--entity-name", "orders", "--all", *b)
    assert len(r.json()["resources"][0]["configs"]) > 10
    r = run_main("configs", "alter", "--entity-type", "topics", "--entity-name", "orders",
                 "--delete-config", "retention.ms", "--subtract-config", "cleanup.policy=compact", *b)
    assert r.code == 0 and cluster.topic_configs("orders") == {"cleanup.policy": "delete"}

    # Brokers: each to its own broker; the cluster default with --entity-default.
    cluster.clear_log()
    r = run_main("configs", "alter", "--entity-type", "brokers", "--entity-name", "2", "--entity-name", "3",
                 "--entity-default", "--add-config", "background.threads=4", *b)
    assert r.code == 0, r.err
    assert {e.node_id for e in cluster.request_log if e.api_key == ApiKey.INCREMENTAL_ALTER_CONFIGS} >= {2, 3}
    assert cluster.resource_configs(4, "") == {"background.threads": "4"}
    r = run_main("configs", "describe", "--entity-type", "broker-loggers", "--entity-name", "1", "--all", *b)
    assert r.code == 0 and any(c["name"] == "root" for c in r.json()["resources"][0]["configs"])

    # A broker-side refusal is a per-resource error: exit 1.
    r = run_main("configs", "alter", "--entity-type", "topics", "--entity-name", "orders", "--entity-name",
                 "ghost", "--add-config", "retention.ms=1", *b)
    assert r.code == 1
    errs = {x["entity_name"]: x["error"] for x in r.json()["resources"]}
    assert errs["orders"] is None and errs["ghost"]["name"] == "UNKNOWN_TOPIC_OR_PARTITION"


def test_sensitive_values_never_printed(cluster: FakeCluster) -> None:
    secret = "pa55-word-xyz"
    for fmt in ("json", "table"):
        r = run_main("configs", "alter", "--entity-type", "brokers", "--entity-name", "1", "--add-config",
                     f"ssl.keystore.password={secret}", "-b", cluster.bootstrap, "-o", fmt)
        assert r.code == 0 and secret not in r.out + r.err
        r = run_main("configs", "describe", "--entity-type", "brokers", "--entity-name", "1", "--all",
                     "--synonyms", "-b", cluster.bootstrap, "-o", fmt, "--debug")
        assert r.code == 0 and secret not in r.out + r.err
    assert cluster.resource_configs(4, "1")["ssl.keystore.password"] == secret


@pytest.mark.parametrize("args", [
    ("topics", "create", "bad name", "--partitions", "1"),
    ("topics", "create", "t", "--partitions", "0"),
    ("topics", "create", "t", "--replication-factor", "0"),
    ("topics", "create", "t", "--replication-factor", "2", "--replica-assignment", "1:2"),
    ("topics", "create", "t", "--replica-assignment", "1:x"),
    ("topics", "create", "t", "t", "--partitions", "1"),
    ("topics", "create", "t", "--config", "novalue"),
    ("topics", "create", "x" * 250),
    ("topics", "create", ".."),
    ("topics", "delete"),
    ("topics", "delete", "--topic-id", "not-a-uuid"),
    ("topics", "describe", ""),
    ("topics", "add-partitions", "t", "--partitions", "0"),
    ("configs", "alter", "--entity-type", "topics", "--entity-name", "t"),
    ("configs", "alter", "--entity-type", "topics", "--entity-name", "t", "--add-config", "a"),
    ("configs", "alter", "--entity-type", "topics", "--entity-name", "t", "--append-config", "retention.ms=1"),
    ("configs", "alter", "--entity-type", "topics", "--entity-default", "--add-config", "a=b"),
    ("configs", "alter", "--entity-type", "brokers", "--entity-name", "x", "--add-config", "a=b"),
    ("configs", "alter", "--entity-type", "topics", "--entity-name", "t", "--add-config", "a=1,a=2"),
    ("configs", "describe", "--entity-type", "topics"),
    ("configs", "describe", "--entity-type", "nonsense", "--entity-name", "x"),
])
def test_bad_input_exits_2_before_connecting(cluster: FakeCluster, args: tuple[str, ...]) -> None:
    cluster.clear_log()
    r = run_main(*args, "-b", cluster.bootstrap)
    assert r.code == 2, (r.out, r.err)
    assert len(r.err_lines) == 1 and r.out == ""
    assert cluster.request_log == []


def test_console_round_trip(cluster: FakeCluster) -> None:
    r = run_cli("topics", "create", "sub-t", "--partitions", "1", "--replication-factor", "1", "-b",
                cluster.bootstrap)
    assert r.code == 0, r.err
    assert r.out.splitlines()[1].split() == ["sub-t", "created"]
    r = run_cli("configs", "describe", "--entity-type", "topics", "--entity-name", "sub-t", "--all", "-b",
                cluster.bootstrap)
    assert r.code == 0 and "retention.ms" in r.out
