"""Transactions and producers (issue #26) on the fake cluster, end to end through real clients.

A transaction opened by confluent-kafka in a child process that is then killed: the coordinator still holds
it, so list_transactions and describe_producers show it open and find_hanging_transactions does not call it
hanging; abort_transaction ends it on the partition and a read_committed confluent-kafka consumer reads past
it.  A transaction whose commit marker the fake loses for one partition (``lose_txn_markers``) is a real
hanging transaction: found, aborted, cleared.  kafka-python's transactional producer and read_committed
consumer, the coordinator's own timeout, bad input refused before I/O, lost answers "possibly applied", and
the per-key / per-broker refusals on presets that lack an API version.  Presets 2.8, 3.9, 4.0 and 4.3.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka import TopicPartition as CkTP

from kadmin import aio
from kadmin.errors import ErrorCode, KafkaError, KafkaTimeoutError, UnsupportedVersionError
from kadmin.protocol.apis import ApiKey
from kadmin.testing import FakeCluster
from kadmin.transactions import (
    AbortTransactionSpec,
    FencedProducer,
    HangingTransactionsResult,
    ProducerState,
    TransactionDescription,
)
from kadmin.types import TopicPartition
from kadmin.versions import release_table
from tests.support.aio import with_admin as run
from tests.support.settings import FAST
from tests.support.transactions import commit_losing_a_marker

pytestmark = pytest.mark.timeout(120)

PRESETS = ["2.8", "3.9", "4.0", "4.3"]
#: The child process: a confluent-kafka transactional producer that opens a transaction, writes, says READY
#: and waits to be killed.
CHILD = """
import sys, time
from confluent_kafka import Producer
bootstrap, tid, topic, partition, timeout_ms = sys.argv[1:6]
p = Producer({"bootstrap.servers": bootstrap, "transactional.id": tid, "transaction.timeout.ms": int(timeout_ms)})
p.init_transactions(20)
p.begin_transaction()
for i in range(3):
    p.produce(topic, value=b"open-%d" % i, partition=int(partition))
assert p.flush(20) == 0
print("READY", flush=True)
time.sleep(600)
"""


@pytest.fixture(params=PRESETS)
def cluster(request: pytest.FixtureRequest) -> Iterator[FakeCluster]:
    with FakeCluster(versions=request.param) as c:
        c.add_topic("t", partitions=3)
        yield c


def open_and_kill(cluster: FakeCluster, tid: str, partition: int = 0, timeout_ms: int = 600_000) -> None:
    """A confluent-kafka transactional producer in a child process opens a transaction on t-<partition>,
    writes three records, and is killed (SIGKILL: no abort, no EndTxn)."""
    child = subprocess.Popen([sys.executable, "-c", CHILD, cluster.bootstrap, tid, "t", str(partition),
                              str(timeout_ms)], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "READY"
    finally:
        child.kill()
        child.wait()


def read_committed(cluster: FakeCluster, partition: int, want: int, seconds: float = 8.0) -> tuple[list[bytes], int]:
    """(values, position) a read_committed confluent-kafka consumer gets from t-<partition>'s start."""
    c = Consumer({"bootstrap.servers": cluster.bootstrap, "group.id": f"rc-{time.monotonic_ns()}",
                  "isolation.level": "read_committed", "enable.auto.commit": False})
    c.assign([CkTP("t", partition, 0)])
    got: list[bytes] = []
    end = time.time() + seconds
    try:
        while time.time() < end and len(got) < want:
            m = c.poll(0.2)
            if m is not None and not m.error():
                got.append(m.value())
        # Let it go on to the end of what it may read.
        end = time.time() + 1.0
        while time.time() < end:
            m = c.poll(0.1)
            if m is not None and not m.error():
                got.append(m.value())
        return got, c.position([CkTP("t", partition)])[0].offset
    finally:
        c.close()


def plain_write(cluster: FakeCluster, partition: int, *values: bytes) -> None:
    p = Producer({"bootstrap.servers": cluster.bootstrap})
    for v in values:
        p.produce("t", value=v, partition=partition)
    assert p.flush(10) == 0


def test_killed_producer_is_open_not_hanging_then_aborted(cluster: FakeCluster) -> None:
    release = cluster.versions_of(1)
    plain_write(cluster, 0, b"before")
    open_and_kill(cluster, "dead-tx")
    plain_write(cluster, 0, b"after")  # written after the open transaction: read_committed must not see it yet
    assert cluster.last_stable_offset("t", 0) == 1
    got, _pos = read_committed(cluster, 0, want=2, seconds=3)
    assert got == [b"before"]

    async def inspect(admin: aio.AdminClient) -> tuple[Any, ...]:
        producers = await admin.describe_producers([("t", 0), TopicPartition("t", 1)])
        listed = await admin.list_transactions()
        described = await admin.describe_transactions(["dead-tx"])
        hanging = await admin.find_hanging_transactions(topics=["t"], max_transaction_timeout_ms=0)
        return producers, listed, described, hanging

    cluster.clear_log()
    producers, listed, described, hanging = run(cluster, inspect)
    # DescribeProducers: one request per leader of the partitions asked (t-0 and t-1 lead on two brokers).
    assert cluster.count(ApiKey.DESCRIBE_PRODUCERS) >= 2
    open_ones = [s for s in producers[("t", 0)] if s.in_transaction]
    assert len(open_ones) == 1 and open_ones[0].current_transaction_start_offset == 1
    assert producers[TopicPartition("t", 1)] == ()
    state = open_ones[0]
    if ApiKey.LIST_TRANSACTIONS in release:  # 3.0+
        assert [(t.transactional_id, t.state) for t in listed.transactions] == [("dead-tx", "Ongoing")]
        assert listed.errors == {}
        d = described["dead-tx"]
        assert isinstance(d, TransactionDescription)
        assert (d.state, d.producer_id, d.partitions) == ("Ongoing", state.producer_id, (TopicPartition("t", 0),))
        # Its coordinator still holds it: not hanging.
        assert hanging == HangingTransactionsResult((), {}, 3)
    else:  # 2.8 has DescribeProducers but neither ListTransactions nor DescribeTransactions
        assert listed.transactions == () and all(isinstance(e, UnsupportedVersionError)
                                                 for e in listed.errors.values())
        assert isinstance(described["dead-tx"], UnsupportedVersionError)
        # Undecidable without the coordinators: reported, never called hanging.
        assert hanging.hanging == () and isinstance(hanging.errors[TopicPartition("t", 0)], UnsupportedVersionError)

    spec = AbortTransactionSpec(TopicPartition("t", 0), state.producer_id, state.producer_epoch,
                                max(state.coordinator_epoch, 0))
    aborted = run(cluster, lambda admin: admin.abort_transaction(spec))
    assert aborted == {TopicPartition("t", 0): None}
    assert cluster.last_stable_offset("t", 0) == cluster.partition("t", 0).log_end
    got, pos = read_committed(cluster, 0, want=2)
    assert got == [b"before", b"after"]  # the aborted records are dropped, the later one is read
    assert pos == cluster.partition("t", 0).log_end
    after = run(cluster, lambda admin: admin.describe_producers([("t", 0)]))
    assert not any(s.in_transaction for s in after[("t", 0)])


def test_lost_marker_is_a_hanging_transaction_found_and_cleared(cluster: FakeCluster) -> None:
    release = cluster.versions_of(1)
    p = commit_losing_a_marker(cluster, "lossy", {0: b"c0", 1: b"c1"}, lost=1)
    assert cluster.last_stable_offset("t", 0) == cluster.partition("t", 0).log_end
    assert cluster.last_stable_offset("t", 1) == 0  # its marker never came
    assert read_committed(cluster, 1, want=1, seconds=2)[0] == []

    result = run(cluster, lambda admin: admin.find_hanging_transactions(partitions=[("t", 0), ("t", 1)],
                                                                         max_transaction_timeout_ms=0))
    if ApiKey.LIST_TRANSACTIONS not in release:
        assert result.hanging == ()
        assert set(result.errors) == {TopicPartition("t", 1)}
        producers = run(cluster, lambda admin: admin.describe_producers([("t", 1)]))
        s: ProducerState = producers[("t", 1)][0]
        spec = AbortTransactionSpec(TopicPartition("t", 1), s.producer_id, s.producer_epoch, 0)
    else:
        assert [h.partition for h in result.hanging] == [TopicPartition("t", 1)]
        h = result.hanging[0]
        assert (h.transactional_id, h.coordinator_state, h.start_offset) == ("lossy", "CompleteCommit", 0)
        spec = h.abort_spec()
    assert run(cluster, lambda admin: admin.abort_transaction(spec)) == {TopicPartition("t", 1): None}
    assert cluster.last_stable_offset("t", 1) == cluster.partition("t", 1).log_end
    if ApiKey.LIST_TRANSACTIONS in release:
        again = run(cluster, lambda admin: admin.find_hanging_transactions(topics=["t"], max_transaction_timeout_ms=0))
        assert again == HangingTransactionsResult((), {}, 3)
    # Past the abort, the partition reads on: a later committed record is read, the hanging one was aborted.
    p.begin_transaction()
    p.produce("t", value=b"later", partition=1)
    p.commit_transaction(10)
    assert read_committed(cluster, 1, want=1)[0] == [b"later"]
    assert read_committed(cluster, 0, want=1)[0] == [b"c0"]


def test_young_transactions_are_not_candidates(cluster: FakeCluster) -> None:
    commit_losing_a_marker(cluster, "young", {2: b"x"}, lost=2)
    cluster.clear_log()
    result = run(cluster, lambda admin: admin.find_hanging_transactions(broker_id=1))
    # Open for less than the default 15 minutes: not looked at further (no ListTransactions sent).
    on_broker_1 = [p for p in range(3) if 1 in cluster.partition("t", p).replicas]
    assert result == HangingTransactionsResult((), {}, len(on_broker_1))
    assert cluster.count(ApiKey.LIST_TRANSACTIONS) == 0


def test_abort_of_unknown_producer_fails_that_partition_with_the_brokers_error(cluster: FakeCluster) -> None:
    open_and_kill(cluster, "other", partition=0)
    specs = [AbortTransactionSpec(TopicPartition("t", 1), 987654, 0),
             AbortTransactionSpec(TopicPartition("nope", 0), 1, 0)]
    got = run(cluster, lambda admin: admin.abort_transaction(specs))
    assert type(got[TopicPartition("t", 1)]).__name__ == "UnknownProducerIdError"
    assert type(got[TopicPartition("nope", 0)]).__name__ == "UnknownTopicOrPartitionError"
    # An older epoch than the partition's producer: INVALID_PRODUCER_EPOCH for that key.  Fencing aborts the
    # open transaction with a bumped epoch, so the epoch read before it (the killed producer's) is now older.
    st = run(cluster, lambda admin: admin.describe_producers([("t", 0)]))[("t", 0)][0]
    fenced = run(cluster, lambda admin: admin.fence_producers(["other"]))["other"]
    assert isinstance(fenced, FencedProducer) and fenced.producer_epoch > st.producer_epoch
    now = run(cluster, lambda admin: admin.describe_producers([("t", 0)]))[("t", 0)][0]
    assert now.producer_id == st.producer_id and now.producer_epoch > st.producer_epoch
    stale = AbortTransactionSpec(TopicPartition("t", 0), st.producer_id, st.producer_epoch)
    assert type(run(cluster, lambda a: a.abort_transaction(stale))[
        TopicPartition("t", 0)]).__name__ == "InvalidProducerEpochError"


def test_lost_abort_answer_is_possibly_applied() -> None:
    with FakeCluster(versions="3.9") as c:
        c.add_topic("t", partitions=1)
        open_and_kill(c, "lost")
        st = run(c, lambda a: a.describe_producers([("t", 0)]))[("t", 0)][0]
        leader = c.partition("t", 0).leader
        c.drop_connection(leader, ApiKey.WRITE_TXN_MARKERS, when="after", count=50)
        spec = AbortTransactionSpec(TopicPartition("t", 0), st.producer_id, st.producer_epoch, 0)

        async def abort(admin: aio.AdminClient) -> Any:
            return await admin.abort_transaction(spec, timeout=1.5)
        got = run(c, abort)[TopicPartition("t", 0)]
        assert isinstance(got, KafkaTimeoutError) and got.possibly_applied
        assert c.last_stable_offset("t", 0) == c.partition("t", 0).log_end  # it was applied


def test_bad_input_refused_before_io() -> None:
    with FakeCluster(versions="3.9") as c:
        async def calls(admin: aio.AdminClient) -> None:
            c.clear_log()
            bad: list[Any] = [
                lambda: admin.describe_producers([]),
                lambda: admin.describe_producers("t"),
                lambda: admin.describe_producers([("t", -1)]),
                lambda: admin.list_transactions(states=["Nope"]),
                lambda: admin.list_transactions(producer_ids=[-1]),
                lambda: admin.list_transactions(duration_filter_ms=-5),
                lambda: admin.list_transactions(transactional_id_pattern="("),
                lambda: admin.describe_transactions([]),
                lambda: admin.describe_transactions([""]),
                lambda: admin.abort_transaction([]),
                lambda: admin.abort_transaction(AbortTransactionSpec(TopicPartition("t", 0), -1, 0)),
                lambda: admin.abort_transaction(AbortTransactionSpec(TopicPartition("t", 0), 1, 40000)),
                lambda: admin.fence_producers("abc"),
                lambda: admin.force_terminate_transaction(""),
                lambda: admin.find_hanging_transactions(),
                lambda: admin.find_hanging_transactions(topics=["t"], broker_id=1),
                lambda: admin.find_hanging_transactions(topics=["t"], max_transaction_timeout_ms=-1),
            ]
            for make in bad:
                with pytest.raises((TypeError, ValueError)):
                    await make()
            assert c.request_log == []
        asyncio.run(_no_bootstrap(c, calls))


async def _no_bootstrap(c: FakeCluster, fn: Any) -> None:
    admin = aio.AdminClient(c.bootstrap, **FAST)
    try:
        await fn(admin)
    finally:
        await admin.close()


@pytest.mark.parametrize("release", ["3.5", "3.9"])
def test_list_filters_a_broker_cannot_carry_fail_that_broker_only(release: str) -> None:
    # ListTransactions v0 on 3.5 (no duration filter), v1 on 3.9 (no pattern filter); a mixed cluster whose
    # node 3 is a 4.0 broker (v1 too): the refusal is per broker, the brokers that can are asked.
    table = dict(release_table("3.9"))
    table[ApiKey.LIST_TRANSACTIONS] = (0, 2)
    with FakeCluster(versions={1: release, 2: release, 3: table}) as c:
        c.add_topic("t", partitions=3)
        for tid in ("a-1", "a-2", "b-1"):
            p = Producer({"bootstrap.servers": c.bootstrap, "transactional.id": tid})
            p.init_transactions(10)
            p.begin_transaction()
            p.produce("t", value=b"v", partition=0)
            p.flush(10)
        time.sleep(0.01)
        c.clear_log()
        option: dict[str, Any] = ({"duration_filter_ms": 0} if release == "3.5"
                                  else {"transactional_id_pattern": "a-.*"})
        got = run(c, lambda admin: admin.list_transactions(**option))
        assert set(got.errors) == {1, 2}
        assert all(isinstance(e, UnsupportedVersionError) for e in got.errors.values())
        assert {e.node_id for e in c.request_log if e.api_key == ApiKey.LIST_TRANSACTIONS} == {3}
        expected = {t for t in ("a-1", "a-2", "b-1") if c.coordinator_of(t, 1) == 3}
        if release == "3.9":
            expected = {t for t in expected if t.startswith("a-")}
        assert {t.transactional_id for t in got.transactions} == expected
        everything = run(c, lambda admin: admin.list_transactions(states=["ongoing"]))
        assert {t.transactional_id for t in everything.transactions} == {"a-1", "a-2", "b-1"}
        assert everything.errors == {}


def test_force_terminate_needs_init_producer_id_v6() -> None:
    table = dict(release_table("4.0"))
    table[ApiKey.INIT_PRODUCER_ID] = (0, 6)
    with FakeCluster(versions={1: "4.0", 2: table, 3: table}) as c:
        c.add_topic("t", partitions=1)
        tids = {n: next(f"tx-{i}" for i in range(1000) if c.coordinator_of(f"tx-{i}", 1) == n) for n in (1, 2)}
        for tid in tids.values():
            open_and_kill(c, tid)
        c.clear_log()
        old = run(c, lambda admin: admin.force_terminate_transaction(tids[1]))
        assert isinstance(old, UnsupportedVersionError) and "v6" in str(old)
        assert c.count(ApiKey.INIT_PRODUCER_ID) == 0
        new = run(c, lambda admin: admin.force_terminate_transaction(tids[2]))
        assert isinstance(new, FencedProducer)
        assert [e.version for e in c.request_log if e.api_key == ApiKey.INIT_PRODUCER_ID] == [6]
        snap = c.transaction(tids[2])
        assert snap is not None and snap.state == "Empty" and snap.epoch == new.producer_epoch
        # Its open transaction was aborted by the coordinator: the partition's LSO moved past it as far as
        # tids[1]'s (still open) transaction allows.
        assert c.transaction(tids[1]).state == "Ongoing"  # type: ignore[union-attr]


def test_fence_producers_fences_a_live_producer(cluster: FakeCluster) -> None:
    p = Producer({"bootstrap.servers": cluster.bootstrap, "transactional.id": "live"})
    p.init_transactions(10)
    p.begin_transaction()
    p.produce("t", value=b"doomed", partition=0)
    p.flush(10)
    got = run(cluster, lambda admin: admin.fence_producers(["live", "never-seen"]))
    assert isinstance(got["live"], FencedProducer)
    assert isinstance(got["never-seen"], FencedProducer) and got["never-seen"].producer_epoch == 0
    with pytest.raises(Exception) as info:
        p.commit_transaction(10)
    assert "fenced" in str(info.value).lower() or "epoch" in str(info.value).lower()
    assert cluster.last_stable_offset("t", 0) == cluster.partition("t", 0).log_end
    assert read_committed(cluster, 0, want=1, seconds=2)[0] == []


def test_coordinator_aborts_an_expired_transaction_itself() -> None:
    with FakeCluster(versions="3.9") as c:
        c.add_topic("t", partitions=1)
        open_and_kill(c, "short", timeout_ms=1000)
        assert c.last_stable_offset("t", 0) == 0
        time.sleep(1.3)
        assert c.last_stable_offset("t", 0) == c.partition("t", 0).log_end
        snap = c.transaction("short")
        assert snap is not None and snap.state == "CompleteAbort" and snap.epoch == 1
        d = run(c, lambda admin: admin.describe_transactions(["short"]))["short"]
        assert isinstance(d, TransactionDescription) and d.state == "CompleteAbort"


def test_kafka_python_transactions_and_read_committed(cluster: FakeCluster) -> None:
    from kafka import KafkaConsumer, KafkaProducer
    from kafka import TopicPartition as KpTP

    p = KafkaProducer(bootstrap_servers=cluster.bootstrap, transactional_id="kp-tx")
    p.init_transactions()
    p.begin_transaction()
    p.send("t", value=b"kp-committed", partition=2)
    p.commit_transaction()
    p.begin_transaction()
    p.send("t", value=b"kp-aborted", partition=2)
    p.flush()  # written, then aborted (kafka-python drops a record not yet sent when it aborts)
    p.abort_transaction()
    p.begin_transaction()
    p.send("t", value=b"kp-open", partition=2)
    p.flush()
    assert cluster.last_stable_offset("t", 2) == 4  # committed (0), marker (1), aborted (2), marker (3)

    def consume() -> list[bytes]:
        c = KafkaConsumer(bootstrap_servers=cluster.bootstrap, isolation_level="read_committed",
                          enable_auto_commit=False, consumer_timeout_ms=1500)
        c.assign([KpTP("t", 2)])
        c.seek_to_beginning()
        try:
            return [m.value for m in c]
        finally:
            c.close()

    assert consume() == [b"kp-committed"]
    got = run(cluster, lambda admin: admin.describe_producers([("t", 2)]))[("t", 2)]
    assert [s.current_transaction_start_offset for s in got] == [4]
    if ApiKey.LIST_TRANSACTIONS in cluster.versions_of(1):
        listed = run(cluster, lambda admin: admin.list_transactions(producer_ids=[got[0].producer_id]))
        assert [(t.transactional_id, t.state) for t in listed.transactions] == [("kp-tx", "Ongoing")]
    p.commit_transaction()
    p.close()
    assert consume() == [b"kp-committed", b"kp-open"]
    # kafka-python's own admin reads the same producer state back.
    from kafka.admin import KafkaAdminClient
    kp_admin = KafkaAdminClient(bootstrap_servers=cluster.bootstrap)
    try:
        raw = kp_admin.describe_producers([KpTP("t", 2)])[KpTP("t", 2)].active_producers
        mine = run(cluster, lambda admin: admin.describe_producers([("t", 2)]))[("t", 2)]
        assert [(s.producer_id, s.producer_epoch, s.current_transaction_start_offset) for s in raw] == \
            [(s.producer_id, s.producer_epoch, s.current_transaction_start_offset) for s in mine]
        assert mine[0].current_transaction_start_offset == -1  # committed: no transaction open any more
    finally:
        kp_admin.close()


def test_send_offsets_to_transaction_commits_with_the_transaction() -> None:
    with FakeCluster(versions="3.9") as c:
        c.add_topic("t", partitions=1)
        p = Producer({"bootstrap.servers": c.bootstrap, "transactional.id": "eos"})
        p.init_transactions(10)
        cons = Consumer({"bootstrap.servers": c.bootstrap, "group.id": "eos-group", "enable.auto.commit": False})
        try:
            p.begin_transaction()
            p.produce("t", value=b"out", partition=0)
            p.send_offsets_to_transaction([CkTP("t", 0, 7)], cons.consumer_group_metadata(), 10)
            assert "eos-group" not in c.groups or c.groups["eos-group"].offsets == {}
            p.commit_transaction(10)
            assert c.groups["eos-group"].offsets[("t", 0)].offset == 7
            p.begin_transaction()
            p.send_offsets_to_transaction([CkTP("t", 0, 9)], cons.consumer_group_metadata(), 10)
            p.abort_transaction(10)
            assert c.groups["eos-group"].offsets[("t", 0)].offset == 7
        finally:
            cons.close()


def test_unknown_partition_and_topic_per_key(cluster: FakeCluster) -> None:
    got = run(cluster, lambda admin: admin.describe_producers([("t", 0), ("t", 99), ("missing", 0)]))
    assert got[("t", 0)] == ()
    assert isinstance(got[("t", 99)], KafkaError)
    assert type(got[("missing", 0)]).__name__ == "UnknownTopicOrPartitionError"


def test_request_counts_one_per_leader_broker_and_coordinator() -> None:
    with FakeCluster(versions="3.9") as c:
        c.add_topic("t", partitions=12)
        tids = [f"count-{i}" for i in range(9)]
        for i, tid in enumerate(tids):
            p = Producer({"bootstrap.servers": c.bootstrap, "transactional.id": tid})
            p.init_transactions(10)
            p.begin_transaction()
            p.produce("t", value=b"v", partition=i)
            assert p.flush(10) == 0

        async def calls(admin: aio.AdminClient) -> tuple[Any, ...]:
            await admin.describe_cluster()
            c.clear_log()
            producers = await admin.describe_producers([("t", i) for i in range(12)])
            counts = [c.count(ApiKey.DESCRIBE_PRODUCERS)]
            c.clear_log()
            listed = await admin.list_transactions()
            counts.append(c.count(ApiKey.LIST_TRANSACTIONS))
            c.clear_log()
            described = await admin.describe_transactions(tids)
            counts += [c.count(ApiKey.FIND_COORDINATOR), c.count(ApiKey.DESCRIBE_TRANSACTIONS)]
            return producers, listed, described, counts

        producers, listed, described, counts = run(c, calls)
        leaders = {c.partition("t", i).leader for i in range(12)}
        coordinators = {c.coordinator_of(t, 1) for t in tids}
        assert counts == [len(leaders), 3, 1, len(coordinators)]
        assert sum(1 for v in producers.values() if any(s.in_transaction for s in v)) == 9
        assert sorted(t.transactional_id for t in listed.transactions) == sorted(tids)
        assert all(isinstance(d, TransactionDescription) and d.state == "Ongoing" for d in described.values())


def test_read_committed_latest_offset_is_the_last_stable_offset() -> None:
    with FakeCluster(versions="3.9") as c:
        c.add_topic("t", partitions=1)
        plain_write(c, 0, b"a", b"b")
        open_and_kill(c, "lso")

        async def offsets(admin: aio.AdminClient) -> tuple[Any, Any]:
            from kadmin.admin.partitions import OffsetSpec
            spec = {("t", 0): OffsetSpec.latest()}
            return (await admin.list_offsets(spec, isolation_level="read_committed"),
                    await admin.list_offsets(spec))
        committed, uncommitted = run(c, offsets)
        assert committed[("t", 0)].offset == 2
        assert uncommitted[("t", 0)].offset == 5


def test_moved_coordinator_and_leader_are_asked_again() -> None:
    with FakeCluster(versions="3.9") as c:
        c.add_topic("t", partitions=1)
        open_and_kill(c, "moving")
        coordinator = c.coordinator_of("moving", 1)
        leader = c.partition("t", 0).leader
        c.inject(coordinator, ApiKey.DESCRIBE_TRANSACTIONS, ErrorCode.NOT_COORDINATOR)  # once
        c.inject(leader, ApiKey.DESCRIBE_PRODUCERS, ErrorCode.NOT_LEADER_OR_FOLLOWER)
        c.inject(coordinator, ApiKey.INIT_PRODUCER_ID, ErrorCode.CONCURRENT_TRANSACTIONS)

        async def calls(admin: aio.AdminClient) -> tuple[Any, Any, Any]:
            return (await admin.describe_transactions(["moving"]), await admin.describe_producers([("t", 0)]),
                    await admin.fence_producers(["moving"]))
        described, producers, fenced = run(c, calls)
        assert isinstance(described["moving"], TransactionDescription)
        assert [s.in_transaction for s in producers[("t", 0)]] == [True]
        assert isinstance(fenced["moving"], FencedProducer)
        assert c.count(ApiKey.DESCRIBE_TRANSACTIONS) == 2 and c.count(ApiKey.DESCRIBE_PRODUCERS) == 2
        assert c.count(ApiKey.FIND_COORDINATOR) >= 2  # looked up again after NOT_COORDINATOR
