"""Checks and placement shared by the topic-changing handlers (CreateTopics, CreatePartitions).

Kafka's rules (Topic.validate, ReplicationControlManager / ZK AdminManager), with Kafka's messages: a name is
1-249 characters of [a-zA-Z0-9._-] and not "." or ".."; two names that differ only in '.' versus '_' collide
(metric names would clash); replicas are placed round-robin over the live brokers, as Kafka's rack-unaware
assignment does.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kadmin._error_codes import ErrorCode
from kadmin.testing.state.base import ClusterState
from kadmin.testing.state.topics import Topics

_LEGAL = re.compile(r"[a-zA-Z0-9._-]+")


def flattened(state: ClusterState) -> dict[str, str]:
    """{name with '.' as '_': name} of every topic, for the collision check (built once per request)."""
    return {t.replace(".", "_"): t for t in state.area(Topics)}


def name_error(state: ClusterState, name: str, flat_names: dict[str, str] | None = None) -> tuple[int, str] | None:
    if not name:
        return ErrorCode.INVALID_TOPIC_EXCEPTION, "Topic name is illegal, it can't be empty"
    if name in (".", ".."):
        return ErrorCode.INVALID_TOPIC_EXCEPTION, "Topic name cannot be \".\" or \"..\""
    if len(name) > 249:
        return ErrorCode.INVALID_TOPIC_EXCEPTION, (f"Topic name is illegal, it can't be longer than 249 "
                                                   f"characters, topic name: {name}")
    if not _LEGAL.fullmatch(name):
        return ErrorCode.INVALID_TOPIC_EXCEPTION, (f"Topic name \"{name}\" is illegal, it contains a character "
                                                   "other than ASCII alphanumerics, '.', '_' and '-'")
    if name in state.area(Topics):
        return ErrorCode.TOPIC_ALREADY_EXISTS, f"Topic '{name}' already exists."
    other = (flat_names if flat_names is not None else flattened(state)).get(name.replace(".", "_"))
    if other is not None:
        return ErrorCode.INVALID_TOPIC_EXCEPTION, f"Topic '{name}' collides with existing topic: {other}"
    return None


def assignment_error(assignment: Sequence[Sequence[int]], live: set[int], rf: int | None = None,
                     ) -> tuple[int, str] | None:
    """INVALID_REPLICA_ASSIGNMENT for empty, duplicated, unknown or uneven replica lists."""
    bad = ErrorCode.INVALID_REPLICA_ASSIGNMENT
    for replicas in assignment:
        if not replicas:
            return bad, "Empty replica assignment"
        if len(set(replicas)) != len(replicas):
            return bad, f"Duplicate brokers not allowed in replica assignment: {', '.join(map(str, replicas))}"
        unknown = sorted(set(replicas) - live)
        if unknown:
            return bad, f"Unknown broker(s) in replica assignment: {', '.join(map(str, unknown))}."
    sizes = {len(r) for r in assignment}
    if rf is not None:
        sizes.add(rf)
    if len(sizes) > 1:
        return bad, "All partitions should have the same number of replicas"
    return None


def place(live: Sequence[int], first: int, count: int, rf: int, start: int) -> list[list[int]]:
    """Round-robin replica lists for partitions ``first``..``first+count-1``."""
    nodes = sorted(live)
    return [[nodes[(start + p + i) % len(nodes)] for i in range(rf)] for p in range(first, first + count)]
