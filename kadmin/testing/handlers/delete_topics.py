"""DeleteTopics (key 20): delete topics by name (v0+) or by id (v6+, Kafka 2.8), on the controller.

ZooKeeper-mode brokers answer NOT_CONTROLLER unless they are the controller; KRaft brokers forward.  Per
topic: an unknown name is UNKNOWN_TOPIC_OR_PARTITION, an unknown id UNKNOWN_TOPIC_ID; a v6 entry with both a
name and an id, or neither, is INVALID_REQUEST.  The topic's partitions and configs go with it.
"""

from __future__ import annotations

import uuid
from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing import authorizer as az
from kadmin.testing.handlers.base import RequestContext, Response, register, response_class

API_KEY = ApiKey.DELETE_TOPICS
ZERO = uuid.UUID(int=0)


def _requests(req: Any, version: int) -> list[tuple[str | None, uuid.UUID]]:
    if version >= 6:
        return [(t.name, t.topic_id or ZERO) for t in req.topics]
    return [(n, ZERO) for n in req.topic_names]


def _delete(ctx: RequestContext, name: str | None, topic_id: uuid.UUID) -> tuple[int, str | None, str | None,
                                                                                   uuid.UUID]:
    """(error, message, topic name, topic id) for one entry."""
    if not ctx.acts_as_controller():
        return ErrorCode.NOT_CONTROLLER, "This is not the correct controller for this cluster.", name, topic_id
    if name is not None and topic_id != ZERO or name is None and topic_id == ZERO:
        return ErrorCode.INVALID_REQUEST, "Topic name and topic id cannot both be set, or both be empty", name, \
            topic_id
    if name is None:
        found = next((t for t in ctx.state.topics.values() if t.topic_id == topic_id), None)
        if found is None:
            return ErrorCode.UNKNOWN_TOPIC_ID, "This server does not host this topic ID.", None, topic_id
    else:
        found = ctx.state.topics.get(name)
        if not ctx.authorize(az.TOPIC, name, az.DELETE):
            # KafkaApis: refused whether or not it exists, so that existence does not leak.
            return ErrorCode.TOPIC_AUTHORIZATION_FAILED, "Topic authorization failed.", name, ZERO
        if found is None:
            return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "This server does not host this topic-partition.", name, \
                ZERO
    if not ctx.authorize(az.TOPIC, found.name, az.DELETE):
        return ErrorCode.TOPIC_AUTHORIZATION_FAILED, "Topic authorization failed.", name, topic_id
    del ctx.state.topics[found.name]
    return ErrorCode.NONE, None, found.name, found.topic_id


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    out = []
    for name, topic_id in _requests(req, version):
        code, msg, got_name, got_id = _delete(ctx, name, topic_id)
        kw: dict[str, Any] = {"name": got_name if version >= 6 else (got_name or ""), "error_code": code}
        if version >= 5:
            kw["error_message"] = msg
        if version >= 6:
            kw["topic_id"] = got_id
        out.append(R.DeletableTopicResult(**kw))
    return R(responses=out)


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    R = response_class(API_KEY)
    out = []
    for n, t in _requests(req, version):
        kw: dict[str, Any] = {"topic_id": t} if version >= 6 else {}
        out.append(R.DeletableTopicResult(name=n if version >= 6 else (n or ""), error_code=code, **kw))
    return R(responses=out)


def keys(req: Any, version: int) -> tuple[str, ...]:
    return tuple(n if n is not None else str(t) for n, t in _requests(req, version))


register(API_KEY, handle=handle, error_response=error_response, keys=keys)
