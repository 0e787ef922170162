"""The client-quotas area: quota values by entity (KIP-546), and the test-facing methods that read and set
them.  Used by DescribeClientQuotas and AlterClientQuotas."""

from __future__ import annotations

import functools
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


#: The order DescribeClientQuotas answers entities in: by the entity's repr, a total order even with None (default)
#: names.  Cached, because the same entities are sorted again and again and a 5,000-entity answer spent about a
#: fifth of its time making reprs to sort by (issue #28).  Bounded: the cache holds the entities it saw.
_answer_key = functools.lru_cache(maxsize=1 << 16)(repr)


class Quotas(dict[QuotaEntity, dict[str, float]]):
    """The area: {entity: {quota key: value}}; an entity without values is not kept.

    It keeps its entities, each with its values (the dict itself), in answer order (:meth:`answer_items`) until an
    entity is added, removed or given another values dict: every such change drops that list, so a describe after
    alterations that only changed values (the usual) sorts nothing (issue #28: sorting 5,000 entities was a third
    of such a describe)."""

    _items: list[tuple[QuotaEntity, dict[str, float]]] | None = None

    def answer_items(self) -> list[tuple[QuotaEntity, dict[str, float]]]:
        """(entity, its values) of every entity in the order DescribeClientQuotas answers them (by repr); the
        values are the area's own dicts, the list is kept: the caller changes neither."""
        items = self._items
        if items is None:
            items = self._items = [(entity, self[entity]) for entity in sorted(self, key=_answer_key)]
        return items

    # Every change of an entity's presence or values dict drops the list (a new value in the dict keeps it).
    def __setitem__(self, entity: QuotaEntity, values: dict[str, float]) -> None:
        self._items = None
        super().__setitem__(entity, values)

    def __delitem__(self, entity: QuotaEntity) -> None:
        super().__delitem__(entity)
        self._items = None

    def setdefault(self, entity: QuotaEntity, default: dict[str, float]) -> dict[str, float]:
        if entity not in self:
            self._items = None
        return super().setdefault(entity, default)

    def pop(self, entity: QuotaEntity, *default: Any) -> Any:
        if entity in self:
            self._items = None
        return super().pop(entity, *default)

    def popitem(self) -> tuple[QuotaEntity, dict[str, float]]:
        self._items = None
        return super().popitem()

    def clear(self) -> None:
        self._items = None
        super().clear()

    def update(self, *args: Any, **kwargs: Any) -> None:
        self._items = None
        super().update(*args, **kwargs)

    def __ior__(self, other: Any) -> Quotas:  # type: ignore[override,misc]
        self._items = None
        super().__ior__(other)
        return self

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
