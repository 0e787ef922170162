"""The share-group coordinator side (KIP-932, ShareGroupHeartbeat), for real clients and for tests.

Unlike a consumer group, a share group's partitions are not owned: several members may read one partition
(records, not partitions, are handed out, by ShareFetch), so there is no revocation step.  Every change of
membership or subscriptions bumps the group epoch and recomputes the assignment with Kafka's "simple" share
assignor's observable rule: each subscribed partition goes to one member, round robin in member id order, and
when there are more members than partitions the partitions are shared so that every member has one.  A member
reaches the group epoch with its next heartbeat and the group is Stable as long as it has members, Empty
otherwise.  When members subscribe to a topic, the group's share-partition state for each of its partitions is
initialised (kadmin.testing.state.share_groups: at share.auto.offset.reset, latest by default).
"""

from __future__ import annotations

from kadmin.testing.state.base import ClusterState
from kadmin.testing.state.groups import ConsumerMember, Group, Groups
from kadmin.testing.state.share_groups import ShareStates
from kadmin.testing.state.topics import Topics

NONE = 0
GROUP_ID_NOT_FOUND = 69
#: Kafka's defaults: group.share.record.lock.duration.ms, group.share.delivery.count.limit,
#: group.share.partition.max.record.locks (records in flight per share-partition).
LOCK_DURATION_MS = 30000
DELIVERY_COUNT_LIMIT = 5
MAX_RECORD_LOCKS = 2000


def subscribed(state: ClusterState, m: ConsumerMember) -> list[str]:
    return sorted(t for t in m.subscribed_topic_names if t in state.area(Topics))


def compute_assignment(state: ClusterState, g: Group) -> None:
    """Bump the group epoch, give every member its partitions, initialise the share-partitions read now."""
    g.group_epoch += 1
    g.assignment_epoch = g.group_epoch
    members = sorted(g.consumer_members.values(), key=lambda m: m.member_id)
    got: dict[str, set[tuple[str, int]]] = {m.member_id: set() for m in members}
    topics = state.area(Topics)
    for t in sorted({t for m in members for t in subscribed(state, m)}):
        subs = [m.member_id for m in members if t in m.subscribed_topic_names]
        parts = sorted(topics[t].partitions)
        for i, p in enumerate(parts):
            got[subs[i % len(subs)]].add((t, p))
        for j, mid in enumerate(subs[len(parts):]):  # more members than partitions: share them
            got[mid].add((t, parts[j % len(parts)]))
    shares = state.area(ShareStates)
    for m in members:
        m.assigned = m.target = frozenset(got[m.member_id])
        for t, p in m.assigned:
            ps = topics[t].partitions[p]
            shares.initialize(g.group_id, t, p, ps.log_start, ps.log_end, ps.leader_epoch)
    g.state = "Stable" if g.consumer_members else "Empty"


def remove(state: ClusterState, g: Group, member_ids: list[str]) -> None:
    """Members gone (left, or their session expired): what they had acquired is available again.  Their share
    sessions stay until closed (a leaving consumer's last ShareAcknowledge, epoch -1, may come after its
    leave heartbeat)."""
    gone = [mid for mid in member_ids if g.consumer_members.pop(mid, None) is not None]
    if not gone:
        return
    shares = state.area(ShareStates)
    limit = delivery_limit(state)
    for sp in shares.get(g.group_id, {}).values():
        for mid in gone:
            sp.release_member(mid, limit)
    compute_assignment(state, g)


def delivery_limit(state: ClusterState) -> int:
    return int(state.area(Groups).config.get("group.share.delivery.count.limit", DELIVERY_COUNT_LIMIT))


def lock_seconds(state: ClusterState) -> float:
    return int(state.area(Groups).config.get("group.share.record.lock.duration.ms", LOCK_DURATION_MS)) / 1000.0


def group_for_heartbeat(state: ClusterState, group_id: str, epoch: int) -> tuple[int, str | None, Group | None]:
    """The share group a heartbeat is for, made by a first join; (error, message, group)."""
    g = state.area(Groups).get(group_id)
    if g is None or g.state == "Dead":
        if epoch != 0:
            return GROUP_ID_NOT_FOUND, f"Share group {group_id} not found.", None
        g = Group(group_id, state="Empty", protocol_type="share", group_type="share", assignor="simple")
        state.area(Groups)[group_id] = g
    if g.group_type != "share":
        return GROUP_ID_NOT_FOUND, f"Group {group_id} is not a share group.", None
    return NONE, None, g
