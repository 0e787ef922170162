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

from kadmin.admin._driver import AnyNode, Done, Failed, Outcome, Retry, run
from kadmin.errors import KafkaError, UnsupportedVersionError, error_for_code
from kadmin.network.retry import Deadline
from kadmin.protocol import Message, message_type
from kadmin.types import Coordinator

log = logging.getLogger("kadmin.admin")

FIND_COORDINATOR = 10
KEY_TYPES = {"group": 0, "transaction": 1}
BATCHED_SINCE = 4


def key_type_code(key_type: str | int) -> int:
    if isinstance(key_type, int) and not isinstance(key_type, bool):
        if key_type not in KEY_TYPES.values():
            raise ValueError(f"unknown coordinator key type {key_type}")
        return key_type
    if key_type not in KEY_TYPES:
        raise ValueError(f"key_type must be one of {sorted(KEY_TYPES)}, not {key_type!r}")
    return KEY_TYPES[key_type]


class FindCoordinatorBuilder:
    def __init__(self, keys: Sequence[str], key_type: int) -> None:
        self.keys = list(keys)
        self.key_type = key_type

    def build(self, version: int) -> Message | list[Message]:
        req = message_type(FIND_COORDINATOR, "request")
        if self.key_type == 1 and version < 1:
            raise UnsupportedVersionError(
                f"FindCoordinator v{version} cannot look up transaction coordinators (key type 1 needs v1+)")
        if version >= BATCHED_SINCE:
            return req(key_type=self.key_type, coordinator_keys=self.keys)
        if version >= 1:
            return [req(key=k, key_type=self.key_type) for k in self.keys]
        return [req(key=k) for k in self.keys]


class FindCoordinatorHandler:
    api_key = FIND_COORDINATOR
    name = "FindCoordinator"

    def __init__(self, key_type: int) -> None:
        self.key_type = key_type

    def builder(self, keys: Sequence[str]) -> FindCoordinatorBuilder:
        return FindCoordinatorBuilder(keys, self.key_type)

    def keys_of(self, request: Message, version: int) -> list[str]:
        if version >= BATCHED_SINCE:
            return list(request.coordinator_keys)  # type: ignore[attr-defined]
        return [request.key]  # type: ignore[attr-defined]

    def handle(self, request: Message, response: Message, version: int, node_id: int) -> dict[str, Outcome]:
        r: Any = response
        if version >= BATCHED_SINCE:
            return {c.key: _outcome(c.key, c.error_code, c.error_message, c.node_id, c.host, c.port)
                    for c in r.coordinators}
        key = request.key  # type: ignore[attr-defined]
        return {key: _outcome(key, r.error_code, getattr(r, "error_message", None), r.node_id, r.host, r.port)}


def _outcome(key: str, code: int, message: str | None, node_id: int, host: str, port: int) -> Outcome:
    err = error_for_code(code, message)
    if err is None:
        if node_id < 0:
            # A broker answered "no error" without a coordinator: treat like COORDINATOR_NOT_AVAILABLE.
            return Retry(error_for_code(15, f"no coordinator for {key!r} yet"))  # type: ignore[arg-type]
        return Done(Coordinator(key, node_id, host, port))
    if err.retriable:
        return Retry(err)
    return Failed(err)


class CoordinatorCache:
    """(key type, key) -> node id, with concurrent lookups of the same key collapsed into one.

    Entries are evicted on NOT_COORDINATOR / COORDINATOR_NOT_AVAILABLE (by the operations), on a disconnect
    from the node, and when the node leaves the cluster's metadata.
    """

    def __init__(self, net: Any, config: Any) -> None:
        self.net = net
        self.config = config
        self._nodes: dict[tuple[int, str], int] = {}
        self._inflight: dict[tuple[int, str], asyncio.Future[int | KafkaError]] = {}

    def get(self, key_type: int, key: str) -> int | None:
        node = self._nodes.get((key_type, key))
        if node is not None and node not in self.net.nodes:
            self._nodes.pop((key_type, key), None)
            return None
        return node

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
                found = await find_coordinators(self.net, missing, key_type, deadline, self.config)
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
    """The driver's lookup strategy for group-keyed operations: keys -> their coordinators."""

    def __init__(self, cache: CoordinatorCache, key_type: int = 0) -> None:
        self.cache = cache
        self.key_type = key_type

    async def locate(self, keys: Sequence[str], deadline: Deadline) -> dict[str, int | Outcome]:
        found = await self.cache.lookup(self.key_type, keys, deadline)
        out: dict[str, int | Outcome] = {}
        for k, v in found.items():
            if isinstance(v, KafkaError):
                out[k] = Retry(v) if v.retriable else Failed(v)
            else:
                out[k] = v
        return out

    def forget(self, keys: Iterable[str]) -> None:
        self.cache.evict(self.key_type, keys)

    def forget_node(self, node_id: int) -> None:
        self.cache.evict_node(node_id)


async def find_coordinators(net: Any, keys: Sequence[str], key_type: int, deadline: Deadline,
                            config: Any) -> dict[str, Coordinator | KafkaError]:
    """Look up coordinators through the driver (retrying COORDINATOR_NOT_AVAILABLE with backoff)."""
    result = await run(net, FindCoordinatorHandler(key_type), keys, AnyNode(net), deadline, config)
    return result
