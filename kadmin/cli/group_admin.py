"""``kadmin groups reset-offsets|delete-offsets|remove-members``: writing to a group, kafka-consumer-groups.sh style.

``reset-offsets`` is a dry run unless ``--execute`` is given, as with kafka-consumer-groups.sh: it prints the plan
(current and new offset per partition) and writes nothing.  A group with active members is refused (exit 2,
nothing written).  Per-partition or per-member failures are exit 1, each on one stderr line; an API the brokers
do not have (OffsetDelete before 2.4, LeaveGroup v3 before 2.4) is exit 2.
"""

from __future__ import annotations

import argparse
import datetime as dt
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from kadmin.cli.config import UsageError
from kadmin.cli.output import Column, JsonDict, error_json, raise_if_all_refused
from kadmin.cli.spellings import add_group_flag, one
from kadmin.errors import GroupIdNotFoundError, KafkaError
from kadmin.offset_reset import MemberToRemove, PartitionReset, ResetTo, parse_duration
from kadmin.types import TopicPartition

if TYPE_CHECKING:
    from kadmin.cli.main import Context


def register(gsub: Any, common: argparse.ArgumentParser) -> None:
    rs = gsub.add_parser(
        "reset-offsets", parents=[common], help="reset a group's committed offsets (dry run unless --execute)",
        description="Plan (and with --execute, write) new committed offsets for an inactive group: every target "
                    "is clamped to the partition's [log start, log end].  Without --execute nothing is written.")
    rs.add_argument("group_id", nargs="?", metavar="GROUP")
    add_group_flag(rs, all_groups=False)
    which = rs.add_mutually_exclusive_group(required=True)
    which.add_argument("--topic", action="append", metavar="T[:P,...]",
                       help="a topic (all its partitions) or some of its partitions, e.g. orders:0,2; repeatable")
    which.add_argument("--all-topics", action="store_true",
                       help="every topic the group has committed offsets for (kafka-consumer-groups.sh's spelling)")
    add_reset_target(rs, "committed offset")
    rs.set_defaults(run=run_reset)

    do = gsub.add_parser(
        "delete-offsets", parents=[common], help="delete a group's committed offsets (Kafka 2.4+)",
        description="Delete committed offsets of a group (OffsetDelete).  A topic without partitions means "
                    "every partition the group has an offset for.  Kafka keeps the offsets of topics that live "
                    "members subscribe to (GROUP_SUBSCRIBED_TO_TOPIC).")
    do.add_argument("group_id", nargs="?", metavar="GROUP")
    add_group_flag(do, all_groups=False)
    do.add_argument("--topic", action="append", required=True, metavar="T[:P,...]",
                    help="a topic or some of its partitions; repeatable")
    do.set_defaults(run=run_delete_offsets)

    rm = gsub.add_parser(
        "remove-members", parents=[common], help="remove members from a group (Kafka 2.4+)",
        description="Remove members from a group in one LeaveGroup request: by member id, static members by "
                    "group instance id, or --all (the members it has now; static ones by instance id).")
    rm.add_argument("group_id", nargs="?", metavar="GROUP")
    add_group_flag(rm, all_groups=False)
    rm.add_argument("--member", action="append", default=[], metavar="MEMBER-ID", help="repeatable")
    rm.add_argument("--instance", action="append", default=[], metavar="INSTANCE-ID", help="repeatable")
    rm.add_argument("--all", action="store_true", help="every member the group has now")
    rm.add_argument("--reason", help="why (shown in the broker's log)")
    rm.set_defaults(run=run_remove_members)


def _one_group(ctx: Context, command: str, run: Any) -> int:
    """A single-group command whose group does not exist: a failed key (exit 1, one ``kadmin: GROUP: ...``
    line, or the group's ``error`` in JSON), as ``groups describe`` and ``groups offsets`` report it, not a
    failure of the whole command (exit 2)."""
    try:
        return int(run(ctx))
    except GroupIdNotFoundError as exc:
        gid = _group(ctx.args)
        if ctx.printer.json:
            ctx.printer.emit(command, {"group_id": gid, "error": error_json(exc)})
        else:
            ctx.printer.key_error(gid, exc)
        return 1


def _group(args: argparse.Namespace) -> str:
    text = one(args.group_id, args.group_flags, "group")
    if not text:
        raise UsageError("the group id is empty")
    return text


def topic_specs(specs: Sequence[str]) -> tuple[list[str], list[TopicPartition]]:
    """``orders`` (every partition) or ``orders:0,2`` per argument (Kafka topic names never contain ':')."""
    topics: list[str] = []
    parts: list[TopicPartition] = []
    for spec in specs:
        topic, sep, rest = spec.partition(":")
        if not topic:
            raise UsageError(f"no topic in {spec!r}")
        if not sep:
            topics.append(topic)
            continue
        for p in (x.strip() for x in rest.split(",")):
            if not p.isdigit():
                raise UsageError(f"partition {p!r} of {topic} is not a whole number >= 0")
            parts.append(TopicPartition(topic, int(p)))
        if not rest.strip(","):
            raise UsageError(f"no partitions after {topic}:")
    return list(dict.fromkeys(topics)), list(dict.fromkeys(parts))


def reset_target(args: argparse.Namespace) -> ResetTo:
    if args.to_earliest:
        return ResetTo.earliest()
    if args.to_latest:
        return ResetTo.latest()
    if args.to_datetime is not None:
        text = args.to_datetime.strip()
        try:
            when = dt.datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text)
        except ValueError:
            raise UsageError(f"--to-datetime {text!r} is not an ISO date-time like 2024-05-01T12:00:00Z") from None
        return ResetTo.datetime(when if when.tzinfo is not None else when.astimezone())
    if args.by_duration is not None:
        try:
            return ResetTo.duration(parse_duration(args.by_duration))
        except ValueError as exc:
            raise UsageError(f"--by-duration: {exc}") from None
    if args.shift_by is not None:
        return ResetTo.shift_by(args.shift_by)
    if args.to_current:
        return ResetTo.shift_by(0)
    if args.to_offset < 0:
        raise UsageError("--to-offset must be >= 0")
    return ResetTo.offset(args.to_offset)


def add_reset_target(rs: argparse.ArgumentParser, current: str) -> None:
    """The target options of a reset (kafka-consumer-groups.sh's and kafka-share-groups.sh's spellings) and its
    --execute / --dry-run pair; ``current`` names what --shift-by and --to-current start from."""
    to = rs.add_mutually_exclusive_group(required=True)
    to.add_argument("--to-earliest", action="store_true", help="the log start")
    to.add_argument("--to-latest", action="store_true", help="the log end")
    to.add_argument("--to-datetime", metavar="ISO", help="the first offset at or after this time, e.g. "
                    "2024-05-01T12:00:00Z (without a zone: local time)")
    to.add_argument("--by-duration", metavar="PnDTnHnM", help="that long before now, e.g. P1DT2H or PT30M")
    to.add_argument("--shift-by", type=int, metavar="N", help=f"the {current} plus N (negative: back)")
    to.add_argument("--to-offset", type=int, metavar="N", help="offset N")
    to.add_argument("--to-current", action="store_true", help=f"the {current} (a shift by 0)")
    rs.add_argument("--execute", action="store_true", help="write the new offsets (default: dry run)")
    rs.add_argument("--dry-run", action="store_true", help="only show the plan (the default)")


def run_reset(ctx: Context) -> int:
    return _one_group(ctx, "groups reset-offsets", _run_reset)


def _run_reset(ctx: Context) -> int:
    gid = _group(ctx.args)
    topics, parts = topic_specs(ctx.args.topic or [])
    to = reset_target(ctx.args)
    if ctx.args.execute and ctx.args.dry_run:
        raise UsageError("--execute and --dry-run contradict each other")
    dry = not ctx.args.execute
    with ctx.admin() as admin:
        if ctx.args.all_topics:
            committed = admin.list_consumer_group_offsets([gid])[gid]
            if isinstance(committed, KafkaError):
                raise committed
            topics = sorted({tp.topic for tp in committed})
            if not topics:
                ctx.printer.note(f"kadmin: group {gid} has no committed offsets: nothing to reset")
                return 0
        plan = admin.reset_consumer_group_offsets(gid, [*topics, *parts], to, dry_run=dry)
    rows: list[JsonDict] = []
    for tp, r in sorted(plan.partitions.items()):
        if isinstance(r, KafkaError):
            rows.append({"topic": tp.topic, "partition": tp.partition, "error": error_json(r)})
        else:
            rows.append({"topic": tp.topic, "partition": tp.partition, "error": None, "current_offset": r.current,
                         "new_offset": r.target, "log_start": r.log_start, "log_end": r.log_end,
                         "clamped": r.clamped, "applied": r.applied})
    p = ctx.printer
    if p.json:
        p.emit("groups reset-offsets", {
            "group_id": gid, "to": str(to), "dry_run": dry, "partitions": rows,
            "topics": [{"topic": t, "error": error_json(e)} for t, e in sorted(plan.topics.items())]})
        return 0 if plan.complete else 1
    p.table([Column("GROUP", flex=True), Column("TOPIC", flex=True), Column("PARTITION", right=True),
             Column("CURRENT-OFFSET", right=True), Column("NEW-OFFSET", right=True), Column("NOTE")],
            [[gid, r["topic"], r["partition"], r["current_offset"], r["new_offset"],
              "clamped to the log" if r["clamped"] else None] for r in rows if r["error"] is None])
    for tp, r in sorted(plan.partitions.items()):
        if isinstance(r, KafkaError):
            ctx.printer.key_error(str(tp), r)
    for t, e in sorted(plan.topics.items()):
        ctx.printer.key_error(t, e)
    if dry:
        p.note("kadmin: dry run: nothing was written (add --execute to write these offsets)")
    else:
        written = sum(1 for r in plan.partitions.values() if isinstance(r, PartitionReset) and r.applied)
        p.note(f"kadmin: wrote {written} partition offset(s) of group {gid}")
    return 0 if plan.complete else 1


def run_delete_offsets(ctx: Context) -> int:
    return _one_group(ctx, "groups delete-offsets", _run_delete_offsets)


def _run_delete_offsets(ctx: Context) -> int:
    gid = _group(ctx.args)
    topics, parts = topic_specs(ctx.args.topic)
    with ctx.admin() as admin:
        if topics:
            committed = admin.list_consumer_group_offsets([gid])[gid]
            if isinstance(committed, KafkaError):
                raise committed
            parts += [tp for tp in sorted(committed) if tp.topic in topics and tp not in parts]
        if not parts:
            ctx.printer.note(f"kadmin: group {gid} has no committed offsets for {', '.join(topics)}")
            return 0
        res = admin.delete_consumer_group_offsets(gid, parts)
    raise_if_all_refused(res)
    p = ctx.printer
    failed = {tp: e for tp, e in res.items() if e is not None}
    if p.json:
        p.emit("groups delete-offsets", {"group_id": gid, "partitions": [
            {"topic": tp.topic, "partition": tp.partition, "error": error_json(e) if e is not None else None}
            for tp, e in sorted(res.items())]})
        return 1 if failed else 0
    done = [tp for tp, e in sorted(res.items()) if e is None]
    if done:
        p.table([Column("GROUP", flex=True), Column("TOPIC", flex=True), Column("PARTITION", right=True),
                 Column("RESULT")], [[gid, tp.topic, tp.partition, "deleted"] for tp in done])
    for tp, e in sorted(failed.items()):
        p.key_error(str(tp), e)
    return 1 if failed else 0


def run_remove_members(ctx: Context) -> int:
    return _one_group(ctx, "groups remove-members", _run_remove_members)


def _run_remove_members(ctx: Context) -> int:
    gid = _group(ctx.args)
    wanted = [MemberToRemove(m) for m in ctx.args.member] + \
        [MemberToRemove("", i) for i in ctx.args.instance]
    if bool(wanted) == bool(ctx.args.all):
        raise UsageError("name the members to remove (--member, --instance) or give --all, not both")
    with ctx.admin() as admin:
        res = admin.remove_members_from_consumer_group(gid, None if ctx.args.all else wanted,
                                                       reason=ctx.args.reason)
    raise_if_all_refused(res)
    p = ctx.printer
    failed = {m: e for m, e in res.items() if e is not None}
    if p.json:
        p.emit("groups remove-members", {"group_id": gid, "members": [
            {"member_id": m.member_id or None, "group_instance_id": m.group_instance_id,
             "error": error_json(e) if e is not None else None} for m, e in res.items()]})
        return 1 if failed else 0
    if not res:
        p.note(f"kadmin: group {gid} has no members")
    removed = [m for m, e in res.items() if e is None]
    if removed:
        p.table([Column("GROUP", flex=True), Column("MEMBER-ID", flex=True), Column("INSTANCE-ID", flex=True),
                 Column("RESULT")], [[gid, m.member_id or None, m.group_instance_id, "removed"] for m in removed])
    for m, e in failed.items():
        p.key_error(str(m), e)
    return 1 if failed else 0
