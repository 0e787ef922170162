"""Topics and configs end to end against FakeCluster: what reached which broker, for every release preset.

Assertions about routing (controller, the broker a resource belongs to), request counts and fallbacks are read
from the cluster's request log; results are checked against the fake's state and, where it matters, against
confluent-kafka's and kafka-python's own admin clients reading the same cluster.
"""

from __future__ import annotations

import logging
import pickle
import uuid
import warnings
from collections.abc import Iterator
from typing import Any

import pytest

from kadmin.client import AdminClient
from kadmin.configs import (
    AppendConfig,
    ConfigEntry,
    ConfigResource,
    ConfigSource,
    DeleteConfig,
    SetConfig,
    SubtractConfig,
)
from kadmin.errors import (
    InvalidConfigError,
    InvalidRequestError,
    KafkaError,
    KafkaTimeoutError,
    UnknownTopicOrPartitionError,
    UnsupportedVersionError,
    error_class_for_code,
)
from kadmin.protocol.apis import ApiKey
from kadmin.testing import FakeCluster
from kadmin.topics import CreatedTopic, NewPartitions, NewTopic, TopicDescription
from kadmin.versions import RELEASE_NAMES
from tests.support.clusters import shared_admin
from tests.support.settings import FAST

pytestmark = pytest.mark.timeout(60)

#: A keystore secret as Kafka takes it: per listener (the unprefixed ssl.keystore.password is refused).
KEYSTORE_PW = "listener.name.internal.ssl.keystore.password"
TopicAlreadyExistsError = error_class_for_code(36)
InvalidReplicationFactorError = error_class_for_code(38)
InvalidPartitionsError = error_class_for_code(37)
BrokerNotAvailableError = error_class_for_code(8)


def sent(cluster: FakeCluster, api: ApiKey) -> list[tuple[int, int]]:
    """(node, version) of every request of ``api`` the brokers received, in order."""
    return [(e.node_id, e.version) for e in cluster.request_log if e.api_key == api]


@pytest.fixture(scope="module", params=RELEASE_NAMES)
def release(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module")
def cluster(release: str) -> Iterator[FakeCluster]:
    with FakeCluster(3, versions=release) as c:
        yield c


admin = shared_admin()


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


# --- every preset: create, describe, configure, grow, delete ---------------------------------------------------


def test_topic_lifecycle_on_every_release(cluster: FakeCluster, admin: AdminClient, release: str) -> None:
    a, b = unique("life"), unique("life")
    cluster.clear_log()
    made = admin.create_topics([NewTopic(a, 3, 2, configs={"retention.ms": "3600000"}), NewTopic(b, 1, 1)],
                               include_configs=True, include_topic_ids=True)
    assert set(made) == {a, b} and all(isinstance(v, CreatedTopic) for v in made.values())
    # One CreateTopics, to the controller (node 1), carrying both topics, at the highest version (asked for
    # configs and ids).
    assert sent(cluster, ApiKey.CREATE_TOPICS) == [(1, cluster.versions_of(1)[ApiKey.CREATE_TOPICS][1])]
    created = made[a]
    assert isinstance(created, CreatedTopic)
    if release >= "2.8":  # v7: the id; v5: counts and configs
        # Picklable before its configs were read (the answer's undecoded bytes stay behind), with them all.
        unread = made[b]
        assert isinstance(unread, CreatedTopic)
        copied = pickle.loads(pickle.dumps(unread))
        assert copied.configs is not None and copied.configs["retention.ms"].source is ConfigSource.DEFAULT_CONFIG
        assert copied == unread and len(copied.configs) > 20
        assert created.topic_id == cluster.topic_id(a)
        assert created.partitions == 3 and created.replication_factor == 2
        assert created.configs is not None and created.configs["retention.ms"].value == "3600000"
        assert created.configs["retention.ms"].source is ConfigSource.DYNAMIC_TOPIC_CONFIG
    assert cluster.topic_configs(a) == {"retention.ms": "3600000"}
    assert {p: len(r) for p, r in cluster.replicas(a).items()} == {0: 2, 1: 2, 2: 2}

    listed = [t.name for t in admin.list_topics()]
    assert a in listed and b in listed
    desc = admin.describe_topics([a, "no-such-topic"])
    d = desc[a]
    assert isinstance(d, TopicDescription)
    assert [p.replicas for p in d.partitions] == [tuple(r) for r in cluster.replicas(a).values()]
    assert all(p.leader == p.replicas[0] and p.isr == p.replicas for p in d.partitions)
    assert isinstance(desc["no-such-topic"], UnknownTopicOrPartitionError)

    assert admin.create_partitions({a: 5}) == {a: None}
    assert len(cluster.replicas(a)) == 5
    again = admin.create_partitions({a: 5})[a]
    assert isinstance(again, InvalidPartitionsError)

    res = ConfigResource.topic(a)
    assert admin.alter_configs({res: [SetConfig("cleanup.policy", "compact"), DeleteConfig("retention.ms")]}) \
        == {res: None}
    assert cluster.topic_configs(a) == {"cleanup.policy": "compact"}
    got = admin.describe_configs([res])[res]
    assert isinstance(got, dict)
    assert got["cleanup.policy"].value == "compact"
    assert got["cleanup.policy"].source is ConfigSource.DYNAMIC_TOPIC_CONFIG
    assert got["retention.ms"].source is ConfigSource.DEFAULT_CONFIG

    gone = admin.delete_topics([a, b, "no-such-topic"])
    assert gone[a] is None and gone[b] is None
    assert isinstance(gone["no-such-topic"], UnknownTopicOrPartitionError)
    assert a not in cluster.topics and b not in cluster.topics


def test_what_the_caller_does_not_ask_for_is_not_asked_of_the_controller(
        cluster: FakeCluster, admin: AdminClient, release: str) -> None:
    """CreateTopics v5+ makes the controller describe every config of every created topic, v6+ DeleteTopics
    resolves ids: by default create asks for v4 at most and delete by name for v5 at most (issue #28); asking
    for configs, ids, or deleting by id asks for the highest again."""
    highest_create = cluster.versions_of(1)[ApiKey.CREATE_TOPICS][1]
    highest_delete = cluster.versions_of(1)[ApiKey.DELETE_TOPICS][1]
    a, b, c = unique("lean"), unique("lean"), unique("lean")
    cluster.clear_log()
    made = admin.create_topics([NewTopic(a, 2, 1)])[a]
    assert made == CreatedTopic(a)  # the name only: no configs, counts or id were asked for
    assert sent(cluster, ApiKey.CREATE_TOPICS) == [(1, min(4, highest_create))]
    assert a in cluster.topics and len(cluster.replicas(a)) == 2
    cluster.clear_log()
    with_configs = admin.create_topics([NewTopic(b, 1, 1)], include_configs=True)[b]
    assert sent(cluster, ApiKey.CREATE_TOPICS) == [(1, highest_create)]
    assert isinstance(with_configs, CreatedTopic)
    if release >= "2.4":
        assert with_configs.configs is not None and with_configs.partitions == 1
    cluster.clear_log()
    with_id = admin.create_topics([NewTopic(c, 1, 1)], include_topic_ids=True)[c]
    assert sent(cluster, ApiKey.CREATE_TOPICS) == [(1, highest_create)]
    assert isinstance(with_id, CreatedTopic)
    if release >= "2.8":
        assert with_id.topic_id == cluster.topic_id(c)
    cluster.clear_log()
    assert admin.delete_topics([a, b]) == {a: None, b: None}
    assert sent(cluster, ApiKey.DELETE_TOPICS) == [(1, min(5, highest_delete))]
    if release >= "2.8":
        tid = cluster.topic_id(c)
        cluster.clear_log()
        assert admin.delete_topics([tid]) == {tid: None}
        assert sent(cluster, ApiKey.DELETE_TOPICS) == [(1, highest_delete)]
    else:
        admin.delete_topics([c])
    assert not {a, b, c} & set(cluster.topics)


def test_defaults_need_create_topics_v4(cluster: FakeCluster, admin: AdminClient, release: str) -> None:
    name = unique("dflt")
    got = admin.create_topics([NewTopic(name)])[name]
    if release == "2.2":  # CreateTopics v3: no "broker default" (-1); refused before sending
        assert isinstance(got, UnsupportedVersionError) and "v4+" in got.message
        assert name not in cluster.topics
    else:
        assert isinstance(got, CreatedTopic)
        assert len(cluster.replicas(name)) == 1  # num.partitions=1, default.replication.factor=1
        admin.delete_topics([name])


def test_delete_by_id(cluster: FakeCluster, admin: AdminClient, release: str) -> None:
    name = unique("byid")
    admin.create_topics([NewTopic(name, 1, 1)])
    tid = cluster.topic_id(name)
    got = admin.delete_topics([tid])[tid]
    if release < "2.8":  # DeleteTopics v6 (Kafka 2.8) first takes ids
        assert isinstance(got, UnsupportedVersionError)
        assert name in cluster.topics
        admin.delete_topics([name])
    else:
        assert got is None and name not in cluster.topics
        missing = uuid.uuid4()
        assert type(admin.delete_topics([missing])[missing]).__name__ == "UnknownTopicIdError"


def test_validate_only_changes_nothing(cluster: FakeCluster, admin: AdminClient) -> None:
    name = unique("vo")
    got = admin.create_topics([NewTopic(name, 2, 1)], validate_only=True)[name]
    assert isinstance(got, CreatedTopic) and name not in cluster.topics
    admin.create_topics([NewTopic(name, 2, 1)])
    assert admin.create_partitions({name: 4}, validate_only=True) == {name: None}
    assert len(cluster.replicas(name)) == 2
    res = ConfigResource.topic(name)
    assert admin.alter_configs({res: [SetConfig("retention.ms", "1")]}, validate_only=True) == {res: None}
    assert cluster.topic_configs(name) == {}
    admin.delete_topics([name])


def test_per_topic_errors(cluster: FakeCluster, admin: AdminClient) -> None:
    ok, dup = unique("ok"), unique("dup")
    admin.create_topics([NewTopic(dup, 1, 1)])
    got = admin.create_topics([
        NewTopic(ok, 1, 1), NewTopic(dup, 1, 1), NewTopic(unique("rf"), 1, 4),
        NewTopic(unique("cfg"), 1, 1, configs={"no.such.config": "1"}),
        NewTopic(unique("val"), 1, 1, configs={"retention.ms": "soon"}),
        NewTopic(unique("asg"), replica_assignment=[[1, 7]])])
    kinds = [type(v).__name__ for v in got.values()]
    assert kinds == ["CreatedTopic", "TopicAlreadyExistsError", "InvalidReplicationFactorError",
                     "InvalidConfigError", "InvalidConfigError", "InvalidReplicaAssignmentError"]
    assert ok in cluster.topics
    admin.delete_topics([ok, dup])


def test_replica_assignment(cluster: FakeCluster, admin: AdminClient) -> None:
    name = unique("asg")
    got = admin.create_topics([NewTopic(name, replica_assignment={0: [3, 1], 1: [2, 3]})])[name]
    assert isinstance(got, CreatedTopic)
    assert cluster.replicas(name) == {0: [3, 1], 1: [2, 3]}
    assert admin.create_partitions({name: NewPartitions(3, [[1, 2]])}) == {name: None}
    assert cluster.replicas(name)[2] == [1, 2]
    bad = admin.create_partitions({name: NewPartitions(4, [[1]])})[name]
    assert type(bad).__name__ == "InvalidReplicaAssignmentError"
    admin.delete_topics([name])


def test_configs_of_brokers_and_loggers(cluster: FakeCluster, admin: AdminClient, release: str) -> None:
    topics = [unique("cfgs") for _ in range(3)]
    admin.create_topics([NewTopic(t, 1, 1) for t in topics])
    cluster.clear_log()
    # Broker loggers arrived in 2.4 (KIP-412); a 2.2 broker fails a whole request naming one
    # (tests/fake/test_fake_config_catalogs.py).
    loggers = [] if release == "2.2" else [ConfigResource.broker_logger(2)]
    resources = [ConfigResource.topic(t) for t in topics] + [ConfigResource.broker(n) for n in (1, 2, 3)] + loggers
    got = admin.describe_configs(resources, include_synonyms=True)
    assert all(isinstance(v, dict) for v in got.values()), got
    # The protocol minimum: one request per broker named (node 2 gets its broker and logger resources
    # together); the topics ride in the request of whichever node takes them.
    log = sent(cluster, ApiKey.DESCRIBE_CONFIGS)
    assert sorted(n for n, _v in log) == [1, 2, 3]
    b2 = got[ConfigResource.broker(2)]
    assert isinstance(b2, dict) and b2["broker.id"].value == "2" and b2["num.partitions"].is_read_only
    for lg in loggers:
        logger = got[lg]
        assert isinstance(logger, dict) and logger["root"].value == "INFO"

    # Per-broker and cluster-wide dynamic values, and where a topic's value comes from.
    b1, default = ConfigResource.broker(1), ConfigResource.broker()
    assert admin.alter_configs({b1: [SetConfig("log.retention.ms", "1000")],
                                default: [SetConfig("log.retention.ms", "2000")]}) == {b1: None, default: None}
    assert cluster.resource_configs(4, "1") == {"log.retention.ms": "1000"}
    assert cluster.resource_configs(4, "") == {"log.retention.ms": "2000"}
    t = ConfigResource.topic(topics[0])
    entry = admin.describe_configs([t], include_synonyms=True)[t]
    assert isinstance(entry, dict)
    syn = entry["retention.ms"].synonyms
    # Answered by whichever node took the topic resources: its own value first, then the cluster default.
    assert [s.source for s in syn][-2:] == [ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG, ConfigSource.DEFAULT_CONFIG]
    admin.alter_configs({b1: [DeleteConfig("log.retention.ms")], default: [DeleteConfig("log.retention.ms")]})
    assert cluster.resource_configs(4, "") == {}
    admin.delete_topics(topics)


def test_unknown_broker_is_an_answer(admin: AdminClient) -> None:
    r = ConfigResource.broker(42)
    assert isinstance(admin.describe_configs([r])[r], BrokerNotAvailableError)


# --- IncrementalAlterConfigs and the AlterConfigs fallback --------------------------------------------------


def test_append_and_subtract_on_2_3_plus() -> None:
    with FakeCluster(3, versions="3.9") as c, AdminClient(c.bootstrap, **FAST) as a:
        c.add_topic("t", 1)
        r = ConfigResource.topic("t")
        assert a.alter_configs({r: [AppendConfig("cleanup.policy", "compact")]}) == {r: None}
        assert c.topic_configs("t") == {"cleanup.policy": "delete,compact"}
        assert a.alter_configs({r: [SubtractConfig("cleanup.policy", "delete")]}) == {r: None}
        assert c.topic_configs("t") == {"cleanup.policy": "compact"}
        # The broker's own verdicts on unknown keys and bad values, per resource.
        bad = a.alter_configs({r: [SetConfig("retention.ms", "x")], ConfigResource.topic("nope"): [
            SetConfig("retention.ms", "1")]})
        assert isinstance(bad[r], InvalidConfigError)
        assert isinstance(bad[ConfigResource.topic("nope")], UnknownTopicOrPartitionError)
        assert sent(c, ApiKey.ALTER_CONFIGS) == []
        # Broker resources go to their broker: IncrementalAlterConfigs for broker 3 reached node 3.
        c.clear_log()
        b3 = ConfigResource.broker(3)
        assert a.alter_configs({b3: [SetConfig("background.threads", "4")]}) == {b3: None}
        assert [n for n, _v in sent(c, ApiKey.INCREMENTAL_ALTER_CONFIGS)] == [3]
        lg = ConfigResource.broker_logger(1)
        assert a.alter_configs({lg: [SetConfig("kafka.controller", "debug")]}) == {lg: None}
        assert c.resource_configs(8, "1") == {"kafka.controller": "DEBUG"}


def test_fallback_before_2_3_keeps_other_dynamic_configs() -> None:
    with FakeCluster(3, versions="2.2") as c, AdminClient(c.bootstrap, **FAST) as a:
        c.add_topic("t", 1)
        c.set_topic_config("t", "retention.ms", "1000")
        c.set_topic_config("t", "segment.ms", "2000")
        r = ConfigResource.topic("t")
        c.clear_log()
        assert a.alter_configs({r: [SetConfig("cleanup.policy", "compact"), DeleteConfig("segment.ms")]}) \
            == {r: None}
        assert c.topic_configs("t") == {"retention.ms": "1000", "cleanup.policy": "compact"}
        # Read, then write the whole set; never IncrementalAlterConfigs (2.2 does not advertise it).
        assert [api for api in (e.api_key for e in c.request_log)
                if api in (ApiKey.DESCRIBE_CONFIGS, ApiKey.ALTER_CONFIGS, ApiKey.INCREMENTAL_ALTER_CONFIGS)] \
            == [ApiKey.DESCRIBE_CONFIGS, ApiKey.ALTER_CONFIGS]

        # APPEND/SUBTRACT and log levels cannot be expressed: refused, nothing written.
        c.clear_log()
        got = a.alter_configs({r: [AppendConfig("cleanup.policy", "delete")],
                               ConfigResource.broker_logger(1): [SetConfig("kafka", "DEBUG")]})
        assert all(isinstance(v, UnsupportedVersionError) for v in got.values())
        assert "IncrementalAlterConfigs" in str(got[r]) and sent(c, ApiKey.ALTER_CONFIGS) == []
        assert c.topic_configs("t") == {"retention.ms": "1000", "cleanup.policy": "compact"}

        # A sensitive dynamic config cannot be read back, so rewriting the broker's set would drop it.
        c.set_resource_config(4, "2", KEYSTORE_PW, "secret")
        b2 = ConfigResource.broker(2)
        got = a.alter_configs({b2: [SetConfig("background.threads", "4")]})
        assert isinstance(got[b2], UnsupportedVersionError) and "sensitive" in got[b2].message
        assert c.resource_configs(4, "2") == {KEYSTORE_PW: "secret"}
        # ...unless the call sets it too.
        got = a.alter_configs({b2: [SetConfig("background.threads", "4"), SetConfig(KEYSTORE_PW, "new")]})
        assert got == {b2: None}
        assert c.resource_configs(4, "2") == {KEYSTORE_PW: "new", "background.threads": "4"}


def test_mixed_cluster_uses_each_brokers_way() -> None:
    with FakeCluster(3, versions={1: "2.2", 2: "3.9", 3: "3.9"}) as c, AdminClient(c.bootstrap, **FAST) as a:
        c.add_topic("t", 1)
        b1, b2, t = ConfigResource.broker(1), ConfigResource.broker(2), ConfigResource.topic("t")
        got = a.alter_configs({b1: [SetConfig("background.threads", "3")], b2: [SetConfig("background.threads", "5")],
                               t: [AppendConfig("cleanup.policy", "compact")]})
        assert got == {b1: None, b2: None, t: None}
        assert c.resource_configs(4, "1") == {"background.threads": "3"}
        assert c.resource_configs(4, "2") == {"background.threads": "5"}
        assert c.topic_configs("t") == {"cleanup.policy": "delete,compact"}
        assert [n for n, _v in sent(c, ApiKey.ALTER_CONFIGS)] == [1]
        assert 1 not in [n for n, _v in sent(c, ApiKey.INCREMENTAL_ALTER_CONFIGS)]


# --- the controller, paging, lost answers ----------------------------------------------------------------------


def test_not_controller_moves_to_the_new_controller() -> None:
    with FakeCluster(3, versions="3.9") as c, AdminClient(c.bootstrap, **FAST) as a:
        a.list_topics()  # metadata cached: controller 1
        c.move_controller(3)
        c.clear_log()
        assert isinstance(a.create_topics([NewTopic("t", 1, 1)])["t"], CreatedTopic)
        assert [n for n, _v in sent(c, ApiKey.CREATE_TOPICS)] == [1, 3]  # NOT_CONTROLLER, then the new one
        c.move_controller(2)
        assert a.delete_topics(["t"]) == {"t": None}
        assert [n for n, _v in sent(c, ApiKey.DELETE_TOPICS)] == [3, 2]


def test_kraft_brokers_forward_and_page() -> None:
    with FakeCluster(3, versions="4.0") as c, AdminClient(c.bootstrap, **FAST) as a:
        c.add_topic("big", 2500)
        c.add_topic("small", 2)
        c.clear_log()
        got = a.describe_topics(["small", "big", "gone"])
        big, small = got["big"], got["small"]
        assert isinstance(big, TopicDescription) and isinstance(small, TopicDescription)
        assert [p.partition for p in big.partitions] == list(range(2500))
        assert len(small.partitions) == 2 and isinstance(got["gone"], UnknownTopicOrPartitionError)
        assert list(got) == ["small", "big", "gone"]
        # 2000 partitions per page: two DescribeTopicPartitions, no Metadata topic request.
        assert len(sent(c, ApiKey.DESCRIBE_TOPIC_PARTITIONS)) == 2
        # KRaft: any broker takes controller writes (they are forwarded), so no NOT_CONTROLLER dance.
        c.move_controller(2)
        assert isinstance(a.create_topics([NewTopic("k", 1, 1)])["k"], CreatedTopic)
        assert len(sent(c, ApiKey.CREATE_TOPICS)) == 1


def test_lost_answers_are_possibly_applied() -> None:
    with FakeCluster(3, versions="3.9") as c, AdminClient(c.bootstrap, **FAST) as a:
        a.list_topics()
        # Created, answer lost: the resend says TOPIC_ALREADY_EXISTS, which is what success looks like.
        c.drop_connection(1, "CreateTopics", when="after")
        got = a.create_topics([NewTopic("t", 1, 1)])["t"]
        assert isinstance(got, KafkaTimeoutError) and got.possibly_applied
        assert "t" in c.topics
        # Dropped before it was handled: the resend creates it, a plain success.
        c.drop_connection(1, "CreateTopics", when="before")
        assert isinstance(a.create_topics([NewTopic("u", 1, 1)])["u"], CreatedTopic)
        # Deleted, answer lost: the resend says UNKNOWN_TOPIC_OR_PARTITION: in doubt, not "no such topic".
        c.drop_connection(1, "DeleteTopics", when="after")
        got = a.delete_topics(["t"])["t"]
        assert isinstance(got, KafkaTimeoutError) and got.possibly_applied and "t" not in c.topics
        # Grown, answer lost: the resend's INVALID_PARTITIONS is what success looks like.
        c.drop_connection(1, "CreatePartitions", when="after")
        got = a.create_partitions({"u": 2})["u"]
        assert isinstance(got, KafkaTimeoutError) and got.possibly_applied
        # Configs: applying the same change again is harmless, so the resend's answer is the truth.
        c.drop_connection(None, "IncrementalAlterConfigs", when="after")
        r = ConfigResource.topic("u")
        assert a.alter_configs({r: [SetConfig("retention.ms", "5")]}) == {r: None}


def test_injected_error_per_topic() -> None:
    with FakeCluster(1, versions="3.9") as c, AdminClient(c.bootstrap, **FAST) as a:
        c.inject(1, "CreateTopics", 44)  # POLICY_VIOLATION on every topic of the next request
        got = a.create_topics([NewTopic("p", 1, 1), NewTopic("q", 1, 1)])
        assert [type(v).__name__ for v in got.values()] == ["PolicyViolationError", "PolicyViolationError"]
        assert c.topics == {}


# --- bad input, refused before any I/O --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def quiet() -> Iterator[tuple[FakeCluster, AdminClient]]:
    with FakeCluster(1) as c, AdminClient(c.bootstrap, **FAST) as a:
        yield c, a


BAD_TOPICS: list[tuple[Any, type[Exception]]] = [
    (NewTopic(""), ValueError), (NewTopic("."), ValueError), (NewTopic(".."), ValueError),
    (NewTopic("x" * 250), ValueError), (NewTopic("has space"), ValueError), (NewTopic("ünï"), ValueError),
    (NewTopic("t", 0), ValueError), (NewTopic("t", -1), ValueError), (NewTopic("t", 1, 0), ValueError),
    (NewTopic("t", 1, -1), ValueError), (NewTopic("t", 1, 2**15), ValueError),
    (NewTopic("t", replication_factor=2, replica_assignment=[[1, 2]]), ValueError),
    (NewTopic("t", 2, replica_assignment=[[1]]), ValueError),
    (NewTopic("t", replica_assignment=[[1, 1]]), ValueError),
    (NewTopic("t", replica_assignment=[[1, 2], [1]]), ValueError),
    (NewTopic("t", replica_assignment={0: [1], 2: [1]}), ValueError),
    (NewTopic("t", replica_assignment=[]), ValueError),
    (NewTopic("t", 1, 1, configs={"retention.ms": 1000}), TypeError),  # type: ignore[dict-item]
    (NewTopic("t", 1, 1, configs={1: "x"}), TypeError),  # type: ignore[dict-item]
    (NewTopic("t", True), TypeError),  # type: ignore[arg-type]
    (NewTopic(7), TypeError),  # type: ignore[arg-type]
    ("t", TypeError),
]


@pytest.mark.parametrize(("topic", "error"), BAD_TOPICS)
def test_bad_new_topics_refused_before_io(quiet: tuple[FakeCluster, AdminClient], topic: Any,
                                          error: type[Exception]) -> None:
    c, a = quiet
    c.clear_log()
    with pytest.raises(error):
        a.create_topics([topic])
    assert c.request_log == []


def test_other_bad_input_refused_before_io(quiet: tuple[FakeCluster, AdminClient]) -> None:
    c, a = quiet
    c.clear_log()
    r = ConfigResource.topic("t")
    cases: list[tuple[Any, type[Exception]]] = [
        (lambda: a.create_topics([NewTopic("t", 1, 1), NewTopic("t", 2, 1)]), ValueError),
        (lambda: a.create_topics(NewTopic("t", 1, 1)), TypeError),
        (lambda: a.create_topics([NewTopic("t", 1, 1)], validate_only=1), TypeError),
        (lambda: a.delete_topics(["t", "t"]), ValueError),
        (lambda: a.delete_topics(["bad name"]), ValueError),
        (lambda: a.delete_topics("t"), TypeError),
        (lambda: a.describe_topics([""]), ValueError),
        (lambda: a.create_partitions({"t": 0}), ValueError),
        (lambda: a.create_partitions({"t": NewPartitions(3, [[1, 1]])}), ValueError),
        (lambda: a.create_partitions({"t": "3"}), TypeError),
        (lambda: a.alter_configs({r: [SetConfig("retention.ms", 5)]}), TypeError),  # type: ignore[arg-type]
        (lambda: a.alter_configs({r: [SetConfig(5, "x")]}), TypeError),  # type: ignore[arg-type]
        (lambda: a.alter_configs({r: [AppendConfig("retention.ms", "5")]}), ValueError),
        (lambda: a.alter_configs({r: [SubtractConfig("min.insync.replicas", "1")]}), ValueError),
        (lambda: a.alter_configs({r: [SetConfig("retention.ms", "1"), DeleteConfig("retention.ms")]}), ValueError),
        (lambda: a.alter_configs({ConfigResource.broker_logger(1): [AppendConfig("root", "x")]}), ValueError),
        (lambda: a.alter_configs({ConfigResource.broker("one"): [SetConfig("a", "b")]}), ValueError),
        (lambda: a.describe_configs([ConfigResource.topic("..")]), ValueError),
        (lambda: a.describe_configs([ConfigResource.group("")]), ValueError),
        (lambda: a.describe_configs([("nonsense", "x")]), ValueError),
        (lambda: a.describe_configs(ConfigResource.topic("t")), TypeError),
    ]
    for call, error in cases:
        with pytest.raises(error):
            call()
    assert c.request_log == []


# --- sensitive values ---------------------------------------------------------------------------------------------


def test_sensitive_values_never_shown(caplog: pytest.LogCaptureFixture) -> None:
    secret = "hunter2-" + uuid.uuid4().hex
    op = SetConfig(KEYSTORE_PW, secret)
    assert secret not in repr(op) and secret not in repr({ConfigResource.broker(1): [op]})
    assert secret not in repr(ConfigEntry("sasl.jaas.config", secret))
    assert secret not in repr(ConfigEntry("x", secret, is_sensitive=True))
    with FakeCluster(1, versions="3.9") as c, AdminClient(c.bootstrap, **FAST) as a:
        b = ConfigResource.broker(1)
        with caplog.at_level(logging.DEBUG):
            assert a.alter_configs({b: [op]}) == {b: None}
            entry = a.describe_configs([b], include_synonyms=True)[b]
        assert isinstance(entry, dict)
        pw = entry[KEYSTORE_PW]
        assert pw.is_sensitive and pw.value is None and pw.source is ConfigSource.DYNAMIC_BROKER_CONFIG
        assert all(s.value is None for s in pw.synonyms)
        assert c.resource_configs(4, "1") == {KEYSTORE_PW: secret}
    assert secret not in caplog.text


# --- other clients use the fake's new APIs ------------------------------------------------------------------------


@pytest.mark.parametrize("version", ["2.2", "3.9", "4.0"])
def test_confluent_kafka_uses_the_fake(version: str) -> None:
    from confluent_kafka.admin import AdminClient as CkAdmin
    from confluent_kafka.admin import AlterConfigOpType
    from confluent_kafka.admin import ConfigEntry as CkEntry
    from confluent_kafka.admin import ConfigResource as CkResource
    from confluent_kafka.admin import NewPartitions as CkNewPartitions
    from confluent_kafka.admin import NewTopic as CkNewTopic

    with FakeCluster(3, versions=version) as c:
        ck = CkAdmin({"bootstrap.servers": c.bootstrap, "log_level": 0})
        for f in ck.create_topics([CkNewTopic("ck", 2, 2, config={"retention.ms": "7"})]).values():
            f.result(10)
        assert len(c.replicas("ck")) == 2 and c.topic_configs("ck") == {"retention.ms": "7"}
        for f in ck.create_partitions([CkNewPartitions("ck", 3)]).values():
            f.result(10)
        assert len(c.replicas("ck")) == 3
        (described,) = ck.describe_configs([CkResource("topic", "ck")]).values()
        assert described.result(10)["retention.ms"].value == "7"
        if version != "2.2":
            res = CkResource("topic", "ck", incremental_configs=[
                CkEntry("cleanup.policy", "compact", incremental_operation=AlterConfigOpType.APPEND)])
            for f in ck.incremental_alter_configs([res]).values():
                f.result(10)
            assert c.topic_configs("ck")["cleanup.policy"] == "delete,compact"
        for f in ck.delete_topics(["ck"]).values():
            f.result(10)
        assert c.topics == {}


@pytest.mark.parametrize("version", ["2.2", "3.9", "4.0"])
def test_kafka_python_uses_the_fake(version: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from kafka.admin import ConfigResource as KpResource
        from kafka.admin import ConfigResourceType, KafkaAdminClient
        from kafka.admin import NewPartitions as KpNewPartitions
        from kafka.admin import NewTopic as KpNewTopic

    with FakeCluster(3, versions=version) as c:
        kp = KafkaAdminClient(bootstrap_servers=c.bootstrap, request_timeout_ms=10000)
        try:
            kp.create_topics([KpNewTopic("kp", 2, 1, topic_configs={"segment.ms": "60000"})])
            assert c.topic_configs("kp") == {"segment.ms": "60000"}
            kp.create_partitions({"kp": KpNewPartitions(4)})
            assert len(c.replicas("kp")) == 4
            kp.alter_configs([KpResource(ConfigResourceType.TOPIC, "kp", configs={"retention.ms": "9"})])
            # kafka-python reads the configs and writes them back with the change (or sends it incrementally):
            # either way the other dynamic config stays.
            assert c.topic_configs("kp") == {"segment.ms": "60000", "retention.ms": "9"}
            got = kp.describe_configs([KpResource(ConfigResourceType.TOPIC, "kp")])
            text = repr(got)
            assert "retention.ms" in text
            described = kp.describe_topics(["kp"])
            assert len(described[0]["partitions"]) == 4
            kp.delete_topics(["kp"])
            assert c.topics == {}
        finally:
            kp.close()


def test_kadmin_reads_what_confluent_kafka_wrote_and_back() -> None:
    from confluent_kafka.admin import AdminClient as CkAdmin
    from confluent_kafka.admin import ConfigResource as CkResource

    with FakeCluster(3, versions="3.9") as c, AdminClient(c.bootstrap, **FAST) as a:
        a.create_topics([NewTopic("both", 3, 2, configs={"retention.ms": "11"})])
        ck = CkAdmin({"bootstrap.servers": c.bootstrap, "log_level": 0})
        md = ck.list_topics(timeout=10).topics["both"]
        assert {p: list(m.replicas) for p, m in md.partitions.items()} == c.replicas("both")
        (f,) = ck.describe_configs([CkResource("topic", "both")]).values()
        assert f.result(10)["retention.ms"].value == "11"
        assert isinstance(a.describe_topics(["both"])["both"], TopicDescription)
        got: dict[Any, KafkaError | None] = dict(a.delete_topics(["both"]))
        assert got == {"both": None}
        assert "both" not in ck.list_topics(timeout=10).topics


def test_invalid_request_for_group_configs_on_zookeeper_brokers() -> None:
    with FakeCluster(1, versions="3.9") as c, AdminClient(c.bootstrap, **FAST) as a:
        g = ConfigResource.group("g1")
        assert isinstance(a.describe_configs([g])[g], InvalidRequestError)
    with FakeCluster(1, versions="4.0") as c, AdminClient(c.bootstrap, **FAST) as a:
        got = a.describe_configs([g])[g]
        assert isinstance(got, dict) and got["consumer.session.timeout.ms"].value == "45000"
        assert a.alter_configs({g: [SetConfig("consumer.session.timeout.ms", "30000")]}) == {g: None}
        got = a.describe_configs([g])[g]
        assert isinstance(got, dict) and got["consumer.session.timeout.ms"].source is ConfigSource.GROUP_CONFIG
