"""FakeCluster resolves every topic config that has a broker synonym through it, as Kafka does (review5 items 3-4).

Kafka (ServerTopicConfigSynonyms.ALL_TOPIC_CONFIG_SYNONYMS, LogConfig.TopicConfigSynonyms before 3.x;
ConfigHelper.createTopicConfigEntry / configSynonyms): a topic config's value is the topic's own, else the
first-priority broker synonym set on the answering broker (DYNAMIC_BROKER_CONFIG), else set cluster-wide
(DYNAMIC_DEFAULT_BROKER_CONFIG), else the default; the synonyms list names the broker config (segment.ms <-
log.roll.ms, delete.retention.ms <- log.cleaner.delete.retention.ms, ...).  A broker synonym whose KafkaConfig
default is null (log.roll.ms: the value then comes from log.roll.hours) gives no DEFAULT_CONFIG synonym, and the
lower-priority names (log.roll.hours) are dropped from the list; a topic config without a broker synonym has no
synonyms.  The broker synonyms are dynamic broker configs (DynamicLogConfig), so a broker describes them and
kafka-python, which checks names against that description, alters them; log.roll.hours is read-only.
"""

from __future__ import annotations

from typing import Any

import pytest
from kafka import KafkaAdminClient
from kafka.admin import AlterConfigOp, ConfigResourceType
from kafka.admin import ConfigResource as KpResource

from kadmin.client import AdminClient
from kadmin.configs import ConfigResource, ConfigSource, DeleteConfig, SetConfig
from kadmin.errors import InvalidRequestError
from kadmin.testing import FakeCluster
from tests.support.settings import FAST

pytestmark = pytest.mark.timeout(60)

VERSIONS = ["2.2", "3.9", "4.0"]

#: (topic config, broker synonym, cluster-wide value, broker 1's value, the synonym's default or None for null,
#: releases having it)
PAIRS = [
    ("segment.ms", "log.roll.ms", "3600000", "1000", None, VERSIONS),
    ("message.timestamp.type", "log.message.timestamp.type", "LogAppendTime", "CreateTime", "CreateTime", VERSIONS),
    ("delete.retention.ms", "log.cleaner.delete.retention.ms", "2000", "1000", "86400000", VERSIONS),
    ("min.cleanable.dirty.ratio", "log.cleaner.min.cleanable.ratio", "0.3", "0.2", "0.5", VERSIONS),
    ("segment.index.bytes", "log.index.size.max.bytes", "20000", "10000", "10485760", VERSIONS),
    ("message.format.version", "log.message.format.version", "2.1-IV2", "2.0-IV1", None, ["2.2", "3.9"]),
    ("local.retention.ms", "log.local.retention.ms", "5000", "4000", "-2", ["3.9", "4.0"]),
]


@pytest.fixture(scope="module", params=VERSIONS)
def env(request: pytest.FixtureRequest) -> Any:
    with FakeCluster(1, versions=request.param) as c, AdminClient(c.bootstrap, **FAST) as a:
        c.add_topic("t", 1, replication_factor=1)
        yield request.param, c, a


def _topic(a: AdminClient, name: str) -> Any:
    t = ConfigResource.topic("t")
    got = a.describe_configs([t], include_synonyms=True)[t]
    assert isinstance(got, dict), got
    return got[name]


@pytest.mark.parametrize(("config", "broker_name", "cluster_value", "broker_value", "default", "releases"), PAIRS)
def test_broker_synonym_reaches_the_topic(env: Any, config: str, broker_name: str, cluster_value: str,
                                          broker_value: str, default: str | None, releases: list[str]) -> None:
    version, c, a = env
    b1, everyone = ConfigResource.broker(1), ConfigResource.broker()
    t = ConfigResource.topic("t")
    described = a.describe_configs([t])[t]
    assert isinstance(described, dict), described
    if version not in releases:  # the release lacks the topic config, and so its broker synonym
        broker = a.describe_configs([b1])[b1]
        assert isinstance(broker, dict), broker
        assert config not in described and broker_name not in broker
        return
    e = _topic(a, config)
    tail = [] if default is None else [(broker_name, default, ConfigSource.DEFAULT_CONFIG)]
    if config != "message.format.version":  # its default is the release's own IBP (tested elsewhere)
        assert [(s.name, s.value, s.source) for s in e.synonyms] == tail
    assert e.source == ConfigSource.DEFAULT_CONFIG
    try:
        assert a.alter_configs({everyone: [SetConfig(broker_name, cluster_value)]}) == {everyone: None}
        e = _topic(a, config)
        assert (e.value, e.source) == (cluster_value, ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG)
        assert [(s.name, s.value, s.source) for s in e.synonyms][:1] == [
            (broker_name, cluster_value, ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG)]

        assert a.alter_configs({b1: [SetConfig(broker_name, broker_value)]}) == {b1: None}
        e = _topic(a, config)
        assert (e.value, e.source) == (broker_value, ConfigSource.DYNAMIC_BROKER_CONFIG)
        got = [(s.name, s.value, s.source) for s in e.synonyms]
        assert got[:2] == [(broker_name, broker_value, ConfigSource.DYNAMIC_BROKER_CONFIG),
                           (broker_name, cluster_value, ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG)]
        if config != "message.format.version":
            assert got[2:] == tail
    finally:
        a.alter_configs({b1: [DeleteConfig(broker_name)], everyone: [DeleteConfig(broker_name)]})
    assert c.resource_configs(4, "1") == {} and c.resource_configs(4, "") == {}


def test_topic_config_without_broker_synonym_has_no_synonyms(env: Any) -> None:
    _version, _c, a = env
    e = _topic(a, "leader.replication.throttled.replicas")
    assert (e.value, e.source, list(e.synonyms)) == ("", ConfigSource.DEFAULT_CONFIG, [])


def test_broker_lists_the_synonyms(env: Any) -> None:
    version, _c, a = env
    b = ConfigResource.broker(1)
    got = a.describe_configs([b])[b]
    assert isinstance(got, dict), got
    for name in ("log.roll.ms", "log.roll.jitter.ms", "log.cleaner.delete.retention.ms", "log.message.timestamp.type",
                 "log.segment.delete.delay.ms", "log.flush.interval.messages", "log.flush.interval.ms",
                 "log.index.interval.bytes", "log.index.size.max.bytes", "log.cleaner.min.cleanable.ratio",
                 "log.cleaner.min.compaction.lag.ms", "log.preallocate"):
        assert name in got and not got[name].is_read_only, name
    assert got["log.cleaner.delete.retention.ms"].value == "86400000"
    assert got["log.roll.hours"].value == "168" and got["log.roll.hours"].is_read_only
    # Release-gated as their topic configs: gone with message.format.version in 4.0, tiered storage from 3.6.
    assert ("log.message.format.version" in got) == (version != "4.0")
    assert ("log.message.downconversion.enable" in got) == (version != "4.0")
    assert ("log.local.retention.ms" in got) == (version != "2.2")


def test_lower_priority_synonym_is_read_only(env: Any) -> None:
    version, c, a = env
    b = ConfigResource.broker(1)
    err = a.alter_configs({b: [SetConfig("log.roll.hours", "1")]})[b]
    assert isinstance(err, InvalidRequestError)
    assert "Cannot update these configs dynamically: Set(log.roll.hours)" in err.message
    assert c.resource_configs(4, "1") == {}


def test_kafka_python_alters_a_broker_synonym(env: Any) -> None:
    """kafka-python describes the broker first and refuses names it does not list (raise_on_unknown=True)."""
    version, c, a = env
    kp = KafkaAdminClient(bootstrap_servers=c.bootstrap)
    try:
        incremental = version != "2.2"  # IncrementalAlterConfigs exists from 2.3
        value: Any = (AlterConfigOp.SET, "1000") if incremental else "1000"
        kp.alter_configs([KpResource(ConfigResourceType.BROKER, "1", configs={"log.roll.ms": value})],
                         incremental=incremental)
        assert c.resource_configs(4, "1") == {"log.roll.ms": "1000"}
        e = _topic(a, "segment.ms")
        assert (e.value, e.source) == ("1000", ConfigSource.DYNAMIC_BROKER_CONFIG)
    finally:
        kp.close()
        a.alter_configs({ConfigResource.broker(1): [DeleteConfig("log.roll.ms")]})
