"""A hanging transaction on the fake cluster, made the way one happens on a real broker: a transactional producer
(confluent-kafka, an independent client) commits, and the commit marker for one partition never arrives."""

from __future__ import annotations

from confluent_kafka import Producer

from kadmin.testing import FakeCluster


def commit_losing_a_marker(cluster: FakeCluster, transactional_id: str, records: dict[int, bytes], lost: int,
                           topic: str = "t") -> Producer:
    """Write ``records`` ({partition: value}) to ``topic`` in one transaction and commit it, the fake losing the
    commit marker of partition ``lost``: that partition's last stable offset stays before the transaction.  The
    producer is returned, still open, for a test that goes on writing with it."""
    cluster.lose_txn_markers([(topic, lost)])
    producer = Producer({"bootstrap.servers": cluster.bootstrap, "transactional.id": transactional_id})
    producer.init_transactions(10)
    producer.begin_transaction()
    for partition, value in records.items():
        producer.produce(topic, value=value, partition=partition)
    producer.commit_transaction(10)
    return producer
