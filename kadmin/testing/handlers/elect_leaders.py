"""ElectLeaders (key 43): preferred (KIP-183) and unclean (KIP-460) leader elections, on the controller.

Per partition, as Kafka's controllers decide (KafkaController.processReplicaLeaderElection in ZooKeeper mode,
ReplicationControlManager.electLeader in KRaft):

* unknown topic or partition: UNKNOWN_TOPIC_OR_PARTITION;
* preferred: the first replica already leads -> ELECTION_NOT_NEEDED; it is not a live in-sync replica ->
  PREFERRED_LEADER_NOT_AVAILABLE; else it becomes the leader (new leader epoch);
* unclean: a live leader exists -> ELECTION_NOT_NEEDED; else the first live replica becomes the leader and the
  only in-sync replica, or ELIGIBLE_LEADERS_NOT_AVAILABLE if no replica is live.

A null partition list means every partition, and then the partitions that needed no election are left out of
the answer.  v0 (Kafka 2.2's ElectPreferredLeaders, the only version 2.2 has) knows preferred elections only
and predates ELECTION_NOT_NEEDED: a partition already led by its preferred replica is a success there.  In
ZooKeeper mode a broker that is not the controller answers NOT_CONTROLLER for every listed partition (and
nothing for a null list); a KRaft broker forwards to the controller quorum, so any broker answers.
"""

from __future__ import annotations

from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing import authorizer as az
from kadmin.testing.handlers.base import RequestContext, Response, register, response_class
from kadmin.testing.state.topics import PartitionState, Topics

API_KEY = ApiKey.ELECT_LEADERS
PREFERRED, UNCLEAN = 0, 1


def _elect(part: PartitionState, kind: int, live: set[int], before_kip460: bool) -> int:
    leader = part.leader_id(live)
    if kind == PREFERRED:
        preferred = part.replicas[0] if part.replicas else -1
        if leader == preferred and leader >= 0:
            return ErrorCode.NONE if before_kip460 else ErrorCode.ELECTION_NOT_NEEDED
        if preferred not in part.in_sync(live):
            return ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE
        part.leader = preferred
    else:
        if leader >= 0:
            return ErrorCode.ELECTION_NOT_NEEDED
        candidates = [r for r in part.replicas if r in live]
        if not candidates:
            return ErrorCode.ELIGIBLE_LEADERS_NOT_AVAILABLE
        part.leader = candidates[0]
        part.isr = [candidates[0]]
    part.leader_epoch += 1
    return ErrorCode.NONE


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    if not ctx.authorize(az.CLUSTER, az.CLUSTER_NAME, az.ALTER):
        return error_response(ctx, req, version, ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
    kind = req.election_type if version >= 1 else PREFERRED
    if kind not in (PREFERRED, UNCLEAN):
        return R(error_code=ErrorCode.INVALID_REQUEST, replica_election_results=[])
    everything = req.topic_partitions is None
    wanted: list[tuple[str, list[int]]]
    if everything:
        wanted = [(n, sorted(t.partitions)) for n, t in sorted(ctx.state.area(Topics).items())]
    else:
        wanted = [(t.topic, list(t.partitions)) for t in req.topic_partitions]
    if not ctx.acts_as_controller():
        if everything:
            return R(error_code=ErrorCode.NONE, replica_election_results=[])
        return error_response(ctx, req, version, ErrorCode.NOT_CONTROLLER, top_level=False)
    live = ctx.live_ids()
    before_kip460 = ctx.table.get(API_KEY, (0, 0))[1] == 0
    results = []
    for name, indexes in wanted:
        topic = ctx.state.area(Topics).get(name)
        parts = []
        for index in indexes:
            part = topic.partitions.get(index) if topic is not None else None
            code = (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION if part is None
                    else _elect(part, kind, live, before_kip460))
            if everything and code == ErrorCode.ELECTION_NOT_NEEDED:
                continue
            parts.append(R.PartitionResult(partition_id=index, error_code=code,
                                           error_message=None if code == ErrorCode.NONE else _message(code)))
        if parts or not everything or not ctx.zookeeper_mode:
            results.append(R.ReplicaElectionResult(topic=name, partition_result=parts))
    return R(error_code=ErrorCode.NONE, replica_election_results=results)


def _message(code: int) -> str:
    return ErrorCode(code).name.lower().replace("_", " ")


def error_response(ctx: RequestContext, req: Any, version: int, code: int, top_level: bool = True) -> Response:
    """An error for every listed partition (and, from v1, at the top level too when injected)."""
    R = response_class(API_KEY)
    results = [R.ReplicaElectionResult(topic=t.topic, partition_result=[
        R.PartitionResult(partition_id=p, error_code=code, error_message=None) for p in t.partitions])
        for t in (req.topic_partitions or [])]
    return R(error_code=code if top_level and version >= 1 else ErrorCode.NONE, replica_election_results=results)


def keys(req: Any, version: int) -> tuple[str, ...]:
    if req.topic_partitions is None:
        return ()
    return tuple(f"{t.topic}-{p}" for t in req.topic_partitions for p in t.partitions)


register(API_KEY, handle=handle, error_response=error_response, keys=keys)
