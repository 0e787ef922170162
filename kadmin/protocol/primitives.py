"""Wire primitives shared by generated codecs: varints, compact lengths, float64 bits, UUIDs.

Generated code inlines the one-byte varint case and calls these for the rest, so these stay small and
allocation-free where they can.
"""

from __future__ import annotations

import base64
import struct
import uuid

_D = struct.Struct(">d")
_Q = struct.Struct(">Q")

ZERO_UUID = uuid.UUID(int=0)


class Truncated(Exception):
    """Internal: input ended inside a value. Turned into ProtocolError with a field path by the caller."""


def read_uvarint(buf: bytes, pos: int) -> tuple[int, int]:
    """Unsigned LEB128 varint (at most 5 bytes, as Kafka's 32-bit varints)."""
    result = 0
    shift = 0
    n = len(buf)
    while True:
        if pos >= n:
            raise Truncated("varint runs past the end of the input")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            if result > 0xFFFFFFFF:
                # A fifth byte above 0x0F: Java's readUnsignedVarint silently drops those bits; keeping
                # them would give a value that no 32-bit varint (and so no re-encode) can hold.
                raise ValueError("varint does not fit in 32 bits")
            return result, pos
        shift += 7
        if shift > 28:
            raise ValueError("varint is longer than 5 bytes")


def write_uvarint(n: int) -> bytes:
    if n < 0 or n > 0xFFFFFFFF:
        raise ValueError(f"value {n} does not fit an unsigned 32-bit varint")
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def float_bits(x: float) -> int:
    """The IEEE 754 bit pattern of a float: how kadmin compares float64 values (NaN payloads and -0.0 kept)."""
    return int(_Q.unpack(_D.pack(x))[0])


def float_from_bits(bits: int) -> float:
    return float(_D.unpack(_Q.pack(bits))[0])


def parse_uuid(text: str) -> uuid.UUID:
    """Accept the standard 8-4-4-4-12 form or Kafka's 22-character base64 form."""
    if len(text) == 22:
        try:
            return uuid.UUID(bytes=base64.urlsafe_b64decode(text + "=="))
        except (ValueError, TypeError):
            pass
    return uuid.UUID(text)
