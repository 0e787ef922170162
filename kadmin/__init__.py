"""kadmin: an admin client for Apache Kafka that negotiates versions per node and speaks quotas as floats.

``kadmin.AdminClient`` is synchronous (safe from scripts, threads and Spark drivers); ``kadmin.aio.AdminClient``
is the asyncio client it runs on.  Every per-key method returns {key: result or KafkaError}.

Every public type a caller meets (the arguments and results of the clients' methods, their fields, the
errors' base classes) is importable from here: ``from kadmin import OffsetSpec, ListedOffset``.
tests/client/test_public_surface.py walks the clients' signatures and fails on a kadmin type missing from the table
below.  The errors for each broker error code stay in :mod:`kadmin.errors`
(``kadmin.errors.NotCoordinatorError``).

Public names are imported lazily, so that ``import kadmin.protocol`` (pure codec) does not load the network
and admin layers: ``_EXPORTS`` says which module defines each, ``__getattr__`` imports it on first use, and
``__dir__`` lists them without importing anything.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from kadmin._version import __version__ as __version__

#: {public name: the module that defines it}, by layer then by area.  Add a name here and to the
#: TYPE_CHECKING imports below (a test checks they agree).
_EXPORTS: dict[str, str] = {
    "AdminClient": "kadmin.client",
    "ClientConfig": "kadmin.config",
    "Deadline": "kadmin.network.retry",
    "AuthenticationError": "kadmin.errors",
    "AuthorizationError": "kadmin.errors",
    "BrokerError": "kadmin.errors",
    "ClientClosedError": "kadmin.errors",
    "FieldVersionError": "kadmin.errors",
    "ForkedProcessError": "kadmin.errors",
    "HostResolutionError": "kadmin.errors",
    "KafkaConnectionError": "kadmin.errors",
    "KafkaError": "kadmin.errors",
    "KafkaTimeoutError": "kadmin.errors",
    "NoBrokersAvailableError": "kadmin.errors",
    "NoCommittedOffsetError": "kadmin.errors",
    "ProtocolError": "kadmin.errors",
    "SchemaError": "kadmin.errors",
    "SecurityMismatchError": "kadmin.errors",
    "UndecodableResponseError": "kadmin.errors",
    "UnknownBrokerError": "kadmin.errors",
    "ApiVersionRange": "kadmin.types",
    "ClusterDescription": "kadmin.types",
    "ConsumerAssignment": "kadmin.types",
    "ConsumerSubscription": "kadmin.types",
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
    "MemberToRemove": "kadmin.offset_reset",
    "OffsetResetPlan": "kadmin.offset_reset",
    "PartitionReset": "kadmin.offset_reset",
    "ResetTo": "kadmin.offset_reset",
    "SharePartitionOffset": "kadmin.share_groups",
    "ListedOffset": "kadmin.admin.partitions",
    "OffsetSpec": "kadmin.admin.partitions",
    "CreatedTopic": "kadmin.topics",
    "NewPartitions": "kadmin.topics",
    "NewTopic": "kadmin.topics",
    "PartitionInfo": "kadmin.topics",
    "TopicDescription": "kadmin.topics",
    "TopicListing": "kadmin.topics",
    "TopicRef": "kadmin.topics",
    "AppendConfig": "kadmin.configs",
    "ConfigEntry": "kadmin.configs",
    "ConfigOp": "kadmin.configs",
    "ConfigResource": "kadmin.configs",
    "ConfigResourceType": "kadmin.configs",
    "ConfigSource": "kadmin.configs",
    "ConfigSynonym": "kadmin.configs",
    "ConfigType": "kadmin.configs",
    "DeleteConfig": "kadmin.configs",
    "OpType": "kadmin.configs",
    "SetConfig": "kadmin.configs",
    "SubtractConfig": "kadmin.configs",
    "ClientQuotaAlteration": "kadmin.quotas",
    "ClientQuotaEntity": "kadmin.quotas",
    "ClientQuotaFilter": "kadmin.quotas",
    "ClientQuotaFilterComponent": "kadmin.quotas",
    "MatchType": "kadmin.quotas",
    "QuotaOp": "kadmin.quotas",
    "Remove": "kadmin.quotas",
    "ResolvedClientQuotas": "kadmin.quotas",
    "ResolvedQuota": "kadmin.quotas",
    "Set": "kadmin.quotas",
    "UnknownQuotaKeyError": "kadmin.quotas",
    "DeletedRecords": "kadmin.storage",
    "ElectionResult": "kadmin.storage",
    "ElectionType": "kadmin.storage",
    "LogDirDescription": "kadmin.storage",
    "PartitionReassignment": "kadmin.storage",
    "ReplicaLogInfo": "kadmin.storage",
    "TopicSizes": "kadmin.storage",
    "AccessControlEntry": "kadmin.acls",
    "AccessControlEntryFilter": "kadmin.acls",
    "AclBinding": "kadmin.acls",
    "AclBindingFilter": "kadmin.acls",
    "AclDeletion": "kadmin.acls",
    "AclListing": "kadmin.acls",
    "AclOperation": "kadmin.acls",
    "AclPermissionType": "kadmin.acls",
    "Identity": "kadmin.acls",
    "PatternType": "kadmin.acls",
    "ResourcePattern": "kadmin.acls",
    "ResourcePatternFilter": "kadmin.acls",
    "ResourceType": "kadmin.acls",
    "ScramAlteration": "kadmin.scram",
    "ScramCredentialInfo": "kadmin.scram",
    "ScramDeletion": "kadmin.scram",
    "ScramMechanism": "kadmin.scram",
    "ScramUpsertion": "kadmin.scram",
    "DelegationToken": "kadmin.tokens",
    # cluster operations (issue #26): features, the metadata quorum, replica log dirs
    "FeatureMetadata": "kadmin.features",
    "FeatureUpdate": "kadmin.features",
    "FinalizedFeature": "kadmin.features",
    "SupportedFeature": "kadmin.features",
    "UpgradeType": "kadmin.features",
    "QuorumInfo": "kadmin.quorum",
    "QuorumReplica": "kadmin.quorum",
    "RaftVoterEndpoint": "kadmin.quorum",
    "ReplicaLogDirInfo": "kadmin.replicas",
    "TopicPartitionReplica": "kadmin.replicas",
    "AbortTransactionSpec": "kadmin.transactions",
    "FencedProducer": "kadmin.transactions",
    "HangingTransaction": "kadmin.transactions",
    "HangingTransactionsResult": "kadmin.transactions",
    "ListTransactionsResult": "kadmin.transactions",
    "ProducerState": "kadmin.transactions",
    "TransactionDescription": "kadmin.transactions",
    "TransactionListing": "kadmin.transactions",
    # streams groups (issue #25, KIP-1071)
    "StreamsAssignment": "kadmin.streams_groups",
    "StreamsGroupDescription": "kadmin.streams_groups",
    "StreamsGroupMember": "kadmin.streams_groups",
    "StreamsSubtopology": "kadmin.streams_groups",
    "StreamsTaskOffset": "kadmin.streams_groups",
    "StreamsTasks": "kadmin.streams_groups",
    "StreamsTopicInfo": "kadmin.streams_groups",
}

if TYPE_CHECKING:
    from kadmin.acls import AccessControlEntry as AccessControlEntry
    from kadmin.acls import AccessControlEntryFilter as AccessControlEntryFilter
    from kadmin.acls import AclBinding as AclBinding
    from kadmin.acls import AclBindingFilter as AclBindingFilter
    from kadmin.acls import AclDeletion as AclDeletion
    from kadmin.acls import AclListing as AclListing
    from kadmin.acls import AclOperation as AclOperation
    from kadmin.acls import AclPermissionType as AclPermissionType
    from kadmin.acls import Identity as Identity
    from kadmin.acls import PatternType as PatternType
    from kadmin.acls import ResourcePattern as ResourcePattern
    from kadmin.acls import ResourcePatternFilter as ResourcePatternFilter
    from kadmin.acls import ResourceType as ResourceType
    from kadmin.admin.partitions import ListedOffset as ListedOffset
    from kadmin.admin.partitions import OffsetSpec as OffsetSpec
    from kadmin.client import AdminClient as AdminClient
    from kadmin.config import ClientConfig as ClientConfig
    from kadmin.configs import AppendConfig as AppendConfig
    from kadmin.configs import ConfigEntry as ConfigEntry
    from kadmin.configs import ConfigOp as ConfigOp
    from kadmin.configs import ConfigResource as ConfigResource
    from kadmin.configs import ConfigResourceType as ConfigResourceType
    from kadmin.configs import ConfigSource as ConfigSource
    from kadmin.configs import ConfigSynonym as ConfigSynonym
    from kadmin.configs import ConfigType as ConfigType
    from kadmin.configs import DeleteConfig as DeleteConfig
    from kadmin.configs import OpType as OpType
    from kadmin.configs import SetConfig as SetConfig
    from kadmin.configs import SubtractConfig as SubtractConfig
    from kadmin.errors import AuthenticationError as AuthenticationError
    from kadmin.errors import AuthorizationError as AuthorizationError
    from kadmin.errors import BrokerError as BrokerError
    from kadmin.errors import ClientClosedError as ClientClosedError
    from kadmin.errors import FieldVersionError as FieldVersionError
    from kadmin.errors import ForkedProcessError as ForkedProcessError
    from kadmin.errors import HostResolutionError as HostResolutionError
    from kadmin.errors import KafkaConnectionError as KafkaConnectionError
    from kadmin.errors import KafkaError as KafkaError
    from kadmin.errors import KafkaTimeoutError as KafkaTimeoutError
    from kadmin.errors import NoBrokersAvailableError as NoBrokersAvailableError
    from kadmin.errors import NoCommittedOffsetError as NoCommittedOffsetError
    from kadmin.errors import ProtocolError as ProtocolError
    from kadmin.errors import SchemaError as SchemaError
    from kadmin.errors import SecurityMismatchError as SecurityMismatchError
    from kadmin.errors import UndecodableResponseError as UndecodableResponseError
    from kadmin.errors import UnknownBrokerError as UnknownBrokerError
    from kadmin.features import FeatureMetadata as FeatureMetadata
    from kadmin.features import FeatureUpdate as FeatureUpdate
    from kadmin.features import FinalizedFeature as FinalizedFeature
    from kadmin.features import SupportedFeature as SupportedFeature
    from kadmin.features import UpgradeType as UpgradeType
    from kadmin.network.retry import Deadline as Deadline
    from kadmin.offset_reset import MemberToRemove as MemberToRemove
    from kadmin.offset_reset import OffsetResetPlan as OffsetResetPlan
    from kadmin.offset_reset import PartitionReset as PartitionReset
    from kadmin.offset_reset import ResetTo as ResetTo
    from kadmin.quorum import QuorumInfo as QuorumInfo
    from kadmin.quorum import QuorumReplica as QuorumReplica
    from kadmin.quorum import RaftVoterEndpoint as RaftVoterEndpoint
    from kadmin.quotas import ClientQuotaAlteration as ClientQuotaAlteration
    from kadmin.quotas import ClientQuotaEntity as ClientQuotaEntity
    from kadmin.quotas import ClientQuotaFilter as ClientQuotaFilter
    from kadmin.quotas import ClientQuotaFilterComponent as ClientQuotaFilterComponent
    from kadmin.quotas import MatchType as MatchType
    from kadmin.quotas import QuotaOp as QuotaOp
    from kadmin.quotas import Remove as Remove
    from kadmin.quotas import ResolvedClientQuotas as ResolvedClientQuotas
    from kadmin.quotas import ResolvedQuota as ResolvedQuota
    from kadmin.quotas import Set as Set
    from kadmin.quotas import UnknownQuotaKeyError as UnknownQuotaKeyError
    from kadmin.replicas import ReplicaLogDirInfo as ReplicaLogDirInfo
    from kadmin.replicas import TopicPartitionReplica as TopicPartitionReplica
    from kadmin.scram import ScramAlteration as ScramAlteration
    from kadmin.scram import ScramCredentialInfo as ScramCredentialInfo
    from kadmin.scram import ScramDeletion as ScramDeletion
    from kadmin.scram import ScramMechanism as ScramMechanism
    from kadmin.scram import ScramUpsertion as ScramUpsertion
    from kadmin.share_groups import SharePartitionOffset as SharePartitionOffset
    from kadmin.storage import DeletedRecords as DeletedRecords
    from kadmin.storage import ElectionResult as ElectionResult
    from kadmin.storage import ElectionType as ElectionType
    from kadmin.storage import LogDirDescription as LogDirDescription
    from kadmin.storage import PartitionReassignment as PartitionReassignment
    from kadmin.storage import ReplicaLogInfo as ReplicaLogInfo
    from kadmin.storage import TopicSizes as TopicSizes
    from kadmin.streams_groups import StreamsAssignment as StreamsAssignment
    from kadmin.streams_groups import StreamsGroupDescription as StreamsGroupDescription
    from kadmin.streams_groups import StreamsGroupMember as StreamsGroupMember
    from kadmin.streams_groups import StreamsSubtopology as StreamsSubtopology
    from kadmin.streams_groups import StreamsTaskOffset as StreamsTaskOffset
    from kadmin.streams_groups import StreamsTasks as StreamsTasks
    from kadmin.streams_groups import StreamsTopicInfo as StreamsTopicInfo
    from kadmin.tokens import DelegationToken as DelegationToken
    from kadmin.topics import CreatedTopic as CreatedTopic
    from kadmin.topics import NewPartitions as NewPartitions
    from kadmin.topics import NewTopic as NewTopic
    from kadmin.topics import PartitionInfo as PartitionInfo
    from kadmin.topics import TopicDescription as TopicDescription
    from kadmin.topics import TopicListing as TopicListing
    from kadmin.topics import TopicRef as TopicRef
    from kadmin.transactions import AbortTransactionSpec as AbortTransactionSpec
    from kadmin.transactions import FencedProducer as FencedProducer
    from kadmin.transactions import HangingTransaction as HangingTransaction
    from kadmin.transactions import HangingTransactionsResult as HangingTransactionsResult
    from kadmin.transactions import ListTransactionsResult as ListTransactionsResult
    from kadmin.transactions import ProducerState as ProducerState
    from kadmin.transactions import TransactionDescription as TransactionDescription
    from kadmin.transactions import TransactionListing as TransactionListing
    from kadmin.types import ApiVersionRange as ApiVersionRange
    from kadmin.types import ClusterDescription as ClusterDescription
    from kadmin.types import ConsumerAssignment as ConsumerAssignment
    from kadmin.types import ConsumerSubscription as ConsumerSubscription
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


def __dir__() -> list[str]:
    """The module's names and the lazy ones, none of them imported for the listing."""
    return sorted({*globals(), *_EXPORTS})


__all__ = sorted([*_EXPORTS, "__version__"])
