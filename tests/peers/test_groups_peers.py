"""Consumer groups against brokers kadmin did not write: Tansu and librdkafka's mock cluster.

Neither peer has a request log we can read, so each test talks to the peer through
:class:`counting_proxy.CountingProxy`, which counts requests per API key and version on the wire and can hold
responses back to make pipelining measurable.  Groups are made for real: committed by confluent-kafka's
consumer and by OffsetCommit requests of our own.  Peer quirks relied on here are recorded in
tests/data/peer_versions.json.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka import TopicPartition as CkTopicPartition
from confluent_kafka.admin import AdminClient as CkAdminClient
from confluent_kafka.admin import NewTopic

from kadmin.aio import AdminClient
from kadmin.errors import KafkaError, KafkaTimeoutError, ProtocolError, UnsupportedVersionError
from kadmin.network.retry import Deadline
from kadmin.protocol import message_type
from kadmin.types import Coordinator, GroupDescription, OffsetAndMetadata, PartitionLag, TopicPartition
from tests.support.aio import run
from tests.support.counting_proxy import CountingProxy
from tests.support.peers import RunningBroker

pytestmark = pytest.mark.timeout(90)

COMMIT, FETCH, FIND, DESCRIBE, LIST, DELETE = 8, 9, 10, 15, 16, 42
TANSU_NODE = 111


def client(bootstrap: str) -> AdminClient:
    return AdminClient(bootstrap, retry_backoff_s=0.02, retry_backoff_max_s=0.2, default_timeout_s=20.0)


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


async def commit(admin: AdminClient, node: int, group: str, topic: str, offsets: dict[int, int]) -> None:
    """An admin-style OffsetCommit (no member, generation -1) of our own, as tools like kafka-consumer-groups
    do; it creates the group on the broker."""
    R = message_type(COMMIT, "request")
    version = await admin.net.negotiated_version(node, COMMIT)
    req = R(group_id=group, generation_id_or_member_epoch=-1, member_id="", topics=[
        R.OffsetCommitRequestTopic(name=topic, partitions=[
            R.OffsetCommitRequestPartition(partition_index=p, committed_offset=o, committed_metadata="")
            for p, o in offsets.items()])])
    resp: Any = await admin.net.send(node, req, version, deadline=Deadline(10))
    codes = {p.error_code for t in resp.topics for p in t.partitions}
    assert codes == {0}, f"OffsetCommit v{version} for {group} failed: {codes}"


# --- Tansu -------------------------------------------------------------------------------------------------


@pytest.fixture
def tansu_proxy(tansu: RunningBroker) -> Iterator[CountingProxy]:
    with CountingProxy(tansu.nodes) as proxy:
        yield proxy


def _tansu_topic(tansu: RunningBroker, records: int) -> tuple[str, int]:
    """A fresh 3-partition topic with ``records`` records in partition 0; returns (name, its log end)."""
    topic = unique("groups-t")
    admin = CkAdminClient({"bootstrap.servers": tansu.bootstrap, "log_level": 0})
    for fut in admin.create_topics([NewTopic(topic, 3, 1)]).values():
        fut.result(15)
    producer = Producer({"bootstrap.servers": tansu.bootstrap, "log_level": 0})
    for _ in range(records):
        producer.produce(topic, b"x", partition=0)
    assert producer.flush(15) == 0
    watcher = Consumer({"bootstrap.servers": tansu.bootstrap, "group.id": unique("watermarks"), "log_level": 0})
    try:
        _low, high = watcher.get_watermark_offsets(CkTopicPartition(topic, 0), timeout=15)
    finally:
        watcher.close()
    return topic, int(high)


def _confluent_commit(tansu: RunningBroker, group: str, topic: str, offset: int) -> None:
    consumer = Consumer({"bootstrap.servers": tansu.bootstrap, "group.id": group, "enable.auto.commit": False,
                         "log_level": 0})
    try:
        consumer.commit(offsets=[CkTopicPartition(topic, 1, offset)], asynchronous=False)
    finally:
        consumer.close()


def test_tansu_groups_lifecycle_with_batched_requests(tansu: RunningBroker, tansu_proxy: CountingProxy) -> None:
    topic, log_end = _tansu_topic(tansu, records=5)
    ours = [unique("kadmin-g") for _ in range(20)]
    theirs = unique("ck-g")
    _confluent_commit(tansu, theirs, topic, 11)
    ids = [*ours, theirs]

    async def body() -> None:
        async with client(tansu_proxy.bootstrap) as admin:
            for i, g in enumerate(ours):
                await commit(admin, TANSU_NODE, g, topic, {0: i, 2: 100 + i})
            tansu_proxy.clear()

            # FindCoordinator v4+: one request for every group; DescribeGroups: one for the one coordinator.
            described = await admin.describe_consumer_groups(ids)
            assert tansu_proxy.count(FIND) == 1 and tansu_proxy.versions(FIND) == {6: 1}
            assert tansu_proxy.count(DESCRIBE) == 1
            for g in ids:
                d = described[g]
                assert isinstance(d, GroupDescription) and d.coordinator == TANSU_NODE
                assert d.state == "Empty" and d.members == ()

            listed = await admin.list_consumer_groups()
            assert listed.complete and set(ids) <= set(listed.group_ids())
            assert tansu_proxy.count(LIST) == 1

            # OffsetFetch v8+: every group in one request (Tansu's v2-v7 "all partitions" answer is broken).
            tansu_proxy.clear()
            offsets = await admin.list_consumer_group_offsets(ids)
            assert tansu_proxy.count(FETCH) == 1 and set(tansu_proxy.versions(FETCH)) <= {8, 9}
            assert tansu_proxy.count(FIND) == 0  # coordinators came from the cache
            for i, g in enumerate(ours):
                assert offsets[g] == {TopicPartition(topic, 0): OffsetAndMetadata(i, None, None),
                                      TopicPartition(topic, 2): OffsetAndMetadata(100 + i, None, None)}
            assert offsets[theirs] == {TopicPartition(topic, 1): OffsetAndMetadata(11, None, None)}

            lag = await admin.consumer_group_lag(ours[:3])
            for i, g in enumerate(ours[:3]):
                assert lag[g][TopicPartition(topic, 0)] == PartitionLag(i, log_end)  # type: ignore[index]

            # DeleteGroups: one request; the groups and their offsets are gone afterwards.
            tansu_proxy.clear()
            deleted = await admin.delete_consumer_groups(ids[:10])
            assert deleted == {g: None for g in ids[:10]}
            assert tansu_proxy.count(DELETE) == 1
            after = await admin.list_consumer_group_offsets(ids)
            assert all(after[g] == {} for g in ids[:10])
            assert all(after[g] == offsets[g] for g in ids[10:])
            remaining = set((await admin.list_consumer_groups()).group_ids())
            assert not remaining & set(ids[:10]) and set(ids[10:]) <= remaining

    run(body())


def test_tansu_quirks_are_passed_through_not_hidden(tansu: RunningBroker, tansu_proxy: CountingProxy) -> None:
    missing = unique("never-created")

    async def body() -> tuple[Any, Any]:
        async with client(tansu_proxy.bootstrap) as admin:
            return (await admin.describe_consumer_groups([missing]), await admin.delete_consumer_groups([missing]))

    described, deleted = run(body())
    # Tansu describes an unknown group as Empty (Kafka: Dead -> GroupIdNotFoundError) and "deletes" it.
    d = described[missing]
    assert isinstance(d, GroupDescription) and d.state == "Empty" and d.protocol_type == ""
    assert deleted == {missing: None}


def test_tansu_lookup_of_many_keys_is_one_request(tansu: RunningBroker, tansu_proxy: CountingProxy) -> None:
    keys = [unique("k") for _ in range(200)]

    async def body() -> dict[str, Coordinator | KafkaError]:
        async with client(tansu_proxy.bootstrap) as admin:
            tansu_proxy.clear()
            return await admin.find_coordinators(keys)

    found = run(body())
    assert tansu_proxy.count(FIND) == 1 and tansu_proxy.versions(FIND) == {6: 1}
    assert all(isinstance(found[k], Coordinator) and found[k].node_id == TANSU_NODE  # type: ignore[union-attr]
               for k in keys)


# --- librdkafka's mock cluster -----------------------------------------------------------------------------

DELAY = 0.2


@pytest.fixture
def mock_proxy(rdkafka_mock: RunningBroker) -> Iterator[CountingProxy]:
    with CountingProxy(rdkafka_mock.nodes, delay_s=DELAY) as proxy:
        yield proxy


def test_mock_lookup_of_fifty_keys_is_fifty_pipelined_v3_requests(mock_proxy: CountingProxy) -> None:
    keys = [f"g{i}" for i in range(50)]

    async def body() -> tuple[dict[str, Coordinator | KafkaError], float]:
        async with client(mock_proxy.bootstrap) as admin:
            mock_proxy.clear()
            t0 = time.monotonic()
            found = await admin.find_coordinators(keys)
            return found, time.monotonic() - t0

    found, elapsed = run(body())
    finds = [r for r in mock_proxy.requests if r.api_key == FIND]
    assert len(finds) == 50 and mock_proxy.versions(FIND) == {3: 50}
    assert len({r.connection for r in finds}) == 1
    # Every request was on the wire before the first answer came back ...
    first_answer = min(r.answered_at for r in finds if r.answered_at is not None)
    assert max(r.sent_at for r in finds) < first_answer
    assert mock_proxy.max_in_flight() >= 50
    # ... so the lookup took about one held-back round trip, not 50 of them (10 s).
    assert elapsed < 5 * DELAY, elapsed
    assert all(isinstance(found[k], Coordinator) and found[k].node_id in (1, 2, 3)  # type: ignore[union-attr]
               for k in keys)
    assert found["g1"].node_id == 2  # type: ignore[union-attr]  # recorded in peer_versions.json


def test_mock_offsets_go_per_group_at_v6_and_unsupported_apis_send_nothing(rdkafka_mock: RunningBroker,
                                                                          mock_proxy: CountingProxy) -> None:
    topic = unique("mock-t")
    producer = Producer({"bootstrap.servers": rdkafka_mock.bootstrap, "log_level": 0})
    producer.produce(topic, b"x", partition=0)  # the mock creates topics on first produce
    assert producer.flush(15) == 0
    groups = [unique("mock-g") for _ in range(6)]

    async def body() -> None:
        async with client(mock_proxy.bootstrap) as admin:
            coordinators = await admin.find_coordinators(groups)
            for i, g in enumerate(groups):
                node = coordinators[g].node_id  # type: ignore[union-attr]
                await commit(admin, node, g, topic, {0: 10 + i, 1: 20 + i})
            mock_proxy.clear()

            offsets = await admin.list_consumer_group_offsets(groups, [(topic, 0), (topic, 1), (topic, 2)])
            assert mock_proxy.count(FETCH) == len(groups) and mock_proxy.versions(FETCH) == {6: len(groups)}
            for i, g in enumerate(groups):
                # The mock answers committed_leader_epoch 0 for commits that sent -1: compare the rest.
                got = {tp: (o.offset, o.metadata) for tp, o in offsets[g].items()}  # type: ignore[union-attr]
                # Answered under the caller's own keys ((topic, n) pairs); partition 2 has no committed offset.
                assert got == {(topic, 0): (10 + i, ""), (topic, 1): (20 + i, "")}
            # Each request went to its group's coordinator.
            assert sorted(r.node_id for r in mock_proxy.requests if r.api_key == FETCH) == \
                sorted(coordinators[g].node_id for g in groups)  # type: ignore[union-attr]

            # "All partitions" is answered with a null topic array by the mock, which no decoder accepts: an
            # error per group (ProtocolError, or a timeout where undecodable answers are retried), never a
            # made-up empty result, and never an exception out of the call.
            every = await admin.list_consumer_group_offsets(groups[:2], timeout=2.0)
            assert all(isinstance(every[g], (ProtocolError, KafkaTimeoutError)) for g in groups[:2]), every

            # No DescribeGroups/DeleteGroups/ListGroups on the mock: per-key/per-broker errors, nothing sent.
            mock_proxy.clear()
            described = await admin.describe_consumer_groups(groups)
            deleted = await admin.delete_consumer_groups(groups)
            listed = await admin.list_consumer_groups()
            assert all(isinstance(described[g], UnsupportedVersionError) for g in groups)
            assert all(isinstance(deleted[g], UnsupportedVersionError) for g in groups)
            assert listed.groups == () and set(listed.errors) == {1, 2, 3}
            assert all(isinstance(e, UnsupportedVersionError) for e in listed.errors.values())
            assert mock_proxy.count(DESCRIBE) == mock_proxy.count(DELETE) == mock_proxy.count(LIST) == 0

    run(body())


# --- the proxy itself, checked against a broker whose request log we can read ------------------------------


@pytest.mark.parametrize("release", ["2.2", "3.9"])  # Metadata v7 (classic) / DescribeCluster (flexible)
def test_proxy_counts_what_the_broker_logged_and_keeps_the_client_on_the_proxy(release: str) -> None:
    from kadmin.testing import FakeCluster

    with FakeCluster(brokers=3, versions=release) as cluster, CountingProxy(cluster.addresses) as proxy:
        ids = [f"g{i}" for i in range(12)]
        for g in ids:
            cluster.add_group(g)

        async def body() -> list[tuple[str, int, int | None]]:
            async with client(proxy.bootstrap) as admin:
                res = await admin.describe_consumer_groups(ids)
                assert all(isinstance(res[g], GroupDescription) for g in ids)
                return list(admin.net.connections_opened)

        opened = run(body())
        logged = sorted((e.node_id, e.api_key, e.version) for e in cluster.request_log)
        seen = sorted((r.node_id, r.api_key, r.version) for r in proxy.requests)
    assert seen == logged
    assert {(h, p) for h, p, _n in opened} <= set(proxy.listeners.values())
    assert all(r.answered_at is not None for r in proxy.requests)
