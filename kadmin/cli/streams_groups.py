"""``kadmin streams-groups list|describe|delete``: Kafka Streams groups (KIP-1071), like kafka-streams-groups.sh.

``describe`` shows the group (state, epochs, members) and, with ``--members``, each member's tasks; with
``--offsets``, the group's committed offsets; with ``--topology``, the subtopologies and their topics.  Output
follows ``kadmin groups``: one result per group, failures on stderr (table) or in an ``error`` field (JSON),
exit 1 when some group failed.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from kadmin.cli.groups import _choices, group_ids, report_deleted
from kadmin.cli.output import Column, JsonDict, error_json
from kadmin.errors import KafkaError
from kadmin.streams_groups import STREAMS_GROUP_STATES

if TYPE_CHECKING:
    from kadmin.cli.main import Context
    from kadmin.streams_groups import StreamsAssignment, StreamsGroupDescription, StreamsTasks


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("streams-groups", help="Kafka Streams groups (KIP-1071): list, describe, delete",
                       description="Streams group commands (Kafka 4.2+).")
    ssub = p.add_subparsers(dest="streams_groups_command", metavar="SUBCOMMAND", required=True)

    ls = ssub.add_parser("list", parents=[common], help="every streams group on every broker",
                         description="List the streams groups of every broker (ListGroups v5+ with the "
                                     "streams type; a broker that does not answer is reported).")
    ls.add_argument("--state", action="extend", nargs="+", metavar="S", default=[],
                    help=f"only groups in these states ({', '.join(STREAMS_GROUP_STATES)})")
    ls.set_defaults(run=run_list)

    ds = ssub.add_parser("describe", parents=[common], help="state, members, tasks and offsets of groups",
                         description="Describe streams groups (StreamsGroupDescribe).")
    ds.add_argument("group_ids", nargs="+", metavar="GROUP")
    ds.add_argument("--members", action="store_true", help="each member's process and active/standby/warm-up tasks")
    ds.add_argument("--offsets", action="store_true", help="the groups' committed offsets")
    ds.add_argument("--topology", action="store_true", help="the subtopologies and their topics")
    ds.add_argument("--include-authorized-operations", action="store_true",
                    help="also ask which operations this principal may perform on each group")
    ds.set_defaults(run=run_describe)

    dl = ssub.add_parser("delete", parents=[common], help="delete streams groups (they must be empty)",
                         description="Delete streams groups and their committed offsets (DeleteGroups).  Kafka "
                                     "refuses a group that has members (NON_EMPTY_GROUP); internal topics stay.")
    dl.add_argument("group_ids", nargs="+", metavar="GROUP")
    dl.set_defaults(run=run_delete)


def run_list(ctx: Context) -> int:
    states = _choices(ctx.args.state, STREAMS_GROUP_STATES, "state")
    with ctx.admin() as admin:
        res = admin.list_groups(types=["streams"], states=states or None)
    p = ctx.printer
    if p.json:
        p.emit("streams-groups list", {
            "groups": [{"group_id": g.group_id, "state": g.state, "coordinator": g.coordinator} for g in res.groups],
            "errors": [{"node_id": n, "error": error_json(e)} for n, e in sorted(res.errors.items())]})
    else:
        p.table([Column("GROUP", flex=True), Column("STATE"), Column("COORDINATOR", right=True)],
                [[g.group_id, g.state, g.coordinator] for g in res.groups])
        for n, e in sorted(res.errors.items()):
            p.key_error(f"node {n}", e)
        if res.errors:
            p.note(f"kadmin: the list is incomplete: {len(res.errors)} broker(s) answered with an error")
    return 1 if res.errors else 0


def _tasks_text(tasks: tuple[StreamsTasks, ...]) -> str | None:
    """``0:0,1 1:2``: tasks as subtopology:partitions."""
    return " ".join(f"{t.subtopology_id}:{','.join(map(str, t.partitions))}" for t in tasks) or None


def _tasks_json(tasks: tuple[StreamsTasks, ...]) -> list[JsonDict]:
    return [{"subtopology_id": t.subtopology_id, "partitions": list(t.partitions)} for t in tasks]


def _assignment_json(a: StreamsAssignment) -> JsonDict:
    return {"active": _tasks_json(a.active_tasks), "standby": _tasks_json(a.standby_tasks),
            "warmup": _tasks_json(a.warmup_tasks)}


def description_json(d: StreamsGroupDescription) -> JsonDict:
    return {
        "state": d.state, "group_epoch": d.group_epoch, "target_assignment_epoch": d.target_assignment_epoch,
        "topology_epoch": d.topology_epoch, "coordinator": d.coordinator, "assignor": d.assignor,
        "authorized_operations": sorted(d.authorized_operations) if d.authorized_operations is not None else None,
        "subtopologies": None if d.subtopologies is None else [
            {"subtopology_id": s.subtopology_id, "source_topics": list(s.source_topics),
             "repartition_sink_topics": list(s.repartition_sink_topics),
             "state_changelog_topics": [t.name for t in s.state_changelog_topics],
             "repartition_source_topics": [t.name for t in s.repartition_source_topics]}
            for s in d.subtopologies],
        "members": [{"member_id": m.member_id, "member_epoch": m.member_epoch, "process_id": m.process_id,
                     "client_id": m.client_id, "host": m.host, "instance_id": m.instance_id,
                     "user_endpoint": None if m.user_endpoint is None else f"{m.user_endpoint[0]}:{m.user_endpoint[1]}",
                     "is_classic": m.is_classic, "assignment": _assignment_json(m.assignment),
                     "target_assignment": _assignment_json(m.target_assignment)} for m in d.members],
    }


def run_describe(ctx: Context) -> int:
    ids = group_ids(ctx.args.group_ids)
    a = ctx.args
    offsets: dict[str, Any] = {}
    with ctx.admin() as admin:
        res = admin.describe_streams_groups(ids, include_authorized_operations=a.include_authorized_operations)
        found = [g for g in ids if not isinstance(res[g], KafkaError)]
        if a.offsets and found:
            offsets = dict(admin.list_streams_group_offsets(found))
    p = ctx.printer
    failed = [g for g in ids if isinstance(res[g], KafkaError)]
    failed += [g for g in found if isinstance(offsets.get(g), KafkaError)]
    if p.json:
        items: list[JsonDict] = []
        for g in ids:
            r = res[g]
            if isinstance(r, KafkaError):
                items.append({"group_id": g, "error": error_json(r)})
                continue
            item: JsonDict = {"group_id": g, "error": None, **description_json(r)}
            if a.offsets:
                o = offsets[g]
                item["offsets"] = {"error": error_json(o)} if isinstance(o, KafkaError) else [
                    {"topic": tp.topic, "partition": tp.partition,
                     **({"error": error_json(v)} if isinstance(v, KafkaError) else {"offset": v.offset})}
                    for tp, v in sorted(o.items())]
            items.append(item)
        p.emit("streams-groups describe", {"groups": items})
        return 1 if failed else 0
    ok: list[StreamsGroupDescription] = [r for g in ids if not isinstance(r := res[g], KafkaError)]
    if ok:
        p.table([Column("GROUP", flex=True), Column("STATE"), Column("GROUP-EPOCH", right=True),
                 Column("TARGET-EPOCH", right=True), Column("TOPOLOGY-EPOCH", right=True),
                 Column("COORDINATOR", right=True), Column("MEMBERS", right=True)],
                [[d.group_id, d.state, d.group_epoch, d.target_assignment_epoch, d.topology_epoch, d.coordinator,
                  len(d.members)] for d in ok])
    for d in ok:
        if a.topology and d.subtopologies is not None:
            p.lines(["", f"topology of {d.group_id} (epoch {d.topology_epoch}):"])
            p.table([Column("SUBTOPOLOGY"), Column("SOURCE-TOPICS", flex=True), Column("CHANGELOGS", flex=True),
                     Column("REPARTITION", flex=True)],
                    [[s.subtopology_id, ",".join(s.source_topics) or None,
                      ",".join(t.name for t in s.state_changelog_topics) or None,
                      ",".join(s.repartition_sink_topics) or None] for s in d.subtopologies])
        if a.members and d.members:
            p.lines(["", f"members of {d.group_id}:"])
            p.table([Column("MEMBER-ID", flex=True), Column("PROCESS", flex=True), Column("CLIENT-ID", flex=True),
                     Column("EPOCH", right=True), Column("ACTIVE", flex=True), Column("STANDBY", flex=True),
                     Column("WARMUP", flex=True)],
                    [[m.member_id, m.process_id, m.client_id, m.member_epoch,
                      _tasks_text(m.assignment.active_tasks), _tasks_text(m.assignment.standby_tasks),
                      _tasks_text(m.assignment.warmup_tasks)] for m in d.members])
        if a.offsets:
            o = offsets[d.group_id]
            if isinstance(o, KafkaError):
                continue
            p.lines(["", f"offsets of {d.group_id}:"])
            p.table([Column("TOPIC", flex=True), Column("PARTITION", right=True), Column("OFFSET", right=True)],
                    [[tp.topic, tp.partition, v if isinstance(v, KafkaError) else v.offset]
                     for tp, v in sorted(o.items())])
    for g in failed:
        err = res[g]
        p.key_error(g, err if isinstance(err, KafkaError) else offsets[g])
    return 1 if failed else 0


def run_delete(ctx: Context) -> int:
    ids = group_ids(ctx.args.group_ids)
    with ctx.admin() as admin:
        res = admin.delete_streams_groups(ids)
    return report_deleted(ctx, "streams-groups delete", ids, res)
