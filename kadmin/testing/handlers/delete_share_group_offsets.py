"""DeleteShareGroupOffsets (key 92): forget a share group's state for whole topics.

Kafka's rules (KafkaApis / GroupCoordinatorShard.initiateDeleteShareGroupOffsets): DELETE on the group, else
GROUP_AUTHORIZATION_FAILED for the whole request; READ on each topic, else TOPIC_AUTHORIZATION_FAILED for it;
a group that does not exist or is not a share group is GROUP_ID_NOT_FOUND, one with members NON_EMPTY_GROUP
(nothing deleted); a topic that does not exist, or in which the group has no share state,
UNKNOWN_TOPIC_OR_PARTITION.  A member subscribing to the topic afterwards starts again from the group's
share.auto.offset.reset.
"""

from __future__ import annotations

import uuid
from typing import Any

from kadmin.testing import authorizer as az
from kadmin.testing import consumer_groups as cg
from kadmin.testing.handlers.base import (
    GROUP_AUTHORIZATION_FAILED,
    GROUP_ID_NOT_FOUND,
    NON_EMPTY_GROUP,
    NONE,
    TOPIC_AUTHORIZATION_FAILED,
    UNKNOWN_TOPIC_OR_PARTITION,
    RequestContext,
    Response,
    register,
    response_class,
)
from kadmin.testing.state.share_groups import ShareStates
from kadmin.testing.state.topics import Topics

API_KEY = 92
INVALID_GROUP_ID = 24


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    gid = req.group_id
    if not ctx.authorize(az.GROUP, gid, az.DELETE):
        return error_response(ctx, req, version, GROUP_AUTHORIZATION_FAILED)
    err = ctx.group_error(gid)
    if err != NONE:
        return error_response(ctx, req, version, err)
    if not gid:
        return error_response(ctx, req, version, INVALID_GROUP_ID)
    g = ctx.group(gid)
    if g is not None:
        cg.expire(ctx.state, g)
    if g is None or g.state == "Dead":
        return _top(R, GROUP_ID_NOT_FOUND, f"Share group {gid} not found.")
    if g.group_type != "share":
        return _top(R, GROUP_ID_NOT_FOUND, f"Group {gid} is not a share group.")
    if g.consumer_members:
        return _top(R, NON_EMPTY_GROUP, "The group is not empty.")
    topics = ctx.state.area(Topics)
    states = ctx.state.area(ShareStates)
    out = []
    for t in req.topics:
        topic = topics.get(t.topic_name)
        message = None
        if not ctx.authorize(az.TOPIC, t.topic_name, az.READ):
            code = TOPIC_AUTHORIZATION_FAILED
        elif topic is None:
            code = UNKNOWN_TOPIC_OR_PARTITION
        elif not states.drop_topic(gid, t.topic_name):
            code, message = UNKNOWN_TOPIC_OR_PARTITION, "There is no offset information to delete."
        else:
            code = NONE
        tid = topic.topic_id if topic is not None and code == NONE else uuid.UUID(int=0)
        out.append(R.DeleteShareGroupOffsetsResponseTopic(topic_name=t.topic_name, topic_id=tid, error_code=code,
                                                          error_message=message))
    return R(throttle_time_ms=0, error_code=NONE, error_message=None, responses=out)


def _top(R: Any, code: int, message: str | None) -> Response:
    return R(throttle_time_ms=0, error_code=code, error_message=message, responses=[])


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    return _top(response_class(API_KEY), code, None)


register(API_KEY, handle=handle, error_response=error_response, keys=lambda req, _v: (req.group_id,))
