"""A minimal blocking Kafka connection for tests: send one request object, get the response object.

Why: tests of the fake cluster (and of odd broker behaviour) need to send exactly the bytes they choose —
a too-new version, a request to the wrong node — which a real client would refuse or retry around.
"""

from __future__ import annotations

import socket
import ssl
import struct
from typing import Any

from kadmin.protocol import Message
from kadmin.protocol.headers import read_correlation_id, response_body_offset
from kadmin.testing.schemas import encode_request, fake_message_type, response_header_version

_SIZE = struct.Struct(">i")


class ConnectionClosed(Exception):
    """The broker closed the connection instead of answering."""


class RawConnection:
    def __init__(self, host: str, port: int, timeout: float = 5.0, client_id: str | None = "kadmin-test",
                 tls: ssl.SSLContext | None = None, server_hostname: str | None = None) -> None:
        sock = socket.create_connection((host, port), timeout=timeout)
        if tls is not None:
            sock = tls.wrap_socket(sock, server_hostname=server_hostname or host)
        self.sock = sock
        self.client_id = client_id
        self._corr = 0

    def close(self) -> None:
        self.sock.close()

    def __enter__(self) -> RawConnection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _recv_exact(self, n: int) -> bytes:
        buf = bytearray()
        while len(buf) < n:
            try:
                chunk = self.sock.recv(n - len(buf))
            except ConnectionResetError:
                chunk = b""
            if not chunk:
                raise ConnectionClosed(f"connection closed after {len(buf)} of {n} bytes")
            buf += chunk
        return bytes(buf)

    def send_frame(self, payload: bytes) -> None:
        self.sock.sendall(_SIZE.pack(len(payload)) + payload)

    def recv_frame(self) -> bytes:
        size = _SIZE.unpack(self._recv_exact(4))[0]
        return self._recv_exact(size)

    def send(self, api_key: int, version: int, request: Message | bytes) -> int:
        """Send a request (an object, or raw body bytes); returns its correlation id."""
        self._corr += 1
        body = request if isinstance(request, bytes) else request.encode(version)
        self.sock.sendall(encode_request(api_key, version, self._corr, self.client_id, body))
        return self._corr

    def receive(self, api_key: int, version: int, *, body_version: int | None = None) -> tuple[int, Any]:
        """(correlation id, decoded response).  ``body_version`` decodes at another version (KIP-511 v0)."""
        frame = self.recv_frame()
        corr = read_correlation_id(frame)
        pos = response_body_offset(frame, response_header_version(api_key, version))
        v = version if body_version is None else body_version
        obj, _end = fake_message_type(api_key, "response").decode_from(frame, pos, v)
        return corr, obj

    def request(self, api_key: int, version: int, request: Message | bytes | None = None, **fields: Any) -> Any:
        """Send and receive; with no ``request`` object, build one from ``fields``."""
        if request is None:
            request = fake_message_type(api_key, "request")(**fields)
        corr = self.send(api_key, version, request)
        got, resp = self.receive(api_key, version)
        if got != corr:
            raise AssertionError(f"correlation id {got} does not match request {corr}")
        return resp

    def is_closed(self, timeout: float = 2.0) -> bool:
        """True if the peer closes the connection within ``timeout`` without sending anything."""
        self.sock.settimeout(timeout)
        try:
            data = self.sock.recv(1)
        except (ConnectionResetError, BrokenPipeError):
            return True
        except TimeoutError:
            return False
        return data == b""
