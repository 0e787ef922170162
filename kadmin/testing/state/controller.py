"""The controller area: which broker a test made the controller, and the test-facing methods for it.

Metadata and DescribeCluster name the controller; in ZooKeeper mode only the controller answers
CreateTopics, DeleteTopics, CreatePartitions, ElectLeaders and the reassignment APIs (the others answer
NOT_CONTROLLER), see RequestContext.acts_as_controller.
"""

from __future__ import annotations

from dataclasses import dataclass

from kadmin.testing.state.base import AreaAdmin


@dataclass
class Controller:
    """The area: the controller chosen by a test (None: the first live broker)."""

    chosen: int | None = None


class ControllerAdmin(AreaAdmin):
    """FakeCluster's methods for the controller (mixed into it)."""

    def _controller_id(self) -> int:
        """The controller (lock held): the chosen node if alive, else the first live broker, -1 if none."""
        live = self._live_ids()
        chosen = self._state.area(Controller).chosen
        if chosen is not None and chosen in live:
            return chosen
        return min(live) if live else -1

    @property
    def controller(self) -> int:
        """The node Metadata names as controller (-1 when no broker is up)."""
        with self._lock:
            return self._controller_id()

    def move_controller(self, node_id: int | None) -> None:
        """Make ``node_id`` the controller (None: back to the first live broker).  ZooKeeper-mode presets then
        answer NOT_CONTROLLER on the old controller for CreateTopics, DeleteTopics, CreatePartitions..."""
        with self._lock:
            if node_id is not None:
                self._check_node(node_id)
            self._state.area(Controller).chosen = node_id
