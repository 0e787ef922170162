"""What kadmin's client sends per API (kadmin.protocol.client_versions), and schemas with no versions.

specs/ holds the union of Kafka 3.9's and trunk's schemas, so the codec speaks every version; the client's range
is that cut at CAPS where kadmin does not handle a newer version yet.  These tests check the table is honest
(each cap really cuts something, with a reason), that negotiation, ``AdminClient.api_versions`` and
``kadmin api-versions`` all use it against Kafka 4.3 tables, that the old ranges still work against 2.2, and
that a ``validVersions: "none"`` schema (Kafka 4.0's placeholders for removed APIs) is accepted and never used.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kadmin.client import AdminClient
from kadmin.errors import UnsupportedVersionError
from kadmin.network.negotiation import our_range, usable_range
from kadmin.protocol import load_schema, message_type, shipped_names
from kadmin.protocol.apis import ApiKey
from kadmin.protocol.client_versions import CAPS, client_range, client_ranges, schema_range
from kadmin.testing import FakeCluster
from kadmin.versions import BROKER_TABLES, RELEASES
from tests.support.cli import run_cli

pytestmark = pytest.mark.timeout(120)

#: Kafka 4.3's new admin keys kadmin ships schemas for (operations to come).
NEW_KEYS = {ApiKey.LIST_CONFIG_RESOURCES: (0, 1), ApiKey.STREAMS_GROUP_DESCRIBE: (0, 1),
            ApiKey.DESCRIBE_SHARE_GROUP_OFFSETS: (0, 1), ApiKey.ALTER_SHARE_GROUP_OFFSETS: (0, 0),
            ApiKey.DELETE_SHARE_GROUP_OFFSETS: (0, 0)}


def test_every_cap_cuts_a_shipped_range_and_says_why() -> None:
    assert set(CAPS) == {ApiKey.API_VERSIONS, ApiKey.OFFSET_COMMIT, ApiKey.OFFSET_FETCH}
    for key, cap in CAPS.items():
        full = schema_range(key)
        assert full is not None, key
        assert cap.highest < full[1], f"{ApiKey(key).name}: a cap at or above the schemas' v{full[1]} cuts nothing"
        assert len(cap.why) > 40 and "v" in cap.why, ApiKey(key).name
        assert client_range(key) == (full[0], cap.highest) == our_range(key)
    assert (CAPS[ApiKey.OFFSET_COMMIT].highest, CAPS[ApiKey.OFFSET_FETCH].highest) == (9, 9)  # v10: topic ids
    assert ApiKey.METADATA not in CAPS  # v13: REBOOTSTRAP_REQUIRED is read (kadmin/network/rebootstrap.py)


def test_uncapped_apis_get_their_whole_schema_range() -> None:
    ranges = client_ranges()
    for name in shipped_names():
        cls = message_type(name)
        if cls.KIND != "request" or cls.API_KEY is None or cls.API_KEY in CAPS:
            continue
        assert ranges[cls.API_KEY] == schema_range(cls.API_KEY) == (cls.MIN_VERSION, cls.MAX_VERSION), name
    # The refreshed schemas, as kadmin now speaks them.
    assert ranges[ApiKey.SHARE_GROUP_DESCRIBE] == (0, 1)  # v0 for 4.0's early access, v1 for 4.1+
    assert ranges[ApiKey.DESCRIBE_GROUPS] == (0, 6)
    assert ranges[ApiKey.CONSUMER_GROUP_DESCRIBE] == (0, 1)
    assert ranges[ApiKey.LIST_OFFSETS] == (0, 11)  # 0 kept for pre-2.1 brokers, though Kafka's file starts at 1
    assert ranges[ApiKey.OFFSET_COMMIT] == (0, 9) and ranges[ApiKey.OFFSET_FETCH] == (0, 9)
    for key, rng in NEW_KEYS.items():
        assert ranges[key] == rng, key.name


def test_negotiation_stops_at_the_cap_against_a_4_3_broker_and_uses_old_versions_against_2_2() -> None:
    from kadmin.config import ClientConfig

    config = ClientConfig("localhost:9092")
    broker_43 = BROKER_TABLES["4.3"]
    assert usable_range(ApiKey.METADATA, broker_43, config) == (0, 13)
    assert usable_range(ApiKey.OFFSET_FETCH, broker_43, config) == (1, 9)
    assert usable_range(ApiKey.OFFSET_COMMIT, broker_43, config) == (2, 9)
    assert usable_range(ApiKey.SHARE_GROUP_DESCRIBE, broker_43, config) == (1, 1)
    assert usable_range(ApiKey.DESCRIBE_LOG_DIRS, broker_43, config) == (1, 5)
    assert usable_range(ApiKey.SHARE_GROUP_DESCRIBE, {ApiKey.SHARE_GROUP_DESCRIBE: (0, 0)}, config) == (0, 0)  # 4.0
    old = RELEASES["2.2"]
    assert usable_range(ApiKey.OFFSET_COMMIT, old, config) == (0, 6)
    assert usable_range(ApiKey.LIST_OFFSETS, old, config) == (0, 5)
    assert usable_range(ApiKey.API_VERSIONS, old, config) == (0, 2)


def _apis(node: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {a["name"]: a for a in node["apis"]}


def test_cli_api_versions_on_4_3_lists_the_new_keys_with_kadmins_ranges_and_2_2_still_works() -> None:
    """A mixed cluster: the fake's 4.3 preset, a node advertising a real 4.3.1 broker's whole table (only
    ApiVersions is sent to it here), and a 2.2 node."""
    tables: dict[int, str | dict[int, tuple[int, int]]] = {1: "4.3", 2: BROKER_TABLES["4.3"], 3: "2.2"}
    with FakeCluster(brokers=3, versions=tables) as c:
        r = run_cli("-b", c.bootstrap, "-o", "json", "api-versions")
        assert r.code == 0, r.err
        nodes = {n["node_id"]: n for n in r.json()["nodes"]}
        assert (nodes[1]["release_guess"], nodes[2]["release_guess"], nodes[3]["release_guess"]) == (
            "4.3", "4.3", "2.2")
        preset, real, old = _apis(nodes[1]), _apis(nodes[2]), _apis(nodes[3])

        def row(apis: dict[str, dict[str, Any]], name: str) -> tuple[Any, ...]:
            a = apis[name]
            return a["node_min"], a["node_max"], a["kadmin_min"], a["kadmin_max"], a["negotiated"]

        # The new keys with kadmin's ranges: a real 4.3.1 broker (node 2) and the 4.3 preset (node 1).
        assert row(real, "ListConfigResources") == (0, 1, 0, 1, 1)
        assert row(real, "StreamsGroupDescribe") == (0, 0, 0, 1, 0)
        assert row(real, "DescribeShareGroupOffsets") == (0, 1, 0, 1, 1)
        assert row(real, "AlterShareGroupOffsets") == (0, 0, 0, 0, 0)
        assert row(real, "DeleteShareGroupOffsets") == (0, 0, 0, 0, 0)
        assert row(real, "ShareGroupDescribe") == (1, 1, 0, 1, 1)
        assert row(preset, "ShareGroupDescribe") == (1, 1, 0, 1, 1)
        assert row(preset, "ListConfigResources") == (0, 1, 0, 1, 1)  # v1 served (KIP-1142 types filter)
        assert row(preset, "AlterPartitionReassignments") == (0, 1, 0, 1, 1)  # v1 served (KIP-860)
        assert row(preset, "StreamsGroupDescribe") == (0, 0, 0, 1, 0)  # served (streams groups are seeded)
        # Metadata v13 (KIP-1102) is sent now; capped: kadmin's range stops below the broker's.
        assert row(real, "Metadata") == (0, 13, 0, 13, 13)
        assert row(real, "OffsetFetch") == (1, 10, 0, 9, 9)
        assert row(real, "OffsetCommit") == (2, 10, 0, 9, 9)
        assert row(real, "ApiVersions") == (0, 4, 0, 4, 4)
        assert row(real, "DescribeGroups") == (0, 6, 0, 6, 6)
        assert row(real, "DescribeLogDirs") == (1, 5, 0, 5, 5)
        # The 2.2 node: the old ranges, which Kafka's 4.x files no longer list, still negotiate.
        assert row(old, "OffsetCommit") == (0, 6, 0, 9, 6)
        assert row(old, "DescribeGroups") == (0, 2, 0, 6, 2)
        assert row(old, "ListOffsets") == (0, 5, 0, 11, 5)
        assert row(old, "ShareGroupDescribe") == (None, None, 0, 1, None)

        t = run_cli("-b", c.bootstrap, "api-versions")
        assert t.code == 0, t.err
        lines = t.out.splitlines()
        assert lines[0] == "mixed versions: node 1 looks like 4.3, node 2 looks like 4.3, node 3 looks like 2.2"
        node2 = lines[lines.index(next(x for x in lines if x.startswith("node 2 at"))):]
        assert next(x for x in node2 if " ShareGroupDescribe " in x).split() == ["77", "ShareGroupDescribe", "1",
                                                                                  "0-1", "1"]
        assert next(x for x in node2 if " Metadata " in x).split() == ["3", "Metadata", "0-13", "0-13", "13"]


def test_kadmin_talks_to_the_4_x_presets() -> None:
    """The library on the new presets, at the versions the tables and the caps allow (request log)."""
    with FakeCluster(brokers=3, versions={1: "4.1", 2: "4.2", 3: "4.3"}) as c:
        c.add_topic("t", partitions=3, offsets=10)
        c.add_group("sharers", group_type="share")
        with AdminClient(c.bootstrap, default_timeout_s=10.0) as admin:
            versions = admin.api_versions()
            assert {n: versions[n].release_guess for n in versions} == {1: "4.1", 2: "4.2", 3: "4.3"}
            assert all(versions[n].apis[ApiKey.METADATA].negotiated == 13 for n in versions)
            ends = admin.list_offsets({("t", p): "latest" for p in range(3)})
            assert {k[1]: getattr(o, "offset", o) for k, o in ends.items()} == {0: 10, 1: 10, 2: 10}
            assert admin.alter_consumer_group_offsets("g", {("t", 0): 4, ("t", 1): 5}) == {("t", 0): None,
                                                                                          ("t", 1): None}
            got = admin.list_consumer_group_offsets(["g"])["g"]
            assert not isinstance(got, Exception)
            assert {tp.partition: getattr(o, "offset", o) for tp, o in got.items()} == {0: 4, 1: 5}
            shared = admin.describe_share_groups(["sharers"])["sharers"]
            assert not isinstance(shared, Exception), shared
            assert shared.group_id == "sharers"
        log = c.request_log
        assert {e.version for e in log if e.api_key == ApiKey.METADATA} == {13}
        assert {e.version for e in log if e.api_key == ApiKey.OFFSET_COMMIT} == {9}
        assert {e.version for e in log if e.api_key == ApiKey.OFFSET_FETCH} == {9}
        assert {e.version for e in log if e.api_key == ApiKey.SHARE_GROUP_DESCRIBE} == {1}
        assert {e.version for e in log if e.api_key == ApiKey.API_VERSIONS} == {4}


def test_describe_log_dirs_reads_cordoned_from_4_3_and_says_none_before() -> None:
    """DescribeLogDirs v5 (KIP-1066) is negotiated with 4.3 and its IsCordoned read; a 4.2 broker cannot say."""
    with FakeCluster(brokers=2, versions={1: "4.2", 2: "4.3"}) as c:
        with AdminClient(c.bootstrap, default_timeout_s=10.0) as admin:
            dirs = admin.describe_log_dirs([1, 2])
        by_node = {n: d for n, d in dirs.items() if not isinstance(d, Exception)}
        assert set(by_node) == {1, 2}
        assert {d.is_cordoned for d in by_node[1].values()} == {None}
        assert {d.is_cordoned for d in by_node[2].values()} == {False}
        assert {(e.node_id, e.version) for e in c.request_log if e.api_key == ApiKey.DESCRIBE_LOG_DIRS} == {
            (1, 4), (2, 5)}
        r = run_cli("-b", c.bootstrap, "-o", "json", "log-dirs", "describe")
        assert r.code == 0, r.err
        assert {b["broker"]: [d["is_cordoned"] for d in b["log_dirs"]] for b in r.json()["brokers"]} == {
            1: [None], 2: [False]}


# --- validVersions "none" ------------------------------------------------------------------------------------


def test_a_schema_with_no_versions_is_accepted_and_never_used(monkeypatch: pytest.MonkeyPatch) -> None:
    from kadmin.config import ClientConfig
    from kadmin.protocol import client_versions

    cls: Any = load_schema({"apiKey": 4, "type": "request", "name": "LeaderAndIsrRequest", "validVersions": "none"})
    assert cls.MIN_VERSION > cls.MAX_VERSION and cls.API_KEY == 4
    with pytest.raises(UnsupportedVersionError, match="no versions"):
        cls().encode(0)
    with pytest.raises(UnsupportedVersionError, match="no versions"):
        cls.decode(b"", 0)
    # Shipped, such a schema would give the client no range, so no broker's table could make it send one.
    monkeypatch.setattr(client_versions, "message_type", lambda key, kind="request": cls)
    assert client_range(4) is None and our_range(4) is None
    assert usable_range(4, {4: (0, 7)}, ClientConfig("localhost:9092")) is None


def test_kafkas_removed_api_placeholders_load(kafka_specs: Path) -> None:
    """Every trunk-2026 schema builds, the four "none" placeholders (LeaderAndIsr, StopReplica, UpdateMetadata,
    ControlledShutdown) as classes without versions."""
    empty = []
    for path in sorted((kafka_specs / "trunk-2026").glob("*.json")):
        cls = load_schema(path)
        if cls.MIN_VERSION > cls.MAX_VERSION:
            empty.append(cls.NAME)
    assert sorted(empty) == sorted(f"{n}{k}" for n in ("LeaderAndIsr", "StopReplica", "UpdateMetadata",
                                                       "ControlledShutdown") for k in ("Request", "Response"))
