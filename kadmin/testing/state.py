"""The fake cluster's state: topics, groups, committed offsets, client quotas.

Plain data guarded by the cluster's lock.  Handlers and the test thread both go through
:class:`ClusterState`; nothing here knows about sockets or the wire format.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Container, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kadmin.testing.record_log import PartitionLog

#: Kafka's group states as DescribeGroups/ListGroups report them (classic protocol).
GROUP_STATES = ("PreparingRebalance", "CompletingRebalance", "Stable", "Dead", "Empty")
#: States of a consumer-protocol group (KIP-848, ConsumerGroupState) and of a share group (KIP-932).
CONSUMER_GROUP_STATES = ("Empty", "Assigning", "Reconciling", "Stable", "Dead")
SHARE_GROUP_STATES = ("Empty", "Stable", "Dead")
#: Entity types the broker understands (ClientQuotaEntity.USER / CLIENT_ID / IP).
QUOTA_ENTITY_TYPES = ("user", "client-id", "ip")

#: A quota entity as a sorted tuple of (entity type, name or None for the default entity).
QuotaEntity = tuple[tuple[str, "str | None"], ...]


def java_string_hash(s: str) -> int:
    """Java's String.hashCode, which Kafka uses to map a group id to a __consumer_offsets partition.

    Kafka iterates UTF-16 code units; characters outside the BMP count as two (a surrogate pair).
    """
    h = 0
    if s.isascii():
        # One UTF-16 code unit per character, equal to its byte: iterate the bytes (the fake broker hashes
        # every key of every group request, so this is on its hot path).
        for b in s.encode("ascii"):
            h = (31 * h + b) & 0xFFFFFFFF
    else:
        data = s.encode("utf-16-be")
        for i in range(0, len(data), 2):
            h = (31 * h + ((data[i] << 8) | data[i + 1])) & 0xFFFFFFFF
    return h - (1 << 32) if h >= (1 << 31) else h


def partition_for(key: str, partitions: int = 50) -> int:
    """``Utils.abs(key.hashCode) % partitions`` as Kafka's GroupMetadataManager and TransactionStateManager do.

    Kafka's Utils.abs maps Integer.MIN_VALUE to 0 rather than overflowing.
    """
    h = java_string_hash(key)
    return (0 if h == -(1 << 31) else abs(h)) % partitions


@dataclass(frozen=True)
class Member:
    """One member of a classic consumer group, as DescribeGroups shows it."""

    member_id: str
    client_id: str = ""
    host: str = "/127.0.0.1"
    group_instance_id: str | None = None
    metadata: bytes = b""
    assignment: bytes = b""

    @classmethod
    def of(cls, value: Member | Mapping[str, Any]) -> Member:
        if isinstance(value, Member):
            return value
        return cls(**dict(value))


@dataclass
class ConsumerMember:
    """One member of a consumer-protocol (KIP-848) or share (KIP-932) group.

    The coordinator owns the assignment: ``target`` is what the assignor wants the member to have,
    ``assigned`` what the member was told it owns, ``revoking`` what it was told to give up and has not yet
    confirmed.  Seeded members (``cluster.add_group``) never time out; members made by real clients do.
    """

    member_id: str
    client_id: str = ""
    host: str = "/127.0.0.1"
    instance_id: str | None = None
    rack_id: str | None = None
    subscribed_topic_names: tuple[str, ...] = ()
    subscribed_topic_regex: str | None = None
    server_assignor: str | None = None
    rebalance_timeout_ms: int = 300000
    member_epoch: int = 0
    previous_member_epoch: int = -1
    assigned: frozenset[tuple[str, int]] = frozenset()
    target: frozenset[tuple[str, int]] = frozenset()
    revoking: frozenset[tuple[str, int]] = frozenset()
    last_sent: frozenset[tuple[str, int]] | None = None
    #: time.monotonic() of the last heartbeat; None for a seeded member, which never expires.
    last_seen: float | None = None

    @classmethod
    def of(cls, value: ConsumerMember | Mapping[str, Any]) -> ConsumerMember:
        if isinstance(value, ConsumerMember):
            return value
        data = dict(value)
        for key in ("assigned", "target", "revoking"):
            if key in data:
                data[key] = frozenset((str(t), int(p)) for t, p in data[key])
        if "subscribed_topic_names" in data:
            data["subscribed_topic_names"] = tuple(data["subscribed_topic_names"])
        return cls(**data)


@dataclass(frozen=True)
class CommittedOffset:
    offset: int
    leader_epoch: int = -1
    metadata: str = ""


@dataclass(frozen=True)
class GroupSnapshot:
    """An immutable copy of a group, handed to tests (``cluster.groups``)."""

    group_id: str
    state: str
    protocol_type: str
    protocol: str
    group_type: str
    generation_id: int
    members: tuple[Member, ...]
    offsets: Mapping[tuple[str, int], CommittedOffset]
    #: Consumer-protocol and share groups only (KIP-848 / KIP-932); copies, safe to keep.
    group_epoch: int = 0
    assignment_epoch: int = 0
    assignor: str = ""
    consumer_members: tuple[ConsumerMember, ...] = ()


@dataclass
class Group:
    group_id: str
    state: str = "Empty"
    protocol_type: str = "consumer"
    protocol: str = ""
    group_type: str = "classic"
    generation_id: int = 0
    members: list[Member] = field(default_factory=list)
    offsets: dict[tuple[str, int], CommittedOffset] = field(default_factory=dict)
    # Consumer-protocol and share groups (KIP-848 / KIP-932): the coordinator-side assignment.
    group_epoch: int = 0
    assignment_epoch: int = 0
    assignor: str = ""
    consumer_members: dict[str, ConsumerMember] = field(default_factory=dict)
    #: The classic protocol's live membership (kadmin.testing.classic_groups), made on first use.
    runtime: Any = None

    def snapshot(self) -> GroupSnapshot:
        return GroupSnapshot(self.group_id, self.state, self.protocol_type, self.protocol, self.group_type,
                             self.generation_id, tuple(self.members), dict(self.offsets), self.group_epoch,
                             self.assignment_epoch, self.assignor,
                             tuple(dataclasses.replace(m) for m in self.consumer_members.values()))


#: Bytes a record nobody wrote takes in a partition's size (offsets from ``add_topic(offsets=...)`` or
#: ``set_log_end``, which no stored batch covers); produced records count the bytes of their batches.
BYTES_PER_RECORD = 100
#: Each broker's one log directory unless a test configures others (Kafka's log.dirs default).
DEFAULT_LOG_DIR = "/tmp/kafka-logs"
#: The volume size each fake log directory reports (DescribeLogDirs v4+): 1 TiB.
DEFAULT_VOLUME_BYTES = 1 << 40


@dataclass
class LogDir:
    """One of a broker's log directories; an offline one answers KAFKA_STORAGE_ERROR in DescribeLogDirs."""

    path: str
    total_bytes: int = DEFAULT_VOLUME_BYTES
    offline: bool = False


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


def quota_entity(entity: Mapping[str, str | None] | Iterable[tuple[str, str | None]]) -> QuotaEntity:
    """Normalise ``{"user": "alice"}`` or ``[("user", "alice")]`` to the sorted tuple used as a key."""
    items = list(entity.items()) if isinstance(entity, Mapping) else list(entity)
    return tuple(sorted(((str(t), n) for t, n in items), key=lambda p: p[0]))


class ClusterState:
    """Everything the brokers share.  Not thread-safe by itself: the cluster holds its lock around every use."""

    def __init__(self) -> None:
        self.topics: dict[str, Topic] = {}
        self.groups: dict[str, Group] = {}
        self.quotas: dict[QuotaEntity, dict[str, float]] = {}
        self.coordinator_overrides: dict[str, int] = {}
        self.loading: dict[str, int] = {}
        #: Dynamic configs of non-topic resources, by (resource type code, name): brokers ("" = cluster
        #: default), broker loggers, groups, client-metrics subscriptions.
        self.configs: dict[tuple[int, str], dict[str, str]] = {}
        #: A controller chosen by the test (None: the first live broker).
        self.controller: int | None = None
        self.log_dirs: dict[int, list[LogDir]] = {}
        #: Broker settings of the group coordinator that differ from Kafka's defaults
        #: (kadmin.testing.consumer_groups.DEFAULT_CONFIG), e.g. a short heartbeat interval for tests.
        self.group_config: dict[str, int] = {}
        #: InitProducerId: the next producer id, and each transactional id's (producer id, epoch).
        self.next_producer_id: int = 1000
        self.transactional_producers: dict[str, tuple[int, int]] = {}

    # --- log dirs
    def dirs_of(self, node_id: int) -> list[LogDir]:
        """A broker's log directories: those a test set, else one at :data:`DEFAULT_LOG_DIR`."""
        return self.log_dirs.get(node_id) or [LogDir(DEFAULT_LOG_DIR)]

    def replica_dir(self, part: PartitionState, node_id: int) -> str:
        return part.dirs.get(node_id) or self.dirs_of(node_id)[0].path

    # --- topics
    def add_topic(self, name: str, partitions: int, node_ids: Sequence[int], replication_factor: int | None,
                  offsets: Mapping[int, int | tuple[int, int]] | Sequence[int] | int | None) -> None:
        if partitions < 1:
            raise ValueError("a topic needs at least one partition")
        nodes = sorted(node_ids)
        rf = min(3, len(nodes)) if replication_factor is None else replication_factor
        if not 1 <= rf <= len(nodes):
            raise ValueError(f"replication factor {rf} does not fit {len(nodes)} broker(s)")
        parts: dict[int, PartitionState] = {}
        # Round-robin replica placement, like Kafka's rack-unaware assignment with a fixed start index.
        start = len(self.topics)
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
        self.topics[name] = Topic(name, uuid.uuid4(), parts, internal=name.startswith("__"))

    # --- groups
    def add_group(self, group_id: str, state: str, protocol_type: str, protocol: str,
                  members: Sequence[Member | ConsumerMember | Mapping[str, Any]], group_type: str,
                  generation_id: int | None) -> None:
        if group_type in ("consumer", "share"):
            self._add_assigned_group(group_id, state, protocol_type, protocol, members, group_type, generation_id)
            return
        if state not in GROUP_STATES:
            raise ValueError(f"unknown group state {state!r}; one of {GROUP_STATES}")
        mems = [Member.of(m) for m in members]  # type: ignore[arg-type]
        if state in ("Empty", "Dead") and mems:
            raise ValueError(f"a group in state {state} has no members")
        gen = generation_id if generation_id is not None else (1 if mems else 0)
        old = self.groups.get(group_id)
        self.groups[group_id] = Group(group_id, state, protocol_type, protocol, group_type, gen, mems,
                                      dict(old.offsets) if old else {})

    def _add_assigned_group(self, group_id: str, state: str, protocol_type: str, protocol: str,
                            members: Sequence[Member | ConsumerMember | Mapping[str, Any]], group_type: str,
                            group_epoch: int | None) -> None:
        """A seeded consumer-protocol or share group: members with their assignments, as the broker holds them."""
        states = CONSUMER_GROUP_STATES if group_type == "consumer" else SHARE_GROUP_STATES
        if state not in states:
            raise ValueError(f"unknown {group_type} group state {state!r}; one of {states}")
        mems = [ConsumerMember.of(m) for m in members]  # type: ignore[arg-type]
        if state in ("Empty", "Dead") and mems:
            raise ValueError(f"a group in state {state} has no members")
        epoch = group_epoch if group_epoch is not None else (1 if mems else 0)
        old = self.groups.get(group_id)
        # add_group's default protocol type is "consumer"; a share group's is "share".
        ptype = "share" if group_type == "share" and protocol_type == "consumer" else protocol_type
        self.groups[group_id] = Group(
            group_id, state, ptype, "", group_type, 0, [], dict(old.offsets) if old else {},
            group_epoch=epoch, assignment_epoch=epoch,
            assignor=protocol or ("uniform" if group_type == "consumer" else "simple"),
            consumer_members={m.member_id: m for m in mems})

    def is_group_empty(self, group: Group) -> bool:
        return not group.members
