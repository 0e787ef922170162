"""The coordinators area: which broker coordinates a group or a transactional id, the groups a test moved
or made "loading", and the test-facing methods for them.

A key's coordinator is the leader of its partition of __consumer_offsets (or __transaction_state), found by
Java's String.hashCode as Kafka's GroupMetadataManager and TransactionStateManager find it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kadmin.testing.state.base import AreaAdmin

#: Kafka's defaults for offsets.topic.num.partitions and transaction.state.log.num.partitions.
GROUP_METADATA_PARTITIONS = 50
TXN_STATE_PARTITIONS = 50


def java_string_hash(s: str) -> int:
    """Java's String.hashCode, which Kafka uses to map a group id to a __consumer_offsets partition.

    Kafka iterates UTF-16 code units; characters outside the BMP count as two (a surrogate pair).
    """
    h = 0
    if s.isascii():
        # One UTF-16 code unit per character, equal to its byte: iterate the bytes (the fake broker hashes
        # every key of every group request, so this is on its hot path).
        for b in s.encode("ascii"):
            h = (31 * h + b) & 0xFFFFFFFF
    else:
        data = s.encode("utf-16-be")
        for i in range(0, len(data), 2):
            h = (31 * h + ((data[i] << 8) | data[i + 1])) & 0xFFFFFFFF
    return h - (1 << 32) if h >= (1 << 31) else h


def partition_for(key: str, partitions: int = 50) -> int:
    """``Utils.abs(key.hashCode) % partitions`` as Kafka's GroupMetadataManager and TransactionStateManager do.

    Kafka's Utils.abs maps Integer.MIN_VALUE to 0 rather than overflowing.
    """
    h = java_string_hash(key)
    return (0 if h == -(1 << 31) else abs(h)) % partitions


def hash_partition(key: str, key_type: int) -> int:
    """The coordinator partition of a group id (``key_type`` 0) or a transactional id (1)."""
    return partition_for(key, TXN_STATE_PARTITIONS if key_type == 1 else GROUP_METADATA_PARTITIONS)


@dataclass
class Coordinators:
    """The area: groups a test moved to a node, and groups whose coordinator is still "loading" them."""

    #: group id -> node a test made its coordinator (``move_coordinator``).
    moved: dict[str, int] = field(default_factory=dict)
    #: group id -> how many more group requests answer COORDINATOR_LOAD_IN_PROGRESS.
    loading: dict[str, int] = field(default_factory=dict)

    def take_loading(self, group_id: str) -> bool:
        """True (and one count used up) if the group's coordinator is still 'loading' it."""
        left = self.loading.get(group_id, 0)
        if left <= 0:
            return False
        if left == 1:
            del self.loading[group_id]
        else:
            self.loading[group_id] = left - 1
        return True


class CoordinatorsAdmin(AreaAdmin):
    """FakeCluster's methods for group and transaction coordinators (mixed into it)."""

    def _coordinator_locked(self, key: str, key_type: int = 0) -> int | None:
        """Node coordinating ``key`` (lock held): a moved group's node if alive, else the hash over brokers."""
        live = self._live_ids()
        moved = self._state.area(Coordinators).moved.get(key) if key_type != 1 else None
        if moved is not None and moved in live:
            return moved
        nodes = self.node_ids
        # The coordinator is the leader of the key's __consumer_offsets (or __transaction_state) partition;
        # partition p is placed on nodes[p % n] and fails over to the next live node in that order.
        p = hash_partition(key, key_type)
        for i in range(len(nodes)):
            n = nodes[(p + i) % len(nodes)]
            if n in live:
                return n
        return None

    def coordinator_of(self, group: str, key_type: int = 0) -> int | None:
        """The node FindCoordinator names for ``group`` (or a transactional id with key_type=1)."""
        with self._lock:
            return self._coordinator_locked(group, key_type)

    def move_coordinator(self, group: str, node_id: int | None) -> None:
        """Make ``node_id`` the group's coordinator (None: back to hashing).  Requests for the group to the
        old coordinator now get NOT_COORDINATOR, as after a __consumer_offsets leader change."""
        with self._lock:
            moved = self._state.area(Coordinators).moved
            if node_id is None:
                moved.pop(group, None)
            else:
                self._check_node(node_id)
                moved[group] = node_id

    def coordinator_loading(self, group: str, count: int = 1) -> None:
        """The group's coordinator answers COORDINATOR_LOAD_IN_PROGRESS to its next ``count`` group requests."""
        if count < 1:
            raise ValueError("count must be at least 1")
        with self._lock:
            loading = self._state.area(Coordinators).loading
            loading[group] = loading.get(group, 0) + count
