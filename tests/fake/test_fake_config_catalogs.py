"""The fake cluster's config catalogs, release by release: the topic configs each preset accepts and describes, and
the resource types its brokers know, against what each Kafka release shipped.

The expected names below are written from Kafka's own sources, independently of kadmin.testing.configs:
LogConfig's topic configs (2.2: 25, max.compaction.lag.ms from 2.3 by KIP-354, the KIP-405 tiered-storage configs
public from 3.6, message.timestamp.before/after.max.ms from 3.6 by KIP-937, compression.gzip/lz4/zstd.level from
3.8 by KIP-390, remote.log.copy.disable / remote.log.delete.on.disable from 3.9 by KIP-950, and 4.0 dropping
message.format.version, message.downconversion.enable and message.timestamp.difference.max.ms).  Broker loggers
(ConfigResource.Type BROKER_LOGGER = 8) arrived with KIP-412 in 2.4, CLIENT_METRICS (16) with KIP-714 in 3.7 and
GROUP (32) with KIP-848's group configs in 3.9; before that the id parses as UNKNOWN and KafkaApis fails the whole
DescribeConfigs request with INVALID_REQUEST (before 2.6 echoing the id as 0 with the exception's text; from 2.6,
generated messages, with the ids as sent and INVALID_REQUEST's stock text).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from kadmin.client import AdminClient
from kadmin.configs import ConfigResource, ConfigSource
from kadmin.errors import InvalidConfigError, KafkaError
from kadmin.protocol.apis import ApiKey
from kadmin.testing import FakeCluster
from kadmin.testing import configs as C
from kadmin.testing.rawclient import RawConnection
from kadmin.testing.schemas import fake_message_type
from kadmin.topics import CreatedTopic, NewTopic
from kadmin.versions import RELEASE_NAMES, RELEASES
from tests.support.clusters import shared_admin
from tests.support.settings import FAST

pytestmark = pytest.mark.timeout(60)

LONG_MAX = "9223372036854775807"
INVALID_REQUEST = 42
DescReq: Any = fake_message_type(ApiKey.DESCRIBE_CONFIGS, "request")

#: Kafka 2.2's LogConfig topic configs.
KAFKA_2_2 = frozenset({
    "cleanup.policy", "compression.type", "delete.retention.ms", "file.delete.delay.ms", "flush.messages",
    "flush.ms", "follower.replication.throttled.replicas", "index.interval.bytes",
    "leader.replication.throttled.replicas", "max.message.bytes", "message.downconversion.enable",
    "message.format.version", "message.timestamp.difference.max.ms", "message.timestamp.type",
    "min.cleanable.dirty.ratio", "min.compaction.lag.ms", "min.insync.replicas", "preallocate", "retention.bytes",
    "retention.ms", "segment.bytes", "segment.index.bytes", "segment.jitter.ms", "segment.ms",
    "unclean.leader.election.enable",
})
#: (first release, names added) and (first release, names removed), in release order.
ADDED = [
    ((2, 3), {"max.compaction.lag.ms"}),
    ((3, 6), {"remote.storage.enable", "local.retention.ms", "local.retention.bytes",
              "message.timestamp.before.max.ms", "message.timestamp.after.max.ms"}),
    ((3, 8), {"compression.gzip.level", "compression.lz4.level", "compression.zstd.level"}),
    ((3, 9), {"remote.log.copy.disable", "remote.log.delete.on.disable"}),
]
REMOVED = [((4, 0), {"message.format.version", "message.downconversion.enable",
                     "message.timestamp.difference.max.ms"})]
#: KIP-405's topic configs were LogConfig internals (defineInternal) from 3.0 until 3.6 made them public: accepted
#: by validateNames, left out of DescribeConfigs unless set.
INTERNAL = ((3, 0), (3, 6), {"remote.storage.enable", "local.retention.ms", "local.retention.bytes"})


def rel_key(release: str) -> tuple[int, ...]:
    return tuple(int(p) for p in release.split("."))


def kafka_topic_configs(release: str) -> frozenset[str]:
    names = set(KAFKA_2_2)
    for since, added in ADDED:
        if rel_key(release) >= since:
            names |= added
    for since, removed in REMOVED:
        if rel_key(release) >= since:
            names -= removed
    return frozenset(names)


def kafka_accepted(release: str) -> frozenset[str]:
    """Names a create or alter may use: the described ones plus this release's internal ones."""
    first, public, names = INTERNAL
    return kafka_topic_configs(release) | (names if first <= rel_key(release) < public else frozenset())


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


# --- the catalog itself, every preset (no cluster needed) ------------------------------------------------------


def test_expected_names_are_sane() -> None:
    # The table above, not the fake, is under test here: 2.2 has 25, 3.9 has 36, 4.0 has 33 topic configs.
    assert [len(kafka_topic_configs(r)) for r in ("2.2", "3.5", "3.9", "4.0")] == [25, 26, 36, 33]


@pytest.mark.parametrize("release", RELEASE_NAMES)
def test_topic_catalog_is_the_releases(release: str) -> None:
    table = RELEASES[release]
    assert C.release(table) == release
    catalog = C.catalog(C.TOPIC, table)
    assert set(catalog) == kafka_accepted(release)
    assert {n for n, d in catalog.items() if C.listed(d, table)} == kafka_topic_configs(release)


# --- over the wire: describe and create on four presets ---------------------------------------------------------


@pytest.fixture(scope="module", params=["2.2", "2.6", "3.9", "4.0"])
def release(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module")
def cluster(release: str) -> Iterator[FakeCluster]:
    with FakeCluster(1, versions=release) as c:
        yield c


admin = shared_admin()


def test_describe_lists_the_releases_topic_configs(cluster: FakeCluster, admin: AdminClient, release: str) -> None:
    name = unique("cat")
    assert isinstance(admin.create_topics([NewTopic(name, 1, 1)])[name], CreatedTopic)
    r = ConfigResource.topic(name)
    got = admin.describe_configs([r])[r]
    assert isinstance(got, dict), got
    assert set(got) == kafka_topic_configs(release)
    if rel_key(release) < (4, 0):
        assert got["message.timestamp.difference.max.ms"].value == LONG_MAX
        assert got["message.timestamp.difference.max.ms"].source is ConfigSource.DEFAULT_CONFIG
    if rel_key(release) >= (3, 6):
        assert got["message.timestamp.before.max.ms"].value == LONG_MAX
        # KIP-937 shipped with Long.MAX_VALUE; KIP-1030 made it one hour in 4.0.
        after = "3600000" if rel_key(release) >= (4, 0) else LONG_MAX
        assert got["message.timestamp.after.max.ms"].value == after
    if rel_key(release) >= (3, 8):
        assert {k: got[k].value for k in ("compression.gzip.level", "compression.lz4.level",
                                          "compression.zstd.level")} == {
            "compression.gzip.level": "-1", "compression.lz4.level": "9", "compression.zstd.level": "3"}
    if rel_key(release) >= (3, 9):
        assert got["remote.log.copy.disable"].value == "false"
        assert got["remote.log.delete.on.disable"].value == "false"


def test_timestamp_difference_until_3_9(cluster: FakeCluster, admin: AdminClient, release: str) -> None:
    name = unique("tsdiff")
    got = admin.create_topics([NewTopic(name, 1, 1, configs={"message.timestamp.difference.max.ms": "1000"})])[name]
    if rel_key(release) >= (4, 0):
        assert isinstance(got, InvalidConfigError), got
        assert "message.timestamp.difference.max.ms" in str(got)
        assert name not in cluster.topics
    else:
        assert isinstance(got, CreatedTopic), got
        r = ConfigResource.topic(name)
        entry = admin.describe_configs([r])[r]
        assert isinstance(entry, dict)
        assert entry["message.timestamp.difference.max.ms"].value == "1000"
        assert entry["message.timestamp.difference.max.ms"].source is ConfigSource.DYNAMIC_TOPIC_CONFIG


def test_max_compaction_lag_from_2_3(cluster: FakeCluster, admin: AdminClient, release: str) -> None:
    name = unique("lag")
    got = admin.create_topics([NewTopic(name, 1, 1, configs={"max.compaction.lag.ms": "100000"})])[name]
    if release == "2.2":
        assert isinstance(got, InvalidConfigError), got
        assert name not in cluster.topics
    else:
        assert isinstance(got, CreatedTopic), got


@pytest.mark.parametrize(("key", "value", "problem"), [
    ("compression.gzip.level", "-1", None),
    ("compression.gzip.level", "9", None),
    ("compression.gzip.level", "0", "Value must be between 1 and 9 or equal to -1"),
    ("compression.gzip.level", "10", "Value must be between 1 and 9 or equal to -1"),
    ("compression.lz4.level", "17", None),
    ("compression.lz4.level", "0", "Value must be at least 1"),
    ("compression.zstd.level", "-131072", None),
    ("compression.zstd.level", "23", "Value must be no more than 22"),
    ("message.timestamp.before.max.ms", "-1", "Value must be at least 0"),
    ("remote.log.copy.disable", "maybe", "Expected value to be either true or false"),
])
def test_new_configs_values_are_checked(cluster: FakeCluster, admin: AdminClient, release: str, key: str,
                                        value: str, problem: str | None) -> None:
    name = unique("val")
    got = admin.create_topics([NewTopic(name, 1, 1, configs={key: value})], validate_only=True)[name]
    if key not in kafka_accepted(release):
        assert isinstance(got, InvalidConfigError), got
        assert f"Unknown topic config name: {key}" in str(got)
    elif problem is None:
        assert isinstance(got, CreatedTopic), got
    else:
        assert isinstance(got, InvalidConfigError), got
        assert f"Invalid value {value} for configuration {key}: {problem}" in str(got)
    assert name not in cluster.topics


def test_tiered_storage_configs_internal_before_3_6() -> None:
    with FakeCluster(1, versions="3.5") as c, AdminClient(c.bootstrap, **FAST) as a:
        plain, tiered = unique("plain"), unique("tiered")
        got = a.create_topics([NewTopic(plain, 1, 1), NewTopic(tiered, 1, 1, configs={"local.retention.ms": "1000"})])
        assert all(isinstance(v, CreatedTopic) for v in got.values()), got
        described = a.describe_configs([ConfigResource.topic(plain), ConfigResource.topic(tiered)])
        p, t = described[ConfigResource.topic(plain)], described[ConfigResource.topic(tiered)]
        assert isinstance(p, dict) and isinstance(t, dict)
        assert set(p) == kafka_topic_configs("3.5")
        assert set(t) == kafka_topic_configs("3.5") | {"local.retention.ms"}
        assert t["local.retention.ms"].value == "1000"
        assert t["local.retention.ms"].source is ConfigSource.DYNAMIC_TOPIC_CONFIG
        bad = a.create_topics([NewTopic(unique("bad"), 1, 1, configs={"local.retention.bytes": "-3"})],
                              validate_only=True)
        assert "Value must be at least -2" in str(next(iter(bad.values())))


# --- broker loggers: KIP-412, Kafka 2.4 -----------------------------------------------------------------------


def raw_describe(cluster: FakeCluster, resources: list[tuple[int, str]], version: int = 2) -> Any:
    host, port = cluster.addresses[cluster.node_ids[0]]
    with RawConnection(host, port) as conn:
        return conn.request(ApiKey.DESCRIBE_CONFIGS, version, resources=[
            DescReq.DescribeConfigsResource(resource_type=t, resource_name=n, configuration_keys=None)
            for t, n in resources], include_synonyms=False)


def test_broker_loggers_from_2_4(cluster: FakeCluster, admin: AdminClient, release: str) -> None:
    node = cluster.node_ids[0]
    logger = ConfigResource.broker_logger(node)
    broker = ConfigResource.broker(node)
    got = admin.describe_configs([logger])[logger]
    if release == "2.2":
        # No BROKER_LOGGER in 2.2's ConfigResource.Type: no log levels come back.
        assert isinstance(got, KafkaError), got
        # The broker itself still answers when asked alone.
        alone = admin.describe_configs([broker])[broker]
        assert isinstance(alone, dict) and alone["broker.id"].value == str(node)
    else:
        assert isinstance(got, dict), got
        assert got["root"].value == "INFO"
        assert got["root"].source is ConfigSource.DYNAMIC_BROKER_LOGGER_CONFIG


def test_2_2_fails_the_whole_describe_for_a_logger(cluster: FakeCluster, release: str) -> None:
    node = str(cluster.node_ids[0])
    resp = raw_describe(cluster, [(C.BROKER, node), (C.BROKER_LOGGER, node)])
    got = [(r.resource_type, r.resource_name, r.error_code, r.error_message) for r in resp.results]
    if release == "2.2":
        # KafkaApis throws while sorting the resources for authorization; the error response gives every resource
        # the same INVALID_REQUEST, and the logger resource comes back as the type it was parsed as (UNKNOWN, 0).
        why = f"Unexpected resource type UNKNOWN for resource {node}"
        assert sorted(got) == [(0, node, INVALID_REQUEST, why), (C.BROKER, node, INVALID_REQUEST, why)]
        assert all(r.configs == [] for r in resp.results)
    else:
        assert [(t, n, code) for t, n, code, _m in got] == [(C.BROKER, node, 0), (C.BROKER_LOGGER, node, 0)]
        assert {c.name for c in resp.results[1].configs} >= {"root", "kafka"}


def test_a_logger_asked_with_its_broker_does_not_take_the_broker_down(cluster: FakeCluster, admin: AdminClient,
                                                                      release: str) -> None:
    node = cluster.node_ids[0]
    logger, broker = ConfigResource.broker_logger(node), ConfigResource.broker(node)
    cluster.clear_log()
    got = admin.describe_configs([broker, logger])
    sent = [e.node_id for e in cluster.request_log if e.api_key == ApiKey.DESCRIBE_CONFIGS]
    assert isinstance(got[broker], dict) and got[broker]["broker.id"].value == str(node)
    if release == "2.2":
        # DescribeConfigs v2 (Kafka 2.0-2.5): loggers travel apart, and 2.2's refusal, echoed under type UNKNOWN,
        # is filed under the logger that was asked (not a "no entry" ProtocolError).
        assert sent == [node, node]
        assert type(got[logger]).__name__ == "InvalidRequestError"
        assert "broker loggers need Kafka 2.4+" in str(got[logger])
    else:
        assert sent == [node]
        assert isinstance(got[logger], dict) and got[logger]["root"].value == "INFO"


def test_the_library_knows_every_topic_config_the_fake_serves() -> None:
    # kadmin refuses APPEND/SUBTRACT before sending on a known non-list config; a topic config missing from its
    # list would go to the broker instead.  Kept in step with the fake's per-release catalogs.
    from kadmin.configs import KNOWN_CONFIGS, LIST_CONFIGS

    served = {d.name for d in C.TOPIC_DEFS}
    assert served - KNOWN_CONFIGS == set()
    assert {d.name for d in C.TOPIC_DEFS if d.type == C.LIST} <= LIST_CONFIGS


# --- types a release does not know fail the whole DescribeConfigs: client-metrics (KIP-714, 3.7), groups (3.9) ------

#: Kafka's Errors.INVALID_REQUEST default message: what a generated-message broker (2.6+) puts on every resource when
#: the request as a whole fails (DescribeConfigsRequest.getErrorResponse).
STOCK_INVALID_REQUEST = ("This most likely occurs because of a request being malformed by the client library or the "
                         "message was sent to an incompatible broker. See the broker logs for more details.")


@pytest.fixture(scope="module", params=["2.2", "3.5", "3.9", "4.0"])
def mixed_release(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module")
def mixed_cluster(mixed_release: str) -> Iterator[FakeCluster]:
    with FakeCluster(1, versions=mixed_release) as c:
        yield c


@pytest.fixture(scope="module")
def mixed_admin(mixed_cluster: FakeCluster) -> Iterator[AdminClient]:
    with AdminClient(mixed_cluster.bootstrap, **FAST) as a:
        yield a


def test_raw_describe_naming_an_unknown_type_fails_every_resource(mixed_cluster: FakeCluster, mixed_admin: AdminClient,
                                                                  mixed_release: str) -> None:
    name = unique("raw")
    assert isinstance(mixed_admin.create_topics([NewTopic(name, 1, 1)])[name], CreatedTopic)
    resp = raw_describe(mixed_cluster, [(C.TOPIC, name), (C.GROUP, "g1")])
    got = [(r.resource_type, r.resource_name, r.error_code, r.error_message) for r in resp.results]
    if mixed_release == "2.2":
        # Hand-written DescribeConfigsRequest: the group id was parsed as UNKNOWN, and the exception's text is kept.
        why = "Unexpected resource type UNKNOWN for resource g1"
        assert sorted(got) == [(0, "g1", INVALID_REQUEST, why), (C.TOPIC, name, INVALID_REQUEST, why)]
    elif mixed_release == "3.5":
        # No GROUP in 3.5's ConfigResource.Type: the topic fails with it, every type id echoed as sent.
        assert got == [(C.TOPIC, name, INVALID_REQUEST, STOCK_INVALID_REQUEST),
                       (C.GROUP, "g1", INVALID_REQUEST, STOCK_INVALID_REQUEST)]
    else:
        # 3.9 knows the type (its ZooKeeper-mode broker refuses the group alone); 4.0 (KRaft) serves both.
        assert got[0][:3] == (C.TOPIC, name, 0) and resp.results[0].configs
        assert got[1][:3] == (C.GROUP, "g1", INVALID_REQUEST if mixed_release == "3.9" else 0)
    assert all(r.configs == [] for r in resp.results if r.error_code)


def test_client_metrics_unknown_before_3_7_fails_the_request_raw(mixed_cluster: FakeCluster,
                                                                 mixed_release: str) -> None:
    node = str(mixed_cluster.node_ids[0])
    resp = raw_describe(mixed_cluster, [(C.BROKER, node), (C.CLIENT_METRICS, "m1")])
    codes = [(r.resource_type, r.error_code) for r in resp.results]
    if mixed_release in ("2.2", "3.5"):
        assert {code for _t, code in codes} == {INVALID_REQUEST}
    else:
        assert codes[0] == (C.BROKER, 0)


def test_mixed_describe_answers_what_the_release_knows(mixed_cluster: FakeCluster, mixed_admin: AdminClient,
                                                       mixed_release: str) -> None:
    node = mixed_cluster.node_ids[0]
    name = unique("mix")
    assert isinstance(mixed_admin.create_topics([NewTopic(name, 1, 1)])[name], CreatedTopic)
    topic, group = ConfigResource.topic(name), ConfigResource.group("g1")
    metrics, broker = ConfigResource.client_metrics("m1"), ConfigResource.broker(node)
    mixed_cluster.clear_log()
    got = mixed_admin.describe_configs([topic, group, metrics, broker])
    sent = sorted((e.node_id, sorted(int(k.split(":")[0]) for k in e.keys))
                  for e in mixed_cluster.request_log if e.api_key == ApiKey.DESCRIBE_CONFIGS)
    # Groups and client-metrics travel in requests of their own (one per type): the broker cannot be told from the
    # DescribeConfigs version, and a release that lacks either type fails everything sent with it.
    assert sent == [(node, [C.TOPIC, C.BROKER]), (node, [C.CLIENT_METRICS]), (node, [C.GROUP])]
    got_topic, got_broker = got[topic], got[broker]
    assert isinstance(got_topic, dict) and "retention.ms" in got_topic, got_topic
    assert isinstance(got_broker, dict) and got_broker["broker.id"].value == str(node), got_broker
    if mixed_release in ("2.2", "3.5"):
        assert type(got[group]).__name__ == "InvalidRequestError"
        assert "group configs need Kafka 3.9+" in str(got[group]), got[group]
        assert type(got[metrics]).__name__ == "InvalidRequestError"
        assert "client-metrics configs need Kafka 3.7+" in str(got[metrics]), got[metrics]
    elif mixed_release == "3.9":
        # ZooKeeper mode knows the types but serves neither: a per-resource refusal.
        assert type(got[group]).__name__ == "InvalidRequestError"
        assert type(got[metrics]).__name__ == "InvalidRequestError"
    else:
        assert isinstance(got[group], dict) and "consumer.session.timeout.ms" in got[group]
        assert isinstance(got[metrics], dict)


def test_topics_alone_stay_one_request(mixed_cluster: FakeCluster, mixed_admin: AdminClient) -> None:
    names = [unique("one") for _ in range(3)]
    created = mixed_admin.create_topics([NewTopic(n, 1, 1) for n in names])
    assert all(isinstance(created[n], CreatedTopic) for n in names)
    mixed_cluster.clear_log()
    got = mixed_admin.describe_configs([ConfigResource.topic(n) for n in names])
    assert all(isinstance(v, dict) for v in got.values())
    assert len([e for e in mixed_cluster.request_log if e.api_key == ApiKey.DESCRIBE_CONFIGS]) == 1


def test_message_format_version_defaults_to_the_releases_own(cluster: FakeCluster, admin: AdminClient,
                                                             release: str) -> None:
    name = f"mfv-{uuid.uuid4().hex[:6]}"
    assert isinstance(admin.create_topics([NewTopic(name, 1, 1)])[name], CreatedTopic)
    got = admin.describe_configs([ConfigResource.topic(name)])[ConfigResource.topic(name)]
    assert isinstance(got, dict)
    want = {"2.2": "2.2-IV1", "2.6": "2.6-IV0", "3.9": "3.0-IV1"}.get(release)
    if want is None:  # 4.0 removed the config
        assert "message.format.version" not in got
    else:
        assert got["message.format.version"].value == want
        assert got["message.format.version"].source is ConfigSource.DEFAULT_CONFIG
