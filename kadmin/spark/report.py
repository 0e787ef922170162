"""Progress reporting and the results DataFrame.

Why progress goes both to the log and to an optional callback: a batch job wants INFO lines it can grep
afterwards, a terminal wants a bar; neither should have to parse the other.  The log is throttled to one
line per tenth of the work so that 100,000 entities do not write 100,000 lines.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import StringType, StructField, StructType

from kadmin.spark.kinds.quotas.schema import ENTITY_COLUMNS, RESULT_COLUMNS, entity_schema

log = logging.getLogger("kadmin.spark")

#: Result statuses.
OK, FAILED, REJECTED, UNCHANGED, PLANNED, VALIDATED = "ok", "failed", "rejected", "unchanged", "planned", "validated"


@dataclass(frozen=True)
class Progress:
    """Where a provisioning run is; passed to the ``progress`` callback of both ``provision_quotas`` and
    ``provision`` (one progress type for the one pipeline).

    ``phase`` is ``"planned"`` (once, before sending: the totals are known), ``"sending"`` (after each batch
    came back) or ``"done"`` (once, at the end) for ``provision_quotas``; for ``provision`` it is the title of
    the phase being sent (``"SCRAM users upserted"``, ``"topics created"``...), ``"starting"``, then ``"done"``
    with ``finished`` set.  Entities count distinct entities with at least one change; ``actions_*`` count
    (entity, key) changes (a tenant plan has one change per entity).  ``entities_done`` counts entities the
    cluster answered for plus those that failed or were skipped before sending, so that it reaches
    ``entities_total``; ``entities_failed`` is the part of it that did not succeed.  ``done``, ``total`` and
    ``failed`` are short names of the entity counts.
    """

    phase: str
    entities_total: int
    actions_total: int
    entities_done: int = 0
    entities_failed: int = 0
    actions_done: int = 0
    requests: int = 0
    elapsed_s: float = 0.0
    finished: bool = False

    @property
    def fraction(self) -> float:
        return 1.0 if self.entities_total == 0 else self.entities_done / self.entities_total

    @property
    def done(self) -> int:
        return self.entities_done

    @property
    def total(self) -> int:
        return self.entities_total

    @property
    def failed(self) -> int:
        return self.entities_failed

    @property
    def rate(self) -> float:
        """Entities per second since sending started (0 when no time has passed)."""
        return self.entities_done / self.elapsed_s if self.elapsed_s > 0 else 0.0

    @property
    def eta_s(self) -> float | None:
        return None if self.rate == 0 else (self.entities_total - self.entities_done) / self.rate


ProgressCallback = Callable[[Progress], None]


class ProgressReporter:
    """Sends each :class:`Progress` to the callback, and to the log at INFO once per 10% of the entities."""

    def __init__(self, callback: ProgressCallback | None, mode: str) -> None:
        if callback is not None and not callable(callback):
            raise TypeError(f"progress must be a callable taking a Progress, not {callback!r}")
        self.callback = callback
        self.mode = mode
        self._next_tenth = 1

    def __call__(self, p: Progress) -> None:
        verb = "validated" if self.mode == "validate" else "sent"
        if p.phase == "planned":
            log.info("%s: %d entities with changes planned (%d set/remove action(s))", self.mode,
                     p.entities_total, p.actions_total)
        elif p.phase == "sending":
            tenth = int(p.fraction * 10)
            if tenth >= self._next_tenth and p.entities_done < p.entities_total:
                self._next_tenth = tenth + 1
                log.info("%s: %d/%d entities %s (%d%%), %d failed, %d request(s)", self.mode, p.entities_done,
                         p.entities_total, verb, int(p.fraction * 100), p.entities_failed, p.requests)
        else:
            log.info("%s: done: %d/%d entities %s, %d failed, %d action(s) in %d request(s)", self.mode,
                     p.entities_done, p.entities_total, verb, p.entities_failed, p.actions_done, p.requests)
        if self.callback is not None:
            self.callback(p)


class StderrProgress:
    """A progress line on a stream (stderr by default): ``done/total entities, rate, ETA, phase``; redrawn in
    place on a terminal, one line per tenth of the work otherwise (a log file gets ten lines, not 100,000)."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._next_tenth = 0

    def __call__(self, p: Progress) -> None:
        eta = "" if p.eta_s is None or p.finished else f", ETA {p.eta_s:.0f}s"
        failed = f", {p.failed} failed" if p.failed else ""
        line = (f"provision: {p.done}/{p.total} entities{failed}, {p.rate:.0f}/s{eta} "
                f"[{'done' if p.finished else p.phase}]")
        tenth = 10 if p.total == 0 else p.done * 10 // p.total
        if self.tty:
            self.stream.write("\r\x1b[K" + line + ("\n" if p.finished else ""))
        elif p.finished or tenth >= self._next_tenth:
            self._next_tenth = tenth + 1
            self.stream.write(line + "\n")
        self.stream.flush()


def failures_schema() -> StructType:
    return entity_schema([StructField("error", StringType(), False)])


def with_failures(plan: DataFrame, failures: DataFrame) -> DataFrame:
    """The plan with the set/remove rows of each failed entity marked ``failed``, with the entity's error.

    ``failures`` holds one row per failed entity (entity columns + error); alter results are per entity,
    so all keys of an entity share its outcome.  Every other row keeps the status the plan gave it.
    """
    sent = F.col("action").isin("set", "remove")
    f = failures.select(*(F.col(c).alias("f_" + c) for c in ENTITY_COLUMNS), F.col("error").alias("f_error"))
    cond = [plan[c].eqNullSafe(f["f_" + c]) for c in ENTITY_COLUMNS]
    joined = plan.join(F.broadcast(f), on=cond, how="left")
    failed = sent & F.col("f_error").isNotNull()
    return joined.select(
        *(plan[c] for c in RESULT_COLUMNS[:7]),
        F.when(failed, F.lit(FAILED)).otherwise(plan["status"]).alias("status"),
        F.when(failed, F.col("f_error")).otherwise(plan["error"]).alias("error"),
    )


def summary(results: DataFrame) -> dict[tuple[str, str], int]:
    """{(action, status): rows}: one small aggregation, for a job's final log line or a CLI's table."""
    rows = results.groupBy("action", "status").count().collect()
    return {(r["action"], r["status"]): int(r["count"]) for r in sorted(rows, key=lambda r: (r[0], r[1]))}
