"""The client-quotas area: quota values by entity (KIP-546), and the test-facing methods that read and set
them.  Used by DescribeClientQuotas and AlterClientQuotas."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from kadmin.testing.state.base import AreaAdmin

#: Entity types the broker understands (ClientQuotaEntity.USER / CLIENT_ID / IP).
QUOTA_ENTITY_TYPES = ("user", "client-id", "ip")

#: A quota entity as a sorted tuple of (entity type, name or None for the default entity).
QuotaEntity = tuple[tuple[str, "str | None"], ...]


def quota_entity(entity: Mapping[str, str | None] | Iterable[tuple[str, str | None]]) -> QuotaEntity:
    """Normalise ``{"user": "alice"}`` or ``[("user", "alice")]`` to the sorted tuple used as a key."""
    items = list(entity.items()) if isinstance(entity, Mapping) else list(entity)
    return tuple(sorted(((str(t), n) for t, n in items), key=lambda p: p[0]))


class Quotas(dict[QuotaEntity, dict[str, float]]):
    """The area: {entity: {quota key: value}}; an entity without values is not kept."""

    def put(self, entity: QuotaEntity, key: str, value: float | None) -> None:
        """Set (None: remove) one value."""
        current = self.setdefault(entity, {})
        if value is None:
            current.pop(key, None)
        else:
            current[key] = float(value)
        if not current:
            del self[entity]


class QuotasAdmin(AreaAdmin):
    """FakeCluster's methods for client quotas (mixed into it)."""

    @property
    def quotas(self) -> dict[QuotaEntity, dict[str, float]]:
        """{((entity_type, name or None), ...): {quota key: value}}, entity parts sorted by type."""
        with self._lock:
            return {e: dict(v) for e, v in self._state.area(Quotas).items() if v}

    @quotas.setter
    def quotas(self, value: Mapping[Any, Mapping[str, float]]) -> None:
        with self._lock:
            area = self._state.area(Quotas)
            area.clear()
            area.update({quota_entity(e): {k: float(x) for k, x in v.items()} for e, v in value.items() if v})

    def set_quota(self, entity: Mapping[str, str | None], key: str, value: float | None) -> None:
        """Set (or with None remove) one quota, bypassing the broker's validation."""
        with self._lock:
            self._state.area(Quotas).put(quota_entity(entity), key, value)
