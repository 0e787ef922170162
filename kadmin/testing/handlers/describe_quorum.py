"""DescribeQuorum (key 55): the KRaft metadata quorum, as a KRaft broker forwards it to the active controller.

The fake has no metadata log; it describes the model in kadmin/testing/state/quorum.py: the voters (the
controller alone until a test or AddRaftVoter adds more), every other live broker an observer, each replica's
log end offset the leader's minus its lag, the high watermark the leader's end offset.  v1 adds the last fetch
and caught-up times, v2 (KIP-853) the directory ids and the voters' endpoints.  Kafka's checks, in its order:
DESCRIBE on the cluster (CLUSTER_AUTHORIZATION_FAILED at the top), then the request must name exactly the
__cluster_metadata partition 0 (else UNKNOWN_TOPIC_OR_PARTITION at the top, as KafkaRaftClient answers).
"""

from __future__ import annotations

from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing import authorizer as az
from kadmin.testing.handlers.base import RequestContext, Response, register, response_class
from kadmin.testing.state.quorum import Quorum, directory_id

API_KEY = ApiKey.DESCRIBE_QUORUM
METADATA_TOPIC = "__cluster_metadata"


def _asks_for_metadata_partition(req: Any) -> bool:
    return (len(req.topics) == 1 and req.topics[0].topic_name == METADATA_TOPIC
            and [p.partition_index for p in req.topics[0].partitions] == [0])


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    if not ctx.authorize(az.CLUSTER, az.CLUSTER_NAME, az.DESCRIBE):
        return error_response(ctx, req, version, ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
    if not _asks_for_metadata_partition(req):
        return error_response(ctx, req, version, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
    quorum = ctx.state.area(Quorum)
    controller = ctx.cluster._controller_id()
    voters = quorum.ensure(controller)
    leader = quorum.leader(controller)
    brokers = ctx.live_brokers()

    def replica(node: int) -> Any:
        end, fetched, caught_up = quorum.replica(node)
        if node == leader:
            end = quorum.end_offset
        return R.ReplicaState(replica_id=node, replica_directory_id=voters.get(node, directory_id(node)),
                              log_end_offset=end, last_fetch_timestamp=fetched, last_caught_up_timestamp=caught_up)

    part = R.PartitionData(partition_index=0, error_code=ErrorCode.NONE, error_message=None, leader_id=leader,
                           leader_epoch=quorum.leader_epoch, high_watermark=quorum.end_offset,
                           current_voters=[replica(n) for n in sorted(voters)],
                           observers=[replica(n) for n, _h, _p in brokers if n not in voters])
    nodes = [R.Node(node_id=n, listeners=[R.Listener(name=name, host=host, port=port) for name, host, port
                                          in quorum.endpoints.get(n, [("PLAINTEXT", h, p)])])
             for n, h, p in brokers if n in voters]
    return R(error_code=ErrorCode.NONE, error_message=None, nodes=nodes,
             topics=[R.TopicData(topic_name=METADATA_TOPIC, partitions=[part])])


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    return response_class(API_KEY)(error_code=code, error_message=None, topics=[], nodes=[])


register(API_KEY, handle=handle, error_response=error_response)
