"""Transactions against peers that implement transactional producers themselves: librdkafka's mock cluster and Tansu.

What the mock answers (its ApiVersions, read here rather than assumed): InitProducerId, AddPartitionsToTxn,
AddOffsetsToTxn, EndTxn and TxnOffsetCommit, so confluent-kafka's transactional producer works against it;
not WriteTxnMarkers, DescribeProducers, DescribeTransactions or ListTransactions.  So kadmin's
fence_producers works there (InitProducerId with the transactional id, found with FindCoordinator key type
1) and supersedes the id's producer (the mock answers every InitProducerId with a fresh producer id at
epoch 0 rather than bumping the epoch, and its coordinator checks no epochs, so a fenced confluent-kafka
producer still ends its transaction there), while the KIP-664 reads fail per key (per partition, per id,
per broker) with UnsupportedVersionError and send nothing.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
from confluent_kafka import Producer

from kadmin.aio import AdminClient
from kadmin.errors import UnsupportedVersionError
from kadmin.protocol.apis import ApiKey
from kadmin.transactions import AbortTransactionSpec, FencedProducer
from kadmin.types import TopicPartition
from tests.support.peers import RunningBroker
from tests.support.settings import PEER_FAST as FAST

pytestmark = pytest.mark.timeout(90)

SERVED = (ApiKey.INIT_PRODUCER_ID, ApiKey.ADD_PARTITIONS_TO_TXN, ApiKey.ADD_OFFSETS_TO_TXN, ApiKey.END_TXN,
          ApiKey.TXN_OFFSET_COMMIT)
NOT_SERVED = (ApiKey.WRITE_TXN_MARKERS, ApiKey.DESCRIBE_PRODUCERS, ApiKey.DESCRIBE_TRANSACTIONS,
              ApiKey.LIST_TRANSACTIONS)


def run(bootstrap: str, fn: Any) -> Any:
    async def main() -> Any:
        async with AdminClient(bootstrap, **FAST) as admin:
            return await fn(admin)
    return asyncio.run(asyncio.wait_for(main(), 60))


def test_what_the_mock_serves(rdkafka_mock: RunningBroker) -> None:
    versions = run(rdkafka_mock.bootstrap, lambda admin: admin.api_versions())
    assert len(versions) == 3
    for nv in versions.values():
        assert all(k in nv.apis for k in SERVED), sorted(nv.apis)
        assert not any(k in nv.apis for k in NOT_SERVED), sorted(nv.apis)


def test_fence_producers_on_the_mock_supersedes_the_producer(rdkafka_mock: RunningBroker) -> None:
    topic, tid = f"txn-{uuid.uuid4().hex[:8]}", f"tid-{uuid.uuid4().hex[:8]}"
    p = Producer({"bootstrap.servers": rdkafka_mock.bootstrap, "transactional.id": tid})
    p.init_transactions(15)
    p.begin_transaction()
    p.produce(topic, value=b"v")
    assert p.flush(15) == 0
    first = run(rdkafka_mock.bootstrap, lambda admin: admin.fence_producers([tid]))[tid]
    assert isinstance(first, FencedProducer)
    second = run(rdkafka_mock.bootstrap, lambda admin: admin.fence_producers([tid]))[tid]
    assert isinstance(second, FencedProducer)
    assert (second.producer_id, second.producer_epoch) != (first.producer_id, first.producer_epoch)
    assert first.producer_id >= 0 and second.producer_id >= 0
    p.abort_transaction(15)


def test_kip664_reads_are_refused_per_key_unsent(rdkafka_mock: RunningBroker) -> None:
    topic = f"plain-{uuid.uuid4().hex[:8]}"
    p = Producer({"bootstrap.servers": rdkafka_mock.bootstrap})
    p.produce(topic, value=b"v", partition=0)
    assert p.flush(15) == 0

    async def calls(admin: AdminClient) -> tuple[Any, ...]:
        producers = await admin.describe_producers([(topic, 0)])
        listed = await admin.list_transactions()
        described = await admin.describe_transactions(["x"])
        aborted = await admin.abort_transaction(AbortTransactionSpec(TopicPartition(topic, 0), 1, 0))
        terminated = await admin.force_terminate_transaction("x")
        return producers, listed, described, aborted, terminated

    producers, listed, described, aborted, terminated = run(rdkafka_mock.bootstrap, calls)
    assert isinstance(producers[(topic, 0)], UnsupportedVersionError)
    assert listed.transactions == () and set(listed.errors) == {1, 2, 3}
    assert all(isinstance(e, UnsupportedVersionError) for e in listed.errors.values())
    assert isinstance(described["x"], UnsupportedVersionError)
    assert isinstance(aborted[TopicPartition(topic, 0)], UnsupportedVersionError)
    assert isinstance(terminated, UnsupportedVersionError)  # InitProducerId up to v4: no KIP-939


def test_tansu_fences_by_bumping_the_epoch_and_lacks_kip664(tansu: RunningBroker) -> None:
    # Tansu 0.6 serves the transactional producer's APIs (InitProducerId v0-5, AddPartitionsToTxn, ...,
    # TxnOffsetCommit) but none of KIP-664's: fencing works as on Kafka, the reads are refused per broker.
    tid = f"tansu-{uuid.uuid4().hex[:8]}"
    versions = run(tansu.bootstrap, lambda admin: admin.api_versions())
    for nv in versions.values():
        assert all(k in nv.apis for k in SERVED) and not any(k in nv.apis for k in NOT_SERVED)
    first = run(tansu.bootstrap, lambda admin: admin.fence_producers([tid]))[tid]
    second = run(tansu.bootstrap, lambda admin: admin.fence_producers([tid]))[tid]
    assert isinstance(first, FencedProducer) and isinstance(second, FencedProducer)
    assert (second.producer_id, second.producer_epoch) == (first.producer_id, first.producer_epoch + 1)
    listed = run(tansu.bootstrap, lambda admin: admin.list_transactions())
    assert listed.transactions == () and all(isinstance(e, UnsupportedVersionError) for e in listed.errors.values())
    assert set(listed.errors) == set(versions)
