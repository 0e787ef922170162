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
    "NewTopic": "kadmin.topics",
    "NewPartitions": "kadmin.topics",
    "TopicListing": "kadmin.topics",
    "TopicDescription": "kadmin.topics",
    "PartitionInfo": "kadmin.topics",
    "CreatedTopic": "kadmin.topics",
    "ConfigResource": "kadmin.configs",
    "ConfigResourceType": "kadmin.configs",
    "ConfigEntry": "kadmin.configs",
    "ConfigSource": "kadmin.configs",
    "ConfigType": "kadmin.configs",
    "ConfigSynonym": "kadmin.configs",
    "SetConfig": "kadmin.configs",
    "DeleteConfig": "kadmin.configs",
    "AppendConfig": "kadmin.configs",
    "SubtractConfig": "kadmin.configs",
    "DeletedRecords": "kadmin.storage",
    "ElectionResult": "kadmin.storage",
    "ElectionType": "kadmin.storage",
    "LogDirDescription": "kadmin.storage",
    "PartitionReassignment": "kadmin.storage",
    "ReplicaLogInfo": "kadmin.storage",
    "TopicSizes": "kadmin.storage",
    "AclBinding": "kadmin.acls",
    "AclBindingFilter": "kadmin.acls",
    "AclOperation": "kadmin.acls",
    "AclPermissionType": "kadmin.acls",
    "AccessControlEntry": "kadmin.acls",
    "AccessControlEntryFilter": "kadmin.acls",
    "PatternType": "kadmin.acls",
    "ResourcePattern": "kadmin.acls",
    "ResourcePatternFilter": "kadmin.acls",
    "ResourceType": "kadmin.acls",
    "ScramUpsertion": "kadmin.scram",
    "ScramDeletion": "kadmin.scram",
    "ScramMechanism": "kadmin.scram",
    "ScramCredentialInfo": "kadmin.scram",
    "DelegationToken": "kadmin.tokens",
    "AbortTransactionSpec": "kadmin.transactions",
    "FencedProducer": "kadmin.transactions",
    "HangingTransaction": "kadmin.transactions",
    "HangingTransactionsResult": "kadmin.transactions",
    "ListTransactionsResult": "kadmin.transactions",
    "ProducerState": "kadmin.transactions",
    "TransactionDescription": "kadmin.transactions",
    "TransactionListing": "kadmin.transactions",
}

if TYPE_CHECKING:
    from kadmin.acls import AccessControlEntry as AccessControlEntry
    from kadmin.acls import AccessControlEntryFilter as AccessControlEntryFilter
    from kadmin.acls import AclBinding as AclBinding
    from kadmin.acls import AclBindingFilter as AclBindingFilter
    from kadmin.acls import AclOperation as AclOperation
    from kadmin.acls import AclPermissionType as AclPermissionType
    from kadmin.acls import PatternType as PatternType
    from kadmin.acls import ResourcePattern as ResourcePattern
    from kadmin.acls import ResourcePatternFilter as ResourcePatternFilter
    from kadmin.acls import ResourceType as ResourceType
    from kadmin.client import AdminClient as AdminClient
    from kadmin.config import ClientConfig as ClientConfig
    from kadmin.configs import AppendConfig as AppendConfig
    from kadmin.configs import ConfigEntry as ConfigEntry
    from kadmin.configs import ConfigResource as ConfigResource
    from kadmin.configs import ConfigResourceType as ConfigResourceType
    from kadmin.configs import ConfigSource as ConfigSource
    from kadmin.configs import ConfigSynonym as ConfigSynonym
    from kadmin.configs import ConfigType as ConfigType
    from kadmin.configs import DeleteConfig as DeleteConfig
    from kadmin.configs import SetConfig as SetConfig
    from kadmin.configs import SubtractConfig as SubtractConfig
    from kadmin.errors import KafkaError as KafkaError
    from kadmin.scram import ScramCredentialInfo as ScramCredentialInfo
    from kadmin.scram import ScramDeletion as ScramDeletion
    from kadmin.scram import ScramMechanism as ScramMechanism
    from kadmin.scram import ScramUpsertion as ScramUpsertion
    from kadmin.storage import DeletedRecords as DeletedRecords
    from kadmin.storage import ElectionResult as ElectionResult
    from kadmin.storage import ElectionType as ElectionType
    from kadmin.storage import LogDirDescription as LogDirDescription
    from kadmin.storage import PartitionReassignment as PartitionReassignment
    from kadmin.storage import ReplicaLogInfo as ReplicaLogInfo
    from kadmin.storage import TopicSizes as TopicSizes
    from kadmin.tokens import DelegationToken as DelegationToken
    from kadmin.topics import CreatedTopic as CreatedTopic
    from kadmin.topics import NewPartitions as NewPartitions
    from kadmin.topics import NewTopic as NewTopic
    from kadmin.topics import PartitionInfo as PartitionInfo
    from kadmin.topics import TopicDescription as TopicDescription
    from kadmin.topics import TopicListing as TopicListing
    from kadmin.transactions import AbortTransactionSpec as AbortTransactionSpec
    from kadmin.transactions import FencedProducer as FencedProducer
    from kadmin.transactions import HangingTransaction as HangingTransaction
    from kadmin.transactions import HangingTransactionsResult as HangingTransactionsResult
    from kadmin.transactions import ListTransactionsResult as ListTransactionsResult
    from kadmin.transactions import ProducerState as ProducerState
    from kadmin.transactions import TransactionDescription as TransactionDescription
    from kadmin.transactions import TransactionListing as TransactionListing
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
