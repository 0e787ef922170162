"""DescribeQuorum (key 55): the KRaft metadata quorum, as a KRaft broker forwards it to the active controller.

The fake has no metadata log, so it describes the quorum a single combined-mode node would have: the
cluster's controller (cluster.controller) is the only voter and the leader at epoch 1, every other live
broker an observer, everyone caught up at offset 0.  Kafka's checks, in its order: DESCRIBE on the cluster
(CLUSTER_AUTHORIZATION_FAILED at the top), then the request must name exactly the __cluster_metadata
partition 0 (else UNKNOWN_TOPIC_OR_PARTITION at the top, as KafkaRaftClient answers).
"""

from __future__ import annotations

import time
import uuid
from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing import authorizer as az
from kadmin.testing.handlers.base import RequestContext, Response, register, response_class

API_KEY = ApiKey.DESCRIBE_QUORUM
METADATA_TOPIC = "__cluster_metadata"
LEADER_EPOCH = 1


def _asks_for_metadata_partition(req: Any) -> bool:
    return (len(req.topics) == 1 and req.topics[0].topic_name == METADATA_TOPIC
            and [p.partition_index for p in req.topics[0].partitions] == [0])


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    if not ctx.authorize(az.CLUSTER, az.CLUSTER_NAME, az.DESCRIBE):
        return error_response(ctx, req, version, ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
    if not _asks_for_metadata_partition(req):
        return error_response(ctx, req, version, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
    now = int(time.time() * 1000)
    leader = ctx.cluster._controller_id()
    brokers = ctx.live_brokers()

    def replica(node: int) -> Any:
        # A directory id per node that stays the same across calls (KIP-853 reports one from v2).
        return R.ReplicaState(replica_id=node, replica_directory_id=uuid.uuid5(uuid.NAMESPACE_OID, f"{node}"),
                              log_end_offset=0, last_fetch_timestamp=now, last_caught_up_timestamp=now)

    part = R.PartitionData(partition_index=0, error_code=ErrorCode.NONE, error_message=None, leader_id=leader,
                           leader_epoch=LEADER_EPOCH, high_watermark=0,
                           current_voters=[replica(leader)] if leader >= 0 else [],
                           observers=[replica(n) for n, _h, _p in brokers if n != leader])
    nodes = [R.Node(node_id=n, listeners=[R.Listener(name="PLAINTEXT", host=h, port=p)])
             for n, h, p in brokers if n == leader]
    return R(error_code=ErrorCode.NONE, error_message=None, nodes=nodes,
             topics=[R.TopicData(topic_name=METADATA_TOPIC, partitions=[part])])


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    return response_class(API_KEY)(error_code=code, error_message=None, topics=[], nodes=[])


register(API_KEY, handle=handle, error_response=error_response)
