"""ApiVersions (key 18): the broker's version table, and KIP-511's fallback for clients that ask too new.

The fallback itself (a v0-format answer to a version the broker does not support) lives in the broker,
because it must happen before the request body can be parsed; this module answers supported versions.
From v3 the answer also carries KIP-584's features: the ranges this broker's release supports and the
cluster's finalized levels with their epoch (kadmin.testing.state.features; -1 and none when nothing is
finalized, as Kafka answers).
"""

from __future__ import annotations

import re
from typing import Any

from kadmin.testing.handlers.base import (
    INVALID_REQUEST,
    NONE,
    RequestContext,
    Response,
    register,
    response_class,
)
from kadmin.testing.state.features import Features, supported_by

API_KEY = 18
# KIP-511: ClientSoftwareName and ClientSoftwareVersion must match this (ApiVersionsRequest.isValid).
_SOFTWARE_RE = re.compile(r"[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?")


def table_response(table: dict[int, tuple[int, int]], error_code: int = NONE) -> Response:
    R = response_class(API_KEY)
    keys = [R.ApiVersion(api_key=k, min_version=lo, max_version=hi) for k, (lo, hi) in sorted(table.items())]
    return R(error_code=error_code, api_keys=keys)


def fallback_response(table: dict[int, tuple[int, int]]) -> Response:
    """KIP-511: UNSUPPORTED_VERSION in a v0 body that lists only ApiVersions' own range."""
    R = response_class(API_KEY)
    lo, hi = table.get(API_KEY, (0, 0))
    return R(error_code=35, api_keys=[R.ApiVersion(api_key=API_KEY, min_version=lo, max_version=hi)])


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    if version >= 3:
        name, ver = req.client_software_name, req.client_software_version
        if not (_SOFTWARE_RE.fullmatch(name or "") and _SOFTWARE_RE.fullmatch(ver or "")):
            # Kafka answers an invalid software name/version with INVALID_REQUEST and no API list.
            return response_class(API_KEY)(error_code=INVALID_REQUEST, api_keys=[])
    resp = table_response(ctx.table)
    if version >= 3:
        R = response_class(API_KEY)
        area = ctx.state.area(Features)
        finalized = area.ensure(ctx.cluster._controller_table())
        resp.supported_features = [R.SupportedFeatureKey(name=n, min_version=lo, max_version=hi)
                                   for n, (lo, hi) in sorted(supported_by(ctx.table).items())]
        resp.finalized_features = [R.FinalizedFeatureKey(name=n, max_version_level=level, min_version_level=1)
                                   for n, level in sorted(finalized.items())]
        resp.finalized_features_epoch = area.epoch if finalized else -1
    return resp


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    return response_class(API_KEY)(error_code=code, api_keys=[])


def keys(req: Any, version: int) -> tuple[str, ...]:
    if version >= 3:
        return (f"{req.client_software_name}/{req.client_software_version}",)
    return ()


register(API_KEY, handle=handle, error_response=error_response, keys=keys)
