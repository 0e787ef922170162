"""The per-key admin driver: which node(s) to ask, what to build per version, how to fold the answers.

Every admin operation that works on a set of keys (group ids, coordinator keys, quota entities) runs here:

1. *lookup*: map each pending key to the node that must receive it (a coordinator, any node, a fixed node);
2. *build*: per node, negotiate the API version with **that** node now, and let the operation's builder turn
   the node's keys into one request or a list of requests (KIP-347/KIP-699: batched where the node's version
   allows, split otherwise) — so the choice is made per node and per attempt, never once per client;
3. *send* the requests of all nodes concurrently, and map each response back to the keys of the request that
   was actually sent;
4. *fold* each key's answer into Done / Failed / Retry; retriable keys go round again (re-looked-up when their
   node was wrong), with backoff, until the call's deadline; then they get a KafkaTimeoutError.

No key is ever dropped: a key the broker's answer forgot is failed explicitly.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from kadmin.errors import (
    KafkaConnectionError,
    KafkaError,
    KafkaTimeoutError,
    ProtocolError,
    UnsupportedVersionError,
)
from kadmin.network.retry import Deadline, backoff_delays
from kadmin.protocol import Message

log = logging.getLogger("kadmin.admin")

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


# --- outcomes a handler gives for one key ---------------------------------------------------------------


@dataclass(frozen=True)
class Done(Generic[V]):
    value: V


@dataclass(frozen=True)
class Failed:
    error: KafkaError


@dataclass(frozen=True)
class Retry:
    """Try this key again after a backoff; ``relookup`` drops its cached node first (NOT_COORDINATOR...)."""

    error: KafkaError
    relookup: bool = False


Outcome = Done[Any] | Failed | Retry


class RequestBuilder(Protocol):
    """Builds the request(s) for a set of keys once the receiving node's version is known."""

    def build(self, version: int) -> Message | list[Message]: ...


class BuildWith:
    """A RequestBuilder from a function of the version: for operations whose requests need no other state."""

    def __init__(self, make: Callable[[int], Message | list[Message]]) -> None:
        self.make = make

    def build(self, version: int) -> Message | list[Message]:
        return self.make(version)


class Handler(Protocol[K]):
    """What an operation tells the driver: its API, how to build, which keys a request carries, how to fold."""

    api_key: int
    name: str

    def builder(self, keys: Sequence[K]) -> RequestBuilder: ...

    def keys_of(self, request: Message, version: int) -> list[K]: ...

    def handle(self, request: Message, response: Message, version: int, node_id: int) -> dict[K, Outcome]: ...


class Lookup(Protocol[K]):
    """Maps keys to nodes. Errors per key are outcomes too (a lookup can fail for one key only).

    A lookup that sends every key to the same node may answer with that node id alone: the driver then
    takes the keys as they are, instead of reading one dict entry per key."""

    async def locate(self, keys: Sequence[K], deadline: Deadline) -> dict[K, int | Outcome] | int: ...

    def forget(self, keys: Iterable[K]) -> None: ...

    def forget_node(self, node_id: int) -> None: ...


class AnyNode(Generic[K]):
    """All keys go to one reachable node (for APIs any broker answers: quotas, cluster-wide lookups)."""

    def __init__(self, net: Any) -> None:
        self.net = net
        self._avoid: set[int] = set()

    async def locate(self, keys: Sequence[K], deadline: Deadline) -> dict[K, int | Outcome]:
        others = [n for n in self.net.nodes if n not in self._avoid]
        node = others[0] if self._avoid and others else self.net.least_loaded_node()
        return {k: node for k in keys}

    def forget(self, keys: Iterable[K]) -> None:
        pass

    def forget_node(self, node_id: int) -> None:
        # Next round, prefer another node; forget the preference once every node was tried.
        self._avoid.add(node_id)
        if len(self._avoid) >= max(1, len(self.net.nodes)):
            self._avoid.clear()


class FixedNode(Generic[K]):
    def __init__(self, node_id: int) -> None:
        self.node_id = node_id

    async def locate(self, keys: Sequence[K], deadline: Deadline) -> dict[K, int | Outcome]:
        return {k: self.node_id for k in keys}

    def forget(self, keys: Iterable[K]) -> None:
        pass

    def forget_node(self, node_id: int) -> None:
        pass


async def run(
    net: Any,
    handler: Handler[K],
    keys: Sequence[K],
    lookup: Lookup[K],
    deadline: Deadline,
    config: Any,
    *,
    write: bool = False,
) -> dict[K, Any]:
    """Run one admin operation over ``keys``; returns {key: value or KafkaError} for every key."""
    order: list[K] = list(dict.fromkeys(keys))
    pending = order
    results: dict[K, Any] = {}
    last_error: dict[K, KafkaError] = {}
    in_doubt: set[K] = set()  # writes that had a send never answered: an answer later does not clear it
    delays = backoff_delays(config)
    round_no = 0
    while pending:
        round_no += 1
        if deadline.expired:
            break
        retry: list[K] = []
        found = await _locate(lookup, pending, deadline)
        by_node: dict[int, list[K]] = {}
        located: dict[K, int | Outcome] = {}
        if isinstance(found, int):  # every key to one node
            by_node[found] = list(pending)
        else:
            located = found
        for k in pending if located is found else ():  # key by key, unless the lookup named one node
            where = located.get(k)
            if where is None:
                retry.append(k)
                last_error.setdefault(k, ProtocolError(f"no node was found for {k!r}"))
            elif isinstance(where, int):
                by_node.setdefault(where, []).append(k)
            else:
                if isinstance(where, Failed) and isinstance(where.error, KafkaTimeoutError) and not deadline.expired:
                    # Lookups are shared between concurrent calls (CoordinatorCache): this timeout was the
                    # deadline of a call with less time than ours, not an answer.  Look the key up again.
                    where = Retry(where.error)
                _apply(where, k, results, retry, last_error, lookup)
        # Writes: the keys of every request sent and not answered (yet), one entry per request, removed by its
        # answer (per request, not per key: thousands of keys cost one entry).  What is left after the round
        # was never answered: those keys are in doubt from now on.
        unanswered: dict[object, list[K]] | None = {} if write else None
        outcomes = await asyncio.gather(
            *(_send_to_node(net, handler, node, node_keys, deadline, unanswered)
              for node, node_keys in by_node.items())
        )
        for (node, node_keys), node_outcomes in zip(by_node.items(), outcomes, strict=False):
            if isinstance(node_outcomes, BaseException):  # pragma: no cover - gather without return_exceptions
                raise node_outcomes
            node_failed_connection = False
            for k in node_keys:
                out = node_outcomes.get(k)
                if type(out) is Done:  # the common case, without _apply's call and isinstance chain
                    results[k] = out.value
                    continue
                if out is None:
                    out = Failed(ProtocolError(f"{handler.name}: node {node}'s response has no entry for {k!r}"))
                if isinstance(out, Retry) and isinstance(out.error, KafkaConnectionError):
                    node_failed_connection = True
                _apply(out, k, results, retry, last_error, lookup)
            if node_failed_connection:
                lookup.forget_node(node)
        if unanswered:
            for sent_keys in unanswered.values():
                in_doubt.update(sent_keys)
        pending = retry
        if pending:
            delay = min(next(delays), max(0.0, deadline.remaining()))
            log.debug("%s: retrying %d key(s) in %.3fs (round %d)", handler.name, len(pending), delay, round_no)
            await asyncio.sleep(delay)
    for k in pending:
        cause = last_error.get(k)
        msg = f"{handler.name}: no result for {k!r} before the deadline"
        if cause is not None:
            msg += f" (last error: {type(cause).__name__}: {cause})"
        results[k] = KafkaTimeoutError(msg, possibly_applied=write and k in in_doubt)
    for k in in_doubt:
        err = results.get(k)
        if isinstance(err, KafkaError) and not isinstance(err, KafkaTimeoutError) and _applied_looks_like(
                handler, err):
            results[k] = doubt = KafkaTimeoutError(
                f"{handler.name}: {k!r} is in doubt: an earlier request for it was sent and never answered, and "
                f"the resend was answered {type(err).__name__}: {err}, which is also what the earlier request "
                f"having been applied looks like", possibly_applied=True)
            doubt.__cause__ = err
    if len(results) == len(order) and list(results) == order:
        # Already in the keys' order (one node, one round: the usual case).  Comparing the two lists is by
        # identity first, so this costs no hashing, where rebuilding the dict costs two lookups per key.
        return results
    return {k: results[k] for k in order}


#: For writes: the answers a *resend* gets when the first send, never answered, was applied after all.  Such an
#: answer is not the truth about the key, so the key is reported in doubt (KafkaTimeoutError with
#: ``possibly_applied``) instead.  DeleteGroups: the group is gone, "not found".  AlterClientQuotas: nothing,
#: since an alteration states final values and the resend's answer is the answer.  A write API missing here
#: is treated cautiously: any non-retriable answer after an unanswered send is in doubt.
APPLIED_LOOKS_LIKE: dict[int, frozenset[int]] = {
    42: frozenset({69}),  # DeleteGroups: GROUP_ID_NOT_FOUND
    49: frozenset(),  # AlterClientQuotas
}


def _applied_looks_like(handler: Handler[Any], err: KafkaError) -> bool:
    codes = APPLIED_LOOKS_LIKE.get(handler.api_key)
    if codes is None:
        return not err.retriable
    return err.code in codes


async def _locate(lookup: Lookup[K], keys: Sequence[K], deadline: Deadline) -> dict[K, int | Outcome] | int:
    """``lookup.locate`` bounded by this call's deadline, and never cancelled by this call.

    Why a shielded task: lookups are shared between concurrent calls (CoordinatorCache collapses lookups of
    the same key into one), so the call waiting here may be waiting for another call's lookup, which runs
    to *that* call's deadline.  Waiting past our own deadline would break our promise to the caller; and
    cancelling the lookup when we stop waiting (or when our caller cancels us) would fail every other call
    sharing it.  So the lookup finishes on its own (its results land in the cache) and we stop waiting.
    """
    task = asyncio.ensure_future(lookup.locate(keys, deadline))
    task.add_done_callback(_retrieve)
    remaining = deadline.remaining()
    try:
        return await asyncio.wait_for(asyncio.shield(task), None if remaining == float("inf") else remaining)
    except asyncio.TimeoutError:
        err = KafkaTimeoutError("the deadline passed while looking up which node to ask")
        return {k: Retry(err) for k in keys}


def _retrieve(task: asyncio.Future[Any]) -> None:
    # The waiter may have stopped waiting (its deadline passed); read the outcome so asyncio does not log
    # "exception was never retrieved" for an error the waiter already turned into its own timeout.
    if not task.cancelled():
        task.exception()


def _apply(out: Outcome, k: Any, results: dict[Any, Any], retry: list[Any], last_error: dict[Any, KafkaError],
           lookup: Lookup[Any]) -> None:
    if isinstance(out, Done):
        results[k] = out.value
    elif isinstance(out, Failed):
        results[k] = out.error
    else:
        # The deadline passing mid-attempt explains nothing; keep the error that made the key retry before it
        # (e.g. "node 2 sent a response that does not decode") for the final timeout's message.
        if not (isinstance(out.error, KafkaTimeoutError) and k in last_error):
            last_error[k] = out.error
        if out.relookup:
            lookup.forget([k])
        retry.append(k)


async def _send_to_node(
    net: Any, handler: Handler[K], node: int, keys: list[K], deadline: Deadline,
    unanswered: dict[object, list[K]] | None,
) -> dict[K, Outcome]:
    """Negotiate with ``node`` now, build, send every request concurrently, fold each answer by its own keys.

    ``unanswered`` (writes only) holds the keys of each request from its send until its answer."""
    try:
        version = await net.negotiated_version(node, handler.api_key, deadline=deadline)
    except UnsupportedVersionError as exc:
        return {k: Failed(exc) for k in keys}
    except KafkaError as exc:
        return {k: _retry_or_fail(exc) for k in keys}
    try:
        built = handler.builder(keys).build(version)
    except KafkaError as exc:  # e.g. a key type this version cannot carry
        return {k: Failed(exc) for k in keys}
    requests = built if isinstance(built, list) else [built]
    if len(requests) > 1 and getattr(net, "send_many", None) is not None:
        return await _send_many(net, handler, node, requests, version, deadline, unanswered)
    merged: dict[K, Outcome] = {}

    async def one(req: Message) -> None:
        req_keys = handler.keys_of(req, version)
        token = object()
        if unanswered is not None:
            unanswered[token] = req_keys
        try:
            resp = await net.send(node, req, version, deadline=deadline)
        except KafkaError as exc:
            merged.update(_not_sent(exc, req_keys))
            return
        if unanswered is not None:
            del unanswered[token]
        _fold(handler, req, resp, version, node, req_keys, merged)

    if len(requests) == 1:
        await one(requests[0])
    else:
        await asyncio.gather(*(one(r) for r in requests))
    return merged


async def _send_many(net: Any, handler: Handler[K], node: int, requests: list[Message], version: int,
                     deadline: Deadline, unanswered: dict[object, list[K]] | None) -> dict[K, Outcome]:
    """Several requests to one node (a split lookup): pipelined by the network client, each folded on arrival.

    Per request this is what sending each one on its own would give (the same errors, retries and in-flight
    bound), without a task per request: thousands of single-key lookups cost little more than their bytes.
    Used when ``net`` has a ``send_many`` (NetworkClient does); other nets (wrappers that bound a call's
    concurrency, test stubs) get one ``send`` per request.
    """
    req_keys = [handler.keys_of(r, version) for r in requests]
    tokens = [object() for _ in requests]
    if unanswered is not None:
        for token, ks in zip(tokens, req_keys, strict=True):
            unanswered[token] = ks
    merged: dict[K, Outcome] = {}

    def each(i: int, resp: Any, error: KafkaError | None) -> None:
        keys = req_keys[i]
        if error is not None:
            merged.update(_not_sent(error, keys))
            return
        if unanswered is not None:
            del unanswered[tokens[i]]
        _fold(handler, requests[i], resp, version, node, keys, merged)

    try:
        await net.send_many(node, requests, version, deadline=deadline, each=each)
    except KafkaError as exc:
        return _not_sent(exc, [k for ks in req_keys for k in ks])
    return merged


def _not_sent(exc: KafkaError, keys: Iterable[K]) -> dict[K, Outcome]:
    """The outcome of keys whose request got no answer."""
    if isinstance(exc, UnsupportedVersionError):
        # The node's table changed under us (a broker was upgraded/downgraded between negotiation and send):
        # re-plan from scratch next round.
        return {k: Retry(exc) for k in keys}
    out = _retry_or_fail(exc)
    return {k: out for k in keys}


def _fold(handler: Handler[K], req: Message, resp: Any, version: int, node: int, keys: Iterable[K],
          into: dict[K, Outcome]) -> None:
    """One answer folded into ``into``, the outcomes of the keys its request carried; a key it leaves out fails.

    Written into the caller's dict directly: one insert per key, instead of a dict per request merged again."""
    try:
        folded = handler.handle(req, resp, version, node)
    except KafkaError as exc:
        out = _retry_or_fail(exc)
        for k in keys:
            into[k] = out
        return
    get = folded.get
    for k in keys:
        got = get(k)
        # Built only when missing: an exception per key per response is costly on 1,000-key batches.
        into[k] = got if got is not None else Failed(ProtocolError(
            f"{handler.name}: node {node}'s response has no entry for {k!r}"))


def _retry_or_fail(exc: KafkaError) -> Outcome:
    if isinstance(exc, KafkaTimeoutError):
        # The call's deadline passed mid-request.  Not a final answer: the run loop ends at the deadline and
        # builds the key's timeout there, which knows whether a write was sent (``possibly_applied``).
        return Retry(exc)
    if exc.retriable:
        return Retry(exc, relookup=isinstance(exc, KafkaConnectionError))
    return Failed(exc)


async def gather_per_node(
    nodes: Iterable[int], fn: Callable[[int], Awaitable[V]]
) -> dict[int, V | KafkaError]:
    """Run ``fn`` on every node concurrently; a node's failure is its result, never the call's."""
    node_list = list(nodes)
    out = await asyncio.gather(*(fn(n) for n in node_list), return_exceptions=True)
    result: dict[int, V | KafkaError] = {}
    for n, r in zip(node_list, out, strict=False):
        if isinstance(r, KafkaError):
            result[n] = r
        elif isinstance(r, BaseException):
            raise r
        else:
            result[n] = r
    return result
