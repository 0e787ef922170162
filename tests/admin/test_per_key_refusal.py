"""Per-key refusal (issue #24): a key that needs a newer version than its node speaks fails alone, unsent, with
an UnsupportedVersionError naming the feature, the key, the version it needs and the version spoken; every other
key of the call is sent and answered.  Whole-request options (validate_only) still fail every key.

Each case runs on every release preset that lacks the feature (read from kadmin.versions, so a preset added later
is covered), against FakeCluster (the shipped ``fake_cluster`` fixture): what was sent comes from its request log,
and what the capable keys did is read back by another client (confluent-kafka, kafka-python) as well as from the
fake's state.
"""

from __future__ import annotations

import asyncio
import uuid
import warnings
from collections.abc import Iterable, Sequence
from typing import Any

import pytest
from confluent_kafka import Consumer
from confluent_kafka import TopicPartition as CkTP
from confluent_kafka.admin import AdminClient as CkAdmin

from kadmin import aio
from kadmin.acls import AclBinding, AclBindingFilter
from kadmin.admin._driver import Built, Context
from kadmin.admin.acls import CreateAcls, DeleteAcls, DescribeAcls
from kadmin.admin.partitions import ListedOffset, OffsetSpec
from kadmin.admin.topics import CreateTopics, DeleteTopics
from kadmin.client import AdminClient
from kadmin.errors import UnsupportedVersionError
from kadmin.network.retry import Deadline
from kadmin.protocol.apis import ApiKey
from kadmin.testing import FakeCluster
from kadmin.topics import CreatedTopic, NewTopic
from kadmin.types import TopicPartition
from kadmin.versions import RELEASE_NAMES, RELEASES, release_table
from tests.support.settings import FAST

pytestmark = pytest.mark.timeout(60)

ADMIN = {"super_users": ["User:ANONYMOUS"]}


def lacking(api: ApiKey, since: int) -> list[str]:
    """The presets whose brokers speak ``api`` only below ``since``."""
    return [r for r in RELEASE_NAMES if RELEASES[r][api][1] < since]


#: ListOffsets v7 (max_timestamp, Kafka 3.0), CreateTopics v4 (broker defaults, 2.4), DeleteTopics v6 (ids, 2.8).
NO_MAX_TIMESTAMP = lacking(ApiKey.LIST_OFFSETS, 7)
NO_DEFAULTS = lacking(ApiKey.CREATE_TOPICS, 4)
NO_IDS = lacking(ApiKey.DELETE_TOPICS, 6)


def test_the_presets_that_lack_each_feature() -> None:
    # What the per-preset tests below cover (a preset table changing would silently change it).
    assert NO_MAX_TIMESTAMP == ["2.2", "2.6", "2.8"]
    assert NO_DEFAULTS == ["2.2"]
    assert NO_IDS == ["2.2", "2.6"]


def one_broker(releases: Iterable[str]) -> list[Any]:
    """Indirect parameters for the ``fake_cluster`` fixture: one broker (every key goes to one node, so the
    refused key and the others would share one request) of each release."""
    return [pytest.param({"brokers": 1, "versions": r}, id=r) for r in releases]


def logged_keys(c: FakeCluster, api: ApiKey) -> list[str]:
    return [k for e in c.request_log if e.api_key == api for k in e.keys]


def spoken(c: FakeCluster, api: ApiKey) -> int:
    return c.versions_of(1)[api][1]


def assert_refusal(err: object, *words: str) -> None:
    assert isinstance(err, UnsupportedVersionError), err
    for w in words:
        assert w in err.message, (w, err.message)


# --- ListOffsets: max_timestamp before v7 ---------------------------------------------------------------------


@pytest.mark.parametrize("fake_cluster", one_broker(NO_MAX_TIMESTAMP), indirect=True)
def test_max_timestamp_fails_its_partition_alone(fake_cluster: FakeCluster) -> None:
    c = fake_cluster
    c.add_topic("t", partitions=2, offsets={0: (2, 9), 1: (0, 5)})
    t0, t1 = TopicPartition("t", 0), TopicPartition("t", 1)
    v = spoken(c, ApiKey.LIST_OFFSETS)
    with AdminClient(c.bootstrap, **FAST) as a:
        c.clear_log()
        got = a.list_offsets({t0: OffsetSpec.latest(), t1: OffsetSpec.max_timestamp()})
        logged = logged_keys(c, ApiKey.LIST_OFFSETS)
        # Every partition asking for max_timestamp: nothing to send at all.
        c.clear_log()
        alone = a.list_offsets({t1: OffsetSpec.max_timestamp()})[t1]
        assert logged_keys(c, ApiKey.LIST_OFFSETS) == []
    first = got[t0]
    assert isinstance(first, ListedOffset) and first.offset == 9
    assert_refusal(got[t1], "max_timestamp", "t-1", "ListOffsets v7+", f"up to v{v}")
    assert_refusal(alone, "max_timestamp", "v7+")
    assert logged == ["t-0"]  # t-1 never reached the broker
    consumer = Consumer({"bootstrap.servers": c.bootstrap, "group.id": "perkey", "log_level": 0})
    try:
        assert consumer.get_watermark_offsets(CkTP("t", 0), timeout=10) == (2, 9)
    finally:
        consumer.close()


# --- CreateTopics: broker defaults before v4 ------------------------------------------------------------------


@pytest.mark.parametrize("fake_cluster", one_broker(NO_DEFAULTS), indirect=True)
def test_broker_defaults_fail_their_topic_alone(fake_cluster: FakeCluster) -> None:
    c = fake_cluster
    v = spoken(c, ApiKey.CREATE_TOPICS)
    with AdminClient(c.bootstrap, **FAST) as a:
        c.clear_log()
        got = a.create_topics([NewTopic("x", 2, 1), NewTopic("y"), NewTopic("z", 1)])
        logged = logged_keys(c, ApiKey.CREATE_TOPICS)
    assert isinstance(got["x"], CreatedTopic)
    assert_refusal(got["y"], "default partition count", "(asked for y)", "CreateTopics v4+", f"up to v{v}")
    assert_refusal(got["z"], "(asked for z)", "v4+")  # the replication factor alone left to the broker
    assert logged == ["x"]
    assert sorted(c.topics) == ["x"] and len(c.replicas("x")) == 2
    ck = CkAdmin({"bootstrap.servers": c.bootstrap, "log_level": 0})
    listed = ck.list_topics(timeout=10).topics
    assert "x" in listed and len(listed["x"].partitions) == 2
    assert "y" not in listed and "z" not in listed


def test_validate_only_is_still_the_whole_requests() -> None:
    """validate_only is one flag for the request: a controller without it (CreateTopics v0) fails every
    topic, the capable ones too, and nothing is sent."""
    table = release_table("2.2")
    table[ApiKey.CREATE_TOPICS] = (0, 0)
    with FakeCluster(brokers=1, versions=table) as c, AdminClient(c.bootstrap, **FAST) as a:
        c.clear_log()
        got = a.create_topics([NewTopic("v", 1, 1), NewTopic("w", 1, 1)], validate_only=True)
        assert logged_keys(c, ApiKey.CREATE_TOPICS) == []
    for name in ("v", "w"):
        assert_refusal(got[name], "validate_only needs v1+")


# --- DeleteTopics: ids before v6 --------------------------------------------------------------------------


@pytest.mark.parametrize("fake_cluster", one_broker(NO_IDS), indirect=True)
def test_delete_by_id_fails_that_topic_alone(fake_cluster: FakeCluster) -> None:
    c = fake_cluster
    c.add_topic("a", partitions=1)
    c.add_topic("b", partitions=1)
    tid = c.topic_id("b")
    v = spoken(c, ApiKey.DELETE_TOPICS)
    with AdminClient(c.bootstrap, **FAST) as a:
        c.clear_log()
        got = a.delete_topics(["a", tid])
        logged = logged_keys(c, ApiKey.DELETE_TOPICS)
    assert got["a"] is None
    assert_refusal(got[tid], "by id", f"asked for {tid}", "DeleteTopics v6+", f"up to v{v}")
    assert logged == ["a"]
    assert sorted(c.topics) == ["b"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from kafka.admin import KafkaAdminClient  # type: ignore[import-untyped]
    kp = KafkaAdminClient(bootstrap_servers=c.bootstrap, request_timeout_ms=10000)
    try:
        assert sorted(kp.list_topics()) == ["b"]
    finally:
        kp.close()


# --- the capable preset: every key travels --------------------------------------------------------------------


@pytest.mark.parametrize("fake_cluster", one_broker(["3.9"]), indirect=True)
def test_a_release_with_every_feature_sends_every_key(fake_cluster: FakeCluster) -> None:
    c = fake_cluster
    c.add_topic("t", partitions=2, offsets={0: 4, 1: 6})
    t0, t1 = TopicPartition("t", 0), TopicPartition("t", 1)
    with AdminClient(c.bootstrap, **FAST) as a:
        c.clear_log()
        offsets = a.list_offsets({t0: OffsetSpec.latest(), t1: OffsetSpec.max_timestamp()})
        made = a.create_topics([NewTopic("x", 2, 1), NewTopic("y")])
        gone = a.delete_topics(["x", c.topic_id("y")])
    first = offsets[t0]
    assert isinstance(first, ListedOffset) and first.offset == 4
    assert isinstance(offsets[t1], ListedOffset)  # no records with timestamps: -1, answered by the broker
    assert all(isinstance(v, CreatedTopic) for v in made.values())
    assert list(gone.values()) == [None, None] and sorted(c.topics) == ["t"]
    assert sorted(logged_keys(c, ApiKey.LIST_OFFSETS)) == ["t-0", "t-1"]
    assert logged_keys(c, ApiKey.CREATE_TOPICS) == ["x", "y"]


# --- build: what each converted operation returns for a mixed set of keys ----------------------------------


def test_build_returns_the_refused_keys_and_sends_the_rest() -> None:
    create = CreateTopics({"x": NewTopic("x", 2, 1), "y": NewTopic("y")}, 1000)
    built = create.build(1, ["x", "y"], 3)
    assert isinstance(built, Built) and list(built.refused) == ["y"]
    assert isinstance(built.sends, list) and [ks for _m, ks in built.sends] == [["x"]]
    assert [t.name for t in built.sends[0][0].topics] == ["x"]  # type: ignore[attr-defined]
    assert not isinstance(create.build(1, ["x", "y"], 4), Built)

    tid = uuid.uuid4()
    deleted = DeleteTopics(1000).build(1, ["a", tid], 5)
    assert isinstance(deleted, Built) and list(deleted.refused) == [tid]
    assert isinstance(deleted.sends, list) and deleted.sends[0][0].topic_names == ["a"]  # type: ignore[attr-defined]
    only_ids = DeleteTopics(1000).build(1, [tid], 5)
    assert isinstance(only_ids, Built) and only_ids.sends == []


# --- ACLs: a node whose version dropped between lookup and build --------------------------------------------


LIT = AclBinding.of("topic", "orders", "User:a", "read")
USER = AclBinding.of("user", "bob", "User:ops", "create_tokens")


class Pinned:
    """A lookup that sends every key to node 1, whatever it speaks: what the ACL lookup (NodeCarrying) decided
    before the node was downgraded under it."""

    async def locate(self, ctx: Context, keys: Sequence[Any], deadline: Deadline) -> int:
        return 1

    def forget(self, ctx: Context, keys: Iterable[Any]) -> None:
        pass

    def forget_node(self, ctx: Context, node_id: int) -> None:
        pass


def test_acl_build_refuses_only_the_bindings_the_version_cannot_carry() -> None:
    """USER resources need the ACL APIs at v3 (Kafka 2.8), PREFIXED/MATCH patterns v1 (2.0)."""
    pre = AclBinding.of("topic", "orders-", "User:a", "read", pattern_type="prefixed")
    built = CreateAcls().build(1, [LIT, USER, pre], 2)
    assert isinstance(built, Built) and list(built.refused) == [USER]
    assert_refusal(built.refused[USER], "USER resources", "CreateAcls v3+", "up to v2")
    assert isinstance(built.sends, list) and [ks for _m, ks in built.sends] == [[LIT, pre]]
    built = CreateAcls().build(1, [LIT, USER, pre], 0)
    assert isinstance(built, Built) and list(built.refused) == [USER, pre]
    assert_refusal(built.refused[pre], "PREFIXED and MATCH patterns", "CreateAcls v1+", "up to v0")
    flt = AclBindingFilter.of("user", "bob")
    for op in (DescribeAcls(), DeleteAcls()):
        filtered = op.build(1, [AclBindingFilter.all(), flt], 2)
        assert isinstance(filtered, Built) and list(filtered.refused) == [flt], op
        assert isinstance(filtered.sends, list) and [ks for _m, ks in filtered.sends] == [[AclBindingFilter.all()]]
    assert not isinstance(CreateAcls().build(1, [LIT, USER], 3), Built)


def test_acl_binding_the_node_cannot_carry_is_not_sent_and_the_others_are() -> None:
    table = release_table("2.6")
    assert table[ApiKey.CREATE_ACLS] == (0, 2)

    async def go(c: FakeCluster) -> dict[AclBinding, Any]:
        async with aio.AdminClient(c.bootstrap, **FAST) as a:
            op = CreateAcls()
            op.lookup = Pinned()  # type: ignore[assignment]
            return await a._run(op, [LIT, USER], await a._begin(10))

    with FakeCluster(brokers=1, versions=table, authorizer=ADMIN) as c:
        c.clear_log()
        got = asyncio.run(go(c))
        assert got[LIT] is None
        assert_refusal(got[USER], "USER resources", "(asked for", "CreateAcls v3+", "up to v2")
        assert logged_keys(c, ApiKey.CREATE_ACLS) == ["2:orders:User:a:3"]
        assert [a.resource_type for a in c.acls] == ["TOPIC"]
