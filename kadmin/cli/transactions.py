"""``kadmin transactions list|describe|describe-producers|find-hanging|abort|force-terminate``, as
kafka-transactions.sh (KIP-664, KIP-939).

The usual way through a hanging transaction: ``find-hanging --topic T`` (or ``--broker-id N``) lists what is
open on a partition for longer than the maximum transaction timeout and not held by its coordinator; ``abort
--topic T --partition P --start-offset O`` then writes the abort marker for the producer whose transaction
starts at that offset (looked up with describe-producers, as kafka-transactions.sh does).  ``abort`` and
``force-terminate`` change the cluster and cannot be undone: they ask first (or ``--yes``).

"""

from __future__ import annotations

import argparse
import datetime
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from kadmin.cli.config import UsageError
from kadmin.cli.output import Column, JsonDict, error_json, raise_if_all_refused
from kadmin.cli.partition_args import confirm, explicit_partitions, number, topic_name
from kadmin.errors import KafkaError, UnsupportedVersionError
from kadmin.transactions import (
    TRANSACTION_STATES,
    AbortTransactionSpec,
    FencedProducer,
    HangingTransaction,
    ProducerState,
    TransactionDescription,
)
from kadmin.types import TopicPartition

if TYPE_CHECKING:
    from kadmin.cli.main import Context
    from kadmin.client import AdminClient

T = TypeVar("T")
_INT64_MAX = 2**63 - 1
_INT16_MAX = 2**15 - 1


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("transactions", help="transactions and producers: list, describe, find-hanging, abort",
                       description="Transaction commands (like kafka-transactions.sh).")
    tsub = p.add_subparsers(dest="transactions_command", metavar="SUBCOMMAND", required=True)

    ls = tsub.add_parser("list", parents=[common], help="transactions every broker coordinates",
                         description="Every broker's transactions, merged (a broker that fails is reported, "
                                     "exit 1).")
    ls.add_argument("--state", action="append", default=[], metavar="STATE",
                    help=f"only transactions in this state (repeatable): {', '.join(TRANSACTION_STATES)}")
    ls.add_argument("--producer-id", action="append", default=[], metavar="ID", help="only this producer id")
    ls.add_argument("--duration-filter", metavar="MS",
                    help="only transactions running longer than MS milliseconds (Kafka 3.8+)")
    ls.add_argument("--transactional-id-pattern", metavar="REGEX",
                    help="only ids the regular expression matches whole (Kafka 4.1+)")
    ls.set_defaults(run=run_list)

    ds = tsub.add_parser("describe", parents=[common], help="a transactional id's state on its coordinator",
                         description="The coordinator's state of each transactional id.")
    ds.add_argument("--transactional-id", action="append", required=True, metavar="ID",
                    help="the transactional id (repeatable)")
    ds.set_defaults(run=run_describe)

    dp = tsub.add_parser("describe-producers", parents=[common], help="active producers of partitions",
                         description="The producers each partition's leader holds state for, with the start "
                                     "offset of their open transaction.")
    dp.add_argument("partitions", nargs="*", metavar="TOPIC:P,...", help="partitions (or --topic/--partition)")
    dp.add_argument("--topic", metavar="T")
    dp.add_argument("--partition", metavar="P")
    dp.set_defaults(run=run_describe_producers)

    fh = tsub.add_parser("find-hanging", parents=[common], help="transactions hanging on partitions",
                         description="Transactions open on a partition for longer than the maximum "
                                     "transaction timeout that their coordinator does not hold.")
    where = fh.add_mutually_exclusive_group(required=True)
    where.add_argument("--broker-id", metavar="N", help="partitions with a replica on this broker")
    where.add_argument("--topic", metavar="T", help="partitions of this topic")
    fh.add_argument("--partition", metavar="P", help="only this partition of --topic")
    fh.add_argument("--max-transaction-timeout", metavar="MINUTES", default="15",
                    help="the cluster's transaction.max.timeout.ms in minutes (default 15)")
    fh.set_defaults(run=run_find_hanging)

    ab = tsub.add_parser("abort", parents=[common], help="abort a (hanging) transaction on a partition",
                         description="Writes the abort marker on one partition for the producer whose "
                                     "transaction starts at --start-offset, or for --producer-id/--producer-epoch.")
    ab.add_argument("--topic", required=True, metavar="T")
    ab.add_argument("--partition", required=True, metavar="P")
    ab.add_argument("--start-offset", metavar="O", help="the open transaction's first offset (describe-producers)")
    ab.add_argument("--producer-id", metavar="ID")
    ab.add_argument("--producer-epoch", metavar="E")
    ab.add_argument("--coordinator-epoch", metavar="C", default="0")
    ab.add_argument("--yes", action="store_true", help="do not ask first")
    ab.set_defaults(run=run_abort)

    ft = tsub.add_parser("force-terminate", parents=[common], help="terminate a transactional id's transaction",
                         description="Aborts the transactional id's transaction, even a prepared two-phase one, "
                                     "and fences its producer (KIP-939, Kafka 4.1+).")
    ft.add_argument("--transactional-id", required=True, metavar="ID")
    ft.add_argument("--yes", action="store_true", help="do not ask first")
    ft.set_defaults(run=run_force_terminate)


def _call(ctx: Context, fn: Callable[[AdminClient], T]) -> T:
    """Run ``fn`` with a connected client (only once the command's input is valid)."""
    with ctx.admin() as admin:
        return fn(admin)


def _ms_time(ms: int) -> str:
    if ms < 0:
        return "-"
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc).isoformat(timespec="seconds")


def _partition_arg(topic: str | None, partition: str | None) -> list[TopicPartition]:
    if topic is None:
        if partition is not None:
            raise UsageError("--partition needs --topic")
        return []
    if partition is None:
        raise UsageError("--topic needs --partition here")
    return [TopicPartition(topic_name(topic), number(partition, "--partition"))]


def run_list(ctx: Context) -> int:
    from kadmin.transactions import check_states

    a = ctx.args
    try:
        states = check_states(a.state) or None
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    pids = [number(x, "--producer-id", 0, _INT64_MAX) for x in a.producer_id] or None
    duration = number(a.duration_filter, "--duration-filter", 0, _INT64_MAX) if a.duration_filter else None
    pattern = a.transactional_id_pattern
    res = _call(ctx, lambda admin: admin.list_transactions(states=states, producer_ids=pids,
                                                           duration_filter_ms=duration,
                                                           transactional_id_pattern=pattern))
    if len(res.errors) == len(res.brokers):
        # No broker answered: every one too old for the API (or a filter) is exit 2, as for other commands.
        raise_if_all_refused(res.errors)
    p = ctx.printer
    if p.json:
        p.emit("transactions list", {
            "transactions": [{"transactional_id": t.transactional_id, "producer_id": t.producer_id,
                              "state": t.state} for t in res.transactions],
            "broker_errors": [{"broker": n, "error": error_json(e)} for n, e in sorted(res.errors.items())]})
    else:
        p.table([Column("TRANSACTIONAL-ID", flex=True), Column("PRODUCER-ID", right=True), Column("STATE")],
                [[t.transactional_id, t.producer_id, t.state] for t in res.transactions])
        for n, e in sorted(res.errors.items()):
            p.key_error(f"broker {n}", e)
    return 1 if res.errors else 0


def _description_json(d: TransactionDescription) -> JsonDict:
    return {"transactional_id": d.transactional_id, "coordinator": d.coordinator_id, "state": d.state,
            "producer_id": d.producer_id, "producer_epoch": d.producer_epoch,
            "transaction_timeout_ms": d.transaction_timeout_ms,
            "transaction_start_time_ms": d.transaction_start_time_ms,
            "partitions": [{"topic": tp.topic, "partition": tp.partition} for tp in d.partitions]}


def run_describe(ctx: Context) -> int:
    ids = list(dict.fromkeys(ctx.args.transactional_id))
    if any(not i for i in ids):
        raise UsageError("an empty --transactional-id")
    got = _call(ctx, lambda admin: admin.describe_transactions(ids))
    raise_if_all_refused(got)
    p = ctx.printer
    failed = {k: v for k, v in got.items() if isinstance(v, KafkaError)}
    if p.json:
        p.emit("transactions describe", {"transactions": [
            {"transactional_id": k, "error": error_json(v)} if isinstance(v, KafkaError)
            else {**_description_json(v), "error": None} for k, v in got.items()]})
        return 1 if failed else 0
    rows = [[d.transactional_id, d.coordinator_id, d.state, d.producer_id, d.producer_epoch,
             d.transaction_timeout_ms, _ms_time(d.transaction_start_time_ms),
             ",".join(f"{tp.topic}:{tp.partition}" for tp in d.partitions) or "-"]
            for d in got.values() if isinstance(d, TransactionDescription)]
    p.table([Column("TRANSACTIONAL-ID", flex=True), Column("COORDINATOR", right=True), Column("STATE"),
             Column("PRODUCER-ID", right=True), Column("EPOCH", right=True), Column("TIMEOUT-MS", right=True),
             Column("STARTED"), Column("PARTITIONS", flex=True)], rows)
    for k, e in failed.items():
        p.key_error(k, e)
    return 1 if failed else 0


def _producer_json(s: ProducerState) -> JsonDict:
    return {"producer_id": s.producer_id, "producer_epoch": s.producer_epoch, "last_sequence": s.last_sequence,
            "last_timestamp": s.last_timestamp, "coordinator_epoch": s.coordinator_epoch,
            "current_transaction_start_offset": s.current_transaction_start_offset}


def run_describe_producers(ctx: Context) -> int:
    a = ctx.args
    parts = list(dict.fromkeys([*(explicit_partitions(a.partitions) if a.partitions else []),
                                *_partition_arg(a.topic, a.partition)]))
    if not parts:
        raise UsageError("no partitions given (TOPIC:P,... or --topic T --partition P)")
    got = _call(ctx, lambda admin: admin.describe_producers(parts))
    raise_if_all_refused(got)
    p = ctx.printer
    failed = {tp: v for tp, v in got.items() if isinstance(v, KafkaError)}
    if p.json:
        p.emit("transactions describe-producers", {"partitions": [
            {"topic": tp.topic, "partition": tp.partition, "error": error_json(v), "producers": []}
            if isinstance(v, KafkaError) else
            {"topic": tp.topic, "partition": tp.partition, "error": None, "producers": [_producer_json(s) for s in v]}
            for tp, v in got.items()]})
        return 1 if failed else 0
    rows = [[tp.topic, tp.partition, s.producer_id, s.producer_epoch,
             s.current_transaction_start_offset if s.in_transaction else "-", s.last_sequence, s.coordinator_epoch,
             _ms_time(s.last_timestamp)]
            for tp, v in got.items() if not isinstance(v, KafkaError) for s in v]
    p.table([Column("TOPIC", flex=True), Column("PARTITION", right=True), Column("PRODUCER-ID", right=True),
             Column("EPOCH", right=True), Column("TXN-START-OFFSET", right=True), Column("LAST-SEQ", right=True),
             Column("COORD-EPOCH", right=True), Column("LAST-WRITE")], rows)
    for tp, e in failed.items():
        p.key_error(f"{tp.topic}:{tp.partition}", e)
    return 1 if failed else 0


def _hanging_json(h: HangingTransaction) -> JsonDict:
    return {"topic": h.partition.topic, "partition": h.partition.partition, "producer_id": h.producer_id,
            "producer_epoch": h.producer_epoch, "coordinator_epoch": h.coordinator_epoch,
            "start_offset": h.start_offset, "last_timestamp": h.last_timestamp,
            "transactional_id": h.transactional_id, "coordinator_state": h.coordinator_state}


def run_find_hanging(ctx: Context) -> int:
    a = ctx.args
    minutes = number(a.max_transaction_timeout, "--max-transaction-timeout", 0, 10**9)
    kwargs: dict[str, Any] = {"max_transaction_timeout_ms": minutes * 60_000}
    if a.broker_id is not None:
        if a.partition is not None:
            raise UsageError("--partition goes with --topic, not --broker-id")
        kwargs["broker_id"] = number(a.broker_id, "--broker-id")
    elif a.partition is not None:
        kwargs["partitions"] = _partition_arg(a.topic, a.partition)
    else:
        kwargs["topics"] = [topic_name(a.topic)]
    res = _call(ctx, lambda admin: admin.find_hanging_transactions(**kwargs))
    if res.errors and len(res.errors) == res.partitions:
        # Not one partition could be checked: every one refused for want of an API is exit 2.
        raise_if_all_refused(res.errors)
    p = ctx.printer
    if p.json:
        p.emit("transactions find-hanging", {
            "hanging": [_hanging_json(h) for h in res.hanging],
            "errors": [{"topic": tp.topic, "partition": tp.partition, "error": error_json(e)}
                       for tp, e in sorted(res.errors.items())]})
    else:
        p.table([Column("TOPIC", flex=True), Column("PARTITION", right=True), Column("PRODUCER-ID", right=True),
                 Column("EPOCH", right=True), Column("START-OFFSET", right=True), Column("TRANSACTIONAL-ID", flex=True),
                 Column("COORDINATOR-STATE"), Column("COORD-EPOCH", right=True), Column("LAST-WRITE")],
                [[h.partition.topic, h.partition.partition, h.producer_id, h.producer_epoch, h.start_offset,
                  h.transactional_id or "-", h.coordinator_state or "-", h.coordinator_epoch,
                  _ms_time(h.last_timestamp)]
                 for h in res.hanging])
        for tp, e in sorted(res.errors.items()):
            p.key_error(f"{tp.topic}:{tp.partition}", e)
    return 1 if res.errors else 0


def run_abort(ctx: Context) -> int:
    a = ctx.args
    tp = _partition_arg(a.topic, a.partition)[0]
    cepoch = number(a.coordinator_epoch, "--coordinator-epoch")
    if a.start_offset is not None:
        if a.producer_id is not None or a.producer_epoch is not None:
            raise UsageError("give --start-offset, or --producer-id with --producer-epoch, not both")
        start = number(a.start_offset, "--start-offset", 0, _INT64_MAX)
        spec = None
    else:
        if a.producer_id is None or a.producer_epoch is None:
            raise UsageError("give --start-offset, or --producer-id with --producer-epoch")
        start = -1
        spec = AbortTransactionSpec(tp, number(a.producer_id, "--producer-id", 0, _INT64_MAX),
                                    number(a.producer_epoch, "--producer-epoch", 0, _INT16_MAX), cepoch)
    confirm(f"abort the transaction on {tp.topic}:{tp.partition}"
            + (f" starting at offset {start}" if spec is None else f" of producer {spec.producer_id}") + "?",
            a.yes)

    def abort(admin: AdminClient) -> tuple[AbortTransactionSpec | KafkaError, None | KafkaError]:
        chosen: AbortTransactionSpec | KafkaError | None = spec
        if chosen is None:
            got = admin.describe_producers([tp])[tp]
            if isinstance(got, KafkaError):
                return got, got
            match = [s for s in got if s.current_transaction_start_offset == start]
            if not match:
                err = KafkaError(f"no open transaction starts at offset {start} on {tp.topic}:{tp.partition}")
                return err, err
            s = match[0]
            chosen = AbortTransactionSpec(tp, s.producer_id, s.producer_epoch, max(s.coordinator_epoch, 0))
        assert isinstance(chosen, AbortTransactionSpec)
        return chosen, admin.abort_transaction(chosen)[tp]

    chosen, result = _call(ctx, abort)
    if isinstance(result, UnsupportedVersionError):
        raise result
    p = ctx.printer
    body: JsonDict = {"topic": tp.topic, "partition": tp.partition, "error": None}
    if isinstance(chosen, AbortTransactionSpec):
        body.update(producer_id=chosen.producer_id, producer_epoch=chosen.producer_epoch,
                    coordinator_epoch=chosen.coordinator_epoch)
    if isinstance(result, KafkaError):
        body["error"] = error_json(result)
    if p.json:
        p.emit("transactions abort", body)
    elif result is None and isinstance(chosen, AbortTransactionSpec):
        p.lines([f"aborted the transaction of producer {chosen.producer_id} (epoch {chosen.producer_epoch}) on "
                 f"{tp.topic}:{tp.partition}"])
    else:
        assert result is not None
        p.key_error(f"{tp.topic}:{tp.partition}", result)
    return 0 if result is None else 1


def run_force_terminate(ctx: Context) -> int:
    tid = ctx.args.transactional_id
    if not tid:
        raise UsageError("an empty --transactional-id")
    confirm(f"terminate the transaction of {tid!r} and fence its producer?", ctx.args.yes)
    got = _call(ctx, lambda admin: admin.force_terminate_transaction(tid))
    if isinstance(got, UnsupportedVersionError):
        raise got
    p = ctx.printer
    if p.json:
        p.emit("transactions force-terminate", {
            "transactional_id": tid, "error": error_json(got) if isinstance(got, KafkaError) else None,
            "producer_id": got.producer_id if isinstance(got, FencedProducer) else None,
            "producer_epoch": got.producer_epoch if isinstance(got, FencedProducer) else None})
    elif isinstance(got, FencedProducer):
        p.lines([f"terminated {tid!r}: producer {got.producer_id} is now at epoch {got.producer_epoch}"])
    else:
        p.key_error(tid, got)
    return 1 if isinstance(got, KafkaError) else 0
