"""kadmin: an admin client for Apache Kafka that negotiates versions per node and speaks quotas as floats.

``kadmin.AdminClient`` is synchronous (safe from scripts, threads and Spark drivers); ``kadmin.aio.AdminClient``
is the asyncio client it runs on.  Every per-key method returns {key: result or KafkaError}.

Public names are imported lazily, so that ``import kadmin.protocol`` (pure codec) does not load the network
and admin layers.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from kadmin._version import __version__ as __version__

_EXPORTS = {
    "AdminClient": "kadmin.client",
    "ClientConfig": "kadmin.config",
    "KafkaError": "kadmin.errors",
    "ClusterDescription": "kadmin.types",
    "Coordinator": "kadmin.types",
    "GroupDescription": "kadmin.types",
    "GroupListing": "kadmin.types",
    "ListGroupsResult": "kadmin.types",
    "MemberDescription": "kadmin.types",
    "Node": "kadmin.types",
    "NodeApiVersions": "kadmin.types",
    "OffsetAndMetadata": "kadmin.types",
    "PartitionLag": "kadmin.types",
    "TopicPartition": "kadmin.types",
}

if TYPE_CHECKING:
    from kadmin.client import AdminClient as AdminClient
    from kadmin.config import ClientConfig as ClientConfig
    from kadmin.errors import KafkaError as KafkaError
    from kadmin.types import ClusterDescription as ClusterDescription
    from kadmin.types import Coordinator as Coordinator
    from kadmin.types import GroupDescription as GroupDescription
    from kadmin.types import GroupListing as GroupListing
    from kadmin.types import ListGroupsResult as ListGroupsResult
    from kadmin.types import MemberDescription as MemberDescription
    from kadmin.types import Node as Node
    from kadmin.types import NodeApiVersions as NodeApiVersions
    from kadmin.types import OffsetAndMetadata as OffsetAndMetadata
    from kadmin.types import PartitionLag as PartitionLag
    from kadmin.types import TopicPartition as TopicPartition


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'kadmin' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = sorted([*_EXPORTS, "__version__"])
