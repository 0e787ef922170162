"""The consumer group protocol's coordinator side (KIP-848, ConsumerGroupHeartbeat), for real clients.

The coordinator, not a client, assigns partitions.  Every change of membership or subscriptions bumps the
group epoch and recomputes the target assignment at once (so the assignment epoch follows the group epoch and
a group is never seen "Assigning").  Each member then reconciles through its heartbeats, as in Kafka's
CurrentAssignmentBuilder, reduced to its observable rules:

* a member first gives up what its target no longer holds ("revoking") and keeps its epoch until a heartbeat
  shows it no longer owns those partitions;
* it then moves to the assignment epoch and gets every target partition that no other member still holds;
  partitions another member has not released yet come with a later heartbeat;
* the assignment travels in a heartbeat answer only when it changed.

Assignors: "uniform" (the default: partitions spread evenly, members taken in id order) and "range"
(contiguous partitions of each topic), as Kafka's group.consumer.assignors.  Members that stop heartbeating
expire after group.consumer.session.timeout.ms; seeded members (``FakeCluster.add_group``) never do.
"""

from __future__ import annotations

import base64
import re
import time
import uuid
from collections.abc import Iterable

from kadmin.testing import share_groups
from kadmin.testing.state.base import ClusterState
from kadmin.testing.state.groups import ConsumerMember, Group, Groups
from kadmin.testing.state.topics import Topics

NONE = 0
UNKNOWN_MEMBER_ID = 25
INVALID_REQUEST = 42
GROUP_ID_NOT_FOUND = 69
FENCED_MEMBER_EPOCH = 110
UNSUPPORTED_ASSIGNOR = 112

#: Kafka's defaults (group.consumer.*); a test may lower them with FakeCluster.set_group_config.
DEFAULT_CONFIG = {
    "group.consumer.heartbeat.interval.ms": 5000,
    "group.consumer.session.timeout.ms": 45000,
    "group.share.heartbeat.interval.ms": 5000,
    "group.share.session.timeout.ms": 45000,
    "group.share.record.lock.duration.ms": share_groups.LOCK_DURATION_MS,
    "group.share.delivery.count.limit": share_groups.DELIVERY_COUNT_LIMIT,
}
ASSIGNORS = ("uniform", "range")

TopicPartition = tuple[str, int]


def config(state: ClusterState, key: str) -> int:
    return int(state.area(Groups).config.get(key, DEFAULT_CONFIG[key]))


def new_member_id() -> str:
    """Kafka's Uuid.toString(): the 16 bytes in URL-safe base64 without padding."""
    return base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")


# --- target assignment ----------------------------------------------------------------------------------


def subscribed_topics(state: ClusterState, m: ConsumerMember) -> list[str]:
    names = {t for t in m.subscribed_topic_names if t in state.area(Topics)}
    if m.subscribed_topic_regex:
        try:
            pattern = re.compile(m.subscribed_topic_regex)
        except re.error:
            pattern = None
        if pattern is not None:
            names |= {t for t, topic in state.area(Topics).items() if not topic.internal and pattern.fullmatch(t)}
    return sorted(names)


def compute_target(state: ClusterState, g: Group) -> None:
    """Bump the group epoch and give every member its target partitions."""
    g.group_epoch += 1
    g.assignment_epoch = g.group_epoch
    members = sorted(g.consumer_members.values(), key=lambda m: m.member_id)
    wants = {m.member_id: subscribed_topics(state, m) for m in members}
    targets: dict[str, set[TopicPartition]] = {m.member_id: set() for m in members}
    topics = sorted({t for ts in wants.values() for t in ts})
    if g.assignor == "range":
        for t in topics:
            subs = [m.member_id for m in members if t in wants[m.member_id]]
            parts = sorted(state.area(Topics)[t].partitions)
            per, extra = divmod(len(parts), len(subs))
            start = 0
            for i, mid in enumerate(subs):
                n = per + (1 if i < extra else 0)
                targets[mid].update((t, p) for p in parts[start:start + n])
                start += n
    else:
        for t in topics:
            for p in sorted(state.area(Topics)[t].partitions):
                subs = [m.member_id for m in members if t in wants[m.member_id]]
                least = min(subs, key=lambda mid: (len(targets[mid]), mid))
                targets[least].add((t, p))
    for m in members:
        m.target = frozenset(targets[m.member_id])
    refresh_state(g)


def refresh_state(g: Group) -> None:
    """Empty, Reconciling or Stable, from the members' progress (ConsumerGroup.maybeUpdateGroupState)."""
    if not g.consumer_members:
        g.state = "Empty"
    elif all(m.member_epoch == g.assignment_epoch and m.assigned == m.target and not m.revoking
             for m in g.consumer_members.values()):
        g.state = "Stable"
    else:
        g.state = "Reconciling"


def reconcile(g: Group, m: ConsumerMember, owned: Iterable[TopicPartition] | None) -> None:
    """Move the member towards its target: revoke first, then take what others have released."""
    if owned is not None:
        m.revoking = m.revoking & frozenset(owned)
    dropped = m.assigned - m.target
    if dropped:
        m.revoking |= dropped
        m.assigned -= dropped
    if not m.revoking:
        held: set[tuple[str, int]] = set()
        for other in g.consumer_members.values():
            if other.member_id != m.member_id:
                held |= other.assigned | other.revoking
        m.assigned |= m.target - held
        if m.member_epoch != g.assignment_epoch:
            m.previous_member_epoch, m.member_epoch = m.member_epoch, g.assignment_epoch
    refresh_state(g)


# --- membership -----------------------------------------------------------------------------------------


def remove(state: ClusterState, g: Group, member_ids: Iterable[str]) -> None:
    changed = False
    for mid in member_ids:
        if g.consumer_members.pop(mid, None) is not None:
            changed = True
    if changed:
        compute_target(state, g)


def expire(state: ClusterState, g: Group, now: float | None = None) -> None:
    if g.group_type not in ("consumer", "share") or not g.consumer_members:
        return
    now = time.monotonic() if now is None else now
    limit = config(state, f"group.{g.group_type}.session.timeout.ms") / 1000.0
    dead = [m.member_id for m in g.consumer_members.values() if m.last_seen is not None and now - m.last_seen > limit]
    if dead and g.group_type == "share":
        share_groups.remove(state, g, dead)  # no revocation in a share group (kadmin.testing.share_groups)
    elif dead:
        remove(state, g, dead)


def leave(state: ClusterState, g: Group, member_id: str, instance_id: str | None) -> tuple[int, str]:
    """LeaveGroup (v3+) against a consumer-protocol group: by instance id when given, as Kafka 4.x does."""
    if instance_id is not None:
        found = next((m.member_id for m in g.consumer_members.values() if m.instance_id == instance_id), None)
        if found is None:
            return UNKNOWN_MEMBER_ID, member_id
        if member_id and member_id != found:
            return 82, member_id  # FENCED_INSTANCE_ID
        remove(state, g, [found])
        return NONE, found
    if member_id not in g.consumer_members:
        return UNKNOWN_MEMBER_ID, member_id
    remove(state, g, [member_id])
    return NONE, member_id


def assignment_changed(m: ConsumerMember) -> bool:
    """True (and remembered) when the member must be sent its assignment."""
    if m.last_sent == m.assigned:
        return False
    m.last_sent = m.assigned
    return True


def group_for_heartbeat(state: ClusterState, group_id: str, epoch: int) -> tuple[int, str | None, Group | None]:
    """The group a heartbeat is for, created by a first join; (error, message, group)."""
    g = state.area(Groups).get(group_id)
    if g is not None and g.group_type == "classic" and not g.members and g.state in ("Empty", "Dead"):
        # Kafka converts an empty classic group (offsets kept) when a consumer-protocol member joins.
        g.group_type, g.protocol_type, g.protocol, g.runtime = "consumer", "consumer", "", None
        g.state = "Empty"
    if g is None or g.state == "Dead":
        if epoch != 0:
            return GROUP_ID_NOT_FOUND, f"Consumer group {group_id} not found.", None
        g = Group(group_id, state="Empty", protocol_type="consumer", group_type="consumer", assignor="uniform")
        state.area(Groups)[group_id] = g
    if g.group_type != "consumer":
        return GROUP_ID_NOT_FOUND, f"Group {group_id} is not a consumer group.", None
    return NONE, None, g
