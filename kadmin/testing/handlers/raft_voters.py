"""AddRaftVoter (key 80) and RemoveRaftVoter (key 81): change a KRaft quorum's voters (KIP-853).

The fake's quorum is static (see describe_quorum.py: one voter, no kraft.version feature), and Kafka
answers a static quorum the way the fake does: after ALTER on the cluster (CLUSTER_AUTHORIZATION_FAILED) and
a matching cluster id if one is given (INCONSISTENT_CLUSTER_ID), UNSUPPORTED_VERSION in the body, because
kraft.version 0 cannot reconfigure.  A client gets a real, readable refusal, never a closed connection.
"""

from __future__ import annotations

from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing import authorizer as az
from kadmin.testing.handlers.base import RequestContext, Response, register, response_class


def _voter_change(api_key: int, verb: str) -> Any:
    def error_response(ctx: RequestContext, req: Any, version: int, code: int,
                       message: str | None = None) -> Response:
        return response_class(api_key)(throttle_time_ms=0, error_code=code, error_message=message)

    def handle(ctx: RequestContext, req: Any, version: int) -> Response:
        if not ctx.authorize(az.CLUSTER, az.CLUSTER_NAME, az.ALTER):
            return error_response(ctx, req, version, ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
        if req.cluster_id is not None and req.cluster_id != ctx.cluster.cluster_id:
            return error_response(ctx, req, version, ErrorCode.INCONSISTENT_CLUSTER_ID)
        return error_response(ctx, req, version, ErrorCode.UNSUPPORTED_VERSION,
                              f"Cluster doesn't support {verb} voter because the kraft.version feature is 0")

    def keys(req: Any, version: int) -> tuple[str, ...]:
        return (str(req.voter_id),)

    return handle, error_response, keys


for _key, _verb in ((ApiKey.ADD_RAFT_VOTER, "adding"), (ApiKey.REMOVE_RAFT_VOTER, "removing")):
    _h, _e, _k = _voter_change(_key, _verb)
    register(_key, handle=_h, error_response=_e, keys=_k)
