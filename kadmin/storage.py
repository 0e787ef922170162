"""Records, log dirs, leader elections and partition reassignments: what a caller asks for, what comes back, and
the checks made before anything is sent.

Pure: no sockets.  The operations that send these live in :mod:`kadmin.admin.records`,
:mod:`kadmin.admin.log_dirs` and :mod:`kadmin.admin.leaders`, and on the AdminClient classes
(``delete_records``, ``describe_log_dirs``, ``topic_sizes``, ``elect_leaders``, ``alter_partition_reassignments``,
``list_partition_reassignments``).

Why check here: these are the calls that destroy data (DeleteRecords cannot be undone) or move it between
machines (reassignments copy whole partitions), so a typo must fail on the caller's machine, not as a per-partition
error after the controller has already acted on the other half of the request.  The rules are Kafka's: legal
topic names (:func:`kadmin.topics.validate_topic_name`), partitions 0..2**31-1, broker ids 0..2**31-1, a
deletion offset >= 0 or -1 (:data:`HIGH_WATERMARK`), a reassignment target of distinct brokers (or None to
cancel), and each partition once per call.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kadmin._keys import normalise_keys
from kadmin.errors import KafkaError
from kadmin.topics import validate_topic_name
from kadmin.types import TopicPartition

#: delete_records' offset meaning "everything up to the high watermark" (DeleteRecordsRequest.HIGH_WATERMARK).
HIGH_WATERMARK = -1
_INT32_MAX = 2**31 - 1
_INT64_MAX = 2**63 - 1


# --- inputs ----------------------------------------------------------------------------------------------


def validate_partition(key: object, what: str = "partition") -> TopicPartition:
    """A TopicPartition from a TopicPartition or a (topic, partition) pair, with a legal topic name."""
    if isinstance(key, TopicPartition):
        tp = key
    elif isinstance(key, tuple) and len(key) == 2:
        tp = TopicPartition(*key)
    else:
        raise TypeError(f"a {what} must be a TopicPartition or a (topic, partition) pair, not {key!r}")
    try:
        validate_topic_name(tp.topic)
    except (TypeError, ValueError) as exc:
        # Named here, not up front: a repr per key costs more than the check (10,000 keys at a time).
        raise type(exc)(f"{exc} (in {what} {tp!r})") from None
    if isinstance(tp.partition, bool) or not isinstance(tp.partition, int) or not 0 <= tp.partition <= _INT32_MAX:
        raise ValueError(f"invalid partition number in {tp!r}: an int from 0 to {_INT32_MAX}")
    return tp


def _checked_keys(mapping: object, call: str, shape: str) -> dict[TopicPartition, Any]:
    """{TopicPartition: the caller's key} of a {partition: value} mapping, each partition once (two spellings of
    one partition, ``("t", 0)`` and ``TopicPartition("t", 0)``, are refused: which value would win?)."""
    if not isinstance(mapping, Mapping):
        raise TypeError(f"{call} takes a mapping {shape}, not {type(mapping).__name__}")
    keys = normalise_keys(mapping, validate_partition, call, "partition")
    if not keys:
        raise ValueError(f"{call}: no partitions given")
    return keys


def check_delete_records(offsets: object) -> tuple[dict[TopicPartition, int], dict[TopicPartition, Any]]:
    """:func:`validate_delete_records`, and {TopicPartition: the caller's key} to answer by."""
    keys = _checked_keys(offsets, "delete_records", "{TopicPartition: before_offset}")
    assert isinstance(offsets, Mapping)
    out: dict[TopicPartition, int] = {}
    for tp, key in keys.items():
        offset = offsets[key]
        if isinstance(offset, bool) or not isinstance(offset, int):
            raise TypeError(f"delete_records: the offset for {tp} must be an int, not {offset!r}")
        if not (offset == HIGH_WATERMARK or 0 <= offset <= _INT64_MAX):
            raise ValueError(f"delete_records: the offset for {tp} must be >= 0, or -1 for the high watermark; "
                             f"got {offset}")
        out[tp] = offset
    return out, keys


def validate_delete_records(offsets: object) -> dict[TopicPartition, int]:
    """{TopicPartition: offset}: records below ``offset`` are deleted; -1 (:data:`HIGH_WATERMARK`) deletes up to
    the high watermark.  An offset beyond the high watermark is refused by the broker (OFFSET_OUT_OF_RANGE)."""
    return check_delete_records(offsets)[0]


def check_partition_list(partitions: object, call: str) -> dict[TopicPartition, Any] | None:
    """None (all partitions) or {TopicPartition: the caller's key} for a non-empty collection of partitions (the
    same key twice is one question; two spellings of one partition are refused)."""
    if partitions is None:
        return None
    if isinstance(partitions, (str, bytes, TopicPartition, Mapping)):
        raise TypeError(f"{call}: partitions must be a list of TopicPartition (or (topic, partition) pairs), "
                        f"or None for all, not {type(partitions).__name__}")
    if not isinstance(partitions, Iterable):
        raise TypeError(f"{call}: partitions must be a list of TopicPartition, not {type(partitions).__name__}")
    keys = normalise_keys(partitions, validate_partition, call, "partition")
    if not keys:
        raise ValueError(f"{call}: partitions is empty (pass None for all partitions)")
    return keys


def validate_partition_list(partitions: object, call: str) -> list[TopicPartition] | None:
    """None (all partitions) or a non-empty collection of partitions, each once (duplicates dropped)."""
    keys = check_partition_list(partitions, call)
    return None if keys is None else list(keys)


def validate_topic_list(topics: object, call: str) -> list[str] | None:
    """None (every topic) or a non-empty collection of legal topic names (duplicates dropped)."""
    if topics is None:
        return None
    if isinstance(topics, (str, bytes)) or not isinstance(topics, Iterable):
        raise TypeError(f"{call}: topics must be a list of topic names, or None for all, not {topics!r}")
    names = list(dict.fromkeys(validate_topic_name(t) for t in topics))
    if not names:
        raise ValueError(f"{call}: topics is empty (pass None for every topic)")
    return names


def validate_broker_id(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an int broker id, not {value!r}")
    if not 0 <= value <= _INT32_MAX:
        raise ValueError(f"{what} must be a broker id from 0 to {_INT32_MAX}; got {value}")
    return value


def validate_brokers(brokers: object) -> list[int] | None:
    """None (every broker) or a non-empty collection of broker ids (duplicates dropped)."""
    if brokers is None:
        return None
    if isinstance(brokers, (str, bytes, int)) or not isinstance(brokers, Iterable):
        raise TypeError(f"brokers must be a list of broker ids, or None for all, not {brokers!r}")
    out = list(dict.fromkeys(validate_broker_id(b, "a broker") for b in brokers))
    if not out:
        raise ValueError("brokers is empty (pass None for every broker)")
    return out


def check_reassignments(reassignments: object,
                        ) -> tuple[dict[TopicPartition, tuple[int, ...] | None], dict[TopicPartition, Any]]:
    """:func:`validate_reassignments`, and {TopicPartition: the caller's key} to answer by."""
    call = "alter_partition_reassignments"
    keys = _checked_keys(reassignments, call, "{TopicPartition: [broker ids] or None}")
    assert isinstance(reassignments, Mapping)
    out: dict[TopicPartition, tuple[int, ...] | None] = {}
    for tp, key in keys.items():
        target = reassignments[key]
        if target is None:
            out[tp] = None
            continue
        if isinstance(target, (str, bytes, Mapping)) or not isinstance(target, Iterable):
            raise TypeError(f"{call}: the target of {tp} must be a list of broker ids (or None to cancel), not "
                            f"{target!r}")
        replicas = tuple(validate_broker_id(b, f"a replica of {tp}") for b in target)
        if not replicas:
            raise ValueError(f"{call}: the target of {tp} is empty (None cancels a reassignment)")
        if len(set(replicas)) != len(replicas):
            raise ValueError(f"{call}: the target of {tp} lists a broker twice: {list(replicas)}")
        out[tp] = replicas
    return out, keys


def validate_reassignments(reassignments: object) -> dict[TopicPartition, tuple[int, ...] | None]:
    """{TopicPartition: [broker ids] or None}: the target replicas (the first is the preferred leader), or None
    to cancel the partition's ongoing reassignment."""
    return check_reassignments(reassignments)[0]


class ElectionType(enum.IntEnum):
    """Kafka's ElectionType: the preferred replica (KIP-183), or any live replica when no in-sync one is left,
    at the risk of losing the records it lacks (unclean, KIP-460, Kafka 2.4+)."""

    PREFERRED = 0
    UNCLEAN = 1


def validate_election_type(value: object) -> ElectionType:
    """An ElectionType, or its name ("preferred", "unclean", any case)."""
    if isinstance(value, ElectionType):
        return value
    if isinstance(value, str) and value.upper() in ElectionType.__members__:
        return ElectionType[value.upper()]
    raise ValueError(f"election type must be ElectionType.PREFERRED or UNCLEAN ('preferred'/'unclean'), "
                     f"not {value!r}")


# --- results ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DeletedRecords:
    """A partition's low watermark (log start offset) after delete_records."""

    low_watermark: int


@dataclass(frozen=True)
class ReplicaLogInfo:
    """One replica's log in a log directory: its size, how far its end trails (the high watermark for a
    current log; the current log's end for a future log), and whether it is a future log (being moved to this
    directory by AlterReplicaLogDirs, to replace the current one)."""

    partition: TopicPartition
    size_bytes: int
    offset_lag: int
    is_future: bool = False


@dataclass(frozen=True)
class LogDirDescription:
    """A broker's log directory.  ``error``: the directory is offline (KAFKA_STORAGE_ERROR) or could not be
    described; ``total_bytes``/``usable_bytes``: the volume's size and free space, None before Kafka 3.3
    (DescribeLogDirs v4); ``is_cordoned``: the broker takes no new replicas into it (KIP-1066), None before
    Kafka 4.3 (DescribeLogDirs v5), which cannot say."""

    path: str
    error: KafkaError | None
    replicas: tuple[ReplicaLogInfo, ...] = ()
    total_bytes: int | None = None
    usable_bytes: int | None = None
    is_cordoned: bool | None = None

    @property
    def size_bytes(self) -> int:
        """Bytes of the replicas in this directory (current and future logs)."""
        return sum(r.size_bytes for r in self.replicas)


@dataclass(frozen=True)
class TopicSizes:
    """Bytes on disk per topic.

    ``counted`` says which copies were summed: ``"leader"`` counts one copy of each partition, the leader's (the
    size of the data); ``"all"`` counts every replica's current log (the disk the topic takes across the
    cluster, so about the former times the replication factor).  Future logs are never counted.  A partition
    whose copy could not be read is in ``missing`` with the reason, and a broker that did not answer is in
    ``broker_errors`` (also a broker with an offline log dir; with ``"all"``, a broker holding replicas that is
    down): then the sizes are lower bounds, and ``complete`` is False.  Counting leaders, a down broker matters
    only for the partitions it still leads, and those are in ``missing``.
    """

    sizes: dict[str, int]
    counted: str
    missing: dict[TopicPartition, KafkaError] = field(default_factory=dict)
    broker_errors: dict[int, KafkaError] = field(default_factory=dict)
    #: Topics that could not be sized at all (UnknownTopicOrPartitionError for a topic the cluster lacks).
    topic_errors: dict[str, KafkaError] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        return not self.missing and not self.broker_errors and not self.topic_errors


class ElectionResult(enum.Enum):
    """What an election did for a partition: a leader was elected, or the partition already had the leader the
    election type asks for (Kafka's ELECTION_NOT_NEEDED, which is not a failure)."""

    ELECTED = "elected"
    NOT_NEEDED = "not_needed"


@dataclass(frozen=True)
class PartitionReassignment:
    """An ongoing reassignment: every replica the partition has during the move, and which of them are being
    added (still catching up) and removed (leaving once the move completes)."""

    replicas: tuple[int, ...]
    adding: tuple[int, ...]
    removing: tuple[int, ...]

    @property
    def target(self) -> tuple[int, ...]:
        """The replicas the partition will have when the move completes."""
        return tuple(r for r in self.replicas if r not in self.removing)


__all__ = [
    "HIGH_WATERMARK",
    "DeletedRecords",
    "ElectionResult",
    "ElectionType",
    "LogDirDescription",
    "PartitionReassignment",
    "ReplicaLogInfo",
    "TopicSizes",
    "check_delete_records",
    "check_partition_list",
    "check_reassignments",
    "validate_broker_id",
    "validate_brokers",
    "validate_delete_records",
    "validate_election_type",
    "validate_partition",
    "validate_partition_list",
    "validate_reassignments",
    "validate_topic_list",
]
