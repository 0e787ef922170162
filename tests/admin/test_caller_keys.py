"""Every key the caller asked about comes back under that key (audit #14 items 5, 6 and 17).

kadmin normalises what it sends (``("t", 0)`` -> ``TopicPartition("t", 0)``, ``("topic", "t")`` ->
``ConfigResource(TOPIC, "t")``, broker ``"01"`` -> ``"1"``); the answer must still be found under the caller's
own key.  Checked against the fake cluster with the sync and the asyncio client, and the writes are read back
from the fake's state so a result keyed right but never applied cannot pass.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from kadmin import aio
from kadmin._keys import by_caller_key, normalise_keys
from kadmin.admin.partitions import ListedOffset, OffsetSpec, check_offset_specs
from kadmin.client import AdminClient
from kadmin.configs import AppendConfig, ConfigResource, ConfigResourceType, SetConfig
from kadmin.errors import UnsupportedVersionError
from kadmin.protocol.apis import ApiKey
from kadmin.storage import DeletedRecords, ElectionResult
from kadmin.testing import FakeCluster
from kadmin.types import TopicPartition as TP
from tests.support.clusters import shared_admin
from tests.support.settings import FAST

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(scope="module")
def cluster() -> Iterator[FakeCluster]:
    with FakeCluster(brokers=3) as c:
        c.add_topic("t", partitions=3, offsets=[10, 20, 30], replication_factor=2)
        c.add_topic("u", partitions=1, replication_factor=1)
        yield c


admin = shared_admin()


def test_describe_configs_answers_each_spelling_under_its_own_key(admin: AdminClient) -> None:
    asked: list[Any] = [ConfigResource("topic", "t"),  # type: ignore[arg-type]
                        ("topics", "u"),
                        ConfigResource(ConfigResourceType.BROKER, "01"),
                        (ConfigResourceType.BROKER, "2"),
                        ConfigResource.broker(3)]
    got = admin.describe_configs(asked)
    assert list(got) == asked
    assert all(isinstance(v, dict) for v in got.values()), got
    assert got[("topics", "u")]["retention.ms"].value is not None
    assert got[ConfigResource(ConfigResourceType.BROKER, "01")]["broker.id"].value == "1"
    assert got[(ConfigResourceType.BROKER, "2")]["broker.id"].value == "2"


def test_alter_configs_answers_under_the_callers_keys(cluster: FakeCluster, admin: AdminClient) -> None:
    t, u, b1 = (ConfigResource("topic", "t"), ("topic", "u"),  # type: ignore[arg-type]
                ConfigResource(ConfigResourceType.BROKER, "01"))
    got = admin.alter_configs({t: [SetConfig("retention.ms", "1234")], u: [SetConfig("retention.ms", "5678")],
                               b1: [SetConfig("log.retention.ms", "999")]})
    assert got == {t: None, u: None, b1: None}
    assert cluster.topic_configs("t")["retention.ms"] == "1234"
    assert cluster.topic_configs("u")["retention.ms"] == "5678"
    assert cluster.resource_configs(4, "1") == {"log.retention.ms": "999"}


def test_list_offsets_answers_pairs_and_topic_partitions(admin: AdminClient) -> None:
    got = admin.list_offsets({("t", 0): "latest", TP("t", 1): OffsetSpec.latest(), ("t", 2): "earliest",
                              ("missing", 0): "latest"})
    assert list(got) == [("t", 0), TP("t", 1), ("t", 2), ("missing", 0)]
    assert got[("t", 0)] == ListedOffset(10, None, got[("t", 0)].leader_epoch)  # type: ignore[union-attr]
    assert isinstance(got[TP("t", 1)], ListedOffset) and got[TP("t", 1)].offset == 20  # type: ignore[union-attr]
    assert isinstance(got[("t", 2)], ListedOffset) and got[("t", 2)].offset == 0  # type: ignore[union-attr]
    assert not isinstance(got[("missing", 0)], ListedOffset)


def test_delete_records_elections_and_reassignments_keyed_as_given(cluster: FakeCluster,
                                                                   admin: AdminClient) -> None:
    got = admin.delete_records({("t", 0): 4, TP("t", 1): -1})
    assert got == {("t", 0): DeletedRecords(4), TP("t", 1): DeletedRecords(20)}
    assert cluster.topics["t"][0] == (4, 10) and cluster.topics["t"][1] == (20, 20)

    elected = admin.elect_leaders("preferred", [("t", 0), TP("t", 1)])
    assert elected == {("t", 0): ElectionResult.NOT_NEEDED, TP("t", 1): ElectionResult.NOT_NEEDED}

    replicas = cluster.partition("u", 0).replicas
    newcomer = next(n for n in cluster.node_ids if n not in replicas)
    moved = admin.alter_partition_reassignments({("u", 0): [newcomer, *replicas]})
    assert moved == {("u", 0): None}
    listed = admin.list_partition_reassignments([("u", 0), TP("t", 0)])
    assert list(listed) == [("u", 0), TP("t", 0)]
    assert listed[TP("t", 0)] is None and listed[("u", 0)] is not None
    cluster.finish_reassignments()
    assert set(cluster.partition("u", 0).replicas) == {newcomer, *replicas}


def test_the_asyncio_client_keys_the_same_way(cluster: FakeCluster) -> None:
    async def go() -> tuple[Any, Any]:
        async with aio.AdminClient(cluster.bootstrap, **FAST) as a:
            offsets = await a.list_offsets({("t", 2): "latest"})
            cfg = await a.describe_configs([("topic", "t")])
            return offsets, cfg

    offsets, cfg = asyncio.run(go())
    assert list(offsets) == [("t", 2)] and offsets[("t", 2)].offset == 30
    assert list(cfg) == [("topic", "t")] and isinstance(cfg[("topic", "t")], dict)


def test_the_same_key_twice_in_a_list_is_one_question(admin: AdminClient) -> None:
    got = admin.describe_configs([("topic", "t"), ("topic", "t")])
    assert list(got) == [("topic", "t")]


# --- the helper itself ----------------------------------------------------------------------------------------


def test_normalise_keys_keeps_order_and_refuses_two_spellings() -> None:
    keys = normalise_keys(["B", "a", "b"][:2], str.lower, "call", "letter")
    assert keys == {"b": "B", "a": "a"}
    assert by_caller_key({"a": 1, "b": 2}, keys) == {"B": 2, "a": 1}
    with pytest.raises(ValueError, match=r"call: 'B' and 'b' are the same letter \(b\)"):
        normalise_keys(["B", "b"], str.lower, "call", "letter")


# --- item 6: list_offsets' own checks -------------------------------------------------------------------------


def test_bool_timestamps_are_refused() -> None:
    with pytest.raises(TypeError, match="timestamp is an int.*bool"):
        OffsetSpec(True)  # would be sent as timestamp 1 (1970)
    with pytest.raises(ValueError, match="not a timestamp or a known special offset"):
        OffsetSpec(-7)  # -6 is earliest_pending_upload (KIP-1023); -7 names nothing
    # A spec whose field was forced afterwards is still refused before anything is sent.
    spec = OffsetSpec.latest()
    object.__setattr__(spec, "timestamp", False)
    with pytest.raises(TypeError, match="bool"):
        check_offset_specs({("t", 0): spec})


def test_illegal_topic_names_never_reach_the_cluster(cluster: FakeCluster) -> None:
    with AdminClient(cluster.bootstrap, **FAST) as a:
        cluster.clear_log()
        for name in ("bad name!", "..", "x" * 300, ""):
            with pytest.raises(ValueError, match="illegal topic name"):
                a.list_offsets({(name, 0): "latest"})
        assert cluster.request_log == []


# --- item 17: the AlterConfigs fallback's refusals read right -------------------------------------------------


def test_fallback_refusals_say_who_lacks_incremental_alter_configs() -> None:
    with FakeCluster(3, versions="2.2") as c, AdminClient(c.bootstrap, **FAST) as a:
        c.add_topic("t", 1)
        topic, broker = ConfigResource.topic("t"), ConfigResource.broker(2)
        got = a.alter_configs({topic: [AppendConfig("cleanup.policy", "compact")],
                               broker: [AppendConfig("ssl.cipher.suites", "X")]})
        assert isinstance(got[topic], UnsupportedVersionError)
        assert isinstance(got[broker], UnsupportedVersionError)
        assert "needs IncrementalAlterConfigs (Kafka 2.3+), and no broker of this cluster speaks it" \
            in str(got[topic])
        assert "and broker 2 does not speak it" in str(got[broker])
        for err in got.values():
            assert "no broker of this cluster does not" not in str(err)
        assert [e for e in c.request_log if e.api_key == ApiKey.ALTER_CONFIGS] == []


def test_an_empty_alteration_is_refused_naming_the_resource(cluster: FakeCluster) -> None:
    with AdminClient(cluster.bootstrap, **FAST) as a:
        cluster.clear_log()
        with pytest.raises(ValueError, match=r"topics:u: no config operations given"):
            a.alter_configs({ConfigResource.topic("t"): [SetConfig("retention.ms", "1")],
                             ConfigResource.topic("u"): []})
        assert cluster.request_log == []


# --- group offsets (the same rule, written from outside the group) ---------------------------------------------


def test_group_offset_writes_are_keyed_as_given(cluster: FakeCluster, admin: AdminClient) -> None:
    cluster.add_group("idle")
    got = admin.alter_consumer_group_offsets("idle", {("t", 0): 5, TP("t", 1): 7})
    assert got == {("t", 0): None, TP("t", 1): None}
    offsets = cluster.groups["idle"].offsets
    assert offsets[("t", 0)].offset == 5 and offsets[("t", 1)].offset == 7
    gone = admin.delete_consumer_group_offsets("idle", [("t", 0), TP("t", 1)])
    assert gone == {("t", 0): None, TP("t", 1): None}
    assert not cluster.groups["idle"].offsets


def test_committed_offsets_of_named_partitions_are_keyed_as_given(cluster: FakeCluster,
                                                                  admin: AdminClient) -> None:
    cluster.add_group("reader")
    assert admin.alter_consumer_group_offsets("reader", {TP("t", 0): 3}) == {TP("t", 0): None}
    got = admin.list_consumer_group_offsets(["reader"], [("t", 0), TP("t", 1)])["reader"]
    assert isinstance(got, dict) and list(got) == [("t", 0)]  # t-1 has no committed offset: absent
    assert got[("t", 0)].offset == 3  # type: ignore[union-attr]
    every = admin.list_consumer_group_offsets(["reader"])["reader"]
    assert isinstance(every, dict) and list(every) == [TP("t", 0)]
