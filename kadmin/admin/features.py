"""Feature levels (KIP-584): describe them from ApiVersions v3+, change them with UpdateFeatures (API 57).

DescribeFeatures asks one broker (any: every broker reports the same finalized levels, and its own supported
ranges).  UpdateFeatures goes to the controller, one request carrying every feature; its keys are the feature
names.  Before v2 the answer has one result per feature; v2 (Kafka 4.0) dropped them because a KRaft controller
applies all updates or none, so its one top-level error is every feature's outcome.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kadmin.admin._driver import Built, Done, Failed, Operation, Outcome, Retry, split_by_version
from kadmin.admin.lookups import AnyNode, Controller
from kadmin.errors import ErrorCode, KafkaError, ProtocolError, error_for_code
from kadmin.features import FeatureMetadata, FeatureUpdate, FinalizedFeature, SupportedFeature, UpgradeType
from kadmin.network.negotiation import CLIENT_SOFTWARE_NAME, CLIENT_SOFTWARE_VERSION
from kadmin.protocol import Message, message_type
from kadmin.protocol.apis import ApiKey

#: The one key of describe_features.
FEATURES = "features"
#: UpdateFeatures' own TimeoutMs when the call has more time than this.
DEFAULT_TIMEOUT_MS = 60_000


class DescribeFeatures(Operation[str]):
    """Supported ranges and finalized levels (with their epoch) from one broker's ApiVersions v3+ answer.

    A broker before ApiVersions v3 (Kafka 2.4) reports no features: the answer is then empty, not an error,
    because such a cluster has none."""

    api = ApiKey.API_VERSIONS

    def __init__(self) -> None:
        self.lookup: AnyNode[str] = AnyNode()

    def build(self, node: int, keys: list[str], version: int) -> Message:
        req = message_type(ApiKey.API_VERSIONS, "request")
        if version >= 3:
            return req(client_software_name=CLIENT_SOFTWARE_NAME, client_software_version=CLIENT_SOFTWARE_VERSION)
        return req()

    def handle(self, node: int, keys: list[str], response: Any, version: int) -> dict[str, Outcome]:
        err = error_for_code(response.error_code)
        if err is not None:
            # UNSUPPORTED_VERSION here is KIP-511's fallback, which the connection already negotiated past;
            # anything else is the broker's answer about itself.
            return {FEATURES: Retry(err) if err.retriable else Failed(err)}
        return {FEATURES: Done(features_of(response, version, node))}


def features_of(response: Any, version: int, node: int | None = None) -> FeatureMetadata:
    """The features an ApiVersions response reports (none before v3)."""
    if version < 3:
        return FeatureMetadata(node_id=node)
    supported = {f.name: SupportedFeature(f.name, f.min_version, f.max_version)
                 for f in getattr(response, "supported_features", None) or ()}
    finalized = {f.name: FinalizedFeature(f.name, f.max_version_level, f.min_version_level)
                 for f in getattr(response, "finalized_features", None) or ()}
    epoch = getattr(response, "finalized_features_epoch", -1)
    return FeatureMetadata(finalized, epoch if epoch is not None and epoch >= 0 else None, supported, node)


class UpdateFeatures(Operation[str]):
    """Change finalized levels on the controller: {feature name: None} when it took the update (or, with
    ``validate_only``, would take it), else the controller's error for that feature."""

    api = ApiKey.UPDATE_FEATURES
    write = True

    def __init__(self, updates: Mapping[str, FeatureUpdate], *, validate_only: bool, timeout_ms: int) -> None:
        self.updates = dict(updates)
        self.validate_only = validate_only
        self.timeout_ms = timeout_ms
        self.lookup: Controller[str] = Controller()

    def build(self, node: int, keys: list[str], version: int) -> Message | Built[str]:
        req: Any = message_type(ApiKey.UPDATE_FEATURES, "request")
        if self.validate_only and version < 1:
            # The whole request's option: no key can go without it (a real update is not a dry run).
            raise _unsupported(node, version, "validate_only (a dry run)", 1)
        # v0 knows "allow downgrade" only, which Kafka read as a safe downgrade: an unsafe one fails alone.
        ok, refused = split_by_version(keys, version, self._needs, api=self.api, node=node)
        items = []
        for name in ok:
            u = self.updates[name]
            if version >= 1:
                items.append(req.FeatureUpdateKey(feature=name, max_version_level=u.max_version_level,
                                                  upgrade_type=u.kind.code))
            else:
                items.append(req.FeatureUpdateKey(feature=name, max_version_level=u.max_version_level,
                                                  allow_downgrade=u.kind is not UpgradeType.UPGRADE))
        if version >= 1:
            msg = req(timeout_ms=self.timeout_ms, feature_updates=items, validate_only=self.validate_only)
        else:
            msg = req(timeout_ms=self.timeout_ms, feature_updates=items)
        if refused:
            return Built(sends=[(msg, ok)] if ok else [], refused=refused)
        return msg  # type: ignore[no-any-return]

    def _needs(self, name: str) -> tuple[int, str] | None:
        if self.updates[name].kind is UpgradeType.UNSAFE_DOWNGRADE:
            return 1, "an unsafe downgrade"
        return None

    def handle(self, node: int, keys: list[str], response: Any, version: int) -> dict[str, Outcome]:
        top = error_for_code(response.error_code, response.error_message)
        if top is not None:
            # The whole request's answer (v2: the only one): NOT_CONTROLLER -> the controller moved, ask the new
            # one; CLUSTER_AUTHORIZATION_FAILED, INVALID_UPDATE_VERSION (a KRaft controller refuses the set as
            # a whole) -> final for every feature; anything retriable -> again.
            return dict.fromkeys(keys, _outcome(top))
        if version >= 2:
            return {k: Done(None) for k in keys}
        out: dict[str, Outcome] = {}
        for r in response.results:
            if r.feature in self.updates:
                # Per feature: NONE -> applied; INVALID_UPDATE_VERSION (a level no broker can run, a downgrade
                # the controller refuses) and FEATURE_UPDATE_FAILED -> final, for this feature only.
                err = error_for_code(r.error_code, r.error_message)
                out[r.feature] = Done(None) if err is None else _outcome(err)
        for k in keys:
            out.setdefault(k, Failed(ProtocolError(f"the controller's UpdateFeatures answer left out {k!r}")))
        return out


def _outcome(err: KafkaError) -> Outcome:
    if err.code == ErrorCode.NOT_CONTROLLER:
        return Retry(err, relookup=True)
    return Retry(err) if err.retriable else Failed(err)


def _unsupported(node: int, version: int, what: str, needs: int) -> KafkaError:
    err = error_for_code(ErrorCode.UNSUPPORTED_VERSION,
                         f"{what} needs UpdateFeatures v{needs}+; node {node} speaks up to v{version}")
    assert err is not None
    return err


__all__ = ["DEFAULT_TIMEOUT_MS", "FEATURES", "DescribeFeatures", "UpdateFeatures", "features_of"]
