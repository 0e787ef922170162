"""The client quota messages' big struct arrays as plain rows, read from and written to the bytes directly.

Why: describing 5,000 client quotas, the generated decoder built five objects per entry (the entry, its entity
component, its value, two lists) only for the client to read them once into ``{components: {key: value}}``;
allocating them (and the garbage collector's passes over them) was about half the call's client CPU, and
altering 5,000 built three structs and two lists per alteration only to encode them (issue #28).  So:

* the client's (lazy) decoder of DescribeClientQuotasResponse v1 and AlterClientQuotasResponse v1 reads the
  entries as rows and leaves ``entries`` undecoded: its first read decodes the structs from the same bytes,
  so the message is the same object to everyone else (equality, ``repr``, copies and JSON read it through
  the attribute).  :func:`take_rows` hands the rows to the caller that asked for them, once;
* :func:`request_with_rows` makes an AlterClientQuotasRequest from rows the caller checked, written at v1
  straight from them (the same bytes as from the structs); reading ``entries`` builds the structs.

The fake broker's side of the same messages (the inverse pair) is in :mod:`kadmin.protocol.rows_broker`.

Only the common shape is read here (by every reader): one-byte lengths and counts (multi-byte entry count
allowed), ASCII strings, no tagged fields inside the entries.  Anything else (and anything malformed) falls back to the
generated decoder, which decodes it or raises its ProtocolError with a field path, as before (empty entity
types too).  Kept inside the codec, as the project's speed tricks are; the quota operations
(kadmin.admin.quotas) and the fake's two handlers only consume and produce rows.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any, NamedTuple

from kadmin.protocol.compiler import LAZY_LOCK, LazyField
from kadmin.protocol.primitives import read_uvarint, write_uvarint

#: (type, name) pairs of one entity as the broker sent them, and its values (a key sent twice: the last wins).
QuotaRow = tuple[tuple[tuple[str, str | None], ...], dict[str, float]]
#: What the DescribeClientQuotasResponse reader gives (see _quota_rows_v1).
QuotaRows = tuple[dict[tuple[tuple[str, str | None], ...], dict[str, float]], list[QuotaRow]]

#: (error_code, error_message, the entity's (type, name) pairs as the broker sent them) of one answered entity.
AlterRow = tuple[int, str | None, tuple[tuple[str, str | None], ...]]


class UniformQuotaAnswer(NamedTuple):
    """A DescribeClientQuotasResponse whose every entry is an entity of one component, all of one type, with one
    value, all of one key (no empty name, no tagged fields), in the order answered: each entry's name (None: the
    default entity), its pairs (``((type, name),)``, the canonical components) and its values (``{key: value}``).

    Why: describing every client-id (or user) is answered like this; the general rows fold every entry into a
    dict by its pairs, and the caller then checks every entity's shape again to sort them, about a sixth of
    describing 5,000 (issue #28).  An entity may still be answered twice: :meth:`rows` folds them as the rows
    reader does."""

    names: list[str | None]
    pairs: list[tuple[tuple[str, str | None]]]
    values: list[dict[str, float]]

    def rows(self) -> QuotaRows:
        """The same answer as the general reader's rows (a later value of an entity answered twice wins)."""
        single: dict[tuple[tuple[str, str | None], ...], dict[str, float]] = {}
        for pairs, values in zip(self.pairs, self.values, strict=True):
            single.setdefault(pairs, {}).update(values)
        return single, []


class UniformAlterAnswer(NamedTuple):
    """An AlterClientQuotasResponse whose every entry says "no error" (no message, no tagged fields) for an entity
    of one component, all of one type: that type and the names in the order answered (None: the default entity).

    Why: a bulk alteration (5,000 client-ids) is answered like this, and a row per entry (three tuples and a name)
    was about a fifth of the call's client CPU (issue #28); the caller compares the names with what it asked."""

    entity_type: str
    names: list[str | None]

    def rows(self) -> list[AlterRow]:
        """The same answer as the general rows."""
        t = self.entity_type
        return [(0, None, ((t, name),)) for name in self.names]

_IH = struct.Struct(">ih").unpack_from
_I = struct.Struct(">i").unpack_from
_HB = struct.Struct(">hB").unpack_from
_D = struct.Struct(">d").unpack_from
_DH = struct.Struct(">dH").unpack_from


def _quota_rows_v1(buf: bytes, pos: int,
                   blen: int) -> tuple[dict[str, Any], QuotaRows | UniformQuotaAnswer, int] | None:
    """({field: value} of the other fields, rows, end) of a DescribeClientQuotasResponse v1 starting at ``pos``;
    None for anything this reader leaves to the generated decoder (see the module docstring).

    The rows are ``(single, multi)``: the entities of one component (their pairs are canonical: one pair) in a
    dict, an entity answered twice getting the union of its values (the later value of a key wins), and the
    others as (pairs, values) rows in the order they came, for the caller to order their components."""
    sbuf = str(buf, "latin-1")  # ASCII slices of it are the UTF-8 decoding (see compiler.emit_fast_varlen_decode)
    throttle, code = _IH(buf, pos)
    got_message = _string(buf, sbuf, pos + 6, True)
    if got_message is None:
        return None
    message, pos = got_message
    count, pos = read_uvarint(buf, pos)
    if count == 0 or count - 1 > blen - pos:  # null entries, or a count the bytes cannot hold
        return None
    fields = {"throttle_time_ms": throttle, "error_code": code, "error_message": message}
    uniform = _uniform_quotas(buf, sbuf, pos, count - 1)
    if uniform is not None:
        answer, end = uniform
        if buf[end]:  # the response's own tagged fields: the generated decoder keeps them
            return None
        end += 1
        return None if end > blen else (fields, answer, end)
    single: dict[tuple[tuple[str, str | None], ...], dict[str, float]] = {}
    setdefault = single.setdefault
    multi: list[QuotaRow] = []
    # Entity types and quota keys repeat entry after entry ("client-id", "producer_byte_rate"): the last one
    # read is reused instead of slicing a new string each time...
    last_type = last_key = ""
    # ... and so are the bytes before them: a one-component entity's count and its type's length and bytes, a
    # one-value array's count and its key's length and bytes.  Compared at once when the string is known.
    type_head = key_head = b""
    for _ in range(count - 1):
        if last_type and buf.startswith(type_head, pos):
            pos += len(type_head)
            etype = last_type
            one = True
        elif buf[pos] == 2:  # one component, the usual entity: inline
            m = buf[pos + 1]
            if not 1 < m < 128:  # an empty or null type (never sent), or a long one
                return None
            p = pos + 2
            pos = p + m - 1
            etype = sbuf[p:pos]
            if not etype.isascii():
                return None
            last_type = etype
            type_head = buf[p - 2:pos]
            one = True
        else:
            one = False
        if one:
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
            pairs: tuple[tuple[str, str | None], ...] = ((etype, name),)
        else:
            got_pairs = _pairs(buf, sbuf, pos)
            if got_pairs is None:
                return None
            pairs, pos = got_pairs
        known = last_key and buf.startswith(key_head, pos)
        if known or buf[pos] == 2:  # one value, the usual: inline
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
            value, tags = _DH(buf, pos)
            if tags:  # tagged fields on the value or on the entry
                return None
            pos += 10
            if not one:
                multi.append((pairs, {key: value}))
                continue
            # One lookup for the usual new entity (an entity's pairs hash its strings again each time).
            fresh = {key: value}
            seen = setdefault(pairs, fresh)
            if seen is not fresh:
                seen[key] = value
        else:
            got_values = _values(buf, sbuf, pos)
            if got_values is None:
                return None
            values, pos = got_values
            if buf[pos]:  # tagged fields on the entry
                return None
            pos += 1
            if not one:
                multi.append((pairs, values))
                continue
            seen = setdefault(pairs, values)
            if seen is not values:
                seen.update(values)
    if buf[pos]:  # the response's own tagged fields: the generated decoder keeps them
        return None
    pos += 1
    if pos > blen:
        return None
    return fields, (single, multi), pos


def _alter_rows_v1(buf: bytes, pos: int,
                   blen: int) -> tuple[dict[str, Any], list[AlterRow] | UniformAlterAnswer, int] | None:
    """({field: value} of the other fields, rows, end) of an AlterClientQuotasResponse v1 starting at ``pos``;
    None for anything this reader leaves to the generated decoder (see the module docstring).  The rows are a
    :class:`UniformAlterAnswer` when every entry is a success of the same shape, else a list of :data:`AlterRow`."""
    sbuf = str(buf, "latin-1")
    throttle, = _I(buf, pos)
    count, pos = read_uvarint(buf, pos + 4)
    if count == 0 or count - 1 > blen - pos:  # null entries (not nullable), or a count the bytes cannot hold
        return None
    uniform = _uniform_alter(buf, sbuf, pos, count - 1)
    if uniform is not None:
        answer, end = uniform
        if buf[end]:  # the response's own tagged fields: the generated decoder keeps them
            return None
        end += 1
        return None if end > blen else ({"throttle_time_ms": throttle}, answer, end)
    rows: list[AlterRow] = []
    add = rows.append
    last_type = ""
    for _ in range(count - 1):
        code, m = _HB(buf, pos)
        pos += 2
        if m == 0:
            message = None
            pos += 1
        elif m < 128:
            p = pos + 1
            pos += m
            message = sbuf[p:pos]
            if not message.isascii():
                return None
        else:
            return None
        if buf[pos] == 2:  # one component, the usual entity: inline (as in _quota_rows_v1)
            m = buf[pos + 1]
            if not 1 < m < 128:
                return None
            p = pos + 2
            pos = p + m - 1
            if pos - p == len(last_type) and sbuf.startswith(last_type, p):
                etype = last_type
            else:
                etype = sbuf[p:pos]
                if not etype.isascii():
                    return None
                last_type = etype
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
            if buf[pos] or buf[pos + 1]:  # tagged fields on the component or on the entry
                return None
            pos += 2
            add((code, message, ((etype, name),)))
            continue
        got_pairs = _pairs(buf, sbuf, pos)
        if got_pairs is None:
            return None
        pairs, pos = got_pairs
        if buf[pos]:  # tagged fields on the entry
            return None
        pos += 1
        add((code, message, pairs))
    if buf[pos]:
        return None
    pos += 1
    if pos > blen:
        return None
    return {"throttle_time_ms": throttle}, rows, pos


def _first_head_and_key(buf: bytes, sbuf: str, pos: int) -> tuple[bytes, str, bytes, str] | None:
    """From the first entry at ``pos`` of a one-component entity followed by a one-element array of a key (a
    describe's value, an alteration's op), what every entry of a uniform run repeats: the bytes before the name
    (the component count and the type), the type, the bytes between the name and what follows the key (the
    component's tag byte, the count and the key), and the key; None for any other shape (or a long or non-ASCII
    type or key).  Read once per message, by the uniform readers of both sides (see rows_broker)."""
    if buf[pos] != 2:
        return None
    m = buf[pos + 1]
    if not 1 < m < 128:  # an empty or null type (never sent), or a long one
        return None
    lt = m + 1
    q = pos + lt  # the first entry's name, then the bytes between its name and its value
    m = buf[q]
    if m >= 128:
        return None
    q += m if m else 1
    k = buf[q + 2]
    if buf[q] or buf[q + 1] != 2 or not 1 < k < 128:  # tagged fields on the component, not one element, long key
        return None
    lk = k + 2
    etype, key = sbuf[pos + 2:pos + lt], sbuf[q + 3:q + lk]
    return (buf[pos:pos + lt], etype, buf[q:q + lk], key) if (etype + key).isascii() else None


def _uniform_quotas(buf: bytes, sbuf: str, pos: int, n: int) -> tuple[UniformQuotaAnswer, int] | None:
    """The ``n`` entries at ``pos`` as a :class:`UniformQuotaAnswer` and the position after them, or None (read
    them as rows) when they are not all of that shape (with one-byte lengths, ASCII).  The first entry gives the
    bytes every entry repeats: before the name (the component count and the type) and between the name and the
    value (the component's tag byte, the value count and the key); each entry is those two comparisons, a name
    and a value."""
    first = _first_head_and_key(buf, sbuf, pos) if n else None
    if first is None:
        return None
    type_head, etype, tail, key = first
    lt, lk = len(type_head), len(tail)
    names: list[str | None] = []
    pairs: list[tuple[tuple[str, str | None]]] = []
    values: list[dict[str, float]] = []
    add_name, add_pairs, add_values, starts = names.append, pairs.append, values.append, buf.startswith
    for _ in range(n):
        if not starts(type_head, pos):
            return None
        q = pos + lt
        m = buf[q]
        if m == 0:
            name = None
            e = q + 1
        elif 1 < m < 128:
            e = q + m
            name = sbuf[q + 1:e]
        else:  # an empty name (never stored by Kafka) or a long one
            return None
        if not starts(tail, e):
            return None
        value, tags = _DH(buf, e + lk)
        if tags:  # tagged fields on the value or on the entry
            return None
        add_name(name)
        add_pairs(((etype, name),))
        add_values({key: value})
        pos = e + lk + 10
    if not "".join([name for name in names if name]).isascii():  # one test for every name (type and key: above)
        return None
    return UniformQuotaAnswer(names, pairs, values), pos


_SUCCESS_ONE = b"\x00\x00\x00\x02"  # error code 0, a null message, an entity array of one component
_NO_TAGS_TWICE = b"\x00\x00"  # no tagged fields on the component, none on the entry


def _uniform_alter(buf: bytes, sbuf: str, pos: int, n: int) -> tuple[UniformAlterAnswer, int] | None:
    """The ``n`` entries at ``pos`` as a :class:`UniformAlterAnswer` and the position after them, or None (read
    them as rows) when they are not all successes for one-component entities of one type (with one-byte lengths,
    ASCII, no tagged fields).  Each entry is one comparison of its head (the code, the message, the component
    count and the type, the same bytes every time), a name, and one of the two tag bytes."""
    if n == 0 or not buf.startswith(_SUCCESS_ONE, pos):
        return None
    m = buf[pos + 4]
    if not 1 < m < 128:  # an empty or null type (never sent), or a long one
        return None
    lh = 4 + m
    head = buf[pos:pos + lh]
    etype = sbuf[pos + 5:pos + lh]
    names: list[str | None] = []
    add = names.append
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
        if not starts(_NO_TAGS_TWICE, q):
            return None
        pos = q + 2
    if not (etype + "".join([name for name in names if name])).isascii():  # one test for every string
        return None
    return UniformAlterAnswer(etype, names), pos


def _string(buf: bytes, sbuf: str, pos: int, nullable: bool) -> tuple[str | None, int] | None:
    """A compact string of one-byte length at ``pos`` (None: not one this reader takes)."""
    m = buf[pos]
    if m == 0 and nullable:
        return None, pos + 1
    if not 0 < m < 128:
        return None
    p = pos + 1
    pos += m
    text = sbuf[p:pos]
    return (text, pos) if text.isascii() else None


def _pairs(buf: bytes, sbuf: str, pos: int) -> tuple[tuple[tuple[str, str | None], ...], int] | None:
    """An entity of any number of components but one (the common case is inline in the loop)."""
    c = buf[pos]
    if not 0 < c < 128:
        return None
    pos += 1
    pairs: list[tuple[str, str | None]] = []
    for _ in range(c - 1):
        etype = _string(buf, sbuf, pos, False)
        if etype is None or not etype[0]:  # an empty type (never sent)
            return None
        name = _string(buf, sbuf, etype[1], True)
        if name is None or buf[name[1]]:  # tagged fields on the component
            return None
        pairs.append((etype[0], name[0]))
        pos = name[1] + 1
    return tuple(pairs), pos


def _values(buf: bytes, sbuf: str, pos: int) -> tuple[dict[str, float], int] | None:
    """The values of an entry with any number of them but one (a key sent twice: the last wins, as the
    decoded structs' ``{v.key: v.value ...}`` gives)."""
    c = buf[pos]
    if not 0 < c < 128:
        return None
    pos += 1
    values: dict[str, float] = {}
    for _ in range(c - 1):
        key = _string(buf, sbuf, pos, False)
        if key is None:
            return None
        pos = key[1]
        values[key[0]], = _D(buf, pos)  # type: ignore[index]
        if buf[pos + 8]:  # tagged fields on the value
            return None
        pos += 9
    return values, pos


_READERS: dict[tuple[str, int], Callable[[bytes, int, int], tuple[dict[str, Any], Any, int] | None]] = {
    ("DescribeClientQuotasResponse", 1): _quota_rows_v1,
    ("AlterClientQuotasResponse", 1): _alter_rows_v1,
}


def with_rows(cls: type, version: int, generated: Callable[..., Any]) -> Callable[..., Any]:
    """The client's decoder of ``cls`` at ``version``: ``generated`` (the lazy decoder), or for the answers in
    ``_READERS`` their rows reader in front of it (see the module docstring)."""
    name = getattr(cls, "NAME", None)
    read = _READERS.get((name, version)) if isinstance(name, str) else None
    if read is None or not isinstance(name, str):
        return generated
    from kadmin.protocol.registry import message_type  # here: the registry imports this module's importer

    if message_type(name) is not cls:  # a schema loaded by the user, not kadmin's
        return generated
    LazyField.install(cls, "entries")
    new = object.__new__

    def materialize(where: tuple[bytes, int, int], _unused: object) -> Any:
        buf, start, blen = where
        obj, _end = generated(buf, start, blen)
        return obj.entries

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
        o._lazy = {"entries": (materialize, (buf, pos, blen), None, rows)}
        return o, end

    return decode


def take_rows(response: Any) -> Any:
    """The rows the client's decoder read for ``response``'s ``entries``, once (the caller may change them);
    None when the entries were decoded as structs (or already handed out): read ``entries`` then."""
    try:
        pending = response._lazy
    except AttributeError:
        return None
    with LAZY_LOCK:  # as LazyField changes ``_lazy``
        thunk = pending.get("entries")
        if thunk is None or len(thunk) < 4:
            return None
        pending["entries"] = thunk[:3]
    return thunk[3]


class UniformAlterations(NamedTuple):
    """AlterClientQuotasRequest entries that each set one key, the same for all, on an entity of one component,
    all of one type: the type, the key, and each entry's name (None: the default entity) and value.

    Why: a bulk alteration (5,000 client-ids, one rate each) is sent like this, and five tuples per entry were
    about a third of reading it, and of the garbage collector's work (issue #28)."""

    entity_type: str
    key: str
    names: list[str | None]
    values: list[float]

    def rows(self) -> list[AlterOpRow]:
        """The same alterations as the general rows."""
        t, k = self.entity_type, self.key
        return [(((t, name),), ((k, value, False),)) for name, value in zip(self.names, self.values, strict=True)]


# --- requests: the entries of AlterClientQuotasRequest written straight from rows ---------------------------------

#: One alteration as the client sends it: the entity's (type, name) pairs and its ops as (key, value, remove).
AlterOpRow = tuple[tuple[tuple[str, str | None], ...], tuple[tuple[str, float, bool], ...]]

_DBB = struct.Struct(">d?B").pack  # an op's value, remove, and its (empty) tagged fields
_DBBB = struct.Struct(">d?BB").pack  # ... and the (empty) tagged fields of the entry it ends
_BB = struct.Struct(">?B").pack


def _alter_structs(cls: Any, rows: list[AlterOpRow] | UniformAlterations) -> list[Any]:
    """The entries of ``rows`` as the request's structs (what reading ``entries`` gives)."""
    if isinstance(rows, UniformAlterations):
        rows = rows.rows()
    entry, entity, op = cls.EntryData._from_values, cls.EntityData._from_values, cls.OpData._from_values
    return [entry([entity(t, n) for t, n in pairs], [op(k, v, r) for k, v, r in ops]) for pairs, ops in rows]


def request_with_rows(cls: Any, rows: list[AlterOpRow], *, validate_only: bool) -> Any:
    """An AlterClientQuotasRequest whose entries are ``rows``, already checked by the caller (kadmin.quotas
    built and validated every alteration): at version 1 its encoder writes them straight from the rows, not
    from three structs and two lists per alteration (issue #28); reading ``entries`` (any other version's
    encoder, equality, ``repr``, the tracing encoder that names a field that fails) builds the structs."""
    LazyField.install(cls, "entries")
    o = object.__new__(cls)
    o.validate_only = validate_only
    o._unknown_tags = None
    o._lazy = {"entries": (_alter_structs, cls, rows, rows)}
    return o


def _head(prefix: bytes, text: str) -> bytes:
    """``prefix`` and ``text`` as a compact string: the bytes a writer repeats before or after a name while the
    entity type (or quota key) stays the same."""
    part = bytearray(prefix)
    _compact_string(text, part)
    return bytes(part)


def _compact_string(text: str, out: bytearray) -> None:
    raw = text.encode("utf-8")
    n = len(raw) + 1
    if n < 128:
        out.append(n)
    else:
        out += write_uvarint(n)
    out += raw


def _write_alter_v1(rows: list[AlterOpRow], o: Any, out: bytearray) -> None:
    """AlterClientQuotasRequest v1 from rows: byte for byte what the generated encoder writes for the same
    structs (tests/protocol/test_protocol_rows.py)."""
    known: dict[str, bytes] = {}  # entity types and quota keys repeat: each encoded once
    n = len(rows) + 1
    if n < 128:
        out.append(n)
    else:
        out += write_uvarint(n)
    # The usual row, one component and one op: the bytes before its name (the component count and the type) and
    # between its name and its value (the component's tag byte, the op count and the key) are the last row's
    # when its type and key are the same strings, so each is one append (issue #28: 5,000 rows 2.3 -> 1.4 ms).
    last_type = last_key = None
    type_head = key_head = b""
    for pairs, ops in rows:
        if len(pairs) == 1 and len(ops) == 1:
            (etype, name), = pairs
            (key, value, remove), = ops
            if etype is not last_type:
                type_head, last_type = _head(b"\x02", etype), etype
            if key is not last_key:
                key_head, last_key = _head(b"\x00\x02", key), key
            out += type_head
            if name is None:
                out.append(0)
            else:
                _compact_string(name, out)
            out += key_head
            out += _DBBB(value, remove, 0, 0)
            continue
        n = len(pairs) + 1
        if n < 128:
            out.append(n)
        else:
            out += write_uvarint(n)
        for etype, name in pairs:
            raw = known.get(etype)
            if raw is None:
                raw = known[etype] = _head(b"", etype)
            out += raw
            if name is None:
                out.append(0)
            else:
                _compact_string(name, out)
            out.append(0)
        n = len(ops) + 1
        if n < 128:
            out.append(n)
        else:
            out += write_uvarint(n)
        for key, value, remove in ops:
            raw = known.get(key)
            if raw is None:
                raw = known[key] = _head(b"", key)
            out += raw
            out += _DBB(value, remove, 0)
        out.append(0)
    out += _BB(o.validate_only, 0)


#: (name, version) -> (its writer from rows, the builder of its structs: a message's rows are written only when
#: its ``entries`` thunk is that builder's, i.e. the rows are this module's kind, not the client's decoded rows).
_WRITERS: dict[tuple[str, int], tuple[Callable[[list[Any], Any, bytearray], None], Callable[..., Any]]] = {
    ("AlterClientQuotasRequest", 1): (lambda rows, o, out: _write_alter_v1(
        rows.rows() if isinstance(rows, UniformAlterations) else rows, o, out), _alter_structs),
}


def with_row_writer(cls: type, version: int, generated: Callable[..., Any]) -> Callable[..., Any]:
    """The encoder of ``cls`` at ``version``: ``generated``, or for the messages in ``_WRITERS`` one that writes
    a message made by :func:`request_with_rows`, :func:`response_with_rows` or read by the fake's decoder
    (:func:`with_request_rows`) from its rows (any other message: ``generated``)."""
    found = _WRITERS.get((getattr(cls, "NAME", ""), version))
    if found is None:
        return generated
    write, builder = found

    def encode(o: Any, out: bytearray) -> None:
        try:
            thunk = o._lazy.get("entries")
        except AttributeError:
            thunk = None
        if thunk is None or len(thunk) < 4 or thunk[0] is not builder or o._unknown_tags:
            generated(o, out)
        else:
            write(thunk[3], o, out)

    return encode
