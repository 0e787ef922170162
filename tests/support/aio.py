"""Running a coroutine from a synchronous test."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T], timeout: float = 30.0) -> T:
    """Run ``coro`` on a fresh event loop under its own deadline: a hang is a failure with a traceback, not a
    test that waits for pytest-timeout (or a CI job that never ends)."""
    return asyncio.run(asyncio.wait_for(coro, timeout))
