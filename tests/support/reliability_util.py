"""Helpers shared by the reliability tests: resource snapshots for leak checks, and the client settings they use.

Why snapshots of fds, threads and tasks: a client that survives faults by leaking a socket or a reader task
per reconnect passes every functional assertion and still dies after a day in production.  Counting
``/proc/self/fd`` catches leaked sockets whichever layer forgot them.
"""

from __future__ import annotations

import asyncio
import gc
import os
import threading
import time
from dataclasses import dataclass
from typing import Any

from tests.support.settings import FAULT_FAST

#: Fast retries and short per-request timeouts, so that faults cost milliseconds instead of seconds.
FAST = FAULT_FAST


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


@dataclass(frozen=True)
class Resources:
    fds: int
    threads: int

    @classmethod
    def now(cls) -> Resources:
        gc.collect()
        return cls(open_fds(), threading.active_count())


def wait_for_baseline(before: Resources, *, timeout_s: float = 5.0, fd_slack: int = 0) -> Resources:
    """Poll until fds and threads are back to ``before`` (the fake brokers close their side asynchronously).

    Returns the last snapshot; the caller asserts on it so that a failure shows the numbers.
    """
    until = time.monotonic() + timeout_s
    cur = Resources.now()
    while time.monotonic() < until:
        if cur.fds <= before.fds + fd_slack and cur.threads <= before.threads:
            return cur
        time.sleep(0.05)
        cur = Resources.now()
    return cur


async def other_tasks(settle_s: float = 0.5) -> set[asyncio.Task[Any]]:
    """Tasks of the running loop other than the caller, after giving finished ones a moment to be reaped."""
    me = asyncio.current_task()
    until = time.monotonic() + settle_s
    while True:
        left = {t for t in asyncio.all_tasks() if t is not me and not t.done()}
        if not left or time.monotonic() >= until:
            return left
        await asyncio.sleep(0.02)
