"""The one in-flight bound of provisioning: at most ``limit`` calls running, answers folded on the caller.

Both senders (a quota plan's entity stream, :func:`kadmin.spark.kinds.quotas.stream.send_actions`, and a tenant plan's
phases, :class:`kadmin.spark.sender.Sender`) send batches through this: one ``AdminClient`` shared by a small
thread pool (the client is thread-safe and batches per node itself), at most ``limit`` calls outstanding, and
each answer handed to ``fold`` on the calling thread, so that outcomes and progress need no lock.
"""

from __future__ import annotations

import concurrent.futures as cf
from collections import deque
from collections.abc import Callable
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class InFlight(Generic[T]):
    """A bounded window of calls: :meth:`submit` waits (folding answers) until fewer than ``limit`` run."""

    def __init__(self, limit: int, fold: Callable[[cf.Future[Any], T], None], name: str) -> None:
        self.limit = limit
        self._fold = fold
        self._pool = cf.ThreadPoolExecutor(max_workers=limit, thread_name_prefix=name)
        self._calls: deque[tuple[cf.Future[Any], T]] = deque()

    def submit(self, tag: T, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn(*args)`` once a slot is free; its answer goes to ``fold(future, tag)``."""
        self.drain(self.limit - 1)
        self._calls.append((self._pool.submit(fn, *args), tag))

    def drain(self, until: int = 0) -> None:
        """Fold answers, as they come, until at most ``until`` calls are still running."""
        while len(self._calls) > until:
            done, _ = cf.wait([f for f, _ in self._calls], return_when=cf.FIRST_COMPLETED)
            for call in [c for c in self._calls if c[0] in done]:
                self._calls.remove(call)
                self._fold(*call)

    def close(self) -> None:
        """Wait for (and fold) every call, then stop the threads."""
        try:
            self.drain(0)
        finally:
            self._pool.shutdown()

    def __enter__(self) -> InFlight[T]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["InFlight"]
