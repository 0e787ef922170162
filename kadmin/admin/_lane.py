"""One request of an operation on the sync client's blocking lane, on the calling thread (issue #28, small calls).

The sync client runs a few read-only methods of the async client on the calling thread first, with
:data:`LANE` set (``SyncClientBase._call_lean``).  The async client's ``_begin`` and ``_run`` then do not await:
``_run`` calls :func:`run_on_lane`, which sends the operation's one request on the lane and folds its answer
with the operation's own ``build`` and ``handle``, the same code the driver's rounds use.  Only a final answer
is kept: a key's value (``Done``) or its error (``Failed``: asking again would get the same answer, so it is what
the usual path would return too).  Anything else (a lookup that names no node now, a connection the async client
has not made ready, a version refused, a retriable error, an answer that does not decode, a Metadata answer
with a top-level error, a lost connection) raises :class:`LaneUnusable` before any result is decided, and the
sync client runs the call again the usual way, which owns retries, re-bootstrap, in-doubt bookkeeping and the
error messages.  Writes never come here (a lost answer must be "possibly applied", which only the driver tracks).
"""

from __future__ import annotations

from collections.abc import Iterable
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, TypeVar

from kadmin.admin._driver import Done, Failed, Operation
from kadmin.errors import KafkaError, ProtocolError
from kadmin.network.blocking import BlockingLane, LaneUnusable
from kadmin.network.connection import decode_response
from kadmin.network.rebootstrap import is_rebootstrap, metadata_error
from kadmin.protocol import Message
from kadmin.protocol.apis import ApiKey

if TYPE_CHECKING:
    from kadmin.admin._driver import Context
    from kadmin.network.retry import Deadline

K = TypeVar("K")

#: Set by the sync client while it runs a call on the calling thread (see the module docstring).
LANE: ContextVar[BlockingLane | None] = ContextVar("kadmin_lane", default=None)


class LaneRebootstrap(LaneUnusable):
    """A Metadata answer said REBOOTSTRAP_REQUIRED (KIP-1102): the sync client has the loop thread learn the
    cluster again from its bootstrap addresses, as the usual way does on that answer, before it runs the call
    the usual way."""


def run_on_lane(ctx: Context, op: Operation[K], keys: Iterable[K], deadline: Deadline,
                lane: BlockingLane) -> dict[K, Any]:
    """{key: value or KafkaError} of ``op`` for ``keys`` from one request on ``lane`` to the one node the lookup
    names now; LaneUnusable for anything but a final answer for every key (see the module docstring)."""
    wanted = list(dict.fromkeys(keys))
    accepts = getattr(op.lookup, "accepts", None)
    names = getattr(op.lookup, "ready", None)
    if not wanted or op.write or accepts is None or names is None:
        raise LaneUnusable(f"{op.name}: not a read the lane can place")
    net = ctx.net
    try:
        # The lane keeps to its node while the lookup accepts it there and the async client holds it ready
        # (another node means another socket); else it takes the node the lookup names now.
        node = lane.node
        if node is not None and not accepts(ctx, wanted, node):
            raise LaneUnusable(f"{op.name}: not for node {node}")  # (a named broker: the usual way asks it)
        ready = None if node is None else net.ready(node)
        if ready is None:
            node = names(ctx, wanted)
            ready = None if node is None else net.ready(node)
    except RuntimeError as exc:  # the loop thread changed the client's tables while they were read
        raise LaneUnusable(str(exc)) from None
    if node is None or ready is None:
        raise LaneUnusable(f"{op.name}: no node ready now")
    conn, negotiated = ready
    usable = negotiated.usable(op.api, ctx.config)
    if usable is None:
        raise LaneUnusable(f"{op.name}: the node has no version of it")  # the usual path says which
    version = op.version_within(wanted, usable)
    try:
        request = op.build(node, wanted, version)
    except KafkaError as exc:
        raise LaneUnusable(f"{op.name}: {exc}") from None
    if not isinstance(request, Message):  # several requests, or keys refused at this version
        raise LaneUnusable(f"{op.name}: not one request")
    timeout = min(deadline.remaining(), ctx.config.request_timeout_s)
    frame = lane.request(conn.host, conn.port, op.api, version, request.encode(version), timeout)
    lane.node = node
    try:
        response = decode_response(frame, op.api, version)
        if op.api == ApiKey.METADATA:
            err = metadata_error(response, version)
            if is_rebootstrap(err):
                raise LaneRebootstrap(f"node {node} answered REBOOTSTRAP_REQUIRED")
            if err is not None:
                raise LaneUnusable(f"the Metadata answer's error: {err}")
        outcomes = op.handle(node, wanted, response, version)
    except (ProtocolError, KafkaError) as exc:
        raise LaneUnusable(f"{op.name}: {exc}") from None
    out: dict[K, Any] = {}
    for k in wanted:
        outcome = outcomes.get(k)
        if isinstance(outcome, Done):
            out[k] = outcome.value
        elif isinstance(outcome, Failed):
            out[k] = outcome.error
        else:
            raise LaneUnusable(f"{op.name}: {k!r}: {outcome!r}")
    return out
