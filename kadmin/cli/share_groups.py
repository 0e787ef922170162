"""``kadmin share-groups list|describe|reset-offsets|delete-offsets|delete``: share groups (KIP-932), as
kafka-share-groups.sh manages them.

* ``list``: the share groups of every broker (ListGroups with the type filter "share", Kafka 3.8+ brokers);
* ``describe GROUP...``: ``--offsets`` (the default: each partition's start offset and, from Kafka 4.2, lag),
  ``--members`` (member id, host, client id, epoch and partitions) or ``--state`` (coordinator, state, epochs,
  number of members);
* ``reset-offsets GROUP... --to-earliest|--to-latest|--to-datetime|--to-offset|...``: a dry run (the plan
  only) unless ``--execute``; ``--topic`` names topics or partitions, without it every partition the group
  has a start offset in.  A group with members is refused with the broker's error (NON_EMPTY_GROUP) and
  nothing of it is written, while the other groups go ahead;
* ``delete-offsets GROUP --topic T...``: forget the group's start offsets of whole topics;
* ``delete GROUP...``: delete empty share groups.

Per-key results as everywhere in the CLI: JSON has one object per group (or partition, topic) with an
``error`` field; in a table successes go to stdout and each failure is one line on stderr; exit 0 when every
key succeeded, 1 when some failed, 2 when nothing could run (bad input before connecting, or no broker
speaking the API: share groups need Kafka 4.1+).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from kadmin.admin.groups import GROUP_STATES
from kadmin.cli.config import UsageError
from kadmin.cli.group_admin import add_reset_target, reset_target, topic_specs
from kadmin.cli.groups import _compact, _tps, group_ids, report_deleted
from kadmin.cli.output import Column, JsonDict, error_json, raise_if_all_refused
from kadmin.errors import KafkaError, UnsupportedVersionError
from kadmin.offset_reset import OffsetResetPlan, PartitionReset

if TYPE_CHECKING:
    from kadmin.cli.main import Context
    from kadmin.share_groups import SharePartitionOffset
    from kadmin.types import GroupDescription


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("share-groups", help="share groups (KIP-932): list, describe, reset-offsets, delete",
                       description="Share group commands, like kafka-share-groups.sh (Kafka 4.1+ brokers).")
    ssub = p.add_subparsers(dest="share_groups_command", metavar="SUBCOMMAND", required=True)

    ls = ssub.add_parser("list", parents=[common], help="every share group on every broker",
                         description="List the share groups of every broker.")
    ls.add_argument("--state", action="extend", nargs="+", metavar="S", default=[],
                    help="only groups in these states (Empty, Stable, Dead)")
    ls.set_defaults(run=run_list)

    ds = ssub.add_parser("describe", parents=[common], help="offsets, members or state of share groups",
                         description="Describe share groups: each partition's start offset and lag (the "
                                     "default, --offsets), the members (--members) or the state (--state).")
    ds.add_argument("group_ids", nargs="+", metavar="GROUP")
    what = ds.add_mutually_exclusive_group()
    what.add_argument("--offsets", action="store_true", help="start offset and lag per partition (default)")
    what.add_argument("--members", action="store_true", help="members and the partitions each shares")
    what.add_argument("--state", action="store_true", help="coordinator, state, epochs, member count")
    ds.set_defaults(run=run_describe)

    rs = ssub.add_parser(
        "reset-offsets", parents=[common], help="reset share groups' start offsets (dry run unless --execute)",
        description="Plan (and with --execute, write) new start offsets for share groups without members: every "
                    "target is clamped to the partition's [log start, log end].  Without --execute nothing is "
                    "written.")
    rs.add_argument("group_ids", nargs="+", metavar="GROUP")
    rs.add_argument("--topic", action="append", default=[], metavar="T[:P,...]",
                    help="a topic (all its partitions) or some of its partitions, e.g. orders:0,2; repeatable "
                         "(default: every partition the group has a start offset in)")
    add_reset_target(rs, "start offset")
    rs.set_defaults(run=run_reset)

    do = ssub.add_parser("delete-offsets", parents=[common], help="forget a share group's offsets of topics",
                         description="Delete a share group's start offsets for whole topics; members that "
                                     "subscribe later start from the group's share.auto.offset.reset.  The "
                                     "group must have no members.")
    do.add_argument("group_id", metavar="GROUP")
    do.add_argument("--topic", action="append", required=True, metavar="TOPIC", help="repeatable")
    do.set_defaults(run=run_delete_offsets)

    dl = ssub.add_parser("delete", parents=[common], help="delete share groups (they must be empty)",
                         description="Delete share groups and their start offsets.  Kafka refuses to delete a "
                                     "group that has members (NON_EMPTY_GROUP).")
    dl.add_argument("group_ids", nargs="+", metavar="GROUP")
    dl.set_defaults(run=run_delete)


def _states(values: list[str]) -> list[str]:
    by_lower = {s.lower(): s for s in GROUP_STATES}
    out: list[str] = []
    for v in values:
        known = by_lower.get(v.strip().lower())
        if known is None:
            raise UsageError(f"unknown group state {v!r}; one of {', '.join(GROUP_STATES)}")
        out.append(known)
    return list(dict.fromkeys(out))


# --- list -----------------------------------------------------------------------------------------------------


def run_list(ctx: Context) -> int:
    states = _states(ctx.args.state)
    with ctx.admin() as admin:
        res = admin.list_consumer_groups(states=states or None, types=["share"])
        refused = [e for e in res.errors.values() if isinstance(e, UnsupportedVersionError)]
        if refused and len(refused) == len(res.errors) and not res.groups:
            if {n.node_id for n in admin.describe_cluster().nodes} <= set(res.errors):
                raise refused[0]  # no broker could be asked (ListGroups' type filter needs Kafka 3.8+): exit 2
    groups = [{"group_id": g.group_id, "state": g.state, "coordinator": g.coordinator} for g in res.groups]
    p = ctx.printer
    if p.json:
        p.emit("share-groups list", {"groups": groups, "errors": [
            {"node_id": n, "error": error_json(e)} for n, e in sorted(res.errors.items())]})
        return 1 if res.errors else 0
    p.table([Column("GROUP", flex=True), Column("STATE"), Column("COORDINATOR", right=True)],
            [[g["group_id"], g["state"], g["coordinator"]] for g in groups])
    for n, e in sorted(res.errors.items()):
        p.key_error(f"node {n}", e)
    return 1 if res.errors else 0


# --- describe -------------------------------------------------------------------------------------------------


def _offsets_json(offsets: dict[Any, SharePartitionOffset | KafkaError]) -> list[JsonDict]:
    rows: list[JsonDict] = []
    for tp, v in sorted(offsets.items()):
        if isinstance(v, KafkaError):
            rows.append({"topic": tp.topic, "partition": tp.partition, "error": error_json(v)})
        else:
            rows.append({"topic": tp.topic, "partition": tp.partition, "error": None,
                         "start_offset": v.start_offset, "leader_epoch": v.leader_epoch, "lag": v.lag})
    return rows


def _state_json(d: GroupDescription) -> JsonDict:
    return {"state": d.state, "coordinator": d.coordinator, "group_epoch": d.group_epoch,
            "assignment_epoch": d.assignment_epoch, "assignor": d.protocol, "members": len(d.members)}


def _members_json(d: GroupDescription) -> list[JsonDict]:
    return [{"member_id": m.member_id, "client_id": m.client_id, "host": m.host, "rack_id": m.rack_id,
             "member_epoch": m.member_epoch, "subscribed_topics": list(m.subscribed_topic_names),
             "assignment": _tps(m.current_assignment)} for m in d.members]


def run_describe(ctx: Context) -> int:
    ids = group_ids(ctx.args.group_ids)
    mode = "members" if ctx.args.members else "state" if ctx.args.state else "offsets"
    with ctx.admin() as admin:
        res: dict[str, Any] = (dict(admin.list_share_group_offsets(ids)) if mode == "offsets"
                               else dict(admin.describe_share_groups(ids)))
    raise_if_all_refused(res)
    p = ctx.printer
    failed = [(g, r) for g in ids if isinstance(r := res[g], KafkaError)]
    if p.json:
        items: list[JsonDict] = []
        for g in ids:
            r = res[g]
            if isinstance(r, KafkaError):
                items.append({"group_id": g, "error": error_json(r)})
            elif mode == "offsets":
                items.append({"group_id": g, "error": None, "offsets": _offsets_json(r)})
            elif mode == "members":
                items.append({"group_id": g, "error": None, "members": _members_json(r)})
            else:
                items.append({"group_id": g, "error": None, **_state_json(r)})
        p.emit(f"share-groups describe --{mode}", {"groups": items})
        return 1 if failed else 0
    ok = [(g, res[g]) for g in ids if not isinstance(res[g], KafkaError)]
    if mode == "offsets":
        rows: list[list[object]] = []
        for g, r in ok:
            for tp, v in sorted(r.items()):
                if isinstance(v, KafkaError):
                    p.key_error(f"{g} {tp}", v)
                else:
                    rows.append([g, tp.topic, tp.partition, v.leader_epoch, v.start_offset,
                                 "-" if v.lag is None else v.lag])
            if not r:
                p.note(f"kadmin: share group {g} has no start offsets (it has not read any partition yet)")
        p.table([Column("GROUP", flex=True), Column("TOPIC", flex=True), Column("PARTITION", right=True),
                 Column("LEADER-EPOCH", right=True), Column("START-OFFSET", right=True), Column("LAG", right=True)],
                rows)
    elif mode == "state":
        p.table([Column("GROUP", flex=True), Column("COORDINATOR", right=True), Column("STATE"),
                 Column("GROUP-EPOCH", right=True), Column("ASSIGNMENT-EPOCH", right=True),
                 Column("MEMBERS", right=True)],
                [[g, d.coordinator, d.state, d.group_epoch, d.assignment_epoch, len(d.members)] for g, d in ok])
    else:
        p.table([Column("GROUP", flex=True), Column("MEMBER-ID", flex=True), Column("HOST", flex=True),
                 Column("CLIENT-ID", flex=True), Column("PARTITIONS", right=True), Column("MEMBER-EPOCH", right=True),
                 Column("ASSIGNMENT", flex=True)],
                [[g, m.member_id, m.host, m.client_id, len(m.current_assignment), m.member_epoch,
                  _compact(m.current_assignment) or None] for g, d in ok for m in d.members])
        for g, d in ok:
            if not d.members:
                p.note(f"kadmin: share group {g} has no members ({d.state})")
    for g, err in failed:
        p.key_error(g, err)
    return 1 if failed else 0


# --- reset-offsets --------------------------------------------------------------------------------------------


def _plan_rows(plan: OffsetResetPlan) -> list[JsonDict]:
    rows: list[JsonDict] = []
    for tp, r in sorted(plan.partitions.items()):
        if isinstance(r, KafkaError):
            rows.append({"topic": tp.topic, "partition": tp.partition, "error": error_json(r)})
        else:
            rows.append({"topic": tp.topic, "partition": tp.partition, "error": None, "current_offset": r.current,
                         "new_offset": r.target, "log_start": r.log_start, "log_end": r.log_end,
                         "clamped": r.clamped, "applied": r.applied})
    return rows


def run_reset(ctx: Context) -> int:
    ids = group_ids(ctx.args.group_ids)
    topics, parts = topic_specs(ctx.args.topic)
    to = reset_target(ctx.args)
    if ctx.args.execute and ctx.args.dry_run:
        raise UsageError("--execute and --dry-run contradict each other")
    dry = not ctx.args.execute
    scope: list[Any] | None = [*topics, *parts] or None
    plans: dict[str, OffsetResetPlan | KafkaError] = {}
    with ctx.admin() as admin:
        for g in ids:
            try:
                plans[g] = admin.reset_share_group_offsets(g, scope, to, dry_run=dry)
            except KafkaError as exc:  # this group's answer (NON_EMPTY_GROUP...): the others go ahead
                plans[g] = exc
    if all(isinstance(r, UnsupportedVersionError) for r in plans.values()):
        raise next(iter(plans.values()))  # type: ignore[misc]
    failed = [g for g, r in plans.items() if isinstance(r, KafkaError) or not r.complete]
    p = ctx.printer
    if p.json:
        items: list[JsonDict] = []
        for g, r in plans.items():
            if isinstance(r, KafkaError):
                items.append({"group_id": g, "error": error_json(r)})
            else:
                items.append({"group_id": g, "error": None, "partitions": _plan_rows(r), "topics": [
                    {"topic": t, "error": error_json(e)} for t, e in sorted(r.topics.items())]})
        p.emit("share-groups reset-offsets", {"to": str(to), "dry_run": dry, "groups": items})
        return 1 if failed else 0
    rows: list[list[object]] = []
    for g, r in plans.items():
        if isinstance(r, KafkaError):
            continue
        rows += [[g, row["topic"], row["partition"], row["current_offset"], row["new_offset"],
                  "clamped to the log" if row["clamped"] else None] for row in _plan_rows(r) if row["error"] is None]
    p.table([Column("GROUP", flex=True), Column("TOPIC", flex=True), Column("PARTITION", right=True),
             Column("START-OFFSET", right=True), Column("NEW-OFFSET", right=True), Column("NOTE")], rows)
    for g, r in plans.items():
        if isinstance(r, KafkaError):
            p.key_error(g, r)
            continue
        for tp, e in sorted(r.errors.items(), key=lambda kv: str(kv[0])):
            p.key_error(f"{g} {tp}", e)
    if dry:
        p.note("kadmin: dry run: nothing was written (add --execute to write these offsets)")
    else:
        written = sum(1 for r in plans.values() if not isinstance(r, KafkaError)
                      for x in r.partitions.values() if isinstance(x, PartitionReset) and x.applied)
        p.note(f"kadmin: wrote {written} start offset(s)")
    return 1 if failed else 0


# --- delete-offsets, delete -----------------------------------------------------------------------------------


def run_delete_offsets(ctx: Context) -> int:
    gid = group_ids([ctx.args.group_id])[0]
    topics = list(dict.fromkeys(ctx.args.topic))
    if any(":" in t or not t for t in topics):
        raise UsageError("--topic takes whole topics (a share group's offsets are deleted per topic)")
    with ctx.admin() as admin:
        res = admin.delete_share_group_offsets(gid, topics)
    raise_if_all_refused(res)
    failed = {t: e for t, e in res.items() if e is not None}
    p = ctx.printer
    if p.json:
        p.emit("share-groups delete-offsets", {"group_id": gid, "topics": [
            {"topic": t, "error": error_json(e) if e is not None else None} for t, e in res.items()]})
        return 1 if failed else 0
    done = [t for t, e in res.items() if e is None]
    if done:
        p.table([Column("GROUP", flex=True), Column("TOPIC", flex=True), Column("RESULT")],
                [[gid, t, "deleted"] for t in done])
    for t, e in failed.items():
        p.key_error(t, e)
    return 1 if failed else 0


def run_delete(ctx: Context) -> int:
    ids = group_ids(ctx.args.group_ids)
    with ctx.admin() as admin:
        res = admin.delete_share_groups(ids)
    raise_if_all_refused(res)
    return report_deleted(ctx, "share-groups delete", ids, res)
