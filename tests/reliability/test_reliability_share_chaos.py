"""Chaos for the share-group writes: alter, reset, delete offsets and delete groups on a 3-broker 4.3 FakeCluster
under a seeded random fault schedule.

While one worker per share group changes and reads its group (so each group's ground truth is known), a chaos
thread makes brokers answer retriable errors (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE,
COORDINATOR_LOAD_IN_PROGRESS), moves group coordinators, drops connections before and after a request was
applied, and delays answers.  The invariants, as for the other writes (test_reliability_chaos.py):

* every key of every call is answered within its deadline plus a margin;
* no retriable error leaks out: a key's error is a KafkaTimeoutError or a final answer;
* a write reported done is done on the cluster; one reported failed is not done, unless the failure is a
  KafkaTimeoutError with ``possibly_applied`` (a lost answer: then either is allowed, and the worker reads the
  cluster to learn which);
* a read is the ground truth or a KafkaTimeoutError; after the storm, a read is exactly the ground truth;
* nothing is left behind (sockets, threads, tasks).
"""

from __future__ import annotations

import asyncio
import os
import random
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from kadmin.aio import AdminClient
from kadmin.errors import KafkaError, KafkaTimeoutError, UnknownTopicOrPartitionError
from kadmin.offset_reset import ResetTo
from kadmin.share_groups import SharePartitionOffset
from kadmin.testing import FakeCluster
from kadmin.types import TopicPartition
from tests.support.reliability_util import FAST, Resources, other_tasks, wait_for_baseline

SEEDS = [int(os.environ["KADMIN_CHAOS_SEED"])] if "KADMIN_CHAOS_SEED" in os.environ else [5, 17]
CHAOS_S = 3.0
TIMEOUTS = (0.8, 1.5, 3.0)
MARGIN_S = 0.75
GROUPS = [f"share-{i}" for i in range(4)]
FIND_COORDINATOR, DELETE_GROUPS, SHARE_DESCRIBE = 10, 42, 77
DESCRIBE_OFFSETS, ALTER_OFFSETS, DELETE_OFFSETS = 90, 91, 92
APIS = (DELETE_GROUPS, SHARE_DESCRIBE, DESCRIBE_OFFSETS, ALTER_OFFSETS, DELETE_OFFSETS)
MAX_DELAY_S = 0.6
RETRIABLE_CODES = (14, 15, 16)  # COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR


class Chaos(threading.Thread):
    def __init__(self, cluster: FakeCluster, seed: int) -> None:
        super().__init__(daemon=True)
        self.cluster = cluster
        self.rng = random.Random(seed)
        self.stop = threading.Event()
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            while not self.stop.is_set():
                self.one()
                time.sleep(self.rng.uniform(0.02, 0.08))
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            self.error = exc

    def one(self) -> None:
        c, rng = self.cluster, self.rng
        node = rng.choice(c.node_ids)
        kind = rng.choice(("error", "error", "move", "drop_before", "drop_after", "delay"))
        if kind == "error":
            c.inject(node, rng.choice(APIS), rng.choice(RETRIABLE_CODES), count=rng.randint(1, 3))
        elif kind == "move":
            c.move_coordinator(rng.choice(GROUPS), rng.choice(c.node_ids))
        elif kind == "drop_before":
            c.drop_connection(node, rng.choice((*APIS, FIND_COORDINATOR)), when="before")
        elif kind == "drop_after":
            c.drop_connection(node, rng.choice(APIS), when="after")
        else:
            c.delay(node, rng.choice(APIS), rng.uniform(0.1, MAX_DELAY_S))

    def finish(self) -> None:
        self.stop.set()
        self.join(10)
        self.cluster.clear_faults()


def starts(cluster: FakeCluster, group: str) -> dict[tuple[str, int], int]:
    return {k: v.start_offset for k, v in cluster.share_offsets(group).items()}


class Worker:
    """One group's writer and reader: it knows its group's ground truth, and checks every answer against it."""

    def __init__(self, admin: AdminClient, cluster: FakeCluster, group: str, seed: int) -> None:
        self.admin, self.cluster, self.group = admin, cluster, group
        self.rng = random.Random(f"{seed}-{group}")
        self.problems: list[str] = []
        self.calls = 0
        self.timed_out = False

    async def timed(self, what: str, timeout: float, call: Callable[[], Awaitable[Any]]) -> Any:
        t0 = time.monotonic()
        got = await call()
        self.calls += 1
        if time.monotonic() - t0 > timeout + MARGIN_S:
            self.problems.append(f"{self.group} {what}: answered after {time.monotonic() - t0:.2f}s "
                                 f"(timeout {timeout})")
        return got

    def leaked(self, what: str, err: object) -> bool:
        self.timed_out = self.timed_out or isinstance(err, KafkaTimeoutError)
        # UNKNOWN_TOPIC_OR_PARTITION is retriable for a partition's leader, but from a share coordinator it is
        # the final answer "the group has no offsets there".
        if (isinstance(err, KafkaError) and not isinstance(err, (KafkaTimeoutError, UnknownTopicOrPartitionError))
                and err.retriable):
            self.problems.append(f"{self.group} {what}: a retriable error leaked: {err!r}")
            return True
        return False

    def check_write(self, what: str, err: object, before: Any, after: Any, done_looks: Any) -> None:
        """``before``/``after``: the cluster's state around the call; ``done_looks``: the state if applied."""
        if self.leaked(what, err):
            return
        if err is None and after != done_looks:
            self.problems.append(f"{self.group} {what}: reported done, but the cluster has {after} not {done_looks}")
        if isinstance(err, KafkaTimeoutError) and err.possibly_applied:
            return
        if err is not None and after != before:
            self.problems.append(f"{self.group} {what}: reported failed ({err!r}), but the cluster changed "
                                 f"{before} -> {after}")

    async def round(self, timeout: float) -> None:
        op = self.rng.choice(("alter", "reset", "read", "delete_offsets"))
        tp = TopicPartition("orders", self.rng.randrange(3))
        before = starts(self.cluster, self.group)
        if op == "alter":
            value = self.rng.randrange(0, 100)
            got = await self.timed(op, timeout, lambda: self.admin.alter_share_group_offsets(
                self.group, {tp: value}, timeout=timeout))
            self.check_write(op, got[tp], before, starts(self.cluster, self.group),
                             {**before, (tp.topic, tp.partition): value})
        elif op == "reset":
            value = self.rng.randrange(0, 100)
            try:
                plan = await self.timed(op, timeout, lambda: self.admin.reset_share_group_offsets(
                    self.group, [tp], ResetTo.offset(value), dry_run=False, timeout=timeout))
                step = plan.partitions[tp]
                err = step if isinstance(step, KafkaError) else None
            except KafkaError as exc:  # the describe or the reads before the write failed: nothing written
                err = exc
            self.check_write(op, err, before, starts(self.cluster, self.group),
                             {**before, (tp.topic, tp.partition): value})
        elif op == "delete_offsets":
            got = await self.timed(op, timeout, lambda: self.admin.delete_share_group_offsets(
                self.group, ["payments"], timeout=timeout))
            err = got["payments"]
            done = {k: v for k, v in before.items() if k[0] != "payments"}
            if isinstance(err, UnknownTopicOrPartitionError) and not any(k[0] == "payments" for k in before):
                err = None  # nothing to delete: the broker's UNKNOWN_TOPIC_OR_PARTITION is the true answer
            self.check_write(op, err, before, starts(self.cluster, self.group), done)
        else:
            got = (await self.timed(op, timeout, lambda: self.admin.list_share_group_offsets(
                [self.group], timeout=timeout)))[self.group]
            if isinstance(got, KafkaError):
                if not isinstance(got, KafkaTimeoutError):
                    self.problems.append(f"{self.group} read: {got!r}")
            elif {(tp.topic, tp.partition): o.start_offset if isinstance(o, SharePartitionOffset) else o
                  for tp, o in got.items()} != before:
                self.problems.append(f"{self.group} read: {got} is not the ground truth {before}")

    async def run(self, until: float) -> None:
        while time.monotonic() < until:
            done = self.calls
            await self.round(self.rng.choice(TIMEOUTS))
            if self.calls > done and self.timed_out:
                # A write the client gave up on may still be held by a delay fault and applied later, as on a
                # real cluster: let it land before the next round takes the ground truth.
                await asyncio.sleep(MAX_DELAY_S + 0.3)
            self.timed_out = False

    async def finale(self) -> None:
        """After the storm: an exact read, then the group deleted (reported done means gone)."""
        truth = starts(self.cluster, self.group)
        got = (await self.admin.list_share_group_offsets([self.group], timeout=10))[self.group]
        read = None if isinstance(got, KafkaError) else {
            (tp.topic, tp.partition): o.start_offset if isinstance(o, SharePartitionOffset) else o
            for tp, o in got.items()}
        if read != truth:
            self.problems.append(f"{self.group} final read: {got!r} is not {truth}")
        self.cluster.drop_connection(self.cluster.coordinator_of(self.group), DELETE_GROUPS, when="after")
        err = (await self.admin.delete_share_groups([self.group], timeout=10))[self.group]
        gone = self.group not in self.cluster.groups
        if err is None and not gone:
            self.problems.append(f"{self.group} delete: reported done, but the group is there")
        if isinstance(err, KafkaError) and not (isinstance(err, KafkaTimeoutError) and err.possibly_applied) and gone:
            self.problems.append(f"{self.group} delete: reported failed ({err!r}), but the group is gone")


@pytest.mark.timeout(90)
@pytest.mark.parametrize("seed", SEEDS)
def test_share_writes_keep_the_chaos_invariants(seed: int) -> None:
    before = Resources.now()
    with FakeCluster(brokers=3, versions="4.3") as cluster:
        cluster.add_topic("orders", 3, offsets={p: (0, 100) for p in range(3)})
        cluster.add_topic("payments", 1, offsets={0: (0, 10)})
        for g in GROUPS:
            cluster.set_share_offsets(g, {("orders", 0): 1, ("payments", 0): 2})
        chaos = Chaos(cluster, seed)
        workers: list[Worker] = []

        async def main() -> None:
            admin = AdminClient(cluster.bootstrap, **FAST)
            await admin.start()
            workers.extend(Worker(admin, cluster, g, seed) for g in GROUPS)
            chaos.start()
            until = time.monotonic() + CHAOS_S
            await asyncio.gather(*(w.run(until) for w in workers))
            await asyncio.get_running_loop().run_in_executor(None, chaos.finish)
            await asyncio.sleep(MAX_DELAY_S + 0.3)  # requests still held by a delay fault land first
            for w in workers:
                await w.finale()
            await admin.close()
            left = await other_tasks()
            assert not left, f"tasks left after close: {left}"

        try:
            asyncio.run(main())
        finally:
            if chaos.is_alive():
                chaos.finish()
    assert chaos.error is None, f"seed {seed}: the chaos thread failed: {chaos.error!r}"
    problems = [p for w in workers for p in w.problems]
    assert sum(w.calls for w in workers) >= 4 * len(GROUPS)
    assert not problems, f"seed {seed}:\n" + "\n".join(problems[:20])
    after = wait_for_baseline(before)
    assert after == before, f"seed {seed}: leaked resources: before {before}, after {after}"
