"""The log-dirs area: each broker's log directories, where a replica's log lives, and the test-facing methods
that configure them.

Used by DescribeLogDirs and AlterReplicaLogDirs; a partition records its own replicas' placement
(``PartitionState.dirs`` and ``future``, in the topics area).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kadmin.testing.state.base import AreaAdmin
from kadmin.testing.state.topics import PartitionState, Topics

#: Each broker's one log directory unless a test configures others (Kafka's log.dirs default).
DEFAULT_LOG_DIR = "/tmp/kafka-logs"
#: The volume size each fake log directory reports (DescribeLogDirs v4+): 1 TiB.
DEFAULT_VOLUME_BYTES = 1 << 40


@dataclass
class LogDir:
    """One of a broker's log directories; an offline one answers KAFKA_STORAGE_ERROR in DescribeLogDirs."""

    path: str
    total_bytes: int = DEFAULT_VOLUME_BYTES
    offline: bool = False


class LogDirs(dict[int, list[LogDir]]):
    """The area: the log directories a test gave each broker, by node id."""

    def dirs_of(self, node_id: int) -> list[LogDir]:
        """A broker's log directories: those a test set, else one at :data:`DEFAULT_LOG_DIR`."""
        return self.get(node_id) or [LogDir(DEFAULT_LOG_DIR)]

    def replica_dir(self, part: PartitionState, node_id: int) -> str:
        return part.dirs.get(node_id) or self.dirs_of(node_id)[0].path


class LogDirsAdmin(AreaAdmin):
    """FakeCluster's methods for log directories (mixed into it)."""

    def set_log_dirs(self, node_id: int, dirs: Sequence[str | LogDir]) -> None:
        """A broker's log directories (default: one, /tmp/kafka-logs); ``LogDir(path, offline=True)`` makes
        one answer KAFKA_STORAGE_ERROR.  Replicas live in the first unless ``place_replica`` says otherwise."""
        self._check_node(node_id)
        made = [d if isinstance(d, LogDir) else LogDir(str(d)) for d in dirs]
        if not made or len({d.path for d in made}) != len(made):
            raise ValueError("give at least one log dir, each path once")
        with self._lock:
            self._state.area(LogDirs)[node_id] = made

    def place_replica(self, topic: str, partition: int, node_id: int, log_dir: str, *,
                      future_dir: str | None = None, future_behind: int = 0) -> None:
        """Put a replica's log in ``log_dir``; with ``future_dir``, also a future log there (being moved by
        AlterReplicaLogDirs) that trails the current log by ``future_behind`` records."""
        with self._lock:
            p = self._state.area(Topics).partition(topic, partition)
            known = {d.path for d in self._state.area(LogDirs).dirs_of(node_id)}
            for d in (log_dir, future_dir):
                if d is not None and d not in known:
                    raise ValueError(f"node {node_id} has no log dir {d!r}; it has {sorted(known)}")
            if node_id not in p.replicas:
                raise ValueError(f"node {node_id} holds no replica of {topic}-{partition}")
            p.dirs[node_id] = log_dir
            if future_dir is None:
                p.future.pop(node_id, None)
            else:
                p.future[node_id] = (future_dir, int(future_behind))
