"""The topics area: topics, their partitions (leadership, in-sync replicas, reassignments, the record log),
and the test-facing methods that seed and inspect them.

Used by the topic, record, election and reassignment handlers (Metadata, CreateTopics, Produce, Fetch,
ListOffsets, ElectLeaders, AlterPartitionReassignments...).
"""

from __future__ import annotations

import uuid
from collections.abc import Container, Mapping, Sequence
from dataclasses import dataclass, field

from kadmin.testing.record_log import PartitionLog
from kadmin.testing.state.base import AreaAdmin

#: Bytes a record nobody wrote takes in a partition's size (offsets from ``add_topic(offsets=...)`` or
#: ``set_log_end``, which no stored batch covers); produced records count the bytes of their batches.
BYTES_PER_RECORD = 100


@dataclass(frozen=True)
class PartitionSnapshot:
    """An immutable view of one partition, handed to tests (``cluster.partition``)."""

    leader: int
    leader_epoch: int
    replicas: tuple[int, ...]
    isr: tuple[int, ...]
    adding: tuple[int, ...]
    removing: tuple[int, ...]
    log_start: int
    log_end: int


@dataclass
class PartitionState:
    log_start: int = 0
    log_end: int = 0
    leader_epoch: int = 0
    replicas: list[int] = field(default_factory=list)
    # Leadership: ``leader`` is a leader other than the first in-sync replica (after a failover that no
    # preferred election has undone); ``isr`` None means every live replica is in sync.
    leader: int | None = None
    isr: list[int] | None = None
    # An ongoing reassignment (KIP-455): ``replicas`` then holds the target replicas followed by the leaving ones.
    adding: list[int] = field(default_factory=list)
    removing: list[int] = field(default_factory=list)
    # Where each replica's log lives (node -> dir; default: the node's first dir) and future logs being moved
    # by AlterReplicaLogDirs (node -> (dir, records still to copy)).
    dirs: dict[int, str] = field(default_factory=dict)
    future: dict[int, tuple[str, int]] = field(default_factory=dict)
    #: The records producers wrote (Produce/Fetch, kadmin.testing.record_log); offsets between log_start and
    #: log_end that no batch covers read as records nobody wrote.
    log: PartitionLog = field(default_factory=PartitionLog, repr=False)
    #: Where the log on disk begins once DeleteRecords moved the log start past it (None: at the log start).
    #: Kafka's DeleteRecords only moves the log start offset; the segments below it stay, and count in
    #: DescribeLogDirs, until retention deletes them, which the fake does not model.
    disk_start: int | None = None

    def in_sync(self, live: Container[int]) -> list[int]:
        """The live in-sync replicas, in replica order."""
        if self.isr is None:
            return [r for r in self.replicas if r in live]
        return [r for r in self.replicas if r in self.isr and r in live]

    def leader_id(self, live: Container[int]) -> int:
        """The elected leader if it is live and in sync, else the first live in-sync replica, else -1."""
        isr = self.in_sync(live)
        if self.leader is not None and self.leader in isr:
            return self.leader
        return isr[0] if isr else -1

    def delete_records(self, offset: int) -> None:
        """Move the log start up to ``offset`` (DeleteRecords), keeping what is on disk."""
        if offset > self.log_start:
            if self.disk_start is None:
                self.disk_start = self.log_start
            self.log_start = offset

    def size_bytes(self, lag: int = 0) -> int:
        """The bytes this replica's log takes on disk, as DescribeLogDirs reports them: the stored batches
        (whole) from where the log on disk begins, plus BYTES_PER_RECORD per offset no batch covers.  ``lag``:
        a future log (AlterReplicaLogDirs) that has copied all but the last ``lag`` offsets."""
        since = self.log_start if self.disk_start is None else min(self.disk_start, self.log_start)
        return self.log.disk_bytes(since, self.log_end - lag, self.log_start, self.log_end, BYTES_PER_RECORD)

    def snapshot(self, live: Container[int]) -> PartitionSnapshot:
        return PartitionSnapshot(self.leader_id(live), self.leader_epoch, tuple(self.replicas),
                                 tuple(self.in_sync(live)), tuple(self.adding), tuple(self.removing),
                                 self.log_start, self.log_end)

    # --- reassignments
    @property
    def reassigning(self) -> bool:
        return bool(self.adding or self.removing)

    def original_replicas(self) -> list[int]:
        """The replicas before the ongoing reassignment (what cancelling it goes back to)."""
        return [r for r in self.replicas if r not in self.adding]

    def start_reassignment(self, target: Sequence[int], live: Container[int]) -> None:
        """Move towards ``target`` as Kafka's controller does: the replicas become the target followed by the
        leaving ones; a move that adds no replica and whose targets are all in sync completes at once."""
        current = self.leader_id(live)
        if current >= 0:
            # Reordering the replicas does not move leadership; only the leader leaving (or an election) does.
            self.leader = current
        original = self.original_replicas()
        self.adding = [r for r in target if r not in original]
        self.removing = [r for r in original if r not in target]
        self.replicas = list(target) + self.removing
        if not self.adding and all(r in self.in_sync(live) for r in target):
            self.finish_reassignment(live)

    def cancel_reassignment(self, live: Container[int]) -> None:
        """Back to the original replicas; the adding ones are dropped."""
        before = self.leader_id(live)
        self.replicas = self.original_replicas()
        self._drop(self.adding, live, before)
        self.adding, self.removing = [], []

    def finish_reassignment(self, live: Container[int]) -> None:
        """The adding replicas caught up: the target replicas become the partition's replicas."""
        before = self.leader_id(live)
        if self.isr is not None:
            self.isr = [r for r in self.replicas if r in self.isr or r in self.adding]
        leaving = self.removing
        self.replicas = [r for r in self.replicas if r not in leaving]
        self.adding, self.removing = [], []
        self._drop(leaving, live, before)

    def _drop(self, gone: Sequence[int], live: Container[int], leader_before: int) -> None:
        """Forget replicas that left; a leader change (the leader left) starts a new leader epoch."""
        for r in gone:
            self.dirs.pop(r, None)
            self.future.pop(r, None)
        if self.isr is not None:
            self.isr = [r for r in self.isr if r not in gone]
        if self.leader in gone:
            self.leader = None
        if self.leader_id(live) != leader_before:
            self.leader_epoch += 1


@dataclass
class Topic:
    name: str
    topic_id: uuid.UUID
    partitions: dict[int, PartitionState]
    internal: bool = False
    #: The topic's dynamic configs (what DescribeConfigs reports as DYNAMIC_TOPIC_CONFIG).
    configs: dict[str, str] = field(default_factory=dict)


class Topics(dict[str, Topic]):
    """The area: every topic by name."""

    def add(self, name: str, partitions: int, node_ids: Sequence[int], replication_factor: int | None,
            offsets: Mapping[int, int | tuple[int, int]] | Sequence[int] | int | None) -> None:
        """Create a topic with round-robin replicas over ``node_ids`` (FakeCluster.add_topic)."""
        if partitions < 1:
            raise ValueError("a topic needs at least one partition")
        nodes = sorted(node_ids)
        rf = min(3, len(nodes)) if replication_factor is None else replication_factor
        if not 1 <= rf <= len(nodes):
            raise ValueError(f"replication factor {rf} does not fit {len(nodes)} broker(s)")
        parts: dict[int, PartitionState] = {}
        # Round-robin replica placement, like Kafka's rack-unaware assignment with a fixed start index.
        start = len(self)
        for p in range(partitions):
            replicas = [nodes[(start + p + i) % len(nodes)] for i in range(rf)]
            parts[p] = PartitionState(replicas=replicas)
        if isinstance(offsets, int):
            offsets = {p: offsets for p in parts}
        elif isinstance(offsets, Sequence):
            offsets = dict(enumerate(offsets))
        for p, value in (offsets or {}).items():
            if p not in parts:
                raise ValueError(f"topic {name} has no partition {p}")
            lo, hi = (0, value) if isinstance(value, int) else (int(value[0]), int(value[1]))
            if not 0 <= lo <= hi:
                raise ValueError(f"bad offsets for {name}-{p}: start {lo}, end {hi}")
            parts[p].log_start, parts[p].log_end = lo, hi
        self[name] = Topic(name, uuid.uuid4(), parts, internal=name.startswith("__"))

    def partition(self, topic: str, partition: int) -> PartitionState:
        """The partition's state; ValueError if the cluster has no such partition."""
        t = self.get(topic)
        if t is None or partition not in t.partitions:
            raise ValueError(f"no partition {topic}-{partition}")
        return t.partitions[partition]

    def named(self, topic: str) -> Topic:
        """The topic; ValueError if the cluster has none of that name."""
        t = self.get(topic)
        if t is None:
            raise ValueError(f"no topic {topic!r}")
        return t


class TopicsAdmin(AreaAdmin):
    """FakeCluster's methods for topics and partitions (mixed into it)."""

    def add_topic(self, name: str, partitions: int = 3,
                  offsets: Mapping[int, int | tuple[int, int]] | Sequence[int] | int | None = None,
                  replication_factor: int | None = None) -> None:
        """Create a topic.  ``offsets``: {partition: log_end or (log_start, log_end)}, a list of log ends,
        or one log end for all partitions."""
        with self._lock:
            self._state.area(Topics).add(name, partitions, self.node_ids, replication_factor, offsets)

    def set_log_end(self, topic: str, partition: int, offset: int) -> None:
        with self._lock:
            p = self._partition(topic, partition)
            if offset < p.log_start:
                raise ValueError(f"log end {offset} is below log start {p.log_start}")
            p.log_end = offset

    def set_log_start(self, topic: str, partition: int, offset: int) -> None:
        with self._lock:
            p = self._partition(topic, partition)
            if offset > p.log_end:
                raise ValueError(f"log start {offset} is above log end {p.log_end}")
            p.log_start = offset

    def _partition(self, topic: str, partition: int) -> PartitionState:
        return self._state.area(Topics).partition(topic, partition)

    def leader_of(self, topic: str, partition: int) -> int:
        """The partition's current leader (the elected one, else the first live in-sync replica), -1 if none."""
        with self._lock:
            return self._partition(topic, partition).leader_id(self._live_ids())

    def partition(self, topic: str, partition: int) -> PartitionSnapshot:
        """Leader, epoch, replicas, in-sync replicas, ongoing reassignment and offsets of one partition."""
        with self._lock:
            return self._partition(topic, partition).snapshot(self._live_ids())

    def move_leader(self, topic: str, partition: int, node_id: int) -> None:
        """Make a live in-sync replica the leader, as after a failover that no preferred election has undone
        (a preferred-leader election moves it back)."""
        with self._lock:
            p = self._partition(topic, partition)
            if node_id not in p.in_sync(self._live_ids()):
                raise ValueError(f"node {node_id} is not a live in-sync replica of {topic}-{partition}")
            if p.leader_id(self._live_ids()) != node_id:
                p.leader, p.leader_epoch = node_id, p.leader_epoch + 1

    def set_isr(self, topic: str, partition: int, isr: Sequence[int] | None) -> None:
        """The partition's in-sync replicas (None: every live replica).  With no live one left the partition
        has no leader until an unclean election picks an out-of-sync replica."""
        with self._lock:
            p = self._partition(topic, partition)
            if isr is not None and not set(isr) <= set(p.replicas):
                raise ValueError(f"in-sync replicas {list(isr)} are not all replicas of {topic}-{partition}")
            p.isr = None if isr is None else list(isr)

    def finish_reassignments(self) -> None:
        """Every ongoing reassignment completes, as once the adding replicas have caught up."""
        with self._lock:
            live = self._live_ids()
            for t in self._state.area(Topics).values():
                for p in t.partitions.values():
                    if p.reassigning:
                        p.finish_reassignment(live)

    @property
    def topics(self) -> dict[str, dict[int, tuple[int, int]]]:
        """{topic: {partition: (log_start, log_end)}}."""
        with self._lock:
            return {name: {i: (p.log_start, p.log_end) for i, p in t.partitions.items()}
                    for name, t in self._state.area(Topics).items()}

    def topic_id(self, topic: str) -> uuid.UUID:
        with self._lock:
            return self._state.area(Topics).named(topic).topic_id

    def replicas(self, topic: str) -> dict[int, list[int]]:
        """{partition: replica list} of a topic."""
        with self._lock:
            t = self._state.area(Topics).named(topic)
            return {i: list(p.replicas) for i, p in sorted(t.partitions.items())}

    def topic_configs(self, topic: str) -> dict[str, str]:
        """The topic's dynamic configs (what was set on it, not defaults)."""
        with self._lock:
            return dict(self._state.area(Topics).named(topic).configs)

    def set_topic_config(self, topic: str, key: str, value: str | None) -> None:
        """Set (None: remove) a topic's dynamic config, bypassing validation."""
        with self._lock:
            t = self._state.area(Topics).named(topic)
            if value is None:
                t.configs.pop(key, None)
            else:
                t.configs[key] = value
