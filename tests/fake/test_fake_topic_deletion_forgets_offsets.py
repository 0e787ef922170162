"""Deleting a topic drops what the coordinators hold of it, as Kafka's group coordinator (committed offsets)
and share coordinator (share-partition state) do: a topic made again under the same name must not show the
old topic's offsets to kadmin or to an independent client."""

from __future__ import annotations

from confluent_kafka import ConsumerGroupTopicPartitions
from confluent_kafka import TopicPartition as CkPartition
from confluent_kafka.admin import AdminClient as CkAdmin

from kadmin.client import AdminClient
from kadmin.testing import FakeCluster
from kadmin.types import TopicPartition as TP


def test_a_recreated_topic_starts_without_the_old_offsets() -> None:
    with FakeCluster(brokers=1, versions="4.3") as c:
        c.add_topic("orders", partitions=2, offsets=10)
        c.add_topic("kept", partitions=1, offsets=10)
        with AdminClient(c.bootstrap, default_timeout_s=10) as admin:
            assert admin.alter_consumer_group_offsets("g", {TP("orders", 0): 4, TP("kept", 0): 5}) \
                == {TP("orders", 0): None, TP("kept", 0): None}
            assert admin.alter_share_group_offsets("sg", {TP("orders", 1): 3, TP("kept", 0): 2}) \
                == {TP("orders", 1): None, TP("kept", 0): None}
            assert admin.delete_topics(["orders"]) == {"orders": None}
            c.add_topic("orders", partitions=2, offsets=10)
            committed = admin.list_consumer_group_offsets(["g"])["g"]
            assert isinstance(committed, dict)
            assert {tp: o.offset for tp, o in committed.items()} == {TP("kept", 0): 5}  # type: ignore[union-attr]
            shares = admin.list_share_group_offsets(["sg"])["sg"]
            assert isinstance(shares, dict)
            assert {tp: s.start_offset for tp, s in shares.items()} == {TP("kept", 0): 2}  # type: ignore[union-attr]
        ck = CkAdmin({"bootstrap.servers": c.bootstrap, "log_level": 0})
        futures = ck.list_consumer_group_offsets([ConsumerGroupTopicPartitions(
            "g", [CkPartition("orders", 0), CkPartition("kept", 0)])], request_timeout=10)
        parts = {(p.topic, p.partition): p.offset for p in futures["g"].result(10).topic_partitions}
        assert parts == {("orders", 0): -1001, ("kept", 0): 5}  # -1001: no committed offset
