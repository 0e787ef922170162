"""CreatePartitions (key 37): grow topics to a new total partition count, on the controller.

ZooKeeper-mode brokers answer NOT_CONTROLLER unless they are the controller; KRaft brokers forward.  Per
topic, as Kafka does: a topic twice in one request is INVALID_REQUEST; an unknown one
UNKNOWN_TOPIC_OR_PARTITION; a count not above the current one INVALID_PARTITIONS; assignments (for the new
partitions only) of the wrong number, with unknown or duplicate brokers, or of another replication factor than
the topic's, INVALID_REPLICA_ASSIGNMENT.  ValidateOnly checks and adds nothing.
"""

from __future__ import annotations

from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing import authorizer as az
from kadmin.testing.handlers.base import RequestContext, Response, register, response_class
from kadmin.testing.handlers.topic_rules import assignment_error, place
from kadmin.testing.state.topics import PartitionState, Topics

API_KEY = ApiKey.CREATE_PARTITIONS


def _grow(ctx: RequestContext, t: Any, validate_only: bool, live: set[int]) -> tuple[int, str | None]:
    if not ctx.acts_as_controller():
        return ErrorCode.NOT_CONTROLLER, "This is not the correct controller for this cluster."
    topic = ctx.state.area(Topics).get(t.name)
    if topic is None:
        return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, f"The topic '{t.name}' does not exist."
    now = len(topic.partitions)
    if t.count < now:
        return ErrorCode.INVALID_PARTITIONS, (f"Topic currently has {now} partitions, which is higher than the "
                                              f"requested {t.count}.")
    if t.count == now:
        return ErrorCode.INVALID_PARTITIONS, f"Topic already has {now} partitions."
    rf = len(next(iter(topic.partitions.values())).replicas) if topic.partitions else 1
    if t.assignments is not None:
        if len(t.assignments) != t.count - now:
            return ErrorCode.INVALID_REPLICA_ASSIGNMENT, (f"Attempted to add {t.count - now} additional "
                                                          f"partition(s), but only {len(t.assignments)} assignment(s) "
                                                          "were specified.")
        replicas = [list(a.broker_ids) for a in t.assignments]
        err = assignment_error(replicas, live, rf)
        if err is not None:
            return err
    else:
        if rf > len(live):
            return ErrorCode.INVALID_REPLICATION_FACTOR, (f"Unable to replicate the partition {rf} time(s): only "
                                                          f"{len(live)} broker(s) are registered.")
        replicas = place(sorted(live), now, t.count - now, rf, len(ctx.state.area(Topics)))
    if not validate_only:
        for i, r in enumerate(replicas):
            topic.partitions[now + i] = PartitionState(replicas=list(r))
    return ErrorCode.NONE, None


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    live = ctx.live_ids()
    names = [t.name for t in req.topics]
    out = []
    code: int
    msg: str | None
    for t in req.topics:
        if names.count(t.name) > 1:
            code, msg = ErrorCode.INVALID_REQUEST, "Duplicate topic in request."
        elif not ctx.authorize(az.TOPIC, t.name, az.ALTER):
            code, msg = ErrorCode.TOPIC_AUTHORIZATION_FAILED, None
        else:
            code, msg = _grow(ctx, t, req.validate_only, live)
        out.append(R.CreatePartitionsTopicResult(name=t.name, error_code=code, error_message=msg))
    return R(results=out)


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    R = response_class(API_KEY)
    return R(results=[R.CreatePartitionsTopicResult(name=t.name, error_code=code) for t in req.topics])


def keys(req: Any, version: int) -> tuple[str, ...]:
    return tuple(t.name for t in req.topics)


register(API_KEY, handle=handle, error_response=error_response, keys=keys)
