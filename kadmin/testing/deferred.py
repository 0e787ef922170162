"""Answers that wait: a request the coordinator holds until something else happens (Kafka's purgatory).

A JoinGroup is answered only once every member has joined again, a follower's SyncGroup only once the leader
has sent the assignment.  Handlers run under the cluster lock and must not block, so such a handler returns a
:class:`Deferred`: the broker waits for its future (or its timeout) outside the lock, then calls ``finish``
under the lock to build the answer.  The connection stays muted meanwhile, as a Kafka channel does while one
of its requests sits in purgatory.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass
class Deferred:
    #: Resolved (with any value) by whatever completes the wait; it may also never be.
    future: asyncio.Future[Any]
    #: Seconds to wait at most; ``finish`` then decides what a timeout means.
    timeout_s: float
    #: Builds the response, called with the cluster lock held.
    finish: Callable[[], Any]

    async def wait(self) -> None:
        if not self.future.done():
            await asyncio.wait({self.future}, timeout=max(0.0, self.timeout_s))


def new_future() -> asyncio.Future[Any]:
    """A future on the cluster's loop (handlers run on it)."""
    return asyncio.get_running_loop().create_future()


def resolve(future: asyncio.Future[Any] | None, value: Any = None) -> None:
    if future is not None and not future.done():
        future.set_result(value)
