"""``kadmin topics list|describe|create|delete|add-partitions``: topics, one result per topic.

Flags follow kafka-topics.sh (``--partitions``, ``--replication-factor``, ``--replica-assignment 1:2,2:3``,
``--config k=v``); output and exit statuses follow the other kadmin commands: every topic is one JSON object
with an ``error`` field, or in a table a line on stdout (success) or stderr (failure), and the exit status is 1
when any topic failed.  Input is checked completely (names, counts, assignments, configs) before connecting.
"""

from __future__ import annotations

import argparse
import uuid
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from kadmin.cli.config import UsageError
from kadmin.cli.output import Column, JsonDict, error_json
from kadmin.cli.spellings import add_topic_flag, base64_id, merged, parse_topic_id, topic_id_text
from kadmin.configs import looks_sensitive
from kadmin.errors import KafkaError
from kadmin.topics import (
    CreatedTopic,
    NewPartitions,
    NewTopic,
    TopicDescription,
    TopicRef,
    validate_new_partitions,
    validate_new_topics,
    validate_topic_names,
    validate_topic_refs,
)

if TYPE_CHECKING:
    from kadmin.cli.main import Context


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("topics", help="topics: list, describe, create, delete, add-partitions",
                       description="Topic commands (like kafka-topics.sh).")
    tsub = p.add_subparsers(dest="topics_command", metavar="SUBCOMMAND", required=True)

    ls = tsub.add_parser("list", parents=[common], help="every topic", description="List the cluster's topics.")
    ls.add_argument("--internal", action="store_true", help="also internal topics (__consumer_offsets...)")
    ls.set_defaults(run=run_list)

    ds = tsub.add_parser("describe", parents=[common], help="partitions, leaders, replicas, ISR",
                         description="Describe topics: id, and per partition leader, replicas, ISR, offline.  "
                                     "Without TOPIC: every topic of the cluster (like kafka-topics.sh).")
    ds.add_argument("topics", nargs="*", metavar="TOPIC")
    add_topic_flag(ds)
    ds.add_argument("--exclude-internal", action="store_true",
                    help="without TOPIC: leave out internal topics (__consumer_offsets...), listed by default")
    ds.add_argument("--include-authorized-operations", action="store_true",
                    help="also ask which operations this principal may perform on each topic")
    ds.set_defaults(run=run_describe)

    cr = tsub.add_parser("create", parents=[common], help="create topics",
                         description="Create topics (one request to the controller).  Without --partitions or "
                                     "--replication-factor the broker's defaults apply (Kafka 2.4+).")
    cr.add_argument("topics", nargs="*", metavar="TOPIC")
    add_topic_flag(cr)
    cr.add_argument("--partitions", type=int, metavar="N")
    cr.add_argument("--replication-factor", type=int, metavar="R")
    cr.add_argument("--replica-assignment", metavar="B:B,B:B",
                    help="replicas per partition, partitions separated by ',', brokers by ':' (first = leader)")
    cr.add_argument("--config", action="append", default=[], metavar="K=V", help="a topic config (repeatable)")
    cr.add_argument("--validate-only", action="store_true", help="let the controller check, create nothing")
    cr.set_defaults(run=run_create)

    dl = tsub.add_parser("delete", parents=[common], help="delete topics (by name or --topic-id)",
                         description="Delete topics and all their data.")
    dl.add_argument("topics", nargs="*", metavar="TOPIC")
    add_topic_flag(dl)
    dl.add_argument("--topic-id", action="append", default=[], metavar="ID",
                    help="a topic id (Kafka 2.8+): Kafka's base64 form, as kadmin and kafka-topics.sh print it, "
                         "or a UUID")
    dl.set_defaults(run=run_delete)

    ap = tsub.add_parser("add-partitions", parents=[common], help="grow topics to a new partition count",
                         description="Raise topics' partition count to --partitions (a total, not an increment).")
    ap.add_argument("topics", nargs="*", metavar="TOPIC")
    add_topic_flag(ap)
    ap.add_argument("--partitions", type=int, required=True, metavar="N", help="the new total")
    ap.add_argument("--replica-assignment", metavar="B:B,B:B", help="replicas of the NEW partitions only")
    ap.add_argument("--validate-only", action="store_true")
    ap.set_defaults(run=run_add_partitions)


# --- parsing ------------------------------------------------------------------------------------------------


def parse_assignment(text: str) -> list[list[int]]:
    """``1:2,2:3`` -> [[1, 2], [2, 3]] (kafka-topics.sh's --replica-assignment).  An empty value is refused:
    ``--replica-assignment "$ASSIGN"`` with an unset variable must not fall back to the broker's placement."""
    if not text.strip():
        raise UsageError("--replica-assignment is empty: give each partition's brokers (1:2,2:3) or leave the "
                         "option out")
    out: list[list[int]] = []
    for part in text.split(","):
        ids = part.strip().split(":")
        try:
            out.append([int(b) for b in ids])
        except ValueError:
            raise UsageError(f"--replica-assignment: {part!r} is not broker ids separated by ':'") from None
    return out


def parse_configs(items: Sequence[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        if "=" not in item:
            raise UsageError(f"--config {item!r} is not key=value")
        k, v = item.split("=", 1)
        if not k:
            raise UsageError(f"--config {item!r} has an empty name")
        if k in out:
            raise UsageError(f"--config {k} is given twice")
        out[k] = v
    return out


def _checked(fn: Any, *args: Any) -> Any:
    """Run a library check, reporting its complaint as a usage error (exit 2, nothing sent)."""
    try:
        return fn(*args)
    except (TypeError, ValueError) as exc:
        raise UsageError(str(exc)) from None


def _exit(failed: bool) -> int:
    return 1 if failed else 0


# --- list / describe ----------------------------------------------------------------------------------------


def run_list(ctx: Context) -> int:
    with ctx.admin() as admin:
        listed = admin.list_topics(internal=ctx.args.internal)
    p = ctx.printer
    rows = [{"name": t.name, "topic_id": topic_id_text(t.topic_id), "internal": t.is_internal,
             "partitions": t.partitions} for t in listed]
    if p.json:
        p.emit("topics list", {"topics": rows})
    else:
        p.table([Column("TOPIC", flex=True), Column("PARTITIONS", right=True), Column("INTERNAL"),
                 Column("TOPIC-ID")],
                [[r["name"], r["partitions"], "yes" if r["internal"] else "no", r["topic_id"]] for r in rows])
    return 0


def description_json(d: TopicDescription) -> JsonDict:
    return {
        "topic_id": topic_id_text(d.topic_id),
        "internal": d.is_internal,
        "authorized_operations": sorted(d.authorized_operations) if d.authorized_operations is not None else None,
        "partitions": [{"partition": p.partition, "leader": p.leader, "leader_epoch": p.leader_epoch,
                        "replicas": list(p.replicas), "isr": list(p.isr),
                        "offline_replicas": list(p.offline_replicas)} for p in d.partitions],
    }


def run_describe(ctx: Context) -> int:
    a = ctx.args
    given = merged(a.topics, a.topic_flags, "topic", required=False)
    if given and a.exclude_internal:
        raise UsageError("--exclude-internal applies only when no TOPIC is given (every topic is described)")
    names: list[str] = _checked(validate_topic_names, given) if given else []
    with ctx.admin() as admin:
        if not given:
            # kafka-topics.sh --describe without --topic: every topic, internal ones unless --exclude-internal.
            names = [t.name for t in admin.list_topics(internal=not a.exclude_internal)]
        res = admin.describe_topics(names, include_authorized_operations=a.include_authorized_operations)
    p = ctx.printer
    failed = [n for n in names if isinstance(res[n], KafkaError)]
    if p.json:
        p.emit("topics describe", {"topics": [
            {"name": n, "error": error_json(r)} if isinstance(r := res[n], KafkaError)
            else {"name": n, "error": None, **description_json(r)} for n in names]})
        return _exit(bool(failed))
    rows = []
    for n in names:
        d = res[n]
        if isinstance(d, KafkaError):
            continue
        for part in d.partitions:
            rows.append([n, part.partition, part.leader, ",".join(map(str, part.replicas)),
                         ",".join(map(str, part.isr)), ",".join(map(str, part.offline_replicas)) or None])
    if rows:
        p.table([Column("TOPIC", flex=True), Column("PARTITION", right=True), Column("LEADER", right=True),
                 Column("REPLICAS", flex=True), Column("ISR", flex=True), Column("OFFLINE", flex=True)], rows)
    if a.include_authorized_operations:
        # One line per topic, as groups describe prints them; "-" where the broker reported none.
        for n in names:
            d = res[n]
            if not isinstance(d, KafkaError):
                ops = ", ".join(sorted(d.authorized_operations)) if d.authorized_operations is not None else "-"
                p.lines([f"{n}: authorized operations: {ops}"], full=True)
    for n in failed:
        err = res[n]
        assert isinstance(err, KafkaError)
        p.key_error(n, err)
    return _exit(bool(failed))


# --- create / delete / add-partitions -----------------------------------------------------------------------


def _created_json(c: CreatedTopic) -> JsonDict:
    configs = None
    if c.configs is not None:
        configs = {k: None if e.is_sensitive or looks_sensitive(k) else e.value for k, e in c.configs.items()}
    return {"topic_id": topic_id_text(c.topic_id), "partitions": c.partitions,
            "replication_factor": c.replication_factor, "configs": configs}


def run_create(ctx: Context) -> int:
    a = ctx.args
    assignment = parse_assignment(a.replica_assignment) if a.replica_assignment is not None else None
    configs = parse_configs(a.config)
    wanted = [NewTopic(t, a.partitions, a.replication_factor, assignment, configs)
              for t in merged(a.topics, a.topic_flags, "topic")]
    checked = _checked(validate_new_topics, wanted)
    with ctx.admin() as admin:
        res = admin.create_topics(checked, validate_only=a.validate_only, include_configs=True,
                                  include_topic_ids=True)  # the output shows both
    return _report(ctx, "topics create", [t.name for t in checked], res,
                   "validated" if a.validate_only else "created", _created_json)


def run_delete(ctx: Context) -> int:
    refs: list[TopicRef] = list(merged(ctx.args.topics, ctx.args.topic_flags, "topic", required=False))
    refs.extend(parse_topic_id(text) for text in ctx.args.topic_id)
    if not refs:
        raise UsageError("name at least one topic (or --topic-id)")
    checked = _checked(validate_topic_refs, refs)
    with ctx.admin() as admin:
        res = admin.delete_topics(checked)
    return _report(ctx, "topics delete", checked, res, "deleted", None)


def run_add_partitions(ctx: Context) -> int:
    a = ctx.args
    assignment = parse_assignment(a.replica_assignment) if a.replica_assignment is not None else None
    changes = _checked(validate_new_partitions, {t: NewPartitions(a.partitions, assignment)
                                                 for t in merged(a.topics, a.topic_flags, "topic")})
    with ctx.admin() as admin:
        res = admin.create_partitions(changes, validate_only=a.validate_only)
    return _report(ctx, "topics add-partitions", list(changes), res,
                   "validated" if a.validate_only else f"now {a.partitions} partitions", None)


def _report(ctx: Context, command: str, keys: Sequence[TopicRef], res: Any, done: str, extra: Any) -> int:
    p = ctx.printer
    failed = [k for k in keys if isinstance(res[k], KafkaError)]
    if p.json:
        items = []
        for k in keys:
            r = res[k]
            item: JsonDict = {"topic": _ref_text(k), "error": error_json(r) if isinstance(r, KafkaError) else None}
            if extra is not None and not isinstance(r, KafkaError):
                item.update(extra(r))
            items.append(item)
        p.emit(command, {"topics": items})
        return _exit(bool(failed))
    ok = [k for k in keys if k not in failed]
    if ok:
        p.table([Column("TOPIC", flex=True), Column("RESULT")], [[_ref_text(k), done] for k in ok])
    for k in failed:
        p.key_error(_ref_text(k), res[k])
    return _exit(bool(failed))


def _ref_text(ref: TopicRef) -> str:
    """A topic named by name, or by id in Kafka's base64 form."""
    return base64_id(ref) if isinstance(ref, uuid.UUID) else str(ref)
