"""The features area (KIP-584): the cluster's finalized feature levels and their epoch, and what each release's
brokers support.

A broker's supported ranges follow its release (its version table, through kadmin.versions.guess_release):
Kafka 2.x brokers support no feature, 3.5 metadata.version only, 3.9 to 4.3 the features a KRaft broker of
that release lists.  The finalized levels are the cluster's, set on first use to the defaults a new cluster of
the controller's release is formatted with, and changed by UpdateFeatures.  These tables are the fake's own
(kept apart from kadmin.features, which the client uses) so that the fake stays an independent oracle.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from kadmin.testing.state.base import AreaAdmin
from kadmin.versions import guess_release

#: {release: {feature: (min level, max level)}} a broker of that release supports.
SUPPORTED: dict[str, dict[str, tuple[int, int]]] = {
    "3.5": {"metadata.version": (1, 11)},
    "3.9": {"metadata.version": (1, 21), "kraft.version": (0, 1), "group.version": (0, 1),
            "transaction.version": (0, 2)},
    "4.0": {"metadata.version": (7, 25), "kraft.version": (0, 1), "group.version": (0, 1),
            "transaction.version": (0, 2), "eligible.leader.replicas.version": (0, 1)},
    # 4.1-4.3: metadata.version up to the release's last level (4.1-IV1 = 27, 4.2-IV1 = 29, 4.3-IV0 = 30).
    "4.1": {"metadata.version": (7, 27), "kraft.version": (0, 1), "group.version": (0, 1),
            "transaction.version": (0, 2), "eligible.leader.replicas.version": (0, 1)},
    "4.2": {"metadata.version": (7, 29), "kraft.version": (0, 1), "group.version": (0, 1),
            "transaction.version": (0, 2), "eligible.leader.replicas.version": (0, 1)},
    "4.3": {"metadata.version": (7, 30), "kraft.version": (0, 1), "group.version": (0, 1),
            "transaction.version": (0, 2), "eligible.leader.replicas.version": (0, 1)},
}

#: {release: {feature: level}} a new cluster of that release finalizes (level-0 features are not listed).
FORMATTED: dict[str, dict[str, int]] = {
    "3.5": {"metadata.version": 11},
    "3.9": {"metadata.version": 21},
    "4.0": {"metadata.version": 25, "kraft.version": 1, "group.version": 1, "transaction.version": 2},
    # From 4.1 a new cluster also turns eligible leader replicas (KIP-966) on.
    "4.1": {"metadata.version": 27, "kraft.version": 1, "group.version": 1, "transaction.version": 2,
            "eligible.leader.replicas.version": 1},
    "4.2": {"metadata.version": 29, "kraft.version": 1, "group.version": 1, "transaction.version": 2,
            "eligible.leader.replicas.version": 1},
    "4.3": {"metadata.version": 30, "kraft.version": 1, "group.version": 1, "transaction.version": 2,
            "eligible.leader.replicas.version": 1},
}


def _release_key(name: str) -> tuple[int, ...]:
    return tuple(int(p) for p in name.split("."))


def _entry(table: Mapping[str, object], table_of: Mapping[int, tuple[int, int]]) -> str | None:
    """The newest release of ``table`` not newer than the broker's (None: older than every entry)."""
    release = guess_release(table_of)
    if release is None:
        return None
    older = [r for r in table if _release_key(r) <= _release_key(release)]
    return max(older, key=_release_key) if older else None


def supported_by(version_table: Mapping[int, tuple[int, int]]) -> dict[str, tuple[int, int]]:
    """What a broker with this version table supports (empty before Kafka 3.5 in this model)."""
    entry = _entry(SUPPORTED, version_table)
    return dict(SUPPORTED[entry]) if entry is not None else {}


def formatted_for(version_table: Mapping[int, tuple[int, int]]) -> dict[str, int]:
    entry = _entry(FORMATTED, version_table)
    return dict(FORMATTED[entry]) if entry is not None else {}


@dataclass
class Features:
    """The area: finalized levels (None until first use) and the epoch that counts their changes."""

    finalized: dict[str, int] | None = None
    epoch: int = 0
    #: How many UpdateFeatures requests changed something (tests check that a dry run changed nothing).
    changes: int = 0
    history: list[dict[str, int]] = field(default_factory=list)

    def ensure(self, controller_table: Mapping[int, tuple[int, int]]) -> dict[str, int]:
        """The finalized levels, formatted for the controller's release on first use."""
        if self.finalized is None:
            self.finalized = formatted_for(controller_table)
            self.epoch = 1 if self.finalized else 0
        return self.finalized

    def apply(self, levels: Mapping[str, int]) -> None:
        """Set levels (0 removes the feature) as one change: the epoch moves once."""
        assert self.finalized is not None
        for name, level in levels.items():
            if level == 0:
                self.finalized.pop(name, None)
            else:
                self.finalized[name] = level
        self.epoch += 1
        self.changes += 1
        self.history.append(dict(self.finalized))


class FeaturesAdmin(AreaAdmin):
    """FakeCluster's methods for feature levels (mixed into it)."""

    # FakeCluster's own (ControllerAdmin, FakeCluster): declared for the type checker; this mixin comes last in
    # FakeCluster's bases, so the real methods win.
    def _controller_id(self) -> int:
        raise NotImplementedError

    def versions_of(self, node_id: int) -> dict[int, tuple[int, int]]:
        raise NotImplementedError

    def _controller_table(self) -> dict[int, tuple[int, int]]:
        """The controller's version table (the lowest node's when no broker is up): its release formats the
        cluster."""
        controller = self._controller_id()
        return self.versions_of(controller if controller >= 0 else min(self.node_ids))

    def finalized_features(self) -> dict[str, int]:
        """{feature: finalized level} (the controller's release's defaults until something changed them)."""
        with self._lock:
            return dict(self._state.area(Features).ensure(self._controller_table()))

    def finalized_features_epoch(self) -> int:
        with self._lock:
            area = self._state.area(Features)
            area.ensure(self._controller_table())
            return area.epoch

    def set_finalized_features(self, levels: Mapping[str, int]) -> None:
        """Set finalized levels directly (0 removes one), bypassing the controller's checks."""
        with self._lock:
            area = self._state.area(Features)
            area.ensure(self._controller_table())
            area.apply(levels)
