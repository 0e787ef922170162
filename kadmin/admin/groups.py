"""Consumer groups: describe, delete, list, committed offsets and lag.

Describe and delete look up every group's coordinator, group the ids by coordinator, and send one request per
coordinator, concurrently.  Committed offsets batch many groups per request from OffsetFetch v8 (KIP-709) and
fall back to one request per group below, through the same builder mechanism as FindCoordinator.
"""

from __future__ import annotations

import logging
import struct
from typing import Any

from kadmin._keys import partitions_by_topic
from kadmin.admin._driver import Done, Failed, Operation, Outcome, Retry
from kadmin.admin.coordinators import CoordinatorLookup
from kadmin.admin.lookups import AllNodes
from kadmin.errors import (
    ErrorCode,
    GroupIdNotFoundError,
    KafkaError,
    ProtocolError,
    UnsupportedVersionError,
    error_for_code,
)
from kadmin.protocol import Message, message_type
from kadmin.protocol.apis import ApiKey
from kadmin.types import GROUP_STATES as GROUP_STATES  # re-exported: the operations' home
from kadmin.types import GROUP_TYPES as GROUP_TYPES
from kadmin.types import (
    ConsumerAssignment,
    ConsumerSubscription,
    GroupDescription,
    GroupListing,
    MemberDescription,
    OffsetAndMetadata,
    TopicPartition,
    decode_authorized_operations,
)

log = logging.getLogger("kadmin.admin")

#: KIP-709: OffsetFetch carries many groups from v8.
OFFSET_FETCH_BATCHED_SINCE = 8

# Codes after which the key must be asked again: after a new lookup (the coordinator moved or is not up yet),
# or on the same coordinator (it is loading the group's partition).
_RELOOKUP = {ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.NOT_COORDINATOR}
_SAME_NODE = {ErrorCode.COORDINATOR_LOAD_IN_PROGRESS}


def group_outcome(group_id: str, code: int, message: str | None = None) -> Outcome | None:
    """None when ``code`` is 0; otherwise the per-group outcome of a coordinator's error code."""
    err = error_for_code(code, message)
    if err is None:
        return None
    if code in _RELOOKUP:
        return Retry(err, relookup=True)
    if code in _SAME_NODE or err.retriable:
        return Retry(err)
    return Failed(err)


def validate_group_ids(group_ids: Any, *, what: str = "group_ids") -> list[str]:
    """Refuse bad input before any I/O: a list of non-empty strings, duplicates collapsed."""
    if isinstance(group_ids, (str, bytes)):
        raise TypeError(f"{what} must be a list of strings, not a single {type(group_ids).__name__}")
    try:
        items = list(group_ids)
    except TypeError:
        raise TypeError(f"{what} must be an iterable of strings, not {type(group_ids).__name__}") from None
    if not items:
        raise ValueError(f"{what} is empty")
    for g in items:
        if not isinstance(g, str):
            raise TypeError(f"{what} must contain strings; got {g!r} ({type(g).__name__})")
        if not g:
            raise ValueError(f"{what} contains an empty group id")
        check_kafka_string(g, what)
    return list(dict.fromkeys(items))




def validate_group_states(states: Any) -> list[str] | None:
    """States matched case-insensitively and returned in Kafka's spelling; an unknown one is a ValueError
    (a typo must not silently filter everything out)."""
    if states is None:
        return None
    if isinstance(states, (str, bytes)):
        raise TypeError("states must be a list of strings, not a single string")
    by_lower = {k.lower(): k for k in GROUP_STATES}
    out: list[str] = []
    for v in states:
        if not isinstance(v, str):
            raise TypeError(f"states must contain strings; got {v!r}")
        known = by_lower.get(v.strip().lower())
        if known is None:
            raise ValueError(f"unknown group state {v!r}; one of {', '.join(GROUP_STATES)}")
        if known not in out:
            out.append(known)
    return out


def validate_group_types(types: Any) -> list[str] | None:
    """Group types matched case-insensitively (Kafka's GroupType.parse) and returned in Kafka's spelling; an
    unknown one is a ValueError naming the valid ones, before any I/O."""
    if types is None:
        return None
    if isinstance(types, (str, bytes)):
        raise TypeError("types must be a list of strings, not a single string")
    out: list[str] = []
    for v in types:
        if not isinstance(v, str) or not v:
            raise ValueError(f"types must contain non-empty strings; got {v!r}")
        known = v.strip().lower()
        if known not in GROUP_TYPES:
            raise ValueError(f"unknown group type {v!r}; one of {', '.join(GROUP_TYPES)}")
        if known not in out:
            out.append(known)
    return out


def check_kafka_string(value: str, what: str) -> None:
    """A Kafka string: valid UTF-8 of at most 32767 bytes (an int16 length on the wire)."""
    try:
        size = len(value.encode("utf-8"))
    except UnicodeEncodeError:
        raise ValueError(f"{what}: {value[:40]!r} cannot be encoded as UTF-8 (lone surrogate)") from None
    if size > 32767:
        raise ValueError(f"{what}: an id of {size} bytes is longer than Kafka's limit of 32767 bytes")


# --- describe -------------------------------------------------------------------------------------------


class DescribeByCoordinator(Operation[str]):
    """The describe APIs of KIP-848-era groups (ConsumerGroupDescribe, ShareGroupDescribe,
    StreamsGroupDescribe): the same request (group ids, authorized operations asked or not) to each coordinator
    for all of its groups, the same per-group errors; only the description differs (``_description``)."""

    def __init__(self, include_authorized_operations: bool) -> None:
        self.include_ops = include_authorized_operations
        self.lookup = CoordinatorLookup()

    def build(self, node: int, keys: list[str], version: int) -> Message:
        return message_type(self.api, "request")(group_ids=keys, include_authorized_operations=self.include_ops)

    def handle(self, node: int, keys: list[str], response: Any, version: int) -> dict[str, Outcome]:
        out: dict[str, Outcome] = {}
        for g in response.groups:
            # GROUP_ID_NOT_FOUND: no such group, or one of another type ("not a consumer group"): final here;
            #   describe_any_protocol asks DescribeGroups before it reports a consumer group missing.
            # UNSUPPORTED_VERSION: a 3.x broker advertising the API with the consumer protocol switched off:
            #   final here; the classic DescribeGroups is the way to this group.
            # NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE: the coordinator moved or is starting: relookup.
            # COORDINATOR_LOAD_IN_PROGRESS: ask the same coordinator again after a backoff.
            # GROUP_AUTHORIZATION_FAILED, INVALID_GROUP_ID, INVALID_REQUEST: final.
            bad = group_outcome(g.group_id, g.error_code, g.error_message)
            out[g.group_id] = bad if bad is not None else Done(self._description(node, g, version))
        return out

    def _description(self, node: int, g: Any, version: int) -> Any:
        raise NotImplementedError


class DescribeGroups(Operation[str]):
    """Classic group descriptions, one request per coordinator for all of its groups."""

    api = ApiKey.DESCRIBE_GROUPS

    def __init__(self, include_authorized_operations: bool) -> None:
        self.include_ops = include_authorized_operations
        self.lookup = CoordinatorLookup()

    def build(self, node: int, keys: list[str], version: int) -> Message:
        req = message_type(ApiKey.DESCRIBE_GROUPS, "request")
        if version >= 3:
            return req(groups=keys, include_authorized_operations=self.include_ops)
        return req(groups=keys)

    def handle(self, node: int, keys: list[str], response: Any, version: int) -> dict[str, Outcome]:
        out: dict[str, Outcome] = {}
        for g in response.groups:
            bad = group_outcome(g.group_id, g.error_code, getattr(g, "error_message", None))
            if bad is not None:
                out[g.group_id] = bad
                continue
            if g.group_state == "Dead" and not g.members:
                # DescribeGroups v0-v5 report an unknown group as "Dead" with no error; v6 says
                # GROUP_ID_NOT_FOUND.  Both mean the same thing to a caller.
                out[g.group_id] = Failed(GroupIdNotFoundError(
                    f"group {g.group_id!r} does not exist (coordinator {node} reported state Dead)"))
                continue
            out[g.group_id] = Done(_description(g, node, version, self.include_ops))
        return out


def _description(g: Any, node_id: int, version: int, include_ops: bool) -> GroupDescription:
    members = []
    for m in g.members:
        sub = asg = None
        if g.protocol_type == "consumer":
            sub = decode_subscription(m.member_metadata)
            asg = decode_assignment(m.member_assignment)
        members.append(MemberDescription(
            member_id=m.member_id,
            group_instance_id=m.group_instance_id,
            client_id=m.client_id,
            host=m.client_host,
            metadata=bytes(m.member_metadata),
            assignment_bytes=bytes(m.member_assignment),
            subscription=sub,
            assignment=asg,
            # The fields every protocol has, so that "who reads what" reads the same for KIP-848 groups.
            subscribed_topic_names=sub.topics if sub is not None else (),
            current_assignment=asg.partitions if asg is not None else (),
        ))
    # Only when asked: some brokers fill the field anyway (Tansu sends -1, i.e. every bit set).
    ops = decode_authorized_operations(g.authorized_operations) if version >= 3 and include_ops else None
    return GroupDescription(
        group_id=g.group_id,
        state=g.group_state,
        protocol_type=g.protocol_type,
        protocol=g.protocol_data,
        members=tuple(members),
        coordinator=node_id,
        authorized_operations=ops,
    )


def _embedded(data: bytes, schema: str) -> tuple[int, Any] | None:
    """Consumer protocol blobs are an int16 version followed by the struct at that version; a newer version
    than we know is read at our newest (Kafka's rule: newer versions only append fields)."""
    if len(data) < 2:
        return None
    (version,) = struct.unpack_from(">h", data, 0)
    cls = message_type(schema)
    if version < 0:
        return None
    v = min(version, cls.MAX_VERSION)
    try:
        obj, _ = cls.decode_from(bytes(data), 2, v)
    except ProtocolError:
        return None
    return version, obj


def decode_subscription(data: bytes) -> ConsumerSubscription | None:
    got = _embedded(data, "ConsumerProtocolSubscription")
    if got is None:
        return None
    version, s = got
    owned = tuple(TopicPartition(tp.topic, p) for tp in s.owned_partitions for p in tp.partitions)
    return ConsumerSubscription(version=version, topics=tuple(s.topics), user_data=s.user_data,
                                owned_partitions=owned, generation_id=s.generation_id, rack_id=s.rack_id)


def decode_assignment(data: bytes) -> ConsumerAssignment | None:
    if not data:
        return None
    got = _embedded(data, "ConsumerProtocolAssignment")
    if got is None:
        return None
    version, a = got
    parts = tuple(TopicPartition(tp.topic, p) for tp in a.assigned_partitions for p in tp.partitions)
    return ConsumerAssignment(version=version, partitions=parts, user_data=a.user_data)


# --- delete ---------------------------------------------------------------------------------------------


class DeleteGroups(Operation[str]):
    """Deletes groups, one request per coordinator.  A write: a lost answer leaves the group in doubt."""

    api = ApiKey.DELETE_GROUPS
    write = True
    #: A resend after a lost answer that had deleted the group finds no group.
    applied_looks_like = frozenset({ErrorCode.GROUP_ID_NOT_FOUND})

    def __init__(self) -> None:
        self.lookup = CoordinatorLookup()

    def build(self, node: int, keys: list[str], version: int) -> Message:
        return message_type(ApiKey.DELETE_GROUPS, "request")(groups_names=keys)

    def handle(self, node: int, keys: list[str], response: Any, version: int) -> dict[str, Outcome]:
        out: dict[str, Outcome] = {}
        for r in response.results:
            bad = group_outcome(r.group_id, r.error_code, r.error_message)  # the message: v3+ (None before)
            out[r.group_id] = bad if bad is not None else Done(None)
        return out


# --- list -----------------------------------------------------------------------------------------------


class ListGroups(Operation[int]):
    """Every broker's groups (keys are node ids): each broker coordinates its own share of the groups."""

    api = ApiKey.LIST_GROUPS

    def __init__(self, states: list[str] | None, types: list[str] | None) -> None:
        self.states = states
        self.types = types
        self.lookup = AllNodes()

    def build(self, node: int, keys: list[int], version: int) -> Message:
        # The state and type filters are the whole request's (one list per broker, no per-key part): all fail.
        if self.states is not None and version < 4:
            raise UnsupportedVersionError(
                f"node {node} speaks ListGroups up to v{version}; filtering by state needs v4+ (Kafka 2.6)")
        if self.types is not None and version < 5:
            raise UnsupportedVersionError(
                f"node {node} speaks ListGroups up to v{version}; filtering by type needs v5+ (Kafka 3.8)")
        kwargs: dict[str, Any] = {}
        if version >= 4:
            kwargs["states_filter"] = self.states or []
        if version >= 5:
            kwargs["types_filter"] = self.types or []
        return message_type(ApiKey.LIST_GROUPS, "request")(**kwargs)

    def handle(self, node: int, keys: list[int], response: Any, version: int) -> dict[int, Outcome]:
        err = error_for_code(response.error_code)
        if err is not None:
            # COORDINATOR_LOAD_IN_PROGRESS / COORDINATOR_NOT_AVAILABLE: the broker is still loading its
            # groups: ask again.  Anything else is this broker's answer.
            return {node: Retry(err) if err.retriable else Failed(err)}
        listed = [GroupListing(g.group_id, g.protocol_type, g.group_state or None if version >= 4 else None,
                               g.group_type or None if version >= 5 else None, node) for g in response.groups]
        if self.types:
            # A broker that ignores the type filter (Tansu lists every group as classic whatever is asked) must
            # not make a classic group look like the streams group the caller asked for: each listing names its
            # type, so one of another type is left out here too.
            kept = [g for g in listed if g.group_type is None or g.group_type.lower() in self.types]
            if len(kept) != len(listed):
                log.debug("node %d listed %d group(s) of types other than %s; left out", node,
                          len(listed) - len(kept), self.types)
            listed = kept
        return {node: Done(listed)}


# --- committed offsets ----------------------------------------------------------------------------------






class OffsetFetch(Operation[str]):
    """Committed offsets: every group of a coordinator in one request from v8 (KIP-709), one per group below."""

    api = ApiKey.OFFSET_FETCH

    def __init__(self, partitions: list[TopicPartition] | None) -> None:
        self.partitions = partitions
        self.lookup = CoordinatorLookup()

    def build(self, node: int, keys: list[str], version: int) -> Message | list[tuple[Message, list[str]]]:
        req: Any = message_type(ApiKey.OFFSET_FETCH, "request")
        topics = partitions_by_topic(self.partitions) if self.partitions is not None else None
        if version >= OFFSET_FETCH_BATCHED_SINCE:
            T, G = req.OffsetFetchRequestTopics, req.OffsetFetchRequestGroup
            tlist = None if topics is None else [T(name=t, partition_indexes=ps) for t, ps in topics.items()]
            return req(groups=[G(group_id=g, topics=tlist) for g in keys])  # type: ignore[no-any-return]
        if topics is None and version < 2:
            # "All partitions" is the call's option, the same for every group: no group can travel without it.
            raise UnsupportedVersionError(
                f"OffsetFetch v{version} cannot fetch all partitions of a group; pass partitions explicitly")
        T1 = req.OffsetFetchRequestTopic
        tl = None if topics is None else [T1(name=t, partition_indexes=ps) for t, ps in topics.items()]
        return [(req(group_id=g, topics=tl), [g]) for g in keys]

    def handle(self, node: int, keys: list[str], response: Any, version: int) -> dict[str, Outcome]:
        r = response
        if version >= OFFSET_FETCH_BATCHED_SINCE:
            out: dict[str, Outcome] = {}
            for g in r.groups:
                bad = group_outcome(g.group_id, g.error_code)
                out[g.group_id] = bad if bad is not None else self._partitions(g.group_id, g.topics)
            return out
        gid = keys[0]
        bad = group_outcome(gid, r.error_code) if version >= 2 else None
        if bad is not None:
            return {gid: bad}
        return {gid: self._partitions(gid, r.topics)}

    def _partitions(self, group_id: str, topics: Any) -> Outcome:
        offsets: dict[TopicPartition, OffsetAndMetadata | KafkaError] = {}
        for t in topics:
            for p in t.partitions:
                tp = TopicPartition(t.name, p.partition_index)
                if p.error_code:
                    # Per-partition coordinator errors (old brokers) concern the whole group.
                    if p.error_code in _RELOOKUP or p.error_code in _SAME_NODE:
                        return group_outcome(group_id, p.error_code)  # type: ignore[return-value]
                    offsets[tp] = error_for_code(p.error_code)  # type: ignore[assignment]
                    continue
                if p.committed_offset < 0:
                    continue  # no committed offset for this partition
                epoch = getattr(p, "committed_leader_epoch", -1)
                offsets[tp] = OffsetAndMetadata(p.committed_offset, p.metadata, epoch if epoch >= 0 else None)
        return Done(offsets)


__all__ = ["DeleteGroups", "DescribeByCoordinator", "DescribeGroups", "ListGroups", "OffsetFetch", "validate_group_ids",
           "validate_group_types"]
