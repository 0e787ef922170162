"""Cluster feature levels (KIP-584): what each broker supports, what the cluster has finalized, and updates.

Why a module of its own: ``kafka-features.sh`` speaks in releases ("upgrade --metadata 3.9", "--release-version
4.0") while the protocol speaks in levels (metadata.version 21).  The mapping, the result types and the checks
that refuse an impossible update before anything is sent live here, apart from the wire code in
:mod:`kadmin.admin.features`.

Levels come from ApiVersions v3+ (each broker's supported range, the cluster's finalized levels and their epoch)
and change through UpdateFeatures (API 57, on the controller).  A finalized level of 0 means the feature is off;
Kafka then leaves it out of the finalized list.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum

METADATA_VERSION = "metadata.version"


class UpgradeType(str, Enum):
    """How a level may move (UpdateFeatures v1+ ``UpgradeType``; v0 has only "allow downgrade")."""

    UPGRADE = "upgrade"
    #: A downgrade that loses no metadata; the controller refuses it if it would.
    SAFE_DOWNGRADE = "safe_downgrade"
    #: A downgrade that may lose metadata (Kafka refuses it for metadata.version).
    UNSAFE_DOWNGRADE = "unsafe_downgrade"

    @property
    def code(self) -> int:
        """The wire value (1 upgrade, 2 safe downgrade, 3 unsafe downgrade)."""
        return {UpgradeType.UPGRADE: 1, UpgradeType.SAFE_DOWNGRADE: 2, UpgradeType.UNSAFE_DOWNGRADE: 3}[self]


@dataclass(frozen=True)
class FeatureUpdate:
    """A feature's new maximum level and how it may move there; level 0 with a downgrade type disables it."""

    max_version_level: int
    upgrade_type: UpgradeType | str = UpgradeType.UPGRADE

    def __post_init__(self) -> None:
        if isinstance(self.max_version_level, bool) or not isinstance(self.max_version_level, int):
            raise TypeError(f"max_version_level must be an int, not {type(self.max_version_level).__name__}")
        if not 0 <= self.max_version_level <= 0x7FFF:
            raise ValueError(f"max_version_level must be between 0 and 32767, not {self.max_version_level}")
        try:
            kind = UpgradeType(self.upgrade_type)
        except ValueError:
            raise ValueError(f"upgrade_type must be one of {', '.join(t.value for t in UpgradeType)}, not "
                             f"{self.upgrade_type!r}") from None
        object.__setattr__(self, "upgrade_type", kind)
        if self.max_version_level == 0 and kind is UpgradeType.UPGRADE:
            raise ValueError("level 0 disables a feature: that is a downgrade (safe_downgrade or unsafe_downgrade)")

    @property
    def kind(self) -> UpgradeType:
        return UpgradeType(self.upgrade_type)


@dataclass(frozen=True)
class SupportedFeature:
    """A range of levels one broker can run."""

    name: str
    min_version: int
    max_version: int


@dataclass(frozen=True)
class FinalizedFeature:
    """A level the whole cluster runs at (``min_version_level`` is 1 on every current Kafka)."""

    name: str
    max_version_level: int
    min_version_level: int = 1


@dataclass(frozen=True)
class FeatureMetadata:
    """describe_features(): the finalized levels (with their epoch; None when the broker reports none, e.g.
    before ApiVersions v3 or on a cluster that finalized nothing) and the supported ranges of the broker asked."""

    finalized: dict[str, FinalizedFeature] = field(default_factory=dict)
    finalized_epoch: int | None = None
    supported: dict[str, SupportedFeature] = field(default_factory=dict)
    #: The broker that answered (supported ranges are that broker's).
    node_id: int | None = None

    def level(self, name: str) -> int:
        """The finalized level of ``name`` (0 when it is not finalized: the feature is off)."""
        got = self.finalized.get(name)
        return got.max_version_level if got is not None else 0


#: metadata.version levels by name (Kafka's MetadataVersion): "3.9-IV0" is level 21.
METADATA_VERSIONS: dict[str, int] = {
    "3.0-IV1": 1, "3.1-IV0": 2, "3.2-IV0": 3, "3.3-IV0": 4, "3.3-IV1": 5, "3.3-IV2": 6, "3.3-IV3": 7,
    "3.4-IV0": 8, "3.5-IV0": 9, "3.5-IV1": 10, "3.5-IV2": 11, "3.6-IV0": 12, "3.6-IV1": 13, "3.6-IV2": 14,
    "3.7-IV0": 15, "3.7-IV1": 16, "3.7-IV2": 17, "3.7-IV3": 18, "3.7-IV4": 19, "3.8-IV0": 20, "3.9-IV0": 21,
    "4.0-IV0": 22, "4.0-IV1": 23, "4.0-IV2": 24, "4.0-IV3": 25, "4.1-IV0": 26, "4.1-IV1": 27, "4.2-IV0": 28,
    "4.2-IV1": 29, "4.3-IV0": 30,
}

#: What ``--release-version R`` finalizes: every feature's default level for release R (kraft.version is
#: left out, as kafka-features.sh does: the quorum changes it).
RELEASE_FEATURE_LEVELS: dict[str, dict[str, int]] = {
    "3.3": {METADATA_VERSION: 7},
    "3.4": {METADATA_VERSION: 8},
    "3.5": {METADATA_VERSION: 11},
    "3.6": {METADATA_VERSION: 14},
    "3.7": {METADATA_VERSION: 19},
    "3.8": {METADATA_VERSION: 20},
    "3.9": {METADATA_VERSION: 21, "group.version": 0, "transaction.version": 0},
    "4.0": {METADATA_VERSION: 25, "group.version": 1, "transaction.version": 2},
    # From 4.1 eligible leader replicas (KIP-966) are on by default for a new cluster.
    "4.1": {METADATA_VERSION: 27, "group.version": 1, "transaction.version": 2,
            "eligible.leader.replicas.version": 1},
    "4.2": {METADATA_VERSION: 29, "group.version": 1, "transaction.version": 2,
            "eligible.leader.replicas.version": 1},
    "4.3": {METADATA_VERSION: 30, "group.version": 1, "transaction.version": 2,
            "eligible.leader.replicas.version": 1},
}


def metadata_version_level(name: str) -> int:
    """The level of a metadata.version given as "3.9-IV0", "3.9" (the release's last level) or a number."""
    text = str(name).strip()
    if text.isdigit():
        return int(text)
    if text in METADATA_VERSIONS:
        return METADATA_VERSIONS[text]
    of_release = [level for n, level in METADATA_VERSIONS.items() if n.split("-")[0] == text]
    if of_release:
        return max(of_release)
    raise ValueError(f"unknown metadata.version {name!r}; known: {', '.join(METADATA_VERSIONS)} (or a release "
                     "such as 3.9)")


def release_feature_levels(release: str) -> dict[str, int]:
    """Every feature's default level for ``release`` ("4.0"), as ``--release-version`` finalizes them."""
    try:
        return dict(RELEASE_FEATURE_LEVELS[release])
    except KeyError:
        raise ValueError(f"unknown release version {release!r}; known: {', '.join(RELEASE_FEATURE_LEVELS)}") \
            from None


def check_feature_updates(updates: Mapping[str, FeatureUpdate]) -> dict[str, FeatureUpdate]:
    """The updates as given, checked for shape (TypeError/ValueError, before any I/O)."""
    if not isinstance(updates, Mapping):
        raise TypeError(f"updates must be a mapping {{feature name: FeatureUpdate}}, not {type(updates).__name__}")
    if not updates:
        raise ValueError("updates is empty: name at least one feature")
    out: dict[str, FeatureUpdate] = {}
    for name, update in updates.items():
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"feature names must be non-empty strings, not {name!r}")
        if not isinstance(update, FeatureUpdate):
            raise TypeError(f"{name}: expected a FeatureUpdate, not {type(update).__name__}")
        out[name] = update
    return out


def check_against(updates: Mapping[str, FeatureUpdate], described: FeatureMetadata) -> None:
    """ValueError, before UpdateFeatures is sent, for an update the cluster would refuse in any case: a feature
    the broker asked neither supports nor has finalized, a level below the feature's minimum (other than 0,
    which disables it), an "upgrade" to a lower level than the finalized one, or a downgrade to a higher one.

    A level above the broker's maximum is left to the controller, which knows every broker's range: its
    refusal comes back for that feature alone."""
    problems: list[str] = []
    for name, update in updates.items():
        level = update.max_version_level
        supported = described.supported.get(name)
        current = described.level(name)
        if supported is None and name not in described.finalized:
            known = sorted(set(described.supported) | set(described.finalized))
            problems.append(f"{name}: unknown feature (the cluster knows: {', '.join(known) or 'none'})")
            continue
        if supported is not None and 0 < level < supported.min_version:
            problems.append(f"{name}: level {level} is below the minimum supported level {supported.min_version}")
        elif update.kind is UpgradeType.UPGRADE and level < current:
            problems.append(f"{name}: level {level} is below the finalized level {current}: that is a downgrade "
                            "(use safe_downgrade or unsafe_downgrade)")
        elif update.kind is not UpgradeType.UPGRADE and level > current:
            problems.append(f"{name}: level {level} is above the finalized level {current}: that is an upgrade")
    if problems:
        raise ValueError("; ".join(problems))


__all__ = [
    "METADATA_VERSION",
    "METADATA_VERSIONS",
    "RELEASE_FEATURE_LEVELS",
    "FeatureMetadata",
    "FeatureUpdate",
    "FinalizedFeature",
    "SupportedFeature",
    "UpgradeType",
    "check_against",
    "check_feature_updates",
    "metadata_version_level",
    "release_feature_levels",
]
