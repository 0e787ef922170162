"""Driver-side application of a plan: stream the actions, batch them per entity, send with bounded concurrency.

Why the driver and not the executors: an AdminClient holds connections, negotiated versions and a
coordinator cache; one client on the driver sends ``ceil(entities / batch_size)`` requests, where one per
executor task would multiply connections and metadata requests by the number of partitions.  Why streaming:
the driver takes one partition of the plan at a time, so it holds at most a partition of actions (two with
prefetch) plus ``max_concurrency`` batches in flight, never the whole plan.  With PySpark 4 and pyarrow each
partition comes as Arrow (``toArrow()`` of that partition, fetched on a background thread while the previous
one is being sent), which costs the driver a fraction of what unpickling one ``Row`` per action does; without
them, ``toLocalIterator()`` brings the same partitions as rows.

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
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import groupby
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from pyspark import StorageLevel
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from kadmin.admin import quotas as admin_quotas
from kadmin.errors import KafkaError
from kadmin.spark.inflight import InFlight
from kadmin.spark.kinds.quotas.diff import (
    BROADCAST_LIMIT,
    ScopeArg,
    check_admin,
    current_frame,
    diff,
    inspect,
    parse_scope,
    read_current,
)
from kadmin.spark.kinds.quotas.schema import (
    DEFAULT_ENTITY,
    ENTITY_COLUMNS,
    ENTITY_TYPES,
    KEY_COLUMN,
    normalize,
)
from kadmin.spark.kinds.quotas.validate import REASON, RejectedRowsError, validate
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

if TYPE_CHECKING:
    from kadmin.client import AdminClient

log = logging.getLogger("kadmin.spark")

MODES = ("apply", "validate", "plan")
# The client's own defaults, so that the Spark path and a direct alter_client_quotas batch alike.
DEFAULT_BATCH_SIZE = admin_quotas.DEFAULT_BATCH_SIZE
DEFAULT_MAX_CONCURRENCY = admin_quotas.DEFAULT_MAX_CONCURRENCY
_STRICT_SAMPLES = 5
ROWS_PER_STREAM_PARTITION = 100_000
#: Smaller partitions for the Arrow stream: the first one is what sending waits for, and each costs one
#: short Spark job, not one per row.
ROWS_PER_ARROW_PARTITION = 50_000
#: Each Arrow partition is fetched by its own job that scans the whole cached plan (``spark_partition_id()``
#: filters, it does not prune), so the fetches cost partitions x plan: measured at 1,000,000 entities (40
#: Arrow partitions) 27 s against 10.5 s for ``toLocalIterator``, which runs one task per partition.  Up to
#: this many partitions the scans stay cheap and the background fetch pays; past it the rows path is used.
ARROW_MAX_PARTITIONS = 4
MAX_STREAM_PARTITIONS = 64

Cells = tuple[str | None, str | None, str | None]
_CELLS = itemgetter(0, 1, 2)  # a streamed row's entity cells


@dataclass
class SendResult:
    """What the driver learned while sending: counts, and the entities that failed with why."""

    entities_total: int = 0
    actions_total: int = 0
    entities_done: int = 0  # answered by the cluster, or failed before sending
    actions_done: int = 0
    requests: int = 0
    entities_streamed: int = 0  # what came out of the stream, sent or not: must match the totals
    actions_streamed: int = 0
    failures: list[tuple[str | None, str | None, str | None, str]] = field(default_factory=list)

    def progress(self, phase: str) -> Progress:
        return Progress(phase, self.entities_total, self.actions_total, self.entities_done, len(self.failures),
                        self.actions_done, self.requests)


def _entity(cells: Cells) -> Any:
    from kadmin.quotas import ClientQuotaEntity

    user, client_id, ip = cells
    if client_id is None and ip is None and user is not None:  # the common shape, without the general loop
        return ClientQuotaEntity({"user": None if user == DEFAULT_ENTITY else user})
    return ClientQuotaEntity({ENTITY_TYPES[c]: (None if v == DEFAULT_ENTITY else v)
                              for c, v in zip(ENTITY_COLUMNS, cells, strict=True) if v is not None})


def _error_text(err: BaseException) -> str:
    name = getattr(err, "name", None) if isinstance(err, KafkaError) else None
    text = f"{name or type(err).__name__}: {err}"
    if getattr(err, "possibly_applied", False):
        # Sent but never answered: the entity may hold the new values already; a re-run settles it.
        text += " (possibly applied: re-run to reconcile)"
    return text


def arrow_stream_available(df: DataFrame) -> bool:
    """True when the plan can be streamed as Arrow: pyarrow is installed and the DataFrame has ``toArrow``
    (PySpark 4.0+, classic and Spark Connect alike)."""
    if not callable(getattr(df, "toArrow", None)):
        return False
    try:
        import pyarrow  # type: ignore[import-untyped]  # noqa: F401
    except ImportError:
        return False
    return True


def stream_partitions(actions: int, per_partition: int = ROWS_PER_STREAM_PARTITION) -> int:
    """How many partitions to stream ``actions`` rows through.

    Each partition costs one Spark job, so the default 200 shuffle partitions would cost 200 jobs for any
    plan; one partition per ``per_partition`` actions keeps the jobs few while bounding what the driver
    holds at once (one partition, two with prefetch).
    """
    return max(1, min(MAX_STREAM_PARTITIONS, -(-actions // per_partition)))


def stream_layout(actions: int, arrow_available: bool) -> tuple[int, bool]:
    """(partitions to stream ``actions`` rows through, whether as Arrow): Arrow while it needs at most
    ``ARROW_MAX_PARTITIONS`` partitions (see there), rows through ``toLocalIterator`` beyond."""
    if arrow_available:
        partitions = stream_partitions(actions, ROWS_PER_ARROW_PARTITION)
        if partitions <= ARROW_MAX_PARTITIONS:
            return partitions, True
    return stream_partitions(actions, ROWS_PER_STREAM_PARTITION), False


def by_entity(plan: DataFrame, partitions: int) -> DataFrame:
    """The plan hash-partitioned by entity and sorted by (entity, key) within each partition.

    Cached in this layout (the totals job materializes it), it serves every later pass without another
    shuffle: the totals (grouped by entity, which the partitioning satisfies), the stream (a scan whose
    sort Spark elides) and the results.
    """
    return plan.repartition(partitions, *ENTITY_COLUMNS).sortWithinPartitions(*ENTITY_COLUMNS, KEY_COLUMN)


def actions_by_entity(plan: DataFrame, partitions: int | None = None,
                      ) -> Iterator[tuple[Cells, list[tuple[str, float | None]]]]:
    """(entity cells, [(key, new value or None to remove)]) per entity with changes, streamed from Spark.

    ``plan`` must come from :func:`by_entity`: its repartition puts all rows of an entity in one partition,
    and the sort here (free when ``plan`` is cached sorted) makes them consecutive.  ``partitions`` is the
    count :func:`by_entity` was given: with it, and Arrow available (:func:`arrow_stream_available`), the
    partitions come as Arrow one by one; otherwise as rows through ``toLocalIterator``.  One plain row per key
    is the cheapest way into Python (measured: grouping per entity in Spark, with arrays, costs more driver
    CPU than it saves).  Only DataFrame API (no RDDs), so this also runs on Spark Connect.
    """
    ordered = plan.filter(F.col("action").isin("set", "remove")) \
        .select(*ENTITY_COLUMNS, KEY_COLUMN, "new_value").sortWithinPartitions(*ENTITY_COLUMNS, KEY_COLUMN)
    rows: Iterable[tuple[Any, ...]]
    if partitions is not None and arrow_stream_available(ordered):
        rows = _arrow_rows(ordered, partitions)
    else:
        # Rows are tuples: itemgetter and unpacking read them in C (Row.__getitem__ is a Python method).
        rows = ordered.toLocalIterator(prefetchPartitions=True)
    # groupby and itemgetter run in C: per key, Python only builds the (key, value) pair.
    for cells, group in groupby(rows, key=_CELLS):
        yield cells, [(key, value) for _, _, _, key, value in group]


def _arrow_rows(ordered: DataFrame, partitions: int) -> Iterator[tuple[Any, ...]]:
    """The rows of ``ordered``, partition after partition in order, each fetched with ``toArrow()`` on a
    background thread while the one before it is consumed (so at most two partitions are on the driver, as
    Arrow buffers; Python objects exist for one Arrow record batch at a time).

    A partition is selected with ``spark_partition_id()``, which is evaluated in the scan of the cached
    plan (no exchange in between), so partition ``i`` here is partition ``i`` of :func:`by_entity`.
    Arrow carries doubles bit for bit, as the row path does.
    """
    pid = F.spark_partition_id()
    session = ordered.sparkSession

    def fetch(i: int) -> Any:
        return ordered.filter(pid == i).toArrow()

    fetched = 0
    pending: _Prefetch | None = _Prefetch(fetch, fetched, session)
    try:
        while pending is not None:
            table = pending.get()
            fetched += 1
            pending = _Prefetch(fetch, fetched, session) if fetched < partitions else None
            for batch in table.to_batches():
                yield from zip(*[col.to_pylist() for col in batch.columns], strict=True)
            del table
    finally:
        if pending is not None:
            pending.wait()  # a stopped stream leaves no job running behind it


class _Prefetch:
    """``fn(arg)`` on a pyspark ``InheritableThread`` (so the job keeps the caller's job group, pool and
    tags); :meth:`get` waits for its result or raises its error."""

    def __init__(self, fn: Callable[[int], Any], arg: int, session: Any) -> None:
        from pyspark.util import InheritableThread

        self._result: Any = None
        self._error: BaseException | None = None

        def run() -> None:
            try:
                self._result = fn(arg)
            except BaseException as exc:  # noqa: BLE001 - handed to the consuming thread by get()
                self._error = exc

        self._thread = InheritableThread(run, session=session, name="kadmin-spark-fetch", daemon=True)
        self._thread.start()

    def wait(self) -> None:
        self._thread.join()

    def get(self) -> Any:
        self.wait()
        if self._error is not None:
            raise self._error
        result, self._result = self._result, None
        return result


@dataclass
class _Sent:
    """One call in flight: its entities' cells and alterations (index for index) and how many ops."""

    cells: list[Cells]
    alterations: list[Any]
    ops: int


def _fold(res: SendResult, fut: cf.Future[Any], sent: _Sent) -> None:
    """One call's answer into ``res``: its entities done, the failed ones with why."""
    res.requests += 1
    res.entities_done += len(sent.cells)
    res.actions_done += sent.ops
    try:
        answer = fut.result()
    except (KafkaError, TypeError, ValueError) as exc:
        # The whole call failed (no broker reachable, the client refused the batch): every entity in it
        # failed with the same error, and the next batch still gets its chance.
        log.warning("a batch of %d entities failed as a whole: %s", len(sent.cells), _error_text(exc))
        res.failures.extend((*cells, _error_text(exc)) for cells in sent.cells)
        return
    # The answer has one entry per alteration; when all of them are None (the usual case), every entity
    # succeeded and there is nothing to look up one by one.
    if len(answer) != len(sent.cells) or list(answer.values()).count(None) != len(answer):
        for cells, alteration in zip(sent.cells, sent.alterations, strict=True):
            outcome = answer.get(alteration.entity, KafkaError("no result was returned for this entity"))
            if outcome is not None:
                res.failures.append((*cells, _error_text(outcome)))


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
    from kadmin.spark.kinds.quotas import alter

    res = SendResult(entities_total=totals[0], actions_total=totals[1])
    report(res.progress("planned"))
    cells_of: list[Cells] = []  # the batch being built: entity cells and alterations, index for index
    batch: list[Any] = []
    batch_ops = 0

    def fold(fut: cf.Future[Any], sent: _Sent) -> None:
        _fold(res, fut, sent)
        report(res.progress("sending"))

    with InFlight(max_concurrency, fold, "kadmin-spark") as calls:
        def submit() -> None:
            nonlocal cells_of, batch, batch_ops
            calls.submit(_Sent(cells_of, batch, batch_ops), alter, admin, batch, validate_only, allow_unknown_keys,
                         batch_size)
            res.entities_streamed += len(batch)
            res.actions_streamed += batch_ops
            cells_of, batch, batch_ops = [], [], 0

        for cells, ops in entities:
            try:
                alteration = ClientQuotaAlteration(_entity(cells), [
                    Remove(key) if value is None else Set(key, value) for key, value in ops])
            except (TypeError, ValueError) as exc:
                # Spark's validation mirrors kadmin.quotas, so this is a disagreement between the two:
                # fail the entity where it can be seen rather than the batch it would travel in.
                res.entities_done += 1
                res.entities_streamed += 1
                res.actions_streamed += len(ops)
                res.failures.append((*cells, _error_text(exc)))
                continue
            cells_of.append(cells)
            batch.append(alteration)
            batch_ops += len(ops)
            if len(batch) >= batch_size:
                submit()
        if batch:
            submit()
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
    _check_options(mode, batch_size, max_concurrency, remove_unlisted=remove_unlisted, strict=strict,
                   allow_unknown_keys=allow_unknown_keys)
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
        partitions, arrow = stream_layout(bound, arrow_stream_available(plan))
        plan = by_entity(plan, partitions).persist(StorageLevel.MEMORY_AND_DISK)
        cached.append(plan)
        totals = _totals(plan)
        steps("plan computed")
        failures = _send_plan(plan, admin, partitions if arrow else None, totals, report,
                              validate_only=mode == "validate", allow_unknown_keys=allow_unknown_keys,
                              batch_size=batch_size, max_concurrency=max_concurrency)
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


def _check_options(mode: str, batch_size: object, max_concurrency: object, **flags: object) -> None:
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
    for name, v in (("batch_size", batch_size), ("max_concurrency", max_concurrency)):
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise ValueError(f"{name} must be a positive int, not {v!r}")
    for name, b in flags.items():
        if not isinstance(b, bool):
            raise TypeError(f"{name} must be a bool, not {b!r}")


def _send_plan(plan: DataFrame, admin: AdminClient, partitions: int | None, totals: tuple[int, int],
               report: ProgressReporter, **options: Any) -> list[tuple[str | None, str | None, str | None, str]]:
    """Stream the cached plan's changes and send them; the failed entities with why."""
    if totals[0] == 0:
        report(Progress("planned", 0, 0))
        report(Progress("done", 0, 0))
        return []
    sent = send_actions(actions_by_entity(plan, partitions), admin, totals=totals, report=report, **options)
    if (sent.entities_streamed, sent.actions_streamed) != totals:
        # Never report a row "ok" that was not sent: the stream and the totals read the same cache, so a
        # difference is a bug, and the results could not be trusted.
        raise RuntimeError(
            f"the plan's stream returned {sent.entities_streamed} entities with {sent.actions_streamed} "
            f"action(s), but the plan has {totals[0]} with {totals[1]}; run again to reconcile")
    return sent.failures


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
