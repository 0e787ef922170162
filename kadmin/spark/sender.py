"""The one sender of provisioning: a phase's items in batches, at most ``max_concurrency`` calls in flight.

Generic over kinds: the kind builds the items from streamed plan rows (``Kind.items``) and each phase sends a
batch of them (``Phase.send``, one call of the client's batched operation, returning {item name: None or its
error}).  Here: the dependency checks before an item is built (an owner that failed skips its dependents, a
revocation that did not succeed holds the deletion of what it names), the thread pool, and the folding of
answers into outcomes.  Answers are folded on the calling thread, which is also where progress is reported.
"""

from __future__ import annotations

import concurrent.futures as cf
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from kadmin.errors import KafkaError
from kadmin.spark.inflight import InFlight
from kadmin.spark.kinds import Kind, Phase, Row, kind
from kadmin.spark.kinds.context import (
    FAILED,
    SKIPPED,
    ApplyContext,
    Item,
    Outcomes,
    error_text,
    status_of,
)

if TYPE_CHECKING:
    from kadmin.client import AdminClient
    from kadmin.spark.spec import SecretResolver

log = logging.getLogger("kadmin.spark")

Answer = dict[str, BaseException | None]


class Sender:
    """Sends one phase's items in batches, at most ``max_concurrency`` calls in flight, and folds answers."""

    def __init__(self, admin: AdminClient, *, validate: bool, batch_size: int, max_concurrency: int,
                 secrets: SecretResolver | None, out: Outcomes, tick: Callable[[str], None],
                 allow_unknown_keys: bool = False) -> None:
        self.ctx = ApplyContext(admin, validate, batch_size, secrets, out, allow_unknown_keys, self.fail)
        self.out = out
        self.max_concurrency = max_concurrency
        self.tick = tick
        self.requests: dict[str, int] = {}
        self._calls: InFlight[tuple[list[Item], Phase]] = InFlight(max_concurrency, self._fold, "kadmin-provision")

    def close(self) -> None:
        self._calls.close()

    def items(self, phase: Phase, group: list[Row]) -> list[Item]:
        """The items of one group of streamed rows (one row, or a topic's configs / a quota entity's keys);
        rows whose owner failed, or whose deletion is held, are recorded ``skipped`` and left out."""
        k = kind(phase.kind)
        rows: list[Row] = []
        for row in group:
            why = _why_skipped(k, row, self.out)
            if why is None:
                rows.append(row)
            else:
                self.out.settle(Item([(k.name, row[0])], None, row[0]), SKIPPED, why)
        return k.items(self.ctx, phase, rows) if rows else []

    def submit(self, phase: Phase, items: list[Item]) -> None:
        if not items:
            return
        api = f"{phase.kind}:{'/'.join(phase.actions)}"
        self.requests[api] = self.requests.get(api, 0) + 1
        self._calls.submit((items, phase), phase.send, self.ctx, items)

    def drain(self, until: int) -> None:
        self._calls.drain(until)

    def _fold(self, fut: cf.Future[Answer], sent: tuple[list[Item], Phase]) -> None:
        items, phase = sent
        try:
            answer = fut.result()
        except (KafkaError, TypeError, ValueError) as exc:
            # The whole call failed (no broker reachable, the client refused the batch): every item in it.
            log.warning("%s: a batch of %d failed as a whole: %s", phase.title, len(items), error_text(exc))
            answer = {i.name: exc for i in items}
        for item in items:
            err = answer.get(item.name, KafkaError(f"no result was returned for {item.name}"))
            self.out.done += len(item.keys)
            if err is not None:
                self.fail(phase, item, status_of(err), error_text(err))
        self.tick(phase.title)

    def fail(self, phase: Phase, item: Item, status: str, error: str) -> None:
        """Record a non-ok outcome, and what it means for the phases after it."""
        self.out.record(item, status, error)
        if phase.blocks and status in (FAILED, SKIPPED):
            self.out.blocked.setdefault((phase.kind, item.name), error)
        hook = kind(phase.kind).on_failure
        if hook is not None:
            hook(self.ctx, phase, item, status, error)


def _why_skipped(k: Kind, row: Row, out: Outcomes) -> str | None:
    key, action, _, args = row
    if action == "delete" and k.owner_name is not None:
        held = out.held.get((k.name, k.owner_name(args) or ""))
        if held is not None:  # a grant naming it is still there (or may be)
            return f"not deleted: {held}"
    for owner in k.owners:
        if action in owner.actions:
            name = owner.name(args)
            why = out.blocked.get((owner.kind, name)) if name is not None else None
            if why is not None:
                return f"{owner.what}{name} was not created: {why}"
    return None


__all__ = ["Sender"]
