"""Share groups' offsets (KIP-932): read, set, delete and reset each group's share-partition start offsets.

* :class:`DescribeShareGroupOffsets` (API 90, Kafka 4.1; v1 adds the lag in 4.2): keyed by group, every group
  of a coordinator in one request;
* :class:`AlterShareGroupOffsets` (API 91, 4.1): keyed by partition, all to the one group's coordinator; the
  coordinator refuses it while the group has members (NON_EMPTY_GROUP for every partition, nothing written);
* :class:`DeleteShareGroupOffsets` (API 92, 4.1): keyed by topic (a topic's partitions go together);
* :func:`reset`: kafka-share-groups.sh --reset-offsets: refused while the group has members, a plan per
  partition (SPSO, target clamped to [log start, log end]), written only when asked.

Deleting share groups is DeleteGroups on each group's coordinator (kadmin.admin.groups.DeleteGroups), as
Java's Admin does.  Brokers older than 4.1 have none of these APIs: :func:`name_release` turns the driver's
"no common version" into an UnsupportedVersionError per group naming the release that adds the call.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from kadmin._keys import partitions_by_topic
from kadmin.admin._driver import Done, Failed, Operation, Outcome
from kadmin.admin.coordinators import CoordinatorLookup
from kadmin.admin.group_offsets import (
    OfGroup,
    Positions,
    check_inactive,
    expand_topics,
    mark_written,
    plan_resets,
)
from kadmin.admin.groups import group_outcome
from kadmin.errors import ErrorCode, KafkaError, NonEmptyGroupError, UnsupportedVersionError, error_for_code
from kadmin.network.retry import Deadline
from kadmin.offset_reset import OffsetResetPlan, PartitionReset, ResetTo
from kadmin.protocol import Message, message_type
from kadmin.protocol.apis import ApiKey
from kadmin.share_groups import SharePartitionOffset
from kadmin.types import GroupDescription, TopicPartition

Runner = Callable[[Operation[Any], list[Any], Deadline], Awaitable[dict[Any, Any]]]

#: DescribeShareGroupOffsets v1 (Kafka 4.2) reports each partition's lag.
LAG_SINCE = 1

#: The release that added each share-group API as a stable API, for the error a too-old broker gets, and a note.
RELEASE_ADDING: dict[ApiKey, tuple[str, str]] = {
    ApiKey.SHARE_GROUP_DESCRIBE: ("4.1", "; 4.0 has it only as early access, with share groups switched on"),
    ApiKey.DESCRIBE_SHARE_GROUP_OFFSETS: ("4.1", "; the lag from 4.2"),
    ApiKey.ALTER_SHARE_GROUP_OFFSETS: ("4.1", ""),
    ApiKey.DELETE_SHARE_GROUP_OFFSETS: ("4.1", ""),
}


def name_release(got: Mapping[Any, Any], api: ApiKey, what: str,
                 release_note: tuple[str, str] | None = None) -> dict[Any, Any]:
    """``got`` with each UnsupportedVersionError reworded to say which Kafka release adds ``what``
    (``release_note``: the release and a note, for an API not in :data:`RELEASE_ADDING`)."""
    release, note = release_note or RELEASE_ADDING[api]
    out: dict[Any, Any] = {}
    for k, v in got.items():
        if isinstance(v, UnsupportedVersionError):
            err = UnsupportedVersionError(f"{what} needs Kafka {release}+ ({api.kafka_name}{note}): {v}")
            err.__cause__ = v
            v = err
        out[k] = v
    return out


def _top_outcome(group_id: str, code: int, message: str | None) -> Outcome | None:
    """A request-level answer: coordinator errors as in group_outcome; NON_EMPTY_GROUP says what to do."""
    if code == ErrorCode.NON_EMPTY_GROUP:
        return Failed(NonEmptyGroupError(
            f"share group {group_id!r} has members: its coordinator changes no offsets while any are active, and "
            f"wrote nothing (stop the share consumers first) [{message or 'The group is not empty.'}]"))
    return group_outcome(group_id, code, message)


def _item_outcome(code: int, message: str | None) -> Outcome:
    """One partition's or topic's answer: the coordinator looked and decided (UNKNOWN_TOPIC_OR_PARTITION is
    retriable elsewhere, a leader moving; here it says the topic or its share state does not exist)."""
    err = error_for_code(code, message)
    return Done(None) if err is None else Failed(err)



class DescribeShareGroupOffsets(Operation[str]):
    """Start offsets (and from v1 the lag) per group: one request per coordinator for all of its groups."""

    api = ApiKey.DESCRIBE_SHARE_GROUP_OFFSETS

    def __init__(self, partitions: list[TopicPartition] | None) -> None:
        self.partitions = partitions
        self.lookup = CoordinatorLookup()

    def build(self, node: int, keys: list[str], version: int) -> Message:
        req: Any = message_type(self.api, "request")
        topics = None if self.partitions is None else [
            req.DescribeShareGroupOffsetsRequestTopic(topic_name=t, partitions=ps)
            for t, ps in partitions_by_topic(self.partitions).items()]
        return req(groups=[req.DescribeShareGroupOffsetsRequestGroup(  # type: ignore[no-any-return]
            group_id=g, topics=topics) for g in keys])

    def handle(self, node: int, keys: list[str], response: Any, version: int) -> dict[str, Outcome]:
        out: dict[str, Outcome] = {}
        for g in response.groups:
            # Group level: NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE (relookup), COORDINATOR_LOAD_IN_PROGRESS
            # (same node again), GROUP_AUTHORIZATION_FAILED, UNSUPPORTED_VERSION (share groups switched off on
            # the broker), INVALID_GROUP_ID: final.  An unknown group is not an error here: it has no offsets.
            bad = group_outcome(g.group_id, g.error_code, g.error_message)
            out[g.group_id] = bad if bad is not None else Done(self._offsets(g, version))
        return out

    def _offsets(self, g: Any, version: int) -> dict[TopicPartition, SharePartitionOffset | KafkaError]:
        got: dict[TopicPartition, SharePartitionOffset | KafkaError] = {}
        for t in g.topics:
            for p in t.partitions:
                tp = TopicPartition(t.topic_name, p.partition_index)
                err = error_for_code(p.error_code, p.error_message)
                if err is not None:
                    # TOPIC_AUTHORIZATION_FAILED, or the log end could not be read for the lag: this partition.
                    got[tp] = err
                elif p.start_offset >= 0:  # -1: the group has no state there (never read it, or no topic)
                    lag = p.lag if version >= LAG_SINCE and p.lag >= 0 else None
                    got[tp] = SharePartitionOffset(p.start_offset, p.leader_epoch if p.leader_epoch >= 0 else None,
                                                   lag)
        return got


class AlterShareGroupOffsets(Operation[TopicPartition]):
    """Set start offsets of one share group (it must be empty): per partition, None or the error."""

    api = ApiKey.ALTER_SHARE_GROUP_OFFSETS
    write = True

    def __init__(self, group_id: str, offsets: Mapping[TopicPartition, int]) -> None:
        self.group_id = group_id
        self.offsets = offsets
        self.lookup = OfGroup(group_id)

    def build(self, node: int, keys: list[TopicPartition], version: int) -> Message:
        req: Any = message_type(self.api, "request")
        return req(group_id=self.group_id, topics=[  # type: ignore[no-any-return]
            req.AlterShareGroupOffsetsRequestTopic(topic_name=t, partitions=[
                req.AlterShareGroupOffsetsRequestPartition(partition_index=p,
                                                           start_offset=self.offsets[TopicPartition(t, p)])
                for p in ps])
            for t, ps in partitions_by_topic(keys).items()])

    def handle(self, node: int, keys: list[TopicPartition], response: Any,
               version: int) -> dict[TopicPartition, Outcome]:
        # Top level, for every partition: NON_EMPTY_GROUP (the group has members: nothing was written; final,
        # stop the members first), GROUP_ID_NOT_FOUND (the id belongs to a group of another type),
        # GROUP_AUTHORIZATION_FAILED, INVALID_GROUP_ID: final; coordinator errors as in group_outcome.
        # Per partition: UNKNOWN_TOPIC_OR_PARTITION (no such topic or partition), TOPIC_AUTHORIZATION_FAILED:
        # final.
        top = _top_outcome(self.group_id, response.error_code, response.error_message)
        if top is not None:
            return dict.fromkeys(keys, top)
        return {TopicPartition(t.topic_name, p.partition_index): _item_outcome(p.error_code, p.error_message)
                for t in response.responses for p in t.partitions}


class DeleteShareGroupOffsets(Operation[str]):
    """Forget one share group's state for whole topics (keys are topic names): None or the error."""

    api = ApiKey.DELETE_SHARE_GROUP_OFFSETS
    write = True
    #: A resend after a lost answer that had deleted the topic's state finds none ("no offset information").
    applied_looks_like = frozenset({ErrorCode.UNKNOWN_TOPIC_OR_PARTITION})

    def __init__(self, group_id: str) -> None:
        self.group_id = group_id
        self.lookup = OfGroup(group_id)

    def build(self, node: int, keys: list[str], version: int) -> Message:
        req: Any = message_type(self.api, "request")
        return req(group_id=self.group_id, topics=[  # type: ignore[no-any-return]
            req.DeleteShareGroupOffsetsRequestTopic(topic_name=t) for t in keys])

    def handle(self, node: int, keys: list[str], response: Any, version: int) -> dict[str, Outcome]:
        # Top level, for every topic: GROUP_ID_NOT_FOUND (no such share group), NON_EMPTY_GROUP (it has
        # members: nothing deleted), GROUP_AUTHORIZATION_FAILED: final; coordinator errors as in group_outcome.
        # Per topic: UNKNOWN_TOPIC_OR_PARTITION (no such topic, or the group has no state in it),
        # TOPIC_AUTHORIZATION_FAILED: final.
        top = _top_outcome(self.group_id, response.error_code, response.error_message)
        if top is not None:
            return dict.fromkeys(keys, top)
        return {t.topic_name: _item_outcome(t.error_code, t.error_message) for t in response.responses}


# --- reset ------------------------------------------------------------------------------------------------


async def _known(positions: Positions) -> Positions:
    return positions  # already read (to reset "every partition the group has a start offset in")


async def reset(run: Runner, describe: Callable[[], Awaitable[GroupDescription | KafkaError]],
                offsets: Callable[[], Awaitable[dict[TopicPartition, SharePartitionOffset | KafkaError] | KafkaError]],
                group_id: str, topics: list[str], partitions: list[TopicPartition], everything: bool, to: ResetTo,
                dry_run: bool, deadline: Deadline) -> OffsetResetPlan:
    """kafka-share-groups.sh --reset-offsets: refuse a group with members, plan, write only when asked.

    ``everything``: reset every partition the group has a start offset in (no topics or partitions named)."""
    check_inactive(group_id, await describe())
    current = await offsets()
    expanded, missing = await expand_topics(run, topics, deadline)
    wanted = list(dict.fromkeys(partitions + expanded))
    if everything and not isinstance(current, KafkaError):
        wanted = sorted(current)
    planned = await plan_resets(run, wanted, to, deadline, _known(current),
                                lambda position: position.start_offset) if wanted else {}
    if not dry_run:
        ready = {tp: r.target for tp, r in planned.items() if isinstance(r, PartitionReset)}
        if ready:
            mark_written(planned, name_release(await run(AlterShareGroupOffsets(group_id, ready), list(ready),
                                                         deadline),
                                               ApiKey.ALTER_SHARE_GROUP_OFFSETS, "altering share-group offsets"))
    return OffsetResetPlan(group_id, to, dry_run, planned, missing)


__all__ = ["AlterShareGroupOffsets", "DeleteShareGroupOffsets", "DescribeShareGroupOffsets", "name_release",
           "reset"]
