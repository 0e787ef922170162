"""Load: many callers sharing one client, every answer checked against the cluster's ground truth.

The sync client promises to be safe to share between threads (one loop thread serves them all); the asyncio
client promises that concurrent calls do not interfere (shared coordinator lookups, pipelined connections).
Both promises are cheap to break with a shared dict or a lookup future handed to the wrong waiter, and such
bugs only show under concurrency, so: 8 threads x 125 mixed calls on the sync client, then 200 concurrent
tasks on the asyncio client, on a 3-broker FakeCluster.  Each call's keys are its own (deletes and quota
alterations never overlap), so every result has exactly one right value.
"""

from __future__ import annotations

import asyncio
import random
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from kadmin import aio
from kadmin.client import AdminClient
from kadmin.errors import GroupIdNotFoundError, NonEmptyGroupError
from kadmin.quotas import ClientQuotaAlteration, ClientQuotaEntity, ClientQuotaFilter, Set
from kadmin.testing import FakeCluster, Member
from kadmin.types import GroupDescription, OffsetAndMetadata, PartitionLag, TopicPartition
from tests.support.reliability_util import Resources, other_tasks, wait_for_baseline

E = ClientQuotaEntity
THREADS = 8
CALLS_PER_THREAD = 125
TASKS = 200
SETTINGS: dict[str, Any] = {"retry_backoff_s": 0.02, "retry_backoff_max_s": 0.2, "default_timeout_s": 30.0}
LOG_END = [1000, 2000, 3000, 4000]


@dataclass
class Truth:
    cluster: FakeCluster
    live: list[str] = field(default_factory=list)
    busy: list[str] = field(default_factory=list)
    offsets: dict[str, dict[TopicPartition, OffsetAndMetadata]] = field(default_factory=dict)
    states: dict[str, tuple[str, tuple[str, ...]]] = field(default_factory=dict)
    static: dict[ClientQuotaEntity, dict[str, float]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    serial: int = 0

    def next_serial(self) -> int:
        with self.lock:
            self.serial += 1
            return self.serial


def build(cluster: FakeCluster) -> Truth:
    t = Truth(cluster)
    cluster.add_topic("orders", partitions=4, offsets=LOG_END)
    for i in range(30):
        gid = f"live-{i:02d}"
        members = [Member(f"{gid}-m{j}") for j in range(i % 3)]
        cluster.add_group(gid, members=members)
        cluster.commit(gid, "orders", i % 4, 10 * i)
        t.live.append(gid)
        if members:
            t.busy.append(gid)
    for gid, snap in cluster.groups.items():
        t.offsets[gid] = {TopicPartition(tp, p): OffsetAndMetadata(o.offset, o.metadata, None)
                          for (tp, p), o in snap.offsets.items()}
        t.states[gid] = (snap.state, tuple(m.member_id for m in snap.members))
    for i in range(5):
        e = E({"user": f"static-{i}"})
        cluster.set_quota(e.as_dict(), "consumer_byte_rate", 500.0 + i)
        t.static[e] = {"consumer_byte_rate": 500.0 + i}
    return t


# One mixed operation: returns None when the answer was right, else what was wrong.  ``call`` runs a client
# method by name (sync: directly; asyncio: awaited), so the same checks serve both clients.
Caller = Callable[..., Any]


def choose(rng: random.Random,
           truth: Truth) -> tuple[str, tuple[Any, ...], dict[str, Any], Callable[[Any], str | None]]:
    """(method, args, kwargs, check) for one random call."""
    op = rng.choices(["describe", "offsets", "lag", "delete", "alter", "describe_quotas", "resolve",
                      "list", "find", "cluster"], weights=[5, 4, 2, 2, 3, 2, 1, 1, 1, 1])[0]
    c = truth.cluster
    if op == "describe":
        ids = rng.sample(truth.live, rng.randint(1, 8)) + (["missing"] if rng.random() < 0.2 else [])

        def check(res: Any) -> str | None:
            for gid in ids:
                got = res[gid]
                if gid == "missing":
                    if not isinstance(got, GroupIdNotFoundError):
                        return f"missing -> {got!r}"
                elif not isinstance(got, GroupDescription) or \
                        (got.state, tuple(m.member_id for m in got.members)) != truth.states[gid]:
                    return f"{gid} -> {got!r}"
            return None if list(res) == ids else f"keys {list(res)} != {ids}"
        return "describe_consumer_groups", (ids,), {}, check
    if op == "offsets":
        ids = rng.sample(truth.live, rng.randint(1, 8))
        return "list_consumer_group_offsets", (ids,), {}, \
            lambda res: None if res == {g: truth.offsets[g] for g in ids} else f"offsets {res!r}"
    if op == "lag":
        ids = rng.sample(truth.live, rng.randint(1, 4))
        want = {g: {tp: PartitionLag(o.offset, LOG_END[tp.partition]) for tp, o in truth.offsets[g].items()}
                for g in ids}
        return "consumer_group_lag", (ids,), {}, lambda res: None if res == want else f"lag {res!r} != {want!r}"
    if op == "delete":
        n = truth.next_serial()
        doomed = [f"doomed-{n}-{i}" for i in range(rng.randint(1, 3))]
        for gid in doomed:
            c.add_group(gid)
        busy = rng.choice(truth.busy)

        def check_delete(res: Any) -> str | None:
            if any(res[g] is not None for g in doomed) or not isinstance(res[busy], NonEmptyGroupError):
                return f"delete -> {res!r}"
            groups = c.groups
            if any(g in groups for g in doomed) or busy not in groups:
                return "delete reported done but the groups are still there (or the busy one is gone)"
            return None
        return "delete_consumer_groups", (doomed + [busy],), {}, check_delete
    if op == "alter":
        n = truth.next_serial()
        alts = [ClientQuotaAlteration(E({"client-id": f"load-{n}-{i}"}), [Set("producer_byte_rate", 1000 * n + i)])
                for i in range(rng.randint(1, 30))]

        def check_alter(res: Any) -> str | None:
            if list(res) != [a.entity for a in alts] or any(v is not None for v in res.values()):
                return f"alter -> {res!r}"
            state = c.quotas
            for i, a in enumerate(alts):
                if state.get(tuple(a.entity.items())) != {"producer_byte_rate": float(1000 * n + i)}:
                    return f"alter of {a.entity} reported done, cluster has {state.get(tuple(a.entity.items()))}"
            return None
        return "alter_client_quotas", (alts,), {"batch_size": rng.choice([1, 10, 1000])}, check_alter
    if op == "describe_quotas":
        flt = ClientQuotaFilter.for_entity(E({"user": "static-3"}))
        return "describe_client_quotas", (flt,), {}, lambda res: None if res == {
            E({"user": "static-3"}): truth.static[E({"user": "static-3"})]} else f"describe quotas {res!r}"
    if op == "resolve":
        return "resolve_client_quotas", ("static-2", "some-app"), {}, lambda res: None if res.value(
            "consumer_byte_rate") == 502.0 else f"resolve {res!r}"
    if op == "list":
        def check_list(res: Any) -> str | None:
            names = {g.group_id for g in res.groups}
            return None if set(truth.live) <= names and not res.errors else f"list {res!r}"
        return "list_consumer_groups", (), {}, check_list
    if op == "find":
        ids = rng.sample(truth.live, 3)
        return "find_coordinators", (ids,), {}, lambda res: None if {g: r.node_id for g, r in res.items()} == {
            g: c.coordinator_of(g) for g in ids} else f"find {res!r}"
    return "describe_cluster", (), {}, lambda res: None if [n.node_id for n in res.nodes] == [1, 2, 3] \
        else f"cluster {res!r}"


@pytest.fixture
def truth() -> Iterator[Truth]:
    with FakeCluster(brokers=3) as cluster:
        yield build(cluster)


@pytest.mark.timeout(120)
def test_eight_threads_share_one_sync_client_for_a_thousand_mixed_calls(truth: Truth) -> None:
    before = Resources.now()
    wrong: list[str] = []
    done = [0] * THREADS
    with AdminClient(truth.cluster.bootstrap, **SETTINGS) as admin:
        def worker(n: int) -> None:
            rng = random.Random(n)
            for _ in range(CALLS_PER_THREAD):
                method, args, kwargs, check = choose(rng, truth)
                try:
                    problem = check(getattr(admin, method)(*args, **kwargs))
                except Exception as exc:  # noqa: BLE001 - any exception is a failed call, reported below
                    problem = f"{method} raised {exc!r}"
                if problem:
                    wrong.append(f"thread {n} {method}: {problem}")
                done[n] += 1

        threads = [threading.Thread(target=worker, args=(n,), name=f"load-{n}") for n in range(THREADS)]
        started = time.monotonic()
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=100)
        elapsed = time.monotonic() - started
        assert not any(t.is_alive() for t in threads), "a worker thread is stuck"
    assert not wrong, f"{len(wrong)} wrong answers, e.g.:\n" + "\n".join(wrong[:10])
    assert sum(done) == THREADS * CALLS_PER_THREAD, done
    assert elapsed < 90, elapsed
    after = wait_for_baseline(before)
    assert after == before, f"leaked: before {before}, after {after}"


@pytest.mark.timeout(120)
def test_two_hundred_concurrent_tasks_on_one_asyncio_client(truth: Truth) -> None:
    before = Resources.now()
    rng = random.Random(200)
    # The cluster's own state is read (and groups created) from the test thread, never from inside the loop:
    # FakeCluster calls block, so every call's inputs and checks are prepared up front.
    plans = [choose(rng, truth) for _ in range(TASKS)]

    async def main() -> list[str]:
        async with aio.AdminClient(truth.cluster.bootstrap, **SETTINGS) as admin:
            async def one(method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
                return await getattr(admin, method)(*args, **kwargs)

            results = await asyncio.gather(*(one(m, a, k) for m, a, k, _check in plans), return_exceptions=True)
        assert not await other_tasks()
        return [f"{m}: raised {r!r}" for (m, _a, _k, _c), r in zip(plans, results, strict=True)
                if isinstance(r, BaseException)] + [p for p in (
                    check(r) for (_m, _a, _k, check), r in zip(plans, results, strict=True)
                    if not isinstance(r, BaseException)) if p is not None]

    started = time.monotonic()
    wrong = asyncio.run(main())
    elapsed = time.monotonic() - started
    assert not wrong, f"{len(wrong)} wrong answers, e.g.:\n" + "\n".join(wrong[:10])
    assert elapsed < 60, elapsed
    after = wait_for_baseline(before)
    assert after == before, f"leaked: before {before}, after {after}"
