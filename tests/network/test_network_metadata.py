"""Cluster metadata is built in one place (kadmin/network/metadata.py): the Metadata request's version rules,
reading the nodes of a DescribeCluster or a Metadata answer, and a rule that no other module of the client
builds either request itself."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from kadmin.network.metadata import describe_cluster_request, metadata_request, read_cluster
from kadmin.protocol import message_type
from kadmin.protocol.apis import ApiKey
from kadmin.types import Node

METADATA_REQUEST: Any = message_type(ApiKey.METADATA, "request")
PACKAGE = Path(__file__).resolve().parents[2] / "kadmin"


def roundtrip(req: Any, version: int) -> Any:
    return type(req).decode_from(bytes(req.encode(version)), 0, version)[0]


@pytest.mark.parametrize("version", range(METADATA_REQUEST.MIN_VERSION, METADATA_REQUEST.MAX_VERSION + 1))
def test_metadata_request_never_creates_topics_and_says_every_topic_and_no_topic(version: int) -> None:
    every = roundtrip(metadata_request(None, version), version)
    none = roundtrip(metadata_request((), version), version)
    some = roundtrip(metadata_request(["a", "b"], version), version)
    # v0 has no null: its "every topic" is the empty list (so it cannot ask for none).
    assert every.topics == ([] if version == 0 else None)
    assert none.topics == []
    assert [t.name for t in some.topics] == ["a", "b"]
    if version >= 4:
        assert not every.allow_auto_topic_creation and not some.allow_auto_topic_creation
    if version >= 8:
        asked = roundtrip(metadata_request(["a"], version, include_topic_operations=True), version)
        assert asked.include_topic_authorized_operations and not some.include_topic_authorized_operations


def test_describe_cluster_request_carries_the_operations_flag() -> None:
    asked: Any = describe_cluster_request(True)
    plain: Any = describe_cluster_request()
    assert asked.include_cluster_authorized_operations is True
    assert plain.include_cluster_authorized_operations is False


def test_read_cluster_from_either_answer() -> None:
    dc: Any = message_type(ApiKey.DESCRIBE_CLUSTER, "response")
    md: Any = message_type(ApiKey.METADATA, "response")
    described = dc(error_code=0, cluster_id="c1", controller_id=2, brokers=[
        dc.DescribeClusterBroker(broker_id=2, host="h2", port=9092, rack="r"),
        dc.DescribeClusterBroker(broker_id=1, host="h1", port=9093, rack=None)])
    got = read_cluster(described, source="test")
    assert got.nodes == {1: Node(1, "h1", 9093, None), 2: Node(2, "h2", 9092, "r")}
    assert (got.controller_id, got.cluster_id, got.source) == (2, "c1", "test")
    # A controller id that names no listed broker (librdkafka's mock) is no controller at all, on both paths.
    described.controller_id = 7
    assert read_cluster(described).controller_id is None
    answer = md(brokers=[md.MetadataResponseBroker(node_id=3, host="h3", port=1, rack=None)], controller_id=9,
                cluster_id=None, topics=[])
    got = read_cluster(answer)
    assert got.nodes == {3: Node(3, "h3", 1, None)} and got.controller_id is None and got.cluster_id is None
    v0 = md.decode_from(bytes(answer.encode(0)), 0, 0)[0]  # v0: no rack, controller or cluster id
    got = read_cluster(v0)
    assert got.nodes == {3: Node(3, "h3", 1, None)} and got.controller_id is None


def _builds_cluster_request(call: ast.Call) -> bool:
    """``message_type(<Metadata or DescribeCluster>, "request")`` however the API is named."""
    func = call.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    if name != "message_type" or len(call.args) < 2:
        return False
    api, kind = call.args[0], call.args[1]
    if not (isinstance(kind, ast.Constant) and kind.value == "request"):
        return False
    if isinstance(api, ast.Constant):
        return api.value in (ApiKey.METADATA, ApiKey.DESCRIBE_CLUSTER, "MetadataRequest",
                             "DescribeClusterRequest")
    named = api.attr if isinstance(api, ast.Attribute) else api.id if isinstance(api, ast.Name) else ""
    return named in ("METADATA", "DESCRIBE_CLUSTER")


def test_only_network_metadata_builds_cluster_metadata_requests() -> None:
    """The fake cluster (kadmin/testing) decodes these requests; the client builds them in one module."""
    builders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).as_posix()
        if rel.startswith("kadmin/testing/"):
            continue
        for node in ast.walk(ast.parse(path.read_text(), rel)):
            if isinstance(node, ast.Call) and _builds_cluster_request(node):
                builders.append(f"{rel}:{node.lineno}")
    assert builders and all(b.startswith("kadmin/network/metadata.py:") for b in builders), builders
