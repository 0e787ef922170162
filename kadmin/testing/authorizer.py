"""The fake cluster's authorizer and SCRAM credential store: what a secured Kafka cluster keeps and checks.

Why the fake has its own copy of the matching rules rather than kadmin's (:mod:`kadmin.acls`): the fake is
how kadmin's ACL code gets checked, so a misreading of Kafka's rules must not hide on both sides.  Codes are
plain ints here, as on the wire.

The rules are those of Kafka's ``AclAuthorizer`` / ``StandardAuthorizer``:

* a binding applies to a resource when it is LITERAL with the resource's name, LITERAL ``*`` (every name of
  the type), or PREFIXED with a prefix of the name;
* it applies to a request when its principal is the request's or ``User:*``, its host the client's or ``*``,
  and its operation the one asked for or ALL; an ALLOW of READ, WRITE, DELETE or ALTER also allows DESCRIBE,
  an ALLOW of ALTER_CONFIGS also allows DESCRIBE_CONFIGS;
* a matching DENY wins over any ALLOW; super users are allowed everything; and a resource without any
  binding at all is denied unless ``allow_everyone_if_no_acl_found`` (Kafka's default: false).

How a handler uses it (one line per check, and the same for new handlers)::

    if not ctx.authorize(GROUP, group_id, DESCRIBE):
        ...answer GROUP_AUTHORIZATION_FAILED for that group...
    ops = ctx.authorized_operations(GROUP, group_id)   # KIP-430 bit field

``ctx.authorize`` is always True on a cluster without an authorizer, as on a Kafka cluster without
``authorizer.class.name``; ``ctx.principal`` is ``User:<SASL user>`` or ``User:ANONYMOUS``.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

# Resource types, pattern types, operations and permissions (Kafka's codes).
ANY = 1
TOPIC, GROUP, CLUSTER, TRANSACTIONAL_ID, DELEGATION_TOKEN, USER = 2, 3, 4, 5, 6, 7
MATCH, LITERAL, PREFIXED = 2, 3, 4
ALL, READ, WRITE, CREATE, DELETE, ALTER, DESCRIBE = 2, 3, 4, 5, 6, 7, 8
CLUSTER_ACTION, DESCRIBE_CONFIGS, ALTER_CONFIGS = 9, 10, 11
IDEMPOTENT_WRITE, CREATE_TOKENS, DESCRIBE_TOKENS = 12, 13, 14
DENY, ALLOW = 2, 3

CLUSTER_NAME = "kafka-cluster"
WILDCARD = "*"
WILDCARD_PRINCIPAL = "User:*"
ANONYMOUS = "User:ANONYMOUS"

RESOURCE_TYPES = frozenset({TOPIC, GROUP, CLUSTER, TRANSACTIONAL_ID, DELEGATION_TOKEN, USER})
OPERATIONS = frozenset(range(ALL, DESCRIBE_TOKENS + 1))

#: The operations KIP-430's "authorized operations" reports per resource type (``AclEntry.supportedOperations``).
SUPPORTED_OPERATIONS: Mapping[int, tuple[int, ...]] = {
    TOPIC: (READ, WRITE, CREATE, DESCRIBE, DELETE, ALTER, DESCRIBE_CONFIGS, ALTER_CONFIGS),
    GROUP: (READ, DESCRIBE, DELETE),
    CLUSTER: (CREATE, CLUSTER_ACTION, DESCRIBE_CONFIGS, ALTER_CONFIGS, IDEMPOTENT_WRITE, ALTER, DESCRIBE),
    TRANSACTIONAL_ID: (DESCRIBE, WRITE),
    DELEGATION_TOKEN: (DESCRIBE,),
    USER: (CREATE_TOKENS, DESCRIBE_TOKENS),
}

# An ALLOW of any of these also allows the key (AclAuthorizer: READ/WRITE/DELETE/ALTER imply DESCRIBE).
_IMPLIED_BY: Mapping[int, frozenset[int]] = {
    DESCRIBE: frozenset({DESCRIBE, READ, WRITE, DELETE, ALTER}),
    DESCRIBE_CONFIGS: frozenset({DESCRIBE_CONFIGS, ALTER_CONFIGS}),
}

#: (resource type, name, pattern type): a stored resource pattern.
Pattern = tuple[int, str, int]
#: (principal, host, operation, permission): a stored entry.
Entry = tuple[str, str, int, int]
#: A stored binding.
Binding = tuple[Pattern, Entry]


@dataclass(frozen=True)
class BindingFilter:
    """A DescribeAcls/DeleteAcls filter as the wire carries it (None = any name/principal/host)."""

    resource_type: int = ANY
    name: str | None = None
    pattern_type: int = ANY
    principal: str | None = None
    host: str | None = None
    operation: int = ANY
    permission: int = ANY

    def matches(self, binding: Binding) -> bool:
        (rtype, name, ptype), (principal, host, op, perm) = binding
        if self.resource_type != ANY and self.resource_type != rtype:
            return False
        if self.pattern_type not in (ANY, MATCH) and self.pattern_type != ptype:
            return False
        if self.name is not None:
            if self.pattern_type == MATCH:
                ok = name in (self.name, WILDCARD) if ptype == LITERAL else self.name.startswith(name)
                if not ok:
                    return False
            elif self.name != name:
                return False
        return ((self.principal is None or self.principal == principal) and (self.host is None or self.host == host)
                and (self.operation == ANY or self.operation == op)
                and (self.permission == ANY or self.permission == perm))


class Authorizer:
    """ACL storage and the authorize decision.  Used under the cluster's lock."""

    def __init__(self, super_users: Iterable[str] = (), allow_everyone_if_no_acl_found: bool = False) -> None:
        self.super_users = frozenset(super_users)
        self.allow_everyone_if_no_acl_found = bool(allow_everyone_if_no_acl_found)
        # Bindings per resource type, then per (name, pattern type): the lookups authorize() makes.
        self._acls: dict[int, dict[tuple[str, int], set[Entry]]] = {}

    # --- storage
    def add(self, binding: Binding) -> None:
        (rtype, name, ptype), entry = binding
        self._acls.setdefault(rtype, {}).setdefault((name, ptype), set()).add(entry)

    def bindings(self) -> list[Binding]:
        return sorted(((rt, n, pt), e) for rt, by in self._acls.items() for (n, pt), es in by.items() for e in es)

    def matching(self, flt: BindingFilter) -> list[Binding]:
        return [b for b in self.bindings() if flt.matches(b)]

    def remove(self, binding: Binding) -> bool:
        (rtype, name, ptype), entry = binding
        entries = self._acls.get(rtype, {}).get((name, ptype))
        if entries is None or entry not in entries:
            return False
        entries.discard(entry)
        if not entries:
            del self._acls[rtype][(name, ptype)]
        return True

    def clear(self) -> None:
        self._acls.clear()

    # --- decisions
    def _applicable(self, rtype: int, name: str) -> list[Entry]:
        by = self._acls.get(rtype)
        if not by:
            return []
        out: list[Entry] = []
        for key in ((name, LITERAL), (WILDCARD, LITERAL)):
            out.extend(by.get(key, ()))
        for (pname, ptype), entries in by.items():
            if ptype == PREFIXED and name.startswith(pname):
                out.extend(entries)
        return out

    def authorize(self, principal: str, host: str, rtype: int, name: str, op: int) -> bool:
        if principal in self.super_users:
            return True
        entries = self._applicable(rtype, name)
        if not entries:
            return self.allow_everyone_if_no_acl_found
        mine = [e for e in entries if e[0] in (principal, WILDCARD_PRINCIPAL) and e[1] in (host, WILDCARD)]
        if any(perm == DENY and eop in (op, ALL) for _p, _h, eop, perm in mine):
            return False
        allowed_by = _IMPLIED_BY.get(op, frozenset({op}))
        return any(perm == ALLOW and (eop == ALL or eop in allowed_by) for _p, _h, eop, perm in mine)

    def authorized_operations(self, principal: str, host: str, rtype: int, name: str) -> int:
        bits = 0
        for op in SUPPORTED_OPERATIONS.get(rtype, ()):
            if self.authorize(principal, host, rtype, name, op):
                bits |= 1 << op
        return bits


def all_operations(rtype: int) -> int:
    """KIP-430 bits of everything a resource type supports (what a cluster without an authorizer reports)."""
    return sum(1 << op for op in SUPPORTED_OPERATIONS.get(rtype, ()))


# --- SCRAM credentials -----------------------------------------------------------------------------------

SCRAM_SHA_256, SCRAM_SHA_512 = 1, 2
SCRAM_MECHANISMS: Mapping[int, tuple[str, str]] = {SCRAM_SHA_256: ("SCRAM-SHA-256", "sha256"),
                                                   SCRAM_SHA_512: ("SCRAM-SHA-512", "sha512")}
MECHANISM_CODES: Mapping[str, int] = {name: code for code, (name, _h) in SCRAM_MECHANISMS.items()}
MIN_ITERATIONS, MAX_ITERATIONS = 4096, 16384


@dataclass(frozen=True)
class ScramCredential:
    """What a broker keeps of a SCRAM password (RFC 5802): never the password or the salted password."""

    salt: bytes
    stored_key: bytes
    server_key: bytes
    iterations: int

    @classmethod
    def from_salted(cls, mechanism: int, salt: bytes, salted: bytes, iterations: int) -> ScramCredential:
        h = SCRAM_MECHANISMS[mechanism][1]
        client_key = hmac.new(salted, b"Client Key", h).digest()
        return cls(salt, hashlib.new(h, client_key).digest(), hmac.new(salted, b"Server Key", h).digest(),
                   iterations)

    @classmethod
    def from_password(cls, mechanism: int, password: str, iterations: int = MIN_ITERATIONS) -> ScramCredential:
        salt = os.urandom(16)
        salted = hashlib.pbkdf2_hmac(SCRAM_MECHANISMS[mechanism][1], password.encode(), salt, iterations)
        return cls.from_salted(mechanism, salt, salted, iterations)


class ScramStore:
    """{(user, mechanism code): credential}.  Reads happen during SASL handshakes, writes under the lock."""

    def __init__(self) -> None:
        self.credentials: dict[tuple[str, int], ScramCredential] = {}

    def get(self, user: str, mechanism_name: str) -> ScramCredential | None:
        code = MECHANISM_CODES.get(mechanism_name)
        return None if code is None else self.credentials.get((user, code))

    def users(self) -> dict[str, dict[int, ScramCredential]]:
        out: dict[str, dict[int, ScramCredential]] = {}
        for (user, mech), cred in sorted(self.credentials.items()):
            out.setdefault(user, {})[mech] = cred
        return out
