"""Connections: pipelining against Tansu, matching by correlation id, and every way a peer can misbehave
(drop, oversize frame, wrong id, silence) failing requests promptly with the right error."""

from __future__ import annotations

import asyncio
import os
import signal
import struct
import time
from typing import Any

import pytest

from kadmin.config import ClientConfig
from kadmin.errors import KafkaConnectionError, KafkaError, KafkaTimeoutError, ProtocolError
from kadmin.network import Connection, Deadline, NetworkClient
from kadmin.protocol import message_type
from tests.support.aio import run
from tests.support.peers import RunningBroker
from tests.support.raw_server import raw_server, read_frame
from tests.support.sasl_server import FakeBroker


def corr_of(request_frame: bytes) -> int:
    return int(struct.unpack_from(">i", request_frame, 4)[0])


def cfg(**kw: Any) -> ClientConfig:
    opts: dict[str, Any] = {"request_timeout_s": 10, "default_timeout_s": 10, **kw}
    return ClientConfig("127.0.0.1:1", **opts)


API_VERSIONS_V0 = message_type(18, "request")().encode(0)


# --------------------------------------------------------------------------------------------- real peer


def test_1000_pipelined_requests_on_one_connection_to_tansu(tansu: RunningBroker) -> None:
    md = message_type(3, "request")

    async def main() -> None:
        net = NetworkClient(ClientConfig(tansu.bootstrap, request_timeout_s=20, default_timeout_s=20))
        await net.start()
        try:
            v = await net.negotiated_version(111, 3)
            conn = net.connection(111)
            # Distinct topic names make each answer identify its request.
            reqs = [md(topics=[md.MetadataRequestTopic(name=f"kadmin-pipe-{i}")], allow_auto_topic_creation=False)
                    for i in range(1000)]
            out = await asyncio.gather(*(net.send(111, r, v, deadline=Deadline(20)) for r in reqs))
            assert [r.topics[0].name for r in out] == [f"kadmin-pipe-{i}" for i in range(1000)]
            assert all(r.topics[0].error_code == 3 for r in out)  # UNKNOWN_TOPIC_OR_PARTITION: not created
            assert net.connection(111) is conn and conn is not None and not conn.closed
            assert conn.requests_sent[(3, v)] >= 1000
            assert conn.max_in_flight_seen > 1, "requests must overlap on the wire"
            assert conn.max_in_flight_seen <= net.config.max_in_flight
            assert len(net.connections_opened) == 1  # the bootstrap connection was kept as node 111's
        finally:
            await net.close()

    run(main())


def test_killed_broker_fails_in_flight_requests_with_retriable_errors(fresh_tansu: RunningBroker) -> None:
    md = message_type(3, "request")

    async def main() -> None:
        net = NetworkClient(ClientConfig(fresh_tansu.bootstrap, request_timeout_s=10, default_timeout_s=10,
                                         retry_backoff_s=0.05, retry_backoff_max_s=0.2))
        await net.start()
        try:
            v = await net.negotiated_version(111, 3)

            async def one() -> object:
                try:
                    return await net.send(111, md(topics=None), v, deadline=Deadline(10))
                except KafkaError as exc:
                    return exc

            tasks = [asyncio.ensure_future(one()) for _ in range(300)]
            await asyncio.sleep(0)  # let them all be written
            os.kill(fresh_tansu.pid, signal.SIGKILL)
            t0 = time.monotonic()
            results = await asyncio.gather(*tasks)
            errors = [r for r in results if isinstance(r, KafkaError)]
            assert errors, "some requests must have been in flight when the broker died"
            assert all(isinstance(e, KafkaConnectionError) and e.retriable for e in errors), errors[:3]
            assert time.monotonic() - t0 < 5
            with pytest.raises(KafkaError) as info:  # and afterwards nothing hangs either
                await net.send(111, md(topics=[]), v, deadline=Deadline(2))
            assert isinstance(info.value, (KafkaConnectionError, KafkaTimeoutError))
        finally:
            await net.close()

    run(main())


# --------------------------------------------------------------------------------------------- misbehaving peers


def test_dropped_connection_fails_everything_in_flight() -> None:
    async def read_some_then_close(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(100)
        writer.close()

    async def main() -> None:
        async with raw_server(read_some_then_close) as port:
            conn = await Connection.open("127.0.0.1", port, config=cfg())
            t0 = time.monotonic()
            results = await asyncio.gather(
                *(conn.request_raw(18, 0, API_VERSIONS_V0, deadline=Deadline(10)) for _ in range(50)),
                return_exceptions=True)
            assert time.monotonic() - t0 < 2
            assert all(isinstance(r, KafkaConnectionError) and r.retriable for r in results), results[:3]
            assert conn.closed and isinstance(conn.close_reason, KafkaConnectionError)
            with pytest.raises(KafkaConnectionError):
                await conn.request_raw(18, 0, API_VERSIONS_V0, deadline=Deadline(1))

    run(main())


def test_frame_size_is_checked_before_the_body_is_read() -> None:
    async def announce_huge_frame(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_frame(reader)
        writer.write(struct.pack(">i", 2048))  # ... and never send the body
        await writer.drain()
        await asyncio.sleep(30)

    async def main() -> None:
        async with raw_server(announce_huge_frame) as port:
            conn = await Connection.open("127.0.0.1", port, config=cfg(max_frame_bytes=1024))
            t0 = time.monotonic()
            with pytest.raises(KafkaConnectionError) as info:
                await conn.request_raw(18, 0, API_VERSIONS_V0, deadline=Deadline(10))
            assert time.monotonic() - t0 < 2, "waited for a body it should never have read"
            assert isinstance(info.value.__cause__, ProtocolError)
            assert isinstance(conn.close_reason, ProtocolError) and "2048" in str(conn.close_reason)
            assert conn.closed

    run(main())


def test_correlation_mismatch_is_protocol_error_and_closes() -> None:
    async def wrong_id(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        frame = await read_frame(reader)
        payload = struct.pack(">i", corr_of(frame) + 1000) + b"\x00\x00" + b"\x00\x00\x00\x00"
        writer.write(struct.pack(">i", len(payload)) + payload)
        await writer.drain()
        await asyncio.sleep(30)

    async def main() -> None:
        async with raw_server(wrong_id) as port:
            conn = await Connection.open("127.0.0.1", port, config=cfg())
            results = await asyncio.gather(
                *(conn.request_raw(18, 0, API_VERSIONS_V0, deadline=Deadline(10)) for _ in range(5)),
                return_exceptions=True)
            assert all(isinstance(r, KafkaConnectionError) and r.retriable for r in results), results
            assert all(isinstance(r.__cause__, ProtocolError) for r in results)  # type: ignore[union-attr]
            assert isinstance(conn.close_reason, ProtocolError)
            assert "correlation id" in str(conn.close_reason)
            assert conn.closed

    run(main())


def test_out_of_order_answers_are_matched_by_correlation_id() -> None:
    async def reverse_echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        frames = [await read_frame(reader) for _ in range(3)]
        for frame in reversed(frames):
            body = frame[-8:]  # the 8 distinct bytes each request carried
            payload = struct.pack(">i", corr_of(frame)) + body
            writer.write(struct.pack(">i", len(payload)) + payload)
        await writer.drain()
        await asyncio.sleep(30)

    async def main() -> None:
        async with raw_server(reverse_echo) as port:
            conn = await Connection.open("127.0.0.1", port, config=cfg())
            bodies = [struct.pack(">q", 1000 + i) for i in range(3)]
            frames = await asyncio.gather(*(conn.request_raw(18, 0, b, deadline=Deadline(5)) for b in bodies))
            assert [f[4:] for f in frames] == bodies
            assert not conn.closed
            await conn.close()

    run(main())


def test_request_timeout_closes_but_a_short_deadline_does_not() -> None:
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while await reader.read(1000):
            pass

    async def main() -> None:
        async with raw_server(silent) as port:
            conn = await Connection.open("127.0.0.1", port, config=cfg(request_timeout_s=5))
            t0 = time.monotonic()
            with pytest.raises(KafkaTimeoutError):
                await conn.request_raw(18, 0, API_VERSIONS_V0, deadline=Deadline(0.2))
            assert 0.15 < time.monotonic() - t0 < 1.5
            assert not conn.closed and conn.in_flight == 0

            conn2 = await Connection.open("127.0.0.1", port, config=cfg(request_timeout_s=0.3))
            with pytest.raises(KafkaConnectionError, match="request_timeout_s"):
                await conn2.request_raw(18, 0, API_VERSIONS_V0, deadline=Deadline(10))
            assert conn2.closed
            await conn.close()

    run(main())


def test_connect_refused_is_retriable_and_fast() -> None:
    async def main() -> None:
        async with raw_server(lambda r, w: asyncio.sleep(0)) as port:
            pass  # the port is closed again now
        t0 = time.monotonic()
        with pytest.raises(KafkaConnectionError) as info:
            await Connection.open("127.0.0.1", port, config=cfg())
        assert info.value.retriable and time.monotonic() - t0 < 2
        assert f"127.0.0.1:{port}" in str(info.value)

    run(main())


def test_connect_by_ipv6_literal_and_by_name() -> None:
    async def main() -> None:
        async with FakeBroker(host="::1", advertised_host="::1") as broker:
            net = NetworkClient(ClientConfig(f"[::1]:{broker.port}", default_timeout_s=5))
            await net.start()
            try:
                assert net.nodes[7].host == "::1"
                conn = net.connection(7)
                assert conn is not None and conn.label == f"node 7 ([::1]:{broker.port})"
            finally:
                await net.close()
        async with FakeBroker(advertised_host="localhost") as broker:
            net = NetworkClient(ClientConfig(f"localhost:{broker.port}", default_timeout_s=5))
            await net.start()
            try:
                assert (await net.api_versions(7))[18] == (0, 4)
            finally:
                await net.close()

    run(main())


def test_oversized_request_is_refused_before_sending() -> None:
    async def main() -> None:
        async with raw_server(lambda r, w: asyncio.sleep(5)) as port:
            conn = await Connection.open("127.0.0.1", port, config=cfg(max_frame_bytes=64))
            with pytest.raises(ProtocolError, match="max_frame_bytes"):
                await conn.request_raw(18, 0, b"x" * 100, deadline=Deadline(2))
            assert conn.bytes_sent == 0 and not conn.closed
            await conn.close()

    run(main())


def test_connect_timeout_covers_a_tls_handshake_that_never_finishes() -> None:
    import ssl

    async def mute(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await asyncio.sleep(30)  # accepts TCP, never answers the ClientHello

    async def main() -> None:
        async with raw_server(mute) as port:
            t0 = time.monotonic()
            with pytest.raises(KafkaConnectionError, match="timed out") as info:
                await Connection.open("127.0.0.1", port, config=cfg(connect_timeout_s=0.3),
                                      ssl_context=ssl.create_default_context())
            assert info.value.retriable and 0.25 < time.monotonic() - t0 < 1.5

    run(main())
