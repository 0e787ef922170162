"""Client quotas (KIP-546 as shipped in Kafka 2.6): entities, filters, alterations, validation, precedence.

Pure: no sockets, no clocks.  The admin operations that send these live in :mod:`kadmin.admin.quotas` and on
the ``AdminClient`` classes (``describe_client_quotas``, ``alter_client_quotas``, ``resolve_client_quotas``).

Why values are Python floats: the wire carries every quota as a float64 (IEEE 754 bits), so a float is the
only Python type that round-trips exactly.  Ints are accepted for convenience and converted, but only when
the conversion is exact, so that ``2**53 + 1`` is refused instead of silently becoming ``2**53``.

Why validation happens here, before anything is sent: a broker answers a bad alteration with a per-entity
INVALID_REQUEST whose text differs between ZooKeeper and KRaft brokers, and only after a round trip.  The
rules below mirror what Kafka's brokers enforce (``ZkAdminManager.alterClientQuotas`` and KRaft's
``ClientQuotaControlManager``), plus NaN/infinity checks Kafka does not make but whose results (a NaN rate)
never make sense:

* entity types are free strings; Kafka knows ``user``, ``client-id`` and ``ip``, and accepts exactly the
  combinations {user}, {client-id}, {user, client-id} and {ip} (``ip`` never combines with the others);
* a name is a non-empty string, or None for the default entity of that type;
* ``producer_byte_rate`` and ``consumer_byte_rate`` (Java long) and ``connection_creation_rate`` (Java int)
  must be integral; the broker rejects a value more than 1e-6 away from an integer, we reject any fraction;
  ``request_percentage`` and ``controller_mutation_rate`` (Java double) take any finite value >= 0;
* the first four keys apply to user/client-id entities, ``connection_creation_rate`` to ip entities only;
* a key the table does not know (a newer broker's, or any key on an entity type kadmin does not know) passes
  only with ``allow_unknown_keys=True``;
* one key at most once per alteration, one entity at most once per call (Kafka fails such entries with
  "Duplicate quota key" / "Ignoring duplicate entity"; failing the whole call early is clearer);
* negative values (and -0.0, whose sign bit would reach the wire) are refused.  0.0 is let through: ZooKeeper
  brokers and KRaft before 3.5 store it, while KRaft controllers since 3.5 (KAFKA-14943) answer "Quota K
  must be greater than 0", which comes back as that entity's InvalidRequestError.  Which rule applies
  depends on the cluster, not on anything the client can see in ApiVersions, so the broker decides.

Not checked here: whether an ip name is an IP address or resolvable host name (the broker resolves it).
"""

from __future__ import annotations

import enum
import functools
import math
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final, Literal, TypeAlias, TypeVar

V = TypeVar("V")

USER: Final = "user"
CLIENT_ID: Final = "client-id"
IP: Final = "ip"

PRODUCER_BYTE_RATE: Final = "producer_byte_rate"
CONSUMER_BYTE_RATE: Final = "consumer_byte_rate"
REQUEST_PERCENTAGE: Final = "request_percentage"
CONTROLLER_MUTATION_RATE: Final = "controller_mutation_rate"
CONNECTION_CREATION_RATE: Final = "connection_creation_rate"

# Display and sort order of entity types: Kafka's hierarchy first (user above client-id), then the rest.
_TYPE_RANK = {USER: 0, CLIENT_ID: 1, IP: 2}


def _type_order(entity_type: str) -> tuple[int, str]:
    """Where a component goes in an entity: user, client-id, ip, then other types by name."""
    return _TYPE_RANK.get(entity_type, 3), entity_type


class _Default(enum.Enum):
    DEFAULT = "<default>"

    def __repr__(self) -> str:
        return "DEFAULT"


DEFAULT: Final = _Default.DEFAULT
"""The default entity of a type, for :meth:`ClientQuotaEntity.of` (where None means "not part of the entity")."""

DefaultType = Literal[_Default.DEFAULT]


# --- entities ----------------------------------------------------------------------------------------------


def _check_type(entity_type: object, where: str) -> str:
    if not isinstance(entity_type, str):
        raise TypeError(f"{where}: entity type must be a string, not {entity_type!r}")
    if not entity_type:
        raise ValueError(f"{where}: entity type is empty")
    if entity_type not in _TYPE_RANK:
        _refuse_near_miss(entity_type, where)
    return entity_type


def _refuse_near_miss(entity_type: str, where: str) -> None:
    """Refuse a type that is a slip for one Kafka knows (``client_id``, ``User``, ``clientid``, ``ips``).

    Other types stay allowed (a newer broker's, sent with ``allow_unknown_keys``), but a near miss would only
    be refused by the broker, at alter time, with a hint about unknown keys that points the wrong way."""
    import difflib

    folded = entity_type.strip().lower().replace("_", "-").replace(" ", "-")
    close = [folded] if folded in _TYPE_RANK else difflib.get_close_matches(folded, list(_TYPE_RANK), n=1,
                                                                             cutoff=0.75)
    if close:
        raise ValueError(f"{where}: unknown entity type {entity_type!r}: did you mean {close[0]!r}? (Kafka's "
                         f"entity types are {', '.join(repr(t) for t in _TYPE_RANK)})")


@functools.total_ordering
@dataclass(frozen=True, init=False)
class ClientQuotaEntity:
    """Who a quota applies to: entity type -> name, where a None name is the default entity of that type.

    ``ClientQuotaEntity({"user": "alice", "client-id": None})`` is "user alice, with any client-id that has no
    quota of its own".  Components are kept in a canonical order (user, client-id, ip, then other types by
    name), so equality, hashing, sorting and ``str`` do not depend on the order they were given in.
    """

    components: tuple[tuple[str, str | None], ...]
    _hash: int = field(init=False, repr=False, compare=False)

    def __init__(self, components: Mapping[str, str | None] | Iterable[tuple[str, str | None]] = ()) -> None:
        if isinstance(components, ClientQuotaEntity):
            pairs: list[tuple[Any, Any]] = list(components.components)
        elif isinstance(components, Mapping):
            pairs = list(components.items())
        elif isinstance(components, (str, bytes)):
            raise TypeError("ClientQuotaEntity takes a mapping {entity_type: name or None}, not a string")
        else:
            pairs = []
            for p in components:
                if not isinstance(p, tuple) or len(p) != 2:
                    raise TypeError(f"ClientQuotaEntity components must be (entity_type, name) pairs; got {p!r}")
                pairs.append(p)
        seen: set[str] = set()
        for t, n in pairs:
            if type(t) is not str or t not in _TYPE_RANK:  # the full check (and its message) off the common path
                _check_type(t, "ClientQuotaEntity")
            if n is not None and not isinstance(n, str):
                raise TypeError(f"ClientQuotaEntity: the {t} name must be a string or None (the default), "
                                f"not {n!r}")
            if t in seen:
                raise ValueError(f"ClientQuotaEntity: entity type {t!r} appears twice in {pairs!r}")
            seen.add(t)
        ordered: tuple[tuple[str, str | None], ...] = tuple(sorted(pairs, key=lambda c: _type_order(c[0])))
        object.__setattr__(self, "components", ordered)
        # Entities are dict keys everywhere (results, batches, plans): hash the nested tuple once.
        object.__setattr__(self, "_hash", hash(ordered))

    @classmethod
    def _trusted(cls, pairs: list[tuple[str, str | None]]) -> ClientQuotaEntity:
        """An entity from what the broker answered (decoded by the codec: a string type and a string-or-None
        name per component), built without the caller-facing checks and, for the usual one or two
        components, without a keyed sort: describing 5,000 entities spent 47 of ~86 ms in that sort (issue
        #28).  Components end in the same canonical order as :meth:`__init__` gives them; what the codec
        cannot rule out (a type twice, more than two components) goes through :meth:`__init__`."""
        n = len(pairs)
        if n == 2:
            a, b = pairs
            if a[0] == b[0]:
                return cls(pairs)  # refused there, with its message
            if _TYPE_RANK.get(a[0], 3) > _TYPE_RANK.get(b[0], 3) or (
                    a[0] not in _TYPE_RANK and b[0] not in _TYPE_RANK and a[0] > b[0]):
                pairs = [b, a]
        elif n > 2:
            return cls(pairs)
        ordered = tuple(pairs)
        self = object.__new__(cls)
        fields_ = self.__dict__
        fields_["components"] = ordered
        fields_["_hash"] = hash(ordered)
        return self

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple[Any, ...]:
        # Rebuild through __init__ when unpickled: string hashes differ between processes (PYTHONHASHSEED).
        return (ClientQuotaEntity, (self.components,))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ClientQuotaEntity):
            return NotImplemented
        return self._hash == other._hash and self.components == other.components

    @classmethod
    def of(cls, *, user: str | DefaultType | None = None, client_id: str | DefaultType | None = None,
           ip: str | DefaultType | None = None) -> ClientQuotaEntity:
        """Keyword form; here None means "not part of the entity" and :data:`DEFAULT` the default entity."""
        parts: dict[str, str | None] = {}
        for t, v in ((USER, user), (CLIENT_ID, client_id), (IP, ip)):
            if v is None:
                continue
            parts[t] = None if isinstance(v, _Default) else v
        return cls(parts)

    # mapping-like access ------------------------------------------------------------------------------------

    @property
    def types(self) -> tuple[str, ...]:
        return tuple(t for t, _ in self.components)

    def as_dict(self) -> dict[str, str | None]:
        return dict(self.components)

    def __contains__(self, entity_type: object) -> bool:
        return any(t == entity_type for t, _ in self.components)

    def __iter__(self) -> Iterator[str]:
        return iter(self.types)

    def keys(self) -> tuple[str, ...]:
        return self.types

    def items(self) -> tuple[tuple[str, str | None], ...]:
        return self.components

    def values(self) -> tuple[str | None, ...]:
        return tuple(n for _, n in self.components)

    def get(self, entity_type: str, default: str | None = None) -> str | None:
        """Like dict.get; note that None is also the default entity's name (use ``in`` to tell them apart)."""
        for t, n in self.components:
            if t == entity_type:
                return n
        return default

    def __getitem__(self, entity_type: str) -> str | None:
        for t, n in self.components:
            if t == entity_type:
                return n
        raise KeyError(entity_type)

    def __len__(self) -> int:
        return len(self.components)

    def is_default(self, entity_type: str) -> bool:
        """True when the entity has ``entity_type`` and it is that type's default (a KeyError otherwise)."""
        return self[entity_type] is None

    # display and order --------------------------------------------------------------------------------------

    def sort_key(self) -> tuple[tuple[int, str, int, str], ...]:
        # Defaults sort before names of the same type, as Kafka's tools list them; None never meets a str.
        c = self.components
        if len(c) == 1:  # the common case, without a generator (sorting 5,000 described entities)
            t, n = c[0]
            return ((_TYPE_RANK.get(t, 3), t, 0 if n is None else 1, n or ""),)
        return tuple((_TYPE_RANK.get(t, 3), t, 0 if n is None else 1, n or "") for t, n in c)

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, ClientQuotaEntity):
            return NotImplemented
        return self.sort_key() < other.sort_key()

    def __str__(self) -> str:
        # Names are quoted so that a user literally called "<default>" is not mistaken for the default entity.
        if not self.components:
            return "<empty entity>"
        return ", ".join(f"{t}=<default>" if n is None else f"{t}={n!r}" for t, n in self.components)

    def __repr__(self) -> str:
        return f"ClientQuotaEntity({self.as_dict()!r})"


# Mapping-like for readers and dict(entity); registered (not subclassed) so the dataclass keeps its hash.
Mapping.register(ClientQuotaEntity)


Components: TypeAlias = tuple[tuple[str, str | None], ...]


def entities_sorted(found: Mapping[Components, V]) -> dict[ClientQuotaEntity, V]:
    """``found``, keyed by canonical components (as :meth:`ClientQuotaEntity._trusted` orders them), as a dict
    of entities in :meth:`ClientQuotaEntity.sort_key` order.

    Why components and not entities as the keys of ``found``: a tuple hashes in C, an entity through its
    Python ``__hash__``, and a describe of 5,000 quotas looked each entity up four times (issue #28).  Why
    not ``sorted(..., key=ClientQuotaEntity.sort_key)`` always: a Python call and a nested tuple per entity.
    When every entity has the same types (a describe answers all client-ids, all users, all user/client-id
    pairs), two sort keys differ only in the names, component by component, and with no name empty (Kafka
    never stores one) ``name or ""`` orders the default (None) before every name exactly as sort_key does, so
    the names alone are the key.  Anything else takes the full key."""
    comps = list(found)
    if not comps:
        return {}
    keys: list[Any] = []
    add = keys.append
    first = comps[0]
    if len(first) == 1:
        t0 = first[0][0]
        for c in comps:
            if len(c) != 1 or c[0][0] != t0 or c[0][1] == "":
                break
            add(c[0][1] or "")
    elif len(first) == 2:
        t0, t1 = first[0][0], first[1][0]
        for c in comps:
            if len(c) != 2 or c[0][0] != t0 or c[1][0] != t1 or c[0][1] == "" or c[1][1] == "":
                break
            add((c[0][1] or "", c[1][1] or ""))
    if len(keys) == len(comps):
        return _entities_in_order(keys, comps, [found[c] for c in comps])
    out: dict[ClientQuotaEntity, V] = {}
    entities = [ClientQuotaEntity._trusted(list(c)) for c in comps]
    for e in sorted(entities, key=ClientQuotaEntity.sort_key):
        out[e] = found[e.components]
    return out


def entities_named(names: list[str | None], components: list[Components],
                   values: list[V]) -> dict[ClientQuotaEntity, V]:
    """{entity of ``components[i]``: ``values[i]``} for entities of one component, all of one type, named
    ``names[i]``, in :meth:`ClientQuotaEntity.sort_key` order: what :func:`entities_sorted` gives for them,
    without checking every entity's shape to find its sort key (a describe of every client-id, issue #28).  No
    name may be empty (the caller checks): ``name or ""`` then orders the default (None) first, as sort_key does.
    A name given twice keeps its later value (the sort is stable); with one key per entity, that is the union
    :func:`entities_sorted`'s fold gives."""
    return _entities_in_order([name or "" for name in names], components, values)


def _entities_in_order(keys: list[Any], components: list[Components], values: list[V]) -> dict[ClientQuotaEntity, V]:
    """{entity of ``components[i]``: ``values[i]``} in the order of ``keys[i]`` (stable: of two equal keys, the
    later one's value stays), the entities made without :meth:`ClientQuotaEntity.__init__`'s checks (the components
    are canonical: the caller's)."""
    new = object.__new__
    out: dict[ClientQuotaEntity, V] = {}
    for i in sorted(range(len(keys)), key=keys.__getitem__):
        c = components[i]
        e = new(ClientQuotaEntity)
        d = e.__dict__
        d["components"] = c
        d["_hash"] = hash(c)
        out[e] = values[i]
    return out


# --- filters -----------------------------------------------------------------------------------------------


class MatchType(enum.IntEnum):
    """DescribeClientQuotas MatchType values on the wire."""

    EXACT = 0
    DEFAULT = 1
    ANY = 2  # Kafka's MATCH_TYPE_SPECIFIED: the entity has this type, under any name or the default


@dataclass(frozen=True)
class ClientQuotaFilterComponent:
    """One condition of a filter: the entity has ``entity_type`` with this exact name, the default, or any."""

    entity_type: str
    match_type: MatchType
    name: str | None = None

    def __post_init__(self) -> None:
        _check_type(self.entity_type, "filter component")
        try:
            mt = MatchType(self.match_type)
        except ValueError:
            raise ValueError(f"filter component for {self.entity_type!r}: match type {self.match_type!r} is "
                             "not 0 (exact), 1 (default) or 2 (any)") from None
        object.__setattr__(self, "match_type", mt)
        if mt is MatchType.EXACT:
            if not isinstance(self.name, str):
                raise TypeError(f"filter component for {self.entity_type!r}: an exact match needs a name string "
                                f"(use ClientQuotaFilterComponent.default() for the default entity), not "
                                f"{self.name!r}")
            if not self.name:
                raise ValueError(f"filter component for {self.entity_type!r}: an exact match needs a non-empty "
                                 "name (Kafka never stores an empty name)")
        elif self.name is not None:
            raise ValueError(f"filter component for {self.entity_type!r}: match type {mt.name} takes no name")

    @classmethod
    def exact(cls, entity_type: str, name: str) -> ClientQuotaFilterComponent:
        return cls(entity_type, MatchType.EXACT, name)

    @classmethod
    def default(cls, entity_type: str) -> ClientQuotaFilterComponent:
        return cls(entity_type, MatchType.DEFAULT)

    @classmethod
    def any(cls, entity_type: str) -> ClientQuotaFilterComponent:
        return cls(entity_type, MatchType.ANY)

    def matches(self, entity: ClientQuotaEntity) -> bool:
        if self.entity_type not in entity:
            return False
        if self.match_type is MatchType.ANY:
            return True
        return entity[self.entity_type] == self.name  # DEFAULT: name is None, as is the default entity's

    def __str__(self) -> str:
        if self.match_type is MatchType.EXACT:
            return f"{self.entity_type}={self.name!r}"
        return f"{self.entity_type}=<{'default' if self.match_type is MatchType.DEFAULT else 'any'}>"


@dataclass(frozen=True, init=False)
class ClientQuotaFilter:
    """Which entities DescribeClientQuotas returns: those matching every component.

    Non-strict, an entity may also have types the filter does not name (``user=alice`` matches
    {user alice, client-id x}); strict, it must have exactly the named types.  Kafka's brokers refuse a filter
    that names a type twice or combines ``ip`` with ``user``/``client-id``; both are refused here first.
    """

    components: tuple[ClientQuotaFilterComponent, ...]
    strict: bool

    def __init__(self, components: Iterable[ClientQuotaFilterComponent] = (), strict: bool = False) -> None:
        if isinstance(components, ClientQuotaFilterComponent):
            raise TypeError("ClientQuotaFilter takes a list of components; wrap the single component in [...]")
        comps = tuple(components)
        for c in comps:
            if not isinstance(c, ClientQuotaFilterComponent):
                raise TypeError(f"ClientQuotaFilter components must be ClientQuotaFilterComponent, not {c!r}")
        if not isinstance(strict, bool):
            raise TypeError(f"ClientQuotaFilter strict must be a bool, not {strict!r}")
        seen: set[str] = set()
        for c in comps:
            if c.entity_type in seen:
                raise ValueError(f"ClientQuotaFilter: entity type {c.entity_type!r} appears more than once "
                                 "(brokers refuse such filters)")
            seen.add(c.entity_type)
        if IP in seen and (USER in seen or CLIENT_ID in seen):
            raise ValueError("ClientQuotaFilter: an ip component cannot be combined with user or client-id "
                             "components (brokers refuse such filters)")
        object.__setattr__(self, "components", comps)
        object.__setattr__(self, "strict", strict)

    @classmethod
    def all(cls) -> ClientQuotaFilter:
        """Every entity with at least one quota."""
        return cls((), strict=False)

    @classmethod
    def contains_only(cls, components: Iterable[ClientQuotaFilterComponent]) -> ClientQuotaFilter:
        return cls(components, strict=True)

    @classmethod
    def for_entity(cls, entity: ClientQuotaEntity) -> ClientQuotaFilter:
        """The strict filter that matches exactly ``entity``."""
        return cls([ClientQuotaFilterComponent.default(t) if n is None else ClientQuotaFilterComponent.exact(t, n)
                    for t, n in entity.components], strict=True)

    def matches(self, entity: ClientQuotaEntity) -> bool:
        """Kafka's matching rule (KRaft ``ClientQuotasImage``), for tests and client-side filtering."""
        if self.strict and len(entity) != len(self.components):
            return False
        return all(c.matches(entity) for c in self.components)

    def __str__(self) -> str:
        body = ", ".join(str(c) for c in self.components) or "<all>"
        return f"{body}{' (strict)' if self.strict else ''}"


# --- alterations -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Set:
    """Set ``key`` to ``value`` (a float; an int is converted when it converts exactly)."""

    key: str
    value: float


@dataclass(frozen=True)
class Remove:
    """Remove ``key`` from the entity, so that the next level of the precedence order applies again."""

    key: str


QuotaOp: TypeAlias = Set | Remove


class _Kind(enum.Enum):
    LONG = "long"  # Java long: integral, at most 2**63 - 1
    INT = "int"  # Java int: integral, at most 2**31 - 1
    DOUBLE = "double"


_LIMITS = {_Kind.LONG: 2**63 - 1, _Kind.INT: 2**31 - 1}

USER_CLIENT_KEYS: Final[Mapping[str, _Kind]] = {
    PRODUCER_BYTE_RATE: _Kind.LONG,
    CONSUMER_BYTE_RATE: _Kind.LONG,
    REQUEST_PERCENTAGE: _Kind.DOUBLE,
    CONTROLLER_MUTATION_RATE: _Kind.DOUBLE,
}
IP_KEYS: Final[Mapping[str, _Kind]] = {CONNECTION_CREATION_RATE: _Kind.INT}
_ALL_KEYS: Final[Mapping[str, _Kind]] = {**USER_CLIENT_KEYS, **IP_KEYS}


#: The combinations of entity types Kafka accepts, in ClientQuotaEntity's canonical order, and their keys.
_KEYS_BY_TYPES: dict[tuple[str, ...], Mapping[str, _Kind]] = {
    (USER,): USER_CLIENT_KEYS, (CLIENT_ID,): USER_CLIENT_KEYS, (USER, CLIENT_ID): USER_CLIENT_KEYS, (IP,): IP_KEYS}


def _keys_for(entity: ClientQuotaEntity) -> Mapping[str, _Kind] | None:
    """The keys Kafka accepts for this entity's combination of types; None when kadmin does not know a type.

    Raises ValueError for the combinations Kafka refuses."""
    known = _KEYS_BY_TYPES.get(entity.types)
    if known is not None:  # the accepted combinations: one lookup (types are in canonical order)
        return known
    types = set(entity.types)
    if not types:
        raise ValueError(f"quota entity {entity}: an entity needs at least one component (e.g. {{'user': 'alice'}})")
    if IP in types and (USER in types or CLIENT_ID in types):
        raise ValueError(f"quota entity {entity}: an ip entity cannot be combined with user or client-id (Kafka "
                         "accepts user, client-id, user+client-id, or ip alone)")
    if not types <= {USER, CLIENT_ID, IP}:
        return None
    return IP_KEYS if IP in types else USER_CLIENT_KEYS


def _check_entity_names(entity: ClientQuotaEntity) -> None:
    for t, n in entity.components:
        if n is not None and not n:
            raise ValueError(f"quota entity {entity}: the {t} name is empty; use None for the default {t} "
                             "(Kafka refuses empty names)")


def _as_float(entity: ClientQuotaEntity, key: str, value: object) -> float:
    if type(value) is float and value - value == 0.0:  # the common case: a finite plain float
        return value
    where = f"quota entity {entity}, key {key!r}"  # built only off the common path: it formats the entity
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{where}: value must be a float (or an int), not {value!r} ({type(value).__name__})")
    if isinstance(value, int):
        try:
            f = float(value)
        except OverflowError:
            raise ValueError(f"{where}: {value} is too large for a float64") from None
        if int(f) != value:
            raise ValueError(f"{where}: the int {value} has no exact float64 value (nearest is {f!r}); "
                             "pass a float to accept the rounding")
        return f
    f = float(value)  # a float subclass (numpy.float64) becomes a plain float
    if math.isnan(f):
        raise ValueError(f"{where}: value is NaN")
    if math.isinf(f):
        raise ValueError(f"{where}: value {f!r} is infinite")
    return f


def _check_value(entity: ClientQuotaEntity, key: str, value: float, kind: _Kind | None) -> None:
    if math.copysign(1.0, value) < 0:
        # -0.0 too: its wire bits differ from 0.0's, and a "negative zero" rate is always a slip.
        if value == 0:
            raise ValueError(f"quota entity {entity}, key {key!r}: value -0.0 is a negative zero (its sign bit "
                             "would reach the broker); use 0.0")
        raise ValueError(f"quota entity {entity}, key {key!r}: value {value!r} is negative")
    if kind is None or kind is _Kind.DOUBLE:
        return
    if not value.is_integer():
        raise ValueError(f"quota entity {entity}, key {key!r}: value {value!r} must be a whole number (the broker "
                         f"stores {key} as a Java {kind.value} and rejects fractions)")
    if value > _LIMITS[kind]:
        raise ValueError(f"quota entity {entity}, key {key!r}: value {value!r} is above the Java {kind.value} "
                         f"maximum {_LIMITS[kind]}")


def _check_ops(entity: ClientQuotaEntity, ops: Sequence[Any],
               allow_unknown_keys: bool) -> tuple[tuple[QuotaOp, ...], bool]:
    """Validate and normalize the ops of one entity; the rules are in the module docstring.

    Also says whether kadmin knows every key for this entity (what :func:`_check_keys_known` requires)."""
    known = _keys_for(entity)
    all_known = known is not None
    _check_entity_names(entity)
    if not ops:
        raise ValueError(f"quota entity {entity}: the alteration has no operations")
    seen: set[str] = set()
    out: list[QuotaOp] = []
    for op in ops:
        if not isinstance(op, (Set, Remove)):
            raise TypeError(f"quota entity {entity}: operations must be Set(key, value) or Remove(key), not {op!r}")
        key = op.key
        if not isinstance(key, str) or not key:
            raise TypeError(f"quota entity {entity}: quota key must be a non-empty string, not {key!r}")
        if key in seen:
            raise ValueError(f"quota entity {entity}: key {key!r} appears more than once in one alteration")
        seen.add(key)
        kind = known.get(key) if known is not None else None
        if kind is None:
            all_known = False
            if known is not None and key in _ALL_KEYS:
                applies = "ip" if key in IP_KEYS else "user/client-id"
                raise ValueError(f"quota entity {entity}: {key!r} applies to {applies} entities only")
            if not allow_unknown_keys:
                raise _unknown_key(entity, key, known)
            kind = _ALL_KEYS.get(key)  # a known name keeps its value rules even on an unknown entity type
        if isinstance(op, Set):
            value = _as_float(entity, key, op.value)
            _check_value(entity, key, value, kind)
            out.append(op if type(op.value) is float else Set(key, value))
        else:
            out.append(op)
    return tuple(out), all_known


class UnknownQuotaKeyError(ValueError):
    """A quota key kadmin does not know for the entity, refused unless the call allows unknown keys.

    A ValueError like every other validation failure; its own class so that a front end (the CLI) can name
    its own switch instead of the ``allow_unknown_keys=True`` the message suggests."""

    def __init__(self, entity: ClientQuotaEntity, key: str, known: Sequence[str] | None) -> None:
        self.entity = entity
        self.key = key
        self.known = tuple(known) if known is not None else None
        super().__init__(f"quota entity {entity}: key {key!r} {self.why}; pass allow_unknown_keys=True to send "
                         "it anyway (the broker decides)")

    @property
    def why(self) -> str:
        """What is wrong, without the advice: "is not a quota key kadmin knows for user entities"."""
        if self.known is None:
            return f"is on an entity type kadmin does not know ({self.entity})"
        import difflib

        close = difflib.get_close_matches(self.key, self.known, n=1, cutoff=0.7)
        hint = f" (did you mean {close[0]!r}?)" if close else f" (known: {', '.join(self.known)})"
        return f"is not a quota key kadmin knows for {'/'.join(self.entity.types)} entities{hint}"


def _unknown_key(entity: ClientQuotaEntity, key: str, known: Mapping[str, _Kind] | None) -> ValueError:
    return UnknownQuotaKeyError(entity, key, sorted(known) if known is not None else None)


def _check_keys_known(entity: ClientQuotaEntity, ops: Sequence[QuotaOp]) -> None:
    """The one call-time rule an alteration's constructor cannot know: keys kadmin does not know are refused
    unless the call allows them (everything else was checked, and normalized, when it was built)."""
    known = _keys_for(entity)
    for op in ops:
        if known is None or op.key not in known:
            raise _unknown_key(entity, op.key, known)


@dataclass(frozen=True, init=False)
class ClientQuotaAlteration:
    """Changes to one entity's quotas: each op explicitly sets or removes one key.

    Construction validates everything that does not depend on the call's options and normalizes values to
    floats, so that a bad alteration fails where it is written, naming its entity.
    """

    entity: ClientQuotaEntity
    ops: tuple[QuotaOp, ...]
    # Whether kadmin knows every key for this entity, found while the ops were checked: the call-time rule
    # (unknown keys need allow_unknown_keys) is then one attribute read per alteration.
    _all_known: bool = field(init=False, repr=False, compare=False)

    def __init__(self, entity: ClientQuotaEntity, ops: Iterable[QuotaOp]) -> None:
        if not isinstance(entity, ClientQuotaEntity):
            raise TypeError(f"ClientQuotaAlteration entity must be a ClientQuotaEntity, not {entity!r}")
        if isinstance(ops, (Set, Remove)):
            raise TypeError(f"quota entity {entity}: ops must be a list of Set/Remove; wrap the single op in [...]")
        if isinstance(ops, Mapping) or isinstance(ops, (str, bytes)):
            raise TypeError(f"quota entity {entity}: ops must be a list of Set(key, value)/Remove(key), not a "
                            f"{type(ops).__name__} (no implicit 'None means remove')")
        object.__setattr__(self, "entity", entity)
        checked, all_known = _check_ops(entity, list(ops), allow_unknown_keys=True)
        object.__setattr__(self, "ops", checked)
        object.__setattr__(self, "_all_known", all_known)


def validate_alterations(alterations: Iterable[ClientQuotaAlteration], *,
                         allow_unknown_keys: bool = False) -> list[ClientQuotaAlteration]:
    """The call-time checks: types, one alteration per entity, and unknown keys unless allowed."""
    if isinstance(alterations, ClientQuotaAlteration):
        raise TypeError("alterations must be a list of ClientQuotaAlteration; wrap the single one in [...]")
    if not isinstance(allow_unknown_keys, bool):
        raise TypeError("allow_unknown_keys must be a bool")
    items = list(alterations)
    if not items:
        raise ValueError("alterations is empty")
    # Entities are equal exactly when their (canonical) components are: the tuples hash in C, where an entity's
    # __hash__ is a Python call.  One set operation per alteration (add, then did the size change).
    seen: set[tuple[tuple[str, str | None], ...]] = set()
    add = seen.add
    for a in items:
        if not isinstance(a, ClientQuotaAlteration):
            raise TypeError(f"alterations must contain ClientQuotaAlteration, not {a!r}")
        size = len(seen)
        add(a.entity.components)
        if len(seen) == size:
            raise ValueError(f"quota entity {a.entity} appears in more than one alteration; merge its ops into one")
        if not allow_unknown_keys and not a._all_known:
            _check_keys_known(a.entity, a.ops)
    return items


# --- precedence --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ResolvedQuota:
    """The value of one quota key that applies to a client, and the entity it is configured on.

    ``level`` is the 1-based position of ``source`` in Kafka's precedence order (1 = most specific; for
    user/client-id quotas 1..8 as listed in :func:`precedence`, for ip quotas 1 = the ip, 2 = the default ip).
    """

    key: str
    value: float
    source: ClientQuotaEntity
    level: int


def precedence_levels(user: str | None = None,
                      client_id: str | None = None) -> list[tuple[int, ClientQuotaEntity]]:
    """Kafka's documented lookup order for user/client-id quotas, most specific first, with level numbers.

    1. /config/users/<user>/clients/<client-id>     2. /config/users/<user>/clients/<default>
    3. /config/users/<user>                         4. /config/users/<default>/clients/<client-id>
    5. /config/users/<default>/clients/<default>    6. /config/users/<default>
    7. /config/clients/<client-id>                  8. /config/clients/<default>

    A None ``user`` or ``client_id`` stands for a name that has no entity of its own: the levels naming it
    are left out and the default entities still apply, which is what a broker does for such a client.
    """
    u, c = user, client_id
    levels: list[tuple[int, dict[str, str | None] | None]] = [
        (1, {USER: u, CLIENT_ID: c} if u is not None and c is not None else None),
        (2, {USER: u, CLIENT_ID: None} if u is not None else None),
        (3, {USER: u} if u is not None else None),
        (4, {USER: None, CLIENT_ID: c} if c is not None else None),
        (5, {USER: None, CLIENT_ID: None}),
        (6, {USER: None}),
        (7, {CLIENT_ID: c} if c is not None else None),
        (8, {CLIENT_ID: None}),
    ]
    return [(n, ClientQuotaEntity(e)) for n, e in levels if e is not None]


def precedence(user: str | None = None, client_id: str | None = None) -> list[ClientQuotaEntity]:
    """The entities of :func:`precedence_levels`, in order."""
    return [e for _, e in precedence_levels(user, client_id)]


def ip_precedence(ip: str) -> list[tuple[int, ClientQuotaEntity]]:
    """Kafka's lookup order for connection-rate quotas: the ip's own entity (1), then the default ip (2)."""
    return [(1, ClientQuotaEntity({IP: ip})), (2, ClientQuotaEntity({IP: None}))]


def resolve_from(quotas: Mapping[ClientQuotaEntity, Mapping[str, float]],
                 order: Sequence[tuple[int, ClientQuotaEntity]]) -> dict[str, ResolvedQuota]:
    """Per key, the first (level, entity) in ``order`` whose entity sets it.  Entities not in ``order`` are
    ignored, so the result of any over-fetching filter can be passed as is."""
    out: dict[str, ResolvedQuota] = {}
    for level, entity in order:
        for key, value in quotas.get(entity, {}).items():
            if key not in out:
                out[key] = ResolvedQuota(key, value, entity, level)
    return dict(sorted(out.items()))


def validate_resolve_args(user: str | None, client_id: str | None, ip: str | None) -> None:
    for what, v in (("user", user), ("client_id", client_id), ("ip", ip)):
        if v is not None and not isinstance(v, str):
            raise TypeError(f"{what} must be a string or None, not {v!r}")
        if v == "":
            raise ValueError(f"{what} is empty (Kafka never stores an empty {what} entity)")


def resolve_filters(user: str | None, client_id: str | None, ip: str | None) -> list[ClientQuotaFilter]:
    """The DescribeClientQuotas filters that together return every entity :func:`resolve_from` needs.

    Why these: a component matches one name, the default, or any entity of its type, and a filter may name a
    type once, so "user U or the default user" takes two filters, and each single-component filter covers at
    most three of the eight user/client-id levels.  With user and client-id both given:

    * ``user=U`` (non-strict) returns levels 1, 2, 3;   * ``user=<default>`` (non-strict) returns 4, 5, 6;
    * ``client-id=C`` (strict) returns level 7;          * ``client-id=<default>`` (strict) returns level 8.

    Four is the least without an ``any`` component or the empty filter, which would read the quotas of every
    user or client in the cluster (no cover of the 8 levels by 3 filters of <= 3 levels each exists: the
    remaining two levels always differ in both types, or in one type's name vs. default).  The non-strict
    filters also return U's and the default user's other client-id entities; those are ignored.
    Without client_id: 3 requests (user=U, user=<default>, client-id=<default> strict); without user: 3
    (user=<default>, client-id=C strict, client-id=<default> strict); with neither: 2.  An ip adds 2
    (ip=X, ip=<default>): ip components cannot share a filter with user/client-id ones.
    """
    F, C = ClientQuotaFilter, ClientQuotaFilterComponent
    filters: list[ClientQuotaFilter] = []
    if ip is None or user is not None or client_id is not None:
        if user is not None:
            filters.append(F([C.exact(USER, user)]))
        filters.append(F([C.default(USER)]))
        if client_id is not None:
            filters.append(F([C.exact(CLIENT_ID, client_id)], strict=True))
        filters.append(F([C.default(CLIENT_ID)], strict=True))
    if ip is not None:
        filters.append(F([C.exact(IP, ip)], strict=True))
        filters.append(F([C.default(IP)], strict=True))
    return filters


@dataclass(frozen=True)
class ResolvedClientQuotas:
    """What :func:`resolve_client_quotas` found: per key, the applying value and where it comes from.

    ``quotas`` holds the user/client-id keys (producer_byte_rate, ...), ``ip_quotas`` connection_creation_rate
    and any other key set on ip entities.  A key absent from both has no quota configured anywhere in its
    order: the broker's static default applies (unlimited unless the broker config says otherwise).
    """

    user: str | None
    client_id: str | None
    ip: str | None
    quotas: Mapping[str, ResolvedQuota]
    ip_quotas: Mapping[str, ResolvedQuota]

    def __getitem__(self, key: str) -> ResolvedQuota:
        if key in self.quotas:
            return self.quotas[key]
        return self.ip_quotas[key]

    def __contains__(self, key: object) -> bool:
        return key in self.quotas or key in self.ip_quotas

    def value(self, key: str) -> float | None:
        """The applying value of ``key``, or None when no entity in the order sets it."""
        r = self.quotas.get(key) or self.ip_quotas.get(key)
        return r.value if r is not None else None

    # Mappings are not hashable; a result is still a frozen value.
    def __hash__(self) -> int:
        return hash((self.user, self.client_id, self.ip, tuple(self.quotas.items()), tuple(self.ip_quotas.items())))


Describe = Callable[[ClientQuotaFilter], Awaitable[Mapping[ClientQuotaEntity, Mapping[str, float]]]]


async def resolve_client_quotas(describe: Describe, user: str | None = None, client_id: str | None = None,
                                ip: str | None = None) -> ResolvedClientQuotas:
    """Resolve client-side with ``describe`` (one DescribeClientQuotas per filter of :func:`resolve_filters`,
    run concurrently), because KIP-546's ResolveClientQuotas was never shipped by Kafka."""
    validate_resolve_args(user, client_id, ip)
    filters = resolve_filters(user, client_id, ip)
    import asyncio  # here, not at the top: the CLI's --help and data-only imports need no event loop

    results = await asyncio.gather(*(describe(f) for f in filters))
    seen: dict[ClientQuotaEntity, Mapping[str, float]] = {}
    for r in results:
        seen.update(r)
    quotas: dict[str, ResolvedQuota] = {}
    if ip is None or user is not None or client_id is not None:
        quotas = resolve_from(seen, precedence_levels(user, client_id))
    ip_quotas = resolve_from(seen, ip_precedence(ip)) if ip is not None else {}
    return ResolvedClientQuotas(user, client_id, ip, MappingProxyType(quotas), MappingProxyType(ip_quotas))


__all__ = [
    "CLIENT_ID",
    "CONNECTION_CREATION_RATE",
    "CONSUMER_BYTE_RATE",
    "CONTROLLER_MUTATION_RATE",
    "DEFAULT",
    "IP",
    "IP_KEYS",
    "PRODUCER_BYTE_RATE",
    "REQUEST_PERCENTAGE",
    "USER",
    "USER_CLIENT_KEYS",
    "ClientQuotaAlteration",
    "UnknownQuotaKeyError",
    "ClientQuotaEntity",
    "ClientQuotaFilter",
    "ClientQuotaFilterComponent",
    "MatchType",
    "QuotaOp",
    "Remove",
    "ResolvedClientQuotas",
    "ResolvedQuota",
    "Set",
    "ip_precedence",
    "precedence",
    "precedence_levels",
    "resolve_client_quotas",
    "resolve_filters",
    "resolve_from",
    "validate_alterations",
]
