"""Connection.submit is the one request path: single requests (request, request_raw) and pipelined batches
(request_many) share one in-flight bound with one FIFO queue, one throttle state and one way of failing when
the connection drops.  These tests mix the two kinds of caller on one connection, where two separate paths
could disagree."""

from __future__ import annotations

import asyncio
import struct
import time
from typing import Any

from kadmin.config import ClientConfig
from kadmin.errors import KafkaConnectionError, KafkaError, KafkaTimeoutError
from kadmin.network import Connection, Deadline
from kadmin.protocol import message_type
from kadmin.protocol.headers import decode_request_header
from tests.support.aio import run
from tests.support.raw_server import Handler, read_frame
from tests.support.raw_server import raw_server as server

REQ: Any = message_type(18, "request")
RESP: Any = message_type(18, "response")
V = 3  # ApiVersions v3: its request carries a name, so the peer can tell which request it got
API_VERSIONS_V0 = bytes(REQ().encode(0))  # what request_raw sends here


def cfg(**kw: Any) -> ClientConfig:
    return ClientConfig("127.0.0.1:1", **{"request_timeout_s": 10, "default_timeout_s": 10, **kw})


def request(i: int) -> Any:
    return REQ(client_software_name=f"sw-{i}", client_software_version="1")


def answer(corr: int, throttle_ms: int = 0) -> bytes:
    # ApiVersions answers use response header v0 at every version (KIP-511).
    body = RESP(error_code=0, api_keys=[], throttle_time_ms=throttle_ms).encode(V)
    payload = struct.pack(">i", corr) + bytes(body)
    return struct.pack(">i", len(payload)) + payload


class Collect:
    """The ``each`` callback: (response, error) per index, each index once."""

    def __init__(self) -> None:
        self.got: dict[int, tuple[Any, KafkaError | None]] = {}

    def __call__(self, i: int, response: Any, error: KafkaError | None) -> None:
        assert i not in self.got, f"request {i} reported twice"
        self.got[i] = (response, error)

    def errors(self) -> list[KafkaError]:
        return [e for _r, e in self.got.values() if e is not None]


def slots_all_free(conn: Connection) -> bool:
    return conn._free_slots == conn._config.max_in_flight and not any(  # noqa: SLF001
        not w.done() for w in conn._slot_waiters)  # noqa: SLF001


def name_of(frame: bytes) -> str:
    """The client_software_name of an ApiVersions request frame (what ``request(i)`` put there); "raw" for the
    v0 requests of ``request_raw``, which have none."""
    _api, version, _corr, _client, at = decode_request_header(frame)
    if version < 3:
        return "raw"
    decoded: Any = REQ.decode_from(frame, at, version)[0]
    return str(decoded.client_software_name)


def recording(delay_s: float, arrivals: list[str], peak: list[int], throttle_first_ms: int = 0) -> Handler:
    """Answers each request ``delay_s`` after reading it, without waiting for one answer before reading the
    next; notes each request's name in arrival order and the most requests it held unanswered at once."""
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        open_now = 0
        first = True

        async def later(corr: int, throttle_ms: int) -> None:
            nonlocal open_now
            await asyncio.sleep(delay_s)
            open_now -= 1
            writer.write(answer(corr, throttle_ms))

        tasks = []
        while True:
            frame = await read_frame(reader)
            _api, _v, corr, _client, _at = decode_request_header(frame)
            arrivals.append(name_of(frame))
            open_now += 1
            peak[0] = max(peak[0], open_now)
            tasks.append(asyncio.ensure_future(later(corr, throttle_first_ms if first else 0)))
            first = False
    return handler


def test_singles_queue_with_a_batch_for_the_one_bound_in_fifo_order() -> None:
    # The batch holds at most one place in the queue for a slot, so single requests that come after it
    # started are written after at most one more of the batch's requests each, not after the whole batch.
    arrivals: list[str] = []
    peak = [0]

    async def main() -> None:
        async with server(recording(0.02, arrivals, peak)) as port:
            conn = await Connection.open("127.0.0.1", port, config=cfg(max_in_flight=3))
            got = Collect()
            batch = asyncio.ensure_future(
                conn.request_many([request(i) for i in range(30)], V, deadline=Deadline(10), each=got))
            await asyncio.sleep(0.005)  # the batch has filled the three slots and queued for a fourth
            singles = await asyncio.gather(*(conn.request(request(1000 + j), V, deadline=Deadline(10))
                                             for j in range(3)))
            await batch
            assert all(r.error_code == 0 for r in singles) and sorted(got.got) == list(range(30))
            assert not got.errors()
            positions = [arrivals.index(f"sw-{1000 + j}") for j in range(3)]
            assert max(positions) < 9, (positions, arrivals[:12])
            assert peak[0] == 3 and conn.max_in_flight_seen == 3 and slots_all_free(conn)
            await conn.close()

    run(main())


def test_concurrent_single_requests_are_bounded_as_a_batch_is() -> None:
    arrivals: list[str] = []
    peak = [0]

    async def main() -> None:
        async with server(recording(0.005, arrivals, peak)) as port:
            conn = await Connection.open("127.0.0.1", port, config=cfg(max_in_flight=4))
            answers = await asyncio.gather(*(conn.request(request(i), V, deadline=Deadline(10))
                                             for i in range(60)))
            raw = await asyncio.gather(*(conn.request_raw(18, 0, API_VERSIONS_V0, deadline=Deadline(10))
                                         for _ in range(20)))
            assert len(answers) == 60 and len(raw) == 20
            assert peak[0] == 4 and conn.max_in_flight_seen == 4  # reached, never passed, as seen by the peer
            assert conn.in_flight == 0 and slots_all_free(conn)
            await conn.close()

    run(main())


def test_a_throttled_answer_holds_back_both_kinds_of_caller() -> None:
    # KIP-219: the throttle is the connection's: an answer to a single request holds the batch, and an
    # answer inside a batch holds single requests (request_raw's too).
    arrivals: list[str] = []
    peak = [0]
    stamps: list[float] = []

    async def main() -> None:
        async with server(recording(0.0, arrivals, peak, throttle_first_ms=300)) as port:
            conn = await Connection.open("127.0.0.1", port, config=cfg(max_in_flight=4))
            await conn.request(request(-1), V, deadline=Deadline(5))  # answered "throttled for 300 ms"
            t0 = time.monotonic()
            got = Collect()

            async def single() -> None:
                await conn.request_raw(18, 0, API_VERSIONS_V0, deadline=Deadline(5))
                stamps.append(time.monotonic() - t0)

            batch = conn.request_many([request(i) for i in range(5)], V, deadline=Deadline(5), each=got)
            await asyncio.gather(batch, single())
            assert not got.errors() and len(got.got) == 5
            assert stamps[0] >= 0.25 and time.monotonic() - t0 >= 0.25
            assert len(arrivals) == 7
            await conn.close()

    run(main())


def test_a_throttle_hold_longer_than_the_deadline_fails_a_single_request_unsent() -> None:
    arrivals: list[str] = []
    peak = [0]

    async def main() -> None:
        async with server(recording(0.0, arrivals, peak, throttle_first_ms=2000)) as port:
            conn = await Connection.open("127.0.0.1", port, config=cfg())
            await conn.request(request(-1), V, deadline=Deadline(5))
            t0 = time.monotonic()
            try:
                await conn.request(request(1), V, deadline=Deadline(0.2))
            except KafkaTimeoutError as exc:
                assert "throttling" in str(exc)
            else:
                raise AssertionError("a request held past its deadline must fail")
            assert 0.15 < time.monotonic() - t0 < 1.0
            assert arrivals == ["sw--1"] and not conn.closed and slots_all_free(conn)
            await conn.close()

    run(main())


def test_a_dropped_connection_fails_every_request_of_every_caller_at_once() -> None:
    # Requests in flight fail with the connection's error, and so do those still queued for a slot, single or
    # batched: none waits for its deadline (a queued single that only woke on its timer would fail as a
    # timeout, minutes later with a real request timeout).
    async def read_some_then_close(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        for _ in range(4):
            await read_frame(reader)
        await asyncio.sleep(0.05)
        writer.close()

    async def main() -> None:
        async with server(read_some_then_close) as port:
            conn = await Connection.open("127.0.0.1", port, config=cfg(max_in_flight=4))
            got = Collect()

            async def single(i: int) -> KafkaError | None:
                try:
                    await conn.request(request(100 + i), V, deadline=Deadline(5))
                except KafkaError as exc:
                    return exc
                return None

            t0 = time.monotonic()
            _, *errors = await asyncio.gather(
                conn.request_many([request(i) for i in range(20)], V, deadline=Deadline(5), each=got),
                *(single(i) for i in range(10)))
            assert time.monotonic() - t0 < 1.0
            assert sorted(got.got) == list(range(20))
            every = got.errors() + [e for e in errors if e is not None]
            assert len(every) == 30
            assert all(isinstance(e, KafkaConnectionError) and e.retriable for e in every), every[:3]
            assert conn.closed and conn.in_flight == 0 and slots_all_free(conn)

    run(main())
