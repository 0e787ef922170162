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

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing import authorizer as az
from kadmin.testing.handlers.base import RequestContext, Response, register, response_class
from kadmin.testing.handlers.share_offset_common import (
    check_empty_share_group,
    readable_topic,
    whole_request_error,
)
from kadmin.testing.state.share_groups import ShareStates

API_KEY = ApiKey.DELETE_SHARE_GROUP_OFFSETS


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    gid = req.group_id
    code, message, g = check_empty_share_group(ctx, gid, az.DELETE)
    if code != ErrorCode.NONE:
        return whole_request_error(API_KEY, code, message)
    if g is None:  # unlike an alter, a delete does not make the group
        return whole_request_error(API_KEY, ErrorCode.GROUP_ID_NOT_FOUND, f"Share group {gid} not found.")
    states = ctx.state.area(ShareStates)
    out = []
    for t in req.topics:
        code, topic = readable_topic(ctx, t.topic_name)
        message = None
        if topic is not None and not states.drop_topic(gid, t.topic_name):
            code, message = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "There is no offset information to delete."
        tid = topic.topic_id if topic is not None and code == ErrorCode.NONE else uuid.UUID(int=0)
        out.append(R.DeleteShareGroupOffsetsResponseTopic(topic_name=t.topic_name, topic_id=tid, error_code=code,
                                                          error_message=message))
    return R(throttle_time_ms=0, error_code=ErrorCode.NONE, error_message=None, responses=out)


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    return whole_request_error(API_KEY, code)


register(API_KEY, handle=handle, error_response=error_response, keys=lambda req, _v: (req.group_id,))
