"""Client quota operations: DescribeClientQuotas (48) and AlterClientQuotas (49) on the per-key driver.

Both APIs are answered by any broker (KRaft brokers forward alterations to the controller), so requests go to
one node that speaks the API.  That node is chosen among those that do, not just the least loaded one, so that a
rolling upgrade from a pre-2.6 release does not fail calls that a newer node could serve; when no node speaks
the API the call fails with an UnsupportedVersionError that says the release is too old.

Alterations are keyed by entity: a long list is cut into requests of ``batch_size`` entities, sent
concurrently (at most ``max_concurrency`` in flight), and every entity gets its own answer.  Retrying an
entity is safe because an alteration states final values (set X to v, remove Y): applying it twice leaves
the same state as applying it once.  Only the deadline limits retries; an entity whose request was sent but
never answered, or answered REQUEST_TIMED_OUT (the controller may still have committed it), ends as a
KafkaTimeoutError with ``possibly_applied=True``: describe the entity to see which state won.  (The driver does
both: these operations only say that they write and which node takes them.)
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from typing import Any

from kadmin import _batching
from kadmin.admin._driver import Context, Done, Failed, Operation, Outcome, Retry, Sent, run
from kadmin.admin.lookups import NodeSpeaking
from kadmin.errors import ErrorCode, KafkaError, ProtocolError, error_for_code
from kadmin.network.retry import Deadline
from kadmin.protocol import Message, message_type
from kadmin.protocol.apis import ApiKey
from kadmin.protocol.rows import AlterOpRow, UniformAlterAnswer, UniformQuotaAnswer, request_with_rows, take_rows
from kadmin.quotas import (
    ClientQuotaAlteration,
    ClientQuotaEntity,
    ClientQuotaFilter,
    Components,
    Set,
    entities_named,
    entities_sorted,
)

log = logging.getLogger("kadmin.admin")

DEFAULT_BATCH_SIZE = _batching.QUOTA_BATCH_SIZE
DEFAULT_MAX_CONCURRENCY = _batching.QUOTA_MAX_CONCURRENCY

_TOO_OLD = ("the broker's Kafka release is too old for the client quota APIs (DescribeClientQuotas and "
            "AlterClientQuotas need Kafka 2.6+, KIP-546)")


def check_batching(batch_size: object, max_concurrency: object) -> tuple[int, int]:
    for name, v in (("batch_size", batch_size), ("max_concurrency", max_concurrency)):
        if isinstance(v, bool) or not isinstance(v, int):
            raise TypeError(f"{name} must be an int, not {v!r}")
        if v < 1:
            raise ValueError(f"{name} must be at least 1, not {v}")
    return batch_size, max_concurrency  # type: ignore[return-value]


# --- wire <-> types ----------------------------------------------------------------------------------------


def entity_from_wire(parts: Iterable[Any]) -> ClientQuotaEntity:
    return entity_from_pairs([(p.entity_type, p.entity_name) for p in parts])


def entity_from_pairs(pairs: Iterable[tuple[str, str | None]]) -> ClientQuotaEntity:
    try:
        return ClientQuotaEntity._trusted(list(pairs))
    except (TypeError, ValueError) as exc:
        raise ProtocolError(f"the broker sent an invalid quota entity: {exc}") from None


def _wire_key(pairs: Iterable[tuple[str, str | None]]) -> frozenset[tuple[str, str | None]]:
    """Order-independent key of an entity's (type, name) pairs, as they appear on the wire (a broker need not
    echo them in the order they were sent; an entity names each type once, so a set loses nothing)."""
    return frozenset(pairs)


def _outcome(code: int, message: str | None) -> Outcome | None:
    err = error_for_code(code, message)
    if err is None:
        return None
    return Retry(err) if err.retriable else Failed(err)


# --- describe ----------------------------------------------------------------------------------------------


class DescribeClientQuotas(Operation[ClientQuotaFilter]):
    """One key, the filter; a top-level error code (or null entries) is the whole answer."""

    api = ApiKey.DESCRIBE_CLIENT_QUOTAS

    def __init__(self) -> None:
        self.lookup: NodeSpeaking[ClientQuotaFilter] = NodeSpeaking(self.api, too_old=_TOO_OLD)

    def build(self, node: int, keys: list[ClientQuotaFilter], version: int) -> Message:
        flt = keys[0]
        req: Any = message_type(ApiKey.DESCRIBE_CLIENT_QUOTAS, "request")
        return req(components=[req.ComponentData(entity_type=c.entity_type,  # type: ignore[no-any-return]
                                                 match_type=int(c.match_type), match=c.name)
                               for c in flt.components], strict=flt.strict)

    def handle(self, node: int, keys: list[ClientQuotaFilter], response: Any,
               version: int) -> dict[ClientQuotaFilter, Outcome]:
        flt, r = keys[0], response
        bad = _outcome(r.error_code, r.error_message)
        if bad is not None:
            return {flt: bad}
        rows = take_rows(r)
        if isinstance(rows, UniformQuotaAnswer):
            # One type, one key, a name and a value per entry (describing every client-id): the entities are
            # made in name order (an entity answered twice: its later value, as the rows' fold gives).
            return {flt: Done(entities_named(rows.names, rows.pairs, rows.values))}  # type: ignore[arg-type]
        if rows is not None:
            # The entries as the client's decoder read them, (type, name) pairs and values straight from the
            # bytes, without five objects per entry (kadmin.protocol.rows; issue #28): the one-component entities
            # already folded by their one pair, the others folded here by their canonical components, as below.
            folded, multi = rows
            for pairs, values in multi:
                _fold(folded, entity_from_pairs(pairs).components, values)
            return {flt: Done(entities_sorted(folded))}
        if r.entries is None:
            return {flt: Failed(ProtocolError(
                f"node {node} answered DescribeClientQuotas with null entries and no error code"))}
        out: dict[Components, dict[str, float]] = {}
        # The codec decodes a string type and a string-or-None name per component and a float per value, so
        # what the broker sent is trusted here (no caller-facing checks, issue #28): entities are built once,
        # at the end, from canonical components (a tuple hashes in C, an entity in Python).  An entity
        # answered twice gets the union of its values, as before.
        for entry in r.entries:
            # The arrays through their slots (see kadmin.protocol.compiler.raw_alias): reading them by name goes
            # through the lazy decoder's Python-level descriptor, two calls per entity, about a fifth of a
            # 5,000-entity describe's client CPU (issue #28).  An array the decoder left undecoded (a repeat
            # of the one before) has an empty slot: its name builds it.
            try:
                parts = entry._raw_entity
            except AttributeError:
                parts = entry.entity
            try:
                vs = entry._raw_values
            except AttributeError:
                vs = entry.values
            if len(parts) == 1:
                p = parts[0]
                key: Components = ((p.entity_type, p.entity_name),)
            else:
                key = entity_from_wire(parts).components
            if len(vs) == 1:
                v = vs[0]
                values = {v.key: v.value}
            else:
                values = {v.key: v.value for v in vs}
            _fold(out, key, values)
        return {flt: Done(entities_sorted(out))}


def _fold(out: dict[Components, dict[str, float]], key: Components, values: dict[str, float]) -> None:
    """Add an answered entity's values to ``out``: an entity answered twice gets the union (a later value wins)."""
    seen = out.get(key)
    if seen is None:
        out[key] = values
    else:
        seen.update(values)


async def describe_client_quotas(ctx: Context, flt: ClientQuotaFilter,
                                 deadline: Deadline) -> dict[ClientQuotaEntity, dict[str, float]]:
    """Raises the broker's top-level error (retriable ones after retrying until the deadline)."""
    res = (await run(ctx, DescribeClientQuotas(), [flt], deadline))[flt]
    if isinstance(res, KafkaError):
        raise res
    return res  # type: ignore[no-any-return]


# --- alter -------------------------------------------------------------------------------------------------


class AlterClientQuotas(Operation[ClientQuotaEntity]):
    """Keys are entities, ``batch_size`` per request, at most ``max_in_flight`` requests in flight."""

    api = ApiKey.ALTER_CLIENT_QUOTAS
    write = True
    #: An alteration states final values, so a resend's answer is the truth about the entity: no answer of a
    #: resend is mistaken for "the first send was applied".
    applied_looks_like = frozenset()

    def __init__(self, alterations: Sequence[ClientQuotaAlteration], *, validate_only: bool, batch_size: int,
                 max_concurrency: int) -> None:
        # Keyed by the entity objects' ids: the driver hands back the very objects of ``keys`` (the alterations'
        # entities, kept alive by ``self._keys``), and an int hashes in C where an entity's __hash__ is a Python
        # call, two per alteration here (issue #28).
        self._keys: list[ClientQuotaEntity] = []
        self.entries: dict[int, AlterOpRow] = {}
        # The alterations were checked when they were built (and by validate_alterations), so each becomes the
        # row its request is written from (kadmin.protocol.rows.request_with_rows): the entity's canonical
        # components and (key, value, remove) per op, no structs (issue #28).
        entries, keys = self.entries, self._keys
        for a in alterations:
            entity = a.entity
            keys.append(entity)
            given = a.ops
            if len(given) == 1:  # the usual one key: no generator (a function call per alteration)
                op = given[0]
                ops: tuple[tuple[str, float, bool], ...] = (
                    (op.key, op.value, False) if isinstance(op, Set) else (op.key, 0.0, True),)
            else:
                ops = tuple((o.key, o.value, False) if isinstance(o, Set) else (o.key, 0.0, True) for o in given)
            entries[id(entity)] = (entity.components, ops)
        self.validate_only = validate_only
        self.batch_size = batch_size
        self.max_in_flight = max_concurrency
        self.lookup: NodeSpeaking[ClientQuotaEntity] = NodeSpeaking(self.api, too_old=_TOO_OLD)

    @property
    def keys(self) -> list[ClientQuotaEntity]:
        return list(self._keys)

    def build(self, node: int, keys: list[ClientQuotaEntity], version: int) -> list[Sent]:
        req = message_type(ApiKey.ALTER_CLIENT_QUOTAS, "request")
        n = self.batch_size
        entries = self.entries
        return [(request_with_rows(req, [entries[id(e)] for e in keys[i:i + n]], validate_only=self.validate_only),
                 keys[i:i + n]) for i in range(0, len(keys), n)]

    def handle(self, node: int, keys: list[ClientQuotaEntity], response: Any,
               version: int) -> dict[ClientQuotaEntity, Outcome]:
        # Brokers answer entries in the order they were asked, so an entry is first compared with the entity at
        # its position; only an answer out of order (or with its pairs reordered) builds the lookup table.
        # Kept for speed: without it, AlterClientQuotas with 1,000 entities per request spends about 20% more
        # client CPU (bench.quotas, batch 1000).
        # The usual one-component entity is compared field by field, without building a list of pairs.
        asked: dict[frozenset[tuple[str, str | None]], ClientQuotaEntity] | None = None
        out: dict[ClientQuotaEntity, Outcome] = {}
        n = len(keys)
        rows = take_rows(response)
        if isinstance(rows, UniformAlterAnswer):
            # Every entry a success for a one-component entity of one type (a bulk alteration's usual answer):
            # when the names are the asked entities' names in order, every key is done, with no row per entry.
            # Anything else is read as the rows below (same rules).
            t = rows.entity_type
            if len(rows.names) == n and rows.names == [
                    c[0][1] if len(c) == 1 and c[0][0] == t else _NOT_ASKED for c in [k.components for k in keys]]:
                return dict.fromkeys(keys, _OK)
            rows = rows.rows()
        if rows is not None:
            # The entries as the client's decoder read them (kadmin.protocol.rows; issue #28): (code, message,
            # the entity's pairs), compared with the asked entity's components as one tuple.  Same rules as below.
            for i, (code, message, pairs) in enumerate(rows):
                found = keys[i] if i < n else None
                if found is None or pairs != found.components:
                    if asked is None:
                        asked = {_wire_key(e.components): e for e in keys}
                    found = asked.get(_wire_key(pairs))
                    if found is None:
                        log.warning("AlterClientQuotas: node %d answered for entity %s, which was not asked about",
                                    node, entity_from_pairs(pairs))
                        continue
                out[found] = _OK if code == _NONE else _outcome(code, message) or _OK
            return out
        for i, entry in enumerate(response.entries):
            try:  # the array through its slot, as in DescribeClientQuotas.handle
                parts = entry._raw_entity
            except AttributeError:
                parts = entry.entity
            entity: ClientQuotaEntity | None = keys[i] if i < n else None
            if entity is not None:
                comps = entity.components
                if len(parts) == 1 and len(comps) == 1:
                    p, c = parts[0], comps[0]
                    same = p.entity_type == c[0] and p.entity_name == c[1]
                else:
                    same = [(p.entity_type, p.entity_name) for p in parts] == list(comps)
                if not same:
                    entity = None
            if entity is None:
                if asked is None:
                    asked = {_wire_key(e.components): e for e in keys}
                entity = asked.get(_wire_key((p.entity_type, p.entity_name) for p in parts))
            if entity is None:
                log.warning("AlterClientQuotas: node %d answered for entity %s, which was not asked about",
                            node, entity_from_wire(parts))
                continue
            # REQUEST_TIMED_OUT (the controller did not commit in time; it may still) is retriable: the driver
            # retries it and remembers that the entity may have been applied.  Other codes: see _outcome.
            code = entry.error_code
            out[entity] = _OK if code == _NONE else _outcome(code, entry.error_message) or _OK
        return out


_OK: Done[None] = Done(None)
_NOT_ASKED = object()  # equal to no name: marks an asked entity that cannot be one of a uniform answer's
_NONE = int(ErrorCode.NONE)  # compared once per answered entity


class ValidateClientQuotas(AlterClientQuotas):
    """AlterClientQuotas with validate_only: nothing is applied, so nothing is ever in doubt."""

    write = False


async def alter_client_quotas(ctx: Context, alterations: Sequence[ClientQuotaAlteration], deadline: Deadline, *,
                              validate_only: bool, batch_size: int,
                              max_concurrency: int) -> dict[ClientQuotaEntity, None | KafkaError]:
    kind = ValidateClientQuotas if validate_only else AlterClientQuotas
    op = kind(alterations, validate_only=validate_only, batch_size=batch_size, max_concurrency=max_concurrency)
    res: dict[ClientQuotaEntity, None | KafkaError] = await run(ctx, op, op.keys, deadline)
    unsupported = op.lookup.unsupported
    if unsupported is not None and all(v is unsupported for v in res.values()):
        raise unsupported
    return res
