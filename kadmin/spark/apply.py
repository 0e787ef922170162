"""Applying a tenant plan from the driver: phases in a safe order, batches per API, per-entity results.

**Order.**  The plan's changes are streamed from Spark in phase order, and each phase finishes before the next
starts (the first phase is read straight from the plan while Spark computes and sorts the rest in the
background: :class:`_PlanStream`):

1. SCRAM users created/altered (a tenant can log in before anything grants it access);
2. topics created (with their configs), 3. partitions added, 4. replicas reassigned;
5. configs of existing topics altered;
6. ACLs granted, 7. ACLs revoked (after the grants: a binding replaced by another never leaves a gap);
8. consumer groups' offsets reset (after the topics they name exist; :mod:`kadmin.spark.kinds.groups_offsets`);
9. topics deleted, 10. SCRAM users deleted;
11. quotas (last: a quota never applies to a half-made tenant).

**Dependencies.**  A failure skips only what depends on it, reported ``skipped`` with the reason: an ACL naming
``User:x`` when x's credential failed, an ACL on a literal topic (and a config of a topic) whose creation
failed, the deletion of a user or literal topic named by an ACL revocation that did not succeed (no dangling
grant for a re-created one to inherit).  A creation whose answer was lost is ``possibly-applied``, and so are
the configs sent with it.  Nothing else stops: other tenants go on.

**Batches.**  Within a phase, entities go ``batch_size`` per call of the client's batched operation, at most
``max_concurrency`` calls in flight, so each API gets at most ``ceil(n / batch_size)`` requests.  The driver
holds one streamed partition, the batches in flight, and the outcomes that are *not* ok (ok is the default
of every sent row), never the whole plan.

**Secrets.**  A SCRAM row carries the *name* of its secret; the caller's ``secrets`` function resolves it on
the driver while the batch is built, the password is salted at once into a ``ScramUpsertion`` (which does
not keep it), and nothing of it reaches a DataFrame, a log line or an error text.

**Modes.**  ``apply`` sends; ``validate`` sends with ``validate_only`` where the API has it (CreateTopics,
CreatePartitions, IncrementalAlterConfigs, AlterClientQuotas) and checks the rest on the client (ACL bindings
are built, SCRAM secrets resolved and salted, reassignments checked against the brokers), so nothing changes.
"""

from __future__ import annotations

import concurrent.futures as cf
import itertools
import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pyspark import StorageLevel
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from kadmin.spark.kinds import Phase, kinds, phases
from kadmin.spark.kinds.context import OK, VALIDATED, Item, Outcomes
from kadmin.spark.plan import CHANGES, PLAN_COLUMNS, PLANNED, build_plan
from kadmin.spark.policy import PolicyLike, as_policy
from kadmin.spark.report import Progress, StderrProgress
from kadmin.spark.sender import Sender
from kadmin.spark.spec import KINDS, ScopeLike, SecretResolver, SpecError, TenantSpec, parse_scope
from kadmin.spark.sqltext import sql_string

if TYPE_CHECKING:
    from kadmin.client import AdminClient

log = logging.getLogger("kadmin.spark")

MODES = ("plan", "validate", "apply")
DEFAULT_BATCH_SIZE = 1000
DEFAULT_MAX_CONCURRENCY = 4
#: Result columns (one row per desired or removed entity).
TENANT_RESULT_COLUMNS: tuple[str, ...] = ("kind", "key", "action", "old_value", "new_value", "status", "error")


#: Every kind's phases, in the order they are sent (each finishes before the next starts).
PHASES: tuple[Phase, ...] = phases()


# --- progress -------------------------------------------------------------------------------------------


#: The one progress type (:class:`kadmin.spark.report.Progress`), under the name this module always had.
TenantProgress = Progress
TenantProgressCallback = Callable[[Progress], None]


# --- streaming and phases -------------------------------------------------------------------------------


def _phase_sql() -> str:
    cases = " ".join(f"WHEN kind = {sql_string(p.kind)} AND action IN ({', '.join(map(sql_string, p.actions))}) "
                     f"THEN {n}" for n, p in enumerate(PHASES))
    return f"CASE {cases} END"


def _group_sql() -> str:
    """Rows sent as one item travel together: a topic's configs, a quota entity's keys (``Kind.group``)."""
    cases = " ".join(f"WHEN kind = {sql_string(k.name)} THEN {k.group}" for k in kinds() if k.group != "key")
    return f"CASE {cases} ELSE key END" if cases else "key"


#: Up to this many changes the stream is one sorted partition (one Spark job); beyond, a global sort whose
#: range partitions come one at a time (a sampling job more, and the driver holds one partition).
ONE_PARTITION_STREAM = 200_000


StreamRow = tuple[int, str, str, str, str, dict[str, str]]  # phase, group, kind, key, action, args


def _changes(plan: DataFrame, first_phase: bool | None = None) -> DataFrame:
    """The plan's changes with their phase and group: all of them (None), only the first phase's (True) or
    all but the first phase's (False)."""
    p0 = PHASES[0]
    in_first = f"coalesce(kind = {sql_string(p0.kind)} AND action IN ({', '.join(map(sql_string, p0.actions))}), false)"
    cond = F.col("action").isin(*CHANGES)
    if first_phase is not None:
        cond = cond & (F.expr(in_first) if first_phase else ~F.expr(in_first))
    return plan.filter(cond).selectExpr(
        f"{_phase_sql()} AS _phase", f"{_group_sql()} AS _group", "kind", "key", "action", "args")


def _stream(changes: DataFrame, total: int | None) -> Iterator[StreamRow]:
    """Rows of ``changes`` to the driver, one partition at a time: in (phase, group, key) order when
    ``total`` is given; partition by partition, each sorted, when None (rows that are each their own group
    need no global order)."""
    order = ("_phase", "_group", "key")
    if total is None:
        ordered = changes.sortWithinPartitions(*order)
    elif total <= ONE_PARTITION_STREAM:
        ordered = changes.coalesce(1).sortWithinPartitions(*order)
    else:
        ordered = changes.orderBy(*order)
    for row in ordered.toLocalIterator(prefetchPartitions=True):
        yield row[0], row[1], row[2], row[3], row[4], dict(row[5] or {})


class _PlanStream:
    """The plan's changes in phase order, with Spark's work done while the driver sends, not before it.

    The first phase (SCRAM users: salting each password is the driver's slowest work, and both the
    ACLs and the tenants' logins wait for it) is read straight from the plan, which computes only that
    kind's rows (Spark drops the other kinds' branches of the union), and its rows are each their own item,
    so they need no global sort.  As soon as its first rows are there, a background thread materializes
    the cached plan (counting the changes: the progress total) and opens the sorted stream of the other
    phases, so the joins, the sort and the transfer of every other kind run while the first phase is sent.
    """

    def __init__(self, plan: DataFrame, cached: DataFrame, mode: str) -> None:
        self._plan, self._cached, self._mode = plan, cached, mode
        self._pool = cf.ThreadPoolExecutor(max_workers=1, thread_name_prefix="kadmin-plan-stream")
        self._rest: cf.Future[tuple[int, Iterator[StreamRow]]] | None = None
        self._open: list[Iterator[StreamRow]] = []

    @property
    def total(self) -> int | None:
        """The number of changes (every phase), once counted; None before."""
        f = self._rest
        if f is None or not f.done() or f.exception() is not None:
            return None
        return f.result()[0]

    def rows(self) -> Iterator[StreamRow]:
        # Rows that are each their own item (SCRAM upserts) need no global order; any other first phase is
        # sorted whole.
        one_per_row = next(k.group == "key" for k in kinds() if k.name == PHASES[0].kind)
        head = _stream(_changes(self._plan, first_phase=True), None if one_per_row else 0)
        self._open.append(head)
        first = next(head, None)  # runs the first phase's jobs before the background ones queue up
        self._rest = self._pool.submit(self._prepare_rest)
        if first is not None:
            yield first
            yield from head
        yield from self._rest.result()[1]

    def _prepare_rest(self) -> tuple[int, Iterator[StreamRow]]:
        total = self._cached.filter(F.col("action").isin(*CHANGES)).count()
        log.info("%s: %d entities with changes", self._mode, total)
        rest = _stream(_changes(self._cached, first_phase=False), total)
        self._open.append(rest)
        peeked = next(rest, None)  # the sort job runs now, while the first phase is being sent
        return total, (rest if peeked is None else itertools.chain([peeked], rest))

    def close(self) -> None:
        """Waits for the background job (no job may run on a dropped cache) and stops the streams."""
        if self._rest is not None:
            cf.wait([self._rest])
        self._pool.shutdown()
        for it in self._open:
            close = getattr(it, "close", None)
            if close is not None:
                close()


@dataclass
class ApplyReport:
    """What a run did, besides the results DataFrame: requests per phase (API), entities, time."""

    requests: dict[str, int]
    entities: int
    failed: int
    seconds: float


def apply_plan(plan: DataFrame, admin: AdminClient, *, mode: str = "apply", secrets: SecretResolver | None = None,
               batch_size: int = DEFAULT_BATCH_SIZE, max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
               progress: TenantProgressCallback | None = None, report: list[ApplyReport] | None = None,
               allow_unknown_keys: bool = False) -> DataFrame:
    """Apply (or validate) a plan from :func:`provision` (mode ``plan``), possibly saved and read back.

    Returns the results: one row per plan row (``TENANT_RESULT_COLUMNS``), status ``ok`` / ``validated`` for changes
    that succeeded, ``failed`` / ``possibly-applied`` / ``skipped`` with the error, and ``unchanged`` /
    ``rejected`` as planned.  The results are cached (``unpersist()`` frees them).  ``report``, when a list,
    receives one :class:`ApplyReport`."""
    if mode not in ("apply", "validate"):
        raise ValueError(f"apply_plan mode must be 'apply' or 'validate', not {mode!r}")
    missing = [c for c in PLAN_COLUMNS if c not in plan.columns]
    if missing:
        raise SpecError(f"not a provisioning plan: no column(s) {', '.join(missing)} "
                        f"(expected {', '.join(PLAN_COLUMNS)})")
    for name, v in (("batch_size", batch_size), ("max_concurrency", max_concurrency)):
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise ValueError(f"{name} must be a positive int, not {v!r}")
    validate = mode == "validate"
    ok_status = VALIDATED if validate else OK
    cached = _compact(plan).persist(StorageLevel.MEMORY_AND_DISK)
    started = time.perf_counter()
    stream = _PlanStream(plan, cached, mode)
    try:
        out = Outcomes()

        def tick(title: str, finished: bool = False) -> None:
            # The total is counted in the background while the first phase is sent: progress starts once
            # it is known (within the first batches), and the last report always has it.
            total = stream.total
            if progress is not None and total is not None:
                progress(Progress(title, total, total, out.done, out.failed, out.done, sum(sender.requests.values()),
                                  time.perf_counter() - started, finished))

        sender = Sender(admin, validate=validate, batch_size=batch_size, max_concurrency=max_concurrency,
                         secrets=secrets, out=out, tick=tick, allow_unknown_keys=allow_unknown_keys)
        tick("starting")
        try:
            _run_phases(stream.rows(), sender, out, batch_size)
        finally:
            sender.close()
            stream.close()
        tick("done", finished=True)
        seconds = time.perf_counter() - started
        log.info("%s: done: %d entities, %d not ok, requests %s, %.1fs", mode, out.done, out.failed,
                 sender.requests, seconds)
        if report is not None:
            report.append(ApplyReport(dict(sender.requests), out.done, out.failed, seconds))
        results = _results(cached, out.rows, ok_status).persist(StorageLevel.MEMORY_AND_DISK)
        results.count()  # materialized before the plan it comes from is dropped
        return results
    finally:
        stream.close()
        cached.unpersist()


def _compact(plan: DataFrame) -> DataFrame:
    """The plan in as many partitions as the session shuffles into, not one set per kind: the union of the
    kinds has kinds x shuffle partitions, and every pass over the cache (totals, stream, results) costs a
    task per partition.  ``coalesce`` merges partitions where they are (no shuffle)."""
    try:
        n = int(plan.sparkSession.conf.get("spark.sql.shuffle.partitions") or 0)
    except (TypeError, ValueError):
        n = 0
    return plan.coalesce(n) if n > 0 else plan


def _run_phases(rows: Iterator[tuple[int, str, str, str, str, dict[str, str]]], sender: Sender,
                out: Outcomes, batch_size: int) -> None:
    current: int | None = None
    batch: list[Item] = []
    group_key: tuple[int, str] | None = None
    group: list[tuple[str, str, str, dict[str, str]]] = []

    def flush_group() -> None:
        nonlocal batch
        if group and current is not None:
            phase = PHASES[current]
            batch.extend(sender.items(phase, group))
            while len(batch) >= batch_size:
                sender.submit(phase, batch[:batch_size])
                batch = batch[batch_size:]
        group.clear()

    for phase_no, grp, kind, key, action, args in rows:
        if (phase_no, grp) != group_key:
            flush_group()
            group_key = (phase_no, grp)
        if phase_no != current:
            if current is not None:
                sender.submit(PHASES[current], batch)
                batch = []
                sender.drain(0)  # a phase ends before the next begins: dependencies see every outcome
            current = phase_no
        group.append((key, action, kind, args))
    flush_group()
    if current is not None:
        sender.submit(PHASES[current], batch)
        sender.drain(0)


def _results(plan: DataFrame, rows: list[tuple[str, str, str, str]], ok_status: str) -> DataFrame:
    status = (f"CASE WHEN p.status = {sql_string(PLANNED)} THEN {sql_string(ok_status)} ELSE p.status END")
    p = plan.alias("p")
    if not rows:
        return p.selectExpr("kind", "key", "action", "old_value", "new_value", f"{status} AS status", "error")
    spark = plan.sparkSession
    o = spark.createDataFrame(rows, "o_kind string, o_key string, o_status string, o_error string")
    joined = p.join(F.broadcast(o), (F.col("p.kind") == F.col("o_kind")) & (F.col("p.key") == F.col("o_key")), "left")
    return joined.selectExpr("p.kind AS kind", "p.key AS key", "p.action AS action", "p.old_value AS old_value",
                             "p.new_value AS new_value", f"coalesce(o_status, {status}) AS status",
                             "coalesce(o_error, p.error) AS error")


def provision(spec: TenantSpec | DataFrame, admin: AdminClient, mode: str = "plan", *, scope: ScopeLike = None,
              remove_unlisted: bool = False, secrets: SecretResolver | None = None,
              batch_size: int = DEFAULT_BATCH_SIZE, max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
              progress: TenantProgressCallback | None = None, allow_unknown_keys: bool = False,
              report: list[ApplyReport] | None = None, policy: PolicyLike = None) -> DataFrame:
    """Make the cluster's tenants match ``spec``: ``plan`` (nothing sent; the plan, also a drift report),
    ``validate`` (brokers check with validate_only where they can; nothing changes) or ``apply``.

    ``spec`` is a :class:`~kadmin.spark.spec.TenantSpec`, or a plan DataFrame from an earlier ``plan`` run
    (saved and read back unchanged), which is then validated or applied as it is.  ``scope`` (a
    :class:`~kadmin.spark.spec.Scope`, a mapping or ``["topics=t-", "principals=User:t-", "kinds=acls"]``)
    is where ``remove_unlisted=True`` may delete; without a scope nothing is deleted (and asking to is an
    error).  ``secrets`` resolves ``password_ref`` on the driver (default: the spec's).  ``policy`` (a
    :class:`~kadmin.spark.policy.Policy`, a JSON policy file's path or its decoded mapping) rejects each spec
    row that breaks one of its rules, with the rule's name (docs/provision.md, "Policies"); it is read and
    checked first, so a bad policy is a ValueError before anything else."""
    checked_policy = as_policy(policy)
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
    for name, b in (("remove_unlisted", remove_unlisted), ("allow_unknown_keys", allow_unknown_keys)):
        if not isinstance(b, bool):
            raise TypeError(f"{name} must be a bool, not {b!r}")
    _check_sizes(batch_size, max_concurrency)  # before the cluster is read, not after
    from kadmin.spark.kinds.quotas.diff import check_admin

    check_admin(admin)
    if isinstance(spec, TenantSpec):
        plan = build_plan(spec, admin, scope=parse_scope(scope), remove_unlisted=remove_unlisted,
                          allow_unknown_keys=allow_unknown_keys, policy=checked_policy)
        resolver = secrets if secrets is not None else spec.secrets
        needs_resolver = spec.scram_users is not None
    elif hasattr(spec, "columns") and hasattr(spec, "filter"):
        if scope is not None or remove_unlisted or checked_policy is not None:
            raise SpecError("a saved plan already says what it deletes and rejects; scope, remove_unlisted "
                            "and policy apply when planning")
        plan, resolver, needs_resolver = spec, secrets, True
    else:
        raise TypeError(f"spec must be a TenantSpec or a plan DataFrame, not {type(spec).__name__}")
    if mode == "plan":
        return plan
    if resolver is None and needs_resolver and _upserts_users(plan):
        # Found before anything is sent: otherwise every user would fail, one by one, and its grants be skipped.
        raise SpecError("the plan creates or alters SCRAM users, whose password_ref needs a secrets function: "
                        "pass secrets=... (a saved plan does not keep the spec's)")
    return apply_plan(plan, admin, mode=mode, secrets=resolver, batch_size=batch_size,
                      max_concurrency=max_concurrency, progress=progress, report=report,
                      allow_unknown_keys=allow_unknown_keys)


def _check_sizes(batch_size: object, max_concurrency: object) -> None:
    for name, v in (("batch_size", batch_size), ("max_concurrency", max_concurrency)):
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise ValueError(f"{name} must be a positive int, not {v!r}")


def _upserts_users(plan: DataFrame) -> bool:
    """Whether the plan has a SCRAM user to create or alter (one small Spark job)."""
    rows = plan.filter("kind = 'scram_users' AND action IN ('create', 'alter')").select("key").limit(1).collect()
    return bool(rows)


def drift(plan: DataFrame) -> DataFrame:
    """The rows of a plan where the cluster differs from the spec (changes and rejects), per kind."""
    return plan.filter(F.col("action") != "unchanged").orderBy(
        F.expr("CASE " + " ".join(f"WHEN kind = {sql_string(k)} THEN {i}" for i, k in enumerate(KINDS)) + " END"),
        "key")


__all__ = ["MODES", "PHASES", "TENANT_RESULT_COLUMNS", "ApplyReport", "StderrProgress", "TenantProgress", "apply_plan",
           "drift", "provision"]
