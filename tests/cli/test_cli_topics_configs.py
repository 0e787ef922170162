"""``kadmin topics ...`` and ``kadmin configs ...`` against the FakeCluster: JSON, tables, exit statuses, and
bad input refused before anything reaches the cluster.  Most cases run ``main()`` in-process (``run_main``);
one round trip runs the real console entry point in a subprocess."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kadmin.errors import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing import FakeCluster
from tests.support.cli import assert_fits, run_cli, run_main

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


#: Kafka takes keystore secrets per listener only (unprefixed ssl.keystore.password is refused).
_KEYSTORE_PW = "listener.name.internal.ssl.keystore.password"


def test_sensitive_values_never_printed(cluster: FakeCluster) -> None:
    secret = "pa55-word-xyz"
    for fmt in ("json", "table"):
        r = run_main("configs", "alter", "--entity-type", "brokers", "--entity-name", "1", "--add-config",
                     f"{_KEYSTORE_PW}={secret}", "-b", cluster.bootstrap, "-o", fmt)
        assert r.code == 0 and secret not in r.out + r.err
        r = run_main("configs", "describe", "--entity-type", "brokers", "--entity-name", "1", "--all",
                     "--synonyms", "-b", cluster.bootstrap, "-o", fmt, "--debug")
        assert r.code == 0 and secret not in r.out + r.err
    assert cluster.resource_configs(4, "1")[_KEYSTORE_PW] == secret


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
    # An empty assignment (an unset "$ASSIGN") is refused, not read as "let the broker place the replicas".
    ("topics", "create", "t", "--replica-assignment="),
    ("topics", "create", "t", "--replica-assignment", " "),
    ("topics", "add-partitions", "orders", "--partitions", "5", "--replica-assignment="),
    ("configs", "alter", "--entity-type", "topics", "--entity-name", "t"),
    ("configs", "alter", "--entity-type", "topics", "--entity-name", "t", "--add-config", "a"),
    ("configs", "alter", "--entity-type", "topics", "--entity-name", "t", "--append-config", "retention.ms=1"),
    ("configs", "alter", "--entity-type", "topics", "--entity-default", "--add-config", "a=b"),
    ("configs", "alter", "--entity-type", "brokers", "--entity-name", "x", "--add-config", "a=b"),
    ("configs", "alter", "--entity-type", "topics", "--entity-name", "t", "--add-config", "a=1,a=2"),
    ("configs", "alter", "--entity-type", "topics", "--add-config", "a=b"),  # alter keeps requiring names
    ("configs", "alter", "--entity-type", "brokers", "--add-config", "a=b"),
    ("topics", "describe", "orders", "--exclude-internal"),
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


# --- describe everything when no name is given (as kafka-topics.sh / kafka-configs.sh --describe do) ---------


@pytest.fixture(scope="module")
def listed() -> Iterator[FakeCluster]:
    with FakeCluster(3, versions="4.0") as c:
        for name, parts in (("alpha", 2), ("beta", 1), ("__consumer_offsets", 1)):
            c.add_topic(name, parts)
        c.set_topic_config("beta", "retention.ms", "7000")
        c.add_group("g-one")
        c.add_group("g-two", group_type="consumer")
        yield c


def test_topics_describe_without_names_describes_every_topic(listed: FakeCluster) -> None:
    b = ("-b", listed.bootstrap, "-o", "json")
    r = run_main("topics", "describe", *b)
    assert r.code == 0, r.err
    got = {t["name"]: t for t in r.json()["topics"]}
    # Internal topics too, as kafka-topics.sh lists them by default.
    assert set(got) == set(listed.topics) == {"alpha", "beta", "__consumer_offsets"}
    assert [p["replicas"] for p in got["alpha"]["partitions"]] == list(listed.replicas("alpha").values())
    assert got["__consumer_offsets"]["internal"] is True
    r = run_main("topics", "describe", "--exclude-internal", *b)
    assert r.code == 0 and {t["name"] for t in r.json()["topics"]} == {"alpha", "beta"}
    r = run_main("topics", "describe", "-b", listed.bootstrap)
    assert r.code == 0
    assert sorted({line.split()[0] for line in r.out.splitlines()[1:]}) == ["__consumer_offsets", "alpha", "beta"]


def test_configs_describe_without_names_describes_every_entity(listed: FakeCluster) -> None:
    b = ("-b", listed.bootstrap, "-o", "json")

    def names(*args: str) -> list[str]:
        r = run_main("configs", "describe", *args, *b)
        assert r.code == 0, r.err
        items = r.json()["resources"]
        assert all(x["error"] is None for x in items), items
        return [x["entity_name"] for x in items]

    assert sorted(names("--entity-type", "topics")) == sorted(listed.topics)
    # Every broker, then the cluster-wide default (kafka-configs.sh lists it last as well).
    assert names("--entity-type", "brokers") == [str(n) for n in listed.node_ids] + [""]
    assert names("--entity-type", "broker-loggers") == [str(n) for n in listed.node_ids]
    assert names("--entity-type", "groups") == ["g-one", "g-two"]
    r = run_main("configs", "describe", "--entity-type", "topics", *b)
    beta = next(x for x in r.json()["resources"] if x["entity_name"] == "beta")
    assert {c["name"]: c["value"] for c in beta["configs"]} == {"retention.ms": "7000"}
    assert r.json()["listing_errors"] == []
    r = run_main("configs", "describe", "--entity-type", "brokers", "-b", listed.bootstrap)
    assert r.code == 0
    heads = [line for line in r.out.splitlines() if line.startswith("brokers ")]
    assert heads == [f"brokers {n}:" for n in listed.node_ids] + ["brokers <default>:"]


def test_configs_describe_every_group_says_when_the_listing_is_incomplete(listed: FakeCluster) -> None:
    listed.inject(2, "ListGroups", ErrorCode.UNKNOWN_SERVER_ERROR, count=1)
    try:
        r = run_main("configs", "describe", "--entity-type", "groups", "-b", listed.bootstrap, "-o", "json")
    finally:
        listed.clear_faults()
    # The groups that were listed are described; the broker that could not list its groups fails the command.
    assert r.code == 1
    assert [x["broker"] for x in r.json()["listing_errors"]] == [2]
    assert [x["error"]["name"] for x in r.json()["listing_errors"]] == ["UNKNOWN_SERVER_ERROR"]


# --- table output shows what the flags asked for (review4 item 2) ---------------------------------------------


def test_configs_describe_table_shows_documentation(cluster: FakeCluster) -> None:
    args = ("configs", "describe", "--entity-type", "topics", "--entity-name", "orders", "--all", "-b",
            cluster.bootstrap)
    docs = {c["name"]: c["documentation"] for c in run_main(*args, "--documentation", "-o", "json")
            .json()["resources"][0]["configs"]}
    assert docs["retention.ms"]
    r = run_main(*args, "--documentation")
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    # One indented line per config, under the table, naming the config and carrying its whole text.
    assert f"  retention.ms: {docs['retention.ms']}" in lines
    assert sum(line.startswith("  ") and not line.startswith("   ") for line in lines) == len(docs)
    assert_fits(r.out)
    # Without the flag no documentation is printed; with --synonyms too, each config's synonyms come first.
    assert f"  retention.ms: {docs['retention.ms']}" not in run_main(*args).out.splitlines()
    both = run_main(*args, "--documentation", "--synonyms").out.splitlines()
    at = both.index(f"  retention.ms: {docs['retention.ms']}")
    assert both[at - 1].startswith("  retention.ms <- ")


def test_documentation_lines_wrap_at_the_table_width_and_say_when_there_is_none() -> None:
    from kadmin.cli.configs import _documentation_lines
    from kadmin.configs import ConfigEntry

    long = " ".join(["word"] * 60)
    lines = _documentation_lines(ConfigEntry("some.config", "1", documentation=long))
    assert len(lines) > 1 and all(len(line) <= 100 for line in lines)
    assert lines[0].startswith("  some.config: word") and all(line.startswith("    ") for line in lines[1:])
    assert " ".join(line.strip() for line in lines) == f"some.config: {long}"
    assert _documentation_lines(ConfigEntry("old.config", "1")) == [
        "  old.config: (no documentation from this broker)"]


def test_topics_describe_table_shows_authorized_operations(cluster: FakeCluster) -> None:
    args = ("topics", "describe", "orders", "--include-authorized-operations", "-b", cluster.bootstrap)
    ops = run_main(*args, "-o", "json").json()["topics"][0]["authorized_operations"]
    assert ops and "DESCRIBE" in ops
    r = run_main(*args)
    assert r.code == 0, r.err
    assert [line for line in r.out.splitlines() if "authorized operations" in line] == [
        f"orders: authorized operations: {', '.join(ops)}"]
    assert "authorized operations" not in run_main(*args[:3], "-b", cluster.bootstrap).out
