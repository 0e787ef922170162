"""One replica of one partition on one broker, and where its log lives (KIP-113: moving replicas between disks).

Why a type of its own: a log directory move is addressed to a replica (topic, partition, broker), not to a
partition, and its state has two halves while it runs: the current log and the "future" log being copied to
the new directory, each with its own lag.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple


class TopicPartitionReplica(NamedTuple):
    """The replica of ``topic``-``partition`` held by ``broker_id``."""

    topic: str
    partition: int
    broker_id: int

    def __str__(self) -> str:
        return f"{self.topic}-{self.partition}@{self.broker_id}"


@dataclass(frozen=True)
class ReplicaLogDirInfo:
    """Where a replica's log is: its current directory and lag, and, while a move is under way, the future
    directory it is being copied to and how far that copy trails the current log (None when no move runs)."""

    current_dir: str
    current_lag: int
    size_bytes: int
    future_dir: str | None = None
    future_lag: int | None = None


def check_replica(value: Any) -> TopicPartitionReplica:
    """A TopicPartitionReplica from one or a (topic, partition, broker_id) tuple (TypeError/ValueError)."""
    if not isinstance(value, tuple) or len(value) != 3:
        raise TypeError(f"a replica is a TopicPartitionReplica or (topic, partition, broker_id), not {value!r}")
    topic, partition, broker = value
    if not isinstance(topic, str) or not topic:
        raise ValueError(f"replica {value!r}: the topic must be a non-empty string")
    for what, n in (("partition", partition), ("broker_id", broker)):
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ValueError(f"replica {value!r}: {what} must be an int >= 0")
    return TopicPartitionReplica(topic, partition, broker)


def check_replica_moves(moves: Mapping[Any, str]) -> tuple[dict[TopicPartitionReplica, str],
                                                            dict[TopicPartitionReplica, Any]]:
    """({replica: absolute path}, {replica: the caller's key}); two keys naming one replica are a ValueError."""
    if not isinstance(moves, Mapping):
        raise TypeError(f"expected a mapping {{TopicPartitionReplica: log dir path}}, not {type(moves).__name__}")
    if not moves:
        raise ValueError("no replicas given")
    out: dict[TopicPartitionReplica, str] = {}
    keys: dict[TopicPartitionReplica, Any] = {}
    for key, path in moves.items():
        replica = check_replica(key)
        if replica in out:
            raise ValueError(f"replica {replica} is given twice ({keys[replica]!r} and {key!r})")
        if not isinstance(path, str) or not path.startswith("/"):
            raise ValueError(f"{replica}: the log dir must be an absolute path, not {path!r}")
        out[replica] = path
        keys[replica] = key
    return out, keys


def check_replica_list(replicas: Any) -> tuple[list[TopicPartitionReplica], dict[TopicPartitionReplica, Any]]:
    """The replicas to describe, in order, and {replica: the caller's key}."""
    if isinstance(replicas, (str, bytes)) or not hasattr(replicas, "__iter__"):
        raise TypeError("replicas must be a list of TopicPartitionReplica or (topic, partition, broker_id)")
    keys: dict[TopicPartitionReplica, Any] = {}
    for key in replicas:
        replica = check_replica(key)
        if replica in keys and keys[replica] != key:
            raise ValueError(f"replica {replica} is given twice ({keys[replica]!r} and {key!r})")
        keys.setdefault(replica, key)
    if not keys:
        raise ValueError("no replicas given")
    return list(keys), keys


__all__ = ["ReplicaLogDirInfo", "TopicPartitionReplica", "check_replica", "check_replica_list",
           "check_replica_moves"]
