"""One TCP (optionally TLS) connection to a Kafka-protocol peer: framing, correlation ids, pipelining.

Requests are written as soon as they are asked for and answered in any order the peer chooses; each answer is
matched to its request by correlation id.  Kafka brokers answer in order, but matching by id costs nothing and
also serves peers that do not.  An answer whose id is not in flight means the byte stream can no longer be
trusted, so the connection is closed and every request in flight fails with a retriable KafkaConnectionError:
the caller resends on a fresh connection rather than guessing which answer belonged to whom.

The frame size is checked from the 4-byte prefix before the body is read, so a corrupt or hostile length can
not make the client allocate gigabytes.

Nothing here knows about versions, SASL or metadata: those are layered on top (negotiation, sasl, client).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import logging
import socket
import ssl
import struct
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from kadmin.config import ClientConfig
from kadmin.errors import (
    AuthenticationError,
    HostResolutionError,
    KafkaConnectionError,
    KafkaError,
    KafkaTimeoutError,
    ProtocolError,
    SecurityMismatchError,
    UndecodableResponseError,
)
from kadmin.network.retry import Deadline, sleep_within
from kadmin.protocol import Message, api_name, message_type
from kadmin.protocol.headers import (
    encode_request_header,
    read_correlation_id,
    response_body_offset,
    response_header_version,
)

logger = logging.getLogger("kadmin.network.connection")

_MAX_CORRELATION_ID = 2**31 - 1


_FRAME_HEAD = struct.Struct(">ihhi")  # size, api key, version, correlation id: how every request frame starts
_DRAIN_ABOVE = 1 << 20  # bytes queued in the transport before a writer waits for the socket


class _Pending:
    __slots__ = ("api_key", "version", "future", "sent_at")

    def __init__(self, api_key: int, version: int, future: asyncio.Future[bytes]) -> None:
        self.api_key = api_key
        self.version = version
        self.future = future
        self.sent_at = time.monotonic()


def format_address(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


class Connection:
    """A pipelined request/response channel to one peer.

    Create with :meth:`open`.  Usable from whichever event loop opened it (and only that one).  ``node_id`` is
    None for bootstrap connections, whose peer's id is not known yet.
    """

    def __init__(self, host: str, port: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *,
                 config: ClientConfig, node_id: int | None = None) -> None:
        self.host = host
        self.port = port
        self.node_id = node_id
        self._config = config
        self._reader = reader
        self._writer = writer
        #: Whether the connection is TLS (a TLS record in place of a frame size then means something else).
        self._ssl = writer.get_extra_info("sslcontext") is not None
        self._pending: dict[int, _Pending] = {}
        self._next_corr = 0
        self._closed = False
        self._close_reason: BaseException | None = None
        #: The peer closed the connection (as opposed to the client, a timeout or a bad frame).
        self.closed_by_peer = False
        # Request slots (config.max_in_flight): a count and a FIFO of waiters, like asyncio.Semaphore, but a free
        # slot is taken without a coroutine call, which matters when thousands of requests are pipelined.
        self._free_slots = config.max_in_flight
        self._slot_waiters: collections.deque[asyncio.Future[None]] = collections.deque()
        self._drain_lock = asyncio.Lock()
        self._outbuf: list[bytes] = []
        self._header_tails: dict[tuple[int, int], bytes] = {}
        self._flush_scheduled = False
        #: Bytes written to the socket so far: lets callers (and tests) prove that nothing was sent.
        self.bytes_sent = 0
        #: (api_key, version) -> number of requests written, for diagnostics and tests.
        self.requests_sent: collections.Counter[tuple[int, int]] = collections.Counter()
        #: Largest number of requests that were in flight at once.
        self.max_in_flight_seen = 0
        self.opened_at = time.monotonic()
        #: Monotonic time after which a SASL session must be renewed (KIP-368); None: no limit.
        self.reauth_at: float | None = None
        #: KIP-368 re-authentication, set by SASL (kadmin.network.sasl) when the broker limits the session and can
        #: renew it: run once, on this connection, before the first request after ``reauth_at`` (see _renew_session).
        self.reauthenticate: Callable[[Connection], Awaitable[None]] | None = None
        #: Monotonic time when the broker ends the SASL session (then any request closes the connection).
        self.session_ends_at: float | None = None
        self._reauth_task: asyncio.Task[None] | None = None
        #: Monotonic time before which no request is sent, set from responses' throttle_time_ms (KIP-219).
        self.throttle_until = 0.0
        self._reader_task: asyncio.Task[None] = asyncio.get_running_loop().create_task(
            self._read_loop(), name=f"kadmin-read-{self.label}")

    # ----------------------------------------------------------------------------------------------- opening

    @classmethod
    async def open(cls, host: str, port: int, *, config: ClientConfig, ssl_context: ssl.SSLContext | None = None,
                   node_id: int | None = None, timeout_s: float | None = None) -> Connection:
        """Connect (and do the TLS handshake) within ``timeout_s`` (default: ``config.connect_timeout_s``).

        Failures to reach the peer are retriable KafkaConnectionErrors; a TLS certificate or handshake
        rejection is an AuthenticationError, because retrying cannot fix a wrong CA or host name.
        """
        timeout = config.connect_timeout_s if timeout_s is None else timeout_s
        where = _describe(host, port, node_id)
        if timeout <= 0:
            raise KafkaTimeoutError(f"no time left to connect to {where}")
        kwargs: dict[str, Any] = {}
        if ssl_context is not None:
            kwargs = {"ssl": ssl_context, "server_hostname": host, "ssl_handshake_timeout": timeout}
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port, **kwargs), timeout)
        except asyncio.TimeoutError:
            raise KafkaConnectionError(f"connecting to {where} timed out after {timeout:.1f}s") from None
        except ssl.SSLCertVerificationError as exc:
            raise AuthenticationError(
                f"TLS: the certificate of {where} was rejected: {exc.verify_message or exc.reason}") from None
        except (ssl.SSLEOFError, ConnectionResetError, ConnectionAbortedError, BrokenPipeError) as exc:
            if ssl_context is None:
                raise KafkaConnectionError(f"cannot connect to {where}: {_os_cause(exc)}") from None
            # The TCP connection was made (a refusal is ConnectionRefusedError) and then the peer hung up on our
            # ClientHello: a plaintext Kafka listener reads it as an oversized request and closes.
            raise SecurityMismatchError(
                f"TLS handshake with {where} failed: the peer closed the connection when it got our TLS "
                f"ClientHello ({_os_cause(exc)}); the listener probably speaks plaintext: use security.protocol "
                f"PLAINTEXT or SASL_PLAINTEXT for it, or the TLS listener's port") from None
        except ssl.SSLError as exc:
            raise AuthenticationError(f"TLS handshake with {where} failed: {exc.reason or exc}") from None
        except socket.gaierror as exc:
            raise HostResolutionError(f"cannot resolve the host name of {where}: {_os_cause(exc)}") from None
        except OSError as exc:
            raise KafkaConnectionError(f"cannot connect to {where}: {_os_cause(exc)}") from None
        conn = cls(host, port, reader, writer, config=config, node_id=node_id)
        logger.debug("connected to %s%s", where, " over TLS" if ssl_context is not None else "")
        return conn

    # ----------------------------------------------------------------------------------------------- state

    @property
    def label(self) -> str:
        return _describe(self.host, self.port, self.node_id)

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def close_reason(self) -> BaseException | None:
        """Why the connection closed (a ProtocolError, a KafkaConnectionError, ...); None while open."""
        return self._close_reason

    @property
    def in_flight(self) -> int:
        return sum(1 for p in self._pending.values() if not p.future.done())

    # ----------------------------------------------------------------------------------------------- requests

    async def request(self, request: Message, version: int, *, deadline: Deadline) -> Any:
        """Send ``request`` at ``version`` and return the decoded response message.

        The caller is responsible for choosing a version the peer speaks.  A response body that does not
        decode at that version closes the connection and raises a (retriable) KafkaConnectionError whose
        ``__cause__`` is the ProtocolError saying which field was bad.
        """
        api_key = type(request).API_KEY
        if api_key is None:
            raise ProtocolError(f"{type(request).__name__} is not a request message (it has no API key)")
        body = request.encode(version)
        wait = self.throttle_until - time.monotonic()
        if wait > 0:
            logger.debug("%s is throttling us; holding %s for %.3fs", self.label, api_name(api_key), wait)
            if not await sleep_within(wait, deadline):
                raise KafkaTimeoutError(f"the deadline passed while {self.label} was throttling requests "
                                        f"({api_name(api_key)} not sent)")
        frame = await self.request_raw(api_key, version, body, deadline=deadline)
        try:
            return self._decode(frame, api_key, version)
        except KafkaConnectionError as err:
            await self.close(err.__cause__)
            raise

    def _decode(self, frame: bytes, api_key: int, version: int) -> Any:
        """The response message of ``frame``; notes its throttle time.

        A well-framed answer whose body is not a valid answer means the peer is broken or the bytes were
        damaged on the way, and later frames on this stream deserve no more trust than this one: the caller
        closes the connection (with the ProtocolError, the ``__cause__`` of the KafkaConnectionError raised
        here), and the request fails retriably, so it goes to a fresh connection or (for any-node requests)
        to another node, instead of one bad node failing keys that other nodes can answer.
        """
        try:
            response = decode_response(frame, api_key, version)
        except ProtocolError as exc:
            raise UndecodableResponseError(f"{self.label} sent a {api_name(api_key)} v{version} response that does "
                                       f"not decode, so the connection was closed: {exc}") from exc
        throttle_ms = getattr(response, "throttle_time_ms", 0) or 0
        if throttle_ms > 0:
            # KIP-219: the broker answered at once and expects us to hold back for this long.
            self.throttle_until = max(self.throttle_until, time.monotonic() + throttle_ms / 1000.0)
        return response

    async def request_raw(self, api_key: int, version: int, body: bytes, *, deadline: Deadline) -> bytes:
        """Send an encoded request body; return the response frame (header included, size prefix not).

        Waits at most ``request_timeout_s`` (or what is left of ``deadline``, if less).  If the request
        timeout itself passes, the peer is considered stuck and the connection is closed, as Kafka's clients
        do; if only the caller's deadline passes, the connection stays up and the late answer is discarded.
        """
        if self._closed:
            raise self._closed_error()
        if self.reauthenticate is not None and self.reauth_at is not None:
            await self._renew_session(api_key, deadline)
        request_timeout = self._config.request_timeout_s
        budget = deadline.remaining()
        if budget <= 0:
            raise KafkaTimeoutError(f"deadline passed before {api_name(api_key)} could be sent to {self.label}")
        timeout = min(request_timeout, budget)
        started = time.monotonic()
        if not self._take_slot():
            waiter = self._wait_slot()
            try:
                await asyncio.wait_for(waiter, timeout)
            except BaseException as exc:
                self._drop_waiter(waiter)  # a slot handed over as the wait ended goes back
                if isinstance(exc, asyncio.TimeoutError):
                    raise self._timeout_error(api_key, version, budget, request_timeout,
                                              "waiting for a free slot") from None
                raise
        try:
            if self._closed:
                raise self._closed_error()
            fut = self._start(api_key, version, body)
            if self._writer.transport.get_write_buffer_size() > _DRAIN_ABOVE:
                try:
                    await self._drain()
                except BaseException:
                    if fut.done() and not fut.cancelled():
                        fut.exception()  # retrieved: this caller gets its own error
                    fut.cancel()
                    raise
            left = timeout - (time.monotonic() - started)
            try:
                return await asyncio.wait_for(fut, max(left, 0.0))
            except asyncio.TimeoutError:
                fut.cancel()  # a late answer is read and dropped by the reader
                err = self._timeout_error(api_key, version, budget, request_timeout, "waiting for the response")
                if isinstance(err, KafkaConnectionError):
                    await self.close(err)
                raise err from None
            except asyncio.CancelledError:
                fut.cancel()
                raise
        finally:
            self._release_slot()

    async def request_many(self, requests: Sequence[Message], version: int, *, deadline: Deadline,
                           each: Callable[[int, Any, KafkaError | None], None]) -> None:
        """Send many requests of one API at ``version``, pipelined; ``each(i, response, error)`` per request.

        The same as ``request`` on every request at once (the same slots, throttling, timeouts and errors: each
        request gets its response or its own KafkaError), without a task, a timer and a waiter per request:
        requests are written as slots free up, and answers are decoded and handed to ``each`` as they arrive,
        in arrival order.  ``each`` runs in this coroutine; an exception from it ends the call (requests
        still in flight are abandoned, as if cancelled) and propagates.
        """
        n = len(requests)
        if n == 0:
            return
        api_key = type(requests[0]).API_KEY
        if api_key is None or any(type(r).API_KEY != api_key for r in requests):
            raise ProtocolError("request_many needs request messages of one API")
        name = api_name(api_key)
        if self.reauthenticate is not None and self.reauth_at is not None:
            await self._renew_session(api_key, deadline)
        bodies: list[bytes | None] = [None] * n
        todo = list(range(n))
        if self.throttle_until > time.monotonic():
            # As ``request`` does for each request: encode first, so an unencodable request fails as such and
            # not as held back; the send loop below then holds the rest while the peer throttles us.
            todo = []
            for i, r in enumerate(requests):
                try:
                    bodies[i] = r.encode(version)
                except KafkaError as exc:
                    each(i, None, exc)
                    continue
                todo.append(i)
        if self._closed:
            for i in todo:
                each(i, None, self._closed_error())
            return
        request_timeout = self._config.request_timeout_s
        budget = deadline.remaining()
        if budget <= 0:
            for i in todo:
                each(i, None, KafkaTimeoutError(f"deadline passed before {name} could be sent to {self.label}"))
            return
        loop = asyncio.get_running_loop()
        expired = False

        def expire() -> None:
            nonlocal expired
            expired = True
            if not wake.done():
                wake.set_result(None)

        # KIP-219: an answer that says "throttled" holds back the requests not yet written (before the first one
        # too), as it holds back the next ``request``; answers to those already in flight are still read.  As
        # for ``request``, only the caller's deadline runs during the hold, and what is sent after it gets a
        # fresh request timeout.
        hold: asyncio.TimerHandle | None = None
        timer: asyncio.TimerHandle  # the batch's timer: ``expire`` when the time for what is out runs out

        def arm() -> asyncio.TimerHandle:
            nonlocal budget
            budget = deadline.remaining()
            return loop.call_later(budget if hold is not None else min(request_timeout, budget), expire)

        def hold_over() -> None:
            nonlocal hold, timer
            hold = None
            timer.cancel()
            timer = arm()
            if not wake.done():
                wake.set_result(None)

        ready: collections.deque[asyncio.Future[bytes]] = collections.deque()

        def arrived(fut: asyncio.Future[bytes]) -> None:
            ready.append(fut)
            if not wake.done():
                wake.set_result(None)

        def woken(_: asyncio.Future[Any]) -> None:
            if not wake.done():
                wake.set_result(None)

        wake: asyncio.Future[None] = loop.create_future()
        timer = arm()
        in_flight: dict[asyncio.Future[bytes], int] = {}
        waiter: asyncio.Future[None] | None = None
        pos = 0  # next index of ``todo`` to send
        held = 0  # slots held and not yet used (granted to ``waiter``)
        try:
            while pos < len(todo) or in_flight:
                # Send while slots are free (and the peer is not throttling us).
                while pos < len(todo) and not expired and hold is None:
                    throttled = self.throttle_until - time.monotonic()
                    if throttled > 0:
                        logger.debug("%s is throttling us; holding %d %s requests for %.3fs", self.label,
                                     len(todo) - pos, name, throttled)
                        hold = loop.call_later(throttled, hold_over)
                        timer.cancel()
                        timer = arm()
                        break
                    if held:
                        held -= 1
                    elif waiter is None and self._take_slot():
                        pass
                    else:
                        if waiter is None:
                            waiter = self._wait_slot()
                            waiter.add_done_callback(woken)
                        break
                    i = todo[pos]
                    pos += 1
                    if self._closed:
                        self._release_slot()
                        each(i, None, self._closed_error())
                        continue
                    try:
                        body = bodies[i]
                        if body is None:
                            body = requests[i].encode(version)
                        fut = self._start(api_key, version, body)
                    except KafkaError as exc:
                        self._release_slot()
                        each(i, None, exc)
                        continue
                    fut.add_done_callback(arrived)
                    in_flight[fut] = i
                    if self._writer.transport.get_write_buffer_size() > _DRAIN_ABOVE:
                        with contextlib.suppress(KafkaConnectionError):
                            # A failed write closed the connection: every request in flight (this one too)
                            # fails with the connection's error, and the rest are not sent.
                            await self._drain()
                while ready:
                    fut = ready.popleft()
                    i = in_flight.pop(fut)
                    self._release_slot()
                    if fut.cancelled():  # pragma: no cover - only this call cancels its futures
                        continue
                    failure = fut.exception()
                    if failure is not None:
                        each(i, None, failure if isinstance(failure, KafkaError)
                             else KafkaConnectionError(str(failure)))
                        continue
                    try:
                        response = self._decode(fut.result(), api_key, version)
                    except KafkaConnectionError as bad:
                        await self.close(bad.__cause__)
                        each(i, None, bad)
                        continue
                    each(i, response, None)
                if expired:
                    break
                if waiter is not None and waiter.done():
                    waiter = None
                    held += 1
                if pos < len(todo) and held == 0 and waiter is None and hold is None and not self._slot_waiters \
                        and self._free_slots > 0:
                    continue  # slots were freed above: go on sending without waiting
                if not ready and (pos < len(todo) or in_flight) and (held == 0 or hold is not None):
                    await wake
                    wake = loop.create_future()
            if expired:
                # The batch's time is up: what waits for a slot and what waits for an answer fail as ``request``
                # fails them; a request timeout (not just the caller's deadline) closes the connection.
                last: KafkaError | None = None
                if hold is not None:  # during a hold only the caller's deadline runs (see ``arm``)
                    budget = 0.0
                for i in todo[pos:]:
                    if hold is not None:
                        each(i, None, KafkaTimeoutError(f"the deadline passed while {self.label} was throttling "
                                                        f"requests ({name} not sent)"))
                        continue
                    each(i, None, self._timeout_error(api_key, version, budget, request_timeout,
                                                      "waiting for a free slot"))
                pos = len(todo)
                for fut, i in list(in_flight.items()):
                    del in_flight[fut]
                    fut.cancel()  # a late answer is read and dropped by the reader
                    self._release_slot()
                    last = self._timeout_error(api_key, version, budget, request_timeout, "waiting for the response")
                    each(i, None, last)
                if isinstance(last, KafkaConnectionError):
                    await self.close(last)
        finally:
            timer.cancel()
            if hold is not None:
                hold.cancel()
            if waiter is not None:
                self._drop_waiter(waiter)
            for _ in range(held):
                self._release_slot()
            for fut in in_flight:
                fut.cancel()
                self._release_slot()

    # ----------------------------------------------------------------------------------------------- KIP-368

    async def _renew_session(self, api_key: int, deadline: Deadline) -> None:
        """Hold a request while the SASL session is renewed on this connection, starting the renewal when
        ``reauth_at`` has passed.  The renewal's own requests pass; requests already in flight are answered
        as usual (matched by correlation id), so no call fails because a session ends.  A failed renewal closes
        the connection, and the requests waiting for it fail retriably (the renewal's error as the cause): they
        go to a new connection, which logs in afresh, so credentials the broker no longer accepts fail there,
        once, with the broker's reason, and a renewal refused for another reason (a changed principal) costs
        only a reconnection."""
        task = self._reauth_task
        if task is not None and task is asyncio.current_task():
            return
        if task is None or task.done():
            hook = self.reauthenticate
            if hook is None or self.reauth_at is None or time.monotonic() < self.reauth_at:
                return
            task = self._reauth_task = asyncio.get_running_loop().create_task(
                self._run_renewal(hook), name=f"kadmin-reauth-{self.label}")
        left = deadline.remaining()
        try:
            await asyncio.wait_for(asyncio.shield(task), None if left == float("inf") else left)
        except asyncio.TimeoutError:
            raise KafkaTimeoutError(f"the deadline passed while {self.label} re-authenticated ({api_name(api_key)} "
                                    "not sent)") from None
        if self._closed:
            raise self._closed_error()

    async def _run_renewal(self, hook: Callable[[Connection], Awaitable[None]]) -> None:
        try:
            await hook(self)
        except Exception as exc:  # noqa: BLE001 - any failure ends this connection's session
            logger.info("re-authentication on %s failed, closing the connection: %s", self.label, exc)
            err = KafkaConnectionError(f"re-authentication on {self.label} failed: {exc}")
            err.__cause__ = exc
            await self.close(err)

    # ----------------------------------------------------------------------------------------------- slots

    def _take_slot(self) -> bool:
        """Take a free slot if there is one and nobody is queued for it."""
        if self._free_slots > 0 and not self._slot_waiters:
            self._free_slots -= 1
            return True
        return False

    def _wait_slot(self) -> asyncio.Future[None]:
        """A future that is resolved when a slot is handed over (FIFO)."""
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._slot_waiters.append(fut)
        return fut

    def _drop_waiter(self, waiter: asyncio.Future[None]) -> None:
        """Give up waiting for a slot: a slot already handed over goes back, an unserved wait is withdrawn."""
        if waiter.done() and not waiter.cancelled():
            self._release_slot()
        else:
            waiter.cancel()

    def _release_slot(self) -> None:
        while self._slot_waiters:
            waiter = self._slot_waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return
        self._free_slots += 1

    # ----------------------------------------------------------------------------------------------- writing

    def _start(self, api_key: int, version: int, body: bytes) -> asyncio.Future[bytes]:
        """Queue one request (the caller holds a slot); its future gets the response frame."""
        corr = self._next_corr
        self._next_corr = 0 if corr >= _MAX_CORRELATION_ID else corr + 1
        tail = self._header_tails.get((api_key, version))
        if tail is None:
            # The request header is the same for every request of an API version but for the correlation id:
            # built once (by encode_request_header, which defines it), then only the id is packed per request.
            tail = self._header_tails[(api_key, version)] = encode_request_header(
                api_key, version, 0, self._config.client_id)[8:]
        size = 8 + len(tail) + len(body)
        if size > self._config.max_frame_bytes:
            raise ProtocolError(f"{api_name(api_key)} request of {size} bytes is larger than "
                                f"max_frame_bytes={self._config.max_frame_bytes}")
        frame = _FRAME_HEAD.pack(size, api_key, version, corr) + tail + body
        fut: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        self._pending[corr] = _Pending(api_key, version, fut)
        if len(self._pending) > self.max_in_flight_seen:
            self.max_in_flight_seen = len(self._pending)
        self._outbuf.append(frame)
        self.bytes_sent += len(frame)
        if not self._flush_scheduled:
            self._flush_scheduled = True
            asyncio.get_running_loop().call_soon(self._flush)
        self.requests_sent[(api_key, version)] += 1
        return fut

    def _timeout_error(self, api_key: int, version: int, budget: float, request_timeout: float,
                       doing: str) -> KafkaError:
        what = f"{api_name(api_key)} v{version} to {self.label}"
        if request_timeout <= budget:
            return KafkaConnectionError(f"{what}: no response within request_timeout_s={request_timeout:g} "
                                        f"({doing}); closing the connection")
        return KafkaTimeoutError(f"{what}: the call's deadline passed ({doing})")

    async def _drain(self) -> None:
        # Frames queued in the same event-loop turn leave in one write (one syscall instead of one per request):
        # what makes hundreds of pipelined single-key lookups cheap.  Backpressure: writers wait for the socket
        # only when the transport holds more than _DRAIN_ABOVE unsent bytes.
        try:
            async with self._drain_lock:
                await self._writer.drain()
        except (OSError, RuntimeError) as exc:
            err = KafkaConnectionError(f"writing to {self.label} failed: {exc}")
            await self.close(err)
            raise self._closed_error() from None

    def _flush(self) -> None:
        self._flush_scheduled = False
        if not self._outbuf:
            return
        data = b"".join(self._outbuf) if len(self._outbuf) > 1 else self._outbuf[0]
        self._outbuf.clear()
        if self._closed:
            return
        try:
            self._writer.write(data)
        except (OSError, RuntimeError) as exc:
            asyncio.get_running_loop().create_task(
                self.close(KafkaConnectionError(f"writing to {self.label} failed: {exc}")))

    # ----------------------------------------------------------------------------------------------- reading

    async def _read_loop(self) -> None:
        reason: BaseException | None = None
        limit = self._config.max_frame_bytes
        try:
            while True:
                head = await self._reader.readexactly(4)
                size = int.from_bytes(head, "big", signed=True)
                if size > limit and not self._ssl and _looks_like_tls(head):
                    raise SecurityMismatchError(
                        f"{self.label} answered with a TLS record (bytes {head.hex()}), not a Kafka response: "
                        "this listener speaks TLS: use security.protocol SSL or SASL_SSL for it")
                if size < 4 or size > limit:
                    raise ProtocolError(f"{self.label} sent a frame of {size} bytes; accepted sizes are "
                                        f"4..{limit} (max_frame_bytes)")
                frame = await self._reader.readexactly(size)
                corr = read_correlation_id(frame)
                pending = self._pending.pop(corr, None)
                if pending is None:
                    raise ProtocolError(f"{self.label} sent a response with correlation id {corr}, which matches "
                                        f"no request in flight ({len(self._pending)} in flight)")
                if not pending.future.done():
                    pending.future.set_result(frame)
        except asyncio.IncompleteReadError as exc:
            self.closed_by_peer = True
            reason = KafkaConnectionError(
                f"{self.label} closed the connection" + (" mid-frame" if exc.partial else ""))
        except SecurityMismatchError as exc:
            reason = exc
        except ProtocolError as exc:
            logger.warning("closing connection to %s: %s", self.label, exc)
            reason = exc
        except ssl.SSLError as exc:
            # A TLS alert after the handshake (TLS 1.3 sends "certificate required" only then) is a
            # credentials problem that no retry can fix.
            reason = AuthenticationError(f"TLS: {self.label} ended the session: {exc.reason or exc}")
        except OSError as exc:
            reason = KafkaConnectionError(f"connection to {self.label} failed: {exc}")
        except asyncio.CancelledError:
            reason = None
            raise
        finally:
            if not self._closed:
                self._shutdown(reason or KafkaConnectionError(f"connection to {self.label} closed"))

    # ----------------------------------------------------------------------------------------------- closing

    def _closed_error(self) -> KafkaError:
        reason = self._close_reason
        if isinstance(reason, SecurityMismatchError):
            return SecurityMismatchError(reason.message)
        if isinstance(reason, AuthenticationError):
            auth = AuthenticationError(reason.message)
            auth.__cause__ = reason
            return auth
        if isinstance(reason, KafkaConnectionError):
            err = KafkaConnectionError(reason.message)
        else:
            err = KafkaConnectionError(f"connection to {self.label} is closed"
                                       + (f": {reason}" if reason is not None else ""))
        err.__cause__ = reason
        return err

    def _shutdown(self, reason: BaseException) -> None:
        """Mark closed, fail everything in flight, drop the socket.  Synchronous so no request slips in."""
        if self._closed:
            return
        self._closed = True
        self._close_reason = reason
        pending, self._pending = self._pending, {}
        failed = 0
        for p in pending.values():
            if not p.future.done():
                p.future.set_exception(self._closed_error())
                failed += 1
        if failed:
            logger.debug("connection to %s closed with %d request(s) in flight: %s", self.label, failed, reason)
        with contextlib.suppress(Exception):
            self._writer.close()

    async def close(self, reason: BaseException | None = None) -> None:
        """Close the connection; requests in flight fail with KafkaConnectionError (``reason`` as cause)."""
        self._shutdown(reason or KafkaConnectionError(f"connection to {self.label} closed by the client"))
        task = self._reader_task
        if not task.done() and task is not asyncio.current_task():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._writer.wait_closed(), 1.0)

    def __repr__(self) -> str:
        state = "closed" if self._closed else f"open, {self.in_flight} in flight"
        return f"<Connection {self.label} {state}>"


@functools.cache
def _response_codec(api_key: int, version: int) -> tuple[int, type[Message]]:
    return response_header_version(api_key, version), message_type(api_key, "response")


def decode_response(frame: bytes, api_key: int, version: int) -> Any:
    """Decode a response frame (header included) for a request sent at ``version``."""
    hv, cls = _response_codec(api_key, version)
    offset = 4 if hv == 0 else response_body_offset(frame, hv)
    obj, _end = cls.decode_from(frame, offset, version, lazy=True)
    return obj


def _looks_like_tls(head: bytes) -> bool:
    """A TLS record header where a frame size should be: content type 20-23 (an alert is 21), then version 3.x."""
    return head[0] in (20, 21, 22, 23) and head[1] == 3 and head[2] <= 4


def _os_cause(exc: OSError) -> str:
    """An OSError's text; some (a bare ConnectionResetError) have none, so name the class instead of ''."""
    text = exc.strerror or str(exc)
    return text if text else type(exc).__name__


def _describe(host: str, port: int, node_id: int | None) -> str:
    addr = format_address(host, port)
    return f"node {node_id} ({addr})" if node_id is not None else f"bootstrap {addr}"


__all__ = ["Connection", "decode_response", "format_address"]
