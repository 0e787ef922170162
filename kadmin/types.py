"""Result types returned by the AdminClient: frozen dataclasses, so results can be compared, hashed, logged."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from kadmin._keys import hash_or_none as _hash_or_none
from kadmin.errors import KafkaError

_set = object.__setattr__

@dataclass(frozen=True, order=True)
class TopicPartition:
    topic: str
    partition: int

    def __post_init__(self) -> None:
        _set(self, "_hash", _hash_or_none((self.topic, self.partition)))

    # Hashed once: partitions are the keys of per-partition calls (10,000 at a time), and validation, routing,
    # the driver's bookkeeping and the results' re-keying hash each key about twenty times.
    _hash: ClassVar[int | None]

    def __hash__(self) -> int:
        h = self._hash
        # None: a field is unhashable (bad input); hashing then fails as it would have, when it is asked for,
        # so that constructing such a key for validation to refuse with a clear message still works.
        return h if h is not None else hash((self.topic, self.partition))

    def __getstate__(self) -> dict[str, object]:
        # Never the cached hash: str hashes differ between processes (a Spark executor's, say).
        return {"topic": self.topic, "partition": self.partition}

    def __setstate__(self, state: dict[str, Any]) -> None:
        _set(self, "topic", state["topic"])
        _set(self, "partition", state["partition"])
        _set(self, "_hash", _hash_or_none((self.topic, self.partition)))

    def __str__(self) -> str:
        return f"{self.topic}-{self.partition}"


@dataclass(frozen=True)
class Node:
    node_id: int
    host: str
    port: int
    rack: str | None = None

    @property
    def address(self) -> str:
        """host:port, with IPv6 literals in brackets."""
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"

    def __str__(self) -> str:
        return f"{self.node_id}@{self.address}"


@dataclass(frozen=True)
class Coordinator:
    """The node that coordinates a group (or transactional id), as FindCoordinator answered."""

    key: str
    node_id: int
    host: str
    port: int


@dataclass(frozen=True)
class ConsumerSubscription:
    """A consumer member's decoded subscription (the "consumer" protocol's member metadata)."""

    version: int
    topics: tuple[str, ...]
    user_data: bytes | None
    owned_partitions: tuple[TopicPartition, ...] = ()
    generation_id: int = -1
    rack_id: str | None = None


@dataclass(frozen=True)
class ConsumerAssignment:
    version: int
    partitions: tuple[TopicPartition, ...]
    user_data: bytes | None


@dataclass(frozen=True)
class MemberDescription:
    """One member of a group, whichever protocol the group speaks.

    Classic groups (DescribeGroups) carry the member's encoded ``metadata``/``assignment_bytes`` and, for the
    "consumer" protocol type, their decoded ``subscription``/``assignment``.  Consumer-protocol groups (KIP-848,
    ConsumerGroupDescribe) and share groups (KIP-932) have no blobs: the broker holds the ``member_epoch``, the
    subscription and the ``target_assignment`` it is reconciling towards.  ``subscribed_topic_names`` and
    ``current_assignment`` are filled for both, so code that only wants "who reads what" need not care.
    """

    member_id: str
    group_instance_id: str | None
    client_id: str
    host: str
    metadata: bytes = field(repr=False)
    assignment_bytes: bytes = field(repr=False)
    subscription: ConsumerSubscription | None = None
    assignment: ConsumerAssignment | None = None
    member_epoch: int | None = None
    rack_id: str | None = None
    subscribed_topic_names: tuple[str, ...] = ()
    subscribed_topic_regex: str | None = None
    current_assignment: tuple[TopicPartition, ...] = ()
    target_assignment: tuple[TopicPartition, ...] | None = None
    #: ConsumerGroupDescribe v1+: "consumer", or "classic" for a classic member inside a consumer-protocol group.
    member_type: str | None = None


@dataclass(frozen=True)
class GroupDescription:
    """A group as its coordinator describes it: classic (DescribeGroups), consumer-protocol (KIP-848,
    ConsumerGroupDescribe) or share (KIP-932, ShareGroupDescribe), told apart by ``group_type``.

    ``protocol`` is the classic group's assignment protocol, or the broker-side assignor of a consumer-protocol
    or share group (``assignor`` names it for both).  ``group_epoch``/``assignment_epoch`` exist only for
    consumer-protocol and share groups."""

    group_id: str
    state: str
    protocol_type: str
    protocol: str
    members: tuple[MemberDescription, ...]
    coordinator: int
    authorized_operations: frozenset[str] | None = None
    group_type: str = "classic"
    group_epoch: int | None = None
    assignment_epoch: int | None = None

    @property
    def is_empty(self) -> bool:
        return not self.members

    @property
    def assignor(self) -> str:
        return self.protocol


#: Kafka's group states (classic and KIP-848 groups), as ListGroups takes them.  Here, with the group types,
#: rather than with the operations (kadmin.admin.groups re-exports them): the CLI's --help lists them, and
#: should not load the driver and the network layer to do so (issue #28).
GROUP_STATES = ("Assigning", "CompletingRebalance", "Dead", "Empty", "NotReady", "PreparingRebalance",
                "Reconciling", "Stable", "Unknown")
#: Kafka's group types (KIP-848 consumer, KIP-932 share, KIP-1071 streams, and classic).
GROUP_TYPES = ("classic", "consumer", "share", "streams")


@dataclass(frozen=True)
class GroupListing:
    group_id: str
    protocol_type: str
    state: str | None = None
    group_type: str | None = None
    coordinator: int | None = None


@dataclass(frozen=True)
class ListGroupsResult:
    """Groups from every broker that answered, and the brokers that did not (never silently skipped)."""

    groups: tuple[GroupListing, ...]
    errors: dict[int, KafkaError]

    @property
    def complete(self) -> bool:
        return not self.errors

    def group_ids(self) -> list[str]:
        return sorted(g.group_id for g in self.groups)


@dataclass(frozen=True)
class OffsetAndMetadata:
    offset: int
    metadata: str | None = None
    leader_epoch: int | None = None


@dataclass(frozen=True)
class PartitionLag:
    committed: int
    log_end: int

    @property
    def lag(self) -> int:
        return max(0, self.log_end - self.committed)


@dataclass(frozen=True)
class ApiVersionRange:
    api_key: int
    name: str
    node_min: int
    node_max: int
    ours: tuple[int, int] | None
    negotiated: int | None  # None: no common version (the API cannot be used with this node)


@dataclass(frozen=True)
class NodeApiVersions:
    node: Node
    apis: dict[int, ApiVersionRange]
    release_guess: str | None = None


@dataclass(frozen=True)
class ClusterDescription:
    cluster_id: str | None
    controller_id: int | None
    nodes: tuple[Node, ...]
    authorized_operations: frozenset[str] | None = None
    #: KIP-1073 (``describe_cluster(include_fenced_brokers=True)``, DescribeCluster v2): the ids of the nodes
    #: listed in ``nodes`` that the controller has fenced (registered, but not serving).
    fenced_brokers: frozenset[int] = frozenset()


# Kafka's AclOperation codes, for authorized_operations bit sets (KIP-430).
ACL_OPERATIONS = {
    2: "ALL", 3: "READ", 4: "WRITE", 5: "CREATE", 6: "DELETE", 7: "ALTER", 8: "DESCRIBE", 9: "CLUSTER_ACTION",
    10: "DESCRIBE_CONFIGS", 11: "ALTER_CONFIGS", 12: "IDEMPOTENT_WRITE", 13: "CREATE_TOKENS", 14: "DESCRIBE_TOKENS",
    15: "TWO_PHASE_COMMIT",
}


def decode_authorized_operations(bits: int) -> frozenset[str] | None:
    """-2**31 means "not requested/not provided" on the wire."""
    if bits == -(2**31):
        return None
    return frozenset(name for code, name in ACL_OPERATIONS.items() if bits & (1 << code))


Result = Any  # a value or a KafkaError, per key
