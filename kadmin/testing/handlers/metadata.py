"""Metadata (key 3): who the brokers are, who leads what.

Only live brokers are listed, and a partition whose preferred leader is down is led by its next live
replica (or has no leader), as after a real broker failure and leader election.
"""

from __future__ import annotations

from typing import Any

from kadmin.testing import authorizer as az
from kadmin.testing.handlers.base import (
    AUTH_OPS_NOT_REQUESTED,
    LEADER_NOT_AVAILABLE,
    NONE,
    TOPIC_AUTHORIZATION_FAILED,
    UNKNOWN_TOPIC_OR_PARTITION,
    RequestContext,
    Response,
    register,
    response_class,
)
from kadmin.testing.state.topics import Topic, Topics

METADATA = 3
UNKNOWN_TOPIC_ID = 100


def _requested_names(ctx: RequestContext, req: Any, version: int) -> list[str] | None:
    """None means "all topics": a null list (v1+), or an empty list at v0 (which had no null)."""
    if req.topics is None or (version == 0 and not req.topics):
        return None
    return [t.name for t in req.topics]


def _topic(ctx: RequestContext, R: Any, topic: Topic, live: set[int], include_ops: bool) -> Any:
    parts = []
    for index, p in sorted(topic.partitions.items()):
        leader = p.leader_id(live)
        parts.append(R.MetadataResponsePartition(
            error_code=NONE if leader >= 0 else LEADER_NOT_AVAILABLE, partition_index=index, leader_id=leader,
            leader_epoch=p.leader_epoch, replica_nodes=list(p.replicas), isr_nodes=p.in_sync(live),
            offline_replicas=[r for r in p.replicas if r not in live]))
    return R.MetadataResponseTopic(
        error_code=NONE, name=topic.name, topic_id=topic.topic_id, is_internal=topic.internal, partitions=parts,
        topic_authorized_operations=(ctx.authorized_operations(az.TOPIC, topic.name) if include_ops
                                     else AUTH_OPS_NOT_REQUESTED))


def cluster_operations(ctx: RequestContext) -> int:
    """KafkaApis: the cluster's authorized operations only for a principal that may DESCRIBE it, else none."""
    if not ctx.authorize(az.CLUSTER, az.CLUSTER_NAME, az.DESCRIBE):
        return 0
    return ctx.authorized_operations(az.CLUSTER, az.CLUSTER_NAME)


def handle_metadata(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(METADATA)
    brokers = ctx.live_brokers()
    live = {b[0] for b in brokers}
    names = _requested_names(ctx, req, version)
    include_ops = version >= 8 and req.include_topic_authorized_operations
    topics = []
    if names is None:
        for known in sorted(ctx.state.area(Topics).values(), key=lambda t: t.name):
            # "All topics" lists only those the principal may describe (KafkaApis filters them silently).
            if ctx.authorize(az.TOPIC, known.name, az.DESCRIBE):
                topics.append(_topic(ctx, R, known, live, include_ops))
    else:
        by_id = {t.topic_id: t for t in ctx.state.area(Topics).values()}
        for name, wanted in zip(names, req.topics, strict=True):
            if name is None and version >= 10:
                # A topic asked for by id (KIP-516): KIP-848 consumers resolve their assignment this way.
                found = by_id.get(wanted.topic_id)
                if found is None or not ctx.authorize(az.TOPIC, found.name, az.DESCRIBE):
                    topics.append(R.MetadataResponseTopic(error_code=UNKNOWN_TOPIC_ID, name=None,
                                                          topic_id=wanted.topic_id))
                else:
                    topics.append(_topic(ctx, R, found, live, include_ops))
                continue
            t = ctx.state.area(Topics).get(name)
            if not ctx.authorize(az.TOPIC, name, az.DESCRIBE):
                # Unauthorized names are refused whether or not they exist, so that existence does not leak.
                topics.append(R.MetadataResponseTopic(error_code=TOPIC_AUTHORIZATION_FAILED, name=name))
            elif t is None:
                # The fake never auto-creates topics (as with auto.create.topics.enable=false).
                topics.append(R.MetadataResponseTopic(error_code=UNKNOWN_TOPIC_OR_PARTITION, name=name))
            else:
                topics.append(_topic(ctx, R, t, live, include_ops))
    cluster_ops = AUTH_OPS_NOT_REQUESTED
    if 8 <= version <= 10 and req.include_cluster_authorized_operations:
        cluster_ops = cluster_operations(ctx)
    return R(brokers=[R.MetadataResponseBroker(node_id=n, host=h, port=p, rack=None) for n, h, p in brokers],
             cluster_id=ctx.cluster.cluster_id, controller_id=ctx.cluster._controller_id(), topics=topics,
             cluster_authorized_operations=cluster_ops)


#: KIP-1102: the error a broker answers at the top level of Metadata v13+ (no brokers, no topics).
REBOOTSTRAP_REQUIRED = 129


def error_metadata(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    """An injected error goes on every requested topic; REBOOTSTRAP_REQUIRED (v13+) is the answer's top-level
    error, with no brokers or topics, as a Kafka broker sends it."""
    R = response_class(METADATA)
    if code == REBOOTSTRAP_REQUIRED and version >= 13:
        return R(error_code=code, brokers=[], topics=[], cluster_id=None, controller_id=-1)
    names = _requested_names(ctx, req, version)
    if names is None:
        names = sorted(ctx.state.area(Topics))
    brokers = ctx.live_brokers()
    return R(brokers=[R.MetadataResponseBroker(node_id=n, host=h, port=p) for n, h, p in brokers],
             cluster_id=ctx.cluster.cluster_id, controller_id=ctx.cluster._controller_id(),
             topics=[R.MetadataResponseTopic(error_code=code, name=n) for n in names])


def keys_metadata(req: Any, version: int) -> tuple[str, ...]:
    return tuple(t.name or "" for t in req.topics) if req.topics else ()


register(METADATA, handle=handle_metadata, error_response=error_metadata, keys=keys_metadata)
