"""``kadmin groups list|describe|delete|offsets``: consumer groups, one result per group.

Why per-key output: the library returns a result or an error for every group, and so does the CLI.  In JSON
every group is one object with an ``error`` field (null on success); in a table, successes go to stdout and
each failed group is one line on stderr, so that ``kadmin groups describe a b c`` with one bad id still shows
the other two, and exits 1 to say something needs a look.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from kadmin.cli import group_admin
from kadmin.cli.config import UsageError
from kadmin.cli.output import Column, JsonDict, error_json
from kadmin.cli.spellings import add_group_flag, merged
from kadmin.errors import GroupIdNotFoundError, KafkaError, UnsupportedVersionError
from kadmin.types import GROUP_STATES, GROUP_TYPES

if TYPE_CHECKING:
    from kadmin.cli.main import Context
    from kadmin.types import GroupDescription, MemberDescription, TopicPartition

# Kafka's group states (classic and KIP-848 groups) and group types, as ListGroups takes them.  Matched
# case-insensitively and sent in Kafka's spelling; anything else is refused as kafka-consumer-groups.sh does.
STATES = GROUP_STATES
TYPES = GROUP_TYPES


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("groups", help="consumer groups: list, describe, delete, offsets",
                       description="Consumer group commands.")
    gsub = p.add_subparsers(dest="groups_command", metavar="SUBCOMMAND", required=True)

    ls = gsub.add_parser("list", parents=[common], help="every group on every broker",
                         description="List the groups of every broker (a broker that does not answer is "
                                     "reported, and makes the exit status 1).")
    ls.add_argument("--state", action="extend", nargs="+", metavar="S", default=[],
                    help=f"only groups in these states ({', '.join(STATES)})")
    ls.add_argument("--type", action="extend", nargs="+", metavar="T", default=[], dest="types",
                    help=f"only groups of these types ({', '.join(TYPES)}); needs Kafka 3.8+")
    ls.set_defaults(run=run_list)

    ds = gsub.add_parser("describe", parents=[common], help="state, protocol and members of groups",
                         description="Describe groups: state, protocol, coordinator and members.")
    ds.add_argument("group_ids", nargs="*", metavar="GROUP")
    add_group_flag(ds)
    ds.add_argument("--include-authorized-operations", action="store_true",
                    help="also ask which operations this principal may perform on each group")
    ds.set_defaults(run=run_describe)

    dl = gsub.add_parser("delete", parents=[common], help="delete groups (they must be empty)",
                         description="Delete groups and their committed offsets.  Kafka refuses to delete a "
                                     "group that has members (NON_EMPTY_GROUP).")
    dl.add_argument("group_ids", nargs="*", metavar="GROUP")
    add_group_flag(dl)
    dl.set_defaults(run=run_delete)

    of = gsub.add_parser("offsets", parents=[common], help="committed offsets (and lag) of groups",
                         description="Committed offsets of groups; with --lag, also each partition's log-end "
                                     "offset and the lag.")
    of.add_argument("group_ids", nargs="*", metavar="GROUP")
    add_group_flag(of)
    of.add_argument("--lag", action="store_true", help="also fetch log-end offsets and compute the lag")
    of.set_defaults(run=run_offsets)
    group_admin.register(gsub, common)


def _choices(values: Iterable[str], known: Sequence[str], what: str) -> list[str]:
    by_lower = {k.lower(): k for k in known}
    out: list[str] = []
    for v in values:
        for part in v.split(","):
            part = part.strip()
            if not part:
                continue
            k = by_lower.get(part.lower())
            if k is None:
                raise UsageError(f"unknown group {what} {part!r}; one of {', '.join(known)}")
            if k not in out:
                out.append(k)
    return out


def group_ids(values: Sequence[str]) -> list[str]:
    """The given ids in order, duplicates dropped; an empty id is refused (Kafka has no such group)."""
    for g in values:
        if not g:
            raise UsageError("a group id is empty")
    return list(dict.fromkeys(values))


def chosen_groups(ctx: Context, admin: Any) -> list[str]:
    """The groups a command names (positionally or with --group), or with --all-groups every consumer group the
    brokers list.  Named groups are checked before connecting: see :func:`check_chosen_groups`."""
    a = ctx.args
    if a.all_groups:
        listed = admin.list_consumer_groups()
        return sorted({g.group_id for g in listed.groups})
    return group_ids(merged(a.group_ids, a.group_flags, "group"))


def check_chosen_groups(args: argparse.Namespace) -> None:
    """Usage errors before connecting: groups named and --all-groups, or neither."""
    named = [*args.group_ids, *args.group_flags]
    if named and args.all_groups:
        raise UsageError("name groups or give --all-groups, not both")
    if not named and not args.all_groups:
        raise UsageError("name at least one group (positionally or with --group), or give --all-groups")
    group_ids(named)


# --- list ---------------------------------------------------------------------------------------------------


def run_list(ctx: Context) -> int:
    states = _choices(ctx.args.state, STATES, "state")
    types = _choices(ctx.args.types, TYPES, "type")
    with ctx.admin() as admin:
        res = admin.list_consumer_groups(states=states or None, types=types or None)
        refused = [e for e in res.errors.values() if isinstance(e, UnsupportedVersionError)]
        if refused and len(refused) == len(res.errors) and not res.groups:
            nodes = {n.node_id for n in admin.describe_cluster().nodes}
            if nodes <= set(res.errors):
                # No broker could be asked (kadmin refused to send what none of them speaks): the command
                # could not run, which is exit 2, not "some brokers failed".
                raise refused[0]
    groups = [{"group_id": g.group_id, "protocol_type": g.protocol_type, "state": g.state, "type": g.group_type,
               "coordinator": g.coordinator} for g in res.groups]
    errors = [{"node_id": n, "error": error_json(e)} for n, e in sorted(res.errors.items())]
    p = ctx.printer
    if p.json:
        p.emit("groups list", {"groups": groups, "errors": errors})
    else:
        p.table([Column("GROUP", flex=True), Column("TYPE"), Column("PROTOCOL-TYPE", flex=True), Column("STATE"),
                 Column("COORDINATOR", right=True)],
                [[g["group_id"], g["type"], g["protocol_type"] or None, g["state"], g["coordinator"]]
                 for g in groups])
        for n, e in sorted(res.errors.items()):
            p.key_error(f"node {n}", e)
        if res.errors:
            p.note(f"kadmin: the list is incomplete: {len(res.errors)} broker(s) answered with an error")
    return 1 if res.errors else 0


# --- describe -----------------------------------------------------------------------------------------------


def _tps(tps: Iterable[TopicPartition]) -> list[JsonDict]:
    return [{"topic": tp.topic, "partition": tp.partition} for tp in tps]


def _compact(tps: Iterable[TopicPartition]) -> str:
    """``orders:0,1,2 payments:0``: a member's assignment in one cell."""
    from kadmin._keys import partitions_by_topic

    return " ".join(f"{t}:{','.join(map(str, ps))}" for t, ps in partitions_by_topic(sorted(tps)).items())


def member_json(m: MemberDescription) -> JsonDict:
    return {
        "member_id": m.member_id,
        "group_instance_id": m.group_instance_id,
        "client_id": m.client_id,
        "host": m.host,
        "subscription": list(m.subscription.topics) if m.subscription is not None else None,
        "assignment": _tps(m.assignment.partitions) if m.assignment is not None else None,
        # Every protocol (KIP-848 groups have no subscription/assignment blobs; the broker holds these):
        "subscribed_topics": list(m.subscribed_topic_names),
        "subscribed_topic_regex": m.subscribed_topic_regex,
        "current_assignment": _tps(m.current_assignment),
        "target_assignment": _tps(m.target_assignment) if m.target_assignment is not None else None,
        "member_epoch": m.member_epoch,
    }


def description_json(d: GroupDescription) -> JsonDict:
    return {
        "state": d.state,
        "type": d.group_type,
        "group_epoch": d.group_epoch,
        "assignment_epoch": d.assignment_epoch,
        "protocol_type": d.protocol_type,
        "protocol": d.protocol,
        "coordinator": d.coordinator,
        "authorized_operations": sorted(d.authorized_operations) if d.authorized_operations is not None else None,
        "members": [member_json(m) for m in d.members],
    }


def run_describe(ctx: Context) -> int:
    check_chosen_groups(ctx.args)
    with ctx.admin() as admin:
        ids = chosen_groups(ctx, admin)
        res = admin.describe_consumer_groups(
            ids, include_authorized_operations=ctx.args.include_authorized_operations)
    p = ctx.printer
    failed = [g for g in ids if isinstance(res[g], KafkaError)]
    if p.json:
        items: list[JsonDict] = []
        for g in ids:
            r = res[g]
            items.append({"group_id": g, "error": error_json(r)} if isinstance(r, KafkaError)
                         else {"group_id": g, "error": None, **description_json(r)})
        p.emit("groups describe", {"groups": items})
        return 1 if failed else 0
    ok: list[GroupDescription] = [r for g in ids if not isinstance(r := res[g], KafkaError)]
    if ok:
        p.table([Column("GROUP", flex=True), Column("TYPE"), Column("STATE"), Column("PROTOCOL-TYPE", flex=True),
                 Column("PROTOCOL", flex=True), Column("EPOCH", right=True), Column("COORDINATOR", right=True),
                 Column("MEMBERS", right=True)],
                [[d.group_id, d.group_type, d.state, d.protocol_type or None, d.protocol or None, d.group_epoch,
                  d.coordinator, len(d.members)] for d in ok])
        if ctx.args.include_authorized_operations:
            for d in ok:
                ops = ", ".join(sorted(d.authorized_operations)) if d.authorized_operations is not None else "-"
                p.lines([f"{d.group_id}: authorized operations: {ops}"])
    for d in ok:
        if not d.members:
            continue
        p.lines(["", f"members of {d.group_id}:"])
        # Consumer-protocol (KIP-848) members also show their epoch and, while reconciling, their target.
        p.table([Column("MEMBER-ID", flex=True), Column("INSTANCE-ID", flex=True), Column("CLIENT-ID", flex=True),
                 Column("HOST", flex=True), Column("EPOCH", right=True), Column("ASSIGNMENT", flex=True),
                 Column("TARGET", flex=True)],
                [[m.member_id, m.group_instance_id, m.client_id, m.host, m.member_epoch,
                  _compact(m.current_assignment) or None,
                  _compact(m.target_assignment) if m.target_assignment is not None
                  and sorted(m.target_assignment) != sorted(m.current_assignment) else None]
                 for m in d.members])
    for g in failed:
        err = res[g]
        assert isinstance(err, KafkaError)
        p.key_error(g, err)
    return 1 if failed else 0


# --- delete -------------------------------------------------------------------------------------------------


def run_delete(ctx: Context) -> int:
    check_chosen_groups(ctx.args)
    with ctx.admin() as admin:
        ids = chosen_groups(ctx, admin)
        res = admin.delete_consumer_groups(ids)
    return report_deleted(ctx, "groups delete", ids, res)


def report_deleted(ctx: Context, command: str, ids: Sequence[str], res: Mapping[str, KafkaError | None]) -> int:
    """The deleted groups in a table (or each group's error in JSON), a line per failed group: exit 1 if any
    failed.  Shared by groups, share-groups and streams-groups delete."""
    p = ctx.printer
    failed = [g for g in ids if res[g] is not None]
    if p.json:
        p.emit(command, {"groups": [
            {"group_id": g, "error": error_json(e) if (e := res[g]) is not None else None} for g in ids]})
        return 1 if failed else 0
    deleted = [g for g in ids if res[g] is None]
    if deleted:
        p.table([Column("GROUP", flex=True), Column("RESULT")], [[g, "deleted"] for g in deleted])
    for g in failed:
        err = res[g]
        assert err is not None
        p.key_error(g, err)
    return 1 if failed else 0


# --- offsets ------------------------------------------------------------------------------------------------


def run_offsets(ctx: Context) -> int:
    check_chosen_groups(ctx.args)
    lag = bool(ctx.args.lag)
    with ctx.admin() as admin:
        ids = chosen_groups(ctx, admin)
        res: dict[str, Any] = (dict(admin.consumer_group_lag(ids)) if lag
                               else dict(admin.list_consumer_group_offsets(ids)))
    items: list[JsonDict] = []
    failures: list[tuple[str, KafkaError]] = []
    for g in ids:
        r = res[g]
        if isinstance(r, KafkaError):
            items.append({"group_id": g, "error": error_json(r)})
            failures.append((g, r))
            continue
        parts: list[JsonDict] = []
        for tp, v in sorted(r.items()):
            entry: JsonDict = {"topic": tp.topic, "partition": tp.partition}
            if isinstance(v, KafkaError):
                entry["error"] = error_json(v)
                failures.append((f"{g} {tp}", v))
            elif lag:
                entry.update(error=None, offset=v.committed, log_end_offset=v.log_end, lag=v.lag)
            else:
                entry.update(error=None, offset=v.offset, leader_epoch=v.leader_epoch, metadata=v.metadata)
            parts.append(entry)
        items.append({"group_id": g, "error": None, "partitions": parts})
    p = ctx.printer
    if p.json:
        p.emit("groups offsets", {"lag": lag, "groups": items})
        return 1 if failures else 0
    rows: list[list[object]] = []
    for it in items:
        for e in it.get("partitions", []):
            if e["error"] is not None:
                continue
            if lag:
                rows.append([it["group_id"], e["topic"], e["partition"], e["offset"], e["log_end_offset"],
                             e["lag"]])
            else:
                rows.append([it["group_id"], e["topic"], e["partition"], e["offset"], e["leader_epoch"],
                             e["metadata"] or None])
    if lag:
        cols = [Column("GROUP", flex=True), Column("TOPIC", flex=True), Column("PARTITION", right=True),
                Column("OFFSET", right=True), Column("LOG-END", right=True), Column("LAG", right=True)]
    else:
        cols = [Column("GROUP", flex=True), Column("TOPIC", flex=True), Column("PARTITION", right=True),
                Column("OFFSET", right=True), Column("EPOCH", right=True), Column("METADATA", flex=True)]
    if rows or not failures:  # a header over nothing, when every group failed, reads like a result
        p.table(cols, rows)
    empty = [it["group_id"] for it in items if it["error"] is None and not it["partitions"]]
    for g in empty:
        p.note(f"kadmin: {g}: no committed offsets (the group exists)")
    for key, err in failures:
        if isinstance(err, GroupIdNotFoundError):
            p.note(f"kadmin: {key}: no such group ({err.name})")
        else:
            p.key_error(key, err)
    return 1 if failures else 0
