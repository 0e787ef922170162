"""Connection.request_many: thousands of requests pipelined without a task per request, each with exactly the
answer or the error it would get on its own (slots, timeouts, drops, bad answers, throttling, cancellation)."""

from __future__ import annotations

import asyncio
import struct
import time
from typing import Any

import pytest

from kadmin.config import ClientConfig
from kadmin.errors import KafkaConnectionError, KafkaError, KafkaTimeoutError, ProtocolError
from kadmin.network import Connection, Deadline
from kadmin.protocol import message_type
from tests.support.aio import run
from tests.support.raw_server import Handler, read_frame
from tests.support.raw_server import raw_server as server

REQ = message_type(18, "request")
RESP = message_type(18, "response")
V = 3  # ApiVersions v3: a request body that carries a string, so requests can differ in size and content


def cfg(**kw: Any) -> ClientConfig:
    opts: dict[str, Any] = {"request_timeout_s": 10, "default_timeout_s": 10, **kw}
    return ClientConfig("127.0.0.1:1", **opts)


def request(i: int, pad: int = 0) -> Any:
    return REQ(client_software_name=f"sw-{i}" + "x" * pad, client_software_version="1")


def answer(corr: int, throttle_ms: int = 0, body: bytes | None = None) -> bytes:
    # ApiVersions answers use response header v0 at every version (KIP-511).
    payload = struct.pack(">i", corr) + (body if body is not None else
                                         RESP(error_code=0, api_keys=[], throttle_time_ms=throttle_ms).encode(V))
    return struct.pack(">i", len(payload)) + payload


def corr_of(frame: bytes) -> int:
    return int(struct.unpack_from(">i", frame, 4)[0])


def answering(delay_s: float = 0.0, throttle_ms: int = 0, arrivals: list[float] | None = None) -> Handler:
    """Answers every request, in order, ``delay_s`` after reading it (the first one with ``throttle_ms``);
    notes when each request arrived in ``arrivals``, if given."""
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        first = True
        while True:
            frame = await read_frame(reader)
            if arrivals is not None:
                arrivals.append(time.monotonic())
            if delay_s:
                await asyncio.sleep(delay_s)
            writer.write(answer(corr_of(frame), throttle_ms if first else 0))
            first = False
            await writer.drain()
    return handler


async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    while await reader.read(1000):
        pass


class Collect:
    """The ``each`` callback: (response, error) per index, and the order the calls came in."""

    def __init__(self) -> None:
        self.got: dict[int, tuple[Any, KafkaError | None]] = {}

    def __call__(self, i: int, response: Any, error: KafkaError | None) -> None:
        assert i not in self.got, f"request {i} reported twice"
        assert (response is None) != (error is None)
        self.got[i] = (response, error)

    def errors(self) -> list[KafkaError]:
        return [e for _r, e in self.got.values() if e is not None]


def slots_all_free(conn: Connection) -> bool:
    return conn._free_slots == conn._config.max_in_flight and not any(  # noqa: SLF001
        not w.done() for w in conn._slot_waiters)  # noqa: SLF001


def test_many_requests_share_the_in_flight_bound_with_single_requests() -> None:
    async def main() -> None:
        async with server(answering(delay_s=0.001)) as port:
            conn = await Connection.open("127.0.0.1", port, config=cfg(max_in_flight=5))
            got = Collect()
            batch = conn.request_many([request(i) for i in range(200)], V, deadline=Deadline(10), each=got)
            singles = [conn.request(request(1000 + i), V, deadline=Deadline(10)) for i in range(20)]
            _, *answers = await asyncio.gather(batch, *singles)
            assert sorted(got.got) == list(range(200)) and not got.errors()
            assert all(r.error_code == 0 for r, _e in got.got.values()) and len(answers) == 20
            assert 1 < conn.max_in_flight_seen <= 5
            assert conn.requests_sent[(18, V)] == 220 and conn.in_flight == 0 and slots_all_free(conn)
            await conn.close()

    run(main())


def test_dropped_connection_fails_each_request_retriably_and_nothing_raises() -> None:
    async def answer_some_then_close(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        for _ in range(3):
            writer.write(answer(corr_of(await read_frame(reader))))
        await writer.drain()
        writer.close()

    async def main() -> None:
        async with server(answer_some_then_close) as port:
            conn = await Connection.open("127.0.0.1", port, config=cfg(max_in_flight=10))
            got = Collect()
            t0 = time.monotonic()
            await conn.request_many([request(i) for i in range(50)], V, deadline=Deadline(10), each=got)
            assert time.monotonic() - t0 < 2
            assert sorted(got.got) == list(range(50))
            errors = got.errors()
            assert len(errors) >= 40 and all(isinstance(e, KafkaConnectionError) and e.retriable for e in errors)
            assert sum(1 for r, _e in got.got.values() if r is not None) <= 3
            assert conn.closed and slots_all_free(conn)

    run(main())


def test_short_deadline_fails_each_request_and_keeps_the_connection() -> None:
    async def main() -> None:
        async with server(silent) as port:
            conn = await Connection.open("127.0.0.1", port, config=cfg(max_in_flight=2, request_timeout_s=5))
            got = Collect()
            t0 = time.monotonic()
            await conn.request_many([request(i) for i in range(5)], V, deadline=Deadline(0.2), each=got)
            assert 0.15 < time.monotonic() - t0 < 1.5
            errors = got.errors()
            assert len(errors) == 5 and all(isinstance(e, KafkaTimeoutError) for e in errors)
            assert sum("waiting for the response" in str(e) for e in errors) == 2
            assert sum("waiting for a free slot" in str(e) for e in errors) == 3
            assert not conn.closed and conn.in_flight == 0 and slots_all_free(conn)
            await conn.close()

    run(main())


def test_request_timeout_closes_the_connection() -> None:
    async def main() -> None:
        async with server(silent) as port:
            conn = await Connection.open("127.0.0.1", port, config=cfg(max_in_flight=2, request_timeout_s=0.3))
            got = Collect()
            await conn.request_many([request(i) for i in range(4)], V, deadline=Deadline(10), each=got)
            errors = got.errors()
            assert len(errors) == 4 and all(isinstance(e, KafkaConnectionError) for e in errors)
            assert all("request_timeout_s" in str(e) for e in errors)
            assert conn.closed and slots_all_free(conn)

    run(main())


def test_an_answer_that_does_not_decode_closes_and_fails_retriably() -> None:
    async def garbage_second(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        n = 0
        while True:
            corr = corr_of(await read_frame(reader))
            writer.write(answer(corr, body=b"\x00" if n == 1 else None))
            n += 1
            await writer.drain()

    async def main() -> None:
        async with server(garbage_second) as port:
            conn = await Connection.open("127.0.0.1", port, config=cfg(max_in_flight=1))
            got = Collect()
            await conn.request_many([request(i) for i in range(4)], V, deadline=Deadline(10), each=got)
            assert got.got[0][0] is not None
            bad = got.got[1][1]
            assert isinstance(bad, KafkaConnectionError) and isinstance(bad.__cause__, ProtocolError)
            assert "does not decode" in str(bad)
            assert all(isinstance(got.got[i][1], KafkaConnectionError) for i in (2, 3))
            assert conn.closed and isinstance(conn.close_reason, ProtocolError) and slots_all_free(conn)

    run(main())


def test_an_oversized_request_fails_alone_before_sending() -> None:
    async def main() -> None:
        async with server(answering()) as port:
            conn = await Connection.open("127.0.0.1", port, config=cfg(max_frame_bytes=200))
            got = Collect()
            reqs = [request(0), request(1, pad=500), request(2)]
            await conn.request_many(reqs, V, deadline=Deadline(10), each=got)
            assert got.got[0][1] is None and got.got[2][1] is None
            err = got.got[1][1]
            assert isinstance(err, ProtocolError) and "max_frame_bytes" in str(err)
            assert conn.requests_sent[(18, V)] == 2 and not conn.closed and slots_all_free(conn)
            await conn.close()

    run(main())


def test_cancelling_gives_every_slot_back() -> None:
    async def main() -> None:
        async with server(silent) as port:
            conn = await Connection.open("127.0.0.1", port, config=cfg(max_in_flight=3))
            task = asyncio.ensure_future(
                conn.request_many([request(i) for i in range(10)], V, deadline=Deadline(10), each=Collect()))
            await asyncio.sleep(0.1)
            assert conn.in_flight == 3
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            assert conn.in_flight == 0 and slots_all_free(conn) and not conn.closed
            await conn.close()

    run(main())


def test_an_exception_from_each_ends_the_call_and_frees_the_slots() -> None:
    async def main() -> None:
        async with server(answering(delay_s=0.01)) as port:
            conn = await Connection.open("127.0.0.1", port, config=cfg(max_in_flight=4))

            def boom(i: int, response: Any, error: KafkaError | None) -> None:
                raise RuntimeError("bug in a fold")

            with pytest.raises(RuntimeError, match="bug in a fold"):
                await conn.request_many([request(i) for i in range(10)], V, deadline=Deadline(10), each=boom)
            assert conn.in_flight == 0 and slots_all_free(conn)
            await conn.close()

    run(main())


def test_throttling_holds_the_whole_batch_and_the_deadline_still_counts() -> None:
    async def main() -> None:
        async with server(answering(throttle_ms=300)) as port:
            conn = await Connection.open("127.0.0.1", port, config=cfg())
            await conn.request(request(-1), V, deadline=Deadline(5))  # answered with throttle_time_ms=300
            got = Collect()
            t0 = time.monotonic()
            await conn.request_many([request(i) for i in range(3)], V, deadline=Deadline(0.1), each=got)
            errors = got.errors()
            assert len(errors) == 3 and all(isinstance(e, KafkaTimeoutError) and "throttling" in str(e)
                                            for e in errors)
            assert conn.requests_sent[(18, V)] == 1
            got = Collect()
            await conn.request_many([request(i) for i in range(3)], V, deadline=Deadline(5), each=got)
            assert not got.errors() and time.monotonic() - t0 >= 0.25
            await conn.close()

    run(main())


def test_a_throttled_answer_mid_batch_holds_back_the_requests_not_yet_written() -> None:
    # KIP-219: once an answer says "throttled for 300 ms", nothing more goes to that broker until the time is
    # up, also inside one pipelined batch; answers to what is already in flight are still read.
    arrivals: list[float] = []

    async def main() -> None:
        async with server(answering(throttle_ms=300, arrivals=arrivals)) as port:
            conn = await Connection.open("127.0.0.1", port, config=cfg(max_in_flight=4))
            got = Collect()
            t0 = time.monotonic()
            await conn.request_many([request(i) for i in range(12)], V, deadline=Deadline(5), each=got)
            assert len(got.got) == 12 and not got.errors()
            # The first answer comes back throttled while at most 4 requests are out: the rest wait for it.
            assert len(arrivals) == 12
            assert sum(1 for t in arrivals if t - t0 < 0.25) <= 4, [round(t - t0, 3) for t in arrivals]
            assert time.monotonic() - t0 >= 0.3
            assert slots_all_free(conn)
            await conn.close()

    run(main())


def test_a_deadline_that_ends_during_a_mid_batch_throttle_fails_the_unsent_requests_as_throttled() -> None:
    async def main() -> None:
        async with server(answering(throttle_ms=2000)) as port:
            conn = await Connection.open("127.0.0.1", port, config=cfg(max_in_flight=2))
            got = Collect()
            await conn.request_many([request(i) for i in range(6)], V, deadline=Deadline(0.3), each=got)
            assert len(got.got) == 6
            answered = [i for i, (r, e) in got.got.items() if e is None]
            held = [e for e in got.errors() if "throttling" in str(e)]
            assert answered and len(answered) <= 2 and len(held) == 6 - len(answered)
            assert all(isinstance(e, KafkaTimeoutError) for e in held)
            assert not conn._closed and slots_all_free(conn)  # noqa: SLF001 - the deadline, not the peer, ran out
            await conn.close()

    run(main())


def test_a_throttle_hold_spends_the_deadline_not_the_request_timeout() -> None:
    # As for ``request``: the wait for a throttle is bounded by the caller's deadline, and what is written
    # after it gets its own request timeout, so a hold longer than request_timeout_s fails nothing.
    async def main() -> None:
        async with server(answering(throttle_ms=600)) as port:
            conn = await Connection.open("127.0.0.1", port, config=cfg(max_in_flight=2, request_timeout_s=0.4))
            got = Collect()
            await conn.request_many([request(i) for i in range(6)], V, deadline=Deadline(5), each=got)
            assert len(got.got) == 6 and not got.errors(), got.errors()
            assert not conn.closed and slots_all_free(conn)
            await conn.close()

    run(main())
