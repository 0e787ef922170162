"""The KRaft metadata quorum area (KIP-595/853): its voters, how far each replica's log is, and the leader epoch.

The fake has no metadata log, so the quorum is a model: voters are fake brokers acting as combined
broker+controller nodes (the controller alone until a test or AddRaftVoter adds more), every other live broker is
an observer, and each replica's log end offset is the leader's minus a lag a test can set.  The leader is the
cluster's controller when it is a voter, else the lowest voter; removing the leader starts a new epoch.  Each
voter change is one record in the metadata log (the leader's end offset moves by one).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field

from kadmin.testing.state.base import AreaAdmin

#: Where the metadata log starts in this model: a cluster's bootstrap records.
INITIAL_END_OFFSET = 100


def directory_id(node_id: int) -> uuid.UUID:
    """A node's metadata log directory id (KIP-853), the same across calls."""
    return uuid.uuid5(uuid.NAMESPACE_OID, f"{node_id}")


@dataclass
class Quorum:
    """The area.  ``voters`` None until first use (then the controller alone)."""

    voters: dict[int, uuid.UUID] | None = None
    leader_epoch: int = 1
    end_offset: int = INITIAL_END_OFFSET
    #: {node: how many records its log is behind the leader's}.
    lag: dict[int, int] = field(default_factory=dict)
    #: {node: ms since it last fetched} (its last caught-up time is that, or older when it lags).
    idle_ms: dict[int, int] = field(default_factory=dict)
    #: {voter: [(listener name, host, port)]} as AddRaftVoter gave them (else the broker's own listener).
    endpoints: dict[int, list[tuple[str, str, int]]] = field(default_factory=dict)

    def ensure(self, controller: int) -> dict[int, uuid.UUID]:
        if self.voters is None:
            self.voters = {controller: directory_id(controller)} if controller >= 0 else {}
        return self.voters

    def leader(self, controller: int) -> int:
        voters = self.ensure(controller)
        if controller in voters:
            return controller
        return min(voters) if voters else -1

    def change(self) -> None:
        """One voter-set record appended and committed."""
        self.end_offset += 1

    def replica(self, node: int) -> tuple[int, int, int]:
        """(log end offset, last fetch ms, last caught-up ms) of a replica."""
        now = int(time.time() * 1000)
        lag = self.lag.get(node, 0)
        fetched = now - self.idle_ms.get(node, 0)
        caught_up = fetched if lag == 0 else fetched - 5_000
        return self.end_offset - lag, fetched, caught_up


class QuorumAdmin(AreaAdmin):
    """FakeCluster's methods for the metadata quorum (mixed into it)."""

    def _controller_id(self) -> int:
        raise NotImplementedError

    def quorum_voters(self) -> dict[int, uuid.UUID]:
        """{voter node id: its directory id}."""
        with self._lock:
            return dict(self._state.area(Quorum).ensure(self._controller_id()))

    def set_quorum_voters(self, node_ids: Iterable[int]) -> None:
        """Make these nodes the voters (each with its own directory id); the others are observers."""
        ids = sorted(set(node_ids))
        with self._lock:
            for n in ids:
                self._check_node(n)
            area = self._state.area(Quorum)
            area.voters = {n: directory_id(n) for n in ids}
            area.change()

    def set_quorum_lag(self, node_id: int, records: int, *, idle_ms: int = 0) -> None:
        """Make a replica ``records`` behind the leader, its last fetch ``idle_ms`` ago."""
        with self._lock:
            self._check_node(node_id)
            area = self._state.area(Quorum)
            area.lag[node_id] = records
            area.idle_ms[node_id] = idle_ms
