"""``kadmin offsets list``: partition offsets (earliest, latest, by time...), as kafka-get-offsets.sh lists them.

``--time`` takes Kafka's names or its numbers (-1 latest, -2 earliest, -3 max-timestamp, -4 earliest-local,
-5 latest-tiered) or a timestamp in milliseconds.  A topic named without partitions means all of its
partitions (found with describe_topics); a topic that does not exist is one failed key.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from kadmin.cli.config import UsageError
from kadmin.cli.output import Column, JsonDict, error_json, iso_time
from kadmin.cli.partition_args import topic_partitions
from kadmin.cli.spellings import add_topic_flag, merged
from kadmin.errors import KafkaError
from kadmin.types import TopicPartition

if TYPE_CHECKING:
    from kadmin.admin.partitions import OffsetSpec
    from kadmin.cli.main import Context

#: --time's names -> OffsetSpec's constructor of that name (looked up when used: kadmin.admin.partitions loads
#: the driver and the network layer, which ``kadmin --help`` does not need; issue #28).
TIMES = {"latest": "latest", "earliest": "earliest", "max-timestamp": "max_timestamp",
         "earliest-local": "earliest_local", "latest-tiered": "latest_tiered",
         "earliest-pending-upload": "earliest_pending_upload"}
_BY_NUMBER = {"-1": "latest", "-2": "earliest", "-3": "max-timestamp", "-4": "earliest-local",
              "-5": "latest-tiered", "-6": "earliest-pending-upload"}


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("offsets", help="partition offsets: list", description="Partition offset commands.")
    osub = p.add_subparsers(dest="offsets_command", metavar="SUBCOMMAND", required=True)
    ls = osub.add_parser("list", parents=[common], help="earliest, latest or by-time offsets of partitions",
                         description="List an offset of each partition, asked of its leader.")
    ls.add_argument("topics", nargs="*", metavar="TOPIC[:P,...]",
                    help="a topic (all its partitions) or topic:0,1 (those partitions)")
    add_topic_flag(ls, "a topic or topic:0,1, as kafka-get-offsets.sh spells it")
    ls.add_argument("--time", default="latest", metavar="T",
                    help="latest (default), earliest, max-timestamp, earliest-local, latest-tiered, "
                         "earliest-pending-upload, Kafka's -1..-6 for those, or a timestamp in ms (the first "
                         "offset at or after it)")
    ls.add_argument("--isolation", choices=("read_uncommitted", "read_committed"), default="read_uncommitted",
                    help="read_committed: 'latest' stops before open transactions")
    ls.set_defaults(run=run_list)


def time_json(spec: OffsetSpec) -> JsonDict:
    """The JSON ``time`` as the option spells it (``max-timestamp``, never the library's ``max_timestamp`` or a
    display string), and for a timestamp spec ``"time": "timestamp"`` with the ms in a number of its own."""
    from kadmin.admin.partitions import OffsetSpec

    for name, make in TIMES.items():
        if getattr(OffsetSpec, make)() == spec:
            return {"time": name, "timestamp": None}
    return {"time": "timestamp", "timestamp": spec.timestamp}


def offset_spec(text: str) -> OffsetSpec:
    from kadmin.admin.partitions import OffsetSpec

    name = _BY_NUMBER.get(text.strip(), text.strip().lower())
    if name in TIMES:
        spec: OffsetSpec = getattr(OffsetSpec, TIMES[name])()
        return spec
    try:
        ms = int(name)
    except ValueError:
        raise UsageError(f"--time must be one of {', '.join(TIMES)}, -1..-5 or a timestamp in ms; "
                         f"not {text!r}") from None
    try:
        return OffsetSpec.for_timestamp(ms)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def run_list(ctx: Context) -> int:
    spec = offset_spec(ctx.args.time)
    whole, named = topic_partitions(merged(ctx.args.topics, ctx.args.topic_flags, "topic"))
    failures: dict[str, KafkaError] = {}
    with ctx.admin() as admin:
        described = admin.describe_topics(whole) if whole else {}
        tps: list[TopicPartition] = []
        for topic in whole:
            d = described[topic]
            if isinstance(d, KafkaError):
                failures[topic] = d
            else:
                tps.extend(TopicPartition(topic, pi.partition) for pi in d.partitions)
        tps = list(dict.fromkeys([*tps, *named]))
        got = admin.list_offsets(dict.fromkeys(tps, spec), isolation_level=ctx.args.isolation) if tps else {}
    items: list[JsonDict] = [{"topic": t, "partition": None, "error": error_json(e)} for t, e in failures.items()]
    for tp, r in got.items():
        if isinstance(r, KafkaError):
            items.append({"topic": tp.topic, "partition": tp.partition, "error": error_json(r)})
        else:
            items.append({"topic": tp.topic, "partition": tp.partition, "error": None, "offset": r.offset,
                          "timestamp": r.timestamp, "leader_epoch": r.leader_epoch})
    failed = sum(1 for it in items if it["error"] is not None)
    p = ctx.printer
    if p.json:
        p.emit("offsets list", {**time_json(spec), "isolation": ctx.args.isolation, "partitions": items})
        return 1 if failed else 0
    ok = [it for it in items if it["error"] is None]
    if ok or not failed:  # a header over nothing, when every partition failed, reads like a result
        # The record timestamp as ISO 8601 (UTC) for people; the JSON keeps Kafka's milliseconds.
        p.table([Column("TOPIC", flex=True), Column("PARTITION", right=True), Column("OFFSET", right=True),
                 Column("TIMESTAMP"), Column("LEADER-EPOCH", right=True)],
                [[it["topic"], it["partition"], it["offset"], iso_time(it["timestamp"]), it["leader_epoch"]]
                 for it in ok])
    for topic, err in failures.items():
        p.key_error(topic, err)
    for tp, r in got.items():
        if isinstance(r, KafkaError):
            p.key_error(str(tp), r)
    return 1 if failed else 0
