"""A port that is not Kafka (an HTTP server) is one line saying so, not a dozen identical warnings about "a frame of
1213486160 bytes" before a connection error (issue #29 defect 3)."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest

from tests.support.cli import run_main

ACCEPTED: list[int] = []


@pytest.fixture
def http_port() -> Iterator[int]:
    """A listener that answers every connection as an HTTP server answers a request it cannot parse."""
    ACCEPTED.clear()
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    stop = threading.Event()

    def serve() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            ACCEPTED.append(1)
            with conn:
                try:
                    conn.recv(4096)
                    conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                except OSError:
                    pass

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    try:
        yield server.getsockname()[1]
    finally:
        stop.set()
        t.join(5)
        server.close()


def test_an_http_port_is_named_as_not_kafka_in_one_error_line(http_port: int) -> None:
    r = run_main("-b", f"127.0.0.1:{http_port}", "--timeout", "3", "groups", "list")
    assert r.code == 2
    errors = [line for line in r.err_lines if line.startswith("kadmin: error:")]
    assert len(errors) == 1
    assert "not a Kafka listener" in errors[0] and "HTTP" in errors[0]
    warnings = [line for line in r.err_lines if "WARNING" in line]
    assert len(warnings) <= 1, warnings


def test_the_client_does_not_retry_a_port_whose_first_answer_is_no_kafka_frame(http_port: int) -> None:
    # The first "frame" of an HTTP server is its status line: asking again gets the same bytes, so the bootstrap
    # fails at once with a SecurityMismatchError (not retriable) instead of retrying until the deadline.
    import time

    from kadmin import AdminClient
    from kadmin.errors import SecurityMismatchError

    started = time.monotonic()
    with pytest.raises(SecurityMismatchError, match="not a Kafka listener"):
        with AdminClient(f"127.0.0.1:{http_port}", default_timeout_s=20.0) as admin:
            admin.list_topics()
    assert time.monotonic() - started < 10.0
    assert len(ACCEPTED) == 1, f"{len(ACCEPTED)} connections: the port was asked again"
