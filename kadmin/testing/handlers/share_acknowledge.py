"""ShareAcknowledge (key 79): a share-group member acknowledges records it acquired, outside a fetch.

READ on the group, else GROUP_AUTHORIZATION_FAILED; the share session must exist and the epoch be its next one
(0 cannot open a session here: INVALID_SHARE_SESSION_EPOCH), -1 acknowledges and closes it; per partition the
acknowledgements are applied as in ShareFetch (kadmin/testing/handlers/share_common.py), INVALID_RECORD_STATE
for a batch naming records the member does not hold, NOT_LEADER_OR_FOLLOWER where this broker does not lead the
partition, UNKNOWN_TOPIC_ID for a topic id the cluster does not have.
"""

from __future__ import annotations

from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.testing import authorizer as az
from kadmin.testing import share_groups as sg
from kadmin.testing.handlers import share_common as sc
from kadmin.testing.handlers.base import RequestContext, Response, register, response_class
from kadmin.testing.handlers.records_common import find_partition, node_endpoints
from kadmin.testing.state.topics import Topics

API_KEY = 79


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    if not ctx.authorize(az.GROUP, req.group_id or "", az.READ):
        return error_response(ctx, req, version, ErrorCode.GROUP_AUTHORIZATION_FAILED)
    if not req.group_id or not req.member_id:
        return _top(ErrorCode.INVALID_REQUEST, "GroupId and MemberId are required.")
    code, _session = sc.session_for(ctx, req.group_id, req.member_id, req.share_session_epoch, may_open=False)
    if code != ErrorCode.NONE:
        return _top(code, None)
    names = sc.names_by_id(ctx)
    topics = ctx.state.area(Topics)
    live = ctx.live_ids()
    leaders: set[int] = set()
    out = []
    for t in req.topics:
        name = names.get(t.topic_id)
        parts = []
        for p in t.partitions:
            pd = R.PartitionData(partition_index=p.partition_index, error_code=ErrorCode.NONE,
                                 current_leader=R.LeaderIdAndEpoch(leader_id=-1, leader_epoch=-1))
            if name is None:
                pd.error_code = ErrorCode.UNKNOWN_TOPIC_ID
                parts.append(pd)
                continue
            found = find_partition(ctx, topics.get(name), name, p.partition_index, az.READ, live)
            if found.code != ErrorCode.NONE:
                pd.error_code = found.code
                if found.code == ErrorCode.NOT_LEADER_OR_FOLLOWER and found.part is not None:
                    pd.current_leader = R.LeaderIdAndEpoch(leader_id=found.leader,
                                                           leader_epoch=found.part.leader_epoch)
                    if found.leader >= 0:
                        leaders.add(found.leader)
            else:
                assert found.part is not None
                pd.current_leader = R.LeaderIdAndEpoch(leader_id=ctx.node_id, leader_epoch=found.part.leader_epoch)
                pd.error_code = sc.acknowledge(ctx, req.group_id, req.member_id, name, p.partition_index, found.part,
                                               list(p.acknowledgement_batches))
            parts.append(pd)
        out.append(R.ShareAcknowledgeTopicResponse(topic_id=t.topic_id, partitions=parts))
    if req.share_session_epoch == -1:
        sc.close_session(ctx, req.group_id, req.member_id)
    return R(throttle_time_ms=0, error_code=ErrorCode.NONE, error_message=None,
             acquisition_lock_timeout_ms=int(sg.lock_seconds(ctx.state) * 1000), responses=out,
             node_endpoints=node_endpoints(ctx, R, leaders) if leaders else [])


def _top(code: int, message: str | None) -> Response:
    return response_class(API_KEY)(throttle_time_ms=0, error_code=code, error_message=message, responses=[],
                                   node_endpoints=[])


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    return _top(code, None)


register(API_KEY, handle=handle, error_response=error_response,
         keys=lambda req, _v: (req.group_id or "", req.member_id or ""))
