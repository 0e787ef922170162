"""What a kind's plan and items see: the spec and the cluster (planning), the client and the outcomes (applying).

Pure: no PySpark import, so that a kind module stays importable before Spark starts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kadmin.spark.kinds._sql import error_text

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from kadmin.client import AdminClient
    from kadmin.spark.kinds import Phase, Row
    from kadmin.spark.policy import Policy
    from kadmin.spark.spec import Scope, SecretResolver, TenantSpec

OK, VALIDATED, FAILED, POSSIBLY_APPLIED, SKIPPED = "ok", "validated", "failed", "possibly-applied", "skipped"


@dataclass
class PlanContext:
    """One plan: the spec, the client that reads the cluster, where deletions may happen, and what the kinds
    planned so far (``parts``: a kind planned after another may join against its rows, as configs and group
    offsets do against the topics') or share (``shared``: a state read once for two kinds)."""

    spec: TenantSpec
    admin: AdminClient
    scope: Scope | None
    spark: Any
    kinds: tuple[str, ...]
    deletes: dict[str, bool]
    allow_unknown_keys: bool = False
    parts: dict[str, DataFrame] = field(default_factory=dict)
    shared: dict[str, Any] = field(default_factory=dict)
    #: the rules every spec row must follow (:mod:`kadmin.spark.policy`); None: no check, no change
    policy: Policy | None = None

    def police(self, kind: str, desired: DataFrame) -> DataFrame:
        """A kind's desired rows (with their ``reason`` column) with the policy's violations added to
        ``reason``, so that a violating row is rejected as a malformed one is; without a policy, unchanged."""
        return desired if self.policy is None else self.policy.check(kind, desired)

    def frame_of(self, kind: str) -> DataFrame | None:
        df: DataFrame | None = getattr(self.spec, kind, None)
        return df

    def scope_if_deleting(self, kind: str) -> Scope | None:
        return self.scope if self.deletes.get(kind) else None


@dataclass
class ExportContext:
    """One export: the client that reads the cluster, what the caller wants exported (``scope``: None or a
    field left empty restricts nothing), what the kinds read once for each other (``shared``: the exported
    topics) and what they left out, and why (``notes``)."""

    admin: AdminClient
    scope: Scope | None
    shared: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def topic_wanted(self, name: str) -> bool:
        return self.scope is None or not self.scope.topics or self.scope.topic_in_scope(name)

    def principal_wanted(self, principal: str | None) -> bool:
        """A principal (``User:alice``) the scope's principal prefixes cover; None (a quota entity without a
        user) only when the scope names no principals."""
        if self.scope is None or not self.scope.principals:
            return True
        return principal is not None and self.scope.principal_in_scope(principal)


@dataclass
class Item:
    """What one call sends for one entity (or a group of plan rows sent as one)."""

    keys: list[tuple[str, str]]  # the plan rows (kind, key) this item answers for
    payload: Any  # what the API call takes for it
    name: str  # how the API's answer names it (topic, user, entity...)


@dataclass
class Outcomes:
    """Non-ok outcomes (ok is the default of every sent row), and what later phases depend on."""

    rows: list[tuple[str, str, str, str]] = field(default_factory=list)  # kind, key, status, error
    #: (kind, name) -> why: an owner that failed (a SCRAM user, a created topic): its dependents are skipped
    blocked: dict[tuple[str, str], str] = field(default_factory=dict)
    #: (kind, name) -> why: a revocation naming it did not succeed: deleting it would leave a grant behind
    #: that a re-created user or topic would inherit
    held: dict[tuple[str, str], str] = field(default_factory=dict)
    #: (kind, name) -> error: a write whose answer was lost (what travelled with it shares that status)
    unsure: dict[tuple[str, str], str] = field(default_factory=dict)
    done: int = 0
    failed: int = 0

    def record(self, item: Item, status: str, error: str) -> None:
        for kind, key in item.keys:
            self.rows.append((kind, key, status, error))
        self.failed += len(item.keys)

    def settle(self, item: Item, status: str, error: str) -> None:
        """``item`` is done without being sent (skipped, or failed while being built)."""
        self.done += len(item.keys)
        self.record(item, status, error)


@dataclass
class ApplyContext:
    """One apply: the client, the mode, the caller's options and the outcomes so far."""

    admin: AdminClient
    validate: bool
    batch_size: int
    secrets: SecretResolver | None
    out: Outcomes
    allow_unknown_keys: bool = False
    #: set by the sender: records a non-ok outcome and what depends on it
    fail: Callable[[Phase, Item, str, str], None] = field(default=lambda *_: None)


def status_of(err: BaseException) -> str:
    return POSSIBLY_APPLIED if getattr(err, "possibly_applied", False) else FAILED


def one_per_row(ctx: ApplyContext, phase: Phase, rows: list[Row],
                build: Callable[[str, str, dict[str, str]], tuple[Any, str]],
                name_of: Callable[[str, dict[str, str]], str]) -> list[Item]:
    """One item per row (``build(key, action, args)`` gives its payload and name); a row that cannot be built
    fails on its own, where it can be seen, rather than the batch it would travel in (Spark's rules mirror the
    client's, so this is a disagreement between the two, or a hand-edited plan)."""
    items: list[Item] = []
    for key, action, kind, args in rows:
        try:
            payload, name = build(key, action, args)
        except (TypeError, ValueError, KeyError) as exc:
            ctx.out.done += 1
            ctx.fail(phase, Item([(kind, key)], None, name_of(key, args)), FAILED, error_text(exc))
            continue
        items.append(Item([(kind, key)], payload, name))
    return items


def all_ok(items: list[Item]) -> dict[str, BaseException | None]:
    """What ``validate`` answers for a kind whose API has no validate_only: the items were built (and checked)
    on the client already."""
    return dict.fromkeys((i.name for i in items), None)


def int_or_none(text: str | None) -> int | None:
    return None if text is None or text == "" else int(text)


__all__ = ["FAILED", "OK", "POSSIBLY_APPLIED", "SKIPPED", "VALIDATED", "ApplyContext", "ExportContext", "Item",
           "Outcomes", "PlanContext", "all_ok", "error_text", "int_or_none", "one_per_row", "status_of"]
