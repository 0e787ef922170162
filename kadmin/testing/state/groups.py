"""The groups area: consumer groups (classic, consumer-protocol and share), their members and committed
offsets, the coordinator's settings, and the test-facing methods that seed and inspect them.

Used by the group handlers (JoinGroup ... ConsumerGroupHeartbeat, DescribeGroups, OffsetCommit...), through
kadmin.testing.classic_groups and kadmin.testing.consumer_groups for the protocols' rules.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kadmin.testing.state.base import AreaAdmin

#: Kafka's group states as DescribeGroups/ListGroups report them (classic protocol).
GROUP_STATES = ("PreparingRebalance", "CompletingRebalance", "Stable", "Dead", "Empty")
#: States of a consumer-protocol group (KIP-848, ConsumerGroupState) and of a share group (KIP-932).
CONSUMER_GROUP_STATES = ("Empty", "Assigning", "Reconciling", "Stable", "Dead")
SHARE_GROUP_STATES = ("Empty", "Stable", "Dead")


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


class Groups(dict[str, Group]):
    """The area: every group by id, and the group coordinator's settings."""

    def __init__(self) -> None:
        super().__init__()
        #: Broker settings of the group coordinator that differ from Kafka's defaults
        #: (kadmin.testing.consumer_groups.DEFAULT_CONFIG), e.g. a short heartbeat interval for tests.
        self.config: dict[str, int] = {}

    def add(self, group_id: str, state: str, protocol_type: str, protocol: str,
            members: Sequence[Member | ConsumerMember | Mapping[str, Any]], group_type: str,
            generation_id: int | None) -> None:
        """Create or replace a group, keeping its committed offsets (FakeCluster.add_group)."""
        if group_type in ("consumer", "share"):
            self._add_assigned(group_id, state, protocol_type, protocol, members, group_type, generation_id)
            return
        if state not in GROUP_STATES:
            raise ValueError(f"unknown group state {state!r}; one of {GROUP_STATES}")
        mems = [Member.of(m) for m in members]  # type: ignore[arg-type]
        if state in ("Empty", "Dead") and mems:
            raise ValueError(f"a group in state {state} has no members")
        gen = generation_id if generation_id is not None else (1 if mems else 0)
        old = self.get(group_id)
        self[group_id] = Group(group_id, state, protocol_type, protocol, group_type, gen, mems,
                               dict(old.offsets) if old else {})

    def _add_assigned(self, group_id: str, state: str, protocol_type: str, protocol: str,
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
        old = self.get(group_id)
        # add_group's default protocol type is "consumer"; a share group's is "share".
        ptype = "share" if group_type == "share" and protocol_type == "consumer" else protocol_type
        self[group_id] = Group(
            group_id, state, ptype, "", group_type, 0, [], dict(old.offsets) if old else {},
            group_epoch=epoch, assignment_epoch=epoch,
            assignor=protocol or ("uniform" if group_type == "consumer" else "simple"),
            consumer_members={m.member_id: m for m in mems})


class GroupsAdmin(AreaAdmin):
    """FakeCluster's methods for groups and committed offsets (mixed into it)."""

    def add_group(self, group_id: str, state: str | None = None, protocol_type: str = "consumer",
                  protocol: str = "range", members: Sequence[Member | Mapping[str, Any]] = (),
                  group_type: str = "classic", generation_id: int | None = None) -> None:
        """Create or replace a group (keeping its committed offsets).  ``state`` defaults to Stable with
        members, Empty without.  Members are :class:`Member` or dicts of its fields."""
        with self._lock:
            st = state if state is not None else ("Stable" if members else "Empty")
            self._state.area(Groups).add(group_id, st, protocol_type, protocol, members, group_type, generation_id)

    def commit(self, group: str, topic: str, partition: int, offset: int, metadata: str = "",
               leader_epoch: int = -1) -> None:
        """Store a committed offset, creating the group (Empty, as an admin commit would) if needed."""
        with self._lock:
            groups = self._state.area(Groups)
            g = groups.get(group)
            if g is None:
                g = groups[group] = Group(group, state="Empty", protocol_type="consumer")
            g.offsets[(topic, partition)] = CommittedOffset(offset, leader_epoch, metadata)

    @property
    def groups(self) -> dict[str, GroupSnapshot]:
        """Immutable snapshots of every group, by id."""
        with self._lock:
            return {gid: g.snapshot() for gid, g in self._state.area(Groups).items()}

    def set_group_config(self, **settings: int) -> None:
        """Group coordinator settings, by Kafka's names with dots as underscores, e.g.
        ``set_group_config(group_consumer_heartbeat_interval_ms=500)`` so that KIP-848 consumers reconcile
        fast in a test.  Known: group.consumer.heartbeat.interval.ms, group.consumer.session.timeout.ms and their
        group.share.* twins (share groups, KIP-932)."""
        from kadmin.testing.consumer_groups import DEFAULT_CONFIG

        with self._lock:
            for key, value in settings.items():
                name = key.replace("_", ".")
                if name not in DEFAULT_CONFIG:
                    raise ValueError(f"unknown group setting {name!r}; known: {sorted(DEFAULT_CONFIG)}")
                if not isinstance(value, int) or value <= 0:
                    raise ValueError(f"{name} must be a positive int, not {value!r}")
                self._state.area(Groups).config[name] = value
