"""What Produce, Fetch and OffsetForLeaderEpoch share: finding a partition on its leader, and KIP-951's hint.

Kafka checks a record request's partition in this order (KafkaApis, then ReplicaManager): the topic
authorization, the topic and partition existing, then this broker leading the partition.  A client sent to
the wrong broker learns the new leader from the answer itself from Produce v10 / Fetch v12 on (KIP-951:
CurrentLeader per partition and the leaders' NodeEndpoints), without a Metadata round trip.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.testing import authorizer as az
from kadmin.testing.handlers.base import RequestContext
from kadmin.testing.state.topics import PartitionState, Topic


@dataclass
class Found:
    """The outcome of looking a partition up: ``code`` NONE with ``part`` set, else the error."""

    code: int
    topic: Topic | None = None
    part: PartitionState | None = None
    leader: int = -1


def find_partition(ctx: RequestContext, topic: Topic | None, name: str, index: int, operation: int,
                   live: set[int]) -> Found:
    if not ctx.authorize(az.TOPIC, name, operation):
        return Found(ErrorCode.TOPIC_AUTHORIZATION_FAILED)
    part = topic.partitions.get(index) if topic is not None else None
    if topic is None or part is None:
        return Found(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
    leader = part.leader_id(live)
    if leader != ctx.node_id:
        return Found(ErrorCode.NOT_LEADER_OR_FOLLOWER, topic, part, leader)
    return Found(ErrorCode.NONE, topic, part, leader)


def epoch_error(part: PartitionState, current_leader_epoch: int) -> int:
    """KIP-320 fencing: a client's leader epoch older than the partition's is fenced, a newer one unknown."""
    if current_leader_epoch < 0 or current_leader_epoch == part.leader_epoch:
        return ErrorCode.NONE
    if current_leader_epoch < part.leader_epoch:
        return ErrorCode.FENCED_LEADER_EPOCH
    return ErrorCode.UNKNOWN_LEADER_EPOCH


def node_endpoints(ctx: RequestContext, R: Any, leaders: set[int]) -> list[Any]:
    """KIP-951: the endpoints of the leaders a response points clients to."""
    return [R.NodeEndpoint(node_id=n, host=h, port=p, rack=None) for n, h, p in ctx.live_brokers() if n in leaders]


__all__ = ["Found", "epoch_error", "find_partition", "node_endpoints"]
