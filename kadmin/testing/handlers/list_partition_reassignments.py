"""ListPartitionReassignments (key 46, KIP-455, Kafka 2.4+): the partitions being moved right now.

A null topic list lists every ongoing reassignment; otherwise the listed partitions that are being reassigned,
with unknown topics and partitions silently left out (as Kafka's controllers do).  Each entry carries all the
partition's current replicas and which of them are being added and removed.  In ZooKeeper mode only the
controller answers (others: top-level NOT_CONTROLLER); a KRaft broker forwards to the quorum.
"""

from __future__ import annotations

from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing import authorizer as az
from kadmin.testing.handlers.base import RequestContext, Response, register, response_class
from kadmin.testing.state.topics import Topics

API_KEY = ApiKey.LIST_PARTITION_REASSIGNMENTS


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    if not ctx.authorize(az.CLUSTER, az.CLUSTER_NAME, az.DESCRIBE):
        return R(error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED, error_message=None, topics=[])
    if not ctx.acts_as_controller():
        return R(error_code=ErrorCode.NOT_CONTROLLER, error_message="this broker is not the controller", topics=[])
    if req.topics is None:
        wanted = [(n, sorted(t.partitions)) for n, t in sorted(ctx.state.area(Topics).items())]
    else:
        wanted = [(t.name, list(t.partition_indexes)) for t in req.topics]
    topics = []
    for name, indexes in wanted:
        topic = ctx.state.area(Topics).get(name)
        if topic is None:
            continue
        parts = [R.OngoingPartitionReassignment(partition_index=i, replicas=list(p.replicas),
                                                adding_replicas=list(p.adding), removing_replicas=list(p.removing))
                 for i in indexes if (p := topic.partitions.get(i)) is not None and p.reassigning]
        if parts:
            topics.append(R.OngoingTopicReassignment(name=name, partitions=parts))
    return R(error_code=ErrorCode.NONE, error_message=None, topics=topics)


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    return response_class(API_KEY)(error_code=code, error_message=None, topics=[])


def keys(req: Any, version: int) -> tuple[str, ...]:
    if req.topics is None:
        return ()
    return tuple(f"{t.name}-{p}" for t in req.topics for p in t.partition_indexes)


register(API_KEY, handle=handle, error_response=error_response, keys=keys)
