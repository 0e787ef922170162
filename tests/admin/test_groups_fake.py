"""Consumer-group operations end to end against FakeCluster: what went over the wire, to which node, when.

Every assertion about batching, splitting, retries and concurrency is read from the cluster's request log
(what the brokers received), never from kadmin's own bookkeeping, so a regression in the driver shows up as
traffic that is wrong, not merely as a different internal counter.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from kadmin.aio import AdminClient
from kadmin.client import AdminClient as SyncAdminClient
from kadmin.errors import (
    GroupIdNotFoundError,
    KafkaError,
    KafkaTimeoutError,
    NonEmptyGroupError,
    UnsupportedVersionError,
    error_class_for_code,
)
from kadmin.testing import FakeCluster, Member
from kadmin.testing.handlers import base as fake_base
from kadmin.testing.requestlog import RequestLogEntry
from kadmin.types import Coordinator, GroupDescription, OffsetAndMetadata, PartitionLag, TopicPartition
from tests.support.aio import run

pytestmark = [pytest.mark.timeout(60), pytest.mark.fake_cluster(brokers=3, versions="3.9")]

FIND, DESCRIBE, LIST, DELETE, FETCH = 10, 15, 16, 42, 9
COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR = 14, 15, 16
CLUSTER_AUTHORIZATION_FAILED = 31
BACKOFF = 0.05
#: Fast, but with real backoff so retry spacing can be measured.
FAST: dict[str, Any] = {"retry_backoff_s": BACKOFF, "retry_backoff_max_s": 0.2, "default_timeout_s": 15.0}


def client(cluster: FakeCluster, **settings: Any) -> AdminClient:
    return AdminClient(cluster.bootstrap, **(FAST | settings))


def entries(cluster: FakeCluster, api_key: int, node: int | None = None) -> list[RequestLogEntry]:
    return [e for e in cluster.request_log if e.api_key == api_key and (node is None or e.node_id == node)]


def looked_up_keys(cluster: FakeCluster) -> list[str]:
    return [k for e in entries(cluster, FIND) for k in e.keys]


def by_coordinator(cluster: FakeCluster, groups: list[str]) -> dict[int, set[str]]:
    out: dict[int, set[str]] = {}
    for g in groups:
        node = cluster.coordinator_of(g)
        assert node is not None
        out.setdefault(node, set()).add(g)
    return out


def force_lookup_node(admin: AdminClient, *nodes: int) -> list[int]:
    """Make the any-node lookups go to ``nodes`` in turn (the last one repeats); returns the calls made."""
    calls: list[int] = []

    def pick() -> int:
        node = nodes[min(len(calls), len(nodes) - 1)]
        calls.append(node)
        return node

    admin.net.least_loaded_node = pick  # type: ignore[method-assign]
    return calls


def gaps(stamps: list[float]) -> list[float]:
    return [b - a for a, b in zip(stamps, stamps[1:], strict=False)]


def groups_on_every_node(cluster: FakeCluster, n: int, prefix: str = "g") -> list[str]:
    ids = [f"{prefix}{i}" for i in range(n)]
    for g in ids:
        cluster.add_group(g)
    assert len(by_coordinator(cluster, ids)) == len(cluster.node_ids), "test data must span every broker"
    return ids


# --- FindCoordinator: batched or split, per node and per attempt ------------------------------------------


MIXED = {1: "2.8", 2: "3.9", 3: "3.9"}


def test_lookup_on_old_node_splits_and_on_new_node_batches() -> None:
    keys = [f"k{i}" for i in range(12)]
    with FakeCluster(brokers=3, versions=MIXED) as cluster:

        async def lookup(node: int) -> dict[str, Coordinator | KafkaError]:
            async with client(cluster) as admin:
                force_lookup_node(admin, node)
                got = await admin.find_coordinators(keys)
                conn = admin.net.connection(node)
                assert conn is not None
                if node == 1:
                    # Split requests were pipelined on one connection, not sent one after the other.
                    assert conn.max_in_flight_seen >= len(keys)
                return got

        old = run(lookup(1))
        on_old = entries(cluster, FIND)
        assert [(e.node_id, e.version) for e in on_old] == [(1, 3)] * len(keys)
        assert sorted(k for e in on_old for k in e.keys) == sorted(keys)
        assert all(len(e.keys) == 1 for e in on_old)

        cluster.clear_log()
        new = run(lookup(2))
        on_new = entries(cluster, FIND)
        assert [(e.node_id, e.version) for e in on_new] == [(2, 6)]
        assert sorted(on_new[0].keys) == sorted(keys)

        for k in keys:
            assert isinstance(old[k], Coordinator) and old[k] == new[k]
            assert old[k].node_id == cluster.coordinator_of(k)  # type: ignore[union-attr]


def test_batching_is_decided_again_on_each_attempt() -> None:
    keys = [f"k{i}" for i in range(6)]
    with FakeCluster(brokers=3, versions=MIXED) as cluster:
        # The old node cannot find coordinators yet; the retry goes to a new node, which batches.
        cluster.inject(1, "FindCoordinator", COORDINATOR_NOT_AVAILABLE, count=len(keys))

        async def body() -> tuple[dict[str, Coordinator | KafkaError], list[int]]:
            async with client(cluster) as admin:
                calls = force_lookup_node(admin, 1, 2)
                return await admin.find_coordinators(keys), calls

        got, calls = run(body())
        log = entries(cluster, FIND)
    assert calls == [1, 2]
    assert [(e.node_id, e.version, len(e.keys)) for e in log] == [(1, 3, 1)] * len(keys) + [(2, 6, len(keys))]
    assert sorted(log[-1].keys) == sorted(keys)
    assert all(isinstance(got[k], Coordinator) for k in keys)


def test_node_upgraded_between_calls_is_renegotiated_on_reconnect() -> None:
    keys = ["a", "b", "c"]
    with FakeCluster(brokers=1, versions="2.8") as cluster:

        async def body() -> None:
            async with client(cluster) as admin:
                await admin.find_coordinators(keys)
                cluster.set_versions(1, "3.9")
                cluster.drop_connection(1, "FindCoordinator", when="before")
                # The old connection still speaks the old table: the first attempt splits, is dropped, and
                # the retry on a fresh connection (negotiated again) batches.
                got = await admin.find_coordinators(keys)
                assert all(isinstance(v, Coordinator) for v in got.values())

        run(body())
        versions = [(e.version, len(e.keys)) for e in entries(cluster, FIND)]
    assert versions[:3] == [(3, 1)] * 3
    assert versions[-1] == (6, 3)


# --- describe / delete: one request per coordinator, concurrently --------------------------------------


def test_describe_sends_one_request_per_coordinator_concurrently() -> None:
    latency = 0.3
    with FakeCluster(brokers=3, versions="3.9", latency_s=latency) as cluster:
        ids = groups_on_every_node(cluster, 30)
        cluster.add_group("busy", members=[Member("m1", client_id="c1")])
        ids.append("busy")

        async def body() -> tuple[dict[str, GroupDescription | KafkaError], float]:
            async with client(cluster) as admin:
                await admin.api_versions()  # connections to every node, so only the call itself is timed
                await admin.find_coordinators(ids)  # and a warm coordinator cache
                cluster.clear_log()
                t0 = time.monotonic()
                res = await admin.describe_consumer_groups(ids)
                return res, time.monotonic() - t0

        res, elapsed = run(body())
        log = entries(cluster, DESCRIBE)
        expect = by_coordinator(cluster, ids)
        where = {g: cluster.coordinator_of(g) for g in ids}
    assert {e.node_id: set(e.keys) for e in log} == expect
    assert len(log) == 3 and not entries(cluster, FIND)
    # One round trip, not three: sequential requests would take 3 x latency.
    assert elapsed < 2 * latency, elapsed
    assert max(e.timestamp for e in log) - min(e.timestamp for e in log) < latency / 2
    for g in ids:
        d = res[g]
        assert isinstance(d, GroupDescription) and d.coordinator == where[g]
    assert res["busy"].state == "Stable" and res["g0"].state == "Empty"  # type: ignore[union-attr]
    assert [m.client_id for m in res["busy"].members] == ["c1"]  # type: ignore[union-attr]


def test_delete_sends_one_request_per_coordinator_concurrently() -> None:
    latency = 0.3
    with FakeCluster(brokers=3, versions="3.9", latency_s=latency) as cluster:
        ids = groups_on_every_node(cluster, 30)

        async def body() -> tuple[dict[str, None | KafkaError], float]:
            async with client(cluster) as admin:
                await admin.api_versions()
                await admin.find_coordinators(ids)
                cluster.clear_log()
                t0 = time.monotonic()
                res = await admin.delete_consumer_groups(ids)
                return res, time.monotonic() - t0

        res, elapsed = run(body())
        log = entries(cluster, DELETE)
        expect = by_coordinator(cluster, ids)
        left = set(cluster.groups)
    assert res == {g: None for g in ids} and not left
    assert {e.node_id: set(e.keys) for e in log} == expect and len(log) == 3
    assert elapsed < 2 * latency, elapsed
    assert max(e.timestamp for e in log) - min(e.timestamp for e in log) < latency / 2


def test_cold_describe_is_one_batched_lookup_then_one_describe_per_coordinator(cluster: FakeCluster) -> None:
    ids = groups_on_every_node(cluster, 40)

    async def body() -> dict[str, GroupDescription | KafkaError]:
        async with client(cluster) as admin:
            return await admin.describe_consumer_groups(ids)

    res = run(body())
    finds = entries(cluster, FIND)
    assert len(finds) == 1 and sorted(finds[0].keys) == sorted(ids) and finds[0].version == 6
    assert {e.node_id: set(e.keys) for e in entries(cluster, DESCRIBE)} == by_coordinator(cluster, ids)
    assert len(entries(cluster, DESCRIBE)) == 3
    assert all(isinstance(res[g], GroupDescription) for g in ids)


def test_delete_sends_one_request_per_coordinator_and_reports_each_group(cluster: FakeCluster) -> None:
    ids = groups_on_every_node(cluster, 12)
    cluster.add_group("busy", members=[Member("m1")])
    cluster.commit("g0", "t", 0, 5)

    async def body() -> dict[str, None | KafkaError]:
        async with client(cluster) as admin:
            return await admin.delete_consumer_groups([*ids, "busy", "missing"])

    res = run(body())
    assert all(res[g] is None for g in ids)
    assert isinstance(res["busy"], NonEmptyGroupError)
    assert isinstance(res["missing"], GroupIdNotFoundError)
    assert set(cluster.groups) == {"busy"}  # deleted for real, offsets included; the busy one stays
    log = entries(cluster, DELETE)
    expect = by_coordinator(cluster, [*ids, "busy", "missing"])
    assert {e.node_id: set(e.keys) for e in log} == expect and len(log) == len(expect)


def test_authorized_operations_per_coordinator_version() -> None:
    with FakeCluster(brokers=2, versions={1: "2.2", 2: "3.9"}) as cluster:
        ids = groups_on_every_node(cluster, 6)

        async def body() -> Any:
            async with client(cluster) as admin:
                return (await admin.describe_consumer_groups(ids, include_authorized_operations=True),
                        await admin.describe_consumer_groups(ids))

        asked, plain = run(body())
        where = {g: cluster.coordinator_of(g) for g in ids}
        versions = {e.node_id: e.version for e in entries(cluster, DESCRIBE)}
    assert versions == {1: 2, 2: 5}
    for g in ids:
        # DescribeGroups v2 (Kafka 2.2) cannot carry them: None, not an error; v3+ answers what was asked.
        want = None if where[g] == 1 else frozenset({"READ", "DELETE", "DESCRIBE"})
        assert asked[g].authorized_operations == want, g
        assert plain[g].authorized_operations is None


@pytest.mark.parametrize("release", ["2.8", "3.9"])
def test_unknown_group_is_group_id_not_found(release: str) -> None:
    with FakeCluster(brokers=2, versions=release) as cluster:
        cluster.add_group("known")

        async def body() -> dict[str, GroupDescription | KafkaError]:
            async with client(cluster) as admin:
                return await admin.describe_consumer_groups(["known", "unknown"])

        res = run(body())
        # DescribeGroups v5 says "Dead" without an error for a group it does not know.
        assert {e.version for e in entries(cluster, DESCRIBE)} == {5}
    assert isinstance(res["unknown"], GroupIdNotFoundError) and "unknown" in str(res["unknown"])
    assert isinstance(res["known"], GroupDescription) and res["known"].state == "Empty"


# --- coordinators that move, load, are not there yet ----------------------------------------------------


def test_coordinator_moving_mid_call_relooks_up_only_the_moved_group(cluster: FakeCluster) -> None:
    ids = groups_on_every_node(cluster, 9)
    moved = ids[0]
    old = cluster.coordinator_of(moved)
    new = next(n for n in cluster.node_ids if n != old)
    # Hold the old coordinator's answer and move the group while the request is in flight.
    cluster.delay(old, "DescribeGroups", 0.4)

    async def body() -> dict[str, GroupDescription | KafkaError]:
        async with client(cluster) as admin:
            asyncio.get_running_loop().call_later(0.1, cluster.move_coordinator, moved, new)
            return await admin.describe_consumer_groups(ids)

    res = run(body())
    finds = entries(cluster, FIND)
    assert len(finds) == 2
    assert sorted(finds[0].keys) == sorted(ids) and finds[1].keys == (moved,)
    describes = entries(cluster, DESCRIBE)
    assert [e.keys for e in describes if e.node_id == new][-1] == (moved,)
    assert sum(1 for e in describes for k in e.keys if k == moved) == 2
    assert all(sum(1 for e in describes for k in e.keys if k == g) == 1 for g in ids[1:])
    assert isinstance(res[moved], GroupDescription) and res[moved].coordinator == new
    assert all(isinstance(res[g], GroupDescription) for g in ids)


def test_stale_cached_coordinator_is_relooked_up_on_not_coordinator(cluster: FakeCluster) -> None:
    ids = groups_on_every_node(cluster, 6)

    async def body() -> dict[str, GroupDescription | KafkaError]:
        async with client(cluster) as admin:
            await admin.describe_consumer_groups(ids)
            for g in ids[:2]:
                old = cluster.coordinator_of(g)
                cluster.move_coordinator(g, next(n for n in cluster.node_ids if n != old))
            cluster.clear_log()
            return await admin.describe_consumer_groups(ids)

    res = run(body())
    assert looked_up_keys(cluster) == sorted(ids[:2]) or sorted(looked_up_keys(cluster)) == sorted(ids[:2])
    for g in ids:
        assert isinstance(res[g], GroupDescription) and res[g].coordinator == cluster.coordinator_of(g)


def test_load_in_progress_retries_on_the_same_coordinator_with_backoff(cluster: FakeCluster) -> None:
    cluster.add_group("loading")
    node = cluster.coordinator_of("loading")
    cluster.coordinator_loading("loading", count=3)

    async def body() -> dict[str, GroupDescription | KafkaError]:
        async with client(cluster) as admin:
            return await admin.describe_consumer_groups(["loading"])

    res = run(body())
    assert isinstance(res["loading"], GroupDescription)
    assert len(entries(cluster, FIND)) == 1  # loading is not a reason to look the coordinator up again
    describes = entries(cluster, DESCRIBE)
    assert [e.node_id for e in describes] == [node] * 4
    # Exponential backoff, with Kafka's 20% jitter: at least 0.8 x 0.05, 0.1, 0.2 s apart.
    for i, gap in enumerate(gaps([e.timestamp for e in describes])):
        assert gap >= 0.8 * min(BACKOFF * 2**i, 0.2) - 0.005, (i, gap)


def test_coordinator_not_available_right_after_start_is_retried_with_backoff(cluster: FakeCluster) -> None:
    ids = groups_on_every_node(cluster, 6)
    cluster.inject(None, "FindCoordinator", COORDINATOR_NOT_AVAILABLE, count=2)

    async def body() -> dict[str, GroupDescription | KafkaError]:
        async with client(cluster) as admin:
            return await admin.describe_consumer_groups(ids)

    res = run(body())
    finds = entries(cluster, FIND)
    assert len(finds) == 3 and all(sorted(e.keys) == sorted(ids) for e in finds)
    for i, gap in enumerate(gaps([e.timestamp for e in finds])):
        assert gap >= 0.8 * BACKOFF * 2**i - 0.005, (i, gap)
    assert all(isinstance(res[g], GroupDescription) for g in ids)


def test_coordinator_not_available_from_the_coordinator_triggers_a_new_lookup(cluster: FakeCluster) -> None:
    cluster.add_group("g")
    node = cluster.coordinator_of("g")
    cluster.inject(node, "DescribeGroups", COORDINATOR_NOT_AVAILABLE, count=1)

    async def body() -> dict[str, GroupDescription | KafkaError]:
        async with client(cluster) as admin:
            return await admin.describe_consumer_groups(["g"])

    res = run(body())
    assert isinstance(res["g"], GroupDescription)
    assert looked_up_keys(cluster) == ["g", "g"]
    assert len(entries(cluster, DESCRIBE, node)) == 2


def test_throttled_response_holds_back_the_next_request_on_that_connection() -> None:
    with FakeCluster(brokers=1, versions="3.9") as cluster:
        cluster.add_group("g")
        cluster.throttle(1, "FindCoordinator", ms=400)

        async def body() -> dict[str, GroupDescription | KafkaError]:
            async with client(cluster) as admin:
                return await admin.describe_consumer_groups(["g"])

        res = run(body())
        find, = entries(cluster, FIND)
        describe, = entries(cluster, DESCRIBE)
    assert isinstance(res["g"], GroupDescription)
    assert describe.timestamp - find.timestamp >= 0.38


# --- connections that drop, brokers that stop, deadlines ---------------------------------------------------


@pytest.mark.parametrize("when", ["before", "after"])
def test_dropped_connection_is_retried(cluster: FakeCluster, when: str) -> None:
    ids = groups_on_every_node(cluster, 6)
    node = cluster.coordinator_of(ids[0])
    cluster.drop_connection(node, "DescribeGroups", when=when)

    async def body() -> dict[str, GroupDescription | KafkaError]:
        async with client(cluster) as admin:
            return await admin.describe_consumer_groups(ids)

    res = run(body())
    assert all(isinstance(res[g], GroupDescription) for g in ids)
    on_node = sorted(g for g in ids if cluster.coordinator_of(g) == node)
    assert [sorted(e.keys) for e in entries(cluster, DESCRIBE, node)] == [on_node, on_node]
    # The lost node's keys were looked up again (a disconnect may mean the coordinator moved); no others.
    assert sorted(looked_up_keys(cluster)) == sorted(ids + on_node)


def test_delete_whose_answer_was_lost_is_retried_and_the_group_is_gone(cluster: FakeCluster) -> None:
    cluster.add_group("doomed")
    cluster.drop_connection(cluster.coordinator_of("doomed"), "DeleteGroups", when="after")

    async def body() -> dict[str, None | KafkaError]:
        async with client(cluster) as admin:
            return await admin.delete_consumer_groups(["doomed"])

    res = run(body())
    assert "doomed" not in cluster.groups
    assert len(entries(cluster, DELETE)) == 2
    # The first delete worked but its answer was lost; the resend then finds no group.  Reported either as
    # "does not exist" (Kafka's own admin client) or, better, as in doubt: a timeout that says the write may
    # have been applied.  Never as a plain success or an unrelated error.
    got = res["doomed"]
    assert isinstance(got, GroupIdNotFoundError) or (isinstance(got, KafkaTimeoutError) and got.possibly_applied)


def test_stopped_coordinator_fails_over_to_the_next_one(cluster: FakeCluster) -> None:
    ids = groups_on_every_node(cluster, 9)

    async def body() -> dict[str, GroupDescription | KafkaError]:
        async with client(cluster) as admin:
            await admin.find_coordinators(ids)
            cluster.stop_broker(2)
            cluster.clear_log()
            return await admin.describe_consumer_groups(ids)

    res = run(body())
    were_on_2 = {g for g in ids if res[g].coordinator != cluster.coordinator_of(g)}  # type: ignore[union-attr]
    assert not were_on_2
    assert all(isinstance(res[g], GroupDescription) and res[g].coordinator in (1, 3) for g in ids)
    assert all(e.node_id != 2 for e in cluster.request_log)
    relooked = set(looked_up_keys(cluster))
    assert relooked and relooked <= set(ids)


def test_deadline_gives_unanswered_keys_a_timeout_and_raises_nothing(cluster: FakeCluster) -> None:
    ids = groups_on_every_node(cluster, 9)
    slow = cluster.coordinator_of(ids[0])
    cluster.delay(slow, "DescribeGroups", 5.0)

    async def body() -> tuple[dict[str, GroupDescription | KafkaError], float]:
        async with client(cluster) as admin:
            await admin.api_versions()
            t0 = time.monotonic()
            res = await admin.describe_consumer_groups(ids, timeout=0.8)
            return res, time.monotonic() - t0

    res, elapsed = run(body())
    assert elapsed < 2.0, elapsed
    assert set(res) == set(ids)
    for g in ids:
        if cluster.coordinator_of(g) == slow:
            assert isinstance(res[g], KafkaTimeoutError), res[g]
        else:
            assert isinstance(res[g], GroupDescription)


def test_whole_cluster_down_mid_call_gives_every_key_an_error_and_raises_nothing() -> None:
    with FakeCluster(brokers=2, versions="3.9") as cluster:
        ids = groups_on_every_node(cluster, 6)

        async def body() -> tuple[dict[str, GroupDescription | KafkaError], float]:
            async with client(cluster) as admin:
                await admin.find_coordinators(ids)
                for node in cluster.node_ids:
                    cluster.stop_broker(node)
                t0 = time.monotonic()
                res = await admin.describe_consumer_groups(ids, timeout=1.0)
                return res, time.monotonic() - t0

        res, elapsed = run(body())
    assert elapsed < 3.0, elapsed
    assert set(res) == set(ids)
    assert all(isinstance(res[g], KafkaTimeoutError) for g in ids), res


def test_deadline_during_the_lookup_times_out_every_key() -> None:
    with FakeCluster(brokers=1, versions="3.9") as cluster:
        cluster.delay(None, "FindCoordinator", 5.0)

        async def body() -> dict[str, None | KafkaError]:
            async with client(cluster) as admin:
                return await admin.delete_consumer_groups(["a", "b"], timeout=0.5)

        res = run(body())
    assert set(res) == {"a", "b"}
    assert all(isinstance(v, KafkaTimeoutError) for v in res.values())
    assert not any(v.possibly_applied for v in res.values())  # type: ignore[union-attr]


def test_delete_timing_out_after_sending_says_it_may_have_been_applied(cluster: FakeCluster) -> None:
    cluster.add_group("g")
    cluster.delay(cluster.coordinator_of("g"), "DeleteGroups", 5.0)

    async def body() -> dict[str, None | KafkaError]:
        async with client(cluster) as admin:
            return await admin.delete_consumer_groups(["g"], timeout=0.6)

    res = run(body())
    assert isinstance(res["g"], KafkaTimeoutError) and res["g"].possibly_applied


# --- list groups ----------------------------------------------------------------------------------------


def test_list_groups_merges_every_broker_and_dedups(cluster: FakeCluster, monkeypatch: pytest.MonkeyPatch) -> None:
    ids = groups_on_every_node(cluster, 12)
    # During a coordinator move two brokers can both list a group: show one broker a stray copy of g0.
    real = fake_base.HANDLERS[LIST]
    owner = cluster.coordinator_of("g0")
    other = next(n for n in cluster.node_ids if n != owner)

    def handle(ctx: Any, req: Any, version: int) -> Any:
        resp = real.handle(ctx, req, version)
        if ctx.node_id == other:
            resp.groups.append(type(resp.groups[0])(group_id="g0", protocol_type="consumer", group_state="Empty",
                                                    group_type="classic"))
        return resp

    monkeypatch.setitem(fake_base.HANDLERS, LIST, fake_base.ApiHandler(LIST, handle, real.error_response, real.keys))

    async def body() -> Any:
        async with client(cluster) as admin:
            return await admin.list_consumer_groups()

    res = run(body())
    assert res.complete and res.errors == {}
    assert res.group_ids() == sorted(ids)
    assert {e.node_id for e in entries(cluster, LIST)} == {1, 2, 3}
    assert len(entries(cluster, LIST)) == 3


def test_list_groups_reports_a_failing_broker_instead_of_skipping_it(cluster: FakeCluster) -> None:
    ids = groups_on_every_node(cluster, 12)
    cluster.inject(2, "ListGroups", CLUSTER_AUTHORIZATION_FAILED)
    cluster.delay(3, "ListGroups", 5.0)

    async def body() -> Any:
        async with client(cluster) as admin:
            return await admin.list_consumer_groups(timeout=0.8)

    res = run(body())
    assert not res.complete and set(res.errors) == {2, 3}
    assert isinstance(res.errors[2], error_class_for_code(CLUSTER_AUTHORIZATION_FAILED))  # type: ignore[arg-type]
    assert isinstance(res.errors[3], KafkaTimeoutError)
    assert res.group_ids() == sorted(g for g in ids if cluster.coordinator_of(g) == 1)


def test_list_groups_retries_a_retriable_broker_error(cluster: FakeCluster) -> None:
    ids = groups_on_every_node(cluster, 6)
    cluster.inject(2, "ListGroups", COORDINATOR_LOAD_IN_PROGRESS, count=2)

    async def body() -> Any:
        async with client(cluster) as admin:
            return await admin.list_consumer_groups()

    res = run(body())
    assert res.complete and res.group_ids() == sorted(ids)
    assert len(entries(cluster, LIST, 2)) == 3


# --- committed offsets and lag ------------------------------------------------------------------------


def _offsets_cluster(release: str) -> FakeCluster:
    cluster = FakeCluster(brokers=3, versions=release)
    cluster.add_topic("t", partitions=3, offsets=[100, 100, 100])
    for i in range(9):
        cluster.commit(f"g{i}", "t", 0, 10 + i, metadata=f"m{i}")
        cluster.commit(f"g{i}", "t", 2, 20 + i)
    return cluster


@pytest.mark.parametrize("release,version,batched", [("3.9", 9, True), ("2.8", 7, False)])
def test_offset_fetch_batches_from_v8_and_goes_per_group_below(release: str, version: int, batched: bool) -> None:
    ids = [f"g{i}" for i in range(9)]
    with _offsets_cluster(release) as cluster:

        async def body() -> Any:
            async with client(cluster) as admin:
                return await admin.list_consumer_group_offsets(ids)

        res = run(body())
        log = entries(cluster, FETCH)
        coordinators = by_coordinator(cluster, ids)
        where = {g: cluster.coordinator_of(g) for g in ids}
    assert {e.version for e in log} == {version}
    if batched:
        assert {e.node_id: set(e.keys) for e in log} == coordinators and len(log) == len(coordinators)
    else:
        assert sorted(e.keys for e in log) == sorted((g,) for g in ids)
        assert all(e.node_id == where[e.keys[0]] for e in log)
    for i, g in enumerate(ids):
        assert res[g] == {TopicPartition("t", 0): OffsetAndMetadata(10 + i, f"m{i}", None),
                          TopicPartition("t", 2): OffsetAndMetadata(20 + i, "", None)}


def test_offset_fetch_version_is_chosen_per_coordinator_in_a_mixed_cluster() -> None:
    with FakeCluster(brokers=3, versions=MIXED) as cluster:
        ids = groups_on_every_node(cluster, 12)
        for g in ids:
            cluster.commit(g, "t", 0, 3)

        async def body() -> Any:
            async with client(cluster) as admin:
                return await admin.list_consumer_group_offsets(ids)

        res = run(body())
        per_node = by_coordinator(cluster, ids)
        log = entries(cluster, FETCH)
    # Node 1 (2.8) has OffsetFetch up to v7: one request per group; nodes 2 and 3 (3.9) batch theirs.
    old = [e for e in log if e.node_id == 1]
    assert {e.version for e in old} == {7} and sorted(e.keys for e in old) == sorted((g,) for g in per_node[1])
    for node in (2, 3):
        new = [e for e in log if e.node_id == node]
        assert [(e.version, set(e.keys)) for e in new] == [(9, per_node[node])]
    assert all(res[g] == {TopicPartition("t", 0): OffsetAndMetadata(3, "", None)} for g in ids)


def test_offset_fetch_for_chosen_partitions_and_unknown_group(cluster: FakeCluster) -> None:
    cluster.add_topic("t", partitions=2)
    cluster.commit("g", "t", 1, 7)
    cluster.add_group("idle", state="Stable")  # exists, has committed nothing

    async def body() -> Any:
        async with client(cluster) as admin:
            return await admin.list_consumer_group_offsets(["g", "nobody", "idle"],
                                                           [("t", 0), TopicPartition("t", 1)])

    res = run(body())
    # A group that does not exist is told apart from one that has committed nothing (the coordinator is asked).
    assert res["g"] == {TopicPartition("t", 1): OffsetAndMetadata(7, "", None)}
    assert isinstance(res["nobody"], GroupIdNotFoundError)
    assert res["idle"] == {}


def test_offset_fetch_v1_needs_explicit_partitions_and_sends_nothing_without() -> None:
    with _offsets_cluster("3.9") as cluster:

        async def body() -> tuple[Any, Any]:
            async with client(cluster, max_versions={"OffsetFetch": 1}) as admin:
                explicit = await admin.list_consumer_group_offsets(["g1"], [("t", 0)])
                every = await admin.list_consumer_group_offsets(["g1"])
                return explicit, every

        explicit, every = run(body())
        log = entries(cluster, FETCH)
    assert explicit == {"g1": {("t", 0): OffsetAndMetadata(11, "m1", None)}}  # keyed as asked
    assert isinstance(every["g1"], UnsupportedVersionError)
    assert [e.version for e in log] == [1]


def test_consumer_group_lag_against_log_end(cluster: FakeCluster) -> None:
    cluster.add_topic("t", partitions=3, offsets=[100, 50, 10])
    cluster.add_topic("u", partitions=1, offsets=[5])
    cluster.commit("g", "t", 0, 40)
    cluster.commit("g", "t", 1, 50)
    cluster.commit("g", "u", 0, 5)
    cluster.commit("h", "t", 2, 3)
    cluster.set_log_end("t", 0, 120)

    async def body() -> Any:
        async with client(cluster) as admin:
            return await admin.consumer_group_lag(["g", "h", "nobody"])

    res = run(body())
    assert res["g"] == {TopicPartition("t", 0): PartitionLag(40, 120), TopicPartition("t", 1): PartitionLag(50, 50),
                        TopicPartition("u", 0): PartitionLag(5, 5)}
    assert res["g"][TopicPartition("t", 0)].lag == 80
    assert res["h"] == {TopicPartition("t", 2): PartitionLag(3, 10)}
    assert isinstance(res["nobody"], GroupIdNotFoundError)  # a typo is not an idle group
    # Each partition's end offset was asked of its leader.
    for e in entries(cluster, 2):
        for key in e.keys:
            topic, part = key.rsplit("-", 1)
            assert cluster.leader_of(topic, int(part)) == e.node_id


def test_lag_for_offsets_of_a_deleted_topic_or_partition_says_unknown_topic(cluster: FakeCluster) -> None:
    cluster.add_topic("t", partitions=1, offsets=[10])
    cluster.commit("g", "t", 0, 4)
    cluster.commit("g", "deleted", 0, 4)  # offsets outlive their topic in Kafka until they expire
    cluster.commit("g", "t", 5, 4)

    async def body() -> Any:
        async with client(cluster) as admin:
            return await admin.consumer_group_lag(["g"])

    lag = run(body())["g"]
    unknown = error_class_for_code(3)
    assert lag[TopicPartition("t", 0)] == PartitionLag(4, 10)
    assert isinstance(lag[TopicPartition("deleted", 0)], unknown)  # type: ignore[arg-type]
    assert isinstance(lag[TopicPartition("t", 5)], unknown)  # type: ignore[arg-type]


# --- input checks and duplicates --------------------------------------------------------------------------


BAD_INPUT: list[tuple[str, Callable[[SyncAdminClient], object], type[Exception]]] = [
    ("empty list", lambda a: a.describe_consumer_groups([]), ValueError),
    ("bare string", lambda a: a.describe_consumer_groups("group"), TypeError),
    ("bytes", lambda a: a.delete_consumer_groups(b"group"), TypeError),
    ("non-string", lambda a: a.describe_consumer_groups(["ok", 7]), TypeError),
    ("None item", lambda a: a.delete_consumer_groups([None]), TypeError),
    ("empty string", lambda a: a.delete_consumer_groups(["ok", ""]), ValueError),
    ("not iterable", lambda a: a.list_consumer_group_offsets(42), TypeError),
    ("offsets empty string", lambda a: a.list_consumer_group_offsets([""]), ValueError),
    ("lag bare string", lambda a: a.consumer_group_lag("g"), TypeError),
    ("lookup empty", lambda a: a.find_coordinators([]), ValueError),
    ("lookup key type", lambda a: a.find_coordinators(["g"], key_type="share-ish"), ValueError),
    ("partitions bare", lambda a: a.list_consumer_group_offsets(["g"], partitions="t"), TypeError),
    ("partitions negative", lambda a: a.list_consumer_group_offsets(["g"], partitions=[("t", -1)]), ValueError),
    ("partitions empty", lambda a: a.list_consumer_group_offsets(["g"], partitions=[]), ValueError),
    ("auth ops flag", lambda a: a.describe_consumer_groups(["g"], include_authorized_operations=1), TypeError),
    ("timeout", lambda a: a.describe_consumer_groups(["g"], timeout=0), ValueError),
    ("states bare", lambda a: a.list_consumer_groups(states="Stable"), TypeError),
]


@pytest.mark.parametrize("name,call,exc", BAD_INPUT, ids=[b[0] for b in BAD_INPUT])
def test_bad_input_raises_before_any_request(name: str, call: Callable[[SyncAdminClient], object],
                                             exc: type[Exception]) -> None:
    with FakeCluster(brokers=1) as cluster:
        admin = SyncAdminClient(cluster.bootstrap, **FAST)
        try:
            with pytest.raises(exc):
                call(admin)
        finally:
            admin.close()
        assert cluster.request_log == []


def test_bad_input_on_a_started_client_sends_nothing_either(cluster: FakeCluster) -> None:
    with SyncAdminClient(cluster.bootstrap, **FAST) as admin:
        admin.describe_cluster()
        before = len(cluster.request_log)
        for _name, call, exc in BAD_INPUT:
            with pytest.raises(exc):
                call(admin)
        assert len(cluster.request_log) == before


def test_duplicates_are_collapsed(cluster: FakeCluster) -> None:
    ids = groups_on_every_node(cluster, 6)

    async def body() -> dict[str, GroupDescription | KafkaError]:
        async with client(cluster) as admin:
            return await admin.describe_consumer_groups(iter([*ids, *ids, ids[0]]))

    res = run(body())
    assert list(res) == ids
    assert sorted(looked_up_keys(cluster)) == sorted(ids)
    assert sorted(k for e in entries(cluster, DESCRIBE) for k in e.keys) == sorted(ids)


# --- concurrency: threads and tasks ---------------------------------------------------------------------


def test_a_short_call_sharing_a_lookup_does_not_time_out_a_longer_one() -> None:
    with FakeCluster(brokers=1, versions="3.9") as cluster:
        cluster.add_group("g")
        cluster.delay(None, "FindCoordinator", 1.0)

        async def body() -> tuple[Any, Any, float]:
            async with client(cluster) as admin:
                await admin.api_versions()
                t0 = time.monotonic()
                short = asyncio.ensure_future(admin.describe_consumer_groups(["g"], timeout=0.4))
                await asyncio.sleep(0.05)
                long = asyncio.ensure_future(admin.describe_consumer_groups(["g"], timeout=10))
                s = await short
                return s, await long, time.monotonic() - t0

        short, long, elapsed = run(body())
    assert isinstance(short["g"], KafkaTimeoutError)
    assert isinstance(long["g"], GroupDescription)  # it waited on the short call's lookup, then went on
    assert elapsed < 5.0


def test_cancelling_one_call_does_not_break_another_sharing_its_lookup() -> None:
    with FakeCluster(brokers=1, versions="3.9") as cluster:
        cluster.add_group("g")
        cluster.delay(None, "FindCoordinator", 0.5)

        async def body() -> Any:
            async with client(cluster) as admin:
                await admin.api_versions()
                first = asyncio.ensure_future(admin.describe_consumer_groups(["g"], timeout=10))
                await asyncio.sleep(0.05)
                second = asyncio.ensure_future(admin.describe_consumer_groups(["g"], timeout=10))
                await asyncio.sleep(0.05)
                first.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await first
                return await second

        res = run(body())
    assert isinstance(res["g"], GroupDescription)


def test_sync_client_shared_by_eight_threads() -> None:
    with FakeCluster(brokers=3, versions="3.9", latency_s=0.005) as cluster:
        ids = groups_on_every_node(cluster, 24)
        cluster.add_topic("t", partitions=1, offsets=[10])
        for g in ids:
            cluster.commit(g, "t", 0, 4)
        results: dict[int, Any] = {}
        errors: list[BaseException] = []
        start = threading.Barrier(8)
        with SyncAdminClient(cluster.bootstrap, **FAST) as admin:

            def work(i: int) -> None:
                try:
                    start.wait(timeout=10)
                    mine = ids[i::8] + ids[:2]  # overlapping key sets
                    results[i] = (admin.describe_consumer_groups(mine, timeout=10),
                                  admin.list_consumer_group_offsets(mine, timeout=10),
                                  admin.consumer_group_lag(mine[:1], timeout=10),
                                  admin.list_consumer_groups(timeout=10))
                except BaseException as exc:  # noqa: BLE001 - reported below, on the test thread
                    errors.append(exc)

            threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(timeout=30)
            assert not any(t.is_alive() for t in threads)
    assert errors == []
    for i in range(8):
        described, offsets, lag, listed = results[i]
        mine = ids[i::8] + ids[:2]
        assert set(described) == set(mine) and all(isinstance(d, GroupDescription) for d in described.values())
        assert all(o == {TopicPartition("t", 0): OffsetAndMetadata(4, "", None)} for o in offsets.values())
        assert lag[mine[0]] == {TopicPartition("t", 0): PartitionLag(4, 10)}
        assert listed.group_ids() == sorted(ids)
    # One coordinator cache for every thread: each group was looked up at most a handful of times, not
    # once per call.
    assert len(looked_up_keys(cluster)) <= 2 * len(ids)


def test_many_concurrent_async_calls_share_lookups() -> None:
    with FakeCluster(brokers=3, versions="3.9", latency_s=0.02) as cluster:
        ids = groups_on_every_node(cluster, 30)

        async def body() -> list[dict[str, GroupDescription | KafkaError]]:
            async with client(cluster) as admin:
                await admin.api_versions()
                calls = [admin.describe_consumer_groups(ids[i % 5:] + ids[:i % 5]) for i in range(40)]
                return await asyncio.gather(*calls)

        results = run(body())
    # Forty calls in flight at once: every key was looked up exactly once (in-flight lookups collapse).
    assert sorted(looked_up_keys(cluster)) == sorted(ids)
    for res in results:
        assert set(res) == set(ids) and all(isinstance(v, GroupDescription) for v in res.values())


def test_lag_asks_again_when_a_leader_answers_not_leader(cluster: FakeCluster) -> None:
    # A leader that moved answers NOT_LEADER_OR_FOLLOWER (6, retriable): the partition is asked again with fresh
    # metadata instead of reporting the transient error as its lag.
    cluster.add_topic("t", partitions=1, offsets=[100])
    cluster.commit("g", "t", 0, 40)
    cluster.inject(cluster.leader_of("t", 0), 2, error_code=6, count=1)

    async def body() -> Any:
        async with client(cluster) as admin:
            return await admin.consumer_group_lag(["g"])

    res = run(body())
    assert res["g"] == {TopicPartition("t", 0): PartitionLag(40, 100)}
    assert len(entries(cluster, 2)) == 2
