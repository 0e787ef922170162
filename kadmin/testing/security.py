"""The security half of FakeCluster's test API: its authorizer's ACLs and its SCRAM users.

A mixin so that :mod:`kadmin.testing.cluster` stays about brokers and topology.  What the methods change is
exactly what the brokers' handlers read: an ACL added here is enforced on the next request, a SCRAM password
set here is the one the next SASL/SCRAM login is checked against (and the one DescribeUserScramCredentials
lists), whether it was set by a test or through AlterUserScramCredentials.

Names (``"topic"``, ``"read"``, ``"prefixed"``, ``"SCRAM-SHA-512"``) or Kafka's codes are both accepted.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any, NamedTuple

from kadmin.testing import authorizer as az
from kadmin.testing.authorizer import Authorizer, ScramCredential, ScramStore
from kadmin.testing.tokens import TokenStore

_RESOURCE_TYPES = {"topic": az.TOPIC, "group": az.GROUP, "cluster": az.CLUSTER, "transactional_id": az.TRANSACTIONAL_ID,
                   "delegation_token": az.DELEGATION_TOKEN, "user": az.USER}
_PATTERN_TYPES = {"literal": az.LITERAL, "prefixed": az.PREFIXED}
_OPERATIONS = {"all": az.ALL, "read": az.READ, "write": az.WRITE, "create": az.CREATE, "delete": az.DELETE,
               "alter": az.ALTER, "describe": az.DESCRIBE, "cluster_action": az.CLUSTER_ACTION,
               "describe_configs": az.DESCRIBE_CONFIGS, "alter_configs": az.ALTER_CONFIGS,
               "idempotent_write": az.IDEMPOTENT_WRITE, "create_tokens": az.CREATE_TOKENS,
               "describe_tokens": az.DESCRIBE_TOKENS}
_PERMISSIONS = {"allow": az.ALLOW, "deny": az.DENY}


def _code(value: int | str, table: Mapping[str, int], what: str) -> int:
    if isinstance(value, int):
        if value not in table.values():
            raise ValueError(f"unknown {what} code {value}")
        return value
    key = value.strip().lower().replace("-", "_")
    if key not in table:
        raise ValueError(f"unknown {what} {value!r}; one of {sorted(table)}")
    return table[key]


def _names(table: Mapping[str, int]) -> dict[int, str]:
    return {v: k.upper() for k, v in table.items()}


class Acl(NamedTuple):
    """One stored binding, with Kafka's names."""

    resource_type: str
    name: str
    pattern_type: str
    principal: str
    host: str
    operation: str
    permission: str


def authorizer_from(spec: bool | Mapping[str, Any] | None) -> Authorizer | None:
    """``True``: an authorizer with no super users; a mapping: ``super_users``, ``allow_everyone_if_no_acl_found``."""
    if spec is None or spec is False:
        return None
    if spec is True:
        return Authorizer()
    unknown = set(spec) - {"super_users", "allow_everyone_if_no_acl_found"}
    if unknown:
        raise ValueError(f"unknown authorizer setting(s) {sorted(unknown)}")
    supers = spec.get("super_users", ())
    if isinstance(supers, str):
        supers = [s for s in supers.split(";") if s]  # Kafka's super.users syntax
    for s in supers:
        if ":" not in s:
            raise ValueError(f"super user {s!r} is not a principal of the form Type:name")
    return Authorizer(supers, bool(spec.get("allow_everyone_if_no_acl_found", False)))


class SecurityAdmin:
    """ACLs and SCRAM credentials of a FakeCluster (mixed into it)."""

    _lock: threading.RLock
    _authorizer: Authorizer | None
    _scram: ScramStore
    _tokens: TokenStore | None

    @property
    def has_authorizer(self) -> bool:
        return self._authorizer is not None

    def _require_authorizer(self) -> Authorizer:
        if self._authorizer is None:
            raise RuntimeError("this FakeCluster has no authorizer: create it with authorizer=True or "
                               "authorizer={'super_users': [...]}")
        return self._authorizer

    def add_acl(self, resource_type: int | str, name: str, principal: str, operation: int | str,
                permission: int | str = "allow", *, pattern_type: int | str = "literal", host: str = "*") -> None:
        """Store one binding directly, as if CreateAcls had (no validation beyond the codes)."""
        pattern = (_code(resource_type, _RESOURCE_TYPES, "resource type"), name,
                   _code(pattern_type, _PATTERN_TYPES, "pattern type"))
        entry = (principal, host, _code(operation, _OPERATIONS, "operation"),
                 _code(permission, _PERMISSIONS, "permission"))
        with self._lock:
            self._require_authorizer().add((pattern, entry))

    @property
    def acls(self) -> list[Acl]:
        """Every stored binding, sorted, with Kafka's names."""
        rt, pt, op, perm = (_names(t) for t in (_RESOURCE_TYPES, _PATTERN_TYPES, _OPERATIONS, _PERMISSIONS))
        with self._lock:
            stored = self._require_authorizer().bindings()
        return [Acl(rt[r], n, pt[p], who, host, op[o], perm[pm]) for (r, n, p), (who, host, o, pm) in stored]

    def clear_acls(self) -> None:
        with self._lock:
            self._require_authorizer().clear()

    def authorize(self, principal: str, resource_type: int | str, name: str, operation: int | str,
                  host: str = "127.0.0.1") -> bool:
        """The fake authorizer's decision, for tests that check the rules themselves."""
        with self._lock:
            return self._require_authorizer().authorize(
                principal, host, _code(resource_type, _RESOURCE_TYPES, "resource type"), name,
                _code(operation, _OPERATIONS, "operation"))

    # --- SCRAM

    def set_scram_password(self, user: str, password: str, mechanism: str = "SCRAM-SHA-256",
                           iterations: int = az.MIN_ITERATIONS) -> None:
        """Create or replace a SCRAM credential (as ``kafka-configs --alter --add-config`` would)."""
        code = az.MECHANISM_CODES.get(mechanism.upper())
        if code is None:
            raise ValueError(f"unknown SCRAM mechanism {mechanism!r}; one of {sorted(az.MECHANISM_CODES)}")
        cred = ScramCredential.from_password(code, password, iterations)
        with self._lock:
            self._scram.credentials[(user, code)] = cred

    def delete_scram_credential(self, user: str, mechanism: str = "SCRAM-SHA-256") -> None:
        code = az.MECHANISM_CODES.get(mechanism.upper())
        with self._lock:
            self._scram.credentials.pop((user, code or 0), None)

    @property
    def delegation_tokens(self) -> dict[str, tuple[str, int]]:
        """{token id: (owner, expiry timestamp ms)} of every live delegation token (tokens must be enabled)."""
        with self._lock:
            if self._tokens is None:
                raise RuntimeError("this FakeCluster has no delegation tokens: create it with delegation_tokens=True")
            return {t.token_id: (t.owner, t.expires_ms) for t in self._tokens.tokens.values()}

    @property
    def scram_users(self) -> dict[str, dict[str, int]]:
        """{user: {mechanism name: iterations}} of every stored SCRAM credential."""
        with self._lock:
            users = self._scram.users()
        return {u: {az.SCRAM_MECHANISMS[m][0]: c.iterations for m, c in creds.items()} for u, creds in users.items()}
