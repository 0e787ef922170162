"""One fake broker: an asyncio server on 127.0.0.1 speaking Kafka's framing and headers.

Like a real broker it reads one size-prefixed request at a time per connection and answers before reading
the next (Kafka mutes a channel while a request is in flight), so a delayed request also delays the ones
queued behind it on the same connection.  Version handling mirrors Kafka's SocketServer/KafkaApis:

* ApiVersions at a version the broker lacks -> KIP-511 fallback (v0 body, header v0, UNSUPPORTED_VERSION,
  only key 18's range);
* any other API or version outside the broker's table -> the connection is closed, because a real broker
  cannot parse such a request (InvalidRequestException closes the channel).
"""

from __future__ import annotations

import asyncio
import collections
import logging
import socket
import ssl
import struct
import time
from typing import TYPE_CHECKING, Any

from kadmin.errors import KafkaError
from kadmin.testing.deferred import Deferred
from kadmin.testing.handlers import HANDLERS, RequestContext, SaslState
from kadmin.testing.handlers.api_versions import fallback_response
from kadmin.testing.handlers.base import NoResponse, has_field
from kadmin.testing.requestlog import RequestLogEntry
from kadmin.testing.schemas import decode_request_header, fake_message_type, response_header_version
from kadmin.versions import VersionTable

if TYPE_CHECKING:
    from kadmin.testing.cluster import FakeCluster

log = logging.getLogger(__name__)

API_VERSIONS = 18
SASL_HANDSHAKE = 17
SASL_AUTHENTICATE = 36
# Kafka's socket.request.max.bytes default.
MAX_REQUEST_BYTES = 100 * 1024 * 1024
_SIZE = struct.Struct(">i")
_HEAD = struct.Struct(">hhi")


#: What Kafka's TLS listener (Java's SSLEngine) answers to bytes that are not a TLS handshake: a fatal alert
#: record (content type 21, TLS 1.2, length 2: level fatal, unexpected_message).  Python's ssl module closes
#: without one, so the fake writes it itself: a plaintext client then sees what it sees from Kafka.
TLS_ALERT_UNEXPECTED_MESSAGE = bytes([21, 3, 3, 0, 2, 2, 10])


class _TlsSniffer(asyncio.Protocol):
    """A TLS listener's first look at a connection: a TLS ClientHello is handed to the TLS server; anything
    else (a plaintext Kafka request) gets a TLS alert and the connection is closed, as Kafka does."""

    def __init__(self, broker: Broker, tls: ssl.SSLContext) -> None:
        self.broker = broker
        self.tls = tls

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        transport.pause_reading()
        sock = transport.get_extra_info("socket")
        asyncio.get_running_loop().create_task(self._sniff(sock))

    async def _sniff(self, sock: Any) -> None:
        loop = asyncio.get_running_loop()
        raw = sock.dup()  # ours: the transport keeps (and closes) the original, which it never reads
        try:
            ready = loop.create_future()
            def readable() -> None:
                if not ready.done():
                    ready.set_result(None)

            loop.add_reader(raw.fileno(), readable)
            try:
                await asyncio.wait_for(ready, 30)
            finally:
                loop.remove_reader(raw.fileno())
            first = raw.recv(1, socket.MSG_PEEK)
        except (OSError, asyncio.TimeoutError):
            raw.close()
            self.transport.close()
            return
        if first[:1] == bytes([22]):  # a handshake record: TLS
            self.broker._adopt_tls(raw, self.tls)
        else:
            try:
                raw.setblocking(True)
                raw.sendall(TLS_ALERT_UNEXPECTED_MESSAGE)
            except OSError:
                pass
            raw.close()
        self.transport.close()


class Connection:
    """Per-connection state: the peer, and SASL progress."""

    def __init__(self, peer: str) -> None:
        self.peer = peer
        self.sasl = SaslState()


class Outbox:
    """Where a connection's answers go: straight to the socket, or ``latency_s`` later.

    ``latency_s`` models the network, not the broker's service time: each answer leaves ``latency_s`` after its
    request arrived, in order (Kafka answers a connection's requests in order), while the broker goes on reading
    and answering the next requests.  So a client that pipelines pays the latency once, not once per request,
    exactly as it would against a remote broker.
    """

    def __init__(self, writer: asyncio.StreamWriter, latency_s: float) -> None:
        self.writer = writer
        self.latency_s = latency_s
        self._arrival = 0.0
        self._queue: collections.deque[tuple[float, bytes]] = collections.deque()
        self._wake = asyncio.Event()
        self._pump: asyncio.Task[None] | None = None

    def arrived(self) -> None:
        self._arrival = asyncio.get_running_loop().time()

    async def send(self, data: bytes) -> None:
        if self.latency_s <= 0:
            self.writer.write(data)
            await self.writer.drain()
            return
        self._queue.append((self._arrival + self.latency_s, data))
        self._wake.set()
        if self._pump is None:
            self._pump = asyncio.create_task(self._run())

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            while not self._queue:
                self._wake.clear()
                await self._wake.wait()
            due, _ = self._queue[0]
            wait = due - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            # Everything due by now leaves in one write, as a kernel would coalesce it.
            now = loop.time()
            batch = []
            while self._queue and self._queue[0][0] <= now:
                batch.append(self._queue.popleft()[1])
            self.writer.write(b"".join(batch))
            await self.writer.drain()

    async def flush(self) -> None:
        """Deliver what is queued (used before closing), then stop the pump."""
        if self._pump is None:
            return
        while self._queue and not self._pump.done():
            await asyncio.sleep(min(self.latency_s, 0.01))
        self._pump.cancel()
        await asyncio.gather(self._pump, return_exceptions=True)


class Broker:
    def __init__(self, cluster: FakeCluster, node_id: int, table: VersionTable, host: str = "127.0.0.1") -> None:
        self.cluster = cluster
        self.node_id = node_id
        self.table = table
        self.host = host
        self.port = 0
        self.alive = False
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._tasks: set[asyncio.Task[None]] = set()

    # --- lifecycle (run on the cluster's loop)
    async def start(self) -> None:
        tls: ssl.SSLContext | None = self.cluster.tls
        if tls is None:
            self._server = await asyncio.start_server(self._serve, self.host, self.port, reuse_address=True)
        else:
            self._server = await asyncio.get_running_loop().create_server(
                lambda: _TlsSniffer(self, tls), self.host, self.port, reuse_address=True)
        self.port = self._server.sockets[0].getsockname()[1]
        self.alive = True
        log.debug("fake broker %d listening on %s:%d", self.node_id, self.host, self.port)

    async def stop(self) -> None:
        self.alive = False
        if self._server is not None:
            self._server.close()
        for w in list(self._writers):
            w.close()
        for t in list(self._tasks):
            t.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()
            self._server = None
        log.debug("fake broker %d stopped", self.node_id)

    def _adopt_tls(self, sock: Any, tls: ssl.SSLContext) -> None:
        """Serve a connection whose first bytes look like TLS over TLS, from the raw socket."""
        async def go() -> None:
            loop = asyncio.get_running_loop()
            reader = asyncio.StreamReader()
            proto = asyncio.StreamReaderProtocol(reader, lambda r, w: None)
            try:
                transport, _ = await loop.connect_accepted_socket(lambda: proto, sock, ssl=tls)
            except (OSError, ssl.SSLError):
                return
            writer = asyncio.StreamWriter(transport, proto, reader, loop)
            await self._serve(reader, writer)

        task = asyncio.get_running_loop().create_task(go())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # --- connection loop
    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        self._writers.add(writer)
        peer = writer.get_extra_info("peername")
        conn = Connection(f"/{peer[0]}" if peer else "/127.0.0.1")
        out = Outbox(writer, self.cluster.latency_s)
        try:
            while self.alive:
                size = _SIZE.unpack(await reader.readexactly(4))[0]
                if size < 0 or size > MAX_REQUEST_BYTES:
                    log.warning("broker %d: closing connection after a frame of %d bytes", self.node_id, size)
                    break
                frame = await reader.readexactly(size)
                out.arrived()
                if not await self._process(conn, frame, out):
                    break
        except (asyncio.IncompleteReadError, ConnectionError, ssl.SSLError, asyncio.CancelledError):
            pass
        finally:
            # Answers already "on the wire" still arrive before the close, as over TCP.
            try:
                await out.flush()
            except (ConnectionError, asyncio.CancelledError):
                pass
            self._writers.discard(writer)
            if task is not None:
                self._tasks.discard(task)
            writer.close()

    async def _send(self, out: Outbox, payload: bytes) -> None:
        await out.send(_SIZE.pack(len(payload)) + payload)

    def _log(self, api_key: int, version: int, corr: int, keys: tuple[str, ...], client_id: str | None) -> None:
        self.cluster._record(RequestLogEntry(self.node_id, api_key, version, corr, keys, client_id, time.time()))

    async def _process(self, conn: Connection, frame: bytes, writer: Outbox) -> bool:
        """Answer one frame; False means close the connection."""
        sasl = conn.sasl
        if sasl.handshake_version == 0 and sasl.exchange is not None and not sasl.authenticated:
            return await self._raw_sasl(conn, frame, writer)
        if len(frame) < 8:
            log.warning("broker %d: closing connection after a %d-byte request", self.node_id, len(frame))
            return False
        api_key, version, corr = _HEAD.unpack_from(frame, 0)
        lo_hi = self.table.get(api_key)
        supported = lo_hi is not None and lo_hi[0] <= version <= lo_hi[1]
        client_id: str | None = None
        body_offset = -1
        try:
            _, _, _, client_id, body_offset = decode_request_header(frame)
        except KafkaError:
            pass

        if api_key == API_VERSIONS and not supported:
            # KIP-511: answer in a form every client can read, so it can retry with a version we have.
            self._log(api_key, version, corr, (), client_id)
            body = fallback_response(self.table).encode(0)
            await self._send(writer, _SIZE.pack(corr) + body)
            return True
        if not supported:
            self._log(api_key, version, corr, (), client_id)
            log.info("broker %d: closing connection: API %d v%d is not in this broker's table", self.node_id,
                     api_key, version)
            return False
        handler = HANDLERS.get(api_key)
        if handler is None or not handler.serves(version) or body_offset < 0:
            self._log(api_key, version, corr, (), client_id)
            log.warning("broker %d: closing connection: the fake cluster does not implement API %d v%d",
                        self.node_id, api_key, version)
            return False
        if sasl.reauthenticating and api_key not in (SASL_HANDSHAKE, SASL_AUTHENTICATE):
            # KIP-368: nothing but the re-authentication itself may be sent while it runs.
            self._log(api_key, version, corr, (), client_id)
            log.info("broker %d: closing connection that sent API %d during re-authentication", self.node_id,
                     api_key)
            return False
        if (sasl.session_expires_at is not None and time.monotonic() > sasl.session_expires_at
                and not sasl.reauthenticating):
            # KIP-368: any request on a connection whose session has ended, a late renewal's SaslHandshake too,
            # closes it (Kafka's SocketServer does so before looking at the request).
            self._log(api_key, version, corr, (), client_id)
            log.info("broker %d: closing connection whose SASL session expired (%s)", self.node_id, sasl.principal)
            return False
        if (self.cluster.sasl is not None and not sasl.authenticated
                and api_key not in (API_VERSIONS, SASL_HANDSHAKE, SASL_AUTHENTICATE)):
            # SaslServerAuthenticator: any other request before authentication is an illegal SASL state.
            self._log(api_key, version, corr, (), client_id)
            log.info("broker %d: closing unauthenticated connection that sent API %d", self.node_id, api_key)
            return False
        try:
            req, _end = fake_message_type(api_key, "request").decode_from(frame, body_offset, version)
        except KafkaError as exc:
            self._log(api_key, version, corr, (), client_id)
            log.warning("broker %d: closing connection: undecodable API %d v%d request: %s", self.node_id,
                        api_key, version, exc)
            return False
        try:
            keys = tuple(handler.keys(req, version))
        except Exception:  # noqa: BLE001 - a key extractor bug must not take the broker down
            log.exception("broker %d: could not extract request keys", self.node_id)
            keys = ()
        self._log(api_key, version, corr, keys, client_id)

        faults = self.cluster._take_faults(self.node_id, api_key)
        if faults.delay_s > 0:
            await asyncio.sleep(faults.delay_s)
        if faults.drop_before:
            log.info("broker %d: dropping connection before handling API %d (injected)", self.node_id, api_key)
            return False
        if not self.alive:
            return False
        ctx = RequestContext(self.cluster, self.cluster._state, self.node_id, self.table, conn.peer, sasl,
                             client_id=client_id or "")
        with self.cluster._lock:
            resp: Any
            try:
                if faults.error_code is not None:
                    resp = handler.error_response(ctx, req, version, faults.error_code)
                else:
                    resp = handler.handle(ctx, req, version)
            except Exception:  # noqa: BLE001 - like a broker, answer UNKNOWN_SERVER_ERROR and keep serving
                log.exception("broker %d: handler for API %d v%d failed", self.node_id, api_key, version)
                resp = handler.error_response(ctx, req, version, -1)
        if isinstance(resp, Deferred):
            # Held in "purgatory" (a JoinGroup waiting for the other members): wait outside the lock.
            await resp.wait()
            if not self.alive:
                return False
            with self.cluster._lock:
                try:
                    resp = resp.finish()
                except Exception:  # noqa: BLE001 - as above
                    log.exception("broker %d: deferred answer for API %d v%d failed", self.node_id, api_key,
                                  version)
                    resp = handler.error_response(ctx, req, version, -1)
        if isinstance(resp, NoResponse):
            return not resp.close and not faults.drop_after
        if faults.throttle_ms is not None and has_field(type(resp), "throttle_time_ms", version):
            resp.throttle_time_ms = faults.throttle_ms
        if faults.drop_after:
            log.info("broker %d: dropping connection after handling API %d (injected)", self.node_id, api_key)
            return False
        header = _SIZE.pack(corr) + (b"\x00" if response_header_version(api_key, version) >= 1 else b"")
        try:
            body = resp.encode(version)
        except KafkaError:
            log.exception("broker %d: cannot encode the API %d v%d response; closing", self.node_id, api_key,
                          version)
            return False
        await self._send(writer, header + body)
        return not sasl.close_after_response

    async def _raw_sasl(self, conn: Connection, frame: bytes, writer: Outbox) -> bool:
        """SaslHandshake v0 mode: bare SASL tokens, each in a size-prefixed frame with no Kafka header."""
        from kadmin.testing.sasl import SaslFailure

        try:
            token, done = conn.sasl.exchange.step(frame)
        except SaslFailure as exc:
            log.info("broker %d: SASL authentication failed: %s", self.node_id, exc)
            return False
        if done:
            conn.sasl.authenticated = True
            conn.sasl.principal = conn.sasl.exchange.principal
        await self._send(writer, token)
        return True
