"""The KRaft metadata quorum (KIP-595, KIP-853): what describe_metadata_quorum answers and what add_raft_voter
takes.

Why these types: ``kafka-metadata-quorum.sh describe --status`` and ``--replication`` read the same answer two
ways (a summary with the largest follower lag, a row per replica), and a voter is named by its id *and* its
metadata directory id (KIP-853), because a controller whose disk was replaced comes back as a new replica.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

#: The metadata log's topic and partition (DescribeQuorum describes nothing else).
METADATA_TOPIC = "__cluster_metadata"


@dataclass(frozen=True)
class RaftVoterEndpoint:
    """A listener a voter is reached on (``CONTROLLER://host:9093``)."""

    name: str
    host: str
    port: int

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"endpoint name must be a non-empty string, not {self.name!r}")
        if not isinstance(self.host, str) or not self.host:
            raise ValueError(f"endpoint host must be a non-empty string, not {self.host!r}")
        if isinstance(self.port, bool) or not isinstance(self.port, int) or not 0 < self.port < 65536:
            raise ValueError(f"endpoint port must be 1-65535, not {self.port!r}")

    @classmethod
    def parse(cls, text: str) -> RaftVoterEndpoint:
        """``NAME://host:port`` (IPv6 hosts in brackets), as kafka-metadata-quorum.sh writes endpoints."""
        name, sep, rest = str(text).partition("://")
        host, colon, port = rest.rpartition(":")
        if not sep or not colon or not port.isdigit():
            raise ValueError(f"endpoint {text!r} is not NAME://host:port")
        return cls(name, host.strip("[]"), int(port))

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.name}://{host}:{self.port}"


@dataclass(frozen=True)
class QuorumReplica:
    """One replica of the metadata log: a voter or an observer."""

    replica_id: int
    #: KIP-853 (DescribeQuorum v2): the replica's metadata directory id; None from older controllers.
    directory_id: uuid.UUID | None
    log_end_offset: int
    #: Records behind the leader's log end offset (0 for the leader).
    lag: int
    #: Epoch ms of its last fetch from the leader, and of the last time it had caught up; None when unknown
    #: (before DescribeQuorum v1, or a replica that never fetched).
    last_fetch_timestamp: int | None = None
    last_caught_up_timestamp: int | None = None


@dataclass(frozen=True)
class QuorumInfo:
    """describe_metadata_quorum(): the quorum's leader, epoch and high watermark, its voters and observers."""

    leader_id: int
    leader_epoch: int
    high_watermark: int
    voters: tuple[QuorumReplica, ...]
    observers: tuple[QuorumReplica, ...]
    #: KIP-853 (v2): {voter id: its endpoints}; empty from older controllers.
    nodes: dict[int, tuple[RaftVoterEndpoint, ...]] = field(default_factory=dict)

    @property
    def max_follower_lag(self) -> int:
        """The largest lag among the voters (kafka-metadata-quorum.sh's MaxFollowerLag)."""
        return max((v.lag for v in self.voters), default=0)

    def max_follower_lag_time_ms(self, now_ms: int) -> int | None:
        """How long the most lagging voter has been behind: now minus the oldest last caught-up time of a
        follower (the leader excluded), 0 with no followers, None when the controller does not report times."""
        times = [v.last_caught_up_timestamp for v in self.voters if v.replica_id != self.leader_id]
        if not times:
            return 0
        if any(t is None for t in times):
            return None
        return max(0, now_ms - min(t for t in times if t is not None))


def check_node_id(value: object, what: str) -> int:
    """A node id: a non-negative int (TypeError/ValueError before any I/O)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an int, not {type(value).__name__}")
    if value < 0:
        raise ValueError(f"{what} must be >= 0, not {value}")
    return value


def check_directory_id(value: object) -> uuid.UUID:
    """A directory id: a UUID, or its text (standard or Kafka's base64 form)."""
    if isinstance(value, uuid.UUID):
        return value
    if isinstance(value, str):
        # Imported here: kadmin.protocol is the whole codec, which importing these types (the CLI's --help)
        # does not need (issue #28).
        from kadmin.protocol.primitives import parse_uuid

        try:
            return parse_uuid(value.strip())
        except ValueError:
            raise ValueError(f"directory id {value!r} is neither a UUID nor Kafka's base64 form of one") from None
    raise TypeError(f"directory id must be a uuid.UUID or str, not {type(value).__name__}")


__all__ = ["METADATA_TOPIC", "QuorumInfo", "QuorumReplica", "RaftVoterEndpoint", "check_directory_id",
           "check_node_id"]
