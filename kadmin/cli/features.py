"""``kadmin features describe|upgrade|downgrade|disable``: cluster feature levels, as kafka-features.sh sets them.

``describe`` lists every feature the broker asked supports or the cluster finalized, with the finalized epoch
(metadata.version levels also by name: 3.9-IV0).  ``upgrade`` takes ``--metadata 3.9`` (the release's last
metadata.version), ``--feature NAME=LEVEL`` (repeatable) or ``--release-version 4.0`` (every feature's default
level for that release; features that release leaves off are left alone); ``downgrade`` takes ``--metadata`` and
``--feature`` (``--unsafe`` allows a lossy downgrade); ``disable --feature NAME`` sets a feature to 0.
``--dry-run`` asks the controller to validate without applying (UpdateFeatures v1+).

An update the cluster must refuse (an unknown feature, a level below the minimum, an upgrade that is a
downgrade) is refused before UpdateFeatures is sent: exit 2.  A feature the controller refuses is reported with
its error (exit 1); the others are applied or not as the controller decides (a KRaft controller applies all or
none).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from kadmin.cli.config import UsageError
from kadmin.cli.output import Column, JsonDict, error_json, raise_if_all_refused
from kadmin.errors import KafkaError
from kadmin.features import (
    METADATA_VERSION,
    METADATA_VERSIONS,
    FeatureMetadata,
    FeatureUpdate,
    UpgradeType,
    metadata_version_level,
    release_feature_levels,
)

if TYPE_CHECKING:
    from kadmin.cli.main import Context


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("features", help="cluster feature levels: describe, upgrade, downgrade, disable",
                       description="Feature level commands (KIP-584), like kafka-features.sh.")
    fsub = p.add_subparsers(dest="features_command", metavar="SUBCOMMAND", required=True)
    ds = fsub.add_parser("describe", parents=[common], help="supported and finalized feature levels",
                         description="Every feature with the range the broker asked supports, the cluster's "
                                     "finalized level and the finalized epoch.")
    ds.set_defaults(run=run_describe)
    up = fsub.add_parser("upgrade", parents=[common], help="raise finalized feature levels",
                         description="Raise finalized levels, on the controller.")
    up.add_argument("--metadata", metavar="VERSION", help="metadata.version: 3.9, 3.9-IV0 or a level")
    up.add_argument("--feature", action="append", default=[], metavar="NAME=LEVEL", help="a feature's new level")
    up.add_argument("--release-version", metavar="RELEASE",
                    help="every feature's default level for a release (4.0); not with --metadata/--feature")
    up.add_argument("--dry-run", action="store_true", help="validate on the controller, change nothing")
    up.set_defaults(run=run_upgrade)
    dn = fsub.add_parser("downgrade", parents=[common], help="lower finalized feature levels",
                         description="Lower finalized levels, on the controller (the controller refuses a "
                                     "downgrade that would lose metadata unless --unsafe, and metadata.version "
                                     "downgrades altogether).")
    dn.add_argument("--metadata", metavar="VERSION", help="metadata.version: 3.9, 3.9-IV0 or a level")
    dn.add_argument("--feature", action="append", default=[], metavar="NAME=LEVEL", help="a feature's new level")
    dn.add_argument("--unsafe", action="store_true", help="allow a downgrade that may lose metadata")
    dn.add_argument("--dry-run", action="store_true", help="validate on the controller, change nothing")
    dn.set_defaults(run=run_downgrade)
    di = fsub.add_parser("disable", parents=[common], help="turn features off (level 0)",
                         description="Set features to level 0 (a downgrade), on the controller.")
    di.add_argument("--feature", action="append", default=[], metavar="NAME", help="a feature to turn off")
    di.add_argument("--unsafe", action="store_true", help="allow a downgrade that may lose metadata")
    di.add_argument("--dry-run", action="store_true", help="validate on the controller, change nothing")
    di.set_defaults(run=run_disable)


def _level_name(name: str, level: int) -> str:
    if name == METADATA_VERSION:
        for text, n in METADATA_VERSIONS.items():
            if n == level:
                return f"{level} ({text})"
    return str(level)


def _describe_json(got: FeatureMetadata) -> list[JsonDict]:
    names = sorted(set(got.supported) | set(got.finalized))
    return [{"name": n,
             "supported_min": got.supported[n].min_version if n in got.supported else None,
             "supported_max": got.supported[n].max_version if n in got.supported else None,
             "finalized_level": got.level(n)} for n in names]


def run_describe(ctx: Context) -> int:
    with ctx.admin() as admin:
        got: FeatureMetadata = admin.describe_features()
    p = ctx.printer
    items = _describe_json(got)
    if p.json:
        p.emit("features describe", {"node": got.node_id, "finalized_epoch": got.finalized_epoch,
                                     "features": items})
        return 0
    p.table([Column("FEATURE", flex=True), Column("SUPPORTED-MIN", right=True), Column("SUPPORTED-MAX", right=True),
             Column("FINALIZED", right=True), Column("EPOCH", right=True)],
            [[it["name"], "-" if it["supported_min"] is None else _level_name(it["name"], it["supported_min"]),
              "-" if it["supported_max"] is None else _level_name(it["name"], it["supported_max"]),
              _level_name(it["name"], it["finalized_level"]),
              "-" if got.finalized_epoch is None else got.finalized_epoch] for it in items])
    if not items:
        p.note("kadmin: the cluster reports no features (brokers before Kafka 3.x report none)")
    return 0


def _named_levels(args: argparse.Namespace) -> dict[str, int]:
    levels: dict[str, int] = {}

    def put(name: str, level: int) -> None:
        if name in levels:
            raise UsageError(f"feature {name} is given twice")
        levels[name] = level

    if getattr(args, "metadata", None):
        try:
            put(METADATA_VERSION, metadata_version_level(args.metadata))
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    for spec in args.feature:
        name, sep, value = spec.partition("=")
        name = name.strip()
        if not sep or not name:
            raise UsageError(f"--feature {spec!r}: expected NAME=LEVEL")
        try:
            level = metadata_version_level(value) if name == METADATA_VERSION else int(value)
        except ValueError:
            raise UsageError(f"--feature {spec!r}: the level must be a number") from None
        if level < 0:
            raise UsageError(f"--feature {spec!r}: the level must be >= 0")
        put(name, level)
    return levels


def run_upgrade(ctx: Context) -> int:
    args = ctx.args
    levels = _named_levels(args)
    if args.release_version:
        if levels:
            raise UsageError("--release-version cannot be combined with --metadata or --feature")
        try:
            levels = {n: v for n, v in release_feature_levels(args.release_version).items() if v > 0}
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    if not levels:
        raise UsageError("nothing to upgrade: give --metadata, --feature NAME=LEVEL or --release-version")
    if any(v == 0 for v in levels.values()):
        raise UsageError("level 0 turns a feature off: use 'features disable'")
    return _update(ctx, {n: FeatureUpdate(v, UpgradeType.UPGRADE) for n, v in levels.items()}, "upgraded")


def run_downgrade(ctx: Context) -> int:
    levels = _named_levels(ctx.args)
    if not levels:
        raise UsageError("nothing to downgrade: give --metadata or --feature NAME=LEVEL")
    kind = UpgradeType.UNSAFE_DOWNGRADE if ctx.args.unsafe else UpgradeType.SAFE_DOWNGRADE
    return _update(ctx, {n: FeatureUpdate(v, kind) for n, v in levels.items()}, "downgraded")


def run_disable(ctx: Context) -> int:
    names = [n.strip() for n in ctx.args.feature]
    if not names or not all(names):
        raise UsageError("nothing to disable: give --feature NAME")
    if len(set(names)) != len(names):
        raise UsageError("a feature is given twice")
    kind = UpgradeType.UNSAFE_DOWNGRADE if ctx.args.unsafe else UpgradeType.SAFE_DOWNGRADE
    return _update(ctx, {n: FeatureUpdate(0, kind) for n in names}, "disabled")


def _update(ctx: Context, updates: dict[str, FeatureUpdate], done: str) -> int:
    dry = bool(ctx.args.dry_run)
    command = f"features {ctx.args.features_command}"
    with ctx.admin() as admin:
        got: dict[str, None | KafkaError] = admin.update_features(updates, validate_only=dry)
    raise_if_all_refused(got)
    failed = [(n, e) for n, e in got.items() if e is not None]
    p = ctx.printer
    result = f"valid (dry run, not {done})" if dry else done
    if p.json:
        p.emit(command, {"dry_run": dry, "features": [
            {"name": n, "level": updates[n].max_version_level, "upgrade_type": updates[n].kind.value,
             "error": error_json(e) if e is not None else None} for n, e in got.items()]})
        return 1 if failed else 0
    rows = [[n, _level_name(n, updates[n].max_version_level), result] for n, e in got.items() if e is None]
    if rows:
        p.table([Column("FEATURE", flex=True), Column("LEVEL", right=True), Column("RESULT")], rows)
    for n, err in failed:
        p.key_error(n, err)
    return 1 if failed else 0
