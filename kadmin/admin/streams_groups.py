"""Streams groups (KIP-1071): StreamsGroupDescribe, one request per coordinator for all of its groups.

A coordinator whose broker does not speak StreamsGroupDescribe (before Kafka 4.2, or 4.1 with the early-access
feature off) fails each of its groups with UnsupportedVersionError without a request (the driver's rule for an
API the node does not advertise).  A group of another type is GROUP_ID_NOT_FOUND, as Kafka answers it.
"""

from __future__ import annotations

from typing import Any

from kadmin.admin.groups import DescribeByCoordinator
from kadmin.protocol.apis import ApiKey
from kadmin.streams_groups import (
    StreamsAssignment,
    StreamsGroupDescription,
    StreamsGroupMember,
    StreamsSubtopology,
    StreamsTaskOffset,
    StreamsTasks,
    StreamsTopicInfo,
)
from kadmin.types import decode_authorized_operations

#: The release that made streams groups (StreamsGroupDescribe) generally available, for the error a coordinator
#: without them gets, and a note.
RELEASE_ADDING = ("4.2", "; 4.1 has it only as early access, with streams groups switched on")


def _tasks(items: Any) -> tuple[StreamsTasks, ...]:
    return tuple(StreamsTasks(t.subtopology_id, tuple(t.partitions)) for t in items or ())


def _assignment(a: Any) -> StreamsAssignment:
    if a is None:
        return StreamsAssignment()
    return StreamsAssignment(_tasks(a.active_tasks), _tasks(a.standby_tasks), _tasks(a.warmup_tasks))


def _topic_infos(items: Any) -> tuple[StreamsTopicInfo, ...]:
    return tuple(StreamsTopicInfo(t.name, t.partitions, t.replication_factor,
                                  {kv.key: kv.value for kv in t.topic_configs or ()}) for t in items or ())


def _offsets(items: Any) -> tuple[StreamsTaskOffset, ...]:
    return tuple(StreamsTaskOffset(o.subtopology_id, o.partition, o.offset) for o in items or ())


def _member(m: Any) -> StreamsGroupMember:
    ep = m.user_endpoint
    return StreamsGroupMember(
        member_id=m.member_id, member_epoch=m.member_epoch, instance_id=m.instance_id, rack_id=m.rack_id,
        client_id=m.client_id, host=m.client_host, topology_epoch=m.topology_epoch, process_id=m.process_id,
        user_endpoint=None if ep is None else (ep.host, ep.port),
        client_tags={kv.key: kv.value for kv in m.client_tags or ()},
        task_offsets=_offsets(m.task_offsets), task_end_offsets=_offsets(m.task_end_offsets),
        assignment=_assignment(m.assignment), target_assignment=_assignment(m.target_assignment),
        is_classic=bool(m.is_classic))


class StreamsGroupDescribe(DescribeByCoordinator):
    """Streams group descriptions: members, topology and task assignments."""

    api = ApiKey.STREAMS_GROUP_DESCRIBE

    def _description(self, node: int, g: Any, version: int) -> StreamsGroupDescription:
        topo = g.topology
        subs = None
        if topo is not None and topo.subtopologies is not None:
            subs = tuple(StreamsSubtopology(s.subtopology_id, tuple(s.source_topics),
                                            tuple(s.repartition_sink_topics), _topic_infos(s.state_changelog_topics),
                                            _topic_infos(s.repartition_source_topics))
                         for s in topo.subtopologies)
        return StreamsGroupDescription(
            group_id=g.group_id, state=g.group_state, group_epoch=g.group_epoch,
            target_assignment_epoch=g.assignment_epoch, topology_epoch=None if topo is None else topo.epoch,
            subtopologies=subs, members=tuple(_member(m) for m in g.members), coordinator=node,
            authorized_operations=decode_authorized_operations(g.authorized_operations) if self.include_ops else None,
            assignor=(g.assignor_name or None) if version >= 1 else None)


__all__ = ["StreamsGroupDescribe"]
