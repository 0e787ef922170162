"""Cluster metadata: which nodes exist, where they listen, who the controller is; and the one place where the
Metadata and DescribeCluster requests are built and their node lists read.

DescribeCluster (KIP-700) is preferred where a node offers it, because it returns exactly the broker list
without the topic machinery of Metadata; older brokers (and peers such as librdkafka's mock) only have
Metadata, which is asked for with an empty topic list so the answer stays small on big clusters.  The admin
layer's cluster, topic and partition-leader operations build their requests and read the nodes with the
functions below too, so a version rule (v0's "no null", auto-creation off from v4) is written once.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kadmin.config import ClientConfig
from kadmin.errors import ErrorCode, error_for_code
from kadmin.network.connection import Connection
from kadmin.network.negotiation import VersionTable, choose_version, usable_range
from kadmin.network.rebootstrap import metadata_error
from kadmin.network.retry import Deadline
from kadmin.protocol import Message, message_type
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


def metadata_request(topics: Sequence[str] | None, version: int, *,
                     include_topic_operations: bool = False) -> Message:
    """The Metadata request for ``topics`` (None: every topic; empty: none, from v1) at ``version``.

    It never creates a topic (allow_auto_topic_creation, v4+, is false: a describe or a leader lookup must not
    create what it asks about).  v0 has no null topic list: there an empty list means every topic, so "no
    topics" cannot be said before v1.  ``include_topic_operations`` is sent from v8 (callers that need it
    refuse older versions themselves).
    """
    req: Any = message_type(METADATA, "request")
    listed = None if topics is None else [req.MetadataRequestTopic(name=t) for t in topics]
    if listed is None and version == 0:
        listed = []
    kw: dict[str, Any] = {"topics": listed}
    if version >= 4:
        kw["allow_auto_topic_creation"] = False
    if version >= 8:
        kw["include_topic_authorized_operations"] = include_topic_operations
    return req(**kw)  # type: ignore[no-any-return]


def describe_cluster_request(include_cluster_operations: bool = False,
                             include_fenced_brokers: bool | None = None) -> Message:
    """The DescribeCluster request; ``include_fenced_brokers`` only where the version has it (v2+, KIP-1073),
    None below."""
    extra = {} if include_fenced_brokers is None else {"include_fenced_brokers": include_fenced_brokers}
    req: Message = message_type(DESCRIBE_CLUSTER, "request")(
        include_cluster_authorized_operations=include_cluster_operations, **extra)
    return req


def read_cluster(response: Any, *, source: str = "") -> ClusterMetadata:
    """Nodes, controller and cluster id from a DescribeCluster or a Metadata answer (their broker entries
    name the id differently; Metadata v0 has no rack, controller or cluster id).  A controller id that is -1
    or names no listed broker is None, as the Java client's ``controller()`` is null then."""
    if type(response).API_KEY == DESCRIBE_CLUSTER:
        nodes = {int(b.broker_id): Node(int(b.broker_id), str(b.host), int(b.port), b.rack)
                 for b in response.brokers}
    else:
        nodes = {int(b.node_id): Node(int(b.node_id), str(b.host), int(b.port), getattr(b, "rack", None))
                 for b in response.brokers}
    controller = _controller(int(getattr(response, "controller_id", -1)), nodes)
    return ClusterMetadata(nodes, controller, getattr(response, "cluster_id", None), source=source)


async def fetch_cluster(conn: Connection, versions: VersionTable, *, config: ClientConfig,
                        deadline: Deadline) -> ClusterMetadata:
    """Ask ``conn``'s peer for the cluster's nodes, controller and id: DescribeCluster where the peer has it
    and it answers with brokers, else Metadata for no topics."""
    if usable_range(DESCRIBE_CLUSTER, versions, config) is not None:
        v = choose_version(DESCRIBE_CLUSTER, versions, config, node=conn.label)
        resp: Any = await conn.request(describe_cluster_request(), v, deadline=deadline)
        if resp.error_code == ErrorCode.NONE and resp.brokers:
            return read_cluster(resp, source=f"DescribeCluster v{v} from {conn.label}")
        logger.debug("DescribeCluster v%d to %s gave %r with %d brokers; falling back to Metadata", v,
                     conn.label, error_for_code(resp.error_code), len(resp.brokers))
    v = choose_version(METADATA, versions, config, node=conn.label)
    resp = await conn.request(metadata_request((), v), v, deadline=deadline)
    err = metadata_error(resp, v)
    if err is not None:
        raise err  # v13+ (KIP-1102): REBOOTSTRAP_REQUIRED, and the answer names no brokers
    return read_cluster(resp, source=f"Metadata v{v} from {conn.label}")


__all__ = ["ClusterMetadata", "Node", "describe_cluster_request", "fetch_cluster", "metadata_request",
           "read_cluster"]
