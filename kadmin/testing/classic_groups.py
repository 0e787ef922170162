"""The classic group protocol's coordinator side (JoinGroup, SyncGroup, Heartbeat, LeaveGroup), for real clients.

Modelled on Kafka's GroupCoordinator, reduced to what a client can observe:

* a member joins with an empty id and (v4+, KIP-394) is told MEMBER_ID_REQUIRED with the id to use;
* a join starts a rebalance (PreparingRebalance) that completes once every known member has joined again, or
  when the longest rebalance timeout runs out (members that did not rejoin are dropped); then the generation
  goes up, the protocol every member supports with the most votes is chosen, the first member to have joined is
  the leader, and the group waits in CompletingRebalance for the leader's SyncGroup;
* heartbeats keep a member alive; a member silent for its session timeout is dropped (checked whenever the
  group is touched, as Kafka's timers would have fired by then);
* static members (``group.instance.id``, KIP-345) keep their place across restarts and are removed by
  instance id.

Kafka's group.initial.rebalance.delay.ms is 0 here: a test wants its group formed, not a realistic delay.
Seeded groups (``FakeCluster.add_group``) get a runtime on first use whose members never time out.
"""

from __future__ import annotations

import dataclasses
import time
import uuid
from asyncio import Future
from dataclasses import dataclass, field
from typing import Any

from kadmin.testing.deferred import new_future, resolve
from kadmin.testing.state.groups import Group, Member

NONE = 0
ILLEGAL_GENERATION = 22
INCONSISTENT_GROUP_PROTOCOL = 23
UNKNOWN_MEMBER_ID = 25
INVALID_SESSION_TIMEOUT = 26
REBALANCE_IN_PROGRESS = 27
MEMBER_ID_REQUIRED = 79
FENCED_INSTANCE_ID = 82

#: Kafka's group.min.session.timeout.ms and group.max.session.timeout.ms defaults.
MIN_SESSION_TIMEOUT_MS = 6000
MAX_SESSION_TIMEOUT_MS = 1800000


@dataclass
class JoinResult:
    error: int
    generation: int = -1
    protocol_type: str | None = None
    protocol: str | None = None
    leader: str = ""
    member_id: str = ""
    members: list[tuple[str, str | None, bytes]] = field(default_factory=list)


@dataclass
class ClassicMember:
    member_id: str
    instance_id: str | None
    client_id: str
    host: str
    session_timeout_ms: int | None  # None: seeded, never expires
    rebalance_timeout_ms: int
    protocols: list[tuple[str, bytes]]
    last_seen: float = field(default_factory=time.monotonic)
    assignment: bytes = b""
    joining: Future[Any] | None = None  # a JoinGroup waiting for the rebalance to complete
    join_result: JoinResult | None = None
    syncing: Future[Any] | None = None  # a SyncGroup waiting for the leader's assignment


@dataclass
class ClassicRuntime:
    members: dict[str, ClassicMember] = field(default_factory=dict)
    pending: set[str] = field(default_factory=set)  # ids handed out with MEMBER_ID_REQUIRED
    leader: str = ""
    rebalance_deadline: float = 0.0


def runtime(g: Group) -> ClassicRuntime:
    """The group's live membership; a seeded group's members are adopted as members that never expire."""
    rt = g.runtime
    if isinstance(rt, ClassicRuntime):
        return rt
    rt = ClassicRuntime()
    for m in g.members:
        rt.members[m.member_id] = ClassicMember(m.member_id, m.group_instance_id, m.client_id, m.host, None,
                                                300000, [(g.protocol, m.metadata)], assignment=m.assignment)
    rt.leader = g.members[0].member_id if g.members else ""
    g.runtime = rt
    return rt


def _mirror(g: Group) -> None:
    """Keep ``g.members`` (what DescribeGroups reports) equal to the live membership."""
    rt = runtime(g)
    g.members = [Member(m.member_id, m.client_id, m.host, m.instance_id, _metadata_for(m, g.protocol),
                        m.assignment) for m in rt.members.values()]


def _metadata_for(m: ClassicMember, protocol: str) -> bytes:
    for name, meta in m.protocols:
        if name == protocol:
            return meta
    return m.protocols[0][1] if m.protocols else b""


# --- session expiry -------------------------------------------------------------------------------------


def expire(g: Group, now: float | None = None) -> None:
    """Drop members whose session ran out while nothing was waiting on them, then rebalance as Kafka would."""
    if g.group_type != "classic" or not isinstance(g.runtime, ClassicRuntime):
        return
    rt = g.runtime
    now = time.monotonic() if now is None else now
    dead = [m.member_id for m in rt.members.values()
            if m.session_timeout_ms is not None and m.joining is None and m.syncing is None
            and now - m.last_seen > m.session_timeout_ms / 1000.0]
    if dead:
        remove_members(g, dead)


# --- membership changes ---------------------------------------------------------------------------------


def remove_members(g: Group, member_ids: list[str]) -> None:
    """Members leave (LeaveGroup, expiry, admin removal): their waiting requests fail, the rest rebalance."""
    rt = runtime(g)
    for mid in member_ids:
        m = rt.members.pop(mid, None)
        if m is None:
            continue
        if m.joining is not None:
            m.join_result = JoinResult(UNKNOWN_MEMBER_ID, member_id=mid)
            resolve(m.joining)
        resolve(m.syncing)
        m.syncing = None
    if rt.leader not in rt.members:
        rt.leader = next(iter(rt.members), "")
    _mirror(g)
    if not rt.members:
        if g.state != "Empty":
            g.generation_id += 1
        g.state = "Empty"
        g.protocol = ""
        return
    if g.state in ("Stable", "CompletingRebalance"):
        prepare_rebalance(g)
    else:
        try_complete_join(g)


def prepare_rebalance(g: Group) -> None:
    rt = runtime(g)
    g.state = "PreparingRebalance"
    longest = max((m.rebalance_timeout_ms for m in rt.members.values()), default=0)
    rt.rebalance_deadline = time.monotonic() + longest / 1000.0
    for m in rt.members.values():
        resolve(m.syncing)  # their SyncGroup now answers REBALANCE_IN_PROGRESS
        m.syncing = None


def try_complete_join(g: Group, deadline_passed: bool = False) -> None:
    """Complete the rebalance once every member has joined again (or, after the deadline, without the rest)."""
    rt = runtime(g)
    if g.state != "PreparingRebalance":
        return
    missing = [m.member_id for m in rt.members.values() if m.joining is None]
    if missing and not deadline_passed:
        return
    for mid in missing:
        rt.members.pop(mid, None)
    if not rt.members:
        g.generation_id += 1
        g.state = "Empty"
        g.protocol = ""
        _mirror(g)
        return
    g.generation_id += 1
    g.protocol = _vote(list(rt.members.values()))
    if rt.leader not in rt.members:
        rt.leader = next(iter(rt.members))
    g.state = "CompletingRebalance"
    everyone = [(m.member_id, m.instance_id, _metadata_for(m, g.protocol)) for m in rt.members.values()]
    for m in rt.members.values():
        m.assignment = b""
        m.last_seen = time.monotonic()
        m.join_result = JoinResult(NONE, g.generation_id, g.protocol_type, g.protocol, rt.leader, m.member_id,
                                   everyone if m.member_id == rt.leader else [])
        resolve(m.joining)
        m.joining = None
    _mirror(g)


def _vote(members: list[ClassicMember]) -> str:
    """Kafka's selectProtocol: among protocols every member supports, each member votes for its first choice."""
    common = set.intersection(*({name for name, _ in m.protocols} for m in members))
    votes: dict[str, int] = {}
    for m in members:
        choice = next(name for name, _ in m.protocols if name in common)
        votes[choice] = votes.get(choice, 0) + 1
    return max(votes, key=lambda name: votes[name])


def _supports_group(g: Group, protocol_type: str, protocols: list[tuple[str, bytes]]) -> bool:
    rt = runtime(g)
    if not rt.members:
        return True
    if protocol_type != g.protocol_type:
        return False
    names = {n for n, _ in protocols}
    return all(names & {n for n, _ in m.protocols} for m in rt.members.values())


def join(g: Group, member_id: str, instance_id: str | None, client_id: str, host: str, session_timeout_ms: int,
         rebalance_timeout_ms: int, protocol_type: str, protocols: list[tuple[str, bytes]],
         require_known_member_id: bool) -> JoinResult | ClassicMember:
    """One JoinGroup: an immediate answer (JoinResult) or the member whose ``joining`` future to wait for."""
    if not MIN_SESSION_TIMEOUT_MS <= session_timeout_ms <= MAX_SESSION_TIMEOUT_MS:
        return JoinResult(INVALID_SESSION_TIMEOUT, member_id=member_id)
    if not protocol_type or not protocols or not _supports_group(g, protocol_type, protocols):
        return JoinResult(INCONSISTENT_GROUP_PROTOCOL, member_id=member_id)
    rt = runtime(g)
    if not rt.members:
        g.protocol_type = protocol_type
    static_owner = next((m.member_id for m in rt.members.values()
                         if instance_id is not None and m.instance_id == instance_id), None)
    if not member_id:
        member_id = f"{client_id or 'member'}-{uuid.uuid4()}"
        if static_owner is not None:
            # KIP-345: a static member that restarts takes its old place under a new member id.
            old = rt.members.pop(static_owner)
            resolve(old.syncing)
            if old.joining is not None:
                old.join_result = JoinResult(FENCED_INSTANCE_ID, member_id=static_owner)
                resolve(old.joining)
            if rt.leader == static_owner:
                rt.leader = member_id
        elif instance_id is None and require_known_member_id:
            rt.pending.add(member_id)
            return JoinResult(MEMBER_ID_REQUIRED, member_id=member_id)
    elif member_id not in rt.members and member_id not in rt.pending:
        if static_owner is not None:
            return JoinResult(FENCED_INSTANCE_ID, member_id=member_id)
        return JoinResult(UNKNOWN_MEMBER_ID, member_id=member_id)
    elif static_owner is not None and static_owner != member_id:
        return JoinResult(FENCED_INSTANCE_ID, member_id=member_id)
    rt.pending.discard(member_id)
    known = rt.members.get(member_id)
    if (known is not None and g.state in ("Stable", "CompletingRebalance") and known.protocols == protocols
            and member_id != rt.leader):
        # Kafka answers a follower that rejoins unchanged with the current generation, without a rebalance.
        known.last_seen = time.monotonic()
        return JoinResult(NONE, g.generation_id, g.protocol_type, g.protocol, rt.leader, member_id, [])
    m = known or ClassicMember(member_id, instance_id, client_id, host, session_timeout_ms, rebalance_timeout_ms,
                               protocols)
    m = dataclasses.replace(m, session_timeout_ms=session_timeout_ms, rebalance_timeout_ms=rebalance_timeout_ms,
                            protocols=protocols, client_id=client_id, host=host, instance_id=instance_id,
                            last_seen=time.monotonic(), join_result=None)
    if m.joining is not None:
        resolve(m.joining)  # a duplicate join: the older request is answered like a timed-out one
    m.joining = new_future()
    rt.members[member_id] = m
    if not rt.leader:
        rt.leader = member_id
    if g.state != "PreparingRebalance":
        prepare_rebalance(g)
    _mirror(g)
    try_complete_join(g)
    return m


def finish_join(g: Group, m: ClassicMember) -> JoinResult:
    """The answer of a JoinGroup that waited: its result, or after the deadline the rebalance without laggards."""
    if m.join_result is None and g.state == "PreparingRebalance" and time.monotonic() >= runtime(g).rebalance_deadline:
        try_complete_join(g, deadline_passed=True)
    result = m.join_result
    if result is None:
        # Still waiting when the broker gave up (a newer join replaced this one): the client must join again.
        return JoinResult(REBALANCE_IN_PROGRESS if m.member_id in runtime(g).members else UNKNOWN_MEMBER_ID,
                          member_id=m.member_id)
    m.join_result = None
    return result


def check_member(g: Group | None, member_id: str, instance_id: str | None,
                 generation: int) -> tuple[int, ClassicMember | None]:
    """The checks SyncGroup and Heartbeat share: known member, right instance, current generation."""
    if g is None or g.group_type != "classic" or g.state in ("Dead", "Empty"):
        return UNKNOWN_MEMBER_ID, None
    rt = runtime(g)
    m = rt.members.get(member_id)
    if m is None:
        return UNKNOWN_MEMBER_ID, None
    if instance_id is not None and m.instance_id is not None and instance_id != m.instance_id:
        return FENCED_INSTANCE_ID, None
    if generation != g.generation_id:
        return ILLEGAL_GENERATION, m
    return NONE, m


def sync(g: Group, m: ClassicMember, assignments: dict[str, bytes]) -> tuple[int, bytes] | ClassicMember:
    """One SyncGroup: an immediate (error, assignment) or the member whose ``syncing`` future to wait for."""
    m.last_seen = time.monotonic()
    if g.state == "PreparingRebalance":
        return REBALANCE_IN_PROGRESS, b""
    if g.state == "Stable":
        return NONE, m.assignment
    rt = runtime(g)
    m.syncing = new_future()
    if m.member_id == rt.leader:
        for other in rt.members.values():
            other.assignment = assignments.get(other.member_id, b"")
        g.state = "Stable"
        _mirror(g)
        for other in rt.members.values():
            resolve(other.syncing)
    return m


def finish_sync(g: Group, m: ClassicMember, generation: int) -> tuple[int, bytes]:
    m.syncing = None
    m.last_seen = time.monotonic()
    if m.member_id not in runtime(g).members:
        return UNKNOWN_MEMBER_ID, b""
    if g.state == "Stable" and g.generation_id == generation:
        return NONE, m.assignment
    return REBALANCE_IN_PROGRESS, b""


def heartbeat(g: Group | None, member_id: str, instance_id: str | None, generation: int) -> int:
    """Kafka's handleHeartbeat: errors tell the member to rejoin; a rebalance in progress says so."""
    err, m = check_member(g, member_id, instance_id, generation)
    if m is not None:
        m.last_seen = time.monotonic()
    if err != NONE:
        return err
    assert g is not None
    return REBALANCE_IN_PROGRESS if g.state == "PreparingRebalance" else NONE


def leave(g: Group, member_id: str, instance_id: str | None) -> tuple[int, str]:
    """One leaving identity: (error, the member id that left).  By instance id when given (static members)."""
    rt = runtime(g)
    if instance_id is not None:
        found = next((m.member_id for m in rt.members.values() if m.instance_id == instance_id), None)
        if found is None:
            return UNKNOWN_MEMBER_ID, member_id
        if member_id and member_id != found:
            return FENCED_INSTANCE_ID, member_id
        remove_members(g, [found])
        return NONE, found
    if member_id not in rt.members:
        return UNKNOWN_MEMBER_ID, member_id
    remove_members(g, [member_id])
    return NONE, member_id


def has_live_members(g: Group) -> bool:
    return bool(runtime(g).members) if g.group_type == "classic" else bool(g.consumer_members)
