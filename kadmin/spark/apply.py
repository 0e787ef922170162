"""Driver-side application of a plan: stream the actions, batch them per entity, send with bounded concurrency.

Why the driver and not the executors: an AdminClient holds connections, negotiated versions and a
coordinator cache; one client on the driver sends ``ceil(entities / batch_size)`` requests, where one per
executor task would multiply connections and metadata requests by the number of partitions.  Why streaming:
``toLocalIterator()`` brings one partition at a time, so the driver holds at most a partition of actions plus
``max_concurrency`` batches in flight, never the whole plan.

The actions are repartitioned by entity and sorted within partitions, so that all keys of one entity arrive
together and become one ``ClientQuotaAlteration`` (Kafka applies an entity's ops together).  Batches
are sent from a small thread pool through the thread-safe synchronous ``kadmin.AdminClient``; results are
folded on the calling thread, which is also where the progress callback runs.
"""

from __future__ import annotations

import concurrent.futures as cf
import logging
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from pyspark import StorageLevel
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from kadmin.admin import quotas as admin_quotas
from kadmin.errors import KafkaError
from kadmin.spark.plan import ScopeArg, current_frame, diff, inspect, parse_scope, read_current
from kadmin.spark.report import (
    OK,
    VALIDATED,
    Progress,
    ProgressCallback,
    ProgressReporter,
    failures_schema,
    with_outcomes,
)
from kadmin.spark.schema import DEFAULT_ENTITY, ENTITY_COLUMNS, ENTITY_TYPES, KEY_COLUMN, normalize
from kadmin.spark.validate import REASON, RejectedRowsError, validate

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
    return f"{name or type(err).__name__}: {err}"


def stream_partitions(actions: int) -> int:
    """How many partitions to stream ``actions`` rows through.

    ``toLocalIterator`` runs one Spark job per partition, so the default 200 shuffle partitions would cost
    200 jobs for any plan; one partition per ``ROWS_PER_STREAM_PARTITION`` actions keeps the jobs few while
    bounding what the driver's JVM buffers at once (one partition, two with prefetch).
    """
    return max(1, min(MAX_STREAM_PARTITIONS, -(-actions // ROWS_PER_STREAM_PARTITION)))


def actions_by_entity(plan: DataFrame, partitions: int = 1,
                      ) -> Iterator[tuple[Cells, list[tuple[str, str, float | None]]]]:
    """(entity cells, [(action, key, new value)]) per entity with changes, streamed from Spark.

    Only DataFrame API (no RDDs), so this runs on Spark Connect as well as on classic PySpark.
    """
    actions = plan.filter(F.col("action").isin("set", "remove")).select(
        *ENTITY_COLUMNS, KEY_COLUMN, "new_value", "action")
    ordered = actions.repartition(partitions, *ENTITY_COLUMNS).sortWithinPartitions(*ENTITY_COLUMNS, KEY_COLUMN)
    current: Cells | None = None
    ops: list[tuple[str, str, float | None]] = []
    for row in ordered.toLocalIterator(prefetchPartitions=True):
        cells: Cells = (row[0], row[1], row[2])
        if cells != current:
            if current is not None:
                yield current, ops
            current, ops = cells, []
        ops.append((row[5], row[3], row[4]))
    if current is not None:
        yield current, ops


def send_actions(
    entities: Iterator[tuple[Cells, list[tuple[str, str, float | None]]]],
    admin: Any,
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
                        Set(key, value) if action == "set" else Remove(key)  # type: ignore[arg-type]
                        for action, key, value in ops])
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
    admin: Any,
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
    report = ProgressReporter(progress, mode)

    validated = validate(normalize(desired_df, format), allow_unknown_keys=allow_unknown_keys)
    cached: list[DataFrame] = []
    if mode != "plan":
        # Read and validate the input once, although scope, strict and plan each look at it.
        validated = validated.persist(StorageLevel.MEMORY_AND_DISK)
        cached.append(validated)
    try:
        shapes = parse_scope(scope) if scope is not None else None
        if scope is None or strict:
            detected, rejected = inspect(validated)
            if scope is None:
                shapes = detected
            if strict and rejected:
                _raise_strict(validated, rejected)
        current = current_frame(desired_df.sparkSession, read_current(admin, shapes))
        plan = diff(validated, current, remove_unlisted=remove_unlisted)
        if mode == "plan":
            return plan
        plan = plan.persist(StorageLevel.MEMORY_AND_DISK)
        cached.append(plan)
        totals = _totals(plan)
        if totals[0] == 0:
            report(Progress("planned", 0, 0))
            report(Progress("done", 0, 0))
            failures = None
        else:
            stream = actions_by_entity(plan, stream_partitions(totals[1]))
            sent = send_actions(stream, admin, validate_only=mode == "validate",
                                allow_unknown_keys=allow_unknown_keys, batch_size=batch_size,
                                max_concurrency=max_concurrency, totals=totals, report=report)
            failures = (desired_df.sparkSession.createDataFrame(sent.failures, schema=failures_schema())
                        if sent.failures else None)
        results = with_outcomes(plan, failures, VALIDATED if mode == "validate" else OK)
        results = results.persist(StorageLevel.MEMORY_AND_DISK)
        results.count()  # materialize before the plan it was computed from is dropped
        return results
    finally:
        for df in cached:
            df.unpersist()


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
