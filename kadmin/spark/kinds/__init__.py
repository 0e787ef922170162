"""The kinds of entity provisioning knows, one module each, found by registration.

A kind (:class:`Kind`) declares everything the generic plan (:mod:`kadmin.spark.plan`) and apply
(:mod:`kadmin.spark.apply`) need to know about it, so that neither holds a per-kind branch:

* ``columns``: its spec columns ({column: required}; checked before Spark starts, by the CLI too);
* ``plan``: how to read the cluster's state and diff the spec's rows against it (plan rows out);
* ``phases``: when its changes are sent (a global order: each phase finishes before the next starts), and for
  each phase how a batch of items is sent (one call of the client's batched operation);
* ``items``: how streamed plan rows become the payloads that phase sends;
* ``owners``: the kinds it depends on (an ACL grant on its SCRAM user, a config on its topic): a rejected or
  failed owner skips its dependents, ``skipped`` with the reason, at plan time and at apply time;
* ``group``: which plan rows travel as one item (a topic's configs, a quota entity's keys);
* ``export`` and ``export_schema``: how the cluster's entities of the kind are read back as spec rows (its own
  columns, in the reader's types), for :func:`kadmin.spark.export.export`; the same reads as its plan's state.

Adding a kind is adding one module in this package that calls :func:`register`; importing this package
imports every module in it (:func:`_load`), so no list elsewhere names the kinds.  Importing a kind module
needs no PySpark: the CLI checks a spec's columns before Spark starts.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from kadmin.spark.kinds._sql import Columns, Schema
    from kadmin.spark.kinds.context import ApplyContext, ExportContext, Item, PlanContext

#: One streamed plan row as the apply side sees it: key, action, kind, args.
Row = tuple[str, str, str, dict[str, str]]


@dataclass(frozen=True)
class Phase:
    """One step of an apply: the kind's rows with these actions, sent together, after every earlier phase.

    ``send`` takes the apply context and a batch of items and returns {item name: None or its error}.
    ``blocks`` says that a failure here makes the item's owner name unusable for dependents (a SCRAM user
    whose upsert failed, a topic whose creation failed)."""

    kind: str
    actions: tuple[str, ...]
    title: str
    order: int
    send: Callable[[ApplyContext, list[Item]], dict[str, BaseException | None]]
    blocks: bool = False


@dataclass(frozen=True)
class Owner:
    """A dependency of a kind's rows on another kind's entity.

    ``name_sql`` (SQL over the dependent's plan row) and ``name`` (the same over its ``args``, in Python) give
    the owner's name the row needs; ``what`` names it in the reason (``"SCRAM user "``, ``"topic "``);
    ``actions`` are the dependent actions that need the owner (creations: a revocation never does)."""

    kind: str
    name_sql: str
    name: Callable[[dict[str, str]], str | None]
    what: str
    actions: tuple[str, ...] = ("create",)


@dataclass(frozen=True)
class Kind:
    """One entity kind of a tenant spec; see the module docstring for what each field is for."""

    name: str
    order: int  # where its rows are listed (drift, the CLI's table)
    columns: dict[str, bool]
    plan: Callable[[PlanContext], DataFrame]
    phases: tuple[Phase, ...]
    items: Callable[[ApplyContext, Phase, list[Row]], list[Item]]
    owners: tuple[Owner, ...] = ()
    #: SQL over an owner's plan row: its name (for a kind others depend on).
    owner_sql: str | None = None
    #: SQL over an owner's plan row: whether it blocks its dependents at plan time (None: nothing can, in this
    #: plan), and the reason why.
    blocks_sql: Callable[[PlanContext], str | None] | None = None
    blocks_why_sql: str = "error"
    #: the owner's name from a row's args, in Python (apply time)
    owner_name: Callable[[dict[str, str]], str | None] | None = None
    #: SQL over a plan row: the rows that travel as one item share it
    group: str = "key"
    #: called with (ctx, phase, item, status, error) when an item of this kind did not succeed
    on_failure: Callable[..., None] | None = None
    #: the cluster's entities of this kind as spec rows (columns of ``export_schema``); None: not exportable
    export: Callable[[ExportContext], Columns] | None = None
    export_schema: Schema = ()


_KINDS: dict[str, Kind] = {}


def register(kind: Kind) -> Kind:
    """Make ``kind`` known to the plan, the apply and the spec checks (called by each kind module)."""
    if kind.name in _KINDS and _KINDS[kind.name] is not kind:
        raise ValueError(f"kind {kind.name!r} is registered twice")
    _KINDS[kind.name] = kind
    return kind


_loaded: list[bool] = []


def _load() -> None:
    """Import every kind module of this package once (each registers its kind)."""
    if _loaded:
        return
    for info in pkgutil.iter_modules(__path__):
        if not info.name.startswith("_") and info.name != "context":
            importlib.import_module(f"{__name__}.{info.name}")
    _loaded.append(True)


def kinds() -> tuple[Kind, ...]:
    """Every registered kind, in listing order."""
    _load()
    return tuple(sorted(_KINDS.values(), key=lambda k: k.order))


def kind(name: str) -> Kind:
    _load()
    return _KINDS[name]


def phases() -> tuple[Phase, ...]:
    """Every kind's phases, in the order they are sent."""
    return tuple(sorted((p for k in kinds() for p in k.phases), key=lambda p: p.order))


__all__ = ["Kind", "Owner", "Phase", "Row", "kind", "kinds", "phases", "register"]
