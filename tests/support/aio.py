"""Running a coroutine from a synchronous test."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

from kadmin import aio
from kadmin.testing import FakeCluster
from tests.support.settings import FAST

T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T], timeout: float = 30.0) -> T:
    """Run ``coro`` on a fresh event loop under its own deadline: a hang is a failure with a traceback, not a
    test that waits for pytest-timeout (or a CI job that never ends)."""
    return asyncio.run(asyncio.wait_for(coro, timeout))


def with_admin(cluster: FakeCluster, fn: Callable[[aio.AdminClient], Awaitable[T]]) -> T:
    """``fn(admin)`` awaited on a fresh event loop, with an async AdminClient on ``cluster`` (the fast settings)
    opened before and closed after."""
    async def main() -> T:
        async with aio.AdminClient(cluster.bootstrap, **FAST) as admin:
            return await fn(admin)
    return asyncio.run(main())
