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
KafkaTimeoutError with ``possibly_applied=True``: describe the entity to see which state won.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable, Sequence
from typing import Any

from kadmin.admin import _driver
from kadmin.admin._driver import Done, Failed, Outcome, Retry
from kadmin.errors import (
    KafkaError,
    KafkaTimeoutError,
    NoBrokersAvailableError,
    ProtocolError,
    RequestTimedOutError,
    UnsupportedVersionError,
    error_for_code,
)
from kadmin.network.retry import Deadline
from kadmin.protocol import Message, message_type
from kadmin.quotas import ClientQuotaAlteration, ClientQuotaEntity, ClientQuotaFilter, Set

log = logging.getLogger("kadmin.admin")

DESCRIBE_CLIENT_QUOTAS = 48
ALTER_CLIENT_QUOTAS = 49
DEFAULT_BATCH_SIZE = 1000
DEFAULT_MAX_CONCURRENCY = 4

_TOO_OLD = ("the broker's Kafka release is too old for the client quota APIs (DescribeClientQuotas and "
            "AlterClientQuotas need Kafka 2.6+, KIP-546)")


def check_batching(batch_size: object, max_concurrency: object) -> tuple[int, int]:
    for name, v in (("batch_size", batch_size), ("max_concurrency", max_concurrency)):
        if isinstance(v, bool) or not isinstance(v, int):
            raise TypeError(f"{name} must be an int, not {v!r}")
        if v < 1:
            raise ValueError(f"{name} must be at least 1, not {v}")
    return batch_size, max_concurrency  # type: ignore[return-value]


# --- where requests go -------------------------------------------------------------------------------------


class _BoundedNet:
    """The client's NetworkClient with at most ``limit`` sends of this call in flight.

    Why here and not in the driver: the driver sends every request a builder returns at once, which is right
    for one request per coordinator but would put thousands of entities on the wire together."""

    #: Not the network client's send_many, which would pipeline a split request list past ``limit``: without
    #: it, the driver sends such a list one request at a time through ``send`` below.
    send_many = None

    def __init__(self, net: Any, limit: int) -> None:
        self._net = net
        self._sem = asyncio.Semaphore(limit)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._net, name)

    async def send(self, node_id: int, request: Message, version: int, *, deadline: Deadline) -> Any:
        async with self._sem:
            return await self._net.send(node_id, request, version, deadline=deadline)


class QuotaNode:
    """A lookup that sends every key to one node that speaks ``api_key`` (kept while it answers)."""

    def __init__(self, net: Any, api_key: int) -> None:
        self.net = net
        self.api_key = api_key
        self._node: int | None = None
        self._avoid: set[int] = set()
        # Set when no node speaks the API: the instance every key failed with (so callers can raise it once).
        self.unsupported: KafkaError | None = None

    def _candidates(self) -> list[int]:
        nodes = list(self.net.nodes)
        try:
            first = [self.net.least_loaded_node()]
        except NoBrokersAvailableError:
            first = []
        order = first + sorted(n for n in nodes if n not in first)
        preferred = [n for n in order if n not in self._avoid]
        return preferred + [n for n in order if n in self._avoid]

    async def locate(self, keys: Sequence[Any], deadline: Deadline) -> dict[Any, int | Outcome] | int:
        # Every key goes to the one node: said once (the driver's short form), not once per key.
        if self._node is not None:
            return self._node
        unsupported: list[tuple[int, KafkaError]] = []
        last: KafkaError | None = None
        for node in self._candidates():
            if deadline.expired:
                break
            try:
                await self.net.negotiated_version(node, self.api_key, deadline=deadline)
            except UnsupportedVersionError as exc:
                unsupported.append((node, exc))
                continue
            except KafkaError as exc:
                if not exc.retriable and not isinstance(exc, KafkaTimeoutError):
                    return {k: Failed(exc) for k in keys}
                last = exc
                continue
            self._node = node
            return node
        if unsupported and last is None:
            self.unsupported = await self._explain(unsupported, deadline)
            return {k: Failed(self.unsupported) for k in keys}
        err = last or NoBrokersAvailableError("no node could be reached for the client quota APIs")
        return {k: Retry(err) for k in keys}

    async def _explain(self, refusals: list[tuple[int, KafkaError]], deadline: Deadline) -> KafkaError:
        """One error for "no node speaks the API", saying why when the brokers simply predate it."""
        missing: list[int] = []
        for node, _exc in refusals:
            try:
                table = await self.net.api_versions(node, deadline=deadline)
            except KafkaError:
                continue
            if self.api_key not in table:
                missing.append(node)
        first = refusals[0][1]
        nodes = ", ".join(str(n) for n, _ in refusals)
        if missing:
            return UnsupportedVersionError(f"no broker supports the client quota APIs (node(s) {nodes}): "
                                           f"{_TOO_OLD}; {first.message}")
        return UnsupportedVersionError(f"no broker can take this client quota request (node(s) {nodes}): "
                                       f"{first.message}")

    def forget(self, keys: Iterable[Any]) -> None:
        pass

    def forget_node(self, node_id: int) -> None:
        if self._node == node_id:
            self._node = None
        self._avoid.add(node_id)
        if len(self._avoid) >= max(1, len(self.net.nodes)):
            self._avoid.clear()


# --- wire <-> types ----------------------------------------------------------------------------------------


def entity_from_wire(parts: Iterable[Any]) -> ClientQuotaEntity:
    try:
        return ClientQuotaEntity([(p.entity_type, p.entity_name) for p in parts])
    except (TypeError, ValueError) as exc:
        raise ProtocolError(f"the broker sent an invalid quota entity: {exc}") from None


def _wire_key_of(pairs: Iterable[tuple[str, str | None]]) -> tuple[tuple[str, str | None], ...]:
    """Order-independent key of an entity's (type, name) pairs, as they appear on the wire."""
    return tuple(sorted(pairs, key=lambda p: p[0]))


def _outcome(code: int, message: str | None) -> Outcome | None:
    err = error_for_code(code, message)
    if err is None:
        return None
    return Retry(err) if err.retriable else Failed(err)


# --- describe ----------------------------------------------------------------------------------------------


class DescribeClientQuotasHandler:
    """One key: the filter.  A top-level error code (or null entries) is the whole answer."""

    api_key = DESCRIBE_CLIENT_QUOTAS
    name = "DescribeClientQuotas"

    def __init__(self, flt: ClientQuotaFilter) -> None:
        self.filter = flt

    def request(self) -> Message:
        req = message_type(DESCRIBE_CLIENT_QUOTAS, "request")
        C = req.ComponentData  # type: ignore[attr-defined]
        return req(components=[C(entity_type=c.entity_type, match_type=int(c.match_type), match=c.name)
                               for c in self.filter.components], strict=self.filter.strict)

    def builder(self, keys: Sequence[ClientQuotaFilter]) -> _driver.BuildWith:
        return _driver.BuildWith(lambda version: self.request())

    def keys_of(self, request: Message, version: int) -> list[ClientQuotaFilter]:
        return [self.filter]

    def handle(self, request: Message, response: Message, version: int,
               node_id: int) -> dict[ClientQuotaFilter, Outcome]:
        r: Any = response
        bad = _outcome(r.error_code, r.error_message)
        if bad is not None:
            return {self.filter: bad}
        if r.entries is None:
            return {self.filter: Failed(ProtocolError(
                f"node {node_id} answered DescribeClientQuotas with null entries and no error code"))}
        out: dict[ClientQuotaEntity, dict[str, float]] = {}
        for entry in r.entries:
            entity = entity_from_wire(entry.entity)
            values = out.get(entity)
            if values is None:
                values = out[entity] = {}
            for v in entry.values:
                values[v.key] = float(v.value)
        # Sorted by each entity's sort key, computed once: the order of sorted(out), without building two sort
        # keys per comparison in ClientQuotaEntity.__lt__ (that was most of a 10,000-entity describe).
        return {self.filter: Done({e: out[e] for e in sorted(out, key=ClientQuotaEntity.sort_key)})}


async def describe_client_quotas(net: Any, flt: ClientQuotaFilter, deadline: Deadline,
                                 config: Any) -> dict[ClientQuotaEntity, dict[str, float]]:
    """Raises the broker's top-level error (retriable ones after retrying until the deadline)."""
    lookup = QuotaNode(net, DESCRIBE_CLIENT_QUOTAS)
    res = (await _driver.run(net, DescribeClientQuotasHandler(flt), [flt], lookup, deadline, config))[flt]
    if isinstance(res, KafkaError):
        raise res
    return res  # type: ignore[no-any-return]


# --- alter -------------------------------------------------------------------------------------------------


class AlterClientQuotasHandler:
    """Keys are entities; each request carries up to ``batch_size`` of them."""

    api_key = ALTER_CLIENT_QUOTAS
    name = "AlterClientQuotas"

    def __init__(self, alterations: Sequence[ClientQuotaAlteration], *, validate_only: bool, batch_size: int) -> None:
        self._req: Any = message_type(ALTER_CLIENT_QUOTAS, "request")
        self.keys = [a.entity for a in alterations]  # the driver's keys, in the alterations' order
        # Every entity's EntryData, built once, in the alterations' order (the struct classes are the same at
        # every version).  The first round's keys are the entities in that order, so its requests take slices
        # of this list; a retry round takes its entities' entries from a table built then.  Entries are only
        # read when a request is encoded, so one can be in several requests (rounds) safely.
        self._built: list[Any] = _entries(self._req, alterations)
        self._entry_of: dict[ClientQuotaEntity, Any] | None = None
        # Answers name entities in wire form.  Brokers usually list them as asked, so an entry is first
        # compared with the entity at its position in the request; otherwise it is found by its (type, name)
        # pairs in this table, built on first need (never a ClientQuotaEntity rebuilt and re-validated per
        # entry: that was most of the client's time on large batches).
        self._by_wire: dict[tuple[tuple[str, str | None], ...], ClientQuotaEntity] | None = None
        self._keys_of_request: dict[int, list[ClientQuotaEntity]] = {}
        self.validate_only = validate_only
        self.batch_size = batch_size
        # Entities answered REQUEST_TIMED_OUT at least once: the controller may have applied them.
        self.maybe_applied: set[ClientQuotaEntity] = set()

    def _entries_for(self, keys: Sequence[ClientQuotaEntity]) -> list[Any]:
        # List equality compares by identity first: the usual case (all entities, in order) costs no hashing.
        if len(keys) == len(self.keys) and keys == self.keys:
            return self._built
        if self._entry_of is None:
            self._entry_of = dict(zip(self.keys, self._built, strict=True))
        entry_of = self._entry_of
        return [entry_of[k] for k in keys]

    def builder(self, keys: Sequence[ClientQuotaEntity]) -> _driver.BuildWith:
        req = self._req
        n = self.batch_size

        def make(version: int) -> list[Message]:
            entries = self._entries_for(keys)
            out: list[Message] = []
            for i in range(0, len(keys), n):
                chunk = list(keys[i:i + n])
                r = req(entries=entries[i:i + n], validate_only=self.validate_only)
                self._keys_of_request[id(r)] = chunk
                out.append(r)
            return out

        return _driver.BuildWith(make)

    def keys_of(self, request: Message, version: int) -> list[ClientQuotaEntity]:
        keys = self._keys_of_request.get(id(request))
        if keys is not None:
            return keys
        return [self._entity(e.entity) for e in request.entries]  # type: ignore[attr-defined]

    def _asked(self, parts: Any) -> ClientQuotaEntity | None:
        """The requested entity these wire parts name, or None."""
        by_wire = self._by_wire
        if by_wire is None:
            by_wire = self._by_wire = {_wire_key_of(e.components): e for e in self.keys}
        return by_wire.get(_wire_key_of([(p.entity_type, p.entity_name) for p in parts]))

    def _entity(self, parts: Any) -> ClientQuotaEntity:
        known = self._asked(parts)
        return known if known is not None else entity_from_wire(parts)

    def handle(self, request: Message, response: Message, version: int,
               node_id: int) -> dict[ClientQuotaEntity, Outcome]:
        out: dict[ClientQuotaEntity, Outcome] = {}
        asked = self._keys_of_request.pop(id(request), None) or ()
        n_asked = len(asked)
        for i, entry in enumerate(response.entries):  # type: ignore[attr-defined]
            parts = entry.entity
            entity = asked[i] if i < n_asked else None
            if entity is not None:
                comps = entity.components
                if len(parts) == 1 and len(comps) == 1:  # the common shape, inline
                    p = parts[0]
                    same = p.entity_type == comps[0][0] and p.entity_name == comps[0][1]
                else:
                    same = _same_entity(parts, comps)
                if not same:
                    entity = None
            if entity is None:
                entity = self._asked(parts)
                if entity is None:
                    log.warning("AlterClientQuotas: node %d answered for entity %s, which was not asked about",
                                node_id, entity_from_wire(parts))
                    continue
            code = entry.error_code
            bad = _outcome(code, entry.error_message) if code else None
            if bad is None:
                out[entity] = _OK
                continue
            if isinstance(bad, Retry) and isinstance(bad.error, RequestTimedOutError) and not self.validate_only:
                self.maybe_applied.add(entity)
            out[entity] = bad
        return out


_OK: Done[None] = Done(None)  # frozen: one instance serves every entity answered without error


def _entries(req: Any, alterations: Sequence[ClientQuotaAlteration]) -> list[Any]:
    """Each alteration's request EntryData, in order; ops carry the alteration's floats as they are (already
    normalized by ClientQuotaAlteration, so the bits sent are the bits given)."""
    Entry, Entity, Op = req.EntryData, req.EntityData, req.OpData
    out: list[Any] = []
    append = out.append
    for a in alterations:
        entity = [Entity(entity_type=t, entity_name=n) for t, n in a.entity.components]
        ops = [Op(key=op.key, value=op.value, remove=False) if isinstance(op, Set)
               else Op(key=op.key, value=0.0, remove=True) for op in a.ops]
        append(Entry(entity=entity, ops=ops))
    return out


def _same_entity(parts: Any, components: tuple[tuple[str, str | None], ...]) -> bool:
    """Whether wire entity parts are exactly ``components``, in the same order (as they were sent)."""
    if len(parts) != len(components):
        return False
    for p, (t, n) in zip(parts, components, strict=True):
        if p.entity_type != t or p.entity_name != n:
            return False
    return True


async def alter_client_quotas(net: Any, alterations: Sequence[ClientQuotaAlteration], deadline: Deadline,
                              config: Any, *, validate_only: bool, batch_size: int,
                              max_concurrency: int) -> dict[ClientQuotaEntity, None | KafkaError]:
    bounded = _BoundedNet(net, max_concurrency)
    handler = AlterClientQuotasHandler(alterations, validate_only=validate_only, batch_size=batch_size)
    lookup = QuotaNode(bounded, ALTER_CLIENT_QUOTAS)
    res: dict[ClientQuotaEntity, None | KafkaError] = await _driver.run(
        bounded, handler, handler.keys, lookup, deadline, config, write=not validate_only)
    if lookup.unsupported is not None and all(v is lookup.unsupported for v in res.values()):
        raise lookup.unsupported
    # The driver's dict is already one entry per entity, in order: only the few that timed out are revisited.
    for entity in handler.maybe_applied:
        v = res[entity]
        if isinstance(v, KafkaTimeoutError) and not v.possibly_applied:
            res[entity] = KafkaTimeoutError(f"{v.message}; a broker timed out on it earlier, so it may have been "
                                            "applied", possibly_applied=True)
    return res

