"""A tenant spec: one DataFrame per entity kind, the scope deletions are confined to, and secret references.

Why one DataFrame per kind, not one wide table: a tenant has one user but many topics and many ACLs, and a
platform team keeps them in separate tables already (or files: see docs/provision.md).  Why the kinds are
optional: a spec that leaves a kind out leaves that kind on the cluster untouched, so a team that manages
only ACLs with kadmin never risks its topics.

Kinds and their columns (names are case-sensitive; optional columns may be left out):

* ``topics``: ``name``, ``partitions`` (int, optional), ``replication_factor`` (int, optional),
  ``configs`` (optional: a map<string,string>, a struct of strings, or JSON text ``{"k": "v"}``);
* ``topic_configs`` (long form): ``topic``, ``config``, ``value`` (a null value removes the topic's own
  value, so the broker's default applies again);
* ``acls``: ``principal`` (``User:alice``), ``host`` (default ``*``), ``operation``, ``permission``
  (default ``ALLOW``), ``resource_type``, ``resource_name``, ``pattern_type`` (default ``LITERAL``); names
  are Kafka's, any case, ``-`` or ``_``;
* ``scram_users``: ``user``, ``mechanism`` (default ``SCRAM-SHA-256``), ``iterations`` (default 4096),
  ``password_ref``: the *name* of a secret, resolved on the driver by the caller's ``secrets`` function at
  apply time.  A ``password`` column is refused: a secret in a DataFrame ends up in Spark's plans, caches,
  shuffle files and event logs, and from there in results and logs;
* ``quotas``: :mod:`kadmin.spark.kinds.quotas.schema`'s format (long or wide), as for ``provision_quotas``;
* ``groups_offsets`` (reset targets): ``group``, ``topic``, ``partition`` (int, optional: every partition),
  ``target`` (``earliest``, ``latest``, ``offset:N``, ``timestamp:MS`` or ``timestamp:<ISO-8601 with a
  zone>``); see :mod:`kadmin.spark.kinds.groups_offsets`.  Resets are never deletions;
* ``group_configs`` (long form): ``group``, ``config``, ``value`` (GROUP config resources, Kafka 4.0+; see
  :mod:`kadmin.spark.kinds.group_configs`);
* ``broker_configs`` (long form): ``broker`` (an id, or ``default`` for the cluster-wide default), ``config``,
  ``value``: dynamic broker configs (see :mod:`kadmin.spark.kinds.broker_configs`);
* ``acl_roles``: ``principal``, ``role`` (``producer`` / ``consumer``), ``topic``, ``pattern_type``, ``group``,
  ``transactional_id``, ``idempotent``, ``host``: the bindings kafka-acls.sh's ``--producer`` / ``--consumer``
  make; see :mod:`kadmin.spark.kinds.acl_roles`;
* ``share_groups_offsets``: ``group``, ``topic``, ``partition``, ``target``, as ``groups_offsets`` but for a
  share group's start offsets; see :mod:`kadmin.spark.kinds.share_groups_offsets`.

**Scope** (:class:`Scope`) says where deletions may happen: topic-name prefixes (topics and their configs),
principal prefixes (ACLs by principal, SCRAM users and user quotas as ``User:<name>``), group-id prefixes (group
configs), and the kinds that may lose entities (broker configs only when named there).  Nothing is ever
deleted without ``remove_unlisted=True`` *and* a scope; an entity outside the scope is never read for
deletion, so it cannot be touched.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pyspark.sql import DataFrame
from pyspark.sql.types import (
    DataType,
    IntegralType,
    MapType,
    NullType,
    StringType,
    StructType,
)

from kadmin.spark.columns import COLUMNS, INT_COLUMNS, KINDS, column_problem

#: A function from a secret's name (``password_ref``) to the secret, called on the driver only.
SecretResolver = Callable[[str], str]


class SpecError(ValueError):
    """A spec's shape is wrong (a missing column, a column of the wrong type, a secret in clear): raised
    before any Spark job runs and before anything is read from or sent to the cluster."""


# --- scope ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Scope:
    """Where ``remove_unlisted`` may delete.  Empty prefixes tuples match nothing; ``("",)`` matches
    everything, and must be written out, never implied."""

    topics: tuple[str, ...] = ()
    principals: tuple[str, ...] = ()
    kinds: tuple[str, ...] | None = None  # None: every kind the spec holds
    #: Group-id prefixes (group configs); after ``kinds`` so that positional construction keeps working.
    groups: tuple[str, ...] = ()

    def allows(self, kind: str) -> bool:
        return self.kinds is None or kind in self.kinds

    def topic_in_scope(self, name: str) -> bool:
        return any(name.startswith(p) for p in self.topics)

    def principal_in_scope(self, principal: str) -> bool:
        return any(principal.startswith(p) for p in self.principals)

    def group_in_scope(self, group: str) -> bool:
        return any(group.startswith(p) for p in self.groups)

    def __str__(self) -> str:
        parts = [f"topics={p!r}" for p in self.topics] + [f"principals={p!r}" for p in self.principals]
        parts += [f"groups={p!r}" for p in self.groups]
        if self.kinds is not None:
            parts.append("kinds=" + ",".join(self.kinds))
        return " ".join(parts) or "(nothing)"


ScopeLike = Scope | Mapping[str, Any] | Iterable[str] | str | None

_SCOPE_FIELDS = {"topic": "topics", "topics": "topics", "principal": "principals", "principals": "principals",
                 "kind": "kinds", "kinds": "kinds", "group": "groups", "groups": "groups"}


def parse_scope(scope: ScopeLike) -> Scope | None:
    """A :class:`Scope` from itself, a mapping (``{"topics": [...], "principals": [...], "kinds": [...]}``)
    or strings ``topics=PREFIX``, ``principals=PREFIX``, ``groups=PREFIX``, ``kinds=acls,topics`` (what
    ``--scope`` takes)."""
    if scope is None or isinstance(scope, Scope):
        return scope
    found: dict[str, list[str]] = {"topics": [], "principals": [], "kinds": [], "groups": []}
    kinds_given = False
    if isinstance(scope, Mapping):
        items: list[tuple[str, Any]] = list(scope.items())
    else:
        if isinstance(scope, str):
            scope = [scope]
        items = []
        for text in scope:
            if not isinstance(text, str) or "=" not in text:
                raise SpecError(f"scope item {text!r} is not NAME=VALUE (topics=PREFIX, principals=PREFIX, "
                                "groups=PREFIX, kinds=KIND,...)")
            name, _, value = text.partition("=")
            items.append((name.strip(), value.split(",") if name.strip() in ("kind", "kinds") else [value]))
    for name, values in items:
        where = _SCOPE_FIELDS.get(name)
        if where is None:
            raise SpecError(f"unknown scope field {name!r} (topics, principals, groups or kinds)")
        if isinstance(values, str):
            values = [values]
        for v in values:
            if not isinstance(v, str):
                raise SpecError(f"scope {where} must be strings, not {v!r}")
            if where == "kinds":
                kinds_given = True
                v = v.strip()
                if v not in KINDS:
                    raise SpecError(f"scope names an unknown kind {v!r} (one of {', '.join(KINDS)})")
            found[where].append(v)
    return Scope(tuple(dict.fromkeys(found["topics"])), tuple(dict.fromkeys(found["principals"])),
                 tuple(dict.fromkeys(found["kinds"])) if kinds_given else None, tuple(dict.fromkeys(found["groups"])))


# --- secrets --------------------------------------------------------------------------------------------


def env_or_file_secrets(name: str) -> str:
    """The default resolver of the CLI and the examples: ``env:VAR`` reads an environment variable,
    ``file:PATH`` a file's first line; a bare name is an environment variable.  A secret that cannot be
    found raises KeyError naming the reference (never a value)."""
    kind, sep, ref = name.partition(":")
    if not sep:
        kind, ref = "env", name
    if kind == "env":
        value = os.environ.get(ref)
        if value is None:
            raise KeyError(f"environment variable {ref!r} is not set")
        return value
    if kind == "file":
        try:
            with open(ref, encoding="utf-8") as f:
                return f.readline().rstrip("\r\n")
        except OSError as exc:
            raise KeyError(f"secret file {ref!r}: {exc.strerror or exc}") from None
    raise KeyError(f"unknown secret reference kind {kind!r} in {name!r} (env:VAR or file:PATH)")


# --- the spec -------------------------------------------------------------------------------------------


@dataclass
class TenantSpec:
    """One DataFrame per kind (None: that kind is left alone) and the resolver for ``password_ref``."""

    topics: DataFrame | None = None
    topic_configs: DataFrame | None = None
    acls: DataFrame | None = None
    scram_users: DataFrame | None = None
    quotas: DataFrame | None = None
    secrets: SecretResolver | None = field(default=None, repr=False)
    #: Reset targets of consumer groups (see :mod:`kadmin.spark.kinds.groups_offsets`); after ``secrets`` so that
    #: positional construction keeps working.
    groups_offsets: DataFrame | None = None
    #: Group configs (:mod:`kadmin.spark.kinds.group_configs`) and broker / cluster-default configs
    #: (:mod:`kadmin.spark.kinds.broker_configs`).
    group_configs: DataFrame | None = None
    broker_configs: DataFrame | None = None
    #: Roles that expand to ACL bindings (:mod:`kadmin.spark.kinds.acl_roles`) and share groups' start offsets
    #: (:mod:`kadmin.spark.kinds.share_groups_offsets`).
    acl_roles: DataFrame | None = None
    share_groups_offsets: DataFrame | None = None

    def frames(self) -> dict[str, DataFrame]:
        return {k: getattr(self, k) for k in KINDS if getattr(self, k, None) is not None}

    def kinds(self) -> tuple[str, ...]:
        """The kinds this spec manages; ``topic_configs`` is managed when either frame carries configs."""
        present = set(self.frames())
        if self.topics is not None and "configs" in self.topics.columns:
            present.add("topic_configs")
        return tuple(k for k in KINDS if k in present)

    def session(self) -> Any:
        frames = list(self.frames().values())
        if not frames:
            raise SpecError("the spec holds no DataFrame: give at least one of topics, topic_configs, acls, "
                            "scram_users, quotas, groups_offsets, group_configs, broker_configs, acl_roles, "
                            "share_groups_offsets")
        return frames[0].sparkSession

    def check(self) -> None:
        """Each frame's columns and types, before any Spark job (see :class:`SpecError`)."""
        for kind, df in self.frames().items():
            if not isinstance(df, DataFrame) and not _is_connect_frame(df):
                raise SpecError(f"spec.{kind} must be a Spark DataFrame, not {type(df).__name__}")
            if COLUMNS.get(kind):  # quotas have their own formats, checked when normalized
                check_columns(kind, df)


def _is_connect_frame(df: object) -> bool:
    return type(df).__module__.startswith("pyspark.sql.connect")


def check_columns(kind: str, df: DataFrame) -> None:
    types: dict[str, DataType] = {f.name: f.dataType for f in df.schema.fields}
    problem = column_problem(kind, list(types))
    if problem is not None:
        raise SpecError(f"{kind}: {problem}")
    for c, t in types.items():
        if c in INT_COLUMNS:
            if not isinstance(t, (IntegralType, StringType, NullType)):
                raise SpecError(f"{kind}: column {c!r} must hold whole numbers, not {t.simpleString()}")
        elif c == "configs":
            ok = (isinstance(t, (StringType, NullType))
                  or (isinstance(t, MapType) and isinstance(t.keyType, StringType))
                  or isinstance(t, StructType))
            if not ok:
                raise SpecError(f"{kind}: column 'configs' must be a map<string,string>, a struct or JSON text, "
                                f"not {t.simpleString()}")
        elif not isinstance(t, (StringType, NullType)):
            raise SpecError(f"{kind}: column {c!r} must hold text, not {t.simpleString()}")


__all__ = ["KINDS", "Scope", "SecretResolver", "SpecError", "TenantSpec", "env_or_file_secrets", "parse_scope"]
