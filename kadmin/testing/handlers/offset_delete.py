"""OffsetDelete (key 47, KIP-496): remove a group's committed offsets for some partitions.

GroupCoordinator.handleDeleteOffsets: an unknown group is GROUP_ID_NOT_FOUND; an empty group loses any
offsets asked for; a live consumer group keeps the offsets of topics its members subscribe to
(GROUP_SUBSCRIBED_TO_TOPIC per partition) and loses the others; any other live group is NON_EMPTY_GROUP.
A partition without a committed offset is no error.
"""

from __future__ import annotations

import struct
from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.protocol import message_type
from kadmin.testing import authorizer as az
from kadmin.testing import classic_groups as classic
from kadmin.testing import consumer_groups as cg
from kadmin.testing.handlers.base import (
    GROUP_ID_NOT_FOUND,
    NON_EMPTY_GROUP,
    NONE,
    RequestContext,
    Response,
    register,
    response_class,
)
from kadmin.testing.state.base import ClusterState
from kadmin.testing.state.groups import Group

API_KEY = 47
GROUP_SUBSCRIBED_TO_TOPIC = 86


def _classic_topics(metadata: bytes) -> set[str]:
    """Topics of a consumer-protocol subscription blob (int16 version, then the struct)."""
    if len(metadata) < 2:
        return set()
    cls = message_type("ConsumerProtocolSubscription")
    version = min(struct.unpack_from(">h", metadata)[0], cls.MAX_VERSION)
    try:
        sub, _ = cls.decode_from(bytes(metadata), 2, version)
    except Exception:  # noqa: BLE001 - a foreign blob subscribes to nothing we can name
        return set()
    return set(sub.topics)


def _subscribed(state: ClusterState, g: Group) -> set[str] | None:
    """Topics the live members subscribe to; None when the group is live but not a consumer group."""
    if g.group_type == "classic":
        if g.protocol_type != "consumer":
            return None
        return {t for m in g.members for t in _classic_topics(m.metadata)}
    return {t for m in g.consumer_members.values() for t in cg.subscribed_topics(state, m)}


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    if not ctx.authorize(az.GROUP, req.group_id, az.DELETE):  # KafkaApis: DELETE on the group first
        return error_response(ctx, req, version, ErrorCode.GROUP_AUTHORIZATION_FAILED)
    R = response_class(API_KEY)
    err = ctx.group_error(req.group_id)
    g = ctx.group(req.group_id)
    if err == NONE and (g is None or g.state == "Dead"):
        err = GROUP_ID_NOT_FOUND
    if err != NONE or g is None:
        return R(error_code=err, topics=[])
    classic.expire(g)
    cg.expire(ctx.state, g)
    subscribed: set[str] = set()
    if classic.has_live_members(g):
        live = _subscribed(ctx.state, g)
        if live is None:
            return R(error_code=NON_EMPTY_GROUP, topics=[])
        subscribed = live
    topics = []
    for t in req.topics:
        parts = []
        for p in t.partitions:
            if t.name in subscribed:
                code = GROUP_SUBSCRIBED_TO_TOPIC
            else:
                g.offsets.pop((t.name, p.partition_index), None)
                code = NONE
            parts.append(R.OffsetDeleteResponsePartition(partition_index=p.partition_index, error_code=code))
        topics.append(R.OffsetDeleteResponseTopic(name=t.name, partitions=parts))
    return R(error_code=NONE, topics=topics)


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    return response_class(API_KEY)(error_code=code, topics=[])


register(API_KEY, handle=handle, error_response=error_response, keys=lambda req, _v: (req.group_id,))
