"""AlterPartitionReassignments (key 45, KIP-455, Kafka 2.4+): start or cancel moving partitions' replicas.

As Kafka's controllers do: unknown topic or partition -> UNKNOWN_TOPIC_OR_PARTITION; an empty target, a broker
listed twice or a broker the cluster does not have -> INVALID_REPLICA_ASSIGNMENT; cancelling (null replicas)
where nothing moves -> NO_REASSIGNMENT_IN_PROGRESS; from v1 (KIP-860), with AllowReplicationFactorChange false, a
target of another size than the partition's replicas -> INVALID_REPLICATION_FACTOR.  An accepted move keeps the
target replicas followed by the leaving ones until the adding replicas catch up, which in the fake happens when a
test calls ``FakeCluster.finish_reassignments``; a move that adds no replica completes at once.  In ZooKeeper mode
only the controller answers (others: top-level NOT_CONTROLLER); a KRaft broker forwards to the quorum.
"""

from __future__ import annotations

from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing import authorizer as az
from kadmin.testing.handlers.base import RequestContext, Response, register, response_class
from kadmin.testing.state.topics import PartitionState, Topics

API_KEY = ApiKey.ALTER_PARTITION_REASSIGNMENTS


def _alter(ctx: RequestContext, part: PartitionState | None, replicas: list[int] | None,
           live: set[int], allow_rf_change: bool = True) -> tuple[int, str | None]:
    if part is None:
        return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "no such partition"
    if replicas is None:
        if not part.reassigning:
            return ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, "no reassignment is in progress for the partition"
        part.cancel_reassignment(live)
        return ErrorCode.NONE, None
    if not replicas:
        return ErrorCode.INVALID_REPLICA_ASSIGNMENT, "the replica list is empty"
    if len(set(replicas)) != len(replicas):
        return ErrorCode.INVALID_REPLICA_ASSIGNMENT, f"the replica list {replicas} lists a broker twice"
    unknown = sorted(set(replicas) - set(ctx.cluster.node_ids))
    if unknown:
        return ErrorCode.INVALID_REPLICA_ASSIGNMENT, f"no such broker(s): {unknown}"
    # v1 (KIP-860): AllowReplicationFactorChange false refuses a move to another number of replicas, counted
    # against the partition's replicas before any move under way (ReplicationControlManager).
    current = len(part.replicas) - len(part.adding)
    if not allow_rf_change and len(replicas) != current:
        return (ErrorCode.INVALID_REPLICATION_FACTOR,
                f"The replication factor is changed from {current} to {len(replicas)}")
    part.start_reassignment(replicas, live)
    return ErrorCode.NONE, None


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    if not ctx.authorize(az.CLUSTER, az.CLUSTER_NAME, az.ALTER):
        return R(error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED, error_message=None, responses=[])
    if not ctx.acts_as_controller():
        return R(error_code=ErrorCode.NOT_CONTROLLER, error_message="this broker is not the controller",
                 responses=[])
    live = ctx.live_ids()
    responses = []
    for t in req.topics:
        topic = ctx.state.area(Topics).get(t.name)
        parts = []
        for p in t.partitions:
            part = topic.partitions.get(p.partition_index) if topic is not None else None
            code, message = _alter(ctx, part, None if p.replicas is None else list(p.replicas), live,
                                   allow_rf_change=version < 1 or bool(req.allow_replication_factor_change))
            parts.append(R.ReassignablePartitionResponse(partition_index=p.partition_index, error_code=code,
                                                         error_message=message))
        responses.append(R.ReassignableTopicResponse(name=t.name, partitions=parts))
    return R(error_code=ErrorCode.NONE, error_message=None, responses=responses)


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    return response_class(API_KEY)(error_code=code, error_message=None, responses=[])


def keys(req: Any, version: int) -> tuple[str, ...]:
    return tuple(f"{t.name}-{p.partition_index}" for t in req.topics for p in t.partitions)


register(API_KEY, handle=handle, error_response=error_response, keys=keys)
