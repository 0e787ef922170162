"""Topics and configs against brokers kadmin did not write: Tansu, and librdkafka's mock cluster.

What kadmin writes is read back by confluent-kafka's and kafka-python's admin clients, and what they write is
read by kadmin, so that one codec bug cannot hide on both sides of a test.  Tansu (v0.6) quirks relied on here,
found by probing it with kadmin and confluent-kafka:

* it serves CreateTopics v0-7, DeleteTopics v0-6, DescribeConfigs v0-4, IncrementalAlterConfigs v0-1,
  Metadata and DescribeTopicPartitions, but has no CreatePartitions (37) and no AlterConfigs (33);
* DescribeConfigs lists only the keys set on the topic, each with source DEFAULT_CONFIG and type STRING;
* CreateTopics with validate_only creates the topic anyway (so validate_only is not exercised here);
* DescribeConfigs of a deleted topic answers without an error.

librdkafka's mock has Metadata but none of the topic/config admin APIs: kadmin must say so at once, per key.
"""

from __future__ import annotations

import uuid
import warnings
from collections.abc import Iterator

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient as CkAdminClient
from confluent_kafka.admin import ConfigResource as CkResource
from confluent_kafka.admin import NewTopic as CkNewTopic

from kadmin.client import AdminClient
from kadmin.configs import AppendConfig, ConfigResource, DeleteConfig, SetConfig
from kadmin.errors import UnknownTopicOrPartitionError, UnsupportedVersionError, error_class_for_code
from kadmin.protocol.apis import ApiKey
from kadmin.topics import CreatedTopic, NewTopic, TopicDescription
from tests.support.counting_proxy import CountingProxy
from tests.support.peers import RunningBroker
from tests.support.settings import PEER_FAST as FAST

pytestmark = pytest.mark.timeout(90)

TANSU_NODE = 111
TopicAlreadyExistsError = error_class_for_code(36)


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def proxy(tansu: RunningBroker) -> Iterator[CountingProxy]:
    with CountingProxy(tansu.nodes) as p:
        yield p


def ck_admin(bootstrap: str) -> CkAdminClient:
    return CkAdminClient({"bootstrap.servers": bootstrap, "log_level": 0})


def test_tansu_topic_lifecycle_checked_by_confluent_kafka(tansu: RunningBroker, proxy: CountingProxy) -> None:
    a, b = unique("kt"), unique("kt")
    ck = ck_admin(tansu.bootstrap)
    with AdminClient(proxy.bootstrap, **FAST) as admin:
        proxy.clear()
        made = admin.create_topics([NewTopic(a, 3, 1, configs={"retention.ms": "3600000"}), NewTopic(b, 1, 1)],
                                  include_topic_ids=True)
        assert proxy.count(ApiKey.CREATE_TOPICS) == 1  # both topics in one request to the controller
        ca = made[a]
        assert isinstance(ca, CreatedTopic) and ca.partitions == 3 and ca.topic_id is not None
        again = admin.create_topics([NewTopic(a, 3, 1)])[a]
        assert isinstance(again, TopicAlreadyExistsError)

        md = ck.list_topics(timeout=15).topics
        assert len(md[a].partitions) == 3 and len(md[b].partitions) == 1
        (fut,) = ck.describe_configs([CkResource("topic", a)]).values()
        assert fut.result(15)["retention.ms"].value == "3600000"

        proxy.clear()
        desc = admin.describe_topics([a, b, unique("missing")])
        assert proxy.count(ApiKey.DESCRIBE_TOPIC_PARTITIONS) == 1  # Tansu speaks it: no Metadata needed
        da = desc[a]
        assert isinstance(da, TopicDescription) and da.topic_id == ca.topic_id
        assert [p.partition for p in da.partitions] == [0, 1, 2]
        assert all(p.leader == TANSU_NODE and p.replicas == (TANSU_NODE,) for p in da.partitions)
        missing = [v for k, v in desc.items() if k not in (a, b)]
        assert isinstance(missing[0], UnknownTopicOrPartitionError)
        assert {a, b} <= {t.name for t in admin.list_topics()}

        gone = admin.delete_topics([a, b])
        assert gone == {a: None, b: None}
    left = ck.list_topics(timeout=15).topics
    assert a not in left and b not in left


def test_tansu_configs_checked_by_both_clients(tansu: RunningBroker) -> None:
    topic = unique("kc")
    ck = ck_admin(tansu.bootstrap)
    for f in ck.create_topics([CkNewTopic(topic, 2, 1, config={"retention.ms": "60000"})]).values():
        f.result(15)
    r = ConfigResource.topic(topic)
    with AdminClient(tansu.bootstrap, **FAST) as admin:
        got = admin.describe_configs([r])[r]
        assert isinstance(got, dict) and got["retention.ms"].value == "60000"
        assert admin.alter_configs({r: [SetConfig("cleanup.policy", "compact"), DeleteConfig("retention.ms")]}) \
            == {r: None}
        assert admin.alter_configs({r: [AppendConfig("cleanup.policy", "delete")]}) == {r: None}
        # Tansu speaks IncrementalAlterConfigs, so no fallback and no AlterConfigs (which it does not have).
        back = admin.describe_configs([r])[r]
        assert isinstance(back, dict) and back["cleanup.policy"].value == "compact,delete"
        assert "retention.ms" not in back
        # What kadmin sees of a topic confluent-kafka made.
        d = admin.describe_topics([topic])[topic]
        assert isinstance(d, TopicDescription) and len(d.partitions) == 2
        # Tansu has no CreatePartitions: an answer per topic, at once, and the connection still works.
        grown = admin.create_partitions({topic: 4})[topic]
        assert isinstance(grown, UnsupportedVersionError)
        assert admin.delete_topics([topic]) == {topic: None}

    assert topic not in ck.list_topics(timeout=15).topics


def test_tansu_configs_read_by_kafka_python(tansu: RunningBroker) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from kafka.admin import ConfigResource as KpResource
        from kafka.admin import ConfigResourceType, KafkaAdminClient

    topic = unique("kp")
    r = ConfigResource.topic(topic)
    with AdminClient(tansu.bootstrap, **FAST) as admin:
        assert isinstance(admin.create_topics([NewTopic(topic, 1, 1)])[topic], CreatedTopic)
        assert admin.alter_configs({r: [SetConfig("max.message.bytes", "2000000")]}) == {r: None}
    kp = KafkaAdminClient(bootstrap_servers=tansu.bootstrap, request_timeout_ms=15000)
    try:
        # config_filter="all": Tansu labels every value DEFAULT_CONFIG, which kafka-python's default filter hides.
        got = kp.describe_configs([KpResource(ConfigResourceType.TOPIC, topic)], config_filter="all")
        assert "2000000" in repr(got)
        assert topic in kp.list_topics()
        kp.delete_topics([topic])
    finally:
        kp.close()


def test_rdkafka_mock_reads_and_refuses_what_it_lacks(rdkafka_mock: RunningBroker) -> None:
    topic = unique("mock")
    producer = Producer({"bootstrap.servers": rdkafka_mock.bootstrap, "log_level": 0})
    producer.produce(topic, b"x")  # the mock creates topics on first produce, with 4 partitions
    assert producer.flush(15) == 0
    with AdminClient(rdkafka_mock.bootstrap, **FAST) as admin:
        assert topic in {t.name for t in admin.list_topics()}
        d = admin.describe_topics([topic])[topic]  # Metadata: the mock has no DescribeTopicPartitions
        assert isinstance(d, TopicDescription) and len(d.partitions) == 4
        assert all(p.leader in rdkafka_mock.nodes for p in d.partitions)
        # No CreateTopics / DeleteTopics / DescribeConfigs / IncrementalAlterConfigs: an answer per key, at
        # once (the mock names controller 0, which is no node, so waiting for a controller would never end).
        made = admin.create_topics([NewTopic(unique("no"), 1, 1)], timeout=5)
        assert all(isinstance(v, UnsupportedVersionError) for v in made.values())
        assert isinstance(admin.delete_topics([topic], timeout=5)[topic], UnsupportedVersionError)
        r = ConfigResource.topic(topic)
        assert isinstance(admin.describe_configs([r], timeout=5)[r], UnsupportedVersionError)
        assert isinstance(admin.alter_configs({r: [SetConfig("retention.ms", "1")]}, timeout=5)[r],
                          UnsupportedVersionError)
        assert topic in {t.name for t in admin.list_topics()}  # and the client still works
