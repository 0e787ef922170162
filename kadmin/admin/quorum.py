"""The KRaft metadata quorum: DescribeQuorum (55), AddRaftVoter (80), RemoveRaftVoter (81), UnregisterBroker (64).

Each is one request to a node that speaks the API (a KRaft broker forwards it to the active controller; a
ZooKeeper-mode cluster has none of them, and the call fails with one UnsupportedVersionError saying so).  The
voter changes and UnregisterBroker are writes: a lost answer leaves them "possibly applied", and the answer a
resend gets when the first send was applied (DUPLICATE_VOTER, VOTER_NOT_FOUND, BROKER_ID_NOT_REGISTERED) is
not taken as the truth about the call.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from kadmin.admin._driver import Done, Failed, Operation, Outcome, Retry
from kadmin.admin.lookups import NodeSpeaking
from kadmin.errors import ErrorCode, KafkaError, ProtocolError, error_for_code
from kadmin.protocol import Message, message_type
from kadmin.protocol.apis import ApiKey
from kadmin.quorum import METADATA_TOPIC, QuorumInfo, QuorumReplica, RaftVoterEndpoint

#: The one key of describe_metadata_quorum.
QUORUM = "quorum"
_KRAFT_ONLY = ("the metadata quorum APIs are KRaft-mode Kafka's (3.3+); ZooKeeper-mode brokers and other servers "
               "lack them")


def _outcome(err: KafkaError) -> Outcome:
    # CLUSTER_AUTHORIZATION_FAILED, INCONSISTENT_CLUSTER_ID, UNSUPPORTED_VERSION (kraft.version 0: a static
    # quorum), DUPLICATE_VOTER, VOTER_NOT_FOUND, INVALID_REQUEST (the last voter, a replica that is not an
    # observer), BROKER_ID_NOT_REGISTERED: final, asking again gets the same.  NOT_LEADER_OR_FOLLOWER, REQUEST_TIMED_OUT
    # and the other retriable codes (a leader election under way): again.
    return Retry(err) if err.retriable else Failed(err)


class DescribeQuorum(Operation[str]):
    """The quorum of the __cluster_metadata partition: leader, epoch, high watermark, voters and observers."""

    api = ApiKey.DESCRIBE_QUORUM

    def __init__(self) -> None:
        self.lookup: NodeSpeaking[str] = NodeSpeaking(self.api, too_old=_KRAFT_ONLY)

    def build(self, node: int, keys: list[str], version: int) -> Message:
        req: Any = message_type(ApiKey.DESCRIBE_QUORUM, "request")
        return req(topics=[req.TopicData(topic_name=METADATA_TOPIC,  # type: ignore[no-any-return]
                                         partitions=[req.PartitionData(partition_index=0)])])

    def handle(self, node: int, keys: list[str], response: Any, version: int) -> dict[str, Outcome]:
        err = error_for_code(response.error_code, getattr(response, "error_message", None))
        if err is not None:
            return {QUORUM: _outcome(err)}
        parts = [p for t in response.topics if t.topic_name == METADATA_TOPIC for p in t.partitions
                 if p.partition_index == 0]
        if not parts:
            return {QUORUM: Failed(ProtocolError("the DescribeQuorum answer has no __cluster_metadata partition 0"))}
        p = parts[0]
        err = error_for_code(p.error_code, getattr(p, "error_message", None))
        if err is not None:
            return {QUORUM: _outcome(err)}
        end = max((r.log_end_offset for r in p.current_voters if r.replica_id == p.leader_id),
                  default=p.high_watermark)
        nodes = {n.node_id: tuple(RaftVoterEndpoint(li.name, li.host, li.port) for li in n.listeners)
                 for n in getattr(response, "nodes", None) or ()}
        return {QUORUM: Done(QuorumInfo(p.leader_id, p.leader_epoch, p.high_watermark,
                                        _replicas(p.current_voters, end, version),
                                        _replicas(p.observers, end, version), nodes))}


def _replicas(states: Sequence[Any], leader_end: int, version: int) -> tuple[QuorumReplica, ...]:
    out = []
    for r in states:
        directory = getattr(r, "replica_directory_id", None) if version >= 2 else None
        if directory == uuid.UUID(int=0):
            directory = None
        fetched = getattr(r, "last_fetch_timestamp", -1) if version >= 1 else -1
        caught = getattr(r, "last_caught_up_timestamp", -1) if version >= 1 else -1
        out.append(QuorumReplica(r.replica_id, directory, r.log_end_offset, max(0, leader_end - r.log_end_offset),
                                 fetched if fetched >= 0 else None, caught if caught >= 0 else None))
    return tuple(out)


class _VoterChange(Operation[int]):
    """Add or remove one voter (keyed by its id); None when the quorum took the change."""

    write = True

    def __init__(self, directory_id: uuid.UUID, cluster_id: str | None) -> None:
        self.directory_id = directory_id
        self.cluster_id = cluster_id
        self.lookup: NodeSpeaking[int] = NodeSpeaking(self.api, too_old=f"{_KRAFT_ONLY}; voter changes need "
                                                      "Kafka 3.9+ (KIP-853)")

    def handle(self, node: int, keys: list[int], response: Any, version: int) -> dict[int, Outcome]:
        err = error_for_code(response.error_code, response.error_message)
        return {k: Done(None) if err is None else _outcome(err) for k in keys}


class AddRaftVoter(_VoterChange):
    api = ApiKey.ADD_RAFT_VOTER
    applied_looks_like = frozenset({ErrorCode.DUPLICATE_VOTER})

    def __init__(self, directory_id: uuid.UUID, endpoints: Sequence[RaftVoterEndpoint], cluster_id: str | None,
                 timeout_ms: int) -> None:
        super().__init__(directory_id, cluster_id)
        self.endpoints = list(endpoints)
        self.timeout_ms = timeout_ms

    def build(self, node: int, keys: list[int], version: int) -> Message:
        req: Any = message_type(ApiKey.ADD_RAFT_VOTER, "request")
        return req(cluster_id=self.cluster_id, timeout_ms=self.timeout_ms,  # type: ignore[no-any-return]
                   voter_id=keys[0], voter_directory_id=self.directory_id,
                   listeners=[req.Listener(name=e.name, host=e.host, port=e.port) for e in self.endpoints])


class RemoveRaftVoter(_VoterChange):
    api = ApiKey.REMOVE_RAFT_VOTER
    applied_looks_like = frozenset({ErrorCode.VOTER_NOT_FOUND})

    def build(self, node: int, keys: list[int], version: int) -> Message:
        req: Any = message_type(ApiKey.REMOVE_RAFT_VOTER, "request")
        return req(cluster_id=self.cluster_id, voter_id=keys[0],  # type: ignore[no-any-return]
                   voter_directory_id=self.directory_id)


class UnregisterBroker(Operation[int]):
    """Remove a broker's registration (keyed by its id); None when the controller did."""

    api = ApiKey.UNREGISTER_BROKER
    write = True
    applied_looks_like = frozenset({ErrorCode.BROKER_ID_NOT_REGISTERED})

    def __init__(self) -> None:
        self.lookup: NodeSpeaking[int] = NodeSpeaking(self.api, too_old=f"{_KRAFT_ONLY}; UnregisterBroker needs "
                                                      "Kafka 3.0+ in KRaft mode")

    def build(self, node: int, keys: list[int], version: int) -> Message:
        return message_type(ApiKey.UNREGISTER_BROKER, "request")(broker_id=keys[0])

    def handle(self, node: int, keys: list[int], response: Any, version: int) -> dict[int, Outcome]:
        err = error_for_code(response.error_code, response.error_message)
        return {k: Done(None) if err is None else _outcome(err) for k in keys}


__all__ = ["QUORUM", "AddRaftVoter", "DescribeQuorum", "RemoveRaftVoter", "UnregisterBroker"]
