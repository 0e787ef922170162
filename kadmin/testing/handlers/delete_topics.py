"""DeleteTopics (key 20): delete topics by name (v0+) or by id (v6+, Kafka 2.8), on the controller.

ZooKeeper-mode brokers (presets 2.2-3.9) answer NOT_CONTROLLER unless they are the controller and follow
KafkaApis (:func:`_zookeeper`); KRaft brokers (4.0) forward to the quorum and follow ControllerApis
(:func:`_kraft`).  Per topic: an unknown name is UNKNOWN_TOPIC_OR_PARTITION, an unknown id UNKNOWN_TOPIC_ID; a
v6 entry with both a name and an id, or neither, is INVALID_REQUEST.  The two differ where one request gives a
topic by name and by id: ZooKeeper mode deletes it and answers both entries NONE, KRaft refuses the name with
INVALID_REQUEST, answers the id entry not at all and deletes nothing.  The topic's partitions and configs go
with it.
"""

from __future__ import annotations

import uuid
from collections import Counter
from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing import authorizer as az
from kadmin.testing.handlers.base import RequestContext, Response, register, response_class
from kadmin.testing.state.groups import Groups
from kadmin.testing.state.share_groups import ShareStates
from kadmin.testing.state.topics import Topics

API_KEY = ApiKey.DELETE_TOPICS
ZERO = uuid.UUID(int=0)


def _requests(req: Any, version: int) -> list[tuple[str | None, uuid.UUID]]:
    if version >= 6:
        return [(t.name, t.topic_id or ZERO) for t in req.topics]
    return [(n, ZERO) for n in req.topic_names]


Answer = tuple[str | None, uuid.UUID, int, str | None]


def _forget(ctx: RequestContext, name: str) -> None:
    """The topic goes, and with it what the coordinators hold of its partitions, as Kafka's group coordinator
    (onPartitionsDeleted: committed offsets) and share coordinator (share-partition state) drop them: a topic
    made again under the same name starts with no offsets and no share state."""
    del ctx.state.area(Topics)[name]
    for group in ctx.state.area(Groups).values():
        for key in [k for k in group.offsets if k[0] == name]:
            del group.offsets[key]
    shares = ctx.state.area(ShareStates)
    for group_id in list(shares):
        shares.drop_topic(group_id, name)


def _zookeeper(ctx: RequestContext, entries: list[tuple[str | None, uuid.UUID]]) -> list[Answer]:
    """KafkaApis.handleDeleteTopicsRequest: each entry resolved to a name (an id through the controller's
    context) and answered in request order with the id it gave; the resolved names are deleted once each, so a
    topic given by name and by id is deleted and both entries answer NONE.  No error messages."""
    if not ctx.acts_as_controller():
        return [(n, t, ErrorCode.NOT_CONTROLLER, None) for n, t in entries]
    out: list[Answer] = []
    doomed: set[str] = set()
    for name, topic_id in entries:
        if name is not None and topic_id != ZERO or name is None and topic_id == ZERO:
            out.append((name, topic_id, ErrorCode.INVALID_REQUEST, "Topic name and topic id cannot both be set, or "
                        "both be empty"))
            continue
        if name is None:
            name = next((t.name for t in ctx.state.area(Topics).values() if t.topic_id == topic_id), None)
            if name is None:
                out.append((None, topic_id, ErrorCode.UNKNOWN_TOPIC_ID, None))
                continue
            if not ctx.authorize(az.TOPIC, name, az.DESCRIBE):
                out.append((None, topic_id, ErrorCode.TOPIC_AUTHORIZATION_FAILED, None))  # the name stays unsaid
                continue
        if not ctx.authorize(az.TOPIC, name, az.DELETE):
            # Refused whether or not it exists, so that existence does not leak.
            out.append((name, topic_id, ErrorCode.TOPIC_AUTHORIZATION_FAILED, None))
        elif name not in ctx.state.area(Topics):
            out.append((name, topic_id, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, None))
        else:
            doomed.add(name)
            out.append((name, topic_id, ErrorCode.NONE, None))
    for name in doomed:
        _forget(ctx, name)
    return out


def _kraft(ctx: RequestContext, entries: list[tuple[str | None, uuid.UUID]]) -> list[Answer]:
    """ControllerApis.deleteTopics: names and ids collected (duplicates and malformed entries refused), ids
    resolved to names, authorization, then names resolved to ids.  A name whose id was also given is refused
    with INVALID_REQUEST and its id entry is dropped without an answer of its own: nothing of that topic is
    deleted.  Every deleted topic is answered with its name and id.  (Kafka shuffles the answers; the fake
    keeps them in a fixed order.)"""
    out: list[Answer] = []
    names = Counter(n for n, t in entries if n is not None and t == ZERO)
    ids = Counter(t for n, t in entries if n is None and t != ZERO)
    for name, topic_id in entries:
        if name is None and topic_id == ZERO:
            out.append((None, ZERO, ErrorCode.INVALID_REQUEST, "Neither topic name nor id were specified."))
        elif name is not None and topic_id != ZERO:
            out.append((name, topic_id, ErrorCode.INVALID_REQUEST,
                        "You may not specify both topic name and topic id."))
    out += [(n, ZERO, ErrorCode.INVALID_REQUEST, "Duplicate topic name.") for n, k in names.items() if k > 1]
    dup_ids = {t for t, k in ids.items() if k > 1}
    out += [(None, t, ErrorCode.INVALID_REQUEST, "Duplicate topic id.") for t in dup_ids]
    by_id = {t.topic_id: t.name for t in ctx.state.area(Topics).values()}
    id_to_name: dict[uuid.UUID, str] = {}
    for topic_id in (t for t, k in ids.items() if k == 1):
        name = by_id.get(topic_id)
        if name is None:
            out.append((None, topic_id, ErrorCode.UNKNOWN_TOPIC_ID, "This server does not host this topic ID."))
        elif not ctx.authorize(az.TOPIC, name, az.DELETE):
            shown = name if ctx.authorize(az.TOPIC, name, az.DESCRIBE) else None
            out.append((shown, topic_id, ErrorCode.TOPIC_AUTHORIZATION_FAILED, "Topic authorization failed."))
        else:
            id_to_name[topic_id] = name
    for name in (n for n, k in names.items() if k == 1):
        found = ctx.state.area(Topics).get(name)
        if not ctx.authorize(az.TOPIC, name, az.DESCRIBE):
            out.append((name, ZERO, ErrorCode.TOPIC_AUTHORIZATION_FAILED, "Topic authorization failed."))
        elif found is None:
            out.append((name, ZERO, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                        "This server does not host this topic-partition."))
        elif not ctx.authorize(az.TOPIC, name, az.DELETE):
            out.append((name, ZERO, ErrorCode.TOPIC_AUTHORIZATION_FAILED, "Topic authorization failed."))
        elif found.topic_id in dup_ids or found.topic_id in id_to_name:
            dup_ids.add(found.topic_id)
            id_to_name.pop(found.topic_id, None)
            out.append((name, found.topic_id, ErrorCode.INVALID_REQUEST,
                        "The provided topic name maps to an ID that was already supplied."))
        else:
            id_to_name[found.topic_id] = name
    for topic_id, name in id_to_name.items():
        _forget(ctx, name)
        out.append((name, topic_id, ErrorCode.NONE, None))
    return out


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    entries = _requests(req, version)
    answers = _zookeeper(ctx, entries) if ctx.zookeeper_mode else _kraft(ctx, entries)
    out = []
    for name, topic_id, code, msg in answers:
        kw: dict[str, Any] = {"name": name if version >= 6 else (name or ""), "error_code": code}
        if version >= 5:
            kw["error_message"] = msg
        if version >= 6:
            kw["topic_id"] = topic_id
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
