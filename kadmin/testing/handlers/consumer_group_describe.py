"""ConsumerGroupDescribe (key 69): consumer-protocol groups (KIP-848) as their coordinator holds them.

A classic group is not one: Kafka answers GROUP_ID_NOT_FOUND ("not a consumer group"), just as the classic
DescribeGroups answers a consumer-protocol group Dead / GROUP_ID_NOT_FOUND, so a client must ask the right API
(or both).  v1 (Kafka 4.0, KIP-1099) adds each member's type: 1 for a consumer-protocol member (the fake has no
classic members inside consumer-protocol groups).
"""

from __future__ import annotations

from typing import Any

from kadmin.testing import authorizer as az
from kadmin.testing import consumer_groups as cg
from kadmin.testing.handlers.base import (
    AUTH_OPS_NOT_REQUESTED,
    GROUP_AUTHORIZATION_FAILED,
    GROUP_ID_NOT_FOUND,
    NONE,
    RequestContext,
    Response,
    register,
    response_class,
)
from kadmin.testing.state.base import ClusterState
from kadmin.testing.state.groups import ConsumerMember
from kadmin.testing.state.topics import Topics

API_KEY = 69
#: AclOperation bits a superuser holds on a group: READ (3), DELETE (6), DESCRIBE (8), DESCRIBE_CONFIGS (10),
#: ALTER_CONFIGS (11).
GROUP_OPS = sum(1 << b for b in (3, 6, 8, 10, 11))
CONSUMER_MEMBER = 1


def assignment(R: Any, state: ClusterState, parts: frozenset[tuple[str, int]]) -> Any:
    by_topic: dict[str, list[int]] = {}
    for t, p in sorted(parts):
        by_topic.setdefault(t, []).append(p)
    return R.Assignment(topic_partitions=[
        R.TopicPartitions(topic_id=state.area(Topics)[t].topic_id, topic_name=t, partitions=ps)
        for t, ps in by_topic.items() if t in state.area(Topics)])


def not_found(R: Any, group_id: str, code: int, message: str | None) -> Any:
    return R.DescribedGroup(error_code=code, error_message=message, group_id=group_id, group_state="",
                            group_epoch=-1, assignment_epoch=-1, assignor_name="", members=[])


def described(ctx: RequestContext, R: Any, group_id: str, group_type: str, include_ops: bool,
              member: Any) -> Any:
    """One group of ``group_type`` (consumer or share), or the error Kafka gives for it."""
    # KafkaApis checks DESCRIBE on the group before its coordinator looks.
    err = GROUP_AUTHORIZATION_FAILED if not ctx.authorize(az.GROUP, group_id, az.DESCRIBE) else \
        ctx.group_error(group_id)
    if err != NONE:
        return not_found(R, group_id, err, None)
    g = ctx.group(group_id)
    if g is not None:
        cg.expire(ctx.state, g)
    if g is None or g.state == "Dead":
        return not_found(R, group_id, GROUP_ID_NOT_FOUND, f"Group {group_id} not found.")
    if g.group_type != group_type:
        return not_found(R, group_id, GROUP_ID_NOT_FOUND, f"Group {group_id} is not a {group_type} group.")
    return R.DescribedGroup(
        error_code=NONE, error_message=None, group_id=group_id, group_state=g.state, group_epoch=g.group_epoch,
        assignment_epoch=g.assignment_epoch, assignor_name=g.assignor,
        members=[member(m) for m in g.consumer_members.values()],
        authorized_operations=(AUTH_OPS_NOT_REQUESTED if not include_ops else
                               ctx.authorized_operations(az.GROUP, group_id) if ctx.cluster.has_authorizer
                               else GROUP_OPS))


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)

    def member(m: ConsumerMember) -> Any:
        extra = {"member_type": CONSUMER_MEMBER} if version >= 1 else {}
        return R.Member(member_id=m.member_id, instance_id=m.instance_id, rack_id=m.rack_id,
                        member_epoch=m.member_epoch, client_id=m.client_id, client_host=m.host,
                        subscribed_topic_names=list(m.subscribed_topic_names),
                        subscribed_topic_regex=m.subscribed_topic_regex,
                        assignment=assignment(R, ctx.state, m.assigned),
                        target_assignment=assignment(R, ctx.state, m.target), **extra)

    include = bool(req.include_authorized_operations)
    return R(groups=[described(ctx, R, gid, "consumer", include, member) for gid in req.group_ids])


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    R = response_class(API_KEY)
    return R(groups=[not_found(R, gid, code, None) for gid in req.group_ids])


register(API_KEY, handle=handle, error_response=error_response, keys=lambda req, _v: tuple(req.group_ids))
