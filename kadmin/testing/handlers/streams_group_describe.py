"""StreamsGroupDescribe (key 89): streams groups (KIP-1071) as their coordinator holds them.

Groups are seeded (``cluster.add_streams_group``): the fake serves no StreamsGroupHeartbeat.  A group of
another type is GROUP_ID_NOT_FOUND ("not a streams group"), as Kafka's coordinator answers it; v1 (KIP-1331)
adds the assignor's name (the topology description it can add is never filled: the fake keeps none).
"""

from __future__ import annotations

from typing import Any

from kadmin.testing import authorizer as az
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
from kadmin.testing.handlers.consumer_group_describe import GROUP_OPS
from kadmin.testing.state.streams_groups import StreamsGroupData, StreamsGroups, StreamsMember, StreamsTopic

API_KEY = 89


def _not_found(R: Any, group_id: str, code: int, message: str | None) -> Any:
    return R.DescribedGroup(error_code=code, error_message=message, group_id=group_id, group_state="",
                            group_epoch=-1, assignment_epoch=-1, topology=None, members=[])


def _tasks(R: Any, tasks: dict[str, tuple[int, ...]] | Any) -> list[Any]:
    return [R.TaskIds(subtopology_id=s, partitions=list(ps)) for s, ps in sorted(tasks.items())]


def _topics(R: Any, topics: tuple[StreamsTopic, ...]) -> list[Any]:
    return [R.TopicInfo(name=t.name, partitions=t.partitions, replication_factor=t.replication_factor,
                        topic_configs=[R.KeyValue(key=k, value=v) for k, v in sorted(t.configs.items())])
            for t in topics]


def _member(R: Any, m: StreamsMember) -> Any:
    assignment = R.Assignment(active_tasks=_tasks(R, m.active), standby_tasks=_tasks(R, m.standby),
                              warmup_tasks=_tasks(R, m.warmup))
    ep = None if m.user_endpoint is None else R.Endpoint(host=m.user_endpoint[0], port=m.user_endpoint[1])
    return R.Member(member_id=m.member_id, member_epoch=m.member_epoch, instance_id=m.instance_id,
                    rack_id=m.rack_id, client_id=m.client_id, client_host=m.host,
                    topology_epoch=m.topology_epoch, process_id=m.process_id, user_endpoint=ep,
                    client_tags=[R.KeyValue(key=k, value=v) for k, v in sorted(m.client_tags.items())],
                    task_offsets=[], task_end_offsets=[], assignment=assignment,
                    # Seeded members have reached their target: the coordinator holds no move under way.
                    target_assignment=assignment, is_classic=m.is_classic)


def _topology(R: Any, data: StreamsGroupData) -> Any:
    if data.subtopologies is None:
        return None
    return R.Topology(epoch=data.topology_epoch, subtopologies=[
        R.Subtopology(subtopology_id=s.subtopology_id, source_topics=list(s.source_topics),
                      repartition_sink_topics=list(s.repartition_sink_topics),
                      state_changelog_topics=_topics(R, s.state_changelog_topics),
                      repartition_source_topics=_topics(R, s.repartition_source_topics))
        for s in data.subtopologies])


def _described(ctx: RequestContext, R: Any, group_id: str, include_ops: bool, version: int) -> Any:
    err = GROUP_AUTHORIZATION_FAILED if not ctx.authorize(az.GROUP, group_id, az.DESCRIBE) else \
        ctx.group_error(group_id)
    if err != NONE:
        return _not_found(R, group_id, err, None)
    g = ctx.group(group_id)
    if g is None or g.state == "Dead":
        return _not_found(R, group_id, GROUP_ID_NOT_FOUND, f"Group {group_id} not found.")
    data = ctx.state.area(StreamsGroups).get(group_id)
    if g.group_type != "streams" or data is None:
        return _not_found(R, group_id, GROUP_ID_NOT_FOUND, f"Group {group_id} is not a streams group.")
    extra = {"assignor_name": g.assignor} if version >= 1 else {}
    ops = (AUTH_OPS_NOT_REQUESTED if not include_ops else
           ctx.authorized_operations(az.GROUP, group_id) if ctx.cluster.has_authorizer else GROUP_OPS)
    return R.DescribedGroup(
        error_code=NONE, error_message=None, group_id=group_id, group_state=g.state, group_epoch=g.group_epoch,
        assignment_epoch=g.assignment_epoch, topology=_topology(R, data),
        members=[_member(R, m) for m in data.members], authorized_operations=ops, **extra)


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    include = bool(req.include_authorized_operations)
    return R(groups=[_described(ctx, R, gid, include, version) for gid in req.group_ids])


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    R = response_class(API_KEY)
    return R(groups=[_not_found(R, gid, code, None) for gid in req.group_ids])


register(API_KEY, handle=handle, error_response=error_response, keys=lambda req, _v: tuple(req.group_ids))
