"""SyncGroup (key 14): the leader hands out the assignment; followers wait for it.

See :mod:`kadmin.testing.classic_groups` for the protocol.
"""

from __future__ import annotations

from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.testing import authorizer as az
from kadmin.testing import classic_groups as classic
from kadmin.testing.deferred import Deferred
from kadmin.testing.handlers.base import NONE, RequestContext, Response, register, response_class

API_KEY = 14


def _answer(version: int, error: int, assignment: bytes, protocol_type: str | None = None,
            protocol: str | None = None) -> Response:
    R = response_class(API_KEY)
    if version < 5:
        protocol_type = protocol = None
    return R(error_code=error, assignment=assignment, protocol_type=protocol_type, protocol_name=protocol)


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    if not ctx.authorize(az.GROUP, req.group_id, az.READ):  # KafkaApis: READ on the group first
        return error_response(ctx, req, version, ErrorCode.GROUP_AUTHORIZATION_FAILED)
    err = ctx.group_error(req.group_id)
    if err != NONE:
        return _answer(version, err, b"")
    g = ctx.group(req.group_id)
    if g is not None:
        classic.expire(g)
    err, m = classic.check_member(g, req.member_id, req.group_instance_id if version >= 3 else None,
                                  req.generation_id)
    if err != NONE or m is None or g is None:
        return _answer(version, err, b"")
    if version >= 5 and ((req.protocol_type is not None and req.protocol_type != g.protocol_type)
                         or (req.protocol_name is not None and req.protocol_name != g.protocol)):
        return _answer(version, classic.INCONSISTENT_GROUP_PROTOCOL, b"")
    got = classic.sync(g, m, {a.member_id: bytes(a.assignment) for a in req.assignments})
    generation = req.generation_id

    def finish() -> Response:
        error, assignment = classic.finish_sync(g, m, generation)
        return _answer(version, error, assignment, g.protocol_type, g.protocol)

    if isinstance(got, tuple):
        return _answer(version, got[0], got[1], g.protocol_type, g.protocol)
    assert m.syncing is not None
    return Deferred(m.syncing, m.rebalance_timeout_ms / 1000.0, finish)


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    return _answer(version, code, b"")


register(API_KEY, handle=handle, error_response=error_response, keys=lambda req, _v: (req.group_id,))
