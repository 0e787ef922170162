"""``kadmin log-dirs describe|sizes``: brokers' log directories and what they hold, as kafka-log-dirs.sh shows.

``describe`` prints each broker's directories (offline ones with their error) and the replicas in them: size,
offset lag and whether it is a future log being moved there.  ``sizes`` sums bytes per topic, counting the
leader's copy of each partition (the data's size) or with ``--all-replicas`` every replica (the disk it takes);
when something could not be measured it says what, and exits 1, because the totals are then lower bounds.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from kadmin.cli.output import Column, JsonDict, error_json
from kadmin.cli.partition_args import numbers, topic_name
from kadmin.errors import KafkaError

if TYPE_CHECKING:
    from kadmin.cli.main import Context
    from kadmin.storage import LogDirDescription


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("log-dirs", help="brokers' log directories: describe, sizes",
                       description="Log directory commands.")
    lsub = p.add_subparsers(dest="log_dirs_command", metavar="SUBCOMMAND", required=True)
    ds = lsub.add_parser("describe", parents=[common], help="directories and replicas of brokers",
                         description="Each broker's log directories and the replicas in them (size, offset lag, "
                                     "future logs); a broker that does not answer is reported (exit 1).")
    ds.add_argument("--broker-list", metavar="1,2,...", help="only these brokers (default: all)")
    ds.add_argument("--topic-list", metavar="T1,T2,...", help="only replicas of these topics")
    ds.set_defaults(run=run_describe)
    sz = lsub.add_parser("sizes", parents=[common], help="bytes on disk per topic",
                         description="Bytes per topic from every broker's log dirs: the leader's copy of each "
                                     "partition, or every replica with --all-replicas.")
    sz.add_argument("topics", nargs="*", metavar="TOPIC", help="only these topics (default: all)")
    sz.add_argument("--all-replicas", action="store_true",
                    help="count every replica (the disk the topic takes), not just the leader's copy")
    sz.set_defaults(run=run_sizes)


def _dir_json(d: LogDirDescription, topics: set[str] | None) -> JsonDict:
    return {"path": d.path, "error": error_json(d.error) if d.error is not None else None,
            "total_bytes": d.total_bytes, "usable_bytes": d.usable_bytes, "is_cordoned": d.is_cordoned,
            "replicas": [{"topic": r.partition.topic, "partition": r.partition.partition,
                          "size_bytes": r.size_bytes, "offset_lag": r.offset_lag, "is_future": r.is_future}
                         for r in d.replicas if topics is None or r.partition.topic in topics]}


def run_describe(ctx: Context) -> int:
    brokers = numbers(ctx.args.broker_list, "broker id") if ctx.args.broker_list else None
    topics = ({topic_name(t.strip()) for t in ctx.args.topic_list.split(",") if t.strip()}
              if ctx.args.topic_list else None)
    with ctx.admin() as admin:
        got = admin.describe_log_dirs(brokers)
    items: list[JsonDict] = []
    for node, res in got.items():
        if isinstance(res, KafkaError):
            items.append({"broker": node, "error": error_json(res), "log_dirs": []})
        else:
            items.append({"broker": node, "error": None,
                          "log_dirs": [_dir_json(d, topics) for d in res.values()]})
    failed = [(node, res) for node, res in got.items() if isinstance(res, KafkaError)]
    p = ctx.printer
    if p.json:
        p.emit("log-dirs describe", {"brokers": items})
        return 1 if failed else 0
    dirs = [(b["broker"], d) for b in items for d in b["log_dirs"]]
    p.table([Column("BROKER", right=True), Column("DIR", flex=True), Column("STATUS"), Column("REPLICAS", right=True),
             Column("SIZE", right=True), Column("TOTAL", right=True), Column("USABLE", right=True)],
            [[n, d["path"], "offline" if d["error"] else "online", len(d["replicas"]),
              sum(r["size_bytes"] for r in d["replicas"]), d["total_bytes"], d["usable_bytes"]] for n, d in dirs])
    rows = [[n, d["path"], r["topic"], r["partition"], r["size_bytes"], r["offset_lag"],
             "yes" if r["is_future"] else "no"] for n, d in dirs for r in d["replicas"]]
    if rows:
        p.lines([""])
        p.table([Column("BROKER", right=True), Column("DIR", flex=True), Column("TOPIC", flex=True),
                 Column("PARTITION", right=True), Column("SIZE", right=True), Column("OFFSET-LAG", right=True),
                 Column("FUTURE")], rows)
    for n, d in dirs:
        if d["error"] is not None:
            p.note(f"kadmin: broker {n}: log dir {d['path']}: {d['error']['name']}: {d['error']['message']}")
    for node, err in failed:
        p.key_error(f"broker {node}", err)
    return 1 if failed else 0


def run_sizes(ctx: Context) -> int:
    topics = list(dict.fromkeys(topic_name(t) for t in ctx.args.topics)) or None
    replicas = "all" if ctx.args.all_replicas else "leader"
    with ctx.admin() as admin:
        res = admin.topic_sizes(topics, replicas=replicas)
    p = ctx.printer
    if p.json:
        p.emit("log-dirs sizes", {
            "counted": res.counted, "complete": res.complete,
            "topics": [{"topic": t, "size_bytes": n} for t, n in sorted(res.sizes.items())],
            "topic_errors": [{"topic": t, "error": error_json(e)} for t, e in sorted(res.topic_errors.items())],
            "missing": [{"topic": tp.topic, "partition": tp.partition, "error": error_json(e)}
                        for tp, e in sorted(res.missing.items())],
            "broker_errors": [{"broker": n, "error": error_json(e)} for n, e in sorted(res.broker_errors.items())]})
        return 0 if res.complete else 1
    p.table([Column("TOPIC", flex=True), Column("SIZE", right=True)], sorted(res.sizes.items()))
    for t, e in sorted(res.topic_errors.items()):
        p.key_error(t, e)
    for tp, e in sorted(res.missing.items()):
        p.key_error(str(tp), e)
    for n, e in sorted(res.broker_errors.items()):
        p.key_error(f"broker {n}", e)
    if not res.complete:
        p.note("kadmin: the sizes are incomplete (lower bounds): see the errors above")
    p.note(f"kadmin: counted {'every replica' if res.counted == 'all' else 'the leader copy of each partition'}")
    return 0 if res.complete else 1
