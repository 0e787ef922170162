"""Driver-side application of a plan: stream the actions, batch them per entity, send with bounded concurrency.

Why the driver and not the executors: an AdminClient holds connections, negotiated versions and a
coordinator cache; one client on the driver sends ``ceil(entities / batch_size)`` requests, where one per
executor task would multiply connections and metadata requests by the number of partitions.  Why streaming:
``toLocalIterator()`` brings one partition at a time, so the driver holds at most a partition of actions
(two with prefetch) plus ``max_concurrency`` batches in flight, never the whole plan.

The plan is cached hash-partitioned by entity and sorted by (entity, key) within partitions (one shuffle,
paid by the totals job that also gives the progress bar its total), so that the stream is a plain scan in
which all keys of an entity arrive together and become one ``ClientQuotaAlteration`` (Kafka applies an
entity's ops together).  Batches are sent from a small thread pool through the thread-safe synchronous
``kadmin.AdminClient``; answers are folded on the calling thread, which is also where the progress
callback runs.  If a run is interrupted, run it again: what was applied comes back ``unchanged``.
"""

from __future__ import annotations

import concurrent.futures as cf
import logging
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pyspark import StorageLevel
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from kadmin.admin import quotas as admin_quotas
from kadmin.errors import KafkaError
from kadmin.spark.plan import (
    BROADCAST_LIMIT,
    ScopeArg,
    check_admin,
    current_frame,
    diff,
    inspect,
    parse_scope,
    read_current,
)
from kadmin.spark.report import (
    OK,
    PLANNED,
    VALIDATED,
    Progress,
    ProgressCallback,
    ProgressReporter,
    failures_schema,
    with_failures,
)
from kadmin.spark.schema import DEFAULT_ENTITY, ENTITY_COLUMNS, ENTITY_TYPES, KEY_COLUMN, normalize
from kadmin.spark.validate import REASON, RejectedRowsError, validate

if TYPE_CHECKING:
    from kadmin.client import AdminClient

log = logging.getLogger("kadmin.spark")

MODES = ("apply", "validate", "plan")
# The client's own defaults, so that the Spark path and a direct alter_client_quotas batch alike.
DEFAULT_BATCH_SIZE = admin_quotas.DEFAULT_BATCH_SIZE
DEFAULT_MAX_CONCURRENCY = admin_quotas.DEFAULT_MAX_CONCURRENCY
_STRICT_SAMPLES = 5
ROWS_PER_STREAM_PARTITION = 100_000
MAX_STREAM_PARTITIONS = 64

Cells = tuple[str | None, str | None, str | None]


@dataclass
class SendResult:
    """What the driver learned while sending: counts, and the entities that failed with why."""

    entities_total: int = 0
    actions_total: int = 0
    entities_done: int = 0  # answered by the cluster, or failed before sending
    actions_done: int = 0
    requests: int = 0
    failures: list[tuple[str | None, str | None, str | None, str]] = field(default_factory=list)

    def progress(self, phase: str) -> Progress:
        return Progress(phase, self.entities_total, self.actions_total, self.entities_done, len(self.failures),
                        self.actions_done, self.requests)


def _entity(cells: Cells) -> Any:
    from kadmin.quotas import ClientQuotaEntity

    return ClientQuotaEntity({ENTITY_TYPES[c]: (None if v == DEFAULT_ENTITY else v)
                              for c, v in zip(ENTITY_COLUMNS, cells, strict=True) if v is not None})


def _error_text(err: BaseException) -> str:
    name = getattr(err, "name", None) if isinstance(err, KafkaError) else None
    text = f"{name or type(err).__name__}: {err}"
    if getattr(err, "possibly_applied", False):
        # Sent but never answered: the entity may hold the new values already; a re-run settles it.
        text += " (possibly applied: re-run to reconcile)"
    return text


def stream_partitions(actions: int) -> int:
    """How many partitions to stream ``actions`` rows through.

    ``toLocalIterator`` runs one Spark job per partition, so the default 200 shuffle partitions would cost
    200 jobs for any plan; one partition per ``ROWS_PER_STREAM_PARTITION`` actions keeps the jobs few while
    bounding what the driver's JVM buffers at once (one partition, two with prefetch).
    """
    return max(1, min(MAX_STREAM_PARTITIONS, -(-actions // ROWS_PER_STREAM_PARTITION)))


def by_entity(plan: DataFrame, partitions: int) -> DataFrame:
    """The plan hash-partitioned by entity and sorted by (entity, key) within each partition.

    Cached in this layout (the totals job materializes it), it serves every later pass without another
    shuffle: the totals (grouped by entity, which the partitioning satisfies), the stream (a scan whose
    sort Spark elides) and the results.
    """
    return plan.repartition(partitions, *ENTITY_COLUMNS).sortWithinPartitions(*ENTITY_COLUMNS, KEY_COLUMN)


def actions_by_entity(plan: DataFrame) -> Iterator[tuple[Cells, list[tuple[str, float | None]]]]:
    """(entity cells, [(key, new value or None to remove)]) per entity with changes, streamed from Spark.

    ``plan`` must come from :func:`by_entity`: its repartition puts all rows of an entity in one partition,
    and the sort here (free when ``plan`` is cached sorted) makes them consecutive.  One plain row per key is
    the cheapest way into Python (measured: grouping per entity in Spark, with arrays, costs more driver
    CPU than it saves).  Only DataFrame API (no RDDs), so this also runs on Spark Connect.
    """
    ordered = plan.filter(F.col("action").isin("set", "remove")) \
        .select(*ENTITY_COLUMNS, KEY_COLUMN, "new_value").sortWithinPartitions(*ENTITY_COLUMNS, KEY_COLUMN)
    current: Cells | None = None
    ops: list[tuple[str, float | None]] = []
    # Unpacked, not indexed: Row.__getitem__ is a Python-level method, unpacking iterates the tuple in C
    # (this loop runs once per key, on the thread that also feeds the sends).
    for user, client_id, ip, key, value in ordered.toLocalIterator(prefetchPartitions=True):
        cells: Cells = (user, client_id, ip)
        if cells != current:
            if current is not None:
                yield current, ops
            current, ops = cells, []
        ops.append((key, value))
    if current is not None:
        yield current, ops


def send_actions(
    entities: Iterator[tuple[Cells, list[tuple[str, float | None]]]],
    admin: AdminClient,
    *,
    validate_only: bool,
    allow_unknown_keys: bool,
    batch_size: int,
    max_concurrency: int,
    totals: tuple[int, int],
    report: ProgressReporter,
) -> SendResult:
    """Batch ``entities`` into alterations of ``batch_size`` entities and send them, at most
    ``max_concurrency`` calls in flight.  A failure is recorded per entity and never stops the rest."""
    from kadmin.quotas import ClientQuotaAlteration, Remove, Set

    res = SendResult(entities_total=totals[0], actions_total=totals[1])
    report(res.progress("planned"))
    batch: list[tuple[Cells, Any]] = []
    inflight: deque[tuple[cf.Future[Any], list[tuple[Cells, Any]]]] = deque()

    def call(alterations: list[Any]) -> Any:
        return admin.alter_client_quotas(alterations, validate_only=validate_only,
                                         allow_unknown_keys=allow_unknown_keys, batch_size=batch_size,
                                         max_concurrency=1)

    def fold(fut: cf.Future[Any], sent: list[tuple[Cells, Any]]) -> None:
        res.requests += 1
        res.entities_done += len(sent)
        res.actions_done += sum(len(a.ops) for _, a in sent)
        try:
            answer = fut.result()
        except (KafkaError, TypeError, ValueError) as exc:
            # The whole call failed (no broker reachable, the client refused the batch): every entity in it
            # failed with the same error, and the next batch still gets its chance.
            log.warning("a batch of %d entities failed as a whole: %s", len(sent), _error_text(exc))
            res.failures.extend((*cells, _error_text(exc)) for cells, _ in sent)
        else:
            for cells, alteration in sent:
                outcome = answer.get(alteration.entity, KafkaError("no result was returned for this entity"))
                if outcome is not None:
                    res.failures.append((*cells, _error_text(outcome)))
        report(res.progress("sending"))

    def drain(until: int) -> None:
        while len(inflight) > until:
            done, _ = cf.wait([f for f, _ in inflight], return_when=cf.FIRST_COMPLETED)
            for item in [i for i in inflight if i[0] in done]:
                inflight.remove(item)
                fold(*item)

    with cf.ThreadPoolExecutor(max_workers=max_concurrency, thread_name_prefix="kadmin-spark") as pool:
        def submit() -> None:
            nonlocal batch
            drain(max_concurrency - 1)
            inflight.append((pool.submit(call, [a for _, a in batch]), batch))
            batch = []

        try:
            for cells, ops in entities:
                try:
                    alteration = ClientQuotaAlteration(_entity(cells), [
                        Remove(key) if value is None else Set(key, value) for key, value in ops])
                except (TypeError, ValueError) as exc:
                    # Spark's validation mirrors kadmin.quotas, so this is a disagreement between the two:
                    # fail the entity where it can be seen rather than the batch it would travel in.
                    res.entities_done += 1
                    res.failures.append((*cells, _error_text(exc)))
                    continue
                batch.append((cells, alteration))
                if len(batch) >= batch_size:
                    submit()
            if batch:
                submit()
        finally:
            drain(0)
    report(res.progress("done"))
    return res


def provision_quotas(
    desired_df: DataFrame,
    admin: AdminClient,
    *,
    mode: str = "apply",
    batch_size: int = DEFAULT_BATCH_SIZE,
    max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
    remove_unlisted: bool = False,
    strict: bool = False,
    progress: ProgressCallback | None = None,
    scope: ScopeArg = None,
    format: str | None = None,
    allow_unknown_keys: bool = False,
) -> DataFrame:
    """Make the cluster's client quotas match ``desired_df``; returns one results row per (entity, key).

    ``mode="apply"`` alters, ``"validate"`` sends the same alterations with validate_only (the brokers
    check them, nothing changes), ``"plan"`` sends nothing (the same as :func:`plan_quotas`).  Rejected rows
    are reported and skipped, unless ``strict=True``: then any rejected row raises
    :class:`RejectedRowsError` before anything is sent.  Results of validate/apply are computed once and
    cached (``results.unpersist()`` frees them); a plan-mode result is lazy.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
    for name, v in (("batch_size", batch_size), ("max_concurrency", max_concurrency)):
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise ValueError(f"{name} must be a positive int, not {v!r}")
    for name, b in (("remove_unlisted", remove_unlisted), ("strict", strict),
                    ("allow_unknown_keys", allow_unknown_keys)):
        if not isinstance(b, bool):
            raise TypeError(f"{name} must be a bool, not {b!r}")
    check_admin(admin)
    report = ProgressReporter(progress, mode)
    shapes = parse_scope(scope) if scope is not None else None  # bad scopes fail before any Spark job

    validated = validate(normalize(desired_df, format), allow_unknown_keys=allow_unknown_keys)
    cached: list[DataFrame] = []
    if mode != "plan":
        # Read and validate the input once, although scope, strict and plan each look at it.
        validated = validated.persist(StorageLevel.MEMORY_AND_DISK)
        cached.append(validated)
    steps = _Steps(mode)
    try:
        # One small job gives the scope, the strict check and the stream's size; a plan with an explicit
        # scope and no strict check needs none of them.
        summary = inspect(validated) if mode != "plan" or scope is None or strict else None
        steps("input read and validated")
        if summary is not None:
            if scope is None:
                shapes = summary.shapes
            if strict and summary.rejected:
                _raise_strict(validated, summary.rejected)
        current_cols = read_current(admin, shapes)
        current = current_frame(desired_df.sparkSession, current_cols)
        steps("current quotas described")
        ok_status = PLANNED if mode == "plan" else VALIDATED if mode == "validate" else OK
        plan = diff(validated, current, remove_unlisted=remove_unlisted,
                    broadcast=len(current_cols[KEY_COLUMN]) <= BROADCAST_LIMIT, change_status=ok_status)
        if mode == "plan" or summary is None:
            return plan
        # Every action comes from a valid row or (remove_unlisted) a current value: an upper bound known now.
        bound = summary.valid + (len(current_cols[KEY_COLUMN]) if remove_unlisted else 0)
        plan = by_entity(plan, stream_partitions(bound)).persist(StorageLevel.MEMORY_AND_DISK)
        cached.append(plan)
        totals = _totals(plan)
        steps("plan computed")
        failures: list[tuple[str | None, str | None, str | None, str]] = []
        if totals[0] == 0:
            report(Progress("planned", 0, 0))
            report(Progress("done", 0, 0))
        else:
            failures = send_actions(actions_by_entity(plan), admin, validate_only=mode == "validate",
                                    allow_unknown_keys=allow_unknown_keys, batch_size=batch_size,
                                    max_concurrency=max_concurrency, totals=totals, report=report).failures
        steps("actions sent")
        if not failures:
            # The cached plan already says what happened (every change succeeded): it is the results.
            cached.remove(plan)
            return plan
        failed = desired_df.sparkSession.createDataFrame(failures, schema=failures_schema())
        results = with_failures(plan, failed).persist(StorageLevel.MEMORY_AND_DISK)
        results.count()  # materialize before the plan it was computed from is dropped
        steps("failures joined into the results")
        return results
    finally:
        for df in cached:
            df.unpersist()


class _Steps:
    """DEBUG lines with the time each step took: where a slow run spends its time, without a profiler."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.last = time.perf_counter()

    def __call__(self, what: str) -> None:
        now = time.perf_counter()
        log.debug("%s: %s in %.2fs", self.mode, what, now - self.last)
        self.last = now


def _totals(plan: DataFrame) -> tuple[int, int]:
    """(entities with changes, set/remove actions), in one aggregation over the cached plan."""
    row = plan.filter(F.col("action").isin("set", "remove")).groupBy(*ENTITY_COLUMNS).count() \
        .agg(F.count(F.lit(1)).alias("entities"), F.sum("count").alias("actions")).first()
    if row is None or row["entities"] == 0:
        return 0, 0
    return int(row["entities"]), int(row["actions"])


def _raise_strict(validated: DataFrame, rejected: int) -> None:
    samples = [r.asDict() for r in validated.filter(F.col(REASON).isNotNull())
               .select(*ENTITY_COLUMNS, KEY_COLUMN, REASON).limit(_STRICT_SAMPLES).collect()]
    raise RejectedRowsError(rejected, samples)


__all__ = ["MODES", "SendResult", "actions_by_entity", "provision_quotas", "send_actions"]
