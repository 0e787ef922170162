"""The cluster itself: its nodes and controller (DescribeCluster, or Metadata before Kafka 2.8) and every node's
ApiVersions table with the version kadmin would use for each API."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kadmin.admin._driver import Done, Failed, Operation, Outcome, Retry
from kadmin.admin.lookups import AllNodes, AnyNode, NodeSpeaking
from kadmin.config import ClientConfig
from kadmin.errors import UnsupportedVersionError, error_for_code
from kadmin.network.metadata import describe_cluster_request, metadata_request, read_cluster
from kadmin.network.negotiation import CLIENT_SOFTWARE_NAME, CLIENT_SOFTWARE_VERSION, choose_version
from kadmin.protocol import Message, api_name, message_type
from kadmin.protocol.apis import ApiKey
from kadmin.protocol.client_versions import client_ranges
from kadmin.types import ApiVersionRange, ClusterDescription, decode_authorized_operations

#: The one key of the cluster-wide operations.
CLUSTER = "cluster"
#: KIP-1073: DescribeCluster lists fenced brokers, when asked, from v2 (Kafka 4.0).
FENCED_BROKERS_SINCE = 2


class DescribeCluster(Operation[str]):
    """Nodes, controller and cluster id from DescribeCluster (KIP-700, Kafka 2.8+), asked of any node."""

    api = ApiKey.DESCRIBE_CLUSTER

    def __init__(self, include_authorized_operations: bool = False, include_fenced_brokers: bool = False) -> None:
        self.include_ops = include_authorized_operations
        self.include_fenced = include_fenced_brokers
        # Fenced brokers need v2 (Kafka 4.0): in a cluster being upgraded, a node that has it answers, not just
        # the least loaded one; with none, build refuses on the node chosen, unsent.
        self.lookup: AnyNode[str] | NodeSpeaking[str] = (
            NodeSpeaking(self.api, prefer=FENCED_BROKERS_SINCE) if include_fenced_brokers else AnyNode())

    def build(self, node: int, keys: list[str], version: int) -> Message:
        if self.include_fenced and version < FENCED_BROKERS_SINCE:
            # A whole-request flag: without it the answer would silently leave the fenced brokers out.
            raise UnsupportedVersionError(
                f"listing fenced brokers (KIP-1073) needs DescribeCluster v{FENCED_BROKERS_SINCE}+ (Kafka 4.0); "
                f"node {node} speaks up to v{version}")
        return describe_cluster_request(
            self.include_ops, self.include_fenced if version >= FENCED_BROKERS_SINCE else None)

    def handle(self, node: int, keys: list[str], response: Any, version: int) -> dict[str, Outcome]:
        err = error_for_code(response.error_code, response.error_message)
        if err is not None:
            return {CLUSTER: Retry(err) if err.retriable else Failed(err)}
        ops = decode_authorized_operations(response.cluster_authorized_operations) if self.include_ops else None
        fenced = frozenset(b.broker_id for b in response.brokers if version >= FENCED_BROKERS_SINCE and b.is_fenced)
        return {CLUSTER: Done(_described(response, ops, fenced))}


class ClusterMetadata(Operation[str]):
    """The same from Metadata, for brokers before Kafka 2.8 (asked with no topics, so the answer stays small)."""

    api = ApiKey.METADATA

    def __init__(self) -> None:
        self.lookup: AnyNode[str] = AnyNode()

    def build(self, node: int, keys: list[str], version: int) -> Message:
        return metadata_request((), version)

    def handle(self, node: int, keys: list[str], response: Any, version: int) -> dict[str, Outcome]:
        return {CLUSTER: Done(_described(response, None))}


def _described(response: Any, ops: frozenset[str] | None,
               fenced: frozenset[int] = frozenset()) -> ClusterDescription:
    """The cluster as a DescribeCluster or Metadata answer gives it, read by the network layer's reader."""
    md = read_cluster(response)
    nodes = tuple(sorted(md.nodes.values(), key=lambda n: n.node_id))
    return ClusterDescription(md.cluster_id, md.controller_id, nodes, ops, fenced)


class ApiVersions(Operation[int]):
    """Every node's advertised table (keys are node ids), with kadmin's range and the version it would use."""

    api = ApiKey.API_VERSIONS

    def __init__(self, config: ClientConfig) -> None:
        self.config = config
        self.lookup = AllNodes()

    def build(self, node: int, keys: list[int], version: int) -> Message:
        req = message_type(ApiKey.API_VERSIONS, "request")
        if version >= 3:
            return req(client_software_name=CLIENT_SOFTWARE_NAME, client_software_version=CLIENT_SOFTWARE_VERSION)
        return req()

    def handle(self, node: int, keys: list[int], response: Any, version: int) -> dict[int, Outcome]:
        err = error_for_code(response.error_code)
        if err is not None:
            return {node: Retry(err) if err.retriable else Failed(err)}
        table = {k.api_key: (k.min_version, k.max_version) for k in response.api_keys}
        ours = our_ranges()
        apis: dict[int, ApiVersionRange] = {}
        for key, (lo, hi) in sorted(table.items()):
            mine = ours.get(key)
            used: int | None = None
            if mine is not None:
                try:
                    used = choose_version(key, table, self.config, node=f"node {node}")
                except UnsupportedVersionError:
                    used = None
            apis[key] = ApiVersionRange(key, api_name(key) if mine else release_api_name(key), lo, hi, mine, used)
        return {node: Done((apis, table))}


def our_ranges() -> dict[int, tuple[int, int]]:
    """kadmin's version range per API it has a request schema for (capped: kadmin.protocol.client_versions)."""
    return client_ranges()


def guess_release(table: Mapping[int, tuple[int, int]]) -> str | None:
    from kadmin.versions import guess_release as guess

    return guess(dict(table))


def release_api_name(key: int) -> str:
    try:
        return ApiKey(key).kafka_name
    except ValueError:
        return f"api {key}"


__all__ = ["CLUSTER", "ApiVersions", "ClusterMetadata", "DescribeCluster", "guess_release", "our_ranges"]
