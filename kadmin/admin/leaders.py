"""Who leads and who holds partitions: ElectLeaders (API 43) and Alter/ListPartitionReassignments (45, 46), all
to the controller.

Controller routing: :class:`~kadmin.admin.lookups.Controller` sends to the node Metadata names; a ZooKeeper-mode
broker that is no longer the controller answers NOT_CONTROLLER (per partition for ElectLeaders, for the whole
request for reassignments), which makes the driver refresh the metadata and ask the new one.  KRaft brokers
forward these requests to the controller quorum themselves.

Elections and reassignments change the cluster, so both are writes: a request sent and never answered leaves
its partitions "possibly applied".  What a resend after an applied first send gets: ELECTION_NOT_NEEDED (the
leader is already the wanted one) and, for a cancellation, NO_REASSIGNMENT_IN_PROGRESS.  A partition that
already had the wanted leader is reported as :attr:`~kadmin.storage.ElectionResult.NOT_NEEDED` by the
AdminClient, unless an earlier send of the same call may have made it so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from kadmin._keys import partitions_by_topic
from kadmin.admin._driver import Built, Done, Failed, Operation, Outcome, Retry, split_by_version
from kadmin.admin.lookups import Controller
from kadmin.errors import ErrorCode, KafkaError, UnsupportedVersionError, error_for_code
from kadmin.protocol import Message, message_type
from kadmin.protocol.apis import ApiKey
from kadmin.storage import ElectionResult, ElectionType, PartitionReassignment
from kadmin.types import TopicPartition

#: The key of a call about every partition (an election or a listing with no partitions named).
ALL_PARTITIONS = "all partitions"
#: How long the controller may take (the request's TimeoutMs; Kafka's admin default).
DEFAULT_TIMEOUT_MS = 60_000
#: KIP-860: AlterPartitionReassignments v1 (Kafka 4.1) can refuse a move that changes a replication factor.
RF_CHANGE_FLAG_SINCE = 1

Key = TopicPartition | str



def _top_level(keys: Sequence[Key], err: KafkaError) -> dict[Key, Outcome]:
    """An error for the whole request, given to every key of it."""
    if err.code == ErrorCode.NOT_CONTROLLER:
        # The controller moved: refresh the metadata and ask the new one.
        return dict.fromkeys(keys, Retry(err, relookup=True))
    # CLUSTER_AUTHORIZATION_FAILED, INVALID_REQUEST...: the answer; retriable ones (REQUEST_TIMED_OUT) again.
    return dict.fromkeys(keys, Retry(err) if err.retriable else Failed(err))


# --- elections ----------------------------------------------------------------------------------------------


class ElectLeaders(Operation[Key]):
    """Preferred or unclean leader elections.  Keys are partitions, or :data:`ALL_PARTITIONS` alone (every
    partition of the cluster; its value is then {partition: ElectionResult or error} for the partitions the
    controller reports, which leaves out those that needed no election)."""

    api = ApiKey.ELECT_LEADERS
    write = True
    applied_looks_like: ClassVar[frozenset[ErrorCode] | None] = frozenset({ErrorCode.ELECTION_NOT_NEEDED})

    def __init__(self, election_type: ElectionType, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> None:
        self.election_type = election_type
        self.timeout_ms = timeout_ms
        self.lookup: Controller[Key] = Controller()

    def build(self, node: int, keys: list[Key], version: int) -> Message:
        if self.election_type != ElectionType.PREFERRED and version < 1:
            # The election type is the whole request's (one per call, for every partition): all fail.
            raise UnsupportedVersionError(f"node {node} speaks ElectLeaders v{version} (Kafka 2.2's preferred-only "
                                          "ElectPreferredLeaders); unclean elections need v1+ (Kafka 2.4)")
        req: Any = message_type(ApiKey.ELECT_LEADERS, "request")
        if ALL_PARTITIONS in keys:
            wanted = None
        else:
            wanted = [req.TopicPartitions(topic=t, partitions=ps)
                      for t, ps in partitions_by_topic([k for k in keys if isinstance(k, TopicPartition)]).items()]
        return req(election_type=int(self.election_type), topic_partitions=wanted,  # type: ignore[no-any-return]
                   timeout_ms=self.timeout_ms)

    def handle(self, node: int, keys: list[Key], response: Any, version: int) -> dict[Key, Outcome]:
        top = error_for_code(response.error_code) if version >= 1 else None
        if top is not None:
            return _top_level(keys, top)
        parts: dict[TopicPartition, Outcome] = {}
        for t in response.replica_election_results:
            for p in t.partition_result:
                tp = TopicPartition(t.topic, p.partition_id)
                parts[tp] = self._partition(tp, p.error_code, p.error_message)
        if ALL_PARTITIONS in keys:
            retry = next((o for o in parts.values() if isinstance(o, Retry)), None)
            if retry is not None:
                # Some partitions asked for another round (NOT_CONTROLLER): ask for everything again.
                return {ALL_PARTITIONS: retry}
            return {ALL_PARTITIONS: Done({tp: o.value if isinstance(o, Done) else _error(o)
                                          for tp, o in sorted(parts.items())})}
        return {tp: o for tp, o in parts.items()}

    @staticmethod
    def _partition(tp: TopicPartition, code: int, message: str | None) -> Outcome:
        if code == ErrorCode.NONE:
            return Done(ElectionResult.ELECTED)
        err = error_for_code(code, f"{tp}: {message}" if message else f"{tp}: {error_for_code(code)}")
        assert err is not None
        if code == ErrorCode.ELECTION_NOT_NEEDED:
            # Already led by the wanted replica.  Not a failure: the AdminClient reports it as NOT_NEEDED once the
            # driver has ruled out that an unanswered earlier send of this call made it so.
            return Failed(err)
        if code == ErrorCode.NOT_CONTROLLER:
            # ZooKeeper mode: this broker stopped being the controller; ask the new one.
            return Retry(err, relookup=True)
        if code in (ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE, ErrorCode.ELIGIBLE_LEADERS_NOT_AVAILABLE):
            # The replica to elect is down or out of sync.  Kafka calls this retriable, but it lasts as long as the
            # broker is down: an answer for the caller, not a reason to spin until the deadline.
            return Failed(err)
        if code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
            # No such partition (or a topic being deleted): the answer.
            return Failed(err)
        if code == ErrorCode.REQUEST_TIMED_OUT:
            # The election did not finish within timeout_ms; it may still happen.  Ask again (the driver keeps the
            # partition in doubt if no later answer comes).
            return Retry(err)
        # CLUSTER_AUTHORIZATION_FAILED, INVALID_TOPIC_EXCEPTION...: the answer.
        return Retry(err) if err.retriable else Failed(err)


def _error(outcome: Outcome) -> KafkaError:
    assert isinstance(outcome, (Failed, Retry))
    return outcome.error


# --- reassignments ------------------------------------------------------------------------------------------


class AlterPartitionReassignments(Operation[TopicPartition]):
    """Start (target replicas) or cancel (None) moving partitions, in one request to the controller."""

    api = ApiKey.ALTER_PARTITION_REASSIGNMENTS
    write = True
    applied_looks_like: ClassVar[frozenset[ErrorCode] | None] = frozenset({ErrorCode.NO_REASSIGNMENT_IN_PROGRESS})

    def __init__(self, targets: Mapping[TopicPartition, tuple[int, ...] | None],
                 timeout_ms: int = DEFAULT_TIMEOUT_MS, allow_replication_factor_change: bool = True) -> None:
        self.targets = targets
        self.timeout_ms = timeout_ms
        self.allow_rf_change = allow_replication_factor_change
        self.lookup: Controller[TopicPartition] = Controller()

    def _needs(self, tp: TopicPartition) -> tuple[int, str] | None:
        # Only a move can change the replication factor: a cancellation (None) travels at any version.
        if self.allow_rf_change or self.targets[tp] is None:
            return None
        return RF_CHANGE_FLAG_SINCE, "refusing a replication-factor change (KIP-860)"

    def build(self, node: int, keys: list[TopicPartition],
              version: int) -> Message | Built[TopicPartition]:
        req: Any = message_type(ApiKey.ALTER_PARTITION_REASSIGNMENTS, "request")
        ok, refused = split_by_version(keys, version, self._needs, api=self.api, node=node)
        topics: dict[str, list[Any]] = {}
        for tp in ok:
            target = self.targets[tp]
            topics.setdefault(tp.topic, []).append(req.ReassignablePartition(
                partition_index=tp.partition, replicas=None if target is None else list(target)))
        extra = {"allow_replication_factor_change": self.allow_rf_change} if version >= RF_CHANGE_FLAG_SINCE else {}
        msg = req(timeout_ms=self.timeout_ms, topics=[req.ReassignableTopic(name=t, partitions=ps)
                                                      for t, ps in topics.items()], **extra)
        if not refused:
            return msg  # type: ignore[no-any-return]
        return Built(msg if ok else [], refused)

    def handle(self, node: int, keys: list[TopicPartition], response: Any,
               version: int) -> dict[TopicPartition, Outcome]:
        top = error_for_code(response.error_code, response.error_message)
        if top is not None:
            return _top_level(keys, top)  # type: ignore[return-value]
        out: dict[TopicPartition, Outcome] = {}
        for t in response.responses:
            for p in t.partitions:
                tp = TopicPartition(t.name, p.partition_index)
                out[tp] = self._partition(tp, p.error_code, p.error_message)
        return out

    def _partition(self, tp: TopicPartition, code: int, message: str | None) -> Outcome:
        if code == ErrorCode.NONE:
            return Done(None)
        err = error_for_code(code, f"{tp}: {message}" if message else f"{tp}: {error_for_code(code)}")
        assert err is not None
        if code == ErrorCode.NOT_CONTROLLER:
            # The controller moved mid-request: ask the new one (a reassignment to the same target is idempotent).
            return Retry(err, relookup=True)
        if code in (ErrorCode.INVALID_REPLICA_ASSIGNMENT, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                    ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, ErrorCode.INVALID_REPLICATION_FACTOR):
            # A target naming a broker the cluster does not have, no such partition, nothing to cancel: the answer.
            return Failed(err)
        if code == ErrorCode.REQUEST_TIMED_OUT:
            # The controller did not finish in time; it may still.  Ask again (the target is the same).
            return Retry(err)
        return Retry(err) if err.retriable else Failed(err)


class ListPartitionReassignments(Operation[Key]):
    """Ongoing reassignments.  Keys are partitions (each: its PartitionReassignment, or None when it is not being
    moved or does not exist: the controller does not tell the two apart), or :data:`ALL_PARTITIONS` alone (every
    ongoing reassignment, as {partition: PartitionReassignment})."""

    api = ApiKey.LIST_PARTITION_REASSIGNMENTS

    def __init__(self, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> None:
        self.timeout_ms = timeout_ms
        self.lookup: Controller[Key] = Controller()

    def build(self, node: int, keys: list[Key], version: int) -> Message:
        req: Any = message_type(ApiKey.LIST_PARTITION_REASSIGNMENTS, "request")
        wanted = None if ALL_PARTITIONS in keys else [
            req.ListPartitionReassignmentsTopics(name=t, partition_indexes=ps)
            for t, ps in partitions_by_topic([k for k in keys if isinstance(k, TopicPartition)]).items()]
        return req(timeout_ms=self.timeout_ms, topics=wanted)  # type: ignore[no-any-return]

    def handle(self, node: int, keys: list[Key], response: Any, version: int) -> dict[Key, Outcome]:
        top = error_for_code(response.error_code, response.error_message)
        if top is not None:
            return _top_level(keys, top)
        ongoing = {TopicPartition(t.name, p.partition_index):
                   PartitionReassignment(tuple(p.replicas), tuple(p.adding_replicas), tuple(p.removing_replicas))
                   for t in response.topics for p in t.partitions}
        if ALL_PARTITIONS in keys:
            return {ALL_PARTITIONS: Done(dict(sorted(ongoing.items())))}
        return {k: Done(ongoing.get(k)) for k in keys if isinstance(k, TopicPartition)}




def election_result(value: object) -> ElectionResult | KafkaError:
    """A partition's election outcome as the AdminClient reports it: ELECTION_NOT_NEEDED (which the driver left
    as an error only where no earlier send of the call may have done the election) becomes NOT_NEEDED."""
    if isinstance(value, KafkaError) and value.code == ErrorCode.ELECTION_NOT_NEEDED:
        return ElectionResult.NOT_NEEDED
    assert isinstance(value, (ElectionResult, KafkaError))
    return value


def partition_keys(partitions: Sequence[TopicPartition]) -> list[Key]:
    """Partitions as keys of the operations that also take :data:`ALL_PARTITIONS`."""
    return list(partitions)


def by_partition(results: Mapping[Key, Any]) -> dict[TopicPartition, Any]:
    """The per-partition results of such an operation."""
    return {k: v for k, v in results.items() if isinstance(k, TopicPartition)}


__all__ = ["ALL_PARTITIONS", "AlterPartitionReassignments", "DEFAULT_TIMEOUT_MS", "ElectLeaders",
           "ListPartitionReassignments", "by_partition", "election_result", "partition_keys"]
