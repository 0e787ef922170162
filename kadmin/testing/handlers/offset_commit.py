"""OffsetCommit (key 8): members commit their positions; an admin (generation -1, no member) rewrites them.

Classic groups follow GroupCoordinator.handleCommitOffsets: an admin-style commit is accepted only while the
group has no members (and creates the group, Empty, if it does not exist); a member's commit must carry the
current generation.  Consumer-protocol groups (KIP-848) follow ConsumerGroup.validateOffsetCommit: an admin
commit only while the group has no members, a member's commit (v9+) with its current member epoch, else
STALE_MEMBER_EPOCH.  So an admin that resets offsets of an active group gets UNKNOWN_MEMBER_ID per partition,
and nothing is written.
"""

from __future__ import annotations

import time
from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.testing import authorizer as az
from kadmin.testing import classic_groups as classic
from kadmin.testing import consumer_groups as cg
from kadmin.testing.handlers.base import (
    GROUP_ID_NOT_FOUND,
    ILLEGAL_GENERATION,
    NONE,
    OFFSET_METADATA_MAX_BYTES,
    OFFSET_METADATA_TOO_LARGE,
    REBALANCE_IN_PROGRESS,
    UNKNOWN_MEMBER_ID,
    UNKNOWN_TOPIC_OR_PARTITION,
    RequestContext,
    Response,
    register,
    response_class,
)
from kadmin.testing.state.groups import CommittedOffset, Group, Groups
from kadmin.testing.state.topics import Topics

API_KEY = 8
STALE_MEMBER_EPOCH = 113


def _group_error(ctx: RequestContext, req: Any, version: int) -> int:
    err = ctx.group_error(req.group_id)
    if err != NONE:
        return err
    generation = req.generation_id_or_member_epoch if version >= 1 else -1
    member = req.member_id if version >= 1 else ""
    g = ctx.group(req.group_id)
    if g is None or g.state == "Dead":
        if generation < 0:
            ctx.state.area(Groups)[req.group_id] = Group(req.group_id, state="Empty", protocol_type="")
            return NONE
        return ILLEGAL_GENERATION
    if g.group_type == "consumer":
        cg.expire(ctx.state, g)
        if generation < 0 and not g.consumer_members:
            return NONE
        m = g.consumer_members.get(member)
        if m is None:
            return UNKNOWN_MEMBER_ID
        if generation != m.member_epoch:
            return STALE_MEMBER_EPOCH if version >= 9 else ILLEGAL_GENERATION
        return NONE
    if g.group_type == "streams":
        # StreamsGroup.validateOffsetCommit: an admin commit (no member, epoch -1) into an empty group; the
        # fake's seeded members never commit.
        return NONE if generation < 0 and g.state == "Empty" else UNKNOWN_MEMBER_ID
    if g.group_type != "classic":
        return GROUP_ID_NOT_FOUND  # share groups keep no committed offsets
    classic.expire(g)
    members = classic.runtime(g).members
    if not members:
        return NONE if generation < 0 else ILLEGAL_GENERATION
    if g.state == "CompletingRebalance":
        return REBALANCE_IN_PROGRESS
    if generation < 0 or member not in members:
        return UNKNOWN_MEMBER_ID
    if generation != g.generation_id:
        return ILLEGAL_GENERATION
    members[member].last_seen = time.monotonic()  # a commit counts as a heartbeat, as in Kafka
    return NONE


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    if not ctx.authorize(az.GROUP, req.group_id, az.READ):  # KafkaApis: READ on the group first
        return error_response(ctx, req, version, ErrorCode.GROUP_AUTHORIZATION_FAILED)
    R = response_class(API_KEY)
    group_err = _group_error(ctx, req, version)
    topics = []
    for t in req.topics:
        parts = []
        topic = ctx.state.area(Topics).get(t.name)
        for p in t.partitions:
            err = group_err
            if err == NONE:
                if topic is None or p.partition_index not in topic.partitions:
                    err = UNKNOWN_TOPIC_OR_PARTITION
                elif p.committed_metadata is not None and len(p.committed_metadata.encode()) > \
                        OFFSET_METADATA_MAX_BYTES:
                    err = OFFSET_METADATA_TOO_LARGE
                else:
                    g = ctx.state.area(Groups)[req.group_id]
                    g.offsets[(t.name, p.partition_index)] = CommittedOffset(
                        p.committed_offset, p.committed_leader_epoch if version >= 6 else -1,
                        p.committed_metadata or "")
            parts.append(R.OffsetCommitResponsePartition(partition_index=p.partition_index, error_code=err))
        topics.append(R.OffsetCommitResponseTopic(name=t.name, partitions=parts))
    return R(topics=topics)


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    R = response_class(API_KEY)
    return R(topics=[R.OffsetCommitResponseTopic(name=t.name, partitions=[
        R.OffsetCommitResponsePartition(partition_index=p.partition_index, error_code=code)
        for p in t.partitions]) for t in req.topics])


register(API_KEY, handle=handle, error_response=error_response, keys=lambda req, _v: (req.group_id,))
