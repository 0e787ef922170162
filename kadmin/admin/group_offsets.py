"""A group's committed offsets written, reset and deleted, and members removed: the group's coordinator.

* :class:`AlterGroupOffsets`: OffsetCommit as an admin (generation -1, no member id).  The coordinator accepts
  it only while the group has no members; for an active group it answers UNKNOWN_MEMBER_ID per partition and
  writes nothing.
* :func:`reset`: kafka-consumer-groups.sh --reset-offsets: refused while the group has active members, a plan
  per partition (committed offset, target clamped to [log start, log end]), written only when asked.
* :class:`DeleteGroupOffsets`: OffsetDelete (KIP-496, Kafka 2.4).
* :class:`RemoveMembers`: LeaveGroup v3+ (KIP-345, Kafka 2.4) in one batch; static members by instance id.

Every operation here is keyed by partition (or member) and sends all its keys to the one group's coordinator
(:class:`OfGroup`), so each partition or member gets its own result.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any, Generic, TypeAlias, TypeVar

from kadmin._keys import partitions_by_topic
from kadmin.admin._driver import Context, Done, Failed, Operation, Outcome
from kadmin.admin.coordinators import CoordinatorLookup
from kadmin.admin.groups import OffsetFetch, group_outcome
from kadmin.admin.lookups import TopicMetadata
from kadmin.admin.partitions import ListedOffset, ListOffsets, OffsetSpec
from kadmin.errors import (
    ErrorCode,
    GroupIdNotFoundError,
    KafkaError,
    NoCommittedOffsetError,
    NonEmptyGroupError,
    UnknownMemberIdError,
    UnsupportedVersionError,
)
from kadmin.network.retry import Deadline
from kadmin.offset_reset import MemberToRemove, OffsetResetPlan, PartitionReset, ResetTo
from kadmin.protocol import Message, message_type
from kadmin.protocol.apis import ApiKey
from kadmin.types import GroupDescription, OffsetAndMetadata, TopicPartition

K = TypeVar("K")
Runner = Callable[[Operation[Any], list[Any], Deadline], Awaitable[dict[Any, Any]]]

#: Group states in which kafka-consumer-groups.sh lets offsets be reset: nobody is consuming.
INACTIVE_STATES = ("Empty", "Dead")


class OfGroup(Generic[K]):
    """Every key (a partition, a member) to one group's coordinator."""

    def __init__(self, group_id: str) -> None:
        self.group_id = group_id
        self._coordinator = CoordinatorLookup()

    async def locate(self, ctx: Context, keys: Sequence[K], deadline: Deadline) -> dict[K, int | Outcome] | int:
        found = (await self._coordinator.locate(ctx, [self.group_id], deadline))[self.group_id]
        return found if isinstance(found, int) else dict.fromkeys(keys, found)

    def forget(self, ctx: Context, keys: Iterable[K]) -> None:
        self._coordinator.forget(ctx, [self.group_id])

    def forget_node(self, ctx: Context, node_id: int) -> None:
        self._coordinator.forget_node(ctx, node_id)


def _partition_outcome(group_id: str, code: int) -> Outcome:
    if code == ErrorCode.UNKNOWN_MEMBER_ID:
        # An admin commit (no member id) to a group with members: the coordinator refuses it and writes nothing.
        return Failed(UnknownMemberIdError(
            f"group {group_id!r} has active members: its coordinator refuses offsets written from outside the "
            f"group (stop the consumers first)"))
    bad = group_outcome(group_id, code)
    return bad if bad is not None else Done(None)


class AlterGroupOffsets(Operation[TopicPartition]):
    """OffsetCommit from outside the group (generation -1, no member): per partition, None or the error."""

    api = ApiKey.OFFSET_COMMIT
    write = True

    def __init__(self, group_id: str, offsets: dict[TopicPartition, OffsetAndMetadata]) -> None:
        self.group_id = group_id
        self.offsets = offsets
        self.lookup = OfGroup(group_id)

    def build(self, node: int, keys: list[TopicPartition], version: int) -> Message:
        if version < 1:
            # v0 itself stores offsets in ZooKeeper: no partition of the call can be written to the coordinator.
            raise UnsupportedVersionError(f"node {node} speaks OffsetCommit v0 only, which stores offsets in "
                                          f"ZooKeeper, not in the group's coordinator")
        req: Any = message_type(ApiKey.OFFSET_COMMIT, "request")
        topics = []
        for topic, ps in partitions_by_topic(keys).items():
            parts = []
            for p in ps:
                om = self.offsets[TopicPartition(topic, p)]
                epoch = om.leader_epoch if om.leader_epoch is not None else -1
                parts.append(req.OffsetCommitRequestPartition(
                    partition_index=p, committed_offset=om.offset, committed_leader_epoch=epoch,
                    committed_metadata=om.metadata if om.metadata is not None else ""))
            topics.append(req.OffsetCommitRequestTopic(name=topic, partitions=parts))
        return req(group_id=self.group_id, generation_id_or_member_epoch=-1,  # type: ignore[no-any-return]
                   member_id="", group_instance_id=None, topics=topics)

    def handle(self, node: int, keys: list[TopicPartition], response: Any,
               version: int) -> dict[TopicPartition, Outcome]:
        # Per partition: NONE -> written.  UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION, REBALANCE_IN_PROGRESS: the
        # group has members (final: stop them first).  NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE: relookup;
        # COORDINATOR_LOAD_IN_PROGRESS: same coordinator again.  UNKNOWN_TOPIC_OR_PARTITION,
        # OFFSET_METADATA_TOO_LARGE, INVALID_COMMIT_OFFSET_SIZE, *_AUTHORIZATION_FAILED: final.
        return {TopicPartition(t.name, p.partition_index): _partition_outcome(self.group_id, p.error_code)
                for t in response.topics for p in t.partitions}


class DeleteGroupOffsets(Operation[TopicPartition]):
    """OffsetDelete: per partition, None (deleted, or there was nothing to delete) or the error."""

    api = ApiKey.OFFSET_DELETE
    write = True

    def __init__(self, group_id: str) -> None:
        self.group_id = group_id
        self.lookup = OfGroup(group_id)

    def build(self, node: int, keys: list[TopicPartition], version: int) -> Message:
        req: Any = message_type(ApiKey.OFFSET_DELETE, "request")
        return req(group_id=self.group_id, topics=[  # type: ignore[no-any-return]
            req.OffsetDeleteRequestTopic(name=t, partitions=[
                req.OffsetDeleteRequestPartition(partition_index=p) for p in ps])
            for t, ps in partitions_by_topic(keys).items()])

    def handle(self, node: int, keys: list[TopicPartition], response: Any,
               version: int) -> dict[TopicPartition, Outcome]:
        # Group level: GROUP_ID_NOT_FOUND (no such group), NON_EMPTY_GROUP (live, and not a consumer group):
        # final for every partition; coordinator errors as in group_outcome.  Per partition:
        # GROUP_SUBSCRIBED_TO_TOPIC (live members read that topic): final.
        top = group_outcome(self.group_id, response.error_code)
        if top is not None:
            return dict.fromkeys(keys, top)
        return {TopicPartition(t.name, p.partition_index): _partition_outcome(self.group_id, p.error_code)
                for t in response.topics for p in t.partitions}


class RemoveMembers(Operation[MemberToRemove]):
    """LeaveGroup v3+ for many members at once (static members by instance id)."""

    api = ApiKey.LEAVE_GROUP
    write = True
    #: A resend after a lost answer that had removed the member finds no such member.
    applied_looks_like = frozenset({ErrorCode.UNKNOWN_MEMBER_ID})

    def __init__(self, group_id: str, reason: str | None) -> None:
        self.group_id = group_id
        self.reason = reason
        self.lookup = OfGroup(group_id)

    def build(self, node: int, keys: list[MemberToRemove], version: int) -> Message:
        if version < 3:
            # Removing other members (the Members array, KIP-345) is v3's request shape: no member can travel.
            raise UnsupportedVersionError(f"node {node} speaks LeaveGroup up to v{version}; removing members "
                                          f"needs v3+ (Kafka 2.4, KIP-345)")
        req: Any = message_type(ApiKey.LEAVE_GROUP, "request")
        return req(group_id=self.group_id, members=[  # type: ignore[no-any-return]
            req.MemberIdentity(member_id=m.member_id, group_instance_id=m.group_instance_id, reason=self.reason)
            for m in keys])

    def handle(self, node: int, keys: list[MemberToRemove], response: Any,
               version: int) -> dict[MemberToRemove, Outcome]:
        # Group level: coordinator errors (relookup / same node), GROUP_AUTHORIZATION_FAILED: every member.
        # Per member: UNKNOWN_MEMBER_ID (no such member, or it already left), FENCED_INSTANCE_ID (the instance
        # id belongs to another member id): final.
        top = group_outcome(self.group_id, response.error_code)
        if top is not None:
            return dict.fromkeys(keys, top)
        out: dict[MemberToRemove, Outcome] = {}
        for m in response.members:
            key = MemberToRemove(m.member_id, m.group_instance_id)
            bad = group_outcome(self.group_id, m.error_code)
            out[key] = bad if bad is not None else Done(None)
        return out


def members_of(description: GroupDescription) -> list[MemberToRemove]:
    """Every member of a described group, static ones by instance id (as Java's removeMembersFromConsumerGroup)."""
    return list(dict.fromkeys(
        MemberToRemove("", m.group_instance_id) if m.group_instance_id else MemberToRemove(m.member_id)
        for m in description.members))


# --- reset ------------------------------------------------------------------------------------------------


def check_inactive(group_id: str, described: GroupDescription | KafkaError) -> None:
    """Raise unless the group may be reset: empty, dead, or unknown (a reset then creates its offsets)."""
    if isinstance(described, GroupIdNotFoundError):
        return
    if isinstance(described, KafkaError):
        raise described
    if described.state not in INACTIVE_STATES:
        raise NonEmptyGroupError(
            f"offsets of group {group_id!r} can only be reset while it is inactive (Empty or Dead), but it is "
            f"{described.state} with {len(described.members)} member(s); stop its consumers first")


async def expand_topics(run: Runner, topics: list[str], deadline: Deadline
                        ) -> tuple[list[TopicPartition], dict[str, KafkaError]]:
    """Every partition of each topic, and the topics that could not be listed."""
    if not topics:
        return [], {}
    meta = await run(TopicMetadata(), topics, deadline)
    parts: list[TopicPartition] = []
    missing: dict[str, KafkaError] = {}
    for t in topics:
        got = meta[t]
        if isinstance(got, KafkaError):
            missing[t] = got
        else:
            parts.extend(TopicPartition(t, p) for p in sorted(got))
    return parts, missing


def _target(to: ResetTo, tp: TopicPartition, current: int | None, lo: int, hi: int,
            at_time: ListedOffset | KafkaError | None) -> int | KafkaError:
    if to.kind == "earliest":
        return lo
    if to.kind == "latest":
        return hi
    if to.kind == "offset":
        return to.value
    if to.kind == "shift":
        if current is None:
            return NoCommittedOffsetError(f"{tp} has no committed offset to shift by {to.value:+d}")
        return current + to.value
    if isinstance(at_time, KafkaError):
        return at_time
    assert at_time is not None
    # No record at or after the time: the log end, as kafka-consumer-groups.sh does.
    return at_time.offset if at_time.offset >= 0 else hi


def _reset_time(to: ResetTo) -> int | None:
    """The timestamp a time-based reset looks up (``--to-datetime``, ``--by-duration``), else None."""
    if to.kind == "timestamp":
        return to.value
    if to.kind == "duration":
        return max(0, int(time.time() * 1000) - to.value)
    return None


#: A group's current positions as its offsets call answered: per partition the answer, or the group's error.
Positions: TypeAlias = Mapping[TopicPartition, Any] | KafkaError


async def plan_resets(run: Runner, partitions: list[TopicPartition], to: ResetTo, deadline: Deadline,
                      positions: Awaitable[Positions], offset_of: Callable[[Any], int | None],
                      ) -> dict[TopicPartition, PartitionReset | KafkaError]:
    """Each partition's current position, log bounds and clamped target (nothing is written): the plan of a
    consumer group's reset (committed offsets) and a share group's (start offsets) alike.  ``positions`` is
    asked alongside the log bounds; ``offset_of`` reads a position's offset (None: the group has none there)."""
    when = _reset_time(to)
    asks: list[Awaitable[Any]] = [
        positions,
        run(ListOffsets(dict.fromkeys(partitions, OffsetSpec.earliest())), partitions, deadline),
        run(ListOffsets(dict.fromkeys(partitions, OffsetSpec.latest())), partitions, deadline)]
    if when is not None:
        asks.append(run(ListOffsets(dict.fromkeys(partitions, OffsetSpec.for_timestamp(when))), partitions,
                        deadline))
    got = await asyncio.gather(*asks)
    current, starts, ends = got[0], got[1], got[2]
    at_time = got[3] if when is not None else {}
    out: dict[TopicPartition, PartitionReset | KafkaError] = {}
    for tp in partitions:
        if isinstance(current, KafkaError):
            out[tp] = current
            continue
        position = current.get(tp)
        bad = next((a for a in (position, starts[tp], ends[tp]) if isinstance(a, KafkaError)), None)
        if bad is not None:
            out[tp] = bad
            continue
        lo, hi = starts[tp].offset, ends[tp].offset
        cur = offset_of(position) if position is not None else None
        wanted = _target(to, tp, cur, lo, hi, at_time.get(tp))
        out[tp] = wanted if isinstance(wanted, KafkaError) else PartitionReset(cur, min(max(wanted, lo), hi), lo,
                                                                                 hi, wanted)
    return out


def mark_written(planned: dict[TopicPartition, PartitionReset | KafkaError],
                 written: Mapping[TopicPartition, Any]) -> None:
    """The plan after its write: each written partition's reset marked applied, or replaced by its error."""
    for tp, res in written.items():
        before = planned[tp]
        assert isinstance(before, PartitionReset)
        planned[tp] = res if isinstance(res, KafkaError) else PartitionReset(
            before.current, before.target, before.log_start, before.log_end, before.requested, True)


async def _committed(run: Runner, group_id: str, partitions: list[TopicPartition], deadline: Deadline) -> Positions:
    got: Positions = (await run(OffsetFetch(partitions), [group_id], deadline))[group_id]
    return got


async def reset(run: Runner, describe: Callable[[], Awaitable[GroupDescription | KafkaError]], group_id: str,
                topics: list[str], partitions: list[TopicPartition], to: ResetTo, dry_run: bool,
                deadline: Deadline) -> OffsetResetPlan:
    """kafka-consumer-groups.sh --reset-offsets: refuse an active group, plan, write only when asked."""
    check_inactive(group_id, await describe())
    expanded, missing = await expand_topics(run, topics, deadline)
    wanted = list(dict.fromkeys(partitions + expanded))
    planned = await plan_resets(run, wanted, to, deadline, _committed(run, group_id, wanted, deadline),
                                lambda committed: committed.offset) if wanted else {}
    if not dry_run:
        ready = {tp: OffsetAndMetadata(r.target) for tp, r in planned.items() if isinstance(r, PartitionReset)}
        if ready:
            mark_written(planned, await run(AlterGroupOffsets(group_id, ready), list(ready), deadline))
    return OffsetResetPlan(group_id, to, dry_run, planned, missing)


__all__ = ["AlterGroupOffsets", "DeleteGroupOffsets", "OfGroup", "RemoveMembers", "check_inactive",
           "expand_topics", "mark_written", "members_of", "plan_resets", "reset"]
