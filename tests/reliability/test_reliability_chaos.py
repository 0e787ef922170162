"""Chaos: the asyncio client under a seeded random fault schedule on a 3-broker FakeCluster.

While workers call describe, delete, committed offsets and the quota APIs concurrently, a chaos thread makes
brokers answer retriable errors, moves coordinators, drops connections (before and after applying a
request), delays answers past the request timeout, throttles, and stops and restarts brokers (at most one
down at a time, so the cluster stays usable).  Every fault is one a real cluster produces and that a client
must survive by retrying; none of them is an answer.  So the invariants are strict:

* every requested key is answered (a value or a KafkaError) within the call's deadline plus a small margin;
* no answer is ever wrong: a value equals the cluster's ground truth, an error is the broker's real answer
  for that key or a KafkaTimeoutError, never a retriable error leaking out;
* a call whose deadline outlives the chaos by seconds gets exactly the ground truth;
* a delete or quota alteration reported done is done on the cluster, one reported failed is not done,
  unless the failure is a KafkaTimeoutError with ``possibly_applied`` (then either is allowed);
* afterwards no socket, thread or task is left behind.

The schedule is a function of the seed (the interleaving still varies run to run); a failure prints the seed,
and ``KADMIN_CHAOS_SEED=<n>`` reruns one seed.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import random
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from kadmin.aio import AdminClient
from kadmin.errors import (
    GroupIdNotFoundError,
    KafkaError,
    KafkaTimeoutError,
    NonEmptyGroupError,
)
from kadmin.quotas import (
    ClientQuotaAlteration,
    ClientQuotaEntity,
    ClientQuotaFilter,
    ClientQuotaFilterComponent,
    Set,
)
from kadmin.testing import FakeCluster, Member
from kadmin.types import GroupDescription, OffsetAndMetadata, TopicPartition
from tests.support.reliability_util import FAST, Resources, other_tasks, wait_for_baseline

E = ClientQuotaEntity
SEEDS = [int(os.environ["KADMIN_CHAOS_SEED"])] if "KADMIN_CHAOS_SEED" in os.environ else [11, 23, 37]
CHAOS_S = 4.0  # how long faults are injected
SHORT_TIMEOUTS = (0.6, 1.2, 2.0)  # calls that may time out, but must never be wrong
LONG_TIMEOUT = CHAOS_S + 5.0  # calls that outlive the chaos: must end with the ground truth
MARGIN_S = 0.75  # how late past its deadline a call may return (scheduling on a busy 2-core machine)

# Retriable codes per API, each one a broker really sends there.
FIND_COORDINATOR, DESCRIBE_GROUPS, DELETE_GROUPS, OFFSET_FETCH = 10, 15, 42, 9
DESCRIBE_QUOTAS, ALTER_QUOTAS, METADATA, DESCRIBE_CLUSTER, API_VERSIONS = 48, 49, 3, 60, 18
RETRIABLE: dict[int, tuple[int, ...]] = {
    FIND_COORDINATOR: (15,),  # COORDINATOR_NOT_AVAILABLE
    DESCRIBE_GROUPS: (14, 15, 16),  # LOAD_IN_PROGRESS, NOT_AVAILABLE, NOT_COORDINATOR
    DELETE_GROUPS: (14, 15, 16),
    OFFSET_FETCH: (14, 15, 16),
    DESCRIBE_QUOTAS: (7, 41),  # REQUEST_TIMED_OUT, NOT_CONTROLLER
    ALTER_QUOTAS: (7, 41),
}
ANY_API = (*RETRIABLE, METADATA, DESCRIBE_CLUSTER, API_VERSIONS, None)


# --- the cluster and its ground truth ----------------------------------------------------------------------


@dataclass
class World:
    cluster: FakeCluster
    describe_groups: dict[str, GroupDescription | type[KafkaError]] = field(default_factory=dict)
    offsets: dict[str, dict[TopicPartition, OffsetAndMetadata]] = field(default_factory=dict)
    deletable: list[str] = field(default_factory=list)
    nonempty: list[str] = field(default_factory=list)
    static_quotas: dict[ClientQuotaEntity, dict[str, float]] = field(default_factory=dict)
    all_groups: list[str] = field(default_factory=list)


def build_world(cluster: FakeCluster) -> World:
    w = World(cluster)
    cluster.add_topic("orders", partitions=4, offsets=[100, 200, 300, 400])
    for i in range(10):
        gid = f"live-{i}"
        members = [Member(f"{gid}-m{j}", client_id=f"c{j}") for j in range(i % 3 + 1)]
        cluster.add_group(gid, members=members, protocol="range")
        cluster.commit(gid, "orders", i % 4, 10 * i + 1, metadata=f"meta-{i}")
        cluster.commit(gid, "orders", (i + 1) % 4, 10 * i + 2)
    snaps = cluster.groups
    for gid, snap in snaps.items():
        w.offsets[gid] = {TopicPartition(t, p): OffsetAndMetadata(o.offset, o.metadata, None)
                          for (t, p), o in snap.offsets.items()}
    w.describe_groups = {gid: None for gid in snaps}  # type: ignore[misc]  # filled from a calm describe
    w.describe_groups["never-existed"] = GroupIdNotFoundError
    for i in range(120):
        gid = f"del-{i:03d}"
        cluster.add_group(gid)
        cluster.commit(gid, "orders", i % 4, i)
        w.deletable.append(gid)
    for i in range(4):
        gid = f"busy-{i}"
        cluster.add_group(gid, members=[Member(f"{gid}-m")])
        w.nonempty.append(gid)
    for i in range(6):
        e = E({"user": f"static-{i}"})
        cluster.set_quota(e.as_dict(), "producer_byte_rate", 1000.0 + i)
        w.static_quotas[e] = {"producer_byte_rate": 1000.0 + i}
    w.all_groups = sorted(cluster.groups)
    return w


# --- the chaos thread --------------------------------------------------------------------------------------


class Chaos(threading.Thread):
    """Applies one random fault every few tens of milliseconds until stopped; keeps at most one broker down."""

    def __init__(self, world: World, seed: int) -> None:
        super().__init__(name=f"chaos-{seed}", daemon=True)
        self.w = world
        self.rng = random.Random(seed)
        self.stop_event = threading.Event()
        self.actions: list[str] = []
        self.error: BaseException | None = None

    def run(self) -> None:
        c, rng = self.w.cluster, self.rng
        down: int | None = None
        down_until = 0.0
        try:
            while not self.stop_event.wait(rng.uniform(0.005, 0.05)):
                if down is not None and time.monotonic() >= down_until:
                    c.start_broker(down)
                    self.actions.append(f"start {down}")
                    down = None
                node = rng.choice(c.node_ids)
                kind = rng.choices(["inject", "move", "drop", "delay", "throttle", "loading", "stop"],
                                   weights=[6, 3, 3, 2, 2, 2, 1])[0]
                if kind == "inject":
                    api = rng.choice(list(RETRIABLE))
                    code = rng.choice(RETRIABLE[api])
                    c.inject(rng.choice([node, None]), api, code, count=rng.randint(1, 3))
                    self.actions.append(f"inject {api}:{code} on {node}")
                elif kind == "move":
                    gid = rng.choice(self.w.all_groups)
                    c.move_coordinator(gid, rng.choice([*c.node_ids, None]))
                    self.actions.append(f"move {gid} -> {node}")
                elif kind == "drop":
                    # Writes dropped after being applied are the interesting case: possibly_applied.
                    when = rng.choice(["before", "after"])
                    api = rng.choice([DELETE_GROUPS, ALTER_QUOTAS, *ANY_API])
                    c.drop_connection(node, api, when=when, count=rng.randint(1, 3))
                    self.actions.append(f"drop {when} on {node}")
                elif kind == "delay":
                    # Past request_timeout_s (1 s) half of the time: the client must close and reconnect.
                    c.delay(node, rng.choice(ANY_API), rng.choice([0.05, 0.3, 1.3]))
                    self.actions.append(f"delay on {node}")
                elif kind == "throttle":
                    c.throttle(node, rng.choice(ANY_API), rng.choice([20, 100, 300]))
                    self.actions.append(f"throttle on {node}")
                elif kind == "loading":
                    c.coordinator_loading(rng.choice(self.w.all_groups), count=rng.randint(1, 3))
                    self.actions.append("loading")
                elif kind == "stop" and down is None:
                    c.stop_broker(node)
                    down, down_until = node, time.monotonic() + rng.uniform(0.3, 1.5)
                    self.actions.append(f"stop {node}")
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            self.error = exc
        finally:
            if down is not None:
                c.start_broker(down)

    def finish(self) -> None:
        self.stop_event.set()
        self.join(timeout=10)
        assert not self.is_alive(), "the chaos thread did not stop"
        self.w.cluster.clear_faults()
        for n in self.w.cluster.node_ids:
            self.w.cluster.start_broker(n)


# --- the workload ------------------------------------------------------------------------------------------


@dataclass
class Call:
    op: str
    keys: list[Any]
    timeout: float
    started: float
    elapsed: float = 0.0
    result: Any = None
    raised: BaseException | None = None
    extra: Any = None


class Workload:
    def __init__(self, admin: AdminClient, world: World, seed: int) -> None:
        self.admin = admin
        self.w = world
        self.rng = random.Random(seed * 7919)
        self.calls: list[Call] = []
        self._deletes = iter(world.deletable)
        self._quota_serial = 0

    def _timeout(self) -> float:
        return LONG_TIMEOUT if self.rng.random() < 0.25 else self.rng.choice(SHORT_TIMEOUTS)

    async def _run(self, op: str, keys: list[Any], timeout: float, fn: Callable[[], Any], extra: Any = None) -> None:
        call = Call(op, keys, timeout, time.monotonic(), extra=extra)
        self.calls.append(call)
        try:
            call.result = await fn()
        except KafkaError as exc:
            call.raised = exc
        call.elapsed = time.monotonic() - call.started

    async def one(self, op: str | None = None, timeout: float | None = None) -> None:
        rng, a = self.rng, self.admin
        op = op or rng.choice(["describe", "delete", "offsets", "alter", "describe_quotas"])
        t = timeout or self._timeout()
        if op == "describe":
            ids = rng.sample(sorted(self.w.describe_groups), rng.randint(1, 6))
            await self._run(op, ids, t, lambda: a.describe_consumer_groups(ids, timeout=t))
        elif op == "delete":
            ids = [g for g in (next(self._deletes, None) for _ in range(rng.randint(1, 5))) if g is not None]
            if rng.random() < 0.3:
                ids.append(rng.choice(self.w.nonempty))
            if not ids:
                return
            await self._run(op, ids, t, lambda: a.delete_consumer_groups(ids, timeout=t))
        elif op == "offsets":
            ids = rng.sample(sorted(self.w.offsets), rng.randint(1, 5))
            await self._run(op, ids, t, lambda: a.list_consumer_group_offsets(ids, timeout=t))
        elif op == "alter":
            alts = []
            for _ in range(rng.randint(1, 40)):
                self._quota_serial += 1
                n = self._quota_serial
                alts.append(ClientQuotaAlteration(E({"client-id": f"app-{n:05d}"}),
                                                  [Set("producer_byte_rate", 10 * n)]))
            size = rng.choice([1, 7, 1000])
            ents = [x.entity for x in alts]
            await self._run(op, ents, t, lambda: a.alter_client_quotas(alts, batch_size=size, max_concurrency=3,
                                                                     timeout=t),
                            extra={x.entity: 10.0 * int(x.entity["client-id"][4:]) for x in alts})
        else:
            flt = ClientQuotaFilter([ClientQuotaFilterComponent.any("user")], strict=True)
            await self._run(op, [flt], t, lambda: a.describe_client_quotas(flt, timeout=t))

    async def worker(self, until: float) -> None:
        while time.monotonic() < until:
            await self.one()


# --- checking ----------------------------------------------------------------------------------------------


def check(world: World, calls: list[Call]) -> list[str]:
    """Every violated invariant, as text (empty: all held)."""
    bad: list[str] = []
    c = world.cluster
    groups_now = set(c.groups)
    quotas_now = c.quotas
    timed_out = 0
    for call in calls:
        where = f"{call.op}(timeout={call.timeout}) after {call.elapsed:.2f}s"
        long = call.timeout >= LONG_TIMEOUT
        if call.elapsed > call.timeout + MARGIN_S:
            bad.append(f"{where}: returned {call.elapsed - call.timeout:.2f}s after its deadline")
        if call.op == "describe_quotas":
            if call.raised is not None:
                if long or not isinstance(call.raised, KafkaTimeoutError):
                    bad.append(f"{where}: raised {call.raised!r}")
                timed_out += 1
            elif call.result != world.static_quotas:
                bad.append(f"{where}: {call.result} != {world.static_quotas}")
            continue
        if call.raised is not None:
            bad.append(f"{where}: the whole call raised {call.raised!r}")
            continue
        res = call.result
        if list(res) != list(dict.fromkeys(call.keys)):
            bad.append(f"{where}: answered keys {list(res)} for requested {call.keys}")
            continue
        for key, got in res.items():
            if isinstance(got, KafkaTimeoutError):
                timed_out += 1
            if call.op in ("describe", "offsets"):
                if isinstance(got, KafkaTimeoutError) and not long:
                    continue
                want: Any = world.describe_groups[key] if call.op == "describe" else world.offsets[key]
                if isinstance(got, GroupDescription):
                    # The coordinator moves during the chaos; it must be a real node, the rest must match.
                    if got.coordinator not in c.node_ids:
                        bad.append(f"{where}: {key!r} described by unknown node {got.coordinator}")
                    got = dataclasses.replace(got, coordinator=want.coordinator)
                ok = (isinstance(got, want) if isinstance(want, type) else got == want)
                if not ok:
                    bad.append(f"{where}: {key!r} -> {_short(got)}, expected {_short(want)}")
            elif call.op == "delete":
                if key in world.nonempty:
                    if not isinstance(got, NonEmptyGroupError) and not (isinstance(got, KafkaTimeoutError)
                                                                         and not long):
                        bad.append(f"{where}: non-empty {key!r} -> {got!r}")
                    if key not in groups_now:
                        bad.append(f"{where}: non-empty {key!r} was deleted")
                elif got is None:
                    if key in groups_now:
                        bad.append(f"{where}: {key!r} reported deleted but still exists")
                elif isinstance(got, KafkaTimeoutError) and got.possibly_applied:
                    pass  # in doubt, and said so: either state is allowed
                elif isinstance(got, KafkaTimeoutError) and not long:
                    if key not in groups_now:
                        bad.append(f"{where}: {key!r} reported not applied ({got!r}) but it was deleted")
                else:
                    bad.append(f"{where}: {key!r} -> {got!r}")
            elif call.op == "alter":
                value = call.extra[key]
                applied = quotas_now.get(tuple(sorted(key.items())))
                if got is None:
                    if applied != {"producer_byte_rate": value}:
                        bad.append(f"{where}: {key} reported altered, cluster has {applied}")
                elif isinstance(got, KafkaTimeoutError) and got.possibly_applied:
                    pass
                elif isinstance(got, KafkaTimeoutError) and not long:
                    if applied is not None:
                        bad.append(f"{where}: {key} reported not applied ({got!r}) but the cluster has {applied}")
                else:
                    bad.append(f"{where}: {key} -> {got!r}")
    if timed_out and timed_out == sum(len(c.keys) for c in calls):
        bad.append("every key timed out: the chaos is too strong for the test to mean anything")
    return bad


def _short(x: Any) -> str:
    text = repr(x)
    return text if len(text) < 200 else text[:200] + "..."


# --- the test ----------------------------------------------------------------------------------------------


@pytest.fixture
def world() -> Iterator[World]:
    with FakeCluster(brokers=3) as cluster:
        yield build_world(cluster)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("seed", SEEDS)
def test_chaos_keeps_every_invariant(world: World, seed: int) -> None:
    before = Resources.now()
    chaos = Chaos(world, seed)
    calls: list[Call] = []

    async def main() -> None:
        admin = AdminClient(world.cluster.bootstrap, **FAST)
        await admin.start()
        # Ground truth for describe comes from a calm describe, checked against the cluster's own state.
        calm = await admin.describe_consumer_groups([g for g in world.describe_groups if g != "never-existed"])
        for gid, desc in calm.items():
            assert isinstance(desc, GroupDescription), desc
            snap = world.cluster.groups[gid]
            assert (desc.state, [m.member_id for m in desc.members]) == (
                snap.state, [m.member_id for m in snap.members])
            world.describe_groups[gid] = desc
        work = Workload(admin, world, seed)
        chaos.start()
        until = time.monotonic() + CHAOS_S
        workers = [asyncio.create_task(work.worker(until)) for _ in range(6)]
        await asyncio.sleep(CHAOS_S)
        await asyncio.get_running_loop().run_in_executor(None, chaos.finish)
        await asyncio.gather(*workers)
        # After the storm, with every broker back: one more round of each operation must be exact.
        t = LONG_TIMEOUT
        ids = sorted(world.describe_groups)
        await work._run("describe", ids, t, lambda: admin.describe_consumer_groups(ids, timeout=t))
        oids = sorted(world.offsets)
        await work._run("offsets", oids, t, lambda: admin.list_consumer_group_offsets(oids, timeout=t))
        for op in ("delete", "alter", "describe_quotas"):
            await work.one(op, t)
        calls.extend(work.calls)
        await admin.close()
        left = await other_tasks()
        assert not left, f"tasks left after close: {left}"

    try:
        asyncio.run(main())
    finally:
        if chaos.is_alive():
            chaos.finish()
    assert chaos.error is None, f"seed {seed}: the chaos thread failed: {chaos.error!r}"
    problems = check(world, calls)
    assert not problems, f"seed {seed} ({len(chaos.actions)} faults, {len(calls)} calls):\n" + "\n".join(problems[:20])
    after = wait_for_baseline(before)
    assert after == before, f"seed {seed}: leaked resources: before {before}, after {after}"
