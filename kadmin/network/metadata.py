"""Cluster metadata: which nodes exist, where they listen, who the controller is.

DescribeCluster (KIP-700) is preferred where a node offers it, because it returns exactly the broker list
without the topic machinery of Metadata; older brokers (and peers such as librdkafka's mock) only have
Metadata, which is asked for with an empty topic list so the answer stays small on big clusters.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kadmin.config import ClientConfig
from kadmin.errors import ErrorCode, error_for_code
from kadmin.network.connection import Connection
from kadmin.network.negotiation import VersionTable, choose_version, usable_range
from kadmin.network.rebootstrap import metadata_error
from kadmin.network.retry import Deadline
from kadmin.protocol import message_type
from kadmin.protocol.apis import ApiKey
from kadmin.types import Node  # one Node type for the network layer and for results

logger = logging.getLogger("kadmin.network.metadata")

METADATA = ApiKey.METADATA
DESCRIBE_CLUSTER = ApiKey.DESCRIBE_CLUSTER


@dataclass(frozen=True)
class ClusterMetadata:
    """One consistent snapshot; replaced as a whole on refresh so readers never see half an update."""

    nodes: Mapping[int, Node]
    controller_id: int | None
    cluster_id: str | None
    fetched_at: float = field(default_factory=time.monotonic)
    source: str = ""

    @property
    def age_s(self) -> float:
        return time.monotonic() - self.fetched_at


def _controller(raw: int, nodes: Mapping[int, Node]) -> int | None:
    # -1 means "unknown"; some peers (librdkafka's mock) name a node that is not in the broker list. Neither is
    # a node one could send a request to, so both become None.
    if raw < 0 or raw not in nodes:
        if raw >= 0:
            logger.debug("controller id %d is not among the advertised nodes %s; treating it as unknown",
                         raw, sorted(nodes))
        return None
    return raw


async def fetch_cluster(conn: Connection, versions: VersionTable, *, config: ClientConfig,
                        deadline: Deadline) -> ClusterMetadata:
    """Ask ``conn``'s peer for the cluster's nodes, controller and id."""
    if usable_range(DESCRIBE_CLUSTER, versions, config) is not None:
        v = choose_version(DESCRIBE_CLUSTER, versions, config, node=conn.label)
        req = message_type(DESCRIBE_CLUSTER, "request")(include_cluster_authorized_operations=False)
        resp: Any = await conn.request(req, v, deadline=deadline)
        if resp.error_code == ErrorCode.NONE:
            nodes = {int(b.broker_id): Node(int(b.broker_id), str(b.host), int(b.port), b.rack)
                     for b in resp.brokers}
            if nodes:
                return ClusterMetadata(nodes, _controller(int(resp.controller_id), nodes), resp.cluster_id,
                                       source=f"DescribeCluster v{v} from {conn.label}")
        logger.debug("DescribeCluster v%d to %s gave %r with %d brokers; falling back to Metadata", v,
                     conn.label, error_for_code(resp.error_code), len(resp.brokers))
    v = choose_version(METADATA, versions, config, node=conn.label)
    cls = message_type(METADATA, "request")
    # v0 has no way to ask for "no topics" (an empty list means all of them); v1+ does.
    req = cls(topics=[], allow_auto_topic_creation=False) if v >= 4 else cls(topics=[])
    resp = await conn.request(req, v, deadline=deadline)
    err = metadata_error(resp, v)
    if err is not None:
        raise err  # v13+ (KIP-1102): REBOOTSTRAP_REQUIRED, and the answer names no brokers
    nodes = {int(b.node_id): Node(int(b.node_id), str(b.host), int(b.port), getattr(b, "rack", None))
             for b in resp.brokers}
    controller = _controller(int(getattr(resp, "controller_id", -1)), nodes)
    cluster_id = getattr(resp, "cluster_id", None)
    return ClusterMetadata(nodes, controller, cluster_id, source=f"Metadata v{v} from {conn.label}")


__all__ = ["ClusterMetadata", "Node", "fetch_cluster"]
