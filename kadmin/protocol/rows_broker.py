"""The fake broker's side of the client quota messages' rows (:mod:`kadmin.protocol.rows` has the client's).

The fake broker (kadmin.testing, which users' tests run on) has the inverse pair, for the same reason: 5,000
alterations were 15,000 structs decoded only to be read once, and 10,000 built only to be encoded.  So:

* the eager decoder of AlterClientQuotasRequest v1 (the fake's) reads the entries as rows
  (:func:`request_rows`: ``(pairs, ops)``), the structs built from them on the first read of ``entries``;
* :func:`response_with_rows` makes an AlterClientQuotasResponse or DescribeClientQuotasResponse whose v1
  encoder writes it straight from rows, byte for byte what the structs give.  Which rows a message holds is
  told by its builder (a message the client decoded keeps rows of its own kind there: those are never written).
  :func:`response_written` writes a describe answer's entries at once, from the fake's live values under its
  lock, so that nothing has to be copied to stay as it was.

The same rules as the client's readers and writers: only the common shape (one-byte lengths and counts, ASCII
strings, no tagged fields inside the entries) is read here; anything else falls back to the generated decoder,
and what is written from rows is byte for byte what the generated encoder writes for the same structs.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

from kadmin.protocol.compiler import LazyField
from kadmin.protocol.primitives import read_uvarint, write_uvarint
from kadmin.protocol.rows import (
    _WRITERS,
    AlterOpRow,
    AlterRow,
    UniformAlterations,
    _alter_structs,
    _compact_string,
    _first_head_and_key,
    _head,
    _pairs,
    _string,
)

_OP_READ_END = struct.Struct(">d?BB").unpack_from  # an op's value, remove, its tagged fields, its entry's
_OP_READ = struct.Struct(">d?B").unpack_from  # an op's value, remove, its tagged fields
_VALUE_END = struct.Struct(">dBB").pack  # a value, its (empty) tagged fields and its entry's
_THROTTLE_CODE_NULL = struct.Struct(">ihB").pack  # ... and a null message
_CODE_NULL = struct.Struct(">hB").pack  # an error code and a null message
_CODE = struct.Struct(">h").pack
_THROTTLE = struct.Struct(">i").pack
_THROTTLE_CODE = struct.Struct(">ih").pack
_VALUE = struct.Struct(">dB").pack  # a value and its (empty) tagged fields


def _alter_request_rows_v1(buf: bytes, pos: int,
                           blen: int) -> tuple[dict[str, Any], list[AlterOpRow] | UniformAlterations, int] | None:
    """({field: value} of the other fields, rows, end) of an AlterClientQuotasRequest v1 starting at ``pos``, its
    entries as :class:`UniformAlterations` when they are all alike, else as :data:`AlterOpRow` s (entities' pairs
    and ops in the order sent); None for anything this reader leaves to the generated decoder (see the module
    docstring)."""
    sbuf = str(buf, "latin-1")
    count, pos = read_uvarint(buf, pos)
    if count == 0 or count - 1 > blen - pos:  # null entries (not nullable), or a count the bytes cannot hold
        return None
    rows: list[AlterOpRow] | UniformAlterations
    uniform = _uniform_request(buf, sbuf, pos, count - 1)
    if uniform is not None:
        rows, pos = uniform
        return _alter_request_end(buf, pos, blen, rows)
    rows = []
    add = rows.append
    last_type = last_key = ""
    type_head = key_head = b""  # [count 1 + 1, length + 1, bytes] of the last one-component type, one-op key
    for _ in range(count - 1):
        pairs: tuple[tuple[str, str | None], ...]
        if last_type and buf.startswith(type_head, pos):
            pos += len(type_head)
            etype = last_type
        elif buf[pos] == 2:  # one component, the usual entity: inline
            m = buf[pos + 1]
            if not 1 < m < 128:  # an empty or null type (left to the generated decoder), or a long one
                return None
            p = pos + 2
            pos = p + m - 1
            etype = sbuf[p:pos]
            if not etype.isascii():
                return None
            last_type = etype
            type_head = buf[p - 2:pos]
        else:
            etype = ""
        if etype:
            m = buf[pos]
            if m == 0:
                name = None
                pos += 1
            elif m < 128:
                p = pos + 1
                pos += m
                name = sbuf[p:pos]
                if not name.isascii():
                    return None
            else:
                return None
            if buf[pos]:  # tagged fields on the component
                return None
            pos += 1
            pairs = ((etype, name),)
        else:
            got_pairs = _pairs(buf, sbuf, pos)
            if got_pairs is None:
                return None
            pairs, pos = got_pairs
        known = last_key and buf.startswith(key_head, pos)
        if known or buf[pos] == 2:  # one op, the usual: inline
            if known:
                pos += len(key_head)
                key = last_key
            else:
                m = buf[pos + 1]
                if not 0 < m < 128:
                    return None
                p = pos + 2
                pos = p + m - 1
                key = sbuf[p:pos]
                if not key.isascii():
                    return None
                last_key = key
                key_head = buf[p - 2:pos]
            value, remove, op_tags, entry_tags = _OP_READ_END(buf, pos)
            if op_tags or entry_tags:
                return None
            pos += 11
            add((pairs, ((key, value, remove),)))
            continue
        got_ops = _ops(buf, sbuf, pos)
        if got_ops is None or buf[got_ops[1]]:  # tagged fields on the entry
            return None
        pos = got_ops[1] + 1
        add((pairs, got_ops[0]))
    return _alter_request_end(buf, pos, blen, rows)


def _alter_request_end(buf: bytes, pos: int, blen: int, rows: list[AlterOpRow] | UniformAlterations,
                       ) -> tuple[dict[str, Any], list[AlterOpRow] | UniformAlterations, int] | None:
    """The request's fields after its entries (ValidateOnly, no tagged fields), the rows, the end."""
    validate_only = buf[pos] != 0  # a bool as the generated decoder reads it: any byte but 0 is true
    if buf[pos + 1]:  # the request's own tagged fields: the generated decoder keeps them
        return None
    pos += 2
    if pos > blen:
        return None
    return {"validate_only": validate_only}, rows, pos


_NOT_REMOVED = b"\x00\x00\x00"  # remove false, no tagged fields on the op, none on the entry


def _uniform_request(buf: bytes, sbuf: str, pos: int, n: int) -> tuple[UniformAlterations, int] | None:
    """The ``n`` entries at ``pos`` as :class:`UniformAlterations` and the position after them, or None (read them
    as rows) when they are not all one Set of one key on one-component entities of one type (with one-byte
    lengths, ASCII, no tagged fields).  Each entry is a comparison of the bytes before its name (the component
    count and the type) and of those between its name and its value (the component's tag byte, the op count and
    the key), a name, and the three bytes after the value; the values are unpacked at once."""
    first = _first_head_and_key(buf, sbuf, pos) if n else None
    if first is None:
        return None
    head, etype, mid, key = first
    lh, lm = len(head), len(mid)
    names: list[str | None] = []
    add = names.append
    chunks: list[bytes] = []
    add_chunk = chunks.append
    starts = buf.startswith
    for _ in range(n):
        if not starts(head, pos):
            return None
        q = pos + lh
        m = buf[q]
        if m == 0:
            add(None)
            q += 1
        elif m < 128:
            pos = q + m
            add(sbuf[q + 1:pos])
            q = pos
        else:
            return None
        if not starts(mid, q):
            return None
        q += lm
        add_chunk(buf[q:q + 8])
        if not starts(_NOT_REMOVED, q + 8):
            return None
        pos = q + 11
    if not "".join([name for name in names if name]).isascii():  # one test for every name (type and key: above)
        return None
    values = list(struct.unpack(f">{n}d", b"".join(chunks)))
    return UniformAlterations(etype, key, names, values), pos


def _ops(buf: bytes, sbuf: str, pos: int) -> tuple[tuple[tuple[str, float, bool], ...], int] | None:
    """The ops of an alteration with any number of them but one (the common case is inline in the loop)."""
    c = buf[pos]
    if not 0 < c < 128:
        return None
    pos += 1
    ops: list[tuple[str, float, bool]] = []
    for _ in range(c - 1):
        key = _string(buf, sbuf, pos, False)
        if key is None:
            return None
        pos = key[1]
        value, remove, tags = _OP_READ(buf, pos)
        if tags:  # tagged fields on the op
            return None
        ops.append((key[0], value, remove))  # type: ignore[arg-type]
        pos += 10
    return tuple(ops), pos


_REQUEST_READERS: dict[tuple[str, int], Callable[[bytes, int, int], tuple[dict[str, Any], Any, int] | None]] = {
    ("AlterClientQuotasRequest", 1): _alter_request_rows_v1,
}


def with_request_rows(cls: type, version: int, generated: Callable[..., Any]) -> Callable[..., Any]:
    """The (eager) decoder of ``cls`` at ``version``: ``generated``, or for the requests in ``_REQUEST_READERS``
    their rows reader in front of it.  The fake broker decodes its requests so: the message it gives has its
    ``entries`` as rows (:func:`request_rows`), built into the structs on first read, so it is the generated
    decoder's message to everyone else; its encoder writes it back from the rows."""
    name = getattr(cls, "NAME", None)
    read = _REQUEST_READERS.get((name, version)) if isinstance(name, str) else None
    if read is None or not isinstance(name, str):
        return generated
    from kadmin.protocol.registry import message_type  # here: the registry imports this module's importer

    if message_type(name) is not cls:  # a schema loaded by the user, not kadmin's
        return generated
    LazyField.install(cls, "entries")
    new = object.__new__

    def decode(buf: bytes, pos: int, blen: int) -> tuple[Any, int]:
        try:
            got = read(buf, pos, blen)
        except (IndexError, ValueError, struct.error):  # malformed: the generated decoder says where
            got = None
        if got is None:
            return generated(buf, pos, blen)  # type: ignore[no-any-return]
        fields, rows, end = got
        o: Any = new(cls)
        for attr, value in fields.items():
            setattr(o, attr, value)
        o._unknown_tags = None
        o._lazy = {"entries": (_alter_structs, cls, rows, rows)}
        return o, end

    return decode


def _request_rows(request: Any) -> list[AlterOpRow] | UniformAlterations | None:
    try:
        thunk = request._lazy.get("entries")
    except AttributeError:
        return None
    if thunk is None or len(thunk) < 4 or thunk[0] is not _alter_structs:
        return None
    rows: list[AlterOpRow] | UniformAlterations = thunk[3]
    return rows


def request_rows(request: Any) -> list[AlterOpRow] | None:
    """The rows of an AlterClientQuotasRequest read or made as rows, while its ``entries`` are unread (left in
    place: nobody changes them); None once the structs were built: read ``entries`` then."""
    rows = _request_rows(request)
    return rows.rows() if isinstance(rows, UniformAlterations) else rows


def uniform_alterations(request: Any) -> UniformAlterations | None:
    """The alterations of an AlterClientQuotasRequest the fake's decoder read as :class:`UniformAlterations`
    (while its ``entries`` are unread), else None: see :func:`request_rows`."""
    rows = _request_rows(request)
    return rows if isinstance(rows, UniformAlterations) else None


#: One entity of a DescribeClientQuotasResponse as the fake answers it: its (type, name) pairs and its
#: {key: value}; entities are written in the order given, each one's values in key order.
DescribeRow = tuple[tuple[tuple[str, str | None], ...], dict[str, float]]


def _alter_answer_structs(cls: Any, rows: list[AlterRow]) -> list[Any]:
    entry, entity = cls.EntryData._from_values, cls.EntityData._from_values
    return [entry(code, message, [entity(t, n) for t, n in pairs]) for code, message, pairs in rows]


def _describe_answer_structs(cls: Any, rows: list[DescribeRow] | bytes) -> list[Any]:
    if isinstance(rows, bytes):  # the entries as written (response_written): read back by the generated decoder
        entries: list[Any] = cls.decode(_THROTTLE_CODE_NULL(0, 0, 0) + rows + b"\x00", 1, exact=True).entries
        return entries
    entry, entity, value = cls.EntryData._from_values, cls.EntityData._from_values, cls.ValueData._from_values
    return [entry([entity(t, n) for t, n in pairs], [value(k, values[k]) for k in sorted(values)])
            for pairs, values in rows]


def response_with_rows(cls: Any, rows: list[Any], **fields: Any) -> Any:
    """An AlterClientQuotasResponse (rows: :data:`AlterRow`) or DescribeClientQuotasResponse (rows:
    :data:`DescribeRow`) whose entries are ``rows``, the fake broker's answer: at version 1 its encoder writes
    them straight from the rows, not from two or three structs and two lists per entity (issue #28); reading
    ``entries`` (any other version, equality, ``repr``) builds the structs.  ``fields``: the other fields (every
    one of them, as the structs' constructor would be given).  The rows must stay as they are until encoded."""
    build = _ANSWER_BUILDERS[cls.NAME]
    LazyField.install(cls, "entries")
    o = object.__new__(cls)
    for f in cls._kfields:
        if f.attr != "entries":
            setattr(o, f.attr, fields[f.attr])
    o._unknown_tags = None
    o._lazy = {"entries": (build, cls, rows, rows)}
    return o


def response_written(cls: Any, rows: list[DescribeRow], **fields: Any) -> Any:
    """A DescribeClientQuotasResponse as :func:`response_with_rows` makes it, its entries written now (as at
    version 1) and ``rows`` not kept: for rows that are live data (the fake's own values, read under its lock),
    which may change once this returns.  Encoded at version 1, the written entries are copied; reading
    ``entries`` (another version, equality, ``repr``) decodes them."""
    o = response_with_rows(cls, [], **fields)
    written = bytearray()
    _describe_entries_v1(rows, written)
    build = _ANSWER_BUILDERS[cls.NAME]
    o._lazy = {"entries": (build, cls, bytes(written), bytes(written))}
    return o


_ANSWER_BUILDERS: dict[str, Callable[[Any, Any], list[Any]]] = {
    "AlterClientQuotasResponse": _alter_answer_structs,
    "DescribeClientQuotasResponse": _describe_answer_structs,
}


def _count(n: int, out: bytearray) -> None:
    """A compact array's count (``n`` + 1, as a varint)."""
    if n < 127:
        out.append(n + 1)
    else:
        out += write_uvarint(n + 1)


def _nullable_string(text: str | None, out: bytearray) -> None:
    if text is None:
        out.append(0)
    else:
        _compact_string(text, out)


def _write_pairs(pairs: tuple[tuple[str, str | None], ...], known: dict[str, bytes], out: bytearray) -> None:
    """An entity's components (count, then each type, name and empty tagged fields); one component of a type
    seen before is a lookup, its name and three appends."""
    if len(pairs) == 1:
        (etype, name), = pairs
        head = known.get(etype)
        if head is None:
            head = known[etype] = _head(b"\x02", etype)
        out += head
        if name is None:
            out.append(0)
        else:
            raw = name.encode("utf-8")
            if len(raw) < 127:
                out.append(len(raw) + 1)
            else:
                out += write_uvarint(len(raw) + 1)
            out += raw
        out.append(0)
        return
    _count(len(pairs), out)
    for etype, name in pairs:
        _compact_string(etype, out)
        _nullable_string(name, out)
        out.append(0)


def _write_alter_answer_v1(rows: list[AlterRow], o: Any, out: bytearray) -> None:
    """AlterClientQuotasResponse v1 from rows: byte for byte what the generated encoder writes for the same
    structs (tests/fake/test_fake_quota_rows.py)."""
    known: dict[str, bytes] = {}  # entity types repeat: each encoded once
    out += _THROTTLE(o.throttle_time_ms)
    _count(len(rows), out)
    # The usual row, a success for one component: everything before its name (no error, a null message, the
    # component count and the type) is the last such row's when the type is the same, so one append.
    last_type = ""
    head = b""
    for code, message, pairs in rows:
        if code == 0 and message is None and len(pairs) == 1:
            (etype, name), = pairs
            if etype != last_type or not head:
                head, last_type = _head(b"\x00\x00\x00\x02", etype), etype
            out += head
            if name is None:
                out.append(0)
            else:  # _compact_string, inline
                raw = name.encode("utf-8")
                if len(raw) < 127:
                    out.append(len(raw) + 1)
                else:
                    out += write_uvarint(len(raw) + 1)
                out += raw
            out += b"\x00\x00"  # no tagged fields on the component, none on the entry
            continue
        if message is None:
            out += _CODE_NULL(code, 0)
        else:
            out += _CODE(code)
            _compact_string(message, out)
        _write_pairs(pairs, known, out)
        out.append(0)
    out.append(0)


def _write_describe_answer_v1(rows: list[DescribeRow] | bytes, o: Any, out: bytearray) -> None:
    """DescribeClientQuotasResponse v1 from rows (or entries already written: response_written): byte for byte
    what the generated encoder writes for the same structs (tests/fake/test_fake_quota_rows.py)."""
    if o.error_message is None:
        out += _THROTTLE_CODE_NULL(o.throttle_time_ms, o.error_code, 0)
    else:
        out += _THROTTLE_CODE(o.throttle_time_ms, o.error_code)
        _compact_string(o.error_message, out)
    if isinstance(rows, bytes):
        out += rows
    else:
        _describe_entries_v1(rows, out)
    out.append(0)


def _describe_entries_v1(rows: list[DescribeRow], out: bytearray) -> None:
    """The entries array of a DescribeClientQuotasResponse v1 (its count, then each entry)."""
    _count(len(rows), out)
    # The usual row, one component and one value: the bytes before its name (the component count and the type)
    # and between its name and its value (the component's tag byte, the value count and the key) are the last
    # such row's when its type and key are the same, so each is one append.
    last_type = last_key = ""
    type_head = key_head = b""
    known: dict[str, bytes] = {}  # the other rows' entity types
    for pairs, values in rows:
        if len(pairs) == 1 and len(values) == 1:
            (etype, name), = pairs
            for key, value in values.items():  # the one value
                if etype != last_type or not type_head:
                    type_head, last_type = _head(b"\x02", etype), etype
                if key != last_key or not key_head:
                    key_head, last_key = _head(b"\x00\x02", key), key
                out += type_head
                if name is None:
                    out.append(0)
                else:  # _compact_string, inline
                    raw = name.encode("utf-8")
                    if len(raw) < 127:
                        out.append(len(raw) + 1)
                    else:
                        out += write_uvarint(len(raw) + 1)
                    out += raw
                out += key_head
                out += _VALUE_END(value, 0, 0)
            continue
        _write_pairs(pairs, known, out)
        _count(len(values), out)
        for key in sorted(values):
            _compact_string(key, out)
            out += _VALUE(values[key], 0)
        out.append(0)


_WRITERS[("AlterClientQuotasResponse", 1)] = (_write_alter_answer_v1, _alter_answer_structs)
_WRITERS[("DescribeClientQuotasResponse", 1)] = (_write_describe_answer_v1, _describe_answer_structs)
