"""The records of a JSON spec file (JSON lines, or one JSON array), streamed: every record, never a sample.

Why every record: a check made before Spark starts is only worth its name if a file it passes cannot be
refused later for the same reason (a ``password`` key on record 1,002, a word where a number belongs on the
last line), and a valid file must never be refused because a sample cut it (a JSON array larger than the
first MiB is still one valid document).  Why streamed: a spec file can be far larger than the memory a
check deserves; the file is read in chunks of :data:`CHUNK` characters and only one chunk's records live at
once.

Why chunks of lines parsed as one array: ``json.loads`` called once per line costs a Python call per record;
joining a chunk's lines with commas into one array and parsing it in one call lets the C decoder do the
loop, several times faster on files of small records (a bad line is then found line by line, only in the
chunk that failed).  A JSON array file is decoded element by element with ``raw_decode`` on a sliding
buffer, so its size does not matter either.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any, TextIO

#: Characters read at a time.
CHUNK = 1 << 20

_WS = " \t\r\n"
_WS_RE = re.compile(r"[ \t\r\n]*")


class JsonRecordError(ValueError):
    """The file is not JSON lines or a JSON array; the message names the line or record."""


def iter_records(f: TextIO) -> Iterator[tuple[int, Any]]:
    """(number, record) for every record of an open text file: ``number`` is the line for JSON lines, the
    position in the array (1-based) for a JSON array.  Raises JsonRecordError naming where it went wrong."""
    head = f.read(CHUNK)
    at = _WS_RE.match(head).end()  # type: ignore[union-attr] # the pattern matches the empty string
    if head.startswith("[", at):
        yield from _array(f, head, at + 1)
    else:
        yield from _lines(f, head)


def _lines(f: TextIO, chunk: str) -> Iterator[tuple[int, Any]]:
    line_no, carry = 0, ""
    while chunk:
        text = carry + chunk
        cut = text.rfind("\n") + 1
        block, carry = text[:cut], text[cut:]
        if block:
            yield from _block(block, line_no)
            line_no += block.count("\n")
        chunk = f.read(CHUNK)
    if carry:
        yield from _block(carry, line_no)


def _block(block: str, line_no: int) -> Iterator[tuple[int, Any]]:
    """The records of whole lines (``block``), the first being line ``line_no + 1``."""
    numbered = [(line_no + i, ln) for i, ln in enumerate(block.split("\n"), 1) if ln.strip(_WS)]
    if not numbered:
        return
    try:
        records: list[Any] | None = json.loads("[" + ",".join(ln for _, ln in numbered) + "]")
    except (json.JSONDecodeError, RecursionError):
        records = None
    if records is None or len(records) != len(numbered):
        # A bad line (or one holding two values joined by a comma): found one line at a time.
        records = []
        for n, ln in numbered:
            try:
                records.append(json.loads(ln))
            except json.JSONDecodeError as exc:
                raise JsonRecordError(f"line {n} is not a JSON record: {exc}") from None
    yield from zip((n for n, _ in numbered), records, strict=True)


def _array(f: TextIO, buf: str, pos: int) -> Iterator[tuple[int, Any]]:
    decoder = json.JSONDecoder()
    eof = False
    number = 0

    def fill() -> bool:
        """More text after what is left of the buffer; False at the end of the file."""
        nonlocal buf, pos, eof
        more = "" if eof else f.read(CHUNK)
        if not more:
            eof = True
            return False
        buf, pos = buf[pos:] + more, 0
        return True

    def skip() -> str:
        """The next character that is not white space ('' at the end of the file)."""
        nonlocal pos
        while True:
            pos = _WS_RE.match(buf, pos).end()  # type: ignore[union-attr]
            if pos < len(buf):
                return buf[pos]
            if not fill():
                return ""

    c = skip()
    if c == "]":
        pos += 1
    while c != "]":
        while True:
            try:
                value, end = decoder.raw_decode(buf, pos)
            except json.JSONDecodeError as exc:
                cut = exc.pos >= len(buf) - 6 or exc.msg.startswith("Unterminated string")
                if cut and fill():  # the record goes on in the next chunk
                    continue
                raise JsonRecordError(f"record {number + 1} is not valid JSON: {exc.msg}") from None
            if end >= len(buf) and isinstance(value, (int, float)) and fill():
                continue  # a number cut at the buffer's end: decoded again with its other digits
            break
        number += 1
        pos = end
        yield number, value
        c = skip()
        if c == "]":
            pos += 1
        elif c == ",":
            pos += 1
            skip()
        elif c == "":
            raise JsonRecordError(f"the JSON array ends early (after record {number}): no closing ']'")
        else:
            raise JsonRecordError(f"after record {number}: expected ',' or ']', not {c!r}")
    rest = buf[pos:] + ("" if eof else f.read())
    if rest.strip(_WS):
        raise JsonRecordError(f"text after the JSON array's closing ']': {rest.strip(_WS)[:40]!r}")


__all__ = ["CHUNK", "JsonRecordError", "iter_records"]
