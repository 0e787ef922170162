"""ShareGroupDescribe (key 77): share groups (KIP-932) as their coordinator holds them.

v0 is Kafka 4.0's early-access version (off by default there, so the 4.0 preset does not advertise it; a test
gives a broker a table with 77:0-0), v1 the stable one from 4.1, with the same fields.  Members join through
ShareGroupHeartbeat (kadmin/testing/handlers/share_group_heartbeat.py) or are seeded with
``add_group(..., group_type="share")``.
"""

from __future__ import annotations

from typing import Any

from kadmin.testing import authorizer as az
from kadmin.testing.handlers.base import (
    TOPIC_AUTHORIZATION_FAILED,
    RequestContext,
    Response,
    register,
    response_class,
)
from kadmin.testing.handlers.consumer_group_describe import assignment, described, not_found
from kadmin.testing.state.groups import ConsumerMember

API_KEY = 77


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)

    def member(m: ConsumerMember) -> Any:
        return R.Member(member_id=m.member_id, rack_id=m.rack_id, member_epoch=m.member_epoch,
                        client_id=m.client_id, client_host=m.host,
                        subscribed_topic_names=list(m.subscribed_topic_names),
                        assignment=assignment(R, ctx.state, m.assigned))

    include = bool(req.include_authorized_operations)
    groups = [described(ctx, R, gid, "share", include, member) for gid in req.group_ids]
    # KafkaApis: a group whose members share a topic the caller may not describe is TOPIC_AUTHORIZATION_FAILED
    # as a whole (clients must not learn of topics they cannot describe).
    for i, g in enumerate(groups):
        names = {t.topic_name for m in g.members for t in m.assignment.topic_partitions}
        if any(not ctx.authorize(az.TOPIC, t, az.DESCRIBE) for t in names):
            groups[i] = not_found(R, g.group_id, TOPIC_AUTHORIZATION_FAILED, None)
    return R(groups=groups)


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    R = response_class(API_KEY)
    return R(groups=[not_found(R, gid, code, None) for gid in req.group_ids])


register(API_KEY, handle=handle, error_response=error_response, keys=lambda req, _v: tuple(req.group_ids))
