"""UpdateFeatures (key 57): change the cluster's finalized feature levels (KIP-584), on the controller.

Checks, as Kafka's controller makes them: ALTER on the cluster (CLUSTER_AUTHORIZATION_FAILED for the whole
request); in ZooKeeper mode only the controller answers (NOT_CONTROLLER elsewhere; a KRaft broker forwards).
Then each update, INVALID_UPDATE_VERSION when:

* no live broker supports the feature, or the level is outside a live broker's supported range (level 0
  removes the feature and needs no support);
* it lowers the level (or removes the feature) as an "upgrade" (v0: without AllowDowngrade), or raises it as a
  downgrade;
* it lowers metadata.version at all (a safe downgrade might lose metadata, an unsafe one Kafka refuses), or
  lowers kraft.version (a quorum cannot go back to a static voter set).

ZooKeeper-mode presets (2.8, 3.9) answer each feature on its own and apply those that pass; a KRaft
controller (4.0) applies all or none, so one refusal is the top-level error and every result carries it
(v2 has no per-feature results).  ValidateOnly (v1+) checks without applying.
"""

from __future__ import annotations

from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing import authorizer as az
from kadmin.testing.handlers.base import RequestContext, Response, register, response_class
from kadmin.testing.state.features import Features, supported_by

API_KEY = ApiKey.UPDATE_FEATURES
UPGRADE, SAFE_DOWNGRADE, UNSAFE_DOWNGRADE = 1, 2, 3
#: Features whose level never goes down.
NO_DOWNGRADE = ("metadata.version", "kraft.version")


def _upgrade_type(u: Any, version: int) -> int:
    if version >= 1:
        return int(u.upgrade_type)
    return SAFE_DOWNGRADE if u.allow_downgrade else UPGRADE


def _check(ctx: RequestContext, name: str, level: int, kind: int, current: int) -> str | None:
    """Why the controller refuses this update (None: it takes it)."""
    if kind not in (UPGRADE, SAFE_DOWNGRADE, UNSAFE_DOWNGRADE):
        return f"Unknown upgrade type {kind} for feature {name}"
    ranges = [supported_by(ctx.cluster.versions_of(n)).get(name) for n in sorted(ctx.live_ids())]
    if level > 0:
        for node, rng in zip(sorted(ctx.live_ids()), ranges, strict=True):
            if rng is None:
                return f"Feature {name} is not supported by broker {node}"
            if not rng[0] <= level <= rng[1]:
                return (f"Invalid update version {level} for feature {name}: broker {node} supports versions "
                        f"{rng[0]}-{rng[1]}")
    elif all(r is None for r in ranges) and current == 0:
        return f"Feature {name} is not supported by any broker"
    if level < current and kind == UPGRADE:
        return f"Can't downgrade the version of feature {name} from {current} to {level} without a downgrade type"
    if level > current and kind != UPGRADE:
        return f"Can't upgrade feature {name} from {current} to {level} with a downgrade type"
    if level < current and name in NO_DOWNGRADE:
        if name == "metadata.version" and kind == UNSAFE_DOWNGRADE:
            return "Unsafe metadata.version downgrades are not supported"
        return (f"Invalid {name} {level}. Refusing to perform the requested downgrade because it might delete "
                "metadata information")
    return None


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    if not ctx.authorize(az.CLUSTER, az.CLUSTER_NAME, az.ALTER):
        return error_response(ctx, req, version, ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
    if not ctx.acts_as_controller():
        return error_response(ctx, req, version, ErrorCode.NOT_CONTROLLER)
    area = ctx.state.area(Features)
    finalized = area.ensure(ctx.cluster._controller_table())
    refused: dict[str, str] = {}
    accepted: dict[str, int] = {}
    for u in req.feature_updates:
        why = _check(ctx, u.feature, u.max_version_level, _upgrade_type(u, version), finalized.get(u.feature, 0))
        if why is None:
            accepted[u.feature] = u.max_version_level
        else:
            refused[u.feature] = why
    validate_only = version >= 1 and req.validate_only
    R = response_class(API_KEY)
    names = [u.feature for u in req.feature_updates]
    if not ctx.zookeeper_mode:
        # KRaft: all or nothing; the first refusal is the answer for every feature.
        if refused:
            first = next(iter(refused.values()))
            return error_response(ctx, req, version, ErrorCode.INVALID_UPDATE_VERSION, first)
        if accepted and not validate_only:
            area.apply(accepted)
        return _response(R, version, ErrorCode.NONE, None, {n: (ErrorCode.NONE, None) for n in names})
    if accepted and not validate_only:
        area.apply(accepted)
    return _response(R, version, ErrorCode.NONE, None,
                     {n: (ErrorCode.INVALID_UPDATE_VERSION, refused[n]) if n in refused else (ErrorCode.NONE, None)
                      for n in names})


def _response(R: Any, version: int, code: int, message: str | None,
              results: dict[str, tuple[int, str | None]]) -> Response:
    if version >= 2:
        return R(throttle_time_ms=0, error_code=code, error_message=message)
    return R(throttle_time_ms=0, error_code=code, error_message=message,
             results=[R.UpdatableFeatureResult(feature=n, error_code=c, error_message=m)
                      for n, (c, m) in results.items()])


def error_response(ctx: RequestContext, req: Any, version: int, code: int, message: str | None = None) -> Response:
    R = response_class(API_KEY)
    return _response(R, version, code, message, {u.feature: (code, message) for u in req.feature_updates})


def keys(req: Any, version: int) -> tuple[str, ...]:
    return tuple(u.feature for u in req.feature_updates)


register(API_KEY, handle=handle, error_response=error_response, keys=keys)
