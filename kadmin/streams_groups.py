"""Streams groups (KIP-1071, Kafka 4.2+): what StreamsGroupDescribe tells about one.

A streams group is a Kafka Streams application whose rebalances the broker runs: the group coordinator holds
the application's topology (its subtopologies and the topics each reads, writes and keeps state in) and hands
out *tasks* (a subtopology and a partition) to members as active, standby or warm-up work.  Its committed
offsets are ordinary group offsets (OffsetFetch/OffsetCommit/OffsetDelete, as Java's Admin reads and writes
them), and DeleteGroups deletes it; only the description needs its own API.
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: Kafka's streams group states (StreamsGroupState), as StreamsGroupDescribe and ListGroups spell them.
STREAMS_GROUP_STATES = ("Empty", "NotReady", "Assigning", "Reconciling", "Stable", "Dead")


@dataclass(frozen=True)
class StreamsTasks:
    """Tasks of one subtopology: the subtopology's id and the partitions (task numbers) of it."""

    subtopology_id: str
    partitions: tuple[int, ...]


@dataclass(frozen=True)
class StreamsAssignment:
    """A member's tasks: active (it processes them), standby (it keeps a state replica) and warm-up (it is
    catching up a state replica before taking the task over)."""

    active_tasks: tuple[StreamsTasks, ...] = ()
    standby_tasks: tuple[StreamsTasks, ...] = ()
    warmup_tasks: tuple[StreamsTasks, ...] = ()


@dataclass(frozen=True)
class StreamsTopicInfo:
    """An internal topic of the topology (a changelog or a repartition topic): the partitions and replication
    factor the application asked for (0 / -1: the broker's defaults) and its topic configs."""

    name: str
    partitions: int
    replication_factor: int
    configs: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class StreamsSubtopology:
    """One subtopology: the topics it reads (user and repartition) and writes (repartition), and the
    changelog topics backing its state stores."""

    subtopology_id: str
    source_topics: tuple[str, ...]
    repartition_sink_topics: tuple[str, ...]
    state_changelog_topics: tuple[StreamsTopicInfo, ...]
    repartition_source_topics: tuple[StreamsTopicInfo, ...]


@dataclass(frozen=True)
class StreamsTaskOffset:
    """How far a member's copy of a task's state has come (the task's changelog offset, or its end)."""

    subtopology_id: str
    partition: int
    offset: int


@dataclass(frozen=True)
class StreamsGroupMember:
    """One member (one Kafka Streams thread) of a streams group.

    ``process_id`` names the application instance the member runs in (members of one process share their
    state directory); ``user_endpoint`` is its interactive-queries address (host, port), if it set one;
    ``assignment`` is what it owns, ``target_assignment`` what the coordinator is moving it towards."""

    member_id: str
    member_epoch: int
    instance_id: str | None
    rack_id: str | None
    client_id: str
    host: str
    topology_epoch: int
    process_id: str
    user_endpoint: tuple[str, int] | None
    client_tags: dict[str, str]
    task_offsets: tuple[StreamsTaskOffset, ...]
    task_end_offsets: tuple[StreamsTaskOffset, ...]
    assignment: StreamsAssignment
    target_assignment: StreamsAssignment
    #: A member that joined with the classic protocol (an older Streams client during an upgrade).
    is_classic: bool = False


@dataclass(frozen=True)
class StreamsGroupDescription:
    """A streams group as its coordinator describes it (StreamsGroupDescribe).

    ``group_epoch`` counts changes of the group (members, topology); ``target_assignment_epoch`` is the group
    epoch the current target assignment was computed for; ``topology_epoch`` the version of the topology the
    group runs (None while no member has sent one)."""

    group_id: str
    state: str
    group_epoch: int
    target_assignment_epoch: int
    topology_epoch: int | None
    subtopologies: tuple[StreamsSubtopology, ...] | None
    members: tuple[StreamsGroupMember, ...]
    coordinator: int
    authorized_operations: frozenset[str] | None = None
    #: The broker-side task assignor (StreamsGroupDescribe v1+; None from older brokers).
    assignor: str | None = None

    @property
    def is_empty(self) -> bool:
        return not self.members


__all__ = [
    "STREAMS_GROUP_STATES",
    "StreamsAssignment",
    "StreamsGroupDescription",
    "StreamsGroupMember",
    "StreamsSubtopology",
    "StreamsTaskOffset",
    "StreamsTasks",
    "StreamsTopicInfo",
]
