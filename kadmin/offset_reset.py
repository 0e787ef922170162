"""Writing a group's committed offsets: where to reset to, the plan a reset makes, members to remove.

Typed inputs and results of ``alter_consumer_group_offsets``, ``reset_consumer_group_offsets``,
``delete_consumer_group_offsets`` and ``remove_members_from_consumer_group``, and the checks made on their
input before any I/O (TypeError/ValueError).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from kadmin._keys import normalise_keys
from kadmin.errors import KafkaError
from kadmin.topics import validate_topic_name
from kadmin.types import OffsetAndMetadata, TopicPartition

_KINDS = ("earliest", "latest", "timestamp", "duration", "shift", "offset")


@dataclass(frozen=True)
class ResetTo:
    """Where ``reset_consumer_group_offsets`` moves each partition (kafka-consumer-groups.sh's --to-* options).

    ``ResetTo.earliest()`` / ``.latest()``: the log start / end; ``.timestamp(ms)`` or ``.datetime(dt)``: the
    first offset at or after that time (the log end if there is none); ``.duration(td)``: that long before now;
    ``.shift_by(n)``: the committed offset plus ``n`` (negative goes back); ``.offset(n)``: ``n``.  Every target
    is clamped to [log start, log end].  ``"earliest"``, ``"latest"``, a timezone-aware ``datetime`` and a
    ``timedelta`` are accepted wherever a ResetTo is.
    """

    kind: str
    value: int = 0

    def __post_init__(self) -> None:
        if self.kind not in _KINDS:
            raise ValueError(f"unknown reset target {self.kind!r}; one of {', '.join(_KINDS)}")
        if isinstance(self.value, bool) or not isinstance(self.value, int):
            raise TypeError(f"a reset target's value must be an int, not {type(self.value).__name__}")
        if self.kind in ("timestamp", "duration", "offset") and self.value < 0:
            raise ValueError(f"a {self.kind} to reset to must not be negative, got {self.value}")

    @classmethod
    def earliest(cls) -> ResetTo:
        return cls("earliest")

    @classmethod
    def latest(cls) -> ResetTo:
        return cls("latest")

    @classmethod
    def timestamp(cls, ms: int) -> ResetTo:
        """Milliseconds since the epoch."""
        return cls("timestamp", ms)

    @classmethod
    def datetime(cls, when: dt.datetime) -> ResetTo:
        if not isinstance(when, dt.datetime):
            raise TypeError(f"expected a datetime, not {type(when).__name__}")
        if when.tzinfo is None:
            raise ValueError("a datetime without a timezone is ambiguous; give it one (e.g. tzinfo=timezone.utc)")
        return cls("timestamp", int(when.timestamp() * 1000))

    @classmethod
    def duration(cls, ago: dt.timedelta | int) -> ResetTo:
        """A timedelta, or milliseconds, before the moment the plan is made."""
        ms = int(ago.total_seconds() * 1000) if isinstance(ago, dt.timedelta) else ago
        return cls("duration", ms)

    @classmethod
    def shift_by(cls, n: int) -> ResetTo:
        return cls("shift", n)

    @classmethod
    def offset(cls, n: int) -> ResetTo:
        return cls("offset", n)

    @classmethod
    def of(cls, value: Any) -> ResetTo:
        """A ResetTo from what a caller may pass: a ResetTo, "earliest"/"latest", a datetime, a timedelta."""
        if isinstance(value, ResetTo):
            return value
        if isinstance(value, str):
            name = value.strip().lower()
            if name in ("earliest", "latest"):
                return cls(name)
            raise ValueError(f"unknown reset target {value!r}: 'earliest', 'latest', or a ResetTo "
                             f"(ResetTo.offset(n), .shift_by(n), .timestamp(ms), .datetime(dt), .duration(td))")
        if isinstance(value, dt.datetime):
            return cls.datetime(value)
        if isinstance(value, dt.timedelta):
            return cls.duration(value)
        raise TypeError(f"to= must be 'earliest', 'latest', a ResetTo, a datetime or a timedelta, not "
                        f"{type(value).__name__} (an int is ambiguous: ResetTo.offset(n) or ResetTo.timestamp(ms))")

    def __str__(self) -> str:
        return {"earliest": "earliest", "latest": "latest", "timestamp": f"timestamp {self.value} ms",
                "duration": f"{self.value} ms ago", "shift": f"shift by {self.value:+d}",
                "offset": f"offset {self.value}"}[self.kind]


_DURATION = re.compile(r"P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?", re.IGNORECASE)


def parse_duration(text: str) -> dt.timedelta:
    """ISO-8601 durations as kafka-consumer-groups.sh's --by-duration takes them: PnDTnHnMnS (e.g. P1DT2H30M)."""
    m = _DURATION.fullmatch(text.strip())
    if m is None or not any(m.groups()) or text.strip().upper().endswith("T"):
        raise ValueError(f"{text!r} is not a duration like P1D, PT2H, PT30M or P1DT2H30M")
    days, hours, minutes, seconds = m.groups()
    return dt.timedelta(days=int(days or 0), hours=int(hours or 0), minutes=int(minutes or 0),
                        seconds=float(seconds or 0))


@dataclass(frozen=True)
class PartitionReset:
    """One partition's line of a reset plan: where the group is (``current``: None without a committed
    offset), where it goes (``target``), the log's bounds, and the unclamped ``requested`` position."""

    current: int | None
    target: int
    log_start: int
    log_end: int
    requested: int
    #: Written to the group (only when the reset was not a dry run and the coordinator accepted it).
    applied: bool = False

    @property
    def clamped(self) -> bool:
        return self.requested != self.target

    @property
    def change(self) -> int | None:
        return None if self.current is None else self.target - self.current


@dataclass(frozen=True)
class OffsetResetPlan:
    """What ``reset_consumer_group_offsets`` planned, and with ``dry_run=False`` what it wrote.

    ``partitions``: each partition's :class:`PartitionReset`, or the error that kept it from being planned or
    written (a deleted topic, a commit the coordinator refused).  ``topics``: topics named without partitions
    that could not be listed."""

    group_id: str
    target: ResetTo
    dry_run: bool
    partitions: dict[TopicPartition, PartitionReset | KafkaError]
    topics: dict[str, KafkaError]

    @property
    def errors(self) -> dict[TopicPartition | str, KafkaError]:
        out: dict[TopicPartition | str, KafkaError] = {tp: r for tp, r in self.partitions.items()
                                                       if isinstance(r, KafkaError)}
        out.update(self.topics)
        return out

    @property
    def complete(self) -> bool:
        """Every partition planned (and, unless a dry run, written)."""
        return not self.errors


@dataclass(frozen=True)
class MemberToRemove:
    """A member to remove from a group: by ``member_id``, or a static member by ``group_instance_id``."""

    member_id: str = ""
    group_instance_id: str | None = None

    def __str__(self) -> str:
        return f"instance {self.group_instance_id}" if self.group_instance_id is not None else self.member_id


# --- input checks -----------------------------------------------------------------------------------------


def _partition(p: Any, what: str) -> TopicPartition:
    tp = TopicPartition(*p) if isinstance(p, tuple) and len(p) == 2 else p
    if not isinstance(tp, TopicPartition):
        raise TypeError(f"{what} must contain TopicPartition or (topic, partition) pairs; got {p!r}")
    if not isinstance(tp.topic, str) or not tp.topic:
        raise ValueError(f"invalid topic in {tp!r}")
    # These partitions are written (committed, reset, deleted): a name no topic can have is refused here.
    validate_topic_name(tp.topic, f"topic name in {what}")
    if isinstance(tp.partition, bool) or not isinstance(tp.partition, int) or not 0 <= tp.partition < 2**31:
        raise ValueError(f"invalid partition in {tp!r}")
    return tp


def check_offsets(offsets: Any) -> tuple[dict[TopicPartition, OffsetAndMetadata], dict[TopicPartition, Any]]:
    """{TopicPartition: OffsetAndMetadata} checked (non-empty, offsets >= 0, an int is an offset without
    metadata), and {TopicPartition: the caller's key} to answer by (two spellings of one partition,
    ``("t", 0)`` and ``TopicPartition("t", 0)``, are refused: which offset would win?)."""
    if not isinstance(offsets, Mapping):
        raise TypeError(f"offsets must be a mapping of TopicPartition to OffsetAndMetadata, not "
                        f"{type(offsets).__name__}")
    if not offsets:
        raise ValueError("offsets is empty")
    keys = normalise_keys(offsets, lambda p: _partition(p, "offsets"), "alter_consumer_group_offsets", "partition")
    out: dict[TopicPartition, OffsetAndMetadata] = {}
    for tp, p in keys.items():
        v = offsets[p]
        om = OffsetAndMetadata(v) if isinstance(v, int) and not isinstance(v, bool) else v
        if not isinstance(om, OffsetAndMetadata):
            raise TypeError(f"offsets[{tp}] must be an OffsetAndMetadata or an int, not {type(v).__name__}")
        if isinstance(om.offset, bool) or not isinstance(om.offset, int) or om.offset < 0:
            raise ValueError(f"offsets[{tp}]: an offset must be an int >= 0, not {om.offset!r}")
        if om.metadata is not None and not isinstance(om.metadata, str):
            raise TypeError(f"offsets[{tp}]: metadata must be a string or None")
        out[tp] = om
    return out, keys


def check_partition_keys(partitions: Any, what: str = "partitions") -> dict[TopicPartition, Any]:
    """{TopicPartition: the caller's key} for a non-empty list of partitions (the same key twice is one
    question; two spellings of one partition are refused)."""
    if isinstance(partitions, (str, bytes, TopicPartition)) or not isinstance(partitions, Iterable):
        raise TypeError(f"{what} must be a list of TopicPartition (or (topic, partition) pairs)")
    keys = normalise_keys(partitions, lambda p: _partition(p, what), what, "partition")
    if not keys:
        raise ValueError(f"{what} is empty")
    return keys


def validate_partition_list(partitions: Any, what: str = "partitions") -> list[TopicPartition]:
    return list(check_partition_keys(partitions, what))


def validate_reset_scope(scope: Any) -> tuple[list[str], list[TopicPartition]]:
    """Topics (every partition) and partitions a reset covers: a list of topic names and/or partitions."""
    if isinstance(scope, (str, TopicPartition)):
        scope = [scope]
    if isinstance(scope, bytes) or not isinstance(scope, Iterable):
        raise TypeError("partitions must be a list of topic names and/or TopicPartition")
    topics: list[str] = []
    parts: list[TopicPartition] = []
    for item in scope:
        if isinstance(item, str):
            if not item:
                raise ValueError("an empty topic name")
            topics.append(validate_topic_name(item, "topic name in partitions"))
        else:
            parts.append(_partition(item, "partitions"))
    if not topics and not parts:
        raise ValueError("partitions is empty: name the topics or partitions to reset")
    return list(dict.fromkeys(topics)), list(dict.fromkeys(parts))


def validate_members(members: Any) -> list[MemberToRemove] | None:
    """None (every member), or member ids / MemberToRemove; an empty list is refused (it would do nothing)."""
    if members is None:
        return None
    if isinstance(members, (str, bytes, MemberToRemove)) or not isinstance(members, Iterable):
        raise TypeError("members must be a list of member ids or MemberToRemove (None: every member)")
    out: list[MemberToRemove] = []
    for m in members:
        item = MemberToRemove(m) if isinstance(m, str) else m
        if not isinstance(item, MemberToRemove):
            raise TypeError(f"members must contain member ids or MemberToRemove; got {m!r}")
        if not item.member_id and not item.group_instance_id:
            raise ValueError(f"{item!r} names no member: give a member id or a group instance id")
        out.append(item)
    if not out:
        raise ValueError("members is empty (pass None to remove every member)")
    return list(dict.fromkeys(out))


__all__ = ["MemberToRemove", "OffsetResetPlan", "PartitionReset", "ResetTo", "check_offsets",
           "check_partition_keys", "parse_duration", "validate_members", "validate_partition_list",
           "validate_reset_scope"]
