"""The fake cluster never advertises an API it does not serve.

For every release preset, and a cluster mixing them, each (API key, version) a broker lists in its ApiVersions
answer is sent as the smallest valid request (the schema's defaults) over a raw connection: an answer must
come back, decodable at that version, with the request's correlation id.  An error code in the body is a
fine answer (that is how a real broker refuses a client); a closed connection, which is what the fake does
for an API it does not implement, is the failure this test exists to catch.
"""

from __future__ import annotations

import struct
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from kadmin.protocol.apis import ApiKey
from kadmin.testing import FakeCluster
from kadmin.testing.handlers import HANDLERS
from kadmin.testing.rawclient import ConnectionClosed, RawConnection
from kadmin.testing.schemas import fake_message_type
from kadmin.versions import (
    API_NAMES,
    BROKER_TABLES,
    CAPPED,
    DEPLOYMENT_KEYS,
    RELEASE_NAMES,
    RELEASES,
    WITHHELD,
    guess_release,
)

pytestmark = pytest.mark.timeout(120)

MIXED = {1: "2.2", 2: "3.0", 3: "4.0"}


def minimal_request(api_key: int) -> Any:
    """The schema's defaults, except where the defaults would ask for no answer at all."""
    req: Any = fake_message_type(api_key, "request")()
    if api_key == ApiKey.PRODUCE:
        req.acks = 1  # acks=0 is the one request a broker never answers
    return req


def advertised(conn: RawConnection, release_max: int) -> dict[int, tuple[int, int]]:
    """The table a broker sends, read off the wire (not from the fake's own bookkeeping)."""
    resp = conn.request(ApiKey.API_VERSIONS, min(release_max, 2))
    assert resp.error_code == 0
    return {k.api_key: (k.min_version, k.max_version) for k in resp.api_keys}


def unanswered(host: str, port: int, table: dict[int, tuple[int, int]]) -> list[str]:
    """Every advertised (key, version) that got no answer, as "Name vN: why"."""
    failures: list[str] = []
    conn = RawConnection(host, port)
    try:
        for key, (lo, hi) in sorted(table.items()):
            for version in range(lo, hi + 1):
                # Some answers end the connection after they are sent (a refused SASL step, as in Kafka):
                # a closed connection counts against a request only if a fresh one gets no answer either.
                for fresh in (False, True):
                    try:
                        resp = conn.request(key, version, minimal_request(key))
                    except (ConnectionClosed, OSError) as exc:
                        conn.close()
                        conn = RawConnection(host, port)
                        if fresh:
                            failures.append(f"{API_NAMES[key]} ({key}) v{version}: {type(exc).__name__}: {exc}")
                        continue
                    if resp is None:
                        failures.append(f"{API_NAMES[key]} ({key}) v{version}: no response object")
                    break
    finally:
        conn.close()
    return failures


@pytest.fixture(scope="module")
def clusters() -> Iterator[dict[str, FakeCluster]]:
    made = {release: FakeCluster(brokers=1, versions=release) for release in RELEASE_NAMES}
    made["mixed"] = FakeCluster(brokers=3, versions=MIXED)
    try:
        yield made
    finally:
        for c in made.values():
            c.close()


@pytest.mark.parametrize("release", RELEASE_NAMES)
def test_every_advertised_version_of_a_preset_is_answered(clusters: dict[str, FakeCluster], release: str) -> None:
    c = clusters[release]
    host, port = c.addresses[1]
    with RawConnection(host, port) as conn:
        table = advertised(conn, RELEASES[release][ApiKey.API_VERSIONS][1])
    assert table == RELEASES[release]
    assert unanswered(host, port, table) == []


def test_every_advertised_version_of_a_mixed_cluster_is_answered(clusters: dict[str, FakeCluster]) -> None:
    c = clusters["mixed"]
    for node, release in MIXED.items():
        host, port = c.addresses[node]
        with RawConnection(host, port) as conn:
            table = advertised(conn, RELEASES[release][ApiKey.API_VERSIONS][1])
        assert table == RELEASES[release], node
        assert unanswered(host, port, table) == [], node


def test_a_version_beyond_the_table_still_closes_the_connection(clusters: dict[str, FakeCluster]) -> None:
    """The check above would pass vacuously if the fake answered everything: an unadvertised version is
    still refused the way Kafka refuses it (it cannot parse the request, so it closes the connection)."""
    host, port = clusters["2.2"].addresses[1]
    with RawConnection(host, port) as conn:
        hi = RELEASES["2.2"][ApiKey.FETCH][1]
        conn.send(ApiKey.FETCH, hi + 1, minimal_request(ApiKey.FETCH).encode(hi + 1))
        assert conn.is_closed()
    with RawConnection(host, port) as conn:
        # A withheld key (not in the 2.2 preset); kadmin ships no schema for it, so the header is built here.
        conn.send_frame(struct.pack(">hhih", ApiKey.ADD_PARTITIONS_TO_TXN, 0, 1, -1))
        assert conn.is_closed()


@pytest.mark.parametrize("release", RELEASE_NAMES)
def test_presets_list_only_keys_with_a_handler_for_every_version(release: str) -> None:
    for key, (_lo, hi) in RELEASES[release].items():
        assert key in HANDLERS, f"{release} advertises {API_NAMES[key]} ({key}), which no handler serves"
        assert fake_message_type(key, "request").MAX_VERSION >= hi, (release, API_NAMES[key])
        assert fake_message_type(key, "response").MAX_VERSION >= hi, (release, API_NAMES[key])


@pytest.mark.parametrize("release", RELEASE_NAMES)
def test_withheld_keys_are_what_separates_a_preset_from_the_broker(release: str) -> None:
    broker, preset = BROKER_TABLES[release], RELEASES[release]
    assert set(broker) - set(preset) == set(broker) & set(WITHHELD)
    # ... and, for the keys the fake serves only up to a version (CAPPED, each with its reason), that version.
    assert all(preset[k] == (broker[k][0], min(broker[k][1], CAPPED.get(k, (broker[k][1], ""))[0])) for k in preset)
    assert not set(WITHHELD) & set(HANDLERS), "a withheld key has a handler now: advertise it again"


@pytest.mark.parametrize("release", RELEASE_NAMES)
def test_release_guess_works_for_presets_and_real_brokers(release: str) -> None:
    assert guess_release(RELEASES[release]) == release
    assert guess_release(BROKER_TABLES[release]) == release
    kraft_like = {k: v for k, v in BROKER_TABLES[release].items() if k not in DEPLOYMENT_KEYS}
    assert guess_release(kraft_like) == release


def test_deployment_keys_follow_the_broker_mode() -> None:
    """ZooKeeper-mode presets keep the inter-broker keys (LeaderAndIsr is how a client tells the mode), the
    KRaft preset the KRaft ones; both kinds are answered (above), with the refusals below."""
    zk_keys = {4, 5, 6, 7}
    kraft_keys = {55, 64, 74, 75, 80, 81}
    kraft_only = [r for r in RELEASE_NAMES if r.startswith("4.")]  # 4.0 removed ZooKeeper mode
    for release in RELEASE_NAMES:
        if release not in kraft_only:
            assert zk_keys <= set(RELEASES[release]), release
    for release in kraft_only:
        assert not zk_keys & set(RELEASES[release]), release
        assert kraft_keys <= set(RELEASES[release]), release


@pytest.mark.parametrize("api_key", [4, 5, 6, 7, 56, 58, 67])
def test_inter_broker_requests_are_refused_as_a_secured_broker_refuses_a_client(
        clusters: dict[str, FakeCluster], api_key: int) -> None:
    host, port = clusters["3.9"].addresses[1]
    hi = RELEASES["3.9"][api_key][1]
    with RawConnection(host, port) as conn:
        resp = conn.request(api_key, hi, minimal_request(api_key))
    assert resp.error_code == 31  # CLUSTER_AUTHORIZATION_FAILED


def test_kraft_quorum_apis_answer_as_a_static_quorum(clusters: dict[str, FakeCluster]) -> None:
    c = clusters["mixed"]
    host, port = c.addresses[3]  # the 4.0 node
    with RawConnection(host, port) as conn:
        q: Any = fake_message_type(ApiKey.DESCRIBE_QUORUM, "request")
        resp = conn.request(ApiKey.DESCRIBE_QUORUM, 2, q(topics=[q.TopicData(
            topic_name="__cluster_metadata", partitions=[q.PartitionData(partition_index=0)])]))
        assert resp.error_code == 0
        part = resp.topics[0].partitions[0]
        assert part.leader_id == c.controller
        assert [v.replica_id for v in part.current_voters] == [c.controller]
        assert sorted(o.replica_id for o in part.observers) == sorted(set(c.node_ids) - {c.controller})
        assert [n.node_id for n in resp.nodes] == [c.controller]
        # Anything but the metadata partition: UNKNOWN_TOPIC_OR_PARTITION at the top.
        assert conn.request(ApiKey.DESCRIBE_QUORUM, 2, q(topics=[])).error_code == 3
        for key in (ApiKey.ADD_RAFT_VOTER, ApiKey.REMOVE_RAFT_VOTER):
            resp = conn.request(key, 0, voter_id=2, cluster_id=None)
            assert resp.error_code == 35 and "kraft.version" in resp.error_message  # UNSUPPORTED_VERSION
            assert conn.request(key, 0, voter_id=2, cluster_id="other").error_code == 104  # INCONSISTENT_CLUSTER_ID
        assert conn.request(ApiKey.UNREGISTER_BROKER, 0, broker_id=2).error_code == 0
        assert conn.request(ApiKey.UNREGISTER_BROKER, 0, broker_id=99).error_code == 102  # BROKER_ID_NOT_REGISTERED
        c.set_resource_config(16, "cpu-metrics", "metrics", "org.apache.kafka.cpu")
        try:
            resp = conn.request(ApiKey.LIST_CONFIG_RESOURCES, 0)
            assert resp.error_code == 0
            assert [r.resource_name for r in resp.config_resources] == ["cpu-metrics"]
        finally:
            c.set_resource_config(16, "cpu-metrics", "metrics", None)


def test_alter_replica_log_dirs_with_kafka_python_read_back_by_kadmin() -> None:
    """AlterReplicaLogDirs (advertised by every preset) used by a real client; kadmin's DescribeLogDirs sees it."""
    from kafka.admin import KafkaAdminClient

    from kadmin.client import AdminClient
    from kadmin.testing import LogDir
    from kadmin.types import TopicPartition

    with FakeCluster(brokers=2, versions="3.0") as c:
        c.set_log_dirs(1, ["/data/a", "/data/b", LogDir("/data/dead", offline=True)])
        c.add_topic("moving", partitions=2, offsets=5, replication_factor=1)  # p0 on node 1, p1 on node 2
        c.place_replica("moving", 0, 1, "/data/a", future_dir="/data/b", future_behind=3)
        kp = KafkaAdminClient(bootstrap_servers=c.bootstrap)
        try:
            got = kp.alter_replica_log_dirs({("moving", 0, 1): "/data/b", ("moving", 1, 1): "/data/b"})
        finally:
            kp.close()
        errors = {(r.topic, r.partition, r.broker_id): e.__name__ for r, e in got.items()}
        assert errors == {("moving", 0, 1): "NoError", ("moving", 1, 1): "ReplicaNotAvailableError"}
        with AdminClient(c.bootstrap, default_timeout_s=10.0) as admin:
            dirs = admin.describe_log_dirs([1])[1]
        assert not isinstance(dirs, Exception)
        assert [r.partition for r in dirs["/data/b"].replicas] == [TopicPartition("moving", 0)]
        assert not dirs["/data/b"].replicas[0].is_future and dirs["/data/a"].replicas == ()
        host, port = c.addresses[1]
        with RawConnection(host, port) as conn:
            q: Any = fake_message_type(ApiKey.ALTER_REPLICA_LOG_DIRS, "request")

            def move(path: str) -> int:
                resp = conn.request(ApiKey.ALTER_REPLICA_LOG_DIRS, 2, q(dirs=[q.AlterReplicaLogDir(
                    path=path, topics=[q.AlterReplicaLogDirTopic(name="moving", partitions=[0])])]))
                code: int = resp.results[0].partitions[0].error_code
                return code

            assert move("/data/nowhere") == 57  # LOG_DIR_NOT_FOUND
            assert move("/data/dead") == 56  # KAFKA_STORAGE_ERROR
            assert move("/data/a") == 0
        assert c.partition("moving", 0).replicas == (1,)


def test_4x_presets_serve_produce_by_topic_id_and_the_pending_upload_spec(clusters: dict[str, FakeCluster]) -> None:
    """Produce v13 names topics by id (KIP-516, Kafka 4.1) and ListOffsets v11 adds EARLIEST_PENDING_UPLOAD
    (KIP-1023, 4.2): both advertised by the 4.x presets, so both served as Kafka serves them."""
    c = clusters["4.3"]
    c.add_topic("by-id", partitions=1, offsets=[(3, 7)], replication_factor=1)
    topic_id = c.topic_id("by-id")
    host, port = c.addresses[1]
    with RawConnection(host, port) as conn:
        p: Any = fake_message_type(ApiKey.PRODUCE, "request")
        batch = _one_record_batch()

        def produce(tid: Any) -> Any:
            return conn.request(ApiKey.PRODUCE, 13, p(acks=1, timeout_ms=5000, topic_data=[p.TopicProduceData(
                topic_id=tid, partition_data=[p.PartitionProduceData(index=0, records=batch)])]))

        resp = produce(topic_id)
        assert resp.responses[0].topic_id == topic_id
        assert (resp.responses[0].partition_responses[0].error_code,
                resp.responses[0].partition_responses[0].base_offset) == (0, 7)
        resp = produce(uuid.uuid4())
        assert resp.responses[0].partition_responses[0].error_code == 100  # UNKNOWN_TOPIC_ID
        lo: Any = fake_message_type(ApiKey.LIST_OFFSETS, "request")

        def listed(ts: int) -> tuple[int, int]:
            r = conn.request(ApiKey.LIST_OFFSETS, 11, lo(replica_id=-1, topics=[lo.ListOffsetsTopic(
                name="by-id", partitions=[lo.ListOffsetsPartition(partition_index=0, timestamp=ts)])]))
            part = r.topics[0].partitions[0]
            return part.error_code, part.offset

        assert listed(-2) == (0, 3) and listed(-1) == (0, 8)
        assert listed(-6) == (0, -1)  # no remote storage: nothing pending upload, as Kafka answers


def _one_record_batch() -> bytes:
    """A v2 record batch holding one record (what a producer sends), built by the fake's own record code."""
    from kadmin.testing.record_log import build_v2_batch

    return build_v2_batch(0, [(1_700_000_000_000, None, b"v")])
