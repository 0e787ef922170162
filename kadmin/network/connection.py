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
from kadmin.network.retry import Deadline
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
_SIZE = struct.Struct(">i")  # a frame's size prefix
_DRAIN_ABOVE = 1 << 20  # bytes queued in the transport before a writer waits for the socket


def format_address(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


class Connection:
    """A pipelined request/response channel to one peer.

    Create with :meth:`open`.  Usable from whichever event loop opened it (and only that one).  ``node_id`` is
    None for bootstrap connections, whose peer's id is not known yet.
    """

    def __init__(self, host: str, port: int, transport: asyncio.Transport, wire: _Wire, *,
                 config: ClientConfig, node_id: int | None = None) -> None:
        self.host = host
        self.port = port
        self.node_id = node_id
        self._config = config
        self._transport = transport
        self._wire = wire
        #: Whether the connection is TLS (a TLS record in place of a frame size then means something else).
        self._ssl = transport.get_extra_info("sslcontext") is not None
        #: Bytes read and not yet handed out: the start of a frame whose end has not arrived.
        self._inbuf = bytearray()
        #: correlation id -> the future of the request's response frame
        self._pending: dict[int, asyncio.Future[bytes]] = {}
        self._next_corr = 0
        self._closed = False
        self._close_reason: BaseException | None = None
        #: The peer closed the connection (as opposed to the client, a timeout or a bad frame).
        self.closed_by_peer = False
        #: Frames read so far: a first "frame" whose size is text means the port is no Kafka listener.
        self.frames_read = 0
        # Request slots (config.max_in_flight): a count and a FIFO of waiters, like asyncio.Semaphore, but a free
        # slot is taken without a coroutine call, which matters when thousands of requests are pipelined.
        self._free_slots = config.max_in_flight
        self._slot_waiters: collections.deque[asyncio.Future[None]] = collections.deque()
        self._drain_lock = asyncio.Lock()
        self._outbuf: list[bytes] = []
        self._header_tails: dict[tuple[int, int], bytes] = {}
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
        wire.attach(self)

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
            wire = _Wire(asyncio.get_running_loop())
            transport, _ = await asyncio.wait_for(
                asyncio.get_running_loop().create_connection(lambda: wire, host, port, **kwargs), timeout)
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
        conn = cls(host, port, transport, wire, config=config, node_id=node_id)
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
        return sum(1 for f in self._pending.values() if not f.done())

    # ----------------------------------------------------------------------------------------------- requests

    async def request(self, request: Message, version: int, *, deadline: Deadline) -> Any:
        """Send ``request`` at ``version`` and return the decoded response message: :meth:`submit` of one.

        The caller is responsible for choosing a version the peer speaks.  The request is encoded first, so
        one that cannot be encoded at ``version`` fails as such, even on a closed or throttled connection.  A
        response body that does not decode at that version closes the connection and raises a (retriable)
        KafkaConnectionError whose ``__cause__`` is the ProtocolError saying which field was bad.
        """
        api_key = type(request).API_KEY
        if api_key is None:
            raise ProtocolError(f"{type(request).__name__} is not a request message (it has no API key)")
        return await self._one(api_key, version, request.encode(version), deadline, True)

    async def request_raw(self, api_key: int, version: int, body: bytes, *, deadline: Deadline) -> bytes:
        """Send an encoded request body; return the response frame (header included, size prefix not).

        :meth:`submit` of one, undecoded: ApiVersions negotiation reads the body of an error answer itself,
        leniently, because peers disagree on its layout.
        """
        frame: bytes = await self._one(api_key, version, body, deadline, False)
        return frame

    async def request_many(self, requests: Sequence[Message], version: int, *, deadline: Deadline,
                           each: Callable[[int, Any, KafkaError | None], None]) -> None:
        """Send many requests of one API at ``version``, pipelined: :meth:`submit` of them all, decoded."""
        if not requests:
            return
        api_key = type(requests[0]).API_KEY
        if api_key is None or any(type(r).API_KEY != api_key for r in requests):
            raise ProtocolError("request_many needs request messages of one API")
        await self.submit(api_key, version, requests, deadline=deadline, each=each)

    async def submit(self, api_key: int, version: int, requests: Sequence[Message | bytes], *,
                     deadline: Deadline, each: Callable[[int, Any, KafkaError | None], None],
                     decode: bool = True) -> None:
        """The one request path: send requests of one API at ``version``; ``each(i, response, error)`` for
        each.

        A request is a message, encoded when its turn comes, or a body already encoded at ``version``.  Each
        gets exactly one call of ``each``: its response (decoded, or the raw frame when ``decode`` is false)
        or its own KafkaError, in the order the answers arrive.  ``each`` runs in this coroutine; an exception
        from it ends the call (requests still in flight are abandoned, as if cancelled) and propagates.

        * In flight: at most ``max_in_flight`` requests per connection, shared by every caller.  A request
          waits for a slot in FIFO order with the other callers' requests, so a big batch does not starve
          single requests: it holds at most one place in the queue at a time.
        * Throttling (KIP-219): while an answer's ``throttle_time_ms`` runs, nothing more is written (answers
          to what is already out are still read); only the caller's deadline runs during such a hold, and
          what is written after it gets a fresh request timeout.
        * Time: everything must be answered within ``request_timeout_s`` (or what is left of ``deadline``, if
          less), counted from the call (or from the end of a hold).  When the request timeout itself passes,
          the peer is considered stuck and the connection is closed, as Kafka's clients do; when only the
          caller's deadline passes, the connection stays up and late answers are read and dropped.
        * Writes: the frames one call queues at once leave in one write; the call waits for the socket only
          when the transport holds more than ``_DRAIN_ABOVE`` unsent bytes.
        * Without a task, a timer or a waiter per request, so thousands of requests cost little more than
          their bytes.
        """
        if requests:
            if self.reauthenticate is not None and self.reauth_at is not None:
                await self._renew_session(api_key, deadline)  # KIP-368: a session due for renewal first
            await _Submission(self, api_key, version, requests, deadline, each, decode).run()

    async def _one(self, api_key: int, version: int, body: bytes, deadline: Deadline, decode: bool) -> Any:
        """:meth:`submit` of one encoded request: its response, or its error raised."""
        if self.reauthenticate is not None and self.reauth_at is not None:
            await self._renew_session(api_key, deadline)  # KIP-368: a session due for renewal first
        budget = deadline.remaining()
        if not self._closed and self._free_slots > 0 and not self._slot_waiters and budget > 0 \
                and not (self.throttle_until and self.throttle_until > time.monotonic()):
            return await self._single(api_key, version, body, budget, decode)
        outcome: list[tuple[Any, KafkaError | None]] = []
        await _Submission(self, api_key, version, (body,), deadline,
                          lambda _i, response, error: outcome.append((response, error)), decode).run()
        response, error = outcome[0]
        if error is not None:
            raise error
        return response

    async def _single(self, api_key: int, version: int, body: bytes, budget: float, decode: bool) -> Any:
        """One request when nothing holds it back (open, a free slot nobody queues for, no throttle, time
        left): what a :class:`_Submission` of one does, without its object, its wake future and the loop turn
        between the answer and its caller (issue #28, small calls).  The caller awaits the answer's future
        itself; the timer fails that future when the time is up (the reader drops a late answer)."""
        self._free_slots -= 1
        try:
            fut = self._start(api_key, version, body)
        except KafkaError:
            self._release_slot()
            raise
        self._flush()
        request_timeout = self._config.request_timeout_s
        timer = asyncio.get_running_loop().call_later(min(request_timeout, budget), _time_up, fut)
        try:
            if self._transport.get_write_buffer_size() > _DRAIN_ABOVE:
                with contextlib.suppress(KafkaConnectionError):
                    await self._drain()  # a failed write closed the connection: the future has its error
            frame = await fut
        except _TimeUp:
            err = self._timeout_error(api_key, version, budget, request_timeout, "waiting for the response")
            if isinstance(err, KafkaConnectionError):
                await self.close(err)
            raise err from None
        except KafkaError:
            raise
        except Exception as exc:  # noqa: BLE001 - a connection failure of another kind, as _Submission says it
            raise KafkaConnectionError(str(exc)) from exc
        finally:
            timer.cancel()
            self._release_slot()
            if not fut.done():
                fut.cancel()  # (the caller was cancelled: a late answer is read and dropped by the reader)
        if not decode:
            return frame
        try:
            return self._decode(frame, api_key, version)
        except KafkaConnectionError as bad:
            await self.close(bad.__cause__)
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
        self._pending[corr] = fut
        if len(self._pending) > self.max_in_flight_seen:
            self.max_in_flight_seen = len(self._pending)
        self._outbuf.append(frame)
        self.bytes_sent += len(frame)
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
        # Frames one submission queues leave in one write (one syscall instead of one per request): what makes
        # hundreds of pipelined single-key lookups cheap.  Backpressure: writers wait for the socket
        # only when the transport holds more than _DRAIN_ABOVE unsent bytes.
        try:
            async with self._drain_lock:
                await self._wire.drain()
        except (OSError, RuntimeError) as exc:
            err = KafkaConnectionError(f"writing to {self.label} failed: {exc}")
            await self.close(err)
            raise self._closed_error() from None

    def _flush(self) -> None:
        """Write what ``_start`` queued, in one write: called by the submission once it has queued what it can
        send now (a single request leaves at once, without waiting for the next event-loop turn)."""
        if not self._outbuf:
            return
        data = b"".join(self._outbuf) if len(self._outbuf) > 1 else self._outbuf[0]
        self._outbuf.clear()
        if self._closed:
            return
        try:
            self._transport.write(data)
        except (OSError, RuntimeError) as exc:
            asyncio.get_running_loop().create_task(
                self.close(KafkaConnectionError(f"writing to {self.label} failed: {exc}")))

    # ----------------------------------------------------------------------------------------------- reading

    def _received(self, data: bytes | bytearray) -> None:
        """Hand out every whole frame in what the socket gave (called by the transport, in the loop's turn that
        read it: the caller waiting for an answer runs in the next turn, with no reader task in between)."""
        if self._closed:
            return
        buf = self._inbuf
        if buf:
            buf += data
            data = buf
        pos, end = 0, len(data)
        limit = self._config.max_frame_bytes
        pending = self._pending
        try:
            while end - pos >= 4:
                size = _SIZE.unpack_from(data, pos)[0]
                if size > limit or size < 4:
                    self._bad_size(bytes(data[pos:pos + 4]), size, limit)
                if end - pos - 4 < size:
                    break
                if data is buf:
                    with memoryview(buf) as view:
                        frame = bytes(view[pos + 4:pos + 4 + size])
                else:
                    frame = bytes(data[pos + 4:pos + 4 + size])  # (a slice of bytes: no second copy)
                pos += 4 + size
                self.frames_read += 1
                corr = read_correlation_id(frame)
                fut = pending.pop(corr, None)
                if fut is None:
                    raise ProtocolError(f"{self.label} sent a response with correlation id {corr}, which matches "
                                        f"no request in flight ({len(pending)} in flight)")
                if not fut.done():  # (cancelled: the caller gave up; the late answer is dropped)
                    fut.set_result(frame)
        except SecurityMismatchError as exc:
            self._shutdown(exc)
            return
        except ProtocolError as exc:
            logger.warning("closing connection to %s: %s", self.label, exc)
            self._shutdown(exc)
            return
        if data is buf:
            del buf[:pos]
        elif pos < end:
            buf += data[pos:]

    def _bad_size(self, head: bytes, size: int, limit: int) -> None:
        """Raise what a frame size outside 4..max_frame_bytes means (checked before its body is read)."""
        if size > limit and not self._ssl and _looks_like_tls(head):
            raise SecurityMismatchError(
                f"{self.label} answered with a TLS record (bytes {head.hex()}), not a Kafka response: "
                "this listener speaks TLS: use security.protocol SSL or SASL_SSL for it")
        if not self.frames_read and all(0x20 <= b < 0x7F for b in head):
            # Its very first answer is text, no Kafka frame (an HTTP server's "HTTP" reads as
            # 1213486160 bytes): asking again, here or at bootstrap, would get the same bytes.
            raise SecurityMismatchError(
                f"{self.label} sent a frame of {size} bytes as its first answer (bytes {head.hex()}); "
                f"accepted sizes are 4..{limit}: it is not a Kafka listener")
        raise ProtocolError(f"{self.label} sent a frame of {size} bytes; accepted sizes are "
                            f"4..{limit} (max_frame_bytes)")

    def _lost(self, exc: BaseException | None) -> None:
        """The transport is gone: the peer closed it, the socket failed, or TLS ended the session."""
        if self._closed:
            return  # (closed by the client, which said why)
        reason: BaseException
        if exc is None:
            self.closed_by_peer = True
            reason = KafkaConnectionError(f"{self.label} closed the connection" + (" mid-frame" if self._inbuf
                                                                                  else ""))
        elif isinstance(exc, ssl.SSLError):
            # A TLS alert after the handshake (TLS 1.3 sends "certificate required" only then) is a
            # credentials problem that no retry can fix.
            reason = AuthenticationError(f"TLS: {self.label} ended the session: {exc.reason or exc}")
        else:
            reason = KafkaConnectionError(f"connection to {self.label} failed: {exc}")
        self._shutdown(reason)

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
        for fut in pending.values():
            if not fut.done():
                fut.set_exception(self._closed_error())
                failed += 1
        if failed:
            logger.debug("connection to %s closed with %d request(s) in flight: %s", self.label, failed, reason)
        with contextlib.suppress(Exception):
            self._transport.close()

    async def close(self, reason: BaseException | None = None) -> None:
        """Close the connection; requests in flight fail with KafkaConnectionError (``reason`` as cause)."""
        self._shutdown(reason or KafkaConnectionError(f"connection to {self.label} closed by the client"))
        with contextlib.suppress(Exception):
            await asyncio.wait_for(asyncio.shield(self._wire.gone), 1.0)

    def __repr__(self) -> str:
        state = "closed" if self._closed else f"open, {self.in_flight} in flight"
        return f"<Connection {self.label} {state}>"


class _Submission:
    """One call of :meth:`Connection.submit`: its state, and the steps of its loop (see ``submit``).

    The loop writes what the slots and the peer allow, hands out what has arrived, and otherwise sleeps on one
    future (``wake``, made only then) that the answers, a granted slot, the end of a throttle hold and the
    timer resolve.  It keeps no bound method of its own (the callbacks it hands out are dropped as they fire
    or are cancelled), so it is freed by reference counting, not left for the cycle collector: thousands are
    made per second when single requests are many.
    """

    __slots__ = ("conn", "api_key", "version", "requests", "deadline", "each", "decode", "loop", "todo",
                 "pos", "budget", "expired", "hold", "timer", "wake", "ready", "in_flight", "waiter")

    def __init__(self, conn: Connection, api_key: int, version: int, requests: Sequence[Message | bytes],
                 deadline: Deadline, each: Callable[[int, Any, KafkaError | None], None],
                 decode: bool) -> None:
        self.conn = conn
        self.api_key = api_key
        self.version = version
        self.requests = requests
        self.deadline = deadline
        self.each = each
        self.decode = decode
        self.loop = asyncio.get_running_loop()
        self.todo: Sequence[int] = range(len(requests))  # indexes still to send, from ``pos`` on
        self.pos = 0
        self.budget = 0.0  # what was left of the deadline when the timer was last armed
        self.expired = False  # the timer ran out: what is not answered fails
        self.hold: asyncio.TimerHandle | None = None  # a throttle hold: nothing is written until it ends
        self.timer: asyncio.TimerHandle | None = None
        self.wake: asyncio.Future[None] | None = None  # what the loop sleeps on, while it sleeps
        self.ready: collections.deque[asyncio.Future[bytes]] = collections.deque()  # answered, not handed out
        self.in_flight: dict[asyncio.Future[bytes], int] = {}
        self.waiter: asyncio.Future[None] | None = None  # our place in the queue for a slot

    async def run(self) -> None:
        if not self._begin():
            return
        conn, todo = self.conn, self.todo
        try:
            while True:
                if self.ready:
                    bad = self._deliver()
                    if bad is not None:
                        i, err = bad
                        await conn.close(err.__cause__)
                        self.each(i, None, err)
                if self.pos < len(todo) and self.hold is None and not self.expired and self._send():
                    with contextlib.suppress(KafkaConnectionError):
                        # A failed write closed the connection: every request in flight fails with the
                        # connection's error, and the rest are not sent.
                        await conn._drain()
                    continue
                if self.pos == len(todo) and not self.in_flight:
                    return  # everything sent and answered
                if self.expired:
                    await self._expire()
                    return
                waiter = self.waiter  # (only while requests wait to be sent)
                if self.hold is not None or waiter is None or not waiter.done():  # else: our slot came: send
                    self.wake = self.loop.create_future()
                    try:
                        await self.wake
                    finally:
                        self.wake = None
        finally:
            self._end()

    def _begin(self) -> bool:
        """Fail everything at once if the connection is closed or the time is up; else arm the timer."""
        conn, each = self.conn, self.each
        if conn.throttle_until and conn.throttle_until > time.monotonic():
            # Encode now, so that a request that cannot be encoded fails as such, not as held back.
            self._encode_all()
        if conn._closed:
            for i in self.todo:
                each(i, None, conn._closed_error())
            return False
        budget = self.deadline.remaining()
        if budget <= 0:
            for i in self.todo:
                each(i, None, KafkaTimeoutError(f"deadline passed before {api_name(self.api_key)} could be "
                                                f"sent to {conn.label}"))
            return False
        self._arm(budget)
        return True

    def _encode_all(self) -> None:
        bodies: list[Message | bytes] = []
        todo: list[int] = []
        for i, r in enumerate(self.requests):
            try:
                bodies.append(r if isinstance(r, (bytes, bytearray)) else r.encode(self.version))
            except KafkaError as exc:
                bodies.append(b"")
                self.each(i, None, exc)
                continue
            todo.append(i)
        self.requests, self.todo = bodies, todo

    def _send(self) -> bool:
        """Write requests while a slot is free and the peer is not throttling us; True when the transport's
        buffer is over ``_DRAIN_ABOVE`` (the caller waits for the socket, then calls again).

        What one call queues leaves in one write, at its end: a single request is on the wire before the
        caller awaits its answer, not one event-loop turn later (issue #28, small calls)."""
        try:
            return self._queue()
        finally:
            if self.conn._outbuf:
                self.conn._flush()

    def _queue(self) -> bool:
        conn, todo, api_key, version = self.conn, self.todo, self.api_key, self.version
        while self.pos < len(todo) and not self.expired and self.hold is None:
            if conn._closed:
                if self.waiter is not None:
                    conn._drop_waiter(self.waiter)
                    self.waiter = None
                self.pos, rest = len(todo), todo[self.pos:]
                for i in rest:
                    self.each(i, None, conn._closed_error())
                return False
            throttled = conn.throttle_until and conn.throttle_until - time.monotonic()
            if throttled > 0:
                logger.debug("%s is throttling us; holding %d %s request(s) for %.3fs", conn.label,
                             len(todo) - self.pos, api_name(api_key), throttled)
                self.hold = self.loop.call_later(throttled, self._hold_over)
                self._rearm()
                return False
            if self.waiter is None and conn._free_slots > 0 and not conn._slot_waiters:
                conn._free_slots -= 1  # Connection._take_slot inline: a free slot, and nobody queued for one
            elif not self._slot():
                return False
            i = todo[self.pos]
            self.pos += 1
            r = self.requests[i]
            try:
                body = r if isinstance(r, (bytes, bytearray)) else r.encode(version)
                fut = conn._start(api_key, version, body)
            except KafkaError as exc:
                conn._release_slot()
                self.each(i, None, exc)
                continue
            fut.add_done_callback(self._arrived)
            self.in_flight[fut] = i
            if conn._transport.get_write_buffer_size() > _DRAIN_ABOVE:
                return True
        return False

    def _slot(self) -> bool:
        """Take a slot for the next request: the one granted to our place in the queue, else a free one (if
        nobody is queued); else queue for one (FIFO with every other caller) and say no."""
        waiter = self.waiter
        if waiter is not None:
            if not waiter.done():
                return False
            self.waiter = None
            return True
        if self.conn._take_slot():
            return True
        self.waiter = waiter = self.conn._wait_slot()
        waiter.add_done_callback(self._wake_up)
        return False

    def _deliver(self) -> tuple[int, KafkaConnectionError] | None:
        """Hand out what has arrived; stops at an answer that does not decode and returns it (the caller
        closes the connection before handing out that error)."""
        conn, ready, each = self.conn, self.ready, self.each
        while ready:
            fut = ready.popleft()
            i = self.in_flight.pop(fut)
            conn._release_slot()
            if fut.cancelled():  # pragma: no cover - only this call cancels its futures
                continue
            failure = fut.exception()
            if failure is not None:
                each(i, None, failure if isinstance(failure, KafkaError)
                     else KafkaConnectionError(str(failure)))
            elif not self.decode:
                each(i, fut.result(), None)
            else:
                try:
                    response = conn._decode(fut.result(), self.api_key, self.version)
                except KafkaConnectionError as bad:
                    return i, bad
                each(i, response, None)
        return None

    async def _expire(self) -> None:
        """The time is up: what waits for a slot and what waits for an answer fail as ``request`` fails them;
        a request timeout (not just the caller's deadline) closes the connection."""
        conn, todo, each = self.conn, self.todo, self.each
        what = f"{api_name(self.api_key)} not sent"
        request_timeout = conn._config.request_timeout_s
        budget = 0.0 if self.hold is not None else self.budget  # during a hold only the deadline runs
        for i in todo[self.pos:]:
            if self.hold is not None:
                each(i, None, KafkaTimeoutError(f"the deadline passed while {conn.label} was throttling "
                                                f"requests ({what})"))
            else:
                each(i, None, conn._timeout_error(self.api_key, self.version, budget, request_timeout,
                                                  "waiting for a free slot"))
        self.pos = len(todo)
        last: KafkaError | None = None
        for fut, i in list(self.in_flight.items()):
            del self.in_flight[fut]
            fut.cancel()  # a late answer is read and dropped by the reader
            conn._release_slot()
            last = conn._timeout_error(self.api_key, self.version, budget, request_timeout,
                                       "waiting for the response")
            each(i, None, last)
        if isinstance(last, KafkaConnectionError):
            await conn.close(last)

    def _end(self) -> None:
        """Give back what this call still holds: the timers, its place in the queue, the slots of requests it
        abandons (cancelled, or ``each`` raised)."""
        conn = self.conn
        if self.timer is not None:
            self.timer.cancel()
        if self.hold is not None:
            self.hold.cancel()
        if self.waiter is not None:
            conn._drop_waiter(self.waiter)
        for fut in self.in_flight:
            fut.cancel()
            conn._release_slot()
        self.in_flight.clear()

    # The timer: during a throttle hold only the caller's deadline runs; otherwise the request timeout too.

    def _arm(self, budget: float) -> None:
        self.budget = budget
        if self.hold is None:
            budget = min(self.conn._config.request_timeout_s, budget)
        self.timer = self.loop.call_later(budget, self._time_up)

    def _rearm(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
        self._arm(self.deadline.remaining())

    # Callbacks: each notes what happened and wakes the loop.

    def _time_up(self) -> None:
        self.expired = True
        self._wake_up(None)

    def _hold_over(self) -> None:
        self.hold = None
        self._rearm()
        self._wake_up(None)

    def _arrived(self, fut: asyncio.Future[bytes]) -> None:
        self.ready.append(fut)
        wake = self.wake
        if wake is not None and not wake.done():
            wake.set_result(None)

    def _wake_up(self, _: object) -> None:
        wake = self.wake
        if wake is not None and not wake.done():
            wake.set_result(None)


class _Wire(asyncio.Protocol):
    """The transport's protocol: what it reads goes straight to the connection's frame parser, in the loop turn
    that read it, and writers wait here when the transport's buffer is full.

    Why not asyncio's streams: with a StreamReader every answer wakes a reader task, which hands the frame to
    its caller one event-loop turn later; here the caller is woken by the turn that read the bytes (issue #28,
    small calls: one turn, one epoll call and a task step fewer per answer)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.conn: Connection | None = None
        self.early: list[bytes] = []  # read before the connection was made (a peer that speaks first)
        self.lost: BaseException | None = None
        self.closed = False
        #: Resolved when the transport is gone (what closing waits for).
        self.gone: asyncio.Future[None] = loop.create_future()
        self.paused = False
        self.drain_waiters: collections.deque[asyncio.Future[None]] = collections.deque()

    def attach(self, conn: Connection) -> None:
        self.conn = conn
        early, self.early = self.early, []
        for data in early:
            conn._received(data)
        if self.closed:
            conn._lost(self.lost)

    def data_received(self, data: bytes) -> None:
        conn = self.conn
        if conn is None:
            self.early.append(data)
        else:
            conn._received(data)

    def eof_received(self) -> bool | None:
        return None  # the transport closes itself; connection_lost says so

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed, self.lost = True, exc
        if not self.gone.done():
            self.gone.set_result(None)
        for waiter in self.drain_waiters:
            if not waiter.done():
                waiter.set_exception(ConnectionResetError("Connection lost"))
        self.drain_waiters.clear()
        if self.conn is not None:
            self.conn._lost(exc)

    def pause_writing(self) -> None:
        self.paused = True

    def resume_writing(self) -> None:
        self.paused = False
        for waiter in self.drain_waiters:
            if not waiter.done():
                waiter.set_result(None)
        self.drain_waiters.clear()

    async def drain(self) -> None:
        """Wait until the transport takes more bytes (at once unless it paused writing)."""
        if self.closed:
            raise ConnectionResetError("Connection lost")
        if not self.paused:
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.drain_waiters.append(waiter)
        await waiter


class _TimeUp(Exception):
    """What the timer of :meth:`Connection._single` fails the answer's future with."""


def _time_up(fut: asyncio.Future[bytes]) -> None:
    if not fut.done():
        fut.set_exception(_TimeUp())


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
