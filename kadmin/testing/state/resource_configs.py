"""The resource-configs area: dynamic configs of resources other than topics (brokers, the cluster default,
broker loggers, groups, client-metrics subscriptions), and the test-facing methods that read and set them.

A topic's own configs live with the topic (topics area).  What keys exist, their types and defaults, and how
a value resolves are the catalog's (kadmin.testing.configs), shared by the config handlers.
"""

from __future__ import annotations

from kadmin.testing.state.base import AreaAdmin


class ResourceConfigs(dict[tuple[int, str], dict[str, str]]):
    """The area: {(resource type code, name): {key: value}}; ("" names the cluster-wide broker default)."""

    def put(self, resource_type: int, name: str, key: str, value: str | None) -> None:
        """Set (None: remove) one value; a resource left without values is not kept."""
        current = self.setdefault((resource_type, name), {})
        if value is None:
            current.pop(key, None)
        else:
            current[key] = value
        if not current:
            del self[(resource_type, name)]


class ResourceConfigsAdmin(AreaAdmin):
    """FakeCluster's methods for non-topic configs (mixed into it)."""

    def resource_configs(self, resource_type: int, name: str) -> dict[str, str]:
        """Dynamic configs of a non-topic resource: (4, "1") broker 1, (4, "") cluster default, (8, "1")
        broker 1's loggers, (32, group), (16, client-metrics name)."""
        with self._lock:
            return dict(self._state.area(ResourceConfigs).get((resource_type, name), {}))

    def set_resource_config(self, resource_type: int, name: str, key: str, value: str | None) -> None:
        with self._lock:
            self._state.area(ResourceConfigs).put(resource_type, name, key, value)
