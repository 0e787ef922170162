"""The one operation shape: every admin call is an :class:`Operation` run by :func:`run` over a set of keys.

An operation says *what* (in the style of Kafka's AdminApiDriver handlers):

* ``api``: the API it speaks (``ApiKey``), so the driver can negotiate that API's version with each node;
* ``lookup``: which node must receive each key (a coordinator, any node, every node, a partition's leader, the
  controller, a fixed node: :mod:`kadmin.admin.lookups`);
* ``write`` and ``applied_looks_like``: whether a lost answer leaves the key "possibly applied", and which
  answers to a resend say nothing because they are what an applied first send looks like;
* ``max_in_flight``: a per-call bound on requests in flight (large batched writes);
* ``build(node, keys, version)``: the request for the node's negotiated version, or a list of (request, keys)
  pairs when the version needs one request per key or the keys are cut into batches (KIP-347/KIP-699: the
  choice is made per node and per attempt, never once per client); or a :class:`Built` that also names the
  keys this version cannot carry ({key: UnsupportedVersionError}), so that one key's missing feature fails
  that key alone while the others are sent (Java's ``handleUnsupportedVersionException``);
* ``handle(node, keys, response, version)``: one :data:`Outcome` per key of that request.

The driver owns *how*, once for every operation: routing keys to nodes, per-node version negotiation, sending
(every node concurrently; a node's requests pipelined), the in-flight bound, retries with backoff (tenacity,
through :func:`kadmin.network.retry.retry_call`: the only retry loop), the call's deadline, and the rule that
every key comes back with its value or a :class:`~kadmin.errors.KafkaError` — never dropped, never guessed.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar

from kadmin.errors import (
    ErrorCode,
    KafkaConnectionError,
    KafkaError,
    KafkaTimeoutError,
    ProtocolError,
    UndecodableResponseError,
    UnsupportedVersionError,
)
from kadmin.network.negotiation import unsupported_version_error
from kadmin.network.retry import Deadline, bounded, retry_call
from kadmin.protocol import Message
from kadmin.protocol.apis import ApiKey

if TYPE_CHECKING:
    from kadmin.admin.coordinators import CoordinatorCache
    from kadmin.config import ClientConfig
    from kadmin.network.client import NetworkClient
    from kadmin.network.connection import Connection
    from kadmin.network.negotiation import Negotiated

log = logging.getLogger("kadmin.admin")

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


# --- outcomes a handler gives for one key ---------------------------------------------------------------


@dataclass(frozen=True)
class Done(Generic[V]):
    """The key's final value."""

    value: V


@dataclass(frozen=True)
class Failed:
    """The key's final error: asking again would get the same answer."""

    error: KafkaError


@dataclass(frozen=True)
class Retry:
    """Ask again after a backoff; ``relookup`` first forgets the key's node (NOT_COORDINATOR, NOT_LEADER...)."""

    error: KafkaError
    relookup: bool = False


Outcome = Done[Any] | Failed | Retry


class Answers(Mapping[K, Outcome]):
    """What ``handle`` may return instead of a dict of outcomes when most keys of a big request are simply
    done: ``done`` holds {key: its final value} (what ``Done(value)`` says for the key, without a ``Done`` per
    key), ``others`` {key: Outcome} for the rest (a key in both: ``others``).

    Why: a request of 1,000 topics answered without an error is 1,000 ``Done`` objects, then 1,000 outcomes
    checked and applied one by one, for what amounts to ``results.update(done)`` (issue #28: a third of
    kadmin's own CPU around create_topics).  When ``done`` covers exactly the request's keys and nothing else
    happened, the driver takes it whole (:meth:`_Settled.done`); in every other case it reads the answer as
    the mapping of outcomes it is (a ``Done`` made on each read), through the per-key rules: a key missing
    from the answer fails with a ProtocolError, a key not asked about is ignored."""

    __slots__ = ("done", "others")

    def __init__(self, done: dict[K, Any], others: dict[K, Outcome] | None = None) -> None:
        self.done = done
        self.others: dict[K, Outcome] = others if others is not None else {}

    def __getitem__(self, key: K) -> Outcome:
        got = self.others.get(key)
        if got is not None:
            return got
        return Done(self.done[key])

    def __iter__(self) -> Iterator[K]:
        yield from self.done
        yield from (k for k in self.others if k not in self.done)

    def __len__(self) -> int:
        return len(self.done) + sum(1 for k in self.others if k not in self.done)

    def __repr__(self) -> str:
        return f"Answers({self.done!r}, {self.others!r})"

#: One request and the keys it carries, as a builder returns them when it splits or batches.
Sent = tuple[Message, list[Any]]


@dataclass(frozen=True)
class Built(Generic[K]):
    """What ``build`` returns when this node's version cannot carry some of the keys.

    ``sends`` carries every other key (one request, or (request, keys) pairs; an empty list when nothing is
    left to send); ``refused`` fails each refused key alone, unsent, with its own error (an
    :class:`~kadmin.errors.UnsupportedVersionError` naming the feature and the version it needs).  Raising
    from ``build`` instead still fails every key routed to the node: keep that for what no key can avoid
    (a whole-request option such as validate_only)."""

    sends: Message | list[Sent]
    refused: Mapping[K, KafkaError]


def split_by_version(keys: Iterable[K], version: int, needs: Callable[[K], tuple[int, str] | None], *,
                     api: ApiKey, node: int) -> tuple[list[K], dict[K, KafkaError]]:
    """Split ``keys`` into those ``version`` can carry and {key: UnsupportedVersionError} for the others.

    ``needs(key)`` gives (the lowest version that carries the key, what needs it), or None when any version
    does.  The error names the key, the feature, the version it needs and the one the node speaks."""
    ok: list[K] = []
    refused: dict[K, KafkaError] = {}
    for k in keys:
        need = needs(k)
        if need is None or need[0] <= version:
            ok.append(k)
        else:
            refused[k] = UnsupportedVersionError(
                f"{need[1]} (asked for {k}) needs {api.kafka_name} v{need[0]}+; node {node} speaks "
                f"up to v{version}")
    return ok, refused


@dataclass
class Context:
    """What operations run against: one per AdminClient."""

    net: NetworkClient
    config: ClientConfig
    coordinators: CoordinatorCache


class Lookup(Protocol[K]):
    """Maps keys to the node that must receive them; an error for one key is that key's outcome.

    A lookup that sends every key to one node may answer with that node id alone.  A lookup class may set
    ``inline = True`` when it shares no work with other calls (its state belongs to the one operation, and
    what it awaits in the network client, connections and metadata, is shielded there): the driver then
    awaits it in place instead of in a shielded task of its own (the small calls' path, issue #28).

    A lookup may also have ``ready(ctx, keys) -> int | None``: the one node every key goes to when that is known
    now, with nothing to ask or wait for (a cached coordinator, any connected node), else None.  The driver's
    lean first round uses it (see :func:`run`); ``locate`` stays the lookup's answer in every other case."""

    async def locate(self, ctx: Context, keys: Sequence[K], deadline: Deadline) -> dict[K, int | Outcome] | int: ...

    def forget(self, ctx: Context, keys: Iterable[K]) -> None: ...

    def forget_node(self, ctx: Context, node_id: int) -> None: ...


class Operation(Generic[K]):
    """Base of every admin operation: subclasses set ``api`` and ``lookup`` and write ``build`` and ``handle``.

    One instance serves one call, so it may hold the call's inputs (the alterations, a filter, flags)."""

    api: ClassVar[ApiKey]
    #: A write: a key whose request was sent and never answered is reported ``possibly_applied``.
    write: ClassVar[bool] = False
    #: Writes: the codes a *resend* gets when an earlier, unanswered send was applied after all (DeleteGroups:
    #: GROUP_ID_NOT_FOUND).  Such an answer is not the truth about the key, so the key is reported in doubt.
    #: ``None``: any non-retriable answer after a lost send is in doubt (the cautious default).
    applied_looks_like: ClassVar[frozenset[ErrorCode] | None] = None
    #: This call's bound on requests in flight (None: every request at once, pipelined per node).
    max_in_flight: int | None = None
    lookup: Lookup[K]

    @property
    def name(self) -> str:
        return self.api.kafka_name

    def version_ceiling(self, keys: list[K]) -> int | None:
        """The highest version worth asking for ``keys``, or None (the highest the node and kadmin speak).

        Why: some newer versions make the broker do work the caller did not ask for (CreateTopics v5+ builds
        and sends every config of every created topic).  An operation that knows the caller does not want
        what those versions add caps the version here; the driver then uses the highest version at or below
        the ceiling that the node speaks (or the node's lowest, if the ceiling is below it)."""
        return None

    def version_within(self, keys: list[K], usable: tuple[int, int]) -> int:
        """The version to ask for ``keys`` of a node whose usable range is ``usable``: its highest, capped at
        :meth:`version_ceiling` (but not below the range)."""
        ceiling = self.version_ceiling(keys)
        return usable[1] if ceiling is None or usable[1] <= ceiling else max(ceiling, usable[0])

    def build(self, node: int, keys: list[K], version: int) -> Message | list[Sent] | Built[K]:
        """One request carrying every key, or a list of (request, the keys it carries); a :class:`Built` when
        some keys cannot travel at ``version`` (see :func:`split_by_version`)."""
        raise NotImplementedError

    def handle(self, node: int, keys: list[K], response: Any, version: int) -> Mapping[K, Outcome]:
        """One outcome per key of the request that carried ``keys``; a key left out fails.  An
        :class:`Answers` (the keys simply done as their values) saves a ``Done`` per key on big requests."""
        raise NotImplementedError


async def run(ctx: Context, op: Operation[K], keys: Iterable[K], deadline: Deadline) -> dict[K, Any]:
    """Run ``op`` over ``keys``: {key: value or KafkaError} for every distinct key, in the keys' order.

    The lean first round (issue #28, small calls): when the lookup names the one node now (``ready``) and that
    node's connection can take a request now (:meth:`NetworkClient.ready`), the first round is built and sent
    at once, bounded by the request's own timer (which ends at the call's deadline), without the lookup's and
    the attempt's timeouts.  Its keys are folded as every round's are; keys left to retry go on to the usual
    rounds after the first backoff, exactly as after a first round that left keys pending."""
    state = _Run(ctx, op, list(dict.fromkeys(keys)), deadline)
    if state.pending:
        first: BaseException | None = None
        lean = state.lean_plan()
        if lean is not None:
            try:
                await state.lean_round(*lean)
            except _KeysPending as exc:
                first = exc
        if lean is None or first is not None:
            try:
                await retry_call(state.round, deadline=deadline, config=ctx.config, what=op.name,
                                 retry_if=_keys_pending, first_failed=first)
            except (KafkaTimeoutError, _KeysPending):
                pass  # the keys still pending get their timeout in finish()
    return state.finish()


class _KeysPending(Exception):
    """Raised by a round that left keys to retry: what makes tenacity back off and run another round."""


def _keys_pending(exc: BaseException) -> bool:
    return isinstance(exc, _KeysPending)


def _retry_or_fail(exc: KafkaError) -> Outcome:
    if isinstance(exc, KafkaTimeoutError):
        # The call's deadline passed mid-request: not an answer.  finish() builds the key's timeout, knowing
        # whether a write was sent (possibly_applied).
        return Retry(exc)
    if exc.retriable:
        return Retry(exc, relookup=isinstance(exc, KafkaConnectionError))
    return Failed(exc)


def _not_sent(exc: KafkaError) -> Outcome:
    """The outcome of keys whose request got no answer."""
    if isinstance(exc, UnsupportedVersionError):
        # The node's table changed between negotiation and send (it was upgraded or downgraded): re-plan.
        return Retry(exc)
    return _retry_or_fail(exc)


class _Run(Generic[K]):
    """The state of one call: results so far, keys pending, and the writes in doubt."""

    def __init__(self, ctx: Context, op: Operation[K], order: list[K], deadline: Deadline) -> None:
        self.ctx = ctx
        self.op = op
        self.order = order
        self.pending = order
        self.deadline = deadline
        self.results: dict[K, Any] = {}
        self.last_error: dict[K, KafkaError] = {}
        #: Writes whose send was never answered, or answered REQUEST_TIMED_OUT (the broker may still apply it).
        self.in_doubt: set[K] = set()
        self.rounds = 0
        #: Reads: how many answers for the key did not decode (a second one fails it).
        self.undecodable: dict[K, int] = {}
        self._bound = asyncio.Semaphore(op.max_in_flight) if op.max_in_flight else None

    async def round(self) -> None:
        """One pass over the pending keys: locate, send to every node, fold; raises _KeysPending if any remain."""
        self.rounds += 1
        retry: list[K] = []
        by_node: dict[int, list[K]] = {}
        found = await self._locate()
        if isinstance(found, int):
            by_node[found] = list(self.pending)
        else:
            for k in self.pending:
                where = found.get(k)
                if where is None:
                    where = Retry(ProtocolError(f"no node was found for {k!r}"))
                if isinstance(where, int):
                    by_node.setdefault(where, []).append(k)
                    continue
                if isinstance(where, Failed) and isinstance(where.error, KafkaTimeoutError) \
                        and not self.deadline.expired:
                    # Lookups are shared between concurrent calls (CoordinatorCache): this was the deadline of a
                    # call with less time than ours, not an answer.  Look the key up again.
                    where = Retry(where.error)
                self._apply(k, where, retry)
        # Writes: each request's keys from its send until its answer.  Whatever is left here after the round
        # was never answered: those keys are in doubt from now on.
        self.unanswered: dict[object, list[K]] = {}
        try:
            # Each node's answers are applied as they come, so that a node still waiting when the deadline
            # cancels the round does not take the other nodes' answers with it.
            if len(by_node) == 1:  # one node (the controller, a coordinator, any broker): no gather, no task
                [(node, ks)] = by_node.items()
                await self._node_round(node, ks, retry)
            else:
                await asyncio.gather(*(self._node_round(node, ks, retry) for node, ks in by_node.items()))
        finally:
            self._unanswered_in_doubt()
        self._end_round(retry)

    def lean_plan(self) -> tuple[int, Connection, Negotiated] | None:
        """(node, its connection, what it negotiated) when the first round can go at once (see :func:`run`)."""
        ready = getattr(self.op.lookup, "ready", None)
        connection = getattr(self.ctx.net, "ready", None)  # (a test's stand-in network may have none)
        if ready is None or connection is None or self.deadline.expired:
            return None  # (no time left: the usual path says so without sending, and nothing is in doubt)
        node = ready(self.ctx, self.pending)
        if node is None:
            return None
        got = connection(node)
        return None if got is None else (node, got[0], got[1])

    async def lean_round(self, node: int, conn: Connection, neg: Negotiated) -> None:
        """The first round with its node and connection known: ``round`` without the lookup and negotiation
        awaits (same version choice, same build, same folding and in-doubt bookkeeping)."""
        self.rounds += 1
        retry: list[K] = []
        keys = list(self.pending)
        into = _Settled(self, node, retry)
        self.unanswered = {}
        try:
            try:
                api, config = self.op.api, self.ctx.config
                usable = neg.usable(api, config)
                if usable is None:
                    raise unsupported_version_error(api, neg.versions, config, conn.label)
                version = self.op.version_within(keys, usable)
                built = self.op.build(node, keys, version)
            except UnsupportedVersionError as exc:
                into.update(dict.fromkeys(keys, Failed(exc)))
            except KafkaError as exc:
                into.update(dict.fromkeys(keys, _retry_or_fail(exc)))
            else:
                await self._send_built(node, keys, version, built, into, conn)
        finally:
            self._unanswered_in_doubt()
        self._end_round(retry)

    def _unanswered_in_doubt(self) -> None:
        if self.op.write:
            for ks in self.unanswered.values():
                self.in_doubt.update(ks)

    def _end_round(self, retry: list[K]) -> None:
        self.pending = retry
        if retry:
            log.debug("%s: %d key(s) to retry after round %d", self.op.name, len(retry), self.rounds)
            raise _KeysPending(f"{len(retry)} key(s) pending")

    async def _node_round(self, node: int, node_keys: list[K], retry: list[K]) -> None:
        into = _Settled(self, node, retry)
        await self._node(node, node_keys, into)

    def _apply(self, k: K, out: Outcome, retry: list[K]) -> None:
        if isinstance(out, Retry) and isinstance(out.error, UndecodableResponseError):
            out = self._undecodable(k, out)
        if isinstance(out, Done):
            self.results[k] = out.value
        elif isinstance(out, Failed):
            self.results[k] = out.error
        else:
            # The deadline passing mid-attempt explains nothing: keep the error that made the key retry before
            # it for the final timeout's message.
            if not (isinstance(out.error, KafkaTimeoutError) and k in self.last_error):
                self.last_error[k] = out.error
            if self.op.write and out.error.code == ErrorCode.REQUEST_TIMED_OUT:
                self.in_doubt.add(k)  # the broker gave up waiting, not necessarily applying
            if out.relookup:
                self.op.lookup.forget(self.ctx, [k])
            retry.append(k)

    def _undecodable(self, k: K, out: Retry) -> Outcome:
        """A key whose request was answered with bytes that do not decode.

        Unlike a lost answer this one is deterministic more often than not (a broker that does not really
        serve the version it advertises answers every resend the same way), so resending until the deadline
        only delays the verdict.  A write was received and answered: it may have been applied, and no resend
        can tell (its answer would not decode either), so it is in doubt now.  A read gets one more try, on a
        fresh connection or another node, in case the bytes were damaged on the way."""
        err = out.error
        if self.op.write:
            doubt = KafkaTimeoutError(f"{self.op.name}: the answer for {k!r} did not decode ({err}); it was "
                                      f"received and may have been applied", possibly_applied=True)
            doubt.__cause__ = err
            return Failed(doubt)
        seen = self.undecodable[k] = self.undecodable.get(k, 0) + 1
        if seen >= 2:
            bad = ProtocolError(f"{self.op.name}: {seen} answers for {k!r} did not decode ({err})")
            bad.__cause__ = err
            return Failed(bad)
        return out

    async def _locate(self) -> dict[K, int | Outcome] | int:
        """The lookup, bounded by this call's deadline and never cancelled by it.

        Why a shielded task: lookups are shared between concurrent calls (CoordinatorCache collapses lookups of
        one key into one), so the call waiting here may wait for another call's lookup, which runs to *that*
        call's deadline.  Waiting past ours would break our promise to the caller; cancelling it would fail
        every other call sharing it.  So the lookup finishes on its own and we stop waiting."""
        remaining = self.deadline.remaining()
        if getattr(self.op.lookup, "inline", False):
            # A lookup of this call alone (its state is the operation's; what it awaits in the network client
            # is shielded there): awaited in place, with no task and no event-loop turn before it runs.
            try:
                return await bounded(self.op.lookup.locate(self.ctx, self.pending, self.deadline),
                                     None if remaining == float("inf") else remaining)
            except asyncio.TimeoutError:
                err = KafkaTimeoutError("the deadline passed while looking up which node to ask")
                return {k: Retry(err) for k in self.pending}
        task = asyncio.ensure_future(self.op.lookup.locate(self.ctx, self.pending, self.deadline))
        task.add_done_callback(_retrieve)
        try:
            return await asyncio.wait_for(asyncio.shield(task), None if remaining == float("inf") else remaining)
        except asyncio.TimeoutError:
            err = KafkaTimeoutError("the deadline passed while looking up which node to ask")
            return {k: Retry(err) for k in self.pending}

    async def _node(self, node: int, keys: list[K], into: _Settled[K]) -> None:
        """Negotiate with ``node`` now, build for its version, send, fold each answer by its own keys."""
        net = self.ctx.net
        try:
            version = await net.negotiated_version(node, self.op.api, deadline=self.deadline)
            ceiling = self.op.version_ceiling(keys)
            if ceiling is not None and version > ceiling:
                lowest = (await net.usable_versions(node, deadline=self.deadline))[self.op.api][0]
                version = max(ceiling, lowest)
            built = self.op.build(node, keys, version)
        except UnsupportedVersionError as exc:
            into.update(dict.fromkeys(keys, Failed(exc)))
            return
        except KafkaError as exc:
            into.update(dict.fromkeys(keys, _retry_or_fail(exc)))
            return
        await self._send_built(node, keys, version, built, into)

    async def _send_built(self, node: int, keys: list[K], version: int, built: Message | list[Sent] | Built[K],
                          into: _Settled[K], conn: Connection | None = None) -> None:
        """Send what ``build`` returned for ``keys`` (``conn``: the node's connection, known ready)."""
        if isinstance(built, Built):
            # Keys this version cannot carry fail alone; the rest travel (the architecture's per-key refusal).
            refused = built.refused
            into.update({k: Failed(err) for k, err in refused.items()})
            built = built.sends
            if not isinstance(built, list):
                built = [(built, [k for k in keys if k not in refused])]
        sends: list[Sent] = built if isinstance(built, list) else [(built, keys)]
        if not sends:
            return
        if len(sends) > 1 and self._bound is None:
            await self._pipelined(node, sends, version, into)
        elif len(sends) == 1:  # the small call's path: awaited here, without a gather and its task
            req, ks = sends[0]
            await self._one(node, req, ks, version, into, conn)
        else:
            await asyncio.gather(*(self._one(node, req, ks, version, into) for req, ks in sends))

    async def _one(self, node: int, req: Message, keys: list[K], version: int, into: _Settled[K],
                   conn: Connection | None = None) -> None:
        token = object()
        self.unanswered[token] = keys
        net = self.ctx.net
        try:
            if self._bound is not None:
                async with self._bound:
                    resp = await net.send(node, req, version, deadline=self.deadline)
            elif conn is not None:
                resp = await net.send_on(conn, node, req, version, deadline=self.deadline)
            else:
                resp = await net.send(node, req, version, deadline=self.deadline)
        except KafkaError as exc:
            into.update(dict.fromkeys(keys, _not_sent(exc)))
            return
        self._fold(node, keys, resp, version, into)
        del self.unanswered[token]

    async def _pipelined(self, node: int, sends: list[Sent], version: int, into: _Settled[K]) -> None:
        """Many requests to one node (a split lookup, batches): pipelined, each folded as it arrives, without a
        task per request, so thousands of single-key requests cost little more than their bytes."""
        tokens = [object() for _ in sends]
        for token, (_req, ks) in zip(tokens, sends, strict=True):
            self.unanswered[token] = ks

        def each(i: int, resp: Any, error: KafkaError | None) -> None:
            keys = sends[i][1]
            if error is not None:
                into.update(dict.fromkeys(keys, _not_sent(error)))
                return
            self._fold(node, keys, resp, version, into)
            del self.unanswered[tokens[i]]

        try:
            await self.ctx.net.send_many(node, [r for r, _ in sends], version, deadline=self.deadline, each=each)
        except KafkaError as exc:
            into.update({k: _not_sent(exc) for _req, ks in sends for k in ks if k not in into.settled})

    def _fold(self, node: int, keys: list[K], resp: Any, version: int, into: _Settled[K]) -> None:
        try:
            folded = self.op.handle(node, keys, resp, version)
        except KafkaError as exc:
            into.update(dict.fromkeys(keys, _retry_or_fail(exc)))
            return
        if type(folded) is Answers and not folded.others:
            done = folded.done
            # Every key of the request done, and nothing else in the answer (the keys are distinct, so equal
            # counts and each key found mean the same key set): the values are the results, as one update.
            if len(done) == len(keys) and all(map(done.__contains__, keys)):
                into.done(done)
                return
        into.update({k: folded.get(k) or Failed(ProtocolError(
            f"{self.op.name}: node {node}'s response has no entry for {k!r}")) for k in keys})

    def finish(self) -> dict[K, Any]:
        op, results = self.op, self.results
        # Keys without a result: pending after the last round, or in a round the deadline cut short.
        for k in [k for k in self.order if k not in results]:
            cause = self.last_error.get(k)
            msg = f"{op.name}: no result for {k!r} before the deadline"
            if cause is not None:
                msg += f" (last error: {type(cause).__name__}: {cause})"
            doubt = op.write and k in self.in_doubt
            if doubt:
                msg += "; it was sent and may have been applied"
            results[k] = timeout = KafkaTimeoutError(msg, possibly_applied=doubt)
            if cause is not None:
                timeout.__cause__ = cause
        if op.write:
            for k in self.in_doubt:
                err = results.get(k)
                if isinstance(err, KafkaError) and not isinstance(err, KafkaTimeoutError) \
                        and self._applied_looks_like(err):
                    results[k] = doubt_err = KafkaTimeoutError(
                        f"{op.name}: {k!r} is in doubt: an earlier request for it was sent and never answered, "
                        f"and the resend was answered {type(err).__name__}: {err}, which is also what the "
                        f"earlier request having been applied looks like", possibly_applied=True)
                    doubt_err.__cause__ = err
        return {k: results[k] for k in self.order}

    def _applied_looks_like(self, err: KafkaError) -> bool:
        codes = self.op.applied_looks_like
        if codes is None:
            return not err.retriable
        return err.code in codes


class _Settled(Generic[K]):
    """One node's outcomes, applied to the call the moment each request is answered (or fails), not when the
    node's last request is: a deadline that cancels the round then loses no answer that already came."""

    def __init__(self, run: _Run[K], node: int, retry: list[K]) -> None:
        self.run = run
        self.node = node
        self.retry = retry
        self.settled: set[K] = set()

    def update(self, outcomes: Mapping[K, Outcome]) -> None:
        connection_lost = False
        for k, out in outcomes.items():
            if isinstance(out, Retry) and isinstance(out.error, KafkaConnectionError):
                connection_lost = True
            self.settled.add(k)
            self.run._apply(k, out, self.retry)
        if connection_lost:
            self.run.op.lookup.forget_node(self.run.ctx, self.node)

    def done(self, values: Mapping[K, Any]) -> None:
        """``update`` with ``Done(value)`` for every key of ``values``, applied at once: a Done sets the key's
        result and nothing else (no retry, no doubt, no lookup to forget), so the per-key steps add nothing."""
        self.settled.update(values)
        self.run.results.update(values)


def _retrieve(task: asyncio.Future[Any]) -> None:
    # The waiter may have stopped waiting (its deadline passed); read the outcome so that asyncio does not log
    # "exception was never retrieved" for an error the waiter already turned into its own timeout.
    if not task.cancelled():
        task.exception()


__all__ = ["Answers", "Built", "Context", "Done", "Failed", "Lookup", "Operation", "Outcome", "Retry", "Sent",
           "run", "split_by_version"]
