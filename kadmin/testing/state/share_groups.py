"""The share-group state area (KIP-932): each share group's share-partition state, as Kafka's share coordinator
keeps it, and the test-facing methods that seed and inspect it.

Membership lives with the other groups (kadmin.testing.state.groups: a ``Group`` of ``group_type="share"``
with ``consumer_members``); what a share group has *consumed* lives here, per (topic, partition):

* the **share-partition start offset (SPSO)**: the first offset the group has not finished with.  Every record
  below it was delivered and acknowledged (or archived); records at or above it are either still available,
  in flight, or already finished out of order (``complete``), in which case the SPSO moves past them as soon
  as every record before them is finished too;
* when a share group first reads a partition, its state is *initialised* at the group's
  ``share.auto.offset.reset`` (Kafka's default: latest, i.e. the log end at that moment; "earliest" starts at
  the log start), which is what DescribeShareGroupOffsets lists afterwards;
* AlterShareGroupOffsets (only while the group has no members) sets the SPSO, forgetting what was in flight;
  DeleteShareGroupOffsets forgets a topic's state entirely (the next member starts again from
  ``share.auto.offset.reset``); deleting the group forgets all of it.

Lag (DescribeShareGroupOffsets v1, Kafka 4.2): log end - SPSO - records already finished above the SPSO.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from kadmin.testing.state.base import AreaAdmin

#: The values of the group config share.auto.offset.reset (Kafka's ShareGroupAutoOffsetResetStrategy, without
#: by_duration).
AUTO_OFFSET_RESETS = ("latest", "earliest")


#: Acknowledge types (ShareFetch/ShareAcknowledge AcknowledgeTypes).
GAP, ACCEPT, RELEASE, REJECT, RENEW = 0, 1, 2, 3, 4


@dataclass
class SharePartition:
    """One share-partition's state.  ``complete``: offsets at or above the SPSO already acknowledged or
    archived; ``acquired``: offsets handed to a member and not yet acknowledged (offset -> (member id, when
    the acquisition lock runs out, time.monotonic())); ``delivery_counts``: how many times each record at or
    above the SPSO was handed out."""

    start_offset: int
    leader_epoch: int = 0
    state_epoch: int = 0
    complete: set[int] = field(default_factory=set)
    acquired: dict[int, tuple[str, float]] = field(default_factory=dict)
    delivery_counts: dict[int, int] = field(default_factory=dict)

    def advance(self) -> None:
        """Move the SPSO past every finished record directly above it."""
        while self.start_offset in self.complete:
            self.complete.discard(self.start_offset)
            self.delivery_counts.pop(self.start_offset, None)
            self.start_offset += 1

    def finished_above_start(self, log_end: int) -> int:
        """Records at or above the SPSO (and below the log end) that are already finished."""
        return sum(1 for o in self.complete if self.start_offset <= o < log_end)

    def _available_again(self, offset: int, delivery_limit: int) -> None:
        """A record whose lock ran out or that was released: available, or archived once delivered
        ``delivery_limit`` times (group.share.delivery.count.limit)."""
        self.acquired.pop(offset, None)
        if self.delivery_counts.get(offset, 0) >= delivery_limit:
            self.complete.add(offset)

    def expire_locks(self, now: float, delivery_limit: int) -> None:
        for offset in [o for o, (_m, until) in self.acquired.items() if until <= now]:
            self._available_again(offset, delivery_limit)
        self.advance()

    def follow_log_start(self, log_start: int) -> None:
        """Records deleted below the log start (DeleteRecords, retention) are gone for the group too."""
        if self.start_offset < log_start:
            for o in [o for o in self.complete | set(self.acquired) | set(self.delivery_counts) if o < log_start]:
                self.complete.discard(o)
                self.acquired.pop(o, None)
                self.delivery_counts.pop(o, None)
            self.start_offset = log_start
            self.advance()

    def acquire(self, member_id: str, upto: int, max_records: int, max_in_flight: int, now: float,
                lock_s: float) -> list[tuple[int, int, int]]:
        """Hand the member available records from the SPSO up to ``upto`` (exclusive): the acquired ranges as
        (first, last, delivery count), contiguous offsets with one count together."""
        out: list[tuple[int, int, int]] = []
        taken = 0
        offset = self.start_offset
        while offset < upto and taken < max_records and len(self.acquired) < max_in_flight:
            if offset not in self.acquired and offset not in self.complete:
                count = self.delivery_counts.get(offset, 0) + 1
                self.delivery_counts[offset] = count
                self.acquired[offset] = (member_id, now + lock_s)
                taken += 1
                if out and out[-1][1] == offset - 1 and out[-1][2] == count:
                    out[-1] = (out[-1][0], offset, count)
                else:
                    out.append((offset, offset, count))
            offset += 1
        return out

    def acknowledge(self, member_id: str, first: int, last: int, types: list[int], now: float, lock_s: float,
                    delivery_limit: int) -> bool:
        """Apply one acknowledgement batch; False (nothing applied) unless every record of it that is not a
        gap is acquired by this member, as Kafka's INVALID_RECORD_STATE."""
        if last < first or not types or (len(types) != 1 and len(types) != last - first + 1):
            return False
        kinds = [types[0]] * (last - first + 1) if len(types) == 1 else types
        for offset, kind in zip(range(first, last + 1), kinds, strict=True):
            if kind not in (GAP, ACCEPT, RELEASE, REJECT, RENEW):
                return False
            held = self.acquired.get(offset)
            if kind != GAP and (held is None or held[0] != member_id):
                return False
        for offset, kind in zip(range(first, last + 1), kinds, strict=True):
            if kind == RENEW:
                self.acquired[offset] = (member_id, now + lock_s)
            elif kind == RELEASE:
                self._available_again(offset, delivery_limit)
            else:  # accepted, rejected (archived), or a gap (no record there)
                self.acquired.pop(offset, None)
                if offset >= self.start_offset:
                    self.complete.add(offset)
        self.advance()
        return True

    def release_member(self, member_id: str, delivery_limit: int) -> None:
        """A member left: what it had acquired is available again."""
        for offset in [o for o, (m, _u) in self.acquired.items() if m == member_id]:
            self._available_again(offset, delivery_limit)
        self.advance()


@dataclass
class ShareSession:
    """A member's share session on one broker (KIP-932): the partitions it fetches there and the epoch its
    next request must carry."""

    next_epoch: int = 1
    partitions: set[tuple[str, int]] = field(default_factory=set)


@dataclass(frozen=True)
class SharePartitionSnapshot:
    """A copy of one share-partition's state, for tests (``cluster.share_offsets(group)``)."""

    start_offset: int
    leader_epoch: int
    state_epoch: int
    in_flight: int
    finished_above_start: int


class ShareStates(dict[str, dict[tuple[str, int], SharePartition]]):
    """The area: group id -> (topic, partition) -> its share-partition state; plus each group's
    share.auto.offset.reset where a test set it."""

    def __init__(self) -> None:
        super().__init__()
        self.auto_offset_reset: dict[str, str] = {}
        #: (broker id, group id, member id) -> the member's share session on that broker.
        self.sessions: dict[tuple[int, str, str], ShareSession] = {}

    def of(self, group_id: str) -> dict[tuple[str, int], SharePartition]:
        return self.setdefault(group_id, {})

    def reset_strategy(self, group_id: str) -> str:
        return self.auto_offset_reset.get(group_id, "latest")

    def initialize(self, group_id: str, topic: str, partition: int, log_start: int, log_end: int,
                   leader_epoch: int) -> SharePartition:
        """The partition's state, made at share.auto.offset.reset if the group never read it."""
        parts = self.of(group_id)
        found = parts.get((topic, partition))
        if found is None:
            start = log_start if self.reset_strategy(group_id) == "earliest" else log_end
            found = parts[(topic, partition)] = SharePartition(start, leader_epoch)
        return found

    def set_start(self, group_id: str, topic: str, partition: int, offset: int, leader_epoch: int) -> None:
        """AlterShareGroupOffsets: a new SPSO, with nothing in flight, under a new state epoch."""
        parts = self.of(group_id)
        old = parts.get((topic, partition))
        parts[(topic, partition)] = SharePartition(offset, leader_epoch, (old.state_epoch + 1) if old else 0)

    def drop_topic(self, group_id: str, topic: str) -> bool:
        """DeleteShareGroupOffsets: forget a topic's state; whether there was any."""
        parts = self.get(group_id, {})
        gone = [k for k in parts if k[0] == topic]
        for k in gone:
            del parts[k]
        return bool(gone)

    def drop_group(self, group_id: str) -> None:
        self.pop(group_id, None)
        self.auto_offset_reset.pop(group_id, None)


class ShareGroupsAdmin(AreaAdmin):
    """FakeCluster's methods for share-group state (mixed into it)."""

    def share_offsets(self, group_id: str) -> dict[tuple[str, int], SharePartitionSnapshot]:
        """A copy of ``group_id``'s share-partition states, by (topic, partition)."""
        with self._lock:
            parts = self._state.area(ShareStates).get(group_id, {})
            return {k: SharePartitionSnapshot(sp.start_offset, sp.leader_epoch, sp.state_epoch, len(sp.acquired),
                                              len(sp.complete))
                    for k, sp in sorted(parts.items())}

    def set_share_offsets(self, group_id: str, offsets: Mapping[tuple[str, int], int]) -> None:
        """Seed share-partition start offsets, as if the group had consumed up to there.  The group itself is
        made (an Empty share group) if it does not exist: seed members with ``add_group(...,
        group_type="share")``."""
        from kadmin.testing.state.groups import Group, Groups

        with self._lock:
            groups = self._state.area(Groups)
            if group_id not in groups:
                groups[group_id] = Group(group_id, state="Empty", protocol_type="share", group_type="share",
                                         assignor="simple")
            elif groups[group_id].group_type != "share":
                raise ValueError(f"group {group_id!r} is a {groups[group_id].group_type} group, not a share group")
            area = self._state.area(ShareStates)
            for (topic, partition), offset in offsets.items():
                area.set_start(group_id, str(topic), int(partition), int(offset), 0)

    def set_share_auto_offset_reset(self, group_id: str, strategy: str) -> None:
        """The group's share.auto.offset.reset: where a partition it has never read starts ("latest", Kafka's
        default, or "earliest")."""
        if strategy not in AUTO_OFFSET_RESETS:
            raise ValueError(f"unknown share.auto.offset.reset {strategy!r}; one of {AUTO_OFFSET_RESETS}")
        with self._lock:
            self._state.area(ShareStates).auto_offset_reset[group_id] = strategy
