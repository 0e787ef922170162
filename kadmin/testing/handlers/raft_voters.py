"""AddRaftVoter (key 80) and RemoveRaftVoter (key 81): change a KRaft quorum's voters (KIP-853).

Kafka's checks, in its order: ALTER on the cluster (CLUSTER_AUTHORIZATION_FAILED), a matching cluster id if one
is given (INCONSISTENT_CLUSTER_ID), then a dynamic quorum: with kraft.version 0 (the cluster's finalized level,
kadmin/testing/state/features.py) the voter set is static and the answer is UNSUPPORTED_VERSION in the body.
Then, on the quorum model of kadmin/testing/state/quorum.py:

* add: a node already voting is DUPLICATE_VOTER; the new voter must be an observer, a live broker with that
  directory id (else INVALID_REQUEST: the fake does not wait for a replica that is not fetching);
* remove: a voter key (id and directory id) not in the set is VOTER_NOT_FOUND; the last voter cannot go
  (INVALID_REQUEST: the quorum would be empty).  Removing the leader starts a new epoch with another leader.

A client always gets a readable answer at once, never a closed connection or a wait.
"""

from __future__ import annotations

from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing import authorizer as az
from kadmin.testing.handlers.base import RequestContext, Response, register, response_class
from kadmin.testing.state.features import Features
from kadmin.testing.state.quorum import Quorum, directory_id


def _change(ctx: RequestContext, req: Any, adding: bool) -> tuple[int, str | None]:
    controller = ctx.cluster._controller_id()
    quorum = ctx.state.area(Quorum)
    voters = quorum.ensure(controller)
    node, directory = req.voter_id, req.voter_directory_id
    if adding:
        if node in voters:
            return ErrorCode.DUPLICATE_VOTER, f"Voter {node} is already in the voter set"
        if node not in ctx.live_ids() or directory != directory_id(node):
            return ErrorCode.INVALID_REQUEST, (f"Voter {node} with directory id {directory} is not an observer of "
                                               "the quorum")
        voters[node] = directory
        quorum.endpoints[node] = [(li.name, li.host, li.port) for li in req.listeners]
        quorum.change()
        return ErrorCode.NONE, None
    if voters.get(node) != directory:
        return ErrorCode.VOTER_NOT_FOUND, f"Voter {node} with directory id {directory} is not in the voter set"
    if len(voters) == 1:
        return ErrorCode.INVALID_REQUEST, f"Cannot remove voter {node}: it is the last voter of the quorum"
    was_leader = quorum.leader(controller) == node
    del voters[node]
    quorum.endpoints.pop(node, None)
    quorum.change()
    if was_leader:
        quorum.leader_epoch += 1
    return ErrorCode.NONE, None


def _voter_change(api_key: int, verb: str) -> Any:
    def error_response(ctx: RequestContext, req: Any, version: int, code: int,
                       message: str | None = None) -> Response:
        return response_class(api_key)(throttle_time_ms=0, error_code=code, error_message=message)

    def handle(ctx: RequestContext, req: Any, version: int) -> Response:
        if not ctx.authorize(az.CLUSTER, az.CLUSTER_NAME, az.ALTER):
            return error_response(ctx, req, version, ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
        if req.cluster_id is not None and req.cluster_id != ctx.cluster.cluster_id:
            return error_response(ctx, req, version, ErrorCode.INCONSISTENT_CLUSTER_ID)
        finalized = ctx.state.area(Features).ensure(ctx.cluster._controller_table())
        if finalized.get("kraft.version", 0) < 1:
            return error_response(ctx, req, version, ErrorCode.UNSUPPORTED_VERSION,
                                  f"Cluster doesn't support {verb} voter because the kraft.version feature is 0")
        code, message = _change(ctx, req, api_key == ApiKey.ADD_RAFT_VOTER)
        return error_response(ctx, req, version, code, message)

    def keys(req: Any, version: int) -> tuple[str, ...]:
        return (str(req.voter_id),)

    return handle, error_response, keys


for _key, _verb in ((ApiKey.ADD_RAFT_VOTER, "adding"), (ApiKey.REMOVE_RAFT_VOTER, "removing")):
    _h, _e, _k = _voter_change(_key, _verb)
    register(_key, handle=_h, error_response=_e, keys=_k)
