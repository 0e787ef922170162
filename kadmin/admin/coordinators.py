"""FindCoordinator: the builder that returns one request or a list, and the coordinator cache.

KIP-699 made FindCoordinator batched from v4 (``CoordinatorKeys``); below v4 each key needs its own request.
The builder decides per negotiated version of the node that will receive the lookup, so in a mixed cluster a
lookup sent to an old node splits while one sent to a new node batches.  Single-key requests are sent
concurrently (pipelined on one connection), never one after another.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable, Sequence
from typing import Any

from kadmin.admin._driver import Context, Done, Failed, Operation, Outcome, Retry, run
from kadmin.admin.lookups import AnyNode
from kadmin.errors import CoordinatorNotAvailableError, KafkaError, UnsupportedVersionError, error_for_code
from kadmin.network.retry import Deadline
from kadmin.protocol import Message, message_type
from kadmin.protocol.apis import ApiKey
from kadmin.types import Coordinator

log = logging.getLogger("kadmin.admin")

#: FindCoordinator key types (CoordinatorType in Kafka).
KEY_TYPES = {"group": 0, "transaction": 1}
GROUP = KEY_TYPES["group"]
TRANSACTION = KEY_TYPES["transaction"]
#: KIP-699: FindCoordinator batches keys from v4.
BATCHED_SINCE = 4


def key_type_code(key_type: str | int) -> int:
    if isinstance(key_type, int) and not isinstance(key_type, bool):
        if key_type not in KEY_TYPES.values():
            raise ValueError(f"unknown coordinator key type {key_type}")
        return key_type
    if key_type not in KEY_TYPES:
        raise ValueError(f"key_type must be one of {sorted(KEY_TYPES)}, not {key_type!r}")
    return KEY_TYPES[key_type]


class FindCoordinator(Operation[str]):
    """Coordinators of keys, asked of any node: batched from v4 (KIP-699), one request per key below."""

    api = ApiKey.FIND_COORDINATOR

    def __init__(self, key_type: int) -> None:
        self.key_type = key_type
        self.lookup = AnyNode()

    def build(self, node: int, keys: list[str], version: int) -> Message | list[tuple[Message, list[str]]]:
        req = message_type(ApiKey.FIND_COORDINATOR, "request")
        if self.key_type == TRANSACTION and version < 1:
            # The key type is the whole call's (every key is a transactional id): no key can travel.
            raise UnsupportedVersionError(
                f"FindCoordinator v{version} cannot look up transaction coordinators (key type 1 needs v1+)")
        if version >= BATCHED_SINCE:
            return req(key_type=self.key_type, coordinator_keys=keys)
        if version >= 1:
            return [(req(key=k, key_type=self.key_type), [k]) for k in keys]
        return [(req(key=k), [k]) for k in keys]

    def handle(self, node: int, keys: list[str], response: Any, version: int) -> dict[str, Outcome]:
        r = response
        if version >= BATCHED_SINCE:
            return {c.key: _outcome(c.key, c.error_code, c.error_message, c.node_id, c.host, c.port)
                    for c in r.coordinators}
        key = keys[0]
        return {key: _outcome(key, r.error_code, getattr(r, "error_message", None), r.node_id, r.host, r.port)}


def _outcome(key: str, code: int, message: str | None, node_id: int, host: str, port: int) -> Outcome:
    err = error_for_code(code, message)
    if err is None:
        if node_id < 0:
            # A broker answered "no error" without a coordinator: as COORDINATOR_NOT_AVAILABLE.
            return Retry(CoordinatorNotAvailableError(f"no coordinator for {key!r} yet"))
        return Done(Coordinator(key, node_id, host, port))
    # COORDINATOR_NOT_AVAILABLE (right after a broker starts, while __consumer_offsets is created) and
    # COORDINATOR_LOAD_IN_PROGRESS are retriable: asked again with backoff.  The rest (e.g. authorization
    # failures) are the key's answer.
    return Retry(err) if err.retriable else Failed(err)


class CoordinatorCache:
    """(key type, key) -> node id, with concurrent lookups of the same key collapsed into one.

    Entries are evicted on NOT_COORDINATOR / COORDINATOR_NOT_AVAILABLE (by the operations), on a disconnect
    from the node, and when the node leaves the cluster's metadata.
    """

    def __init__(self, net: Any, config: Any) -> None:
        self.net = net
        self.config = config
        self.ctx = Context(net, config, self)
        self._nodes: dict[tuple[int, str], int] = {}
        self._inflight: dict[tuple[int, str], asyncio.Future[int | KafkaError]] = {}

    def get(self, key_type: int, key: str) -> int | None:
        node = self._nodes.get((key_type, key))
        if node is not None and node not in self.net.nodes:
            self._nodes.pop((key_type, key), None)
            return None
        return node

    def remember(self, key_type: int, key: str, node_id: int) -> None:
        """Record a coordinator found outside the cache (``find_coordinators`` answers)."""
        self._nodes[(key_type, key)] = node_id

    def clear(self) -> None:
        """Forget every cached coordinator (the next lookup asks again)."""
        self._nodes.clear()

    def evict(self, key_type: int, keys: Iterable[str]) -> None:
        for k in keys:
            self._nodes.pop((key_type, k), None)

    def evict_node(self, node_id: int) -> None:
        for k in [k for k, n in self._nodes.items() if n == node_id]:
            del self._nodes[k]

    async def lookup(self, key_type: int, keys: Sequence[str], deadline: Deadline) -> dict[str, int | KafkaError]:
        """Coordinator node ids for ``keys``: cached, already being looked up, or looked up now (one batch)."""
        out: dict[str, int | KafkaError] = {}
        waits: dict[str, asyncio.Future[int | KafkaError]] = {}
        missing: list[str] = []
        for k in dict.fromkeys(keys):
            node = self.get(key_type, k)
            if node is not None:
                out[k] = node
            elif (key_type, k) in self._inflight:
                waits[k] = self._inflight[(key_type, k)]
            else:
                missing.append(k)
        if missing:
            loop = asyncio.get_running_loop()
            futs = {k: loop.create_future() for k in missing}
            for k, f in futs.items():
                self._inflight[(key_type, k)] = f
                waits[k] = f
            try:
                found = await run(self.ctx, FindCoordinator(key_type), missing, deadline)
            except BaseException as exc:
                for k, f in futs.items():
                    self._inflight.pop((key_type, k), None)
                    if not f.done():
                        f.set_exception(exc)
                        f.exception()  # mark retrieved: the waiter below re-raises
                raise
            for k, f in futs.items():
                self._inflight.pop((key_type, k), None)
                val = found[k]
                if isinstance(val, Coordinator):
                    self._nodes[(key_type, k)] = val.node_id
                    f.set_result(val.node_id)
                else:
                    f.set_result(val)
        for k, f in waits.items():
            out[k] = await f
        return out


class CoordinatorLookup:
    """The lookup of group- (or transaction-) keyed operations: keys -> their coordinators, cached."""

    def __init__(self, key_type: int = GROUP) -> None:
        self.key_type = key_type

    async def locate(self, ctx: Context, keys: Sequence[str], deadline: Deadline) -> dict[str, int | Outcome]:
        found = await ctx.coordinators.lookup(self.key_type, keys, deadline)
        out: dict[str, int | Outcome] = {}
        for k, v in found.items():
            if isinstance(v, KafkaError):
                out[k] = Retry(v) if v.retriable else Failed(v)
            elif isinstance(v, Coordinator):
                out[k] = v.node_id
            else:
                out[k] = v
        return out

    def ready(self, ctx: Context, keys: Sequence[str]) -> int | None:
        """The cached coordinator, when every key has the same one (the driver's lean round)."""
        cache, found = ctx.coordinators, None
        for k in keys:
            node = cache.get(self.key_type, k)
            if node is None or (found is not None and node != found):
                return None
            found = node
        return found

    def accepts(self, ctx: Context, keys: Sequence[str], node: int) -> bool:
        """Whether ``node`` may answer ``keys`` now (the sync client's lane keeps to one node): it is every
        key's cached coordinator."""
        return self.ready(ctx, keys) == node

    def forget(self, ctx: Context, keys: Iterable[str]) -> None:
        ctx.coordinators.evict(self.key_type, keys)

    def forget_node(self, ctx: Context, node_id: int) -> None:
        ctx.coordinators.evict_node(node_id)
