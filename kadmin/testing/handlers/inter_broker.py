"""The ZooKeeper-era inter-broker APIs a ZooKeeper-mode broker advertises to everyone: LeaderAndIsr (4),
StopReplica (5), UpdateMetadata (6), ControlledShutdown (7), AlterPartition (56), Envelope (58) and
AllocateProducerIds (67).

Why served at all: real ZooKeeper-mode brokers list them in ApiVersions, clients (and kadmin's own ZooKeeper
vs KRaft guess, see RequestContext.zookeeper_mode) look at that list, and the fake must never advertise what
it does not answer.  Why only refused: only a controller or another broker may send them, with the
ClusterAction permission of the inter-broker principal, and the fake has no such peer.  Every request gets
what a secured Kafka broker answers a client principal without ClusterAction (KafkaApis'
authorizeClusterOperation): CLUSTER_AUTHORIZATION_FAILED at the top level, nothing applied.  One module for
the seven because they behave as one; each keeps its own response shape.
"""

from __future__ import annotations

from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing.handlers.base import RequestContext, Response, register, response_class

KEYS = (ApiKey.LEADER_AND_ISR, ApiKey.STOP_REPLICA, ApiKey.UPDATE_METADATA, ApiKey.CONTROLLED_SHUTDOWN,
        ApiKey.ALTER_PARTITION, ApiKey.ENVELOPE, ApiKey.ALLOCATE_PRODUCER_IDS)


def _refusal(api_key: int) -> Any:
    def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
        R = response_class(api_key)
        resp = R(error_code=code)
        if api_key == ApiKey.ALLOCATE_PRODUCER_IDS:
            resp.producer_id_start, resp.producer_id_len = -1, 0
        return resp

    def handle(ctx: RequestContext, req: Any, version: int) -> Response:
        return error_response(ctx, req, version, ErrorCode.CLUSTER_AUTHORIZATION_FAILED)

    return handle, error_response


for _key in KEYS:
    _handle, _error = _refusal(_key)
    register(_key, handle=_handle, error_response=_error)
