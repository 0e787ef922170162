"""OffsetFetch (key 9): a group's committed offsets; OffsetCommit (8) lives in offset_commit.py.

OffsetFetch is single-group up to v7 and batched (``Groups``) from v8 (KIP-709, Kafka 3.0).
"""

from __future__ import annotations

from typing import Any

from kadmin.testing import authorizer as az
from kadmin.testing.handlers.base import (
    GROUP_AUTHORIZATION_FAILED,
    NONE,
    TOPIC_AUTHORIZATION_FAILED,
    RequestContext,
    Response,
    register,
    response_class,
)
from kadmin.testing.state.groups import CommittedOffset

API_KEY = 9


def _fetch_partitions(
    ctx: RequestContext, group_id: str, wanted: list[tuple[str, list[int]]] | None,
) -> list[tuple[str, list[tuple[int, CommittedOffset | None]]]]:
    """[(topic, [(partition, committed or None)])]; ``wanted`` None means every committed partition."""
    g = ctx.group(group_id)
    offsets = g.offsets if g is not None else {}
    if wanted is None:
        by_topic: dict[str, list[tuple[int, CommittedOffset | None]]] = {}
        for (topic, part), c in sorted(offsets.items()):
            # "All partitions" leaves out topics the principal may not describe (KafkaApis filters them).
            if ctx.authorize(az.TOPIC, topic, az.DESCRIBE):
                by_topic.setdefault(topic, []).append((part, c))
        return list(by_topic.items())
    return [(topic, [(p, offsets.get((topic, p)) if _topic_code(ctx, topic) == NONE else None) for p in parts])
            for topic, parts in wanted]


def _topic_code(ctx: RequestContext, topic: str) -> int:
    return NONE if ctx.authorize(az.TOPIC, topic, az.DESCRIBE) else TOPIC_AUTHORIZATION_FAILED


def _group_code(ctx: RequestContext, group_id: str) -> int:
    """DESCRIBE on the group first (KafkaApis), then the coordinator's own checks."""
    if not ctx.authorize(az.GROUP, group_id, az.DESCRIBE):
        return GROUP_AUTHORIZATION_FAILED
    return ctx.group_error(group_id)


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    if version >= 8:
        groups = []
        for rg in req.groups:
            err = _group_code(ctx, rg.group_id)
            topics = []
            if err == NONE:
                wanted = None if rg.topics is None else [(t.name, list(t.partition_indexes)) for t in rg.topics]
                for topic, parts in _fetch_partitions(ctx, rg.group_id, wanted):
                    topics.append(R.OffsetFetchResponseTopics(name=topic, partitions=[
                        R.OffsetFetchResponsePartitions(
                            partition_index=p, committed_offset=c.offset if c else -1,
                            committed_leader_epoch=c.leader_epoch if c else -1,
                            metadata=c.metadata if c else "", error_code=_topic_code(ctx, topic))
                        for p, c in parts]))
            groups.append(R.OffsetFetchResponseGroup(group_id=rg.group_id, topics=topics, error_code=err))
        return R(groups=groups)
    err = _group_code(ctx, req.group_id)
    wanted = None if req.topics is None else [(t.name, list(t.partition_indexes)) for t in req.topics]
    topics = []
    if err == NONE or version < 2:
        source: list[tuple[str, list[tuple[int, CommittedOffset | None]]]]
        if err == NONE:
            source = _fetch_partitions(ctx, req.group_id, wanted)
        else:
            source = [(t, [(p, None) for p in ps]) for t, ps in (wanted or [])]
        for topic, parts in source:
            topics.append(R.OffsetFetchResponseTopic(name=topic, partitions=[
                R.OffsetFetchResponsePartition(
                    partition_index=p, committed_offset=c.offset if c else -1,
                    committed_leader_epoch=c.leader_epoch if c else -1, metadata=c.metadata if c else "",
                    # v0-v1 have no top-level error: a group-level error goes on every partition.
                    error_code=err if version < 2 and err != NONE else _topic_code(ctx, topic)) for p, c in parts]))
    return R(topics=topics, error_code=err if version >= 2 else NONE)


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    R = response_class(API_KEY)
    if version >= 8:
        return R(groups=[R.OffsetFetchResponseGroup(group_id=g.group_id, error_code=code) for g in req.groups])
    if version >= 2:
        return R(error_code=code)
    return R(topics=[R.OffsetFetchResponseTopic(name=t.name, partitions=[
        R.OffsetFetchResponsePartition(partition_index=p, committed_offset=-1, metadata="", error_code=code)
        for p in t.partition_indexes]) for t in (req.topics or [])])


def keys(req: Any, version: int) -> tuple[str, ...]:
    return tuple(g.group_id for g in req.groups) if version >= 8 else (req.group_id,)


register(API_KEY, handle=handle, error_response=error_response, keys=keys)
