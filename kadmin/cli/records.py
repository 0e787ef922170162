"""``kadmin records delete``: delete a partition's records below an offset, as kafka-delete-records.sh does.

Partitions come as ``TOPIC:PARTITION=OFFSET`` arguments (``OFFSET`` ``hw`` or -1: up to the high watermark)
or in Kafka's ``--offset-json-file`` shape, ``{"partitions": [{"topic": "t", "partition": 0, "offset": 5}]}``.
Deleted records are gone for every consumer, so the command asks first on a terminal, and without one it needs
``--yes``.  A partition whose answer was lost is reported "may have been applied" (exit 1), never guessed.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from kadmin.cli.config import UsageError
from kadmin.cli.output import Column, JsonDict, error_json
from kadmin.cli.partition_args import assignment, confirm, json_partitions, number, read_json_file
from kadmin.errors import KafkaError
from kadmin.storage import HIGH_WATERMARK, validate_delete_records
from kadmin.types import TopicPartition

if TYPE_CHECKING:
    from kadmin.cli.main import Context

_INT64_MAX = 2**63 - 1


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("records", help="records: delete", description="Record commands.")
    rsub = p.add_subparsers(dest="records_command", metavar="SUBCOMMAND", required=True)
    dl = rsub.add_parser("delete", parents=[common], help="delete records below an offset (cannot be undone)",
                         description="Delete each partition's records below an offset, on its leader; the "
                                     "partition's new low watermark is printed.")
    dl.add_argument("offsets", nargs="*", metavar="TOPIC:PARTITION=OFFSET",
                    help="OFFSET: records below it are deleted; 'hw' or -1 deletes up to the high watermark")
    dl.add_argument("--offset-json-file", metavar="FILE",
                    help='Kafka\'s format: {"partitions": [{"topic": "t", "partition": 0, "offset": 5}]} '
                         "('-' reads stdin)")
    dl.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")
    dl.set_defaults(run=run_delete)


def _offset(text: str, where: str) -> int:
    if text.lower() in ("hw", "high-watermark"):
        return HIGH_WATERMARK
    return number(text, f"the offset in {where}", lo=-1, hi=_INT64_MAX)


def requested_offsets(args: argparse.Namespace) -> dict[TopicPartition, int]:
    pairs: list[tuple[TopicPartition, int]] = []
    for spec in args.offsets:
        tp, value = assignment(spec, "records delete", "OFFSET")
        pairs.append((tp, _offset(value, repr(spec))))
    if args.offset_json_file:
        path = args.offset_json_file
        for tp, value in json_partitions(read_json_file(path), path, "offset"):
            if isinstance(value, bool) or not isinstance(value, int):
                raise UsageError(f"{path}: the offset of {tp} must be a whole number (-1: the high watermark)")
            pairs.append((tp, value))
    if not pairs:
        raise UsageError("no partitions given (TOPIC:PARTITION=OFFSET arguments or --offset-json-file)")
    out: dict[TopicPartition, int] = {}
    for tp, offset in pairs:
        if tp in out:
            raise UsageError(f"partition {tp} is given twice")
        out[tp] = offset
    try:
        return validate_delete_records(out)
    except (TypeError, ValueError) as exc:
        raise UsageError(str(exc)) from None


def run_delete(ctx: Context) -> int:
    offsets = requested_offsets(ctx.args)
    shown = ", ".join(f"{tp} below {'the high watermark' if o == HIGH_WATERMARK else o}"
                      for tp, o in list(offsets.items())[:3])
    more = f" and {len(offsets) - 3} more" if len(offsets) > 3 else ""
    confirm(f"Delete records of {len(offsets)} partition(s) ({shown}{more})? This cannot be undone.", ctx.args.yes)
    with ctx.admin() as admin:
        got = admin.delete_records(offsets)
    items: list[JsonDict] = []
    for tp, offset in offsets.items():
        r = got[tp]
        item: JsonDict = {"topic": tp.topic, "partition": tp.partition, "offset": offset}
        if isinstance(r, KafkaError):
            items.append({**item, "error": error_json(r), "low_watermark": None})
        else:
            items.append({**item, "error": None, "low_watermark": r.low_watermark})
    failed = [tp for tp in offsets if isinstance(got[tp], KafkaError)]
    p = ctx.printer
    if p.json:
        p.emit("records delete", {"partitions": items})
        return 1 if failed else 0
    p.table([Column("TOPIC", flex=True), Column("PARTITION", right=True), Column("LOW-WATERMARK", right=True)],
            [[it["topic"], it["partition"], it["low_watermark"]] for it in items if it["error"] is None])
    for tp in failed:
        err = got[tp]
        assert isinstance(err, KafkaError)
        p.key_error(str(tp), err)
    return 1 if failed else 0
