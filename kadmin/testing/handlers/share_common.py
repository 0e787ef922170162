"""What ShareFetch (78) and ShareAcknowledge (79) share: share sessions and acknowledgements (registers nothing).

A share session (KIP-932) is a member's, on one broker: ShareSessionEpoch 0 opens it (ShareFetch only), each
later request carries the next epoch (1, 2, ...), -1 closes it; an epoch without a session is
SHARE_SESSION_NOT_FOUND, a wrong one INVALID_SHARE_SESSION_EPOCH.  Acknowledgements name records the member
acquired: accept and reject finish them (the start offset moves past finished records), release hands them
back (archived once delivered group.share.delivery.count.limit times), renew extends the lock; a batch naming a
record the member does not hold is refused whole (INVALID_RECORD_STATE).
"""

from __future__ import annotations

import time
import uuid
from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.testing import share_groups as sg
from kadmin.testing.handlers.base import RequestContext
from kadmin.testing.state.share_groups import ShareSession, ShareStates
from kadmin.testing.state.topics import PartitionState, Topics

MAX_EPOCH = 2**31 - 1


def session_for(ctx: RequestContext, group_id: str, member_id: str, epoch: int,
                may_open: bool) -> tuple[int, ShareSession | None]:
    """(error, session) for a request's epoch, the session's next epoch moved on when it is accepted."""
    sessions = ctx.state.area(ShareStates).sessions
    key = (ctx.node_id, group_id, member_id)
    if epoch == 0:
        if not may_open:
            return ErrorCode.INVALID_SHARE_SESSION_EPOCH, None
        sessions[key] = ShareSession()
        return ErrorCode.NONE, sessions[key]
    found = sessions.get(key)
    if found is None:
        return ErrorCode.SHARE_SESSION_NOT_FOUND, None
    if epoch == -1:
        return ErrorCode.NONE, found
    if epoch != found.next_epoch:
        return ErrorCode.INVALID_SHARE_SESSION_EPOCH, None
    found.next_epoch = 1 if epoch == MAX_EPOCH else epoch + 1
    return ErrorCode.NONE, found


def close_session(ctx: RequestContext, group_id: str, member_id: str) -> None:
    ctx.state.area(ShareStates).sessions.pop((ctx.node_id, group_id, member_id), None)


def names_by_id(ctx: RequestContext) -> dict[uuid.UUID, str]:
    return {t.topic_id: name for name, t in ctx.state.area(Topics).items()}


def share_partition(ctx: RequestContext, group_id: str, topic: str, part: int, ps: PartitionState) -> Any:
    """The group's state of the partition, initialised (share.auto.offset.reset) the first time it is read."""
    sp = ctx.state.area(ShareStates).initialize(group_id, topic, part, ps.log_start, ps.log_end, ps.leader_epoch)
    sp.follow_log_start(ps.log_start)
    sp.expire_locks(time.monotonic(), sg.delivery_limit(ctx.state))
    return sp


def acknowledge(ctx: RequestContext, group_id: str, member_id: str, topic: str, part: int, ps: PartitionState,
                batches: list[Any]) -> int:
    """Apply a partition's acknowledgement batches; the partition's acknowledge error code."""
    if not batches:
        return ErrorCode.NONE
    sp = share_partition(ctx, group_id, topic, part, ps)
    ok = True
    for b in batches:
        ok = sp.acknowledge(member_id, b.first_offset, b.last_offset, list(b.acknowledge_types), time.monotonic(),
                            sg.lock_seconds(ctx.state), sg.delivery_limit(ctx.state)) and ok
    return ErrorCode.NONE if ok else ErrorCode.INVALID_RECORD_STATE


__all__ = ["acknowledge", "close_session", "names_by_id", "session_for", "share_partition"]
