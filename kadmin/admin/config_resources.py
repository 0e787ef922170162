"""ListConfigResources (API 74, KIP-1142, Kafka 4.1; ListClientMetricsResources v0 since 3.7): which config
resources exist, by type, asked of any one broker.

v0 lists client-metrics subscriptions only and takes no filter; v1 takes a list of resource types (empty: every
type the broker can list) and says each resource's type.  So a call for any type other than client metrics
alone cannot be answered by a v0 broker: it is refused before sending (UnsupportedVersionError naming the
version it needs), never answered with the client-metrics part only.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kadmin.admin._driver import Done, Failed, Operation, Outcome, Retry
from kadmin.admin.lookups import NodeSpeaking
from kadmin.configs import ConfigResource, ConfigResourceType, resource_type
from kadmin.errors import UnsupportedVersionError, error_for_code
from kadmin.protocol import Message, message_type
from kadmin.protocol.apis import ApiKey

#: The one key of the call (the listing is cluster-wide).
ALL_RESOURCES = "config-resources"
#: KIP-1142: the ResourceTypes filter, and each resource's type in the answer, from v1 (Kafka 4.1).
TYPES_FILTER_SINCE = 1


def check_resource_types(types: Any) -> list[ConfigResourceType] | None:
    """Types by code, Kafka's name or the CLI's spelling, checked before any I/O; None: every type."""
    if types is None:
        return None
    if isinstance(types, (str, bytes, int)):
        raise TypeError("types must be a list of resource types (e.g. ['topics', 'groups']), not a single value")
    if not isinstance(types, Iterable):
        raise TypeError(f"types must be a list of resource types, not {type(types).__name__}")
    out: list[ConfigResourceType] = []
    for t in types:
        rt = resource_type(t)
        if rt not in out:
            out.append(rt)
    if not out:
        raise ValueError("types is empty; pass None for every type")
    return out


class ListConfigResources(Operation[str]):
    """The config resources of the named types (None: every type the broker lists)."""

    api = ApiKey.LIST_CONFIG_RESOURCES

    def __init__(self, types: list[ConfigResourceType] | None) -> None:
        self.types = types
        # Any node that lists config resources: one of v1+ when the types need it (in a cluster being upgraded
        # from 3.x, the least loaded node may be one without the API, or with v0's client-metrics only).
        needs = 0 if types == [ConfigResourceType.CLIENT_METRICS] else TYPES_FILTER_SINCE
        self.lookup: NodeSpeaking[str] = NodeSpeaking(self.api, prefer=needs)

    def build(self, node: int, keys: list[str], version: int) -> Message:
        req = message_type(self.api, "request")
        if version >= TYPES_FILTER_SINCE:
            return req(resource_types=[int(t) for t in self.types or ()])
        if self.types != [ConfigResourceType.CLIENT_METRICS]:
            # The whole call's filter: a v0 broker would answer client metrics only, silently incomplete.
            asked = "every resource type" if self.types is None else ", ".join(t.cli_name for t in self.types)
            raise UnsupportedVersionError(
                f"listing {asked} needs ListConfigResources v{TYPES_FILTER_SINCE}+ (Kafka 4.1); node {node} "
                f"speaks v{version} (client-metrics only)")
        return req()

    def handle(self, node: int, keys: list[str], response: Any, version: int) -> dict[str, Outcome]:
        err = error_for_code(response.error_code)
        if err is not None:
            return {ALL_RESOURCES: Retry(err) if err.retriable else Failed(err)}
        out = set()
        for r in response.config_resources:
            code = r.resource_type if version >= TYPES_FILTER_SINCE else ConfigResourceType.CLIENT_METRICS
            try:
                rt = ConfigResourceType(code)
            except ValueError:
                continue  # a type newer than kadmin knows: not one the caller can have asked for by name
            if self.types is None or rt in self.types:
                out.add(ConfigResource(rt, r.resource_name))
        return {ALL_RESOURCES: Done(sorted(out))}


__all__ = ["ALL_RESOURCES", "ListConfigResources", "check_resource_types"]
