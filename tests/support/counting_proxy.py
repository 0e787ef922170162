"""A TCP proxy that counts Kafka requests per API key and version, for peers whose own logs we cannot read.

FakeCluster has a request log; Tansu and librdkafka's mock do not.  To assert "FindCoordinator went out as
one batched request" or "50 single-key requests were all in flight at once" against them, this proxy sits
between the client and each node and reads every request header (API key, version, correlation id) on the
way through, then matches each response to its request by correlation id.

Two extras make it useful for such tests:

* ``delay_s`` holds every response until ``delay_s`` after its request arrived.  Responses keep their order,
  so N pipelined requests are all answered about ``delay_s`` after they were sent, while N requests sent one
  after another take about ``N * delay_s``: wall time tells the two apart.
* The broker list in Metadata and DescribeCluster responses is rewritten to the proxy's own addresses, so a
  client that bootstraps through the proxy keeps talking through it.  (FindCoordinator answers are left
  alone: clients that connect to a coordinator by node id, as kadmin does, need no rewrite.)

The proxy is deliberately independent of kadmin's codec: it parses only headers and the broker list, by
hand, from the Kafka protocol's documented layout.  It runs its own event loop in a background thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import struct
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from types import TracebackType

log = logging.getLogger(__name__)

METADATA = 3
DESCRIBE_CLUSTER = 60
_SIZE = struct.Struct(">i")


@dataclass
class ProxiedRequest:
    """One request seen by the proxy; ``answered_at`` is None until its response was passed on."""

    node_id: int
    connection: int
    api_key: int
    version: int
    correlation_id: int
    sent_at: float
    answered_at: float | None = None


@dataclass
class _Conn:
    ident: int
    node_id: int
    pending: dict[int, ProxiedRequest] = field(default_factory=dict)
    max_in_flight: int = 0


# --- the small part of the wire format the proxy needs -----------------------------------------------------


class _Reader:
    def __init__(self, data: bytes, pos: int = 0) -> None:
        self.data = data
        self.pos = pos

    def take(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            raise ValueError("truncated response")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def int8(self) -> int:
        return int(struct.unpack(">b", self.take(1))[0])

    def int16(self) -> int:
        return int(struct.unpack(">h", self.take(2))[0])

    def int32(self) -> int:
        return int(struct.unpack(">i", self.take(4))[0])

    def uvarint(self) -> int:
        shift = value = 0
        while True:
            b = self.take(1)[0]
            value |= (b & 0x7F) << shift
            if not b & 0x80:
                return value
            shift += 7

    def string(self, compact: bool) -> str | None:
        n = self.uvarint() - 1 if compact else self.int16()
        return None if n < 0 else self.take(n).decode()

    def tagged_fields(self) -> bytes:
        start = self.pos
        for _ in range(self.uvarint()):
            self.uvarint()
            self.take(self.uvarint())
        return self.data[start:self.pos]


def _uvarint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _string(s: str | None, compact: bool) -> bytes:
    if s is None:
        return _uvarint(0) if compact else struct.pack(">h", -1)
    raw = s.encode()
    return (_uvarint(len(raw) + 1) if compact else struct.pack(">h", len(raw))) + raw


def rewrite_brokers(api_key: int, version: int, payload: bytes, addresses: dict[tuple[str, int], tuple[str, int]]
                    ) -> bytes:
    """Replace broker host/port pairs in a Metadata or DescribeCluster response (payload after the size).

    Only the broker array is re-encoded; everything before and after it is copied byte for byte.
    """
    if api_key == METADATA:
        flexible = version >= 9
    elif api_key == DESCRIBE_CLUSTER:
        flexible = True
    else:
        return payload
    r = _Reader(payload, 4)  # correlation id
    if flexible:
        r.tagged_fields()  # response header v1
    if api_key == METADATA:
        if version >= 3:
            r.int32()  # throttle_time_ms
    else:
        r.int32()  # throttle_time_ms
        r.int16()  # error_code
        r.string(True)  # error_message
        if version >= 1:
            r.int8()  # endpoint_type
        r.string(True)  # cluster_id
        r.int32()  # controller_id
    head = payload[:r.pos]
    count = r.uvarint() - 1 if flexible else r.int32()
    out = bytearray(head)
    out += _uvarint(count + 1) if flexible else struct.pack(">i", count)
    for _ in range(max(count, 0)):
        node_id = r.int32()
        host = r.string(flexible)
        port = r.int32()
        rack = r.string(flexible) if (api_key == DESCRIBE_CLUSTER or version >= 1) else None
        fenced = r.take(1) if api_key == DESCRIBE_CLUSTER and version >= 2 else b""
        tags = r.tagged_fields() if flexible else b""
        assert host is not None
        host, port = addresses.get((host, port), (host, port))
        out += struct.pack(">i", node_id) + _string(host, flexible) + struct.pack(">i", port)
        if api_key == DESCRIBE_CLUSTER or version >= 1:
            out += _string(rack, flexible)
        out += fenced + tags
    out += payload[r.pos:]
    return bytes(out)


# --- the proxy ---------------------------------------------------------------------------------------------


class CountingProxy:
    """One listener on 127.0.0.1 per upstream node; see the module docstring.

    ``upstream`` maps node id to the node's real (host, port).  Thread-safe for the test thread: every
    accessor copies under a lock.
    """

    def __init__(self, upstream: dict[int, tuple[str, int]], *, delay_s: float = 0.0,
                 host: str = "127.0.0.1") -> None:
        self.upstream = dict(upstream)
        self.delay_s = float(delay_s)
        self.host = host
        self.listeners: dict[int, tuple[str, int]] = {}
        self._lock = threading.Lock()
        self._requests: list[ProxiedRequest] = []
        self._conns: list[_Conn] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._servers: list[asyncio.Server] = []
        self._tasks: set[asyncio.Task[None]] = set()
        self._writers: set[asyncio.StreamWriter] = set()

    # --- lifecycle
    def start(self) -> CountingProxy:
        loop = asyncio.new_event_loop()
        ready = threading.Event()

        def run() -> None:
            asyncio.set_event_loop(loop)
            loop.call_soon(ready.set)
            loop.run_forever()

        self._loop = loop
        self._thread = threading.Thread(target=run, name="counting-proxy", daemon=True)
        self._thread.start()
        ready.wait(5)
        asyncio.run_coroutine_threadsafe(self._listen(), loop).result(10)
        return self

    async def _listen(self) -> None:
        for node_id in sorted(self.upstream):
            server = await asyncio.start_server(lambda r, w, n=node_id: self._serve(n, r, w), self.host, 0)
            self._servers.append(server)
            self.listeners[node_id] = (self.host, server.sockets[0].getsockname()[1])

    def close(self) -> None:
        if self._loop is None or self._thread is None:
            return
        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()
        self._loop = self._thread = None

    async def _shutdown(self) -> None:
        for s in self._servers:
            s.close()
        for w in list(self._writers):
            w.close()
        for t in list(self._tasks):
            t.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def __enter__(self) -> CountingProxy:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    @property
    def bootstrap(self) -> str:
        return ",".join(f"{h}:{p}" for h, p in (self.listeners[n] for n in sorted(self.listeners)))

    # --- what tests read
    @property
    def requests(self) -> list[ProxiedRequest]:
        with self._lock:
            return list(self._requests)

    def count(self, api_key: int | None = None, version: int | None = None, node: int | None = None) -> int:
        return sum(1 for r in self.requests if (api_key is None or r.api_key == api_key)
                   and (version is None or r.version == version) and (node is None or r.node_id == node))

    def versions(self, api_key: int) -> Counter[int]:
        return Counter(r.version for r in self.requests if r.api_key == api_key)

    def max_in_flight(self) -> int:
        """Most requests ever outstanding at once on one connection (sent, response not yet passed on)."""
        with self._lock:
            return max((c.max_in_flight for c in self._conns), default=0)

    def clear(self) -> None:
        with self._lock:
            self._requests.clear()
            for c in self._conns:
                c.max_in_flight = len(c.pending)

    # --- one client connection
    async def _serve(self, node_id: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)  # type: ignore[arg-type]
        self._writers.add(writer)
        with self._lock:
            conn = _Conn(len(self._conns), node_id)
            self._conns.append(conn)
        up_writer: asyncio.StreamWriter | None = None
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.upstream[node_id])
            self._writers.add(up_writer)
            back = asyncio.ensure_future(self._responses(conn, up_reader, writer))
            try:
                await self._requests_to(conn, reader, up_writer)
            finally:
                # The client closed (or sent garbage): let the last answers through, then stop.
                with contextlib.suppress(asyncio.TimeoutError, Exception):
                    await asyncio.wait_for(asyncio.shield(back), self.delay_s + 1.0)
                back.cancel()
                await asyncio.gather(back, return_exceptions=True)
        except (ConnectionError, asyncio.IncompleteReadError, OSError, asyncio.CancelledError):
            pass
        finally:
            for w in (writer, up_writer):
                if w is not None:
                    self._writers.discard(w)
                    w.close()
            self._tasks.discard(task)  # type: ignore[arg-type]

    async def _requests_to(self, conn: _Conn, reader: asyncio.StreamReader, up: asyncio.StreamWriter) -> None:
        while True:
            size = _SIZE.unpack(await reader.readexactly(4))[0]
            frame = await reader.readexactly(size)
            if len(frame) >= 8:
                api_key, version, corr = struct.unpack_from(">hhi", frame, 0)
                req = ProxiedRequest(conn.node_id, conn.ident, api_key, version, corr, time.monotonic())
                with self._lock:
                    self._requests.append(req)
                    conn.pending[corr] = req
                    conn.max_in_flight = max(conn.max_in_flight, len(conn.pending))
            up.write(_SIZE.pack(size) + frame)
            await up.drain()

    async def _responses(self, conn: _Conn, up: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            size = _SIZE.unpack(await up.readexactly(4))[0]
            payload = await up.readexactly(size)
            (corr,) = struct.unpack_from(">i", payload, 0)
            with self._lock:
                req = conn.pending.get(corr)
            if req is not None:
                wait = req.sent_at + self.delay_s - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                if req.api_key in (METADATA, DESCRIBE_CLUSTER):
                    try:
                        payload = rewrite_brokers(req.api_key, req.version, payload, self._address_map())
                    except (ValueError, struct.error, UnicodeDecodeError) as exc:
                        log.warning("proxy: could not rewrite API %d v%d response: %s", req.api_key,
                                    req.version, exc)
            writer.write(_SIZE.pack(len(payload)) + payload)
            await writer.drain()
            with self._lock:
                if req is not None:
                    req.answered_at = time.monotonic()
                    conn.pending.pop(corr, None)

    def _address_map(self) -> dict[tuple[str, int], tuple[str, int]]:
        return {addr: self.listeners[n] for n, addr in self.upstream.items() if n in self.listeners}
