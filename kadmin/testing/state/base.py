"""The fake cluster's state as a set of areas, and what an area's test-facing methods may use of FakeCluster.

Why areas: the state of an API family (topics and partitions, groups, quotas, configs...) lives in its own
module, which owns the data and the helpers that change it.  :class:`ClusterState` holds one instance of each
area, made on first use (``state.area(Quotas)``), so an API that needs new state adds its own area module and
touches no shared class or list.  Plain data guarded by the cluster's lock: handlers and the test thread both
hold it around every use; nothing here knows about sockets or the wire format.
"""

from __future__ import annotations

import threading
from typing import Any, TypeVar

A = TypeVar("A")


class ClusterState:
    """Everything the brokers share, one object per area.  Not thread-safe by itself: the cluster holds its
    lock around every use."""

    def __init__(self) -> None:
        self._areas: dict[type[Any], Any] = {}

    def area(self, kind: type[A]) -> A:
        """The cluster's one ``kind`` (an area class, built with no arguments on first use)."""
        try:
            found: A = self._areas[kind]
        except KeyError:
            found = self._areas[kind] = kind()
        return found


class AreaAdmin:
    """Base of the areas' test-facing halves, mixed into FakeCluster: what they may use of it."""

    _lock: threading.RLock
    _state: ClusterState

    @property
    def node_ids(self) -> list[int]:
        raise NotImplementedError

    def _live_ids(self) -> set[int]:
        raise NotImplementedError

    def _check_node(self, node_id: int) -> None:
        """ValueError unless the cluster has a broker ``node_id``."""
        raise NotImplementedError
