"""alter_replica_log_dirs / describe_replica_log_dirs (KIP-113) on the fake, read back and cross-checked with
kafka-python.

Why: moving replicas between disks is addressed per replica (topic, partition, broker); each broker's answer is
per partition, a wrong directory or a broker without the replica must fail that replica alone, a lost answer
must say "possibly applied", and the move must be visible to an independent client.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, TypeVar

import pytest
from kafka import KafkaAdminClient
from kafka import TopicPartitionReplica as KpReplica

from kadmin.aio import AdminClient
from kadmin.errors import (
    BrokerNotAvailableError,
    KafkaStorageError,
    KafkaTimeoutError,
    LogDirNotFoundError,
    ReplicaNotAvailableError,
)
from kadmin.protocol.apis import ApiKey
from kadmin.replicas import ReplicaLogDirInfo, TopicPartitionReplica
from kadmin.testing import FakeCluster, LogDir

T = TypeVar("T")
R = TopicPartitionReplica


def run(cluster: FakeCluster, body: Callable[[AdminClient], Awaitable[T]], *, started: bool = True) -> T:
    async def go() -> T:
        admin = AdminClient(cluster.bootstrap)
        try:
            if started:
                await admin.start()
            return await body(admin)
        finally:
            await admin.close()
    return asyncio.run(go())


@pytest.fixture(params=["2.8", "3.9", "4.0"])
def fake(request: pytest.FixtureRequest) -> Iterator[FakeCluster]:
    with FakeCluster(2, versions=request.param) as c:
        c.set_log_dirs(1, ["/data/a", "/data/b", LogDir("/data/dead", offline=True)])
        c.set_log_dirs(2, ["/data/a", "/data/c"])
        c.add_topic("moving", partitions=2, offsets=5, replication_factor=1)  # p0 on node 1, p1 on node 2
        yield c


def kp_dirs(cluster: FakeCluster, broker: int) -> dict[str, list[tuple[str, int, bool]]]:
    """kafka-python's describe_log_dirs of one broker: {dir: [(topic, partition, is_future)]}."""
    kp = KafkaAdminClient(bootstrap_servers=cluster.bootstrap, request_timeout_ms=10_000)
    try:
        got = kp.describe_log_dirs(brokers=[broker])
    finally:
        kp.close()
    # kafka-python answers [{"broker": id, "log_dirs": [{"log_dir", "topics": [{"name", "partitions": [...]}]}]}]
    return {d["log_dir"]: [(t["name"], p["partition_index"], p["is_future_key"])
                           for t in d["topics"] for p in t["partitions"]]
            for b in got if b["broker"] == broker for d in b["log_dirs"]}


def test_move_each_replica_to_its_broker_and_read_back(fake: FakeCluster) -> None:
    got = run(fake, lambda a: a.alter_replica_log_dirs({R("moving", 0, 1): "/data/b", ("moving", 1, 2): "/data/c"}))
    assert got == {R("moving", 0, 1): None, ("moving", 1, 2): None}
    # one request per broker
    assert sorted(e.node_id for e in fake.request_log if e.api_key == ApiKey.ALTER_REPLICA_LOG_DIRS) == [1, 2]
    where = run(fake, lambda a: a.describe_replica_log_dirs([R("moving", 0, 1), ("moving", 1, 2)]))
    moved = where[R("moving", 0, 1)]
    assert moved == ReplicaLogDirInfo("/data/b", 0, moved.size_bytes)  # type: ignore[union-attr]
    assert (isinstance(where[("moving", 1, 2)], ReplicaLogDirInfo)
            and where[("moving", 1, 2)].current_dir == "/data/c")  # type: ignore[union-attr]
    assert ("moving", 0, False) in kp_dirs(fake, 1)["/data/b"]
    assert ("moving", 1, False) in kp_dirs(fake, 2)["/data/c"]


def test_each_replica_fails_alone(fake: FakeCluster) -> None:
    got = run(fake, lambda a: a.alter_replica_log_dirs({
        R("moving", 0, 1): "/data/nowhere",     # no such directory on broker 1
        R("moving", 1, 1): "/data/b",           # broker 1 holds no replica of partition 1
        R("moving", 0, 2): "/data/dead",        # broker 2 has no such directory either
        R("moving", 1, 2): "/data/c",           # fine
        R("moving", 0, 7): "/data/a",           # no broker 7: never sent
    }))
    assert isinstance(got[R("moving", 0, 1)], LogDirNotFoundError)
    assert isinstance(got[R("moving", 1, 1)], ReplicaNotAvailableError)
    assert isinstance(got[R("moving", 0, 2)], LogDirNotFoundError)
    assert got[R("moving", 1, 2)] is None
    assert isinstance(got[R("moving", 0, 7)], BrokerNotAvailableError)
    assert fake.count(ApiKey.ALTER_REPLICA_LOG_DIRS) == 2


def test_offline_directory_is_a_storage_error(fake: FakeCluster) -> None:
    got = run(fake, lambda a: a.alter_replica_log_dirs({R("moving", 0, 1): "/data/dead"}))
    assert isinstance(got[R("moving", 0, 1)], KafkaStorageError)


def test_a_move_under_way_shows_its_future_log(fake: FakeCluster) -> None:
    fake.place_replica("moving", 0, 1, "/data/a", future_dir="/data/b", future_behind=3)
    where = run(fake, lambda a: a.describe_replica_log_dirs([R("moving", 0, 1)]))[R("moving", 0, 1)]
    assert isinstance(where, ReplicaLogDirInfo)
    assert (where.current_dir, where.future_dir, where.future_lag) == ("/data/a", "/data/b", 3)
    assert ("moving", 0, True) in kp_dirs(fake, 1)["/data/b"]
    # moving it back to where it is cancels the move
    assert run(fake, lambda a: a.alter_replica_log_dirs({R("moving", 0, 1): "/data/a"})) == {R("moving", 0, 1): None}
    where = run(fake, lambda a: a.describe_replica_log_dirs([R("moving", 0, 1)]))[R("moving", 0, 1)]
    assert isinstance(where, ReplicaLogDirInfo) and where.future_dir is None and where.current_dir == "/data/a"


def test_describe_missing_replicas_and_brokers(fake: FakeCluster) -> None:
    got = run(fake, lambda a: a.describe_replica_log_dirs([R("moving", 1, 1), R("moving", 0, 9), R("nope", 0, 2)]))
    assert isinstance(got[R("moving", 1, 1)], KafkaStorageError)  # broker 1 has an offline dir: may be there
    assert isinstance(got[R("moving", 0, 9)], BrokerNotAvailableError)
    assert isinstance(got[R("nope", 0, 2)], ReplicaNotAvailableError)


def test_kafka_python_moves_kadmin_describes(fake: FakeCluster) -> None:
    kp = KafkaAdminClient(bootstrap_servers=fake.bootstrap, request_timeout_ms=10_000)
    try:
        kp.alter_replica_log_dirs({KpReplica("moving", 0, 1): "/data/b"})
    finally:
        kp.close()
    where = run(fake, lambda a: a.describe_replica_log_dirs([("moving", 0, 1)]))[("moving", 0, 1)]
    assert isinstance(where, ReplicaLogDirInfo) and where.current_dir == "/data/b"


def test_lost_answer_is_possibly_applied(fake: FakeCluster) -> None:
    fake.drop_connection(1, "AlterReplicaLogDirs", when="after", count=10)
    got = run(fake, lambda a: a.alter_replica_log_dirs({R("moving", 0, 1): "/data/b", R("moving", 1, 2): "/data/c"},
                                                       timeout=3))
    err = got[R("moving", 0, 1)]
    assert isinstance(err, KafkaTimeoutError) and err.possibly_applied
    assert got[R("moving", 1, 2)] is None  # the other broker answered
    where = run(fake, lambda a: a.describe_replica_log_dirs([R("moving", 0, 1)]))[R("moving", 0, 1)]
    assert isinstance(where, ReplicaLogDirInfo) and where.current_dir == "/data/b"  # it was in fact applied


@pytest.mark.parametrize("bad", [
    {},
    {("moving", 0): "/data/b"},
    {("moving", 0, -1): "/data/b"},
    {("", 0, 1): "/data/b"},
    {("moving", 0, 1): "relative/dir"},
    {("moving", 0, 1): 7},
    [(("moving", 0, 1), "/data/b")],
])
def test_bad_moves_are_refused_before_any_io(fake: FakeCluster, bad: Any) -> None:
    fake.clear_log()
    with pytest.raises((TypeError, ValueError)):
        run(fake, lambda a: a.alter_replica_log_dirs(bad), started=False)
    assert fake.request_log == []


@pytest.mark.parametrize("bad", [[], "moving", [("moving", 0)], [("moving", 0, True)]])
def test_bad_describes_are_refused_before_any_io(fake: FakeCluster, bad: Any) -> None:
    fake.clear_log()
    with pytest.raises((TypeError, ValueError)):
        run(fake, lambda a: a.describe_replica_log_dirs(bad), started=False)
    assert fake.request_log == []
