"""Deadlines and retry policy shared by the network layer and the admin operations.

Every admin call has one overall deadline; retries, reconnects and throttling all spend from it, so a call
never takes longer than the user asked no matter how many times a coordinator moves.  Backoff follows Kafka's
clients (exponential, capped, +-20% jitter) so that many clients retrying after one broker restart spread out
instead of arriving in lock-step.

Only errors that say "the same request may succeed later" are retried: retriable broker codes and connection
failures.  Everything else is a real answer and is raised at once.
"""

from __future__ import annotations

import asyncio
import logging
import math
import random
import sys
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from tenacity import AsyncRetrying, RetryCallState, retry_if_exception

from kadmin.errors import KafkaTimeoutError, is_retriable

if TYPE_CHECKING:
    from kadmin.config import ClientConfig

logger = logging.getLogger("kadmin.network.retry")

T = TypeVar("T")

#: Kafka's clients use 20% jitter on both reconnect and retry backoff.
JITTER = 0.2


def check_timeout(timeout: object) -> float | None:
    """A caller's ``timeout``: None (the configured default) or a finite number of seconds above 0.

    Checked before anything is sent or scheduled, so a bad value (a string, NaN, inf, 0, True) is a clear
    ValueError at the call, not a confusing failure later.
    """
    if timeout is None:
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not math.isfinite(timeout) \
            or timeout <= 0:
        raise ValueError(f"timeout must be a positive number of seconds, not {timeout!r}")
    return float(timeout)


class Deadline:
    """A point on the monotonic clock by which a call must finish.

    Passed down instead of timeouts so that each layer sees what is really left, not its own fresh budget.
    ``Deadline(None)`` never expires (for internal calls whose callers bound them otherwise).
    """

    __slots__ = ("_at", "_clock")

    def __init__(self, timeout_s: float | None, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._at = None if timeout_s is None else clock() + max(0.0, float(timeout_s))

    @property
    def at(self) -> float | None:
        """The monotonic time of the deadline (None: never)."""
        return self._at

    def remaining(self) -> float:
        """Seconds left, never negative; ``inf`` for a deadline that never expires."""
        if self._at is None:
            return float("inf")
        return max(0.0, self._at - self._clock())

    @property
    def expired(self) -> bool:
        return self._at is not None and self._clock() >= self._at

    def cap(self, timeout_s: float) -> float:
        """``timeout_s`` or what is left, whichever is smaller: the budget of one sub-step."""
        return min(float(timeout_s), self.remaining())

    def __repr__(self) -> str:
        return "Deadline(never)" if self._at is None else f"Deadline(remaining={self.remaining():.3f}s)"


def backoff_delay(attempt: int, base_s: float, max_s: float, *, jitter: float = JITTER,
                  rng: Callable[[], float] = random.random) -> float:
    """Delay before retry number ``attempt`` (1 = first retry): base * 2**(attempt-1), capped, jittered."""
    if base_s <= 0:
        return 0.0
    raw = min(float(max_s), float(base_s) * 2.0 ** min(max(attempt - 1, 0), 62))
    return max(0.0, raw * (1.0 - jitter + 2.0 * jitter * float(rng())))


async def retry_call(
    fn: Callable[[], Awaitable[T]],
    *,
    deadline: Deadline,
    config: ClientConfig,
    what: str,
    retry_if: Callable[[BaseException], bool] = is_retriable,
    on_retry: Callable[[BaseException, int], Awaitable[None] | None] | None = None,
    possibly_applied: bool = False,
    first_failed: BaseException | None = None,
) -> T:
    """Await ``fn()`` until it succeeds, a non-retriable error escapes, or ``deadline`` passes.

    Each attempt is itself bounded by the deadline.  When time runs out the result is a KafkaTimeoutError whose
    message names ``what`` and the last error (also chained as ``__cause__``), because "timed out" alone does not
    tell an operator whether the broker was down or merely slow.  ``on_retry(exc, attempt)`` runs before each
    backoff sleep, e.g. to drop a cached coordinator.  ``possibly_applied`` is copied onto the timeout error for
    writes whose effect cannot be ruled out.  ``first_failed``: the first attempt, made by the caller (the driver's
    lean round), failed with this retriable error: the retries start with the backoff that follows it.
    """
    attempts = 0
    failed: list[BaseException] = []  # the latest failed attempt's error, for a timeout found before the next one

    async def one() -> T:
        nonlocal attempts
        attempts += 1
        remaining = deadline.remaining()
        if remaining <= 0:  # (a backoff that overslept, on a loaded machine, ends past the deadline)
            last = failed[-1] if failed else None
            raise _timeout(what, attempts - 1, last, possibly_applied) from last
        if remaining == float("inf"):
            return await fn()
        try:
            return await bounded(fn(), remaining)
        except asyncio.TimeoutError:
            raise _timeout(what, attempts, None, possibly_applied) from None

    # Attempt 1 runs without tenacity (a tenth of a small call's CPU, #28); tenacity's attempt n is n + 1 here.
    if first_failed is not None:
        attempts, first = 1, first_failed
    else:
        try:
            return await one()
        except BaseException as exc:  # noqa: BLE001 - what tenacity's attempt would catch, decided by retry_if
            if not retry_if(exc):
                raise
            first = exc
    failed.append(first)
    await _first_backoff(what, first, attempts, deadline, config, on_retry, possibly_applied)

    def wait(rs: RetryCallState) -> float:
        d = backoff_delay(rs.attempt_number + 1, config.retry_backoff_s, config.retry_backoff_max_s)
        return min(d, deadline.remaining())

    def stop(rs: RetryCallState) -> bool:
        # Stop when sleeping would leave (almost) no time for another attempt.
        return deadline.remaining() - rs.upcoming_sleep <= 0.001

    def give_up(rs: RetryCallState) -> Any:
        last = rs.outcome.exception() if rs.outcome is not None else None
        raise _timeout(what, attempts, last, possibly_applied) from last

    async def before_sleep(rs: RetryCallState) -> None:
        exc = rs.outcome.exception() if rs.outcome is not None else None
        assert exc is not None
        failed[:] = [exc]
        await _before_sleep(what, exc, rs.attempt_number + 1, rs.upcoming_sleep, on_retry)

    retrying = AsyncRetrying(
        retry=retry_if_exception(retry_if),
        wait=wait,
        stop=stop,
        reraise=True,
        retry_error_callback=give_up,
        before_sleep=before_sleep,
    )
    async for attempt in retrying:
        with attempt:
            return await one()
    raise AssertionError("unreachable: tenacity ended without a result")  # pragma: no cover


async def _first_backoff(what: str, first: BaseException, attempts: int, deadline: Deadline, config: ClientConfig,
                         on_retry: Callable[[BaseException, int], Awaitable[None] | None] | None,
                         possibly_applied: bool) -> None:
    """The backoff after a failed first attempt (or the timeout, when no time would be left after it)."""
    sleep = min(backoff_delay(1, config.retry_backoff_s, config.retry_backoff_max_s), deadline.remaining())
    if deadline.remaining() - sleep <= 0.001:
        raise _timeout(what, attempts, first, possibly_applied) from first
    await _before_sleep(what, first, 1, sleep, on_retry)
    await asyncio.sleep(sleep)


async def _before_sleep(what: str, exc: BaseException, attempt: int, sleep: float,
                        on_retry: Callable[[BaseException, int], Awaitable[None] | None] | None) -> None:
    logger.debug("%s: attempt %d failed with %r; retrying in %.3fs", what, attempt, exc, sleep)
    if on_retry is not None:
        res = on_retry(exc, attempt)
        if res is not None:
            await res


if sys.version_info >= (3, 11):
    async def bounded(aw: Awaitable[T], timeout: float | None) -> T:
        """``await aw``, cancelled with asyncio.TimeoutError after ``timeout`` seconds (None: never).

        In this task (asyncio.timeout): unlike wait_for, no task of its own and no event-loop turn before it
        starts, which is most of a small call's overhead (issue #28).  On Python 3.10, wait_for."""
        async with asyncio.timeout(timeout):
            return await aw
else:  # pragma: no cover - Python 3.10
    async def bounded(aw: Awaitable[T], timeout: float | None) -> T:
        return await asyncio.wait_for(aw, timeout)


def _timeout(what: str, attempts: int, last: BaseException | None, possibly_applied: bool) -> KafkaTimeoutError:
    if isinstance(last, KafkaTimeoutError):
        return last
    tail = f"; last error: {last!r}" if last is not None else ""
    return KafkaTimeoutError(f"{what}: deadline passed after {attempts} attempt(s){tail}",
                             possibly_applied=possibly_applied)


__all__ = ["Deadline", "JITTER", "backoff_delay", "bounded", "is_retriable", "retry_call"]
