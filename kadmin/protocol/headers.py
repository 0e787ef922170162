"""Request and response headers, chosen per API and version as Kafka's brokers choose them.

A request at a flexible version uses request header v2 (v1 plus tagged fields), otherwise v1; a response
at a flexible version uses response header v1, otherwise v0 — except ApiVersions, whose response always
uses header v0 so that a client that sent a too-new version can still read the broker's answer (KIP-511).
ClientId is always an int16-length nullable string, even in header v2.
"""

from __future__ import annotations

import struct

from kadmin.errors import ProtocolError
from kadmin.protocol.primitives import Truncated, read_uvarint
from kadmin.protocol.registry import message_type

API_VERSIONS_KEY = 18
_HDR = struct.Struct(">hhih")
_I = struct.Struct(">i")


def request_header_version(api_key: int, version: int) -> int:
    return 2 if message_type(api_key, "request").is_flexible(version) else 1


def response_header_version(api_key: int, version: int) -> int:
    if api_key == API_VERSIONS_KEY:
        return 0
    return 1 if message_type(api_key, "response").is_flexible(version) else 0


def encode_request_header(api_key: int, version: int, correlation_id: int, client_id: str | None) -> bytes:
    """Header bytes; hand-written because it runs once per request and its layout never changes."""
    if client_id is None:
        head = struct.pack(">hhih", api_key, version, correlation_id, -1)
        cid = b""
    else:
        cid = client_id.encode("utf-8")
        if len(cid) > 32767:
            raise ProtocolError("client id is longer than 32767 bytes")
        head = _HDR.pack(api_key, version, correlation_id, len(cid))
    if request_header_version(api_key, version) >= 2:
        return head + cid + b"\x00"
    return head + cid


def encode_request(api_key: int, version: int, correlation_id: int, client_id: str | None, body: bytes) -> bytes:
    """A whole request frame, size prefix included."""
    payload = encode_request_header(api_key, version, correlation_id, client_id) + body
    return _I.pack(len(payload)) + payload


def read_correlation_id(frame: bytes) -> int:
    """The correlation id of a response frame (without the size prefix); the same in every header version."""
    if len(frame) < 4:
        raise ProtocolError(f"response frame of {len(frame)} bytes is too short for a header")
    return int(_I.unpack_from(frame, 0)[0])


def response_body_offset(frame: bytes, header_version: int) -> int:
    """Offset of the body after the response header (skipping its tagged fields in v1)."""
    if header_version == 0:
        return 4
    try:
        count, pos = read_uvarint(frame, 4)
        for _ in range(count):
            _tag, pos = read_uvarint(frame, pos)
            size, pos = read_uvarint(frame, pos)
            pos += size
    except (Truncated, ValueError, IndexError) as exc:
        raise ProtocolError(f"malformed response header tagged fields: {exc}") from None
    if pos > len(frame):
        raise ProtocolError("response header tagged fields run past the end of the frame")
    return pos


def decode_request_header(frame: bytes) -> tuple[int, int, int, str | None, int]:
    """(api_key, version, correlation_id, client_id, body offset): for the fake cluster and for tests."""
    if len(frame) < 10:
        raise ProtocolError("request frame too short for a header")
    api_key, version, corr, n = _HDR.unpack_from(frame, 0)
    pos = 10
    client_id: str | None = None
    if n >= 0:
        if pos + n > len(frame):
            raise ProtocolError("client id runs past the end of the frame")
        try:
            client_id = frame[pos:pos + n].decode("utf-8")
        except UnicodeDecodeError:
            raise ProtocolError("client id is not valid UTF-8") from None
        pos += n
    try:
        flexible = request_header_version(api_key, version) >= 2
    except (KeyError, Exception):  # an API or version we do not know: treat as header v1
        flexible = False
    if flexible:
        pos = response_body_offset(frame[pos - 4:], 1) + pos - 4
    return api_key, version, corr, client_id, pos
