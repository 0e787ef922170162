"""The streams-groups area (KIP-1071): each streams group's topology and members, as its coordinator holds them.

Why a seeding method and no StreamsGroupHeartbeat: the fake runs no task assignor, and no peer package offers
a Kafka Streams client in Python, so a test describes the group it wants (``add_streams_group``) the way a
broker would hold it after the members' heartbeats.  The group itself is also an entry of the groups area
(type "streams", protocol type "streams"), so ListGroups lists it, OffsetFetch/OffsetCommit/OffsetDelete keep
its offsets and DeleteGroups deletes it (only when Empty), as Kafka's coordinator does; this area keeps what
only StreamsGroupDescribe shows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kadmin.testing.state.base import AreaAdmin
from kadmin.testing.state.groups import Group, Groups

#: Kafka's StreamsGroupState names.
STREAMS_GROUP_STATES = ("Empty", "NotReady", "Assigning", "Reconciling", "Stable", "Dead")

#: Tasks by subtopology id: {"0": (0, 1), "1": (2,)}.
Tasks = Mapping[str, Sequence[int]]


def _tasks(value: Tasks | None) -> dict[str, tuple[int, ...]]:
    return {str(k): tuple(int(p) for p in v) for k, v in (value or {}).items()}


@dataclass(frozen=True)
class StreamsTopic:
    """An internal topic a subtopology declares (changelog or repartition)."""

    name: str
    partitions: int = 0
    replication_factor: int = -1
    configs: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, value: StreamsTopic | str | Mapping[str, Any]) -> StreamsTopic:
        if isinstance(value, StreamsTopic):
            return value
        if isinstance(value, str):
            return cls(value)
        return cls(**dict(value))


@dataclass(frozen=True)
class Subtopology:
    """One subtopology of the group's topology."""

    subtopology_id: str
    source_topics: tuple[str, ...] = ()
    repartition_sink_topics: tuple[str, ...] = ()
    state_changelog_topics: tuple[StreamsTopic, ...] = ()
    repartition_source_topics: tuple[StreamsTopic, ...] = ()

    @classmethod
    def of(cls, value: Subtopology | Mapping[str, Any]) -> Subtopology:
        if isinstance(value, Subtopology):
            return value
        d = dict(value)
        for k in ("source_topics", "repartition_sink_topics"):
            d[k] = tuple(d.get(k, ()))
        for k in ("state_changelog_topics", "repartition_source_topics"):
            d[k] = tuple(StreamsTopic.of(t) for t in d.get(k, ()))
        return cls(**d)


@dataclass(frozen=True)
class StreamsMember:
    """One member (a Kafka Streams thread) with its tasks, as the coordinator holds it."""

    member_id: str
    client_id: str = ""
    host: str = "/127.0.0.1"
    instance_id: str | None = None
    rack_id: str | None = None
    process_id: str = ""
    user_endpoint: tuple[str, int] | None = None
    client_tags: Mapping[str, str] = field(default_factory=dict)
    member_epoch: int = 1
    topology_epoch: int = 0
    active: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    standby: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    warmup: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    is_classic: bool = False

    @classmethod
    def of(cls, value: StreamsMember | Mapping[str, Any]) -> StreamsMember:
        if isinstance(value, StreamsMember):
            return value
        d = dict(value)
        for k in ("active", "standby", "warmup"):
            d[k] = _tasks(d.get(k))
        if d.get("user_endpoint") is not None:
            host, port = d["user_endpoint"]
            d["user_endpoint"] = (str(host), int(port))
        return cls(**d)


@dataclass(frozen=True)
class StreamsGroupData:
    """What StreamsGroupDescribe shows beyond the groups area's entry."""

    topology_epoch: int
    subtopologies: tuple[Subtopology, ...] | None
    members: tuple[StreamsMember, ...]


class StreamsGroups(dict[str, StreamsGroupData]):
    """The area: streams-group data by group id (the group's existence and state are the groups area's)."""


class StreamsGroupsAdmin(AreaAdmin):
    """FakeCluster's method for seeding streams groups (mixed into it)."""

    def add_streams_group(self, group_id: str, *, state: str | None = None,
                          members: Sequence[StreamsMember | Mapping[str, Any]] = (),
                          subtopologies: Sequence[Subtopology | Mapping[str, Any]] | None = (),
                          topology_epoch: int = 0, group_epoch: int | None = None,
                          assignor: str = "sticky") -> None:
        """Create or replace a streams group (keeping its committed offsets).  ``state`` defaults to Stable
        with members, Empty without; ``subtopologies=None`` is a group no member has sent a topology for yet.
        Members are :class:`StreamsMember` or dicts of its fields (tasks as {subtopology id: partitions})."""
        st = state if state is not None else ("Stable" if members else "Empty")
        if st not in STREAMS_GROUP_STATES:
            raise ValueError(f"unknown streams group state {st!r}; one of {STREAMS_GROUP_STATES}")
        mems = tuple(StreamsMember.of(m) for m in members)
        if st in ("Empty", "Dead") and mems:
            raise ValueError(f"a streams group in state {st} has no members")
        subs = None if subtopologies is None else tuple(Subtopology.of(s) for s in subtopologies)
        epoch = group_epoch if group_epoch is not None else (1 if mems else 0)
        with self._lock:
            groups = self._state.area(Groups)
            old = groups.get(group_id)
            groups[group_id] = Group(group_id, st, "streams", "", "streams", 0, [],
                                     dict(old.offsets) if old else {}, group_epoch=epoch, assignment_epoch=epoch,
                                     assignor=assignor)
            self._state.area(StreamsGroups)[group_id] = StreamsGroupData(topology_epoch, subs, mems)


__all__ = ["STREAMS_GROUP_STATES", "StreamsGroupData", "StreamsGroups", "StreamsGroupsAdmin", "StreamsMember",
           "StreamsTopic", "Subtopology"]
