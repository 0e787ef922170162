"""ACLs (KIP-140, prefixed patterns KIP-290): resource patterns, access control entries, bindings and filters.

Pure: no sockets, no clocks.  The operations that send these live in :mod:`kadmin.admin.acls` and on the
``AdminClient`` classes (``describe_acls``, ``create_acls``, ``delete_acls``).

Why the enums carry Kafka's names and codes: the wire carries an int8 per field, Kafka's tools and docs use
the names (``TRANSACTIONAL_ID``, ``DESCRIBE_CONFIGS``), and a script should be able to write either.  Strings
are accepted wherever an enum is (``"read"``, ``"Read"``, ``"describe-configs"``) and turned into the enum at
construction, so a typo fails where it was written, not as a broker error after a round trip.

Why validation happens here, before anything is sent.  A broker answers a bad binding with a per-binding
INVALID_REQUEST, or (worse) stores an ACL that can never match.  The rules below are the ones Kafka's
brokers enforce (``AclApis.handleCreateAcls``, ``AclControlManager.validateNewAcl``, the request classes'
``validate``), checked on the client:

* a binding (what ``create_acls`` stores) names a concrete resource type (not ANY/UNKNOWN), a LITERAL or
  PREFIXED pattern (MATCH and ANY only make sense in filters), a concrete operation and permission, a
  principal of the form ``Type:name`` (``User:alice``, ``User:*``), a non-empty host (``*`` = any host) and a
  non-empty resource name; a CLUSTER resource is always named ``kafka-cluster``;
* a filter (what ``describe_acls``/``delete_acls`` match with) may leave any part open (None / ANY) and use
  the MATCH pattern type, but never UNKNOWN, and a principal it names must still be ``Type:name``.

Whether a given node can carry a binding (PREFIXED needs DescribeAcls/CreateAcls/DeleteAcls v1, Kafka 2.0;
USER resources need v3, Kafka 2.8) is decided per node in :mod:`kadmin.admin.acls`, because it depends on
the version negotiated with that node.
"""

from __future__ import annotations

import enum
import functools
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final, TypeVar

from kadmin.errors import KafkaError

#: The only name a CLUSTER resource has (Kafka's ``CLUSTER_NAME``).
CLUSTER_NAME: Final = "kafka-cluster"
#: The resource name and principal that match every name / every principal of a type in a binding.
WILDCARD: Final = "*"
#: The principal Kafka gives unauthenticated (PLAINTEXT) connections.
ANONYMOUS: Final = "User:ANONYMOUS"

E = TypeVar("E", bound="_Named")

#: How the frozen dataclasses below set their fields.
_set = object.__setattr__


class _Named(enum.IntEnum):
    """An IntEnum parsed from its name case-insensitively, with ``-``, ``_`` and spaces alike."""

    @classmethod
    def parse(cls: type[E], value: object, what: str | None = None) -> E:
        """The member for ``value``: a member, its name (any case, ``-``/``_``/space/none between words)."""
        if isinstance(value, cls):
            return value
        if isinstance(value, str):
            # Names are looked up in a table made once per class: bindings are built by the ten thousand.
            found = _names_of(cls).get(value) or _names_of(cls).get(re.sub(r"[-_\s]", "", value).upper())
            if found is not None:
                return found  # type: ignore[return-value]
        label = what or cls._label()
        if isinstance(value, bool) or not isinstance(value, str):
            raise TypeError(f"{label} must be a {cls.__name__} or its name, not {value!r}")
        names = ", ".join(m.name for m in cls if m.name != "UNKNOWN")
        raise ValueError(f"unknown {label} {value!r}; one of {names}")

    @classmethod
    def from_code(cls: type[E], code: int) -> E:
        """The member for a code a broker sent; a code this kadmin does not know is UNKNOWN (0)."""
        try:
            return cls(code)
        except ValueError:
            return cls(0)

    @classmethod
    def _label(cls) -> str:
        return re.sub(r"(?<!^)(?=[A-Z])", " ", cls.__name__).lower()

    def __str__(self) -> str:
        return self.name


@functools.cache
def _names_of(cls: type[_Named]) -> dict[str, _Named]:
    """{spelling: member} for the exact name, its lower case, and the separator-free upper case."""
    table: dict[str, _Named] = {}
    for m in cls:
        for spelling in (m.name, m.name.lower(), m.name.replace("_", "")):
            table[spelling] = m
    return table


def _member(cls: type[E], names: Mapping[str, _Named], value: object, what: str | None = None) -> E:
    """``cls.parse`` with its usual cases first: a member, or a name as written in Kafka's docs or in lower
    case (one dict lookup).  Anything else, errors included, goes through ``parse``."""
    if value.__class__ is cls:
        return value
    if value.__class__ is str:
        found = names.get(value)
        if found is not None:
            return found  # type: ignore[return-value]
    return cls.parse(value, what)


class ResourceType(_Named):
    """What an ACL protects (Kafka's ``ResourceType``)."""

    UNKNOWN = 0
    ANY = 1
    TOPIC = 2
    GROUP = 3
    CLUSTER = 4
    TRANSACTIONAL_ID = 5
    DELEGATION_TOKEN = 6
    USER = 7


class PatternType(_Named):
    """How a binding's resource name matches (Kafka's ``PatternType``).

    LITERAL: that name (``*`` = every name); PREFIXED: every name starting with it.  In filters, ANY matches
    bindings of any pattern type, and MATCH matches the bindings that would apply to the named resource
    (its literal binding, the wildcard, and every prefix of its name)."""

    UNKNOWN = 0
    ANY = 1
    MATCH = 2
    LITERAL = 3
    PREFIXED = 4


class AclOperation(_Named):
    """What a principal may do (Kafka's ``AclOperation``; the bits of "authorized operations")."""

    UNKNOWN = 0
    ANY = 1
    ALL = 2
    READ = 3
    WRITE = 4
    CREATE = 5
    DELETE = 6
    ALTER = 7
    DESCRIBE = 8
    CLUSTER_ACTION = 9
    DESCRIBE_CONFIGS = 10
    ALTER_CONFIGS = 11
    IDEMPOTENT_WRITE = 12
    CREATE_TOKENS = 13
    DESCRIBE_TOKENS = 14


class AclPermissionType(_Named):
    """Allow or deny (Kafka's ``AclPermissionType``); a matching DENY always wins over an ALLOW."""

    UNKNOWN = 0
    ANY = 1
    DENY = 2
    ALLOW = 3


# Spelling tables of the enums that bindings are built from (bindings are built by the ten thousand).
_RESOURCE_TYPES: Final = _names_of(ResourceType)
_PATTERN_TYPES: Final = _names_of(PatternType)
_OPERATIONS: Final = _names_of(AclOperation)
_PERMISSIONS: Final = _names_of(AclPermissionType)

#: What each resource type can be granted, as kafka-acls.sh checks it (``AclCommand.ResourceTypeToValidOperations``),
#: ALL included.  The brokers store any operation; an ACL outside this table is valid but never consulted.
VALID_OPERATIONS: Final[Mapping[ResourceType, frozenset[AclOperation]]] = {
    ResourceType.TOPIC: frozenset({AclOperation.READ, AclOperation.WRITE, AclOperation.CREATE, AclOperation.DESCRIBE,
                                   AclOperation.DELETE, AclOperation.ALTER, AclOperation.DESCRIBE_CONFIGS,
                                   AclOperation.ALTER_CONFIGS, AclOperation.ALL}),
    ResourceType.GROUP: frozenset({AclOperation.READ, AclOperation.DESCRIBE, AclOperation.DELETE, AclOperation.ALL}),
    ResourceType.CLUSTER: frozenset({AclOperation.CREATE, AclOperation.CLUSTER_ACTION, AclOperation.DESCRIBE_CONFIGS,
                                     AclOperation.ALTER_CONFIGS, AclOperation.IDEMPOTENT_WRITE, AclOperation.ALTER,
                                     AclOperation.DESCRIBE, AclOperation.ALL}),
    ResourceType.TRANSACTIONAL_ID: frozenset({AclOperation.DESCRIBE, AclOperation.WRITE, AclOperation.ALL}),
    ResourceType.DELEGATION_TOKEN: frozenset({AclOperation.DESCRIBE, AclOperation.ALL}),
    ResourceType.USER: frozenset({AclOperation.CREATE_TOKENS, AclOperation.DESCRIBE_TOKENS, AclOperation.ALL}),
}


def operations_from_bits(bits: int) -> frozenset[AclOperation]:
    """The operations set in an "authorized operations" bit field (bit n = operation code n).

    Kafka sends INT32_MIN when the operations were not asked for; that (and any negative value) is empty."""
    if bits < 0:
        return frozenset()
    return frozenset(op for op in AclOperation if op >= AclOperation.READ and bits & (1 << op))


# --- checks --------------------------------------------------------------------------------------------------


def _str(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a string, not {value!r}")
    return value


def check_principal(principal: object, what: str = "principal") -> str:
    """``Type:name`` (``User:alice``, ``User:*``, ``Group:ops``): Kafka refuses a principal without a type."""
    p = _str(principal, what)
    kind, sep, name = p.partition(":")
    if not sep or not kind or not name:
        raise ValueError(f"{what} {p!r} is not of the form Type:name (e.g. 'User:alice' or 'User:*')")
    return p


def _check_host(host: object, what: str) -> str:
    h = _str(host, what)
    if not h:
        raise ValueError(f"{what} is empty; use '*' for any host")
    return h


# --- bindings ------------------------------------------------------------------------------------------------


@dataclass(frozen=True, init=False)
class ResourcePattern:
    """The resource side of a binding: ``ResourcePattern("topic", "orders-", "prefixed")``."""

    resource_type: ResourceType
    name: str
    pattern_type: PatternType = PatternType.LITERAL

    def __init__(self, resource_type: ResourceType | str, name: str,
                 pattern_type: PatternType | str = PatternType.LITERAL) -> None:
        # _member's first cases inline (a name for the type, the default member for the pattern type): one
        # ResourcePattern per binding, and a call per field is a third of the constructor.
        rt = _RESOURCE_TYPES.get(resource_type) if resource_type.__class__ is str else None
        if rt is None:
            rt = _member(ResourceType, _RESOURCE_TYPES, resource_type)
        pt = pattern_type if pattern_type.__class__ is PatternType else _member(PatternType, _PATTERN_TYPES,
                                                                                 pattern_type)
        n = name if name.__class__ is str else _str(name, "resource name")
        # Codes compared as ints (UNKNOWN 0 and ANY 1 lead every enum; MATCH is 2): bindings come by the ten
        # thousand, and an enum attribute lookup per check costs more than the rest of the constructor.
        if rt <= 1:
            raise ValueError(f"a binding needs a concrete resource type, not {rt.name} (ANY is for filters)")
        if pt < 3:
            raise ValueError(f"a binding's pattern type is LITERAL or PREFIXED, not {pt.name} "
                             "(MATCH and ANY are for filters)")
        if not n:
            raise ValueError(f"the {rt.name} resource name is empty")
        if rt == 4 and n != CLUSTER_NAME:  # CLUSTER
            raise ValueError(f"the only valid name for the CLUSTER resource is {CLUSTER_NAME!r}, not {n!r}")
        # Frozen: object's own setattr.  Never through self.__dict__, which would make each instance carry a dict
        # object of its own (one more object for the garbage collector per binding, 10,000 at a time).
        _set(self, "resource_type", rt)
        _set(self, "name", n)
        _set(self, "pattern_type", pt)

    @classmethod
    def _reported(cls, resource_type: int, name: str, pattern_type: int) -> ResourcePattern:
        """A pattern a broker reported, made without ``__init__``'s checks; for :func:`binding_from_wire` only.

        Why: ``__init__`` refuses what a caller must not send (ANY or UNKNOWN codes, an empty name), and a
        broker's answer may hold exactly that (a newer broker's codes become UNKNOWN; an ACL another tool
        stored): what a broker stores is a fact to report, not input to refuse.  Every field is set here, from
        the broker's codes; never call it with a caller's values (tests/admin/test_acls.py checks its one caller)."""
        pattern = object.__new__(cls)
        _set(pattern, "resource_type", ResourceType.from_code(resource_type))
        _set(pattern, "name", name)
        _set(pattern, "pattern_type", PatternType.from_code(pattern_type))
        return pattern

    @classmethod
    def cluster(cls) -> ResourcePattern:
        return cls(ResourceType.CLUSTER, CLUSTER_NAME)

    def to_filter(self) -> ResourcePatternFilter:
        return ResourcePatternFilter(self.resource_type, self.name, self.pattern_type)

    def __str__(self) -> str:
        return f"{self.resource_type.name}:{self.pattern_type.name}:{self.name}"


@dataclass(frozen=True, init=False)
class AccessControlEntry:
    """The who/what side of a binding: ``AccessControlEntry("User:alice", "read", "allow", host="*")``."""

    principal: str
    operation: AclOperation
    permission: AclPermissionType
    host: str = WILDCARD

    def __init__(self, principal: str, operation: AclOperation | str, permission: AclPermissionType | str,
                 host: str = WILDCARD) -> None:
        p = check_principal(principal)
        op = _member(AclOperation, _OPERATIONS, operation)
        perm = _member(AclPermissionType, _PERMISSIONS, permission, "permission")
        if op <= 1:
            raise ValueError(f"a binding needs a concrete operation, not {op.name} (ANY is for filters)")
        if perm <= 1:
            raise ValueError(f"a binding's permission is ALLOW or DENY, not {perm.name}")
        _set(self, "principal", p)
        _set(self, "operation", op)
        _set(self, "permission", perm)
        _set(self, "host", _check_host(host, "host"))

    @classmethod
    def _reported(cls, principal: str, host: str, operation: int, permission: int) -> AccessControlEntry:
        """An entry a broker reported, made without ``__init__``'s checks (why: ResourcePattern._reported);
        for :func:`binding_from_wire` only."""
        entry = object.__new__(cls)
        _set(entry, "principal", principal)
        _set(entry, "host", host)
        _set(entry, "operation", AclOperation.from_code(operation))
        _set(entry, "permission", AclPermissionType.from_code(permission))
        return entry

    def to_filter(self) -> AccessControlEntryFilter:
        return AccessControlEntryFilter(self.principal, self.host, self.operation, self.permission)

    def __str__(self) -> str:
        return f"{self.permission.name} {self.principal} {self.operation.name} from {self.host}"


def _pair_state(obj: Any) -> dict[str, object]:
    """A binding's or filter's pickled state: its two parts, never its cached hash (str hashes differ between
    processes, a Spark executor's say, so the hash is computed again on unpickling)."""
    return {"pattern": obj.pattern, "entry": obj.entry}


def _set_pair_state(obj: Any, state: dict[str, object]) -> None:
    for k in ("pattern", "entry"):
        _set(obj, k, state[k])


@dataclass(frozen=True)
class AclBinding:
    """One ACL: a resource pattern and an entry.  What ``create_acls`` stores and ``describe_acls`` returns."""

    pattern: ResourcePattern
    entry: AccessControlEntry

    def __post_init__(self) -> None:
        if not isinstance(self.pattern, ResourcePattern):
            raise TypeError(f"AclBinding.pattern must be a ResourcePattern, not {self.pattern!r}")
        if not isinstance(self.entry, AccessControlEntry):
            raise TypeError(f"AclBinding.entry must be an AccessControlEntry, not {self.entry!r}")
        _set(self, "_hash", _binding_hash(self.pattern, self.entry))

    # Hashed once: bindings are the keys of every call's per-key results (10,000 at a time), and the driver's
    # dicts hash each key several times.  Read as an attribute: cheaper than through ``__dict__``.
    _hash: ClassVar[int]

    def __hash__(self) -> int:
        return self._hash

    def __getstate__(self) -> dict[str, object]:
        return _pair_state(self)

    def __setstate__(self, state: dict[str, object]) -> None:
        _set_pair_state(self, state)
        _set(self, "_hash", _binding_hash(self.pattern, self.entry))

    @classmethod
    def of(cls, resource_type: ResourceType | str, name: str, principal: str, operation: AclOperation | str,
           permission: AclPermissionType | str = AclPermissionType.ALLOW, *,
           pattern_type: PatternType | str = PatternType.LITERAL, host: str = WILDCARD) -> AclBinding:
        """A binding in one call: ``AclBinding.of("group", "bob-", "User:bob", "read", pattern_type="prefixed")``."""
        try:
            entry = _shared_entry(principal, operation, permission, host)
        except TypeError:  # unhashable or mistyped input: the constructor says what is wrong with it
            entry = AccessControlEntry(principal, operation, permission, host)
        return cls(ResourcePattern(resource_type, name, pattern_type), entry)

    def to_filter(self) -> AclBindingFilter:
        """The filter that matches exactly this binding."""
        return AclBindingFilter(self.pattern.to_filter(), self.entry.to_filter())

    def sort_key(self) -> tuple[int, str, int, str, str, int, int]:
        p, e = self.pattern, self.entry
        return (p.resource_type, p.name, p.pattern_type, e.principal, e.host, e.operation, e.permission)

    def __str__(self) -> str:
        return f"{self.pattern}: {self.entry}"


def _binding_hash(p: ResourcePattern, e: AccessControlEntry) -> int:
    """One flat tuple of the seven fields (equal bindings have equal fields): no per-part __hash__ calls."""
    return hash((p.resource_type, p.name, p.pattern_type, e.principal, e.host, e.operation, e.permission))


@functools.lru_cache(maxsize=256)
def _shared_entry(principal: str, operation: AclOperation | str, permission: AclPermissionType | str,
                  host: str) -> AccessControlEntry:
    """Entries are immutable, and onboarding grants the same few (principal, operation) pairs on thousands of
    resources: one checked instance per distinct entry (-18% CPU building 10,000 bindings, bench.security)."""
    return AccessControlEntry(principal, operation, permission, host)


# --- filters -------------------------------------------------------------------------------------------------


@dataclass(frozen=True, init=False)
class ResourcePatternFilter:
    """Which resource patterns a filter matches; None / ANY leave a part open."""

    resource_type: ResourceType = ResourceType.ANY
    name: str | None = None
    pattern_type: PatternType = PatternType.ANY

    def __init__(self, resource_type: ResourceType | str = ResourceType.ANY, name: str | None = None,
                 pattern_type: PatternType | str = PatternType.ANY) -> None:
        rt = ResourceType.parse(resource_type)
        pt = PatternType.parse(pattern_type)
        if rt is ResourceType.UNKNOWN:
            raise ValueError("a filter's resource type may be ANY or a concrete type, not UNKNOWN")
        if pt is PatternType.UNKNOWN:
            raise ValueError("a filter's pattern type may be ANY, MATCH, LITERAL or PREFIXED, not UNKNOWN")
        if name is not None:
            _str(name, "resource name filter")
        object.__setattr__(self, "resource_type", rt)
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "pattern_type", pt)

    def matches(self, pattern: ResourcePattern) -> bool:
        """Kafka's ResourcePatternFilter.matches: does this filter select a stored pattern?"""
        if self.resource_type is not ResourceType.ANY and self.resource_type != pattern.resource_type:
            return False
        if self.pattern_type not in (PatternType.ANY, PatternType.MATCH) and self.pattern_type != pattern.pattern_type:
            return False
        if self.name is None:
            return True
        if self.pattern_type is not PatternType.MATCH:
            return self.name == pattern.name
        if pattern.pattern_type is PatternType.LITERAL:
            return pattern.name in (self.name, WILDCARD)
        return self.name.startswith(pattern.name)

    def __str__(self) -> str:
        return f"{self.resource_type.name}:{self.pattern_type.name}:{'*any*' if self.name is None else self.name}"


@dataclass(frozen=True, init=False)
class AccessControlEntryFilter:
    """Which entries a filter matches; None / ANY leave a part open."""

    principal: str | None = None
    host: str | None = None
    operation: AclOperation = AclOperation.ANY
    permission: AclPermissionType = AclPermissionType.ANY

    def __init__(self, principal: str | None = None, host: str | None = None,
                 operation: AclOperation | str = AclOperation.ANY,
                 permission: AclPermissionType | str = AclPermissionType.ANY) -> None:
        op = AclOperation.parse(operation)
        perm = AclPermissionType.parse(permission, "permission")
        if op is AclOperation.UNKNOWN:
            raise ValueError("a filter's operation may be ANY or a concrete operation, not UNKNOWN")
        if perm is AclPermissionType.UNKNOWN:
            raise ValueError("a filter's permission may be ANY, ALLOW or DENY, not UNKNOWN")
        object.__setattr__(self, "principal", None if principal is None else check_principal(principal))
        object.__setattr__(self, "host", None if host is None else _check_host(host, "host filter"))
        object.__setattr__(self, "operation", op)
        object.__setattr__(self, "permission", perm)

    def matches(self, entry: AccessControlEntry) -> bool:
        return ((self.principal is None or self.principal == entry.principal)
                and (self.host is None or self.host == entry.host)
                and (self.operation is AclOperation.ANY or self.operation == entry.operation)
                and (self.permission is AclPermissionType.ANY or self.permission == entry.permission))

    def __str__(self) -> str:
        who = self.principal or "*any principal*"
        return f"{self.permission.name} {who} {self.operation.name} from {self.host or '*any host*'}"


@dataclass(frozen=True)
class AclBindingFilter:
    """What ``describe_acls`` and ``delete_acls`` select: ``AclBindingFilter.all()`` or built from parts."""

    pattern: ResourcePatternFilter = ResourcePatternFilter()
    entry: AccessControlEntryFilter = AccessControlEntryFilter()

    def __post_init__(self) -> None:
        if not isinstance(self.pattern, ResourcePatternFilter):
            raise TypeError(f"AclBindingFilter.pattern must be a ResourcePatternFilter, not {self.pattern!r}")
        if not isinstance(self.entry, AccessControlEntryFilter):
            raise TypeError(f"AclBindingFilter.entry must be an AccessControlEntryFilter, not {self.entry!r}")
        # Hashed once: bindings and filters are the keys of every call's per-key results (10,000 at a time).
        _set(self, "_hash", hash((self.pattern, self.entry)))

    _hash: ClassVar[int]

    def __hash__(self) -> int:
        return self._hash

    def __getstate__(self) -> dict[str, object]:
        return _pair_state(self)

    def __setstate__(self, state: dict[str, object]) -> None:
        _set_pair_state(self, state)
        _set(self, "_hash", hash((self.pattern, self.entry)))

    @classmethod
    def all(cls) -> AclBindingFilter:
        return cls()

    @classmethod
    def of(cls, resource_type: ResourceType | str = ResourceType.ANY, name: str | None = None,
           principal: str | None = None, operation: AclOperation | str = AclOperation.ANY,
           permission: AclPermissionType | str = AclPermissionType.ANY, *,
           pattern_type: PatternType | str = PatternType.ANY, host: str | None = None) -> AclBindingFilter:
        return cls(ResourcePatternFilter(resource_type, name, pattern_type),
                   AccessControlEntryFilter(principal, host, operation, permission))

    def matches(self, binding: AclBinding) -> bool:
        return self.pattern.matches(binding.pattern) and self.entry.matches(binding.entry)

    def __str__(self) -> str:
        return f"{self.pattern}: {self.entry}"


# --- results -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AclListing:
    """What ``describe_acls`` returns: the bindings, sorted, and the same folded per resource pattern."""

    bindings: tuple[AclBinding, ...]

    def __iter__(self) -> Iterator[AclBinding]:
        return iter(self.bindings)

    def __len__(self) -> int:
        return len(self.bindings)

    def __contains__(self, item: object) -> bool:
        return item in self.bindings

    def by_resource(self) -> dict[ResourcePattern, tuple[AccessControlEntry, ...]]:
        """{resource pattern: its entries}, "what may whom do where" at a glance."""
        out: dict[ResourcePattern, list[AccessControlEntry]] = {}
        for b in self.bindings:
            out.setdefault(b.pattern, []).append(b.entry)
        return {p: tuple(es) for p, es in out.items()}


@dataclass(frozen=True)
class AclDeletion:
    """One filter's outcome in ``delete_acls``: the bindings it deleted, and any it matched but could not."""

    deleted: tuple[AclBinding, ...]
    #: Bindings the filter matched whose deletion the broker refused, with its error (rare: Kafka deletes a
    #: filter's matches together).
    failed: Mapping[AclBinding, KafkaError] = field(default_factory=dict)


@dataclass(frozen=True)
class Identity:
    """Who this client is to the cluster, and what it may do on the cluster resource ("who am I").

    ``principal`` is what the brokers' authorizer sees for this client's configuration: ``User:<sasl user>``
    with SASL, ``User:ANONYMOUS`` on PLAINTEXT; None over TLS without SASL, where the certificate's subject
    (after the brokers' principal mapping rules) decides, and for a delegation-token login, which acts as the
    token's owner (a token channel may not describe tokens, so the owner cannot be asked for).
    ``cluster_operations`` comes from DescribeCluster (KIP-430): empty when the principal may not even describe
    the cluster, None from a broker before 2.8."""

    principal: str | None
    cluster_operations: frozenset[AclOperation] | None


def binding_from_wire(resource_type: int, name: str, pattern_type: int, principal: str, host: str,
                      operation: int, permission: int) -> AclBinding:
    """A binding as a broker described it (describe_acls, delete_acls), its parts made by their ``_reported``
    constructors: without the checks a caller's binding gets (see ResourcePattern._reported)."""
    return AclBinding(ResourcePattern._reported(resource_type, name, pattern_type),
                      AccessControlEntry._reported(principal, host, operation, permission))


def validate_bindings(bindings: Iterable[AclBinding]) -> list[AclBinding]:
    """The bindings as a list, each checked to be an AclBinding (a str or dict is a TypeError)."""
    if isinstance(bindings, (str, bytes, AclBinding)):
        raise TypeError("bindings must be a list of AclBinding")
    out = list(bindings)
    if not out:
        raise ValueError("bindings is empty")
    for b in out:
        if not isinstance(b, AclBinding):
            raise TypeError(f"expected AclBinding objects, got {b!r}")
    return out


def validate_filters(filters: Iterable[AclBindingFilter]) -> list[AclBindingFilter]:
    if isinstance(filters, (str, bytes, AclBindingFilter)):
        raise TypeError("filters must be a list of AclBindingFilter")
    out = list(filters)
    if not out:
        raise ValueError("filters is empty")
    for f in out:
        if not isinstance(f, AclBindingFilter):
            raise TypeError(f"expected AclBindingFilter objects, got {f!r}")
    return out
