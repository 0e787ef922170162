"""What AlterShareGroupOffsets (91) and DeleteShareGroupOffsets (92) check alike before they write.

Both are admin writes to an empty share group (Kafka's GroupCoordinatorShard): an ACL on the group for the
whole request, the coordinator's own state, then the group itself (of another type: GROUP_ID_NOT_FOUND "not a
share group"; with members: NON_EMPTY_GROUP, nothing written), and READ on each topic named.  They differ only
in what an absent group means (alter makes it, delete refuses), which each handler says itself.
"""

from __future__ import annotations

from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.testing import authorizer as az
from kadmin.testing import consumer_groups as cg
from kadmin.testing.handlers.base import RequestContext, Response, response_class
from kadmin.testing.state.groups import Group
from kadmin.testing.state.topics import Topic, Topics

#: (error code, message, the group if it exists and is live); the code is NONE when the write may go on.
Checked = tuple[int, str | None, Group | None]


def check_empty_share_group(ctx: RequestContext, group_id: str, operation: int) -> Checked:
    """The request-level checks, in Kafka's order: the group ACL (``operation``), the coordinator's state, an
    empty id, then a live group's type and members.  A missing (or expired, Dead) group passes with None."""
    if not ctx.authorize(az.GROUP, group_id, operation):
        return ErrorCode.GROUP_AUTHORIZATION_FAILED, None, None
    err = ctx.group_error(group_id)
    if err != ErrorCode.NONE:
        return err, None, None
    if not group_id:
        return ErrorCode.INVALID_GROUP_ID, None, None
    g = ctx.group(group_id)
    if g is not None:
        cg.expire(ctx.state, g)
        if g.state == "Dead":
            g = None
    if g is not None and g.group_type != "share":
        return ErrorCode.GROUP_ID_NOT_FOUND, f"Group {group_id} is not a share group.", None
    if g is not None and g.consumer_members:
        return ErrorCode.NON_EMPTY_GROUP, "The group is not empty.", None
    return ErrorCode.NONE, None, g


def readable_topic(ctx: RequestContext, name: str) -> tuple[int, Topic | None]:
    """READ on the topic (TOPIC_AUTHORIZATION_FAILED, said whether or not it exists), then its existence."""
    if not ctx.authorize(az.TOPIC, name, az.READ):
        return ErrorCode.TOPIC_AUTHORIZATION_FAILED, None
    topic = ctx.state.area(Topics).get(name)
    return (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, None) if topic is None else (ErrorCode.NONE, topic)


def whole_request_error(api_key: int, code: int, message: str | None = None) -> Response:
    """The answer that refuses the whole request: the code at the top, no topics."""
    R: Any = response_class(api_key)
    return R(throttle_time_ms=0, error_code=code, error_message=message, responses=[])


__all__ = ["Checked", "check_empty_share_group", "readable_topic", "whole_request_error"]
