"""``kadmin leaders elect`` and ``kadmin reassignments list|alter|cancel``: who leads and who holds partitions.

``leaders elect`` follows kafka-leader-election.sh: ``--election-type preferred|unclean`` for named partitions or
``--all-topic-partitions``.  A partition that already had the wanted leader is reported "not needed", which is
not a failure (before Kafka 2.4, ElectPreferredLeaders v0, the broker reports such a partition "elected").  An
unclean election may lose records, so it asks first (or needs ``--yes``).

``reassignments`` follows kafka-reassign-partitions.sh's JSON (``{"partitions": [{"topic": "t", "partition": 0,
"replicas": [1, 2]}]}``) or takes ``TOPIC:PARTITION=1,2,3`` arguments; ``cancel`` stops ongoing moves and
``list`` shows them.  Moving replicas copies whole partitions between brokers, so ``alter`` asks first too.
The JSON file's optional ``"log_dirs"`` (one per replica: an absolute path, or "any") places replicas in log
directories of their brokers (AlterReplicaLogDirs, after the reassignment started, so that a new replica
exists); each replica's result is reported beside its partition's.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from kadmin.cli.config import UsageError
from kadmin.cli.output import Column, JsonDict, error_json, raise_if_all_refused
from kadmin.cli.partition_args import (
    assignment,
    confirm,
    explicit_partitions,
    json_partitions,
    number,
    read_json_file,
    topic_partitions,
)
from kadmin.errors import ErrorCode, KafkaError, error_for_code
from kadmin.replicas import TopicPartitionReplica
from kadmin.storage import ElectionResult, PartitionReassignment, validate_reassignments
from kadmin.types import TopicPartition

if TYPE_CHECKING:
    from kadmin.cli.main import Context
    from kadmin.client import AdminClient


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("leaders", help="partition leaders: elect", description="Leader election commands.")
    lsub = p.add_subparsers(dest="leaders_command", metavar="SUBCOMMAND", required=True)
    el = lsub.add_parser("elect", parents=[common], help="preferred or unclean leader elections",
                         description="Elect leaders on the controller: the preferred replica, or (unclean) any "
                                     "live replica of a partition with no in-sync replica left.")
    el.add_argument("partitions", nargs="*", metavar="TOPIC:P,...", help="the partitions to hold elections for")
    el.add_argument("--election-type", choices=("preferred", "unclean"), required=True, type=str.lower)
    el.add_argument("--all-topic-partitions", action="store_true",
                    help="every partition of the cluster (only those that needed an election are listed)")
    el.add_argument("--yes", "-y", action="store_true", help="do not ask before an unclean election")
    el.set_defaults(run=run_elect)

    r = sub.add_parser("reassignments", help="partition reassignments: list, alter, cancel",
                       description="Partition reassignment commands (Kafka 2.4+).")
    rsub = r.add_subparsers(dest="reassignments_command", metavar="SUBCOMMAND", required=True)
    ls = rsub.add_parser("list", parents=[common], help="ongoing reassignments",
                         description="Ongoing reassignments: every one, or those of the given topics/partitions.")
    ls.add_argument("partitions", nargs="*", metavar="TOPIC[:P,...]")
    ls.set_defaults(run=run_list)
    al = rsub.add_parser("alter", parents=[common], help="move partitions to new replicas",
                         description="Start moving partitions to new replicas (the first listed is the "
                                     "preferred leader); the data is copied afterwards.")
    al.add_argument("targets", nargs="*", metavar="TOPIC:PARTITION=B1,B2,...")
    al.add_argument("--reassignment-json-file", metavar="FILE",
                    help='kafka-reassign-partitions.sh\'s format: {"partitions": [{"topic": "t", "partition": 0, '
                         '"replicas": [1, 2], "log_dirs": ["any", "/data/b"]}]} (\'-\' reads stdin; log_dirs '
                         'optional, one per replica)')
    al.add_argument("--disallow-replication-factor-change", action="store_true",
                    help="refuse a move that changes a partition's number of replicas (KIP-860, Kafka 4.1+; "
                         "refused unsent by older controllers)")
    al.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")
    al.set_defaults(run=run_alter)
    cn = rsub.add_parser("cancel", parents=[common], help="cancel ongoing reassignments",
                         description="Cancel the ongoing reassignment of each partition (back to its replicas "
                                     "before the move).")
    cn.add_argument("partitions", nargs="+", metavar="TOPIC:P,...")
    cn.set_defaults(run=run_cancel)


# --- elect ------------------------------------------------------------------------------------------------


def run_elect(ctx: Context) -> int:
    args = ctx.args
    if args.all_topic_partitions == bool(args.partitions):
        raise UsageError("give partitions (TOPIC:P,...) or --all-topic-partitions, not both or neither")
    parts = None if args.all_topic_partitions else explicit_partitions(args.partitions)
    if args.election_type == "unclean":
        what = "every partition without a leader" if parts is None else f"{len(parts)} partition(s)"
        confirm(f"Unclean election for {what}? A replica that is not in sync may become leader and records may "
                "be lost.", args.yes)
    with ctx.admin() as admin:
        got = admin.elect_leaders(args.election_type, parts)
    items: list[JsonDict] = []
    for tp, r in got.items():
        if isinstance(r, KafkaError):
            items.append({"topic": tp.topic, "partition": tp.partition, "result": None, "error": error_json(r)})
        else:
            items.append({"topic": tp.topic, "partition": tp.partition, "result": r.value, "error": None})
    failed = [(tp, r) for tp, r in got.items() if isinstance(r, KafkaError)]
    p = ctx.printer
    if p.json:
        p.emit("leaders elect", {"election_type": args.election_type, "partitions": items})
        return 1 if failed else 0
    p.table([Column("TOPIC", flex=True), Column("PARTITION", right=True), Column("RESULT")],
            [[tp.topic, tp.partition, "elected" if r is ElectionResult.ELECTED else "not needed"]
             for tp, r in got.items() if not isinstance(r, KafkaError)])
    if parts is None and not got:
        p.note("kadmin: no partition needed an election")
    for tp, err in failed:
        p.key_error(str(tp), err)
    return 1 if failed else 0


# --- reassignments -------------------------------------------------------------------------------------------


def _unknown(admin: AdminClient, whole: list[str], named: list[TopicPartition],
             ) -> tuple[dict[str, KafkaError], dict[TopicPartition, KafkaError]]:
    """The named topics that could not be described and the named partitions that do not exist.  Kafka answers
    ListPartitionReassignments for a missing topic or partition as "not being moved", so a misspelt name would
    read as "nothing in progress": each is looked up (one describe_topics, as ``offsets list`` does) and is a
    failed key instead."""
    described = admin.describe_topics(list(dict.fromkeys([*whole, *(tp.topic for tp in named)])))
    topics = {t: d for t, d in described.items() if isinstance(d, KafkaError)}
    parts: dict[TopicPartition, KafkaError] = {}
    for tp in named:
        d = described[tp.topic]
        if isinstance(d, KafkaError):
            parts[tp] = d
        elif tp.partition not in {pi.partition for pi in d.partitions}:
            err = error_for_code(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                                 f"topic {tp.topic!r} has {len(d.partitions)} partition(s), no partition "
                                 f"{tp.partition}")
            assert err is not None
            parts[tp] = err
    return {t: e for t, e in topics.items() if t in whole}, parts


def run_list(ctx: Context) -> int:
    whole, named = topic_partitions(ctx.args.partitions) if ctx.args.partitions else ([], [])
    with ctx.admin() as admin:
        got: dict[TopicPartition, PartitionReassignment | None | KafkaError]
        lost_topics, lost_parts = _unknown(admin, whole, named) if ctx.args.partitions else ({}, {})
        asked = [tp for tp in named if tp not in lost_parts]
        if ctx.args.partitions and not whole:
            got = admin.list_partition_reassignments(asked) if asked else {}
        else:
            ongoing = admin.list_partition_reassignments()
            got = {tp: r for tp, r in ongoing.items() if not ctx.args.partitions or tp.topic in whole}
            got.update((tp, ongoing.get(tp)) for tp in asked)  # named partitions: each answered
        got.update(lost_parts)
    items: list[JsonDict] = [{"topic": t, "partition": None, "error": error_json(e), "reassigning": None}
                             for t, e in lost_topics.items()]
    failed: list[tuple[str, KafkaError]] = list(lost_topics.items())
    for tp, r in got.items():
        item: JsonDict = {"topic": tp.topic, "partition": tp.partition}
        if isinstance(r, KafkaError):
            failed.append((str(tp), r))
            items.append({**item, "error": error_json(r), "reassigning": None})
        elif r is None:
            items.append({**item, "error": None, "reassigning": False})
        else:
            items.append({**item, "error": None, "reassigning": True, "replicas": list(r.replicas),
                          "adding": list(r.adding), "removing": list(r.removing), "target": list(r.target)})
    p = ctx.printer
    if p.json:
        p.emit("reassignments list", {"partitions": items})
        return 1 if failed else 0

    def ids(v: list[int]) -> str:
        return ",".join(map(str, v)) or "-"

    p.table([Column("TOPIC", flex=True), Column("PARTITION", right=True), Column("REPLICAS"), Column("ADDING"),
             Column("REMOVING"), Column("TARGET")],
            [[it["topic"], it["partition"], ids(it["replicas"]), ids(it["adding"]), ids(it["removing"]),
              ids(it["target"])] for it in items if it.get("reassigning")])
    some_exist = not ctx.args.partitions or len(failed) < len(whole) + len(named)
    if some_exist and not any(it["error"] is None for it in items):
        p.note("kadmin: no reassignment in progress")  # in what was asked and exists; failures follow
    for it in items:
        if it["reassigning"] is False:
            p.note(f"kadmin: {it['topic']}-{it['partition']}: no reassignment in progress")
    for key, err in failed:
        p.key_error(key, err)
    return 1 if failed else 0


def _log_dirs(doc: Any, path: str, replicas: dict[TopicPartition, list[int]]) -> dict[TopicPartitionReplica, str]:
    """kafka-reassign-partitions.sh's optional ``"log_dirs"``: one entry per replica, in the replicas' order, an
    absolute path or "any" (no preference).  ``doc`` was checked by json_partitions already."""
    moves: dict[TopicPartitionReplica, str] = {}
    for item in doc["partitions"]:
        dirs = item.get("log_dirs")
        if dirs is None:
            continue
        tp = TopicPartition(item["topic"], item["partition"])
        brokers = replicas[tp]
        if not isinstance(dirs, list) or len(dirs) != len(brokers) or not all(isinstance(d, str) for d in dirs):
            raise UsageError(f"{path}: the log_dirs of {tp} must list one directory (or \"any\") per replica")
        for broker, d in zip(brokers, dirs, strict=True):
            if d == "any":
                continue
            if not d.startswith("/"):
                raise UsageError(f"{path}: log dir {d!r} of {tp} is not an absolute path (or \"any\")")
            moves[TopicPartitionReplica(tp.topic, tp.partition, broker)] = d
    return moves


def _targets(args: argparse.Namespace) -> tuple[dict[TopicPartition, list[int]], dict[TopicPartitionReplica, str]]:
    """The target replicas, and the log dirs the JSON file names for some of them."""
    pairs: list[tuple[TopicPartition, list[int]]] = []
    doc: Any = None
    for spec in args.targets:
        tp, value = assignment(spec, "reassignments alter", "B1,B2,...")
        # Not numbers(): a broker listed twice is an error here, not a duplicate to drop.
        pairs.append((tp, [number(b, f"broker id in {spec!r}") for b in value.split(",")]))
    if args.reassignment_json_file:
        path = args.reassignment_json_file
        doc = read_json_file(path)
        for tp, value in json_partitions(doc, path, "replicas"):
            if not isinstance(value, list) or not all(isinstance(b, int) and not isinstance(b, bool) for b in value):
                raise UsageError(f"{path}: the replicas of {tp} must be a list of broker ids")
            pairs.append((tp, value))
    if not pairs:
        raise UsageError("no partitions given (TOPIC:PARTITION=B1,B2 arguments or --reassignment-json-file)")
    out: dict[TopicPartition, list[int]] = {}
    for tp, replicas in pairs:
        if tp in out:
            raise UsageError(f"partition {tp} is given twice")
        out[tp] = replicas
    try:
        validate_reassignments(out)
    except (TypeError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    return out, (_log_dirs(doc, args.reassignment_json_file, out) if doc is not None else {})


def _report_alter(ctx: Context, command: str, got: dict[TopicPartition, None | KafkaError], done: str) -> int:
    failed = [(tp, r) for tp, r in got.items() if r is not None]
    p = ctx.printer
    if p.json:
        p.emit(command, {"partitions": [{"topic": tp.topic, "partition": tp.partition,
                                         "error": error_json(r) if r is not None else None}
                                        for tp, r in got.items()]})
        return 1 if failed else 0
    p.table([Column("TOPIC", flex=True), Column("PARTITION", right=True), Column("RESULT")],
            [[tp.topic, tp.partition, done] for tp, r in got.items() if r is None])
    for tp, err in failed:
        p.key_error(str(tp), err)
    return 1 if failed else 0


def run_alter(ctx: Context) -> int:
    targets, moves = _targets(ctx.args)
    confirm(f"Move {len(targets)} partition(s) to new replicas? Their data will be copied between brokers.",
            ctx.args.yes)
    with ctx.admin() as admin:
        got = admin.alter_partition_reassignments(
            targets, allow_replication_factor_change=not ctx.args.disallow_replication_factor_change)
        raise_if_all_refused(got)
        # Log dirs after the reassignment started, so that a new replica exists where it is to be placed.
        started = {r: d for r, d in moves.items() if got.get(TopicPartition(r.topic, r.partition), 0) is None}
        dirs: dict[TopicPartitionReplica, None | KafkaError] = (
            admin.alter_replica_log_dirs(started) if started else {})
    if not moves:
        return _report_alter(ctx, "reassignments alter", got, "started")
    return _report_alter_with_dirs(ctx, got, moves, dirs)


def _report_alter_with_dirs(ctx: Context, got: dict[TopicPartition, None | KafkaError],
                            moves: dict[TopicPartitionReplica, str],
                            dirs: dict[TopicPartitionReplica, None | KafkaError]) -> int:
    """The partitions' results, then each replica's log-dir move (one whose partition was refused is not sent:
    it is listed with a null error and ``"sent": false``)."""
    failed = [(tp, r) for tp, r in got.items() if r is not None]
    dirs_failed = [(r, e) for r, e in dirs.items() if e is not None]
    p = ctx.printer
    if p.json:
        p.emit("reassignments alter", {
            "partitions": [{"topic": tp.topic, "partition": tp.partition,
                            "error": error_json(r) if r is not None else None} for tp, r in got.items()],
            "log_dirs": [{"topic": r.topic, "partition": r.partition, "broker": r.broker_id, "log_dir": d,
                          "sent": r in dirs,
                          "error": error_json(dirs[r]) if dirs.get(r) is not None else None}  # type: ignore[arg-type]
                         for r, d in moves.items()]})
        return 1 if failed or dirs_failed else 0
    p.table([Column("TOPIC", flex=True), Column("PARTITION", right=True), Column("RESULT")],
            [[tp.topic, tp.partition, "started"] for tp, r in got.items() if r is None])
    moved = [[r.topic, r.partition, r.broker_id, moves[r]] for r, e in dirs.items() if e is None]
    if moved:
        p.lines([""])
        p.table([Column("TOPIC", flex=True), Column("PARTITION", right=True), Column("BROKER", right=True),
                 Column("LOG-DIR")], moved)
    for tp, err in failed:
        p.key_error(str(tp), err)
    for r, err in dirs_failed:
        p.key_error(f"{r.topic}-{r.partition} on broker {r.broker_id}", err)
    return 1 if failed or dirs_failed else 0


def run_cancel(ctx: Context) -> int:
    parts = explicit_partitions(ctx.args.partitions)
    with ctx.admin() as admin:
        got = admin.alter_partition_reassignments(dict.fromkeys(parts))
    raise_if_all_refused(got)
    return _report_alter(ctx, "reassignments cancel", got, "cancelled")
