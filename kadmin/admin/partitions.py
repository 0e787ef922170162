"""Partition offsets: ListOffsets (API 2) to each partition's leader.

The worked example of the operation shape (docs/contributing.md walks through it): the lookup is
:class:`~kadmin.admin.lookups.PartitionLeader` (one Metadata request per round finds the leaders), ``build``
makes one request per leader for the version that leader negotiated, and ``handle`` gives each partition its
offset or names why not, one commented case per error.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kadmin._keys import normalise_keys
from kadmin.admin._driver import Built, Done, Failed, Operation, Outcome, Retry, split_by_version
from kadmin.admin.lookups import PartitionLeader
from kadmin.errors import ErrorCode, UnsupportedVersionError, error_for_code
from kadmin.protocol import Message, message_type
from kadmin.protocol.apis import ApiKey
from kadmin.storage import validate_partition
from kadmin.types import TopicPartition

#: ListOffsets' special timestamps, and the first version that carries each (KIP-734, KIP-1005, KIP-1023).
LATEST, EARLIEST, MAX_TIMESTAMP, EARLIEST_LOCAL, LATEST_TIERED, EARLIEST_PENDING_UPLOAD = -1, -2, -3, -4, -5, -6
_SINCE = {LATEST: 0, EARLIEST: 0, MAX_TIMESTAMP: 7, EARLIEST_LOCAL: 8, LATEST_TIERED: 9, EARLIEST_PENDING_UPLOAD: 11}
_NAMES = {LATEST: "latest", EARLIEST: "earliest", MAX_TIMESTAMP: "max_timestamp",
          EARLIEST_LOCAL: "earliest_local", LATEST_TIERED: "latest_tiered",
          EARLIEST_PENDING_UPLOAD: "earliest_pending_upload"}
#: Isolation levels (IsolationLevel in Kafka): read_committed hides open transactions from "latest".
ISOLATION_LEVELS = {"read_uncommitted": 0, "read_committed": 1}


def _check_timestamp(timestamp: object, where: str) -> None:
    """A spec's timestamp: ms since the epoch, or one of the special values -1..-6.  A bool is refused (True
    would be sent as timestamp 1, a time in 1970, not what anyone meant)."""
    if isinstance(timestamp, bool) or not isinstance(timestamp, int):
        raise TypeError(f"{where}an OffsetSpec timestamp is an int (ms since the epoch, or OffsetSpec.latest() "
                        f"and the other special values), not {type(timestamp).__name__} ({timestamp!r})")
    if not EARLIEST_PENDING_UPLOAD <= timestamp < 2**63:
        raise ValueError(f"{where}{timestamp} is not a timestamp or a known special offset")


@dataclass(frozen=True)
class OffsetSpec:
    """Which offset to list for a partition: ``OffsetSpec.latest()``, ``.earliest()``, ``.for_timestamp(ms)``
    (the first offset whose timestamp is at or after ``ms``), ``.max_timestamp()`` (the record with the largest
    timestamp, Kafka 3.0+), ``.earliest_local()`` / ``.latest_tiered()`` (tiered storage, Kafka 3.8+),
    ``.earliest_pending_upload()`` (the first offset not yet copied to remote storage, KIP-1023, Kafka 4.2+)."""

    timestamp: int

    def __post_init__(self) -> None:
        _check_timestamp(self.timestamp, "")

    @classmethod
    def latest(cls) -> OffsetSpec:
        return cls(LATEST)

    @classmethod
    def earliest(cls) -> OffsetSpec:
        return cls(EARLIEST)

    @classmethod
    def max_timestamp(cls) -> OffsetSpec:
        return cls(MAX_TIMESTAMP)

    @classmethod
    def earliest_local(cls) -> OffsetSpec:
        return cls(EARLIEST_LOCAL)

    @classmethod
    def latest_tiered(cls) -> OffsetSpec:
        return cls(LATEST_TIERED)

    @classmethod
    def earliest_pending_upload(cls) -> OffsetSpec:
        """The first offset of the partition that tiered storage has not uploaded yet (ListOffsets v11,
        KIP-1023); a broker before Kafka 4.2 cannot say, and the partition is refused unsent there.  A topic
        without remote storage answers offset -1."""
        return cls(EARLIEST_PENDING_UPLOAD)

    @classmethod
    def for_timestamp(cls, ms: int) -> OffsetSpec:
        if isinstance(ms, bool) or not isinstance(ms, int) or not 0 <= ms < 2**63:
            raise ValueError(f"a timestamp must be a non-negative int of milliseconds since the epoch, not {ms!r}")
        return cls(ms)

    @property
    def min_version(self) -> int:
        return _SINCE.get(self.timestamp, 0)

    def __str__(self) -> str:
        return _NAMES.get(self.timestamp, f"timestamp {self.timestamp}")


@dataclass(frozen=True)
class ListedOffset:
    """A partition's listed offset; ``timestamp`` and ``leader_epoch`` are None where the broker gave none."""

    offset: int
    timestamp: int | None = None
    leader_epoch: int | None = None


def check_offset_specs(specs: Any) -> tuple[dict[TopicPartition, OffsetSpec], dict[TopicPartition, Any]]:
    """{TopicPartition: OffsetSpec} checked, and {TopicPartition: the caller's key} to answer by.

    Keys are TopicPartition or (topic, partition) pairs with a legal topic name (an illegal one names no
    partition Kafka could have: refused here, never sent); values OffsetSpec or "earliest"/"latest".  Two keys
    for one partition (``("t", 0)`` and ``TopicPartition("t", 0)``) are refused: which spec would win?"""
    if not isinstance(specs, Mapping):
        raise TypeError(f"list_offsets takes a mapping {{TopicPartition: OffsetSpec}}, not {type(specs).__name__}")
    keys = normalise_keys(specs, validate_partition, "list_offsets", "partition")
    if not keys:
        raise ValueError("no partitions given")
    out: dict[TopicPartition, OffsetSpec] = {}
    for tp, key in keys.items():
        spec = specs[key]
        if isinstance(spec, str):
            spec = {"latest": OffsetSpec.latest(), "earliest": OffsetSpec.earliest()}.get(spec, spec)
        if not isinstance(spec, OffsetSpec):
            raise TypeError(f"{tp}: expected an OffsetSpec (e.g. OffsetSpec.latest()), not {spec!r}")
        _check_timestamp(spec.timestamp, f"{tp}: ")
        out[tp] = spec
    return out, keys


def isolation_level_code(level: str) -> int:
    if level not in ISOLATION_LEVELS:
        raise ValueError(f"isolation_level must be one of {sorted(ISOLATION_LEVELS)}, not {level!r}")
    return ISOLATION_LEVELS[level]


def _spec_need(spec: OffsetSpec) -> tuple[int, str] | None:
    need = spec.min_version
    return (need, str(spec)) if need > 0 else None


class ListOffsets(Operation[TopicPartition]):
    """Offsets per partition, one request per partition leader."""

    api = ApiKey.LIST_OFFSETS

    def __init__(self, specs: Mapping[TopicPartition, OffsetSpec], *, isolation_level: int = 0,
                 tolerate_unknown_topics: bool = True) -> None:
        self.specs = specs
        self.isolation_level = isolation_level
        self.tolerate_unknown_topics = tolerate_unknown_topics
        self.lookup = PartitionLeader(tolerate_unknown_topics=tolerate_unknown_topics)

    def build(self, node: int, keys: list[TopicPartition], version: int) -> Message | Built[TopicPartition]:
        if self.isolation_level and version < 2:
            # The isolation level is the whole request's: no partition can avoid it.
            raise UnsupportedVersionError(f"node {node} speaks ListOffsets up to v{version}; read_committed "
                                          "needs v2+ (Kafka 0.11)")
        # A spec this leader's version cannot carry (max_timestamp needs v7) fails its partition alone; the
        # leader's other partitions are asked.
        specs = self.specs
        ok, refused = split_by_version(keys, version, lambda tp: _spec_need(specs[tp]),
                                       api=self.api, node=node)
        req: Any = message_type(ApiKey.LIST_OFFSETS, "request")
        topics: dict[str, list[Any]] = {}
        for tp in ok:
            topics.setdefault(tp.topic, []).append(req.ListOffsetsPartition(
                partition_index=tp.partition, timestamp=specs[tp].timestamp, max_num_offsets=1))
        msg = req(replica_id=-1, isolation_level=self.isolation_level,
                  topics=[req.ListOffsetsTopic(name=t, partitions=ps) for t, ps in topics.items()])
        if not refused:
            return msg  # type: ignore[no-any-return]
        return Built(sends=[(msg, ok)] if ok else [], refused=refused)

    def handle(self, node: int, keys: list[TopicPartition], response: Any,
               version: int) -> dict[TopicPartition, Outcome]:
        out: dict[TopicPartition, Outcome] = {}
        for t in response.topics:
            for p in t.partitions:
                tp = TopicPartition(t.name, p.partition_index)
                out[tp] = self._partition(tp, p, version)
        return out

    def _partition(self, tp: TopicPartition, p: Any, version: int) -> Outcome:
        code = p.error_code
        if code == ErrorCode.NONE:
            if version == 0:
                return Done(ListedOffset(p.old_style_offsets[0] if p.old_style_offsets else -1))
            epoch = p.leader_epoch if version >= 4 and p.leader_epoch >= 0 else None
            return Done(ListedOffset(p.offset, p.timestamp if p.timestamp >= 0 else None, epoch))
        err = error_for_code(code, f"{tp}: {error_for_code(code)}")
        assert err is not None
        if code in (ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.LEADER_NOT_AVAILABLE,
                    ErrorCode.FENCED_LEADER_EPOCH, ErrorCode.UNKNOWN_LEADER_EPOCH,
                    ErrorCode.REPLICA_NOT_AVAILABLE):
            # The leader moved (or is being elected): find it again and ask it.
            return Retry(err, relookup=True)
        if code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
            # The metadata named this leader, but it does not know the partition: a deleted topic is an answer
            # when unknown topics are tolerated; otherwise a topic still being created is asked for again.
            return Failed(err) if self.tolerate_unknown_topics else Retry(err, relookup=True)
        if code == ErrorCode.OFFSET_NOT_AVAILABLE:
            # The new leader's high watermark is not known yet (KIP-207): the same leader, a little later.
            return Retry(err)
        # UNSUPPORTED_FOR_MESSAGE_FORMAT, TOPIC_AUTHORIZATION_FAILED, INVALID_REQUEST...: the answer.
        return Retry(err) if err.retriable else Failed(err)


__all__ = ["ISOLATION_LEVELS", "ListOffsets", "ListedOffset", "OffsetSpec", "check_offset_specs",
           "isolation_level_code"]
