"""Groups of every protocol described: classic, consumer (KIP-848) and share (KIP-932).

From Kafka 4.0 a group made by consumers with ``group.protocol=consumer`` is not a classic group: the classic
DescribeGroups answers it Dead / GROUP_ID_NOT_FOUND although ListGroups lists it, and only ConsumerGroupDescribe
(API 69) describes it; the other way round, ConsumerGroupDescribe answers a classic group GROUP_ID_NOT_FOUND.
So :func:`describe_any_protocol` asks each group's coordinator the API its type calls for (the type as
ListGroups v5+ reported it, where known: ConsumerGroupDescribe for a consumer-protocol group, DescribeGroups
otherwise, as most groups are still classic) and asks the other API before it reports a group missing, per
group and per coordinator (a coordinator that does not speak ConsumerGroupDescribe is not asked it).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

from kadmin.admin._driver import Operation
from kadmin.admin._lane import LANE
from kadmin.admin.groups import DescribeByCoordinator, DescribeGroups
from kadmin.errors import GroupIdNotFoundError, KafkaError, UnsupportedVersionError
from kadmin.network.retry import Deadline
from kadmin.protocol.apis import ApiKey
from kadmin.types import GroupDescription, MemberDescription, TopicPartition, decode_authorized_operations

K = TypeVar("K")
#: How aio.AdminClient runs an operation (its ``_run``): keys in, {key: value or KafkaError} out.
Runner = Callable[[Operation[Any], list[Any], Deadline], Awaitable[dict[Any, Any]]]

#: ConsumerGroupDescribe v1 (KIP-1099) names each member's protocol.
_MEMBER_TYPES = {0: "classic", 1: "consumer"}


def _partitions(assignment: Any) -> tuple[TopicPartition, ...]:
    if assignment is None:
        return ()
    return tuple(TopicPartition(t.topic_name, p) for t in assignment.topic_partitions for p in t.partitions)


class ConsumerGroupDescribe(DescribeByCoordinator):
    """Consumer-protocol groups (KIP-848), one request per coordinator for all of its groups."""

    api = ApiKey.CONSUMER_GROUP_DESCRIBE
    group_type = "consumer"

    def _description(self, node: int, g: Any, version: int) -> GroupDescription:
        members = tuple(self._member(m) for m in g.members)
        return GroupDescription(
            group_id=g.group_id, state=g.group_state, protocol_type=self.group_type, protocol=g.assignor_name,
            members=members, coordinator=node,
            authorized_operations=decode_authorized_operations(g.authorized_operations) if self.include_ops else None,
            group_type=self.group_type, group_epoch=g.group_epoch, assignment_epoch=g.assignment_epoch)

    def _member(self, m: Any) -> MemberDescription:
        return MemberDescription(
            member_id=m.member_id, group_instance_id=m.instance_id, client_id=m.client_id, host=m.client_host,
            metadata=b"", assignment_bytes=b"", member_epoch=m.member_epoch, rack_id=m.rack_id,
            subscribed_topic_names=tuple(m.subscribed_topic_names), subscribed_topic_regex=m.subscribed_topic_regex,
            current_assignment=_partitions(m.assignment), target_assignment=_partitions(m.target_assignment),
            member_type=_MEMBER_TYPES.get(getattr(m, "member_type", -1)))


class ShareGroupDescribe(ConsumerGroupDescribe):
    """Share groups (KIP-932): members, their epochs, subscriptions and the partitions they share."""

    api = ApiKey.SHARE_GROUP_DESCRIBE
    group_type = "share"

    def _member(self, m: Any) -> MemberDescription:
        return MemberDescription(
            member_id=m.member_id, group_instance_id=None, client_id=m.client_id, host=m.client_host,
            metadata=b"", assignment_bytes=b"", member_epoch=m.member_epoch, rack_id=m.rack_id,
            subscribed_topic_names=tuple(m.subscribed_topic_names),
            current_assignment=_partitions(m.assignment))


def _falls_back(result: Any) -> bool:
    """Whether the other API may know the group: this one does not know it, or cannot be asked."""
    return isinstance(result, (GroupIdNotFoundError, UnsupportedVersionError))


def _detail(group_id: str, err: Any) -> str:
    """What one API said about a missing group, without the "group 'g' does not exist" the merged message
    already says (it used to be said three times in one line)."""
    text = str(getattr(err, "message", None) or err).strip()
    head = f"group {group_id!r} does not exist"
    if text.startswith(head):
        text = text[len(head):].strip(" :;")
        if text.startswith("(") and text.endswith(")"):
            text = text[1:-1]
    return text


def _merge(group_id: str, first: Any, second: Any, known_type: str | None) -> Any:
    """The answer once both APIs were asked."""
    if not isinstance(second, KafkaError):
        return second
    if isinstance(second, UnsupportedVersionError):
        second = first  # the coordinator has no second API: the first answer stands
    if isinstance(second, GroupIdNotFoundError) and isinstance(first, (GroupIdNotFoundError, UnsupportedVersionError)):
        if known_type in ("share", "streams"):
            return GroupIdNotFoundError(
                f"group {group_id!r} is a {known_type} group, not a consumer group"
                + f"; describe it with describe_{known_type}_groups")
        details = "; ".join(dict.fromkeys(d for d in (_detail(group_id, first), _detail(group_id, second)) if d))
        return GroupIdNotFoundError(f"group {group_id!r} does not exist: its coordinator knows it neither as a "
                                    f"classic nor as a consumer-protocol group" + (f" ({details})" if details else ""))
    return second


async def describe_any_protocol(run: Runner, group_ids: list[str], include_ops: bool, deadline: Deadline,
                                known_types: Mapping[str, str]) -> dict[str, GroupDescription | KafkaError]:
    """Each group through ConsumerGroupDescribe or DescribeGroups, whichever knows it (see the module docstring).

    ``known_types``: group types ListGroups v5+ reported earlier.  A known consumer-protocol group is asked
    with ConsumerGroupDescribe first, any other with DescribeGroups first; the second API only for groups the
    first did not know (a coordinator that does not speak ConsumerGroupDescribe fails those groups without a
    request, and the first answer stands).
    """
    def order(g: str) -> tuple[str, str]:
        return ("consumer", "classic") if known_types.get(g) == "consumer" else ("classic", "consumer")

    async def ask(api: str, ids: list[str]) -> dict[str, Any]:
        if not ids:
            return {}
        if api == "consumer":
            return await run(ConsumerGroupDescribe(include_ops), ids, deadline)
        return await run(DescribeGroups(include_ops), ids, deadline)

    async def stage(which: int, ids: list[str]) -> dict[str, Any]:
        by_api = {api: gs for api in ("consumer", "classic") if (gs := [g for g in ids if order(g)[which] == api])}
        if len(by_api) < 2:
            # One API to ask (the usual case: every group of the call is classic, or the second stage has
            # nothing left), or none: awaited in place, without gather's two tasks and their event-loop turns
            # (issue #28: a one-group describe took 8 turns and 4 tasks, twice what its one request needs).
            return await ask(*next(iter(by_api.items()))) if by_api else {}
        # On the sync client's calling thread (kadmin.admin._lane) there is no event loop to gather on: one API
        # after the other there, each one request on the lane.
        parts = ([await ask(api, gs) for api, gs in by_api.items()] if LANE.get() is not None
                 else await asyncio.gather(*(ask(api, gs) for api, gs in by_api.items())))
        return {g: r for part in parts for g, r in part.items()}

    first = await stage(0, group_ids)
    again = [g for g in group_ids if _falls_back(first[g])]
    second = await stage(1, again)
    out: dict[str, GroupDescription | KafkaError] = {}
    for g in group_ids:
        out[g] = _merge(g, first[g], second[g], known_types.get(g)) if g in second else first[g]
    return out


__all__ = ["ConsumerGroupDescribe", "ShareGroupDescribe", "describe_any_protocol"]
