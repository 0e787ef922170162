"""The hand-written part of the synchronous AdminClient: its loop thread, its lifecycle and the copy rule.

kadmin/client.py is generated from kadmin/aio.py by scripts/gen_sync.py: one method per public operation of
the asyncio client, each of which copies its arguments (:func:`copied`) and runs the async method here with
:meth:`SyncClientBase._call`.  What is not per method lives in this module, written once.

Why a private loop: scripts, threads and Spark drivers call admin methods from code that has no event loop
(or one they do not own).  One loop thread per client serves every calling thread; calls are submitted
as tasks of that loop (one hand-over each way, see ``SyncClientBase._submit``) and waited on, so the client is
safe to share between threads.
After ``os.fork()`` the child must not use the parent's sockets or loop: the client refuses with a clear
error instead.
"""

from __future__ import annotations

import os
import time
from collections.abc import AsyncIterator, Callable, Coroutine, Generator, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from kadmin.errors import ClientClosedError, ForkedProcessError, KafkaError, KafkaTimeoutError

if TYPE_CHECKING:
    import asyncio
    import threading

    from kadmin import aio
    from kadmin.config import ClientConfig

T = TypeVar("T")
S = TypeVar("S", bound="SyncClientBase")

#: Values read as they are: text and bytes (iterable, but one value), numbers, and tuples and frozensets,
#: which cannot change and are never one-shot (a tuple is also how a caller spells one partition).
_AS_IS = (str, bytes, bytearray, memoryview, int, float, complex, tuple, frozenset, type(None))


def copied(value: T) -> T:
    """``value`` as the loop thread may read it: an iterable or mapping of the caller's, read on the caller's
    thread.

    Why: the loop thread must never run the caller's code (a generator would run there, interleaved with
    every other caller's requests) nor read a list or dict that another thread of the caller may be changing.
    So a mapping becomes a dict (each of its values copied the same way, one level: ``{partition: [brokers]}``
    may carry generators), a set a set, any other iterable a list.  Text, bytes, numbers, tuples, frozensets
    and kadmin's own types (immutable values, even where iterable) pass as they are, and so does anything
    else, for the async client to accept or refuse: copying never changes which calls are refused.
    """
    if _as_is(type(value)):
        return value
    if isinstance(value, Mapping):
        return {k: _copied_value(v) for k, v in value.items()}  # type: ignore[return-value]
    return _copied_value(value)  # type: ignore[no-any-return]


#: Per type, whether its values pass as they are (asked once per type: a mapping of 100,000 OffsetSpecs asks
#: about each value).
_AS_IS_TYPES: dict[type, bool] = {}


def _as_is(cls: type) -> bool:
    known = _AS_IS_TYPES.get(cls)
    if known is None:
        known = _AS_IS_TYPES[cls] = issubclass(cls, _AS_IS) or cls.__module__.partition(".")[0] == "kadmin"
    return known


def _copied_value(value: Any) -> Any:
    if _as_is(type(value)):
        return value
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, set):
        return set(value)
    if isinstance(value, Iterable):
        return list(value)
    return value


async def _make_aio(cfg: ClientConfig) -> aio.AdminClient:
    # Created on the loop thread so that its asyncio primitives belong to that loop.
    from kadmin import aio

    return aio.AdminClient(config=cfg)


class SyncClientBase:
    """The loop thread and the lifecycle (construct, ``with``, close, fork check) of the sync AdminClient."""

    def __init__(self, bootstrap_servers: str | Sequence[str] | None = None, *,
                 config: ClientConfig | None = None, **settings: Any) -> None:
        # asyncio, the network layer and the operation modules load here, with the first client, not with
        # ``from kadmin import AdminClient`` (issue #28: a script that only builds arguments, or ``--help``,
        # does not pay for them).
        import asyncio
        import threading

        from kadmin import aio

        cfg = aio._config(bootstrap_servers, config, settings)
        self.config = cfg
        self._pid = os.getpid()
        self._closed = False
        from kadmin.admin._lane import LANE, LaneRebootstrap
        from kadmin.network.blocking import BlockingLane, LaneUnusable

        self._lane = BlockingLane(cfg)
        self._lane_names = (LANE, LaneRebootstrap, LaneUnusable)
        self._loop: asyncio.AbstractEventLoop = asyncio.new_event_loop()
        self._thread: threading.Thread
        self._thread = threading.Thread(target=self._run_loop, name="kadmin-loop", daemon=True)
        self._thread.start()
        self._aio = self._submit(_make_aio(cfg), timeout=None)

    def _run_loop(self) -> None:
        import asyncio

        asyncio.set_event_loop(self._loop)
        self._loop.run_forever()

    def _check(self) -> None:
        if os.getpid() != self._pid:
            raise ForkedProcessError(
                f"this AdminClient was created in process {self._pid} and cannot be used after fork() "
                f"(in process {os.getpid()}): create a new AdminClient in the child")
        if self._closed:
            raise ClientClosedError("the AdminClient is closed")

    def _submit(self, coro: Coroutine[Any, Any, T], timeout: float | None) -> T:
        """Run ``coro`` as a task of the loop thread and wait for its outcome.

        One cross-thread hand-over each way and nothing more (issue #28, small calls): the task is started by
        one ``call_soon_threadsafe``, and the task itself hands its outcome over and releases a plain lock the
        caller waits on, in the same loop turn as it ends (``run_coroutine_threadsafe`` adds a concurrent
        future, its condition variable, and a done callback one turn later)."""
        call = _Call(coro)
        self._loop.call_soon_threadsafe(call.start, self._loop)
        # The coroutine enforces its own deadline; the margin here only guards against a stuck loop.
        if not call.done.acquire(timeout=-1 if timeout is None else timeout + 30.0):
            self._loop.call_soon_threadsafe(call.cancel)
            raise KafkaTimeoutError("the call did not finish in time")
        if call.error is not None:
            error, call.error = call.error, None  # (no cycle through the traceback)
            raise error
        return call.result  # type: ignore[no-any-return]

    def _call(self, coro: Coroutine[Any, Any, T], timeout: float | None) -> T:
        """Run one call of the async client on the loop thread and wait for it (what every method does)."""
        try:
            self._check()
            checked = _check_timeout(timeout)
        except (KafkaError, ValueError):
            coro.close()
            raise
        return self._submit(coro, checked if checked is not None else self.config.default_timeout_s)

    def _call_lean(self, call: Callable[[float | None], Coroutine[Any, Any, T]], timeout: float | None) -> T:
        """A read that is one request to one node (``describe_cluster``, ``list_topics``, ``describe_configs``:
        scripts/gen_sync.py's LEAN): on the calling thread when it can be (see kadmin.admin._lane), else
        :meth:`_call`.

        Why (issue #28, small calls): for such a call the hand-over to the loop thread and back, the event
        loop and the driver cost more than the request; run here, the async method's own code (its checks,
        the operation's build and handle, its shaping) sends its request on the client's blocking lane
        (kadmin.network.blocking) without awaiting.  ``call(timeout)`` makes the method's coroutine; when the
        lane cannot serve the call, a new one runs the usual way with what is left of ``timeout``, so the
        two never wait longer than the call's timeout together."""
        self._check()
        checked = _check_timeout(timeout)
        budget = checked if checked is not None else self.config.default_timeout_s
        lane = self._lane
        if not lane.usable() or not lane.lock.acquire(blocking=False):  # (busy: another thread's call)
            return self._call(call(timeout), timeout)
        LANE, LaneRebootstrap, LaneUnusable = self._lane_names  # noqa: N806 - (imported names, looked up once)
        began = time.monotonic()
        rebootstrap: str | None = None
        coro = call(timeout)
        token = LANE.set(lane)
        try:
            coro.send(None)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]
        except LaneRebootstrap as exc:
            rebootstrap = str(exc)
        except LaneUnusable:
            pass
        else:  # it awaited something (nothing of the lane's): left unfinished, the usual way does it all
            coro.close()
        finally:
            LANE.reset(token)
            lane.lock.release()
        left = budget - (time.monotonic() - began)
        again = left if left > 0 else _NO_TIME_S
        if rebootstrap is not None:
            from kadmin.network.retry import Deadline

            try:
                self._submit(self._aio.net.rebootstrap(rebootstrap, deadline=Deadline(again)), again)
            except KafkaError:
                pass  # the call itself meets what stands in the way, and says so
            again = max(budget - (time.monotonic() - began), _NO_TIME_S)
        return self._call(call(again), again)

    def _iterate(self, items: AsyncIterator[T], timeout: float | None) -> Generator[T, None, None]:
        """A sync iterator over an async generator method of the async client: each item is awaited on the
        loop thread (``timeout`` applies per item), and leaving the loop early closes the generator there."""
        try:
            while True:
                item = self._call(_next(items), timeout)
                if item is _END:
                    return
                yield item
        finally:
            if not self._closed and os.getpid() == self._pid:
                aclose = getattr(items, "aclose", None)
                if aclose is not None:
                    self._submit(aclose(), timeout=10.0)

    def __enter__(self: S) -> S:
        self._call(self._aio.start(), None)
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the connections and stop the loop thread (idempotent; a no-op in a forked child)."""
        if self._closed or os.getpid() != self._pid:
            return
        try:
            self._submit(self._aio.close(), timeout=10.0)
        finally:
            self._closed = True
            self._lane.close()  # (a call on it now fails over to the usual way, which says the client is closed)
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=10.0)
            if not self._thread.is_alive():
                self._loop.close()

    def __del__(self) -> None:  # best effort: a forgotten client should not keep its thread alive
        try:
            if not self._closed and os.getpid() == self._pid and self._loop.is_running():
                self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass


class _Call:
    """One call handed to the loop thread: its coroutine, the task running it, and its outcome for the caller."""

    __slots__ = ("coro", "task", "done", "result", "error")

    def __init__(self, coro: Coroutine[Any, Any, Any]) -> None:
        import _thread

        self.coro = coro
        self.task: asyncio.Task[None] | None = None
        self.done = _thread.allocate_lock()
        self.done.acquire()  # released once the outcome is in
        self.result: Any = None
        self.error: BaseException | None = None

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        self.task = loop.create_task(self._run())

    async def _run(self) -> None:
        try:
            self.result = await self.coro
        except BaseException as exc:  # noqa: BLE001 - every outcome goes to the caller, who raises it
            self.error = exc
        finally:
            self.coro = None  # type: ignore[assignment]
            self.done.release()

    def cancel(self) -> None:
        if self.task is not None:
            self.task.cancel()
        elif self.coro is not None:
            self.coro.close()  # the caller gave up before the task started


def _check_timeout(timeout: object) -> float | None:
    from kadmin.network.retry import check_timeout

    return check_timeout(timeout)


#: What :func:`_next` answers for an exhausted async iterator (StopAsyncIteration is no result to hand over).
_END: Any = object()
#: What a call that fell back from the lane gets when the lane used up its timeout: the usual way then says
#: the deadline passed, without sending (a timeout must be positive).
_NO_TIME_S = 0.001


async def _next(items: AsyncIterator[T]) -> T:
    try:
        return await items.__anext__()
    except StopAsyncIteration:
        return _END  # type: ignore[no-any-return]
