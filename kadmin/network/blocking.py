"""The sync client's lane: one blocking connection that the calling thread uses itself for a small read.

Why (issue #28, small calls): the sync client runs every call as a task of its event-loop thread, and for one
request to one node the hand-over to that thread and back, the event loop and the operation driver cost more
than the request itself: about 0.17 ms of CPU for a ``describe_cluster`` where kadmin's own building, codec and
answer handling on a blocking socket cost 0.05 ms, and confluent-kafka 0.10 ms (bench/small_calls_floor.py,
same run).  So a few read-only calls of one request to any node (see ``SyncClientBase._call_lean``) are sent
here, on the calling thread, when everything they need is already known; anything else goes the usual way.

What the lane is not: a second client.  It never decides anything.  It connects to a node the async client
already reached, speaks the versions that client negotiated with that node, carries one request at a time
(a lock; a thread that finds it busy takes the usual path), opens its connection only for calls in quick
succession (``_BURST_S``), and raises :class:`LaneUnusable` for whatever it cannot do (a SASL listener, a closed
or failed socket, an answer too large, a lone call): the caller then takes the usual path, which owns retries,
re-bootstrap, authentication and every error message.  A socket that failed or timed
out is closed and not reopened for ``_COOL_OFF_S`` seconds, so a broker that hangs costs one wait, not one per
call.
"""

from __future__ import annotations

import logging
import socket
import struct
import sys
import threading
import time
from typing import TYPE_CHECKING

from kadmin.protocol.headers import encode_request_header

if TYPE_CHECKING:
    import ssl

    from kadmin.config import ClientConfig

log = logging.getLogger(__name__)

_SIZE = struct.Struct(">i")
#: The first read after a request: the answers the lane carries fit (the rest is read as it comes).
_FIRST_READ = 1 << 16
#: After a failure, how long the lane stays shut (the usual path serves every call meanwhile).
_COOL_OFF_S = 30.0
#: A connection is opened only for a call that follows another within this many seconds: a caller that asks
#: now and then gains nothing worth a second connection (and its TLS handshake) per call, and a broker's
#: connection-creation quota counts every one; calls in quick succession (a script's loop) share one.
_BURST_S = 1.0
#: A connection unused for longer is closed before use rather than written to: the broker may have closed it
#: (connections.max.idle.ms, 10 minutes by default), and a call after such a pause is no burst.
_IDLE_S = 60.0


class LaneUnusable(Exception):
    """The lane cannot serve this call (nothing was decided): take the usual path."""


class BlockingLane:
    """One blocking connection, for one request at a time (see the module docstring)."""

    def __init__(self, config: ClientConfig) -> None:
        protocol = config.security_protocol.upper()
        #: SASL listeners need the authentication exchange the usual path owns (and re-authentication): never.
        self.eligible = protocol in ("PLAINTEXT", "SSL")
        self._tls = protocol == "SSL"
        self._config = config
        self._context: ssl.SSLContext | None = None
        self._sock: socket.socket | None = None
        self._where: tuple[str, int] | None = None
        self._correlation = 0
        self._shut_until = 0.0
        self._last_call = float("-inf")  # when the lane was last asked to send (see _BURST_S)
        self._last_use = 0.0  # when its connection last carried a request (see _IDLE_S)
        self.lock = threading.Lock()
        #: The node the lane last spoke to (kept while the async client holds that node ready).
        self.node: int | None = None
        self._bound_ms = 0
        self._heads: dict[tuple[int, int], tuple[bytes, bytes]] = {}

    def usable(self) -> bool:
        return self.eligible and time.monotonic() >= self._shut_until

    def request(self, host: str, port: int, api_key: int, version: int, body: bytes, timeout_s: float) -> bytes:
        """Send one request to ``host:port`` and return its answer (header included); the caller holds
        :attr:`lock`.  LaneUnusable for whatever it cannot do, a silent broker included."""
        if timeout_s <= 0:
            raise LaneUnusable("no time left")
        now = time.monotonic()
        previous, self._last_call = self._last_call, now
        sock = self._connected(host, port, timeout_s, now, previous)
        self._correlation = correlation = (self._correlation + 1) & 0x7FFFFFFF
        try:
            self._bound(sock, timeout_s)
            sock.sendall(self._frame(api_key, version, correlation, body))
            # Most answers come in one read: the size and the frame together.
            data = sock.recv(_FIRST_READ)
            if len(data) < 4:
                data += self._read(sock, 4 - len(data))
            size, = _SIZE.unpack_from(data)
            if not 4 <= size <= self._config.max_frame_bytes:
                raise LaneUnusable(f"an answer of {size} bytes")
            if len(data) < 4 + size:
                data += self._read(sock, 4 + size - len(data))
            elif len(data) > 4 + size:
                raise LaneUnusable("more bytes than one answer")
            frame = data[4:]
        except (TimeoutError, BlockingIOError) as exc:  # (BlockingIOError: SO_RCVTIMEO/SO_SNDTIMEO ran out)
            self._fail(f"no answer from {host}:{port} in {timeout_s:.3f}s")
            raise LaneUnusable(str(exc) or "timed out") from None
        except (OSError, LaneUnusable) as exc:
            self._fail(f"{host}:{port}: {exc}")
            raise LaneUnusable(str(exc)) from None
        if _SIZE.unpack_from(frame)[0] != correlation:
            self._fail(f"{host}:{port} answered out of turn")
            raise LaneUnusable("answer out of turn")
        self._last_use = now
        return frame

    def _frame(self, api_key: int, version: int, correlation: int, body: bytes) -> bytes:
        """The request frame: its header's bytes around the correlation id are made once per API and version."""
        around = self._heads.get((api_key, version))
        if around is None:
            head = encode_request_header(api_key, version, 0, self._config.client_id)
            around = self._heads[api_key, version] = (head[:4], head[8:])
        before, after = around
        return b"".join((_SIZE.pack(len(before) + 4 + len(after) + len(body)), before, _SIZE.pack(correlation),
                         after, body))

    def _bound(self, sock: socket.socket, timeout_s: float) -> None:
        """Bound the next send and reads by ``timeout_s`` (to the millisecond), changing the socket only when the
        bound changes.  A plaintext socket stays blocking and the kernel enforces the bound (SO_SNDTIMEO,
        SO_RCVTIMEO: a send or read then takes one system call, where Python's own timeout polls before each);
        a TLS socket takes Python's timeout."""
        ms = max(1, int(timeout_s * 1000))
        if ms == self._bound_ms:
            return
        if self._tls or sys.platform == "win32":  # (Windows takes a DWORD of milliseconds there: not worth it)
            sock.settimeout(ms / 1000)
        else:
            tv = struct.pack("ll", ms // 1000, (ms % 1000) * 1000)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, tv)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, tv)
        self._bound_ms = ms

    def _connected(self, host: str, port: int, timeout_s: float, now: float, previous: float) -> socket.socket:
        if self._sock is not None and self._where == (host, port):
            if now - self._last_use <= _IDLE_S:
                return self._sock
            log.debug("the sync client's lane closes its connection to %s:%d, idle for %.0fs", host, port,
                      now - self._last_use)
        self.close()
        if now - previous > _BURST_S:  # (not a failure: the lane stays open for the calls that follow soon)
            raise LaneUnusable("no call just before this one: not worth a connection")
        try:
            sock = socket.create_connection((host, port), timeout=min(timeout_s, self._config.connect_timeout_s))
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._bound_ms = 0
            if not self._tls and sys.platform != "win32":
                sock.settimeout(None)  # blocking: the kernel bounds each send and read (see _bound)
            if self._tls:
                if self._context is None:
                    from kadmin.network.tls import build_ssl_context  # (ssl is loaded only with TLS)

                    self._context = build_ssl_context(self._config)
                if self._context is None:
                    raise LaneUnusable("no TLS context")
                sock = self._context.wrap_socket(sock, server_hostname=host)
        except (OSError, ValueError) as exc:  # ssl.SSLError is an OSError
            self._fail(f"cannot connect to {host}:{port}: {exc}")
            raise LaneUnusable(str(exc)) from None
        self._sock, self._where = sock, (host, port)
        return sock

    @staticmethod
    def _read(sock: socket.socket, n: int) -> bytes:
        chunks = []
        while n:
            data = sock.recv(n)
            if not data:
                raise LaneUnusable("the broker closed the connection")
            chunks.append(data)
            n -= len(data)
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)

    def _fail(self, why: str) -> None:
        log.debug("the sync client's lane is shut for %.0fs: %s", _COOL_OFF_S, why)
        self._shut_until = time.monotonic() + _COOL_OFF_S
        self.close()

    def close(self) -> None:
        sock, self._sock, self._where, self.node = self._sock, None, None, None
        if sock is not None:
            try:
                sock.close()
            except OSError:
                pass
