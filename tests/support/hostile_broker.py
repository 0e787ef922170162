"""A hostile broker for tests: a TCP proxy in front of one real (fake) broker that corrupts its answers.

Why a proxy and not a broker of its own: the client must first see a perfectly normal node (ApiVersions
answered properly, the node in the cluster's metadata), and only then get garbage, so that what is tested
is the client's handling of bad bytes on an established connection, not a failed handshake.  Requests are
forwarded untouched; each response frame except ApiVersions is replaced by a corrupted one, chosen by a
seeded generator from the mutations below.  Every mutation is something a broken or malicious peer can
send, and each one targets a different check in the client's read path:

* ``wrong_correlation``: a well-formed answer carrying a correlation id no request has;
* ``length_past_frame``: a string's length prefix pointing past the end of the frame;
* ``giant_array``: the first array's count set to 2**31-1 (a naive decoder allocates it before reading);
* ``invalid_utf8``: the bytes of a known string (a group id...) replaced by invalid UTF-8;
* ``truncated``: the frame cut short, with a size prefix that matches the shorter body;
* ``cut_mid_frame``: a size prefix promising more bytes than are sent, then the connection closed;
* ``huge_prefix``: a 2 GiB size prefix (and then nothing);
* ``random_body``: the header kept, the body replaced by random bytes of a random length;
* ``bit_flips``: a few random bits of the real answer flipped.

Runs its own asyncio loop in a thread, like FakeCluster, so a test's client and the proxy share nothing.
"""

from __future__ import annotations

import asyncio
import random
import struct
import threading
from collections import Counter, deque
from collections.abc import Sequence

from kadmin.protocol.headers import response_header_version

API_VERSIONS = 18
MUTATIONS = ("wrong_correlation", "length_past_frame", "giant_array", "invalid_utf8", "truncated",
             "cut_mid_frame", "huge_prefix", "random_body", "bit_flips")
_SIZE = struct.Struct(">i")


class HostileBroker:
    """Listens on 127.0.0.1; forwards to ``upstream`` (host, port); corrupts every answer but ApiVersions.

    ``mutations`` restricts the choice (default: all); ``strings`` are byte strings the test knows appear in
    answers (group ids, "127.0.0.1"...) so the string mutations can find their target.  ``seen`` counts the
    mutations really applied (a targeted one without a target in a frame falls back to ``truncated``), so a
    test can check that each kind happened.
    """

    def __init__(self, upstream: tuple[str, int], *, seed: int = 0, mutations: Sequence[str] = MUTATIONS,
                 strings: Sequence[bytes] = ()) -> None:
        unknown = set(mutations) - set(MUTATIONS)
        if unknown:
            raise ValueError(f"unknown mutations {sorted(unknown)}")
        self.upstream = upstream
        self.rng = random.Random(seed)
        self.mutations = tuple(mutations)
        self.strings = tuple(strings)
        self.seen: Counter[str] = Counter()
        self.connections = 0  # accepted so far
        self.active = 0  # open now
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="hostile-broker", daemon=True)
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._lock = threading.Lock()

    # --- lifecycle

    def start(self) -> HostileBroker:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(10)
        return self

    async def _start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    def close(self) -> None:
        if not self._thread.is_alive():
            return
        asyncio.run_coroutine_threadsafe(self._stop(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()

    async def _stop(self) -> None:
        if self._server is not None:
            self._server.close()
        for t in list(self._tasks):
            t.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()

    def __enter__(self) -> HostileBroker:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- proxying

    async def _serve(self, c_reader: asyncio.StreamReader, c_writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)  # type: ignore[arg-type]
        self.connections += 1
        self.active += 1
        s_writer: asyncio.StreamWriter | None = None
        try:
            s_reader, s_writer = await asyncio.open_connection(*self.upstream)
            in_flight: deque[tuple[int, int]] = deque()  # (api_key, version), in request order
            # Either side ending (the client closing after garbage, or a mutation that closes) ends both.
            pumps = {asyncio.ensure_future(self._requests(c_reader, s_writer, in_flight)),
                     asyncio.ensure_future(self._responses(s_reader, c_writer, in_flight))}
            try:
                await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for p in pumps:
                    p.cancel()
                await asyncio.gather(*pumps, return_exceptions=True)
        except (OSError, asyncio.CancelledError):
            pass
        finally:
            for w in (c_writer, s_writer):
                if w is not None:
                    w.close()
            self.active -= 1
            self._tasks.discard(task)  # type: ignore[arg-type]

    async def _requests(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                        in_flight: deque[tuple[int, int]]) -> None:
        while True:
            head = await reader.readexactly(4)
            frame = await reader.readexactly(_SIZE.unpack(head)[0])
            api_key, version, _corr = struct.unpack_from(">hhi", frame, 0)
            in_flight.append((api_key, version))
            writer.write(head + frame)
            await writer.drain()

    async def _responses(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                         in_flight: deque[tuple[int, int]]) -> None:
        while True:
            head = await reader.readexactly(4)
            frame = await reader.readexactly(_SIZE.unpack(head)[0])
            api_key, version = in_flight.popleft() if in_flight else (-1, -1)
            if api_key == API_VERSIONS:
                writer.write(head + frame)
                await writer.drain()
                continue
            with self._lock:
                out, close, kind = mutate(self.rng.choice(self.mutations), frame, self.rng, self.strings,
                                          api_key=api_key, version=version)
                self.seen[kind] += 1
            writer.write(out)
            await writer.drain()
            if close:
                return


def mutate(kind: str, frame: bytes, rng: random.Random, strings: Sequence[bytes] = (), *, api_key: int = -1,
           version: int = -1) -> tuple[bytes, bool, str]:
    """The bytes to send instead of ``frame`` (size prefix included), whether to close afterwards, and the
    mutation really applied: a targeted one falls back to ``truncated`` when the frame has no target for it
    (no known string, an API whose layout the table below does not know)."""
    body = bytearray(frame)
    flexible = api_key >= 0 and response_header_version(api_key, version) >= 1
    if kind == "wrong_correlation":
        corr = struct.unpack_from(">i", body, 0)[0]
        struct.pack_into(">i", body, 0, (corr + 1_000_003) % 2**31)
        return _framed(body), False, kind
    if kind == "giant_array":
        at = _first_array(api_key, version, bytes(body), flexible)
        if at is not None:
            if flexible:
                _old, end = _read_uvarint(bytes(body), at)
                body[at:end] = _uvarint(2**31)  # compact arrays store count + 1
            else:
                body[at:at + 4] = struct.pack(">i", 2**31 - 1)
            return _framed(body), False, kind
    if kind == "length_past_frame":
        found = _known_string(bytes(body), strings, flexible)
        if found is not None:
            at, n, width = found
            past = len(body) + rng.randint(1, 1 << 20)
            body[at - width:at] = _uvarint(past + 1) if flexible else struct.pack(">h", min(past, 2**15 - 1))
            return _framed(body), False, kind
    if kind == "invalid_utf8":
        found = _known_string(bytes(body), strings, flexible)
        if found is not None:
            at, n, _width = found
            body[at:at + n] = (b"\xff\xfe" * n)[:n]
            return _framed(body), False, kind
    if kind == "cut_mid_frame":
        return _SIZE.pack(len(body) + 100) + bytes(body), True, kind
    if kind == "huge_prefix":
        return _SIZE.pack(2**31 - 1), True, kind
    if kind == "random_body":
        return _framed(body[:4] + rng.randbytes(rng.randint(0, 64))), False, kind
    if kind == "bit_flips":
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(4, len(body)) if len(body) > 4 else 0
            body[i] ^= 1 << rng.randrange(8)
        return _framed(body), False, kind
    if kind not in MUTATIONS:
        raise ValueError(kind)
    # "truncated", and the fallback of the targeted mutations: cut inside the body, prefix matching the cut.
    keep = rng.randrange(4, max(5, len(body) - 1))
    return _framed(body[:keep]), False, "truncated"


def _first_array(api_key: int, version: int, frame: bytes, flexible: bool) -> int | None:
    """Offset of the first array count in a response body, for the answers the tests provoke.

    Hand-written from Kafka's response schemas: most admin answers start with ThrottleTimeMs and then their
    array; a few have an error code (and message) first.  None when the layout is not one of these.
    """
    pos = 4
    if flexible:
        if len(frame) < 5 or frame[4] != 0:  # response header v1: only an empty tag section is handled
            return None
        pos = 5
    after_throttle = {15: 1, 42: 0, 49: 0, 3: 3, 10: 4, 9: 8}  # api key: first version with this layout
    if api_key in after_throttle and version >= after_throttle[api_key]:
        at = pos + 4
    elif api_key == 16 and version >= 1:  # ListGroups: throttle, error code, groups
        at = pos + 6
    elif api_key == 48 and flexible:  # DescribeClientQuotas: throttle, error code, error message, entries
        n, at = _read_uvarint(frame, pos + 6)
        at += max(0, n - 1)
    else:
        return None
    return at if at < len(frame) else None


def _known_string(frame: bytes, strings: Sequence[bytes], flexible: bool) -> tuple[int, int, int] | None:
    """(offset, length, width of its length prefix) of a known string in the frame, prefix checked."""
    for s in strings:
        at = frame.find(s, 5)
        while at >= 0:
            if flexible and frame[at - 1] == len(s) + 1 and len(s) < 127:
                return at, len(s), 1
            if not flexible and struct.unpack_from(">h", frame, at - 2)[0] == len(s):
                return at, len(s), 2
            at = frame.find(s, at + 1)
    return None


def _uvarint(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _read_uvarint(buf: bytes, pos: int) -> tuple[int, int]:
    n = shift = 0
    while pos < len(buf):
        b = buf[pos]
        pos += 1
        n |= (b & 0x7F) << shift
        if b < 0x80:
            return n, pos
        shift += 7
    return n, pos


def _framed(body: bytes | bytearray) -> bytes:
    return _SIZE.pack(len(body)) + bytes(body)
