"""``kadmin quorum describe|add-controller|remove-controller`` and ``kadmin brokers unregister``: the KRaft metadata
quorum, as kafka-metadata-quorum.sh and kafka-cluster.sh show and change it.

``quorum describe --status`` prints the summary (leader, epoch, high watermark, the largest follower lag and how
long it lasted, the voters and observers); ``--replication`` one row per replica (log end offset, lag, last
fetch and caught-up times, Leader/Follower/Observer).  ``add-controller`` and ``remove-controller`` name a voter
by id and metadata directory id (KIP-853); ``brokers unregister --id N`` removes a dead broker's registration.

The quorum's refusal of a change (not a voter, the last voter, a duplicate, a static quorum...) is that call's
result: printed, exit 1.  A ZooKeeper-mode cluster has no quorum: exit 2.
"""

from __future__ import annotations

import argparse
import time
from typing import TYPE_CHECKING, Any

from kadmin.cli.config import UsageError
from kadmin.cli.output import Column, JsonDict, error_json
from kadmin.cli.partition_args import number
from kadmin.errors import (
    AuthenticationError,
    KafkaConnectionError,
    KafkaError,
    KafkaTimeoutError,
    UnsupportedVersionError,
)
from kadmin.quorum import QuorumInfo, QuorumReplica, RaftVoterEndpoint, check_directory_id

if TYPE_CHECKING:
    from kadmin.cli.main import Context


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("quorum", help="the KRaft metadata quorum: describe, add-controller, remove-controller",
                       description="Metadata quorum commands (KRaft), like kafka-metadata-quorum.sh.")
    qsub = p.add_subparsers(dest="quorum_command", metavar="SUBCOMMAND", required=True)
    ds = qsub.add_parser("describe", parents=[common], help="the quorum's status or its replication",
                         description="The metadata quorum: a summary (--status) or a row per replica "
                                     "(--replication).")
    which = ds.add_mutually_exclusive_group(required=True)
    which.add_argument("--status", action="store_true", help="leader, epoch, high watermark, lag, voters")
    which.add_argument("--replication", action="store_true", help="log end offset and lag of every replica")
    ds.set_defaults(run=run_describe)
    ad = qsub.add_parser("add-controller", parents=[common], help="add a voter (KIP-853, Kafka 3.9+)",
                         description="Add a controller, already fetching as an observer, to the voters.")
    ad.add_argument("--controller-id", required=True, metavar="ID")
    ad.add_argument("--controller-directory-id", required=True, metavar="UUID",
                    help="its metadata log directory id (UUID or Kafka's base64 form)")
    ad.add_argument("--controller-endpoint", action="append", default=[], required=True, metavar="NAME://HOST:PORT",
                    help="a controller listener of the new voter (repeatable)")
    ad.set_defaults(run=run_add)
    rm = qsub.add_parser("remove-controller", parents=[common], help="remove a voter (KIP-853, Kafka 3.9+)",
                         description="Remove a controller from the voters.")
    rm.add_argument("--controller-id", required=True, metavar="ID")
    rm.add_argument("--controller-directory-id", required=True, metavar="UUID")
    rm.set_defaults(run=run_remove)
    b = sub.add_parser("brokers", help="brokers: unregister", description="Broker registration commands (KRaft).")
    bsub = b.add_subparsers(dest="brokers_command", metavar="SUBCOMMAND", required=True)
    un = bsub.add_parser("unregister", parents=[common], help="remove a broker's registration",
                         description="Remove the registration of a broker that is gone for good (a running "
                                     "broker registers again), like kafka-cluster.sh unregister.")
    un.add_argument("--id", required=True, metavar="BROKER", help="the broker id")
    un.set_defaults(run=run_unregister)


# --- describe ---------------------------------------------------------------------------------------------------


def _replica_json(r: QuorumReplica, status: str) -> JsonDict:
    return {"node_id": r.replica_id, "directory_id": str(r.directory_id) if r.directory_id else None,
            "log_end_offset": r.log_end_offset, "lag": r.lag, "last_fetch_timestamp": r.last_fetch_timestamp,
            "last_caught_up_timestamp": r.last_caught_up_timestamp, "status": status}


def _voter_json(info: QuorumInfo, r: QuorumReplica) -> JsonDict:
    return {"id": r.replica_id, "directory_id": str(r.directory_id) if r.directory_id else None,
            "endpoints": [str(e) for e in info.nodes.get(r.replica_id, ())]}


def run_describe(ctx: Context) -> int:
    with ctx.admin() as admin:
        info: QuorumInfo = admin.describe_metadata_quorum()
        cluster_id = admin.describe_cluster().cluster_id if ctx.args.status else None
    p = ctx.printer
    if ctx.args.replication:
        rows = ([_replica_json(r, "Leader" if r.replica_id == info.leader_id else "Follower") for r in info.voters]
                + [_replica_json(r, "Observer") for r in info.observers])
        if p.json:
            p.emit("quorum describe", {"replication": rows})
            return 0
        now = int(time.time() * 1000)

        def ago(ms: int | None) -> object:
            return "-" if ms is None else max(0, now - ms)

        p.table([Column("NODE", right=True), Column("DIRECTORY-ID", flex=True), Column("LOG-END-OFFSET", right=True),
                 Column("LAG", right=True), Column("FETCHED-MS-AGO", right=True),
                 Column("CAUGHT-UP-MS-AGO", right=True), Column("STATUS")],
                [[r["node_id"], r["directory_id"] or "-", r["log_end_offset"], r["lag"],
                  ago(r["last_fetch_timestamp"]), ago(r["last_caught_up_timestamp"]), r["status"]] for r in rows])
        return 0
    lag_ms = info.max_follower_lag_time_ms(int(time.time() * 1000))
    voters = [_voter_json(info, v) for v in info.voters]
    observers: list[JsonDict] = [{"id": o.replica_id, "directory_id": str(o.directory_id) if o.directory_id else None}
                                 for o in info.observers]
    if p.json:
        p.emit("quorum describe", {"status": {
            "cluster_id": cluster_id, "leader_id": info.leader_id, "leader_epoch": info.leader_epoch,
            "high_watermark": info.high_watermark, "max_follower_lag": info.max_follower_lag,
            "max_follower_lag_time_ms": lag_ms, "current_voters": voters, "current_observers": observers}})
        return 0
    voter_text = ", ".join(f"{v['id']}" + (f" ({' '.join(v['endpoints'])})" if v["endpoints"] else "")
                           for v in voters)
    p.lines([f"ClusterId:              {cluster_id or '-'}",
             f"LeaderId:               {info.leader_id}",
             f"LeaderEpoch:            {info.leader_epoch}",
             f"HighWatermark:          {info.high_watermark}",
             f"MaxFollowerLag:         {info.max_follower_lag}",
             f"MaxFollowerLagTimeMs:   {'-' if lag_ms is None else lag_ms}",
             f"CurrentVoters:          {voter_text or '-'}",
             f"CurrentObservers:       {', '.join(str(o['id']) for o in observers) or '-'}"])
    return 0


# --- changes ------------------------------------------------------------------------------------------------------


def _answered(err: KafkaError) -> bool:
    """The cluster's answer about this one change (exit 1), as opposed to a command that could not run (exit 2)."""
    if isinstance(err, (UnsupportedVersionError, AuthenticationError, KafkaConnectionError)):
        return False
    if isinstance(err, KafkaTimeoutError):
        return err.possibly_applied
    return True


def _change(ctx: Context, command: str, subject: JsonDict, label: str, done: str, name: str,
            *args: Any, **kwargs: Any) -> int:
    error: KafkaError | None = None
    with ctx.admin() as admin:
        try:
            getattr(admin, name)(*args, **kwargs)
        except KafkaError as exc:
            if not _answered(exc):
                raise
            error = exc
    p = ctx.printer
    if p.json:
        p.emit(command, {**subject, "error": error_json(error) if error is not None else None})
    elif error is None:
        p.lines([f"{label}: {done}"])
    else:
        p.key_error(label, error)
    return 0 if error is None else 1


def _voter_args(args: argparse.Namespace) -> tuple[int, Any]:
    node = number(args.controller_id, "controller id")
    try:
        directory = check_directory_id(args.controller_directory_id)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return node, directory


def run_add(ctx: Context) -> int:
    node, directory = _voter_args(ctx.args)
    try:
        endpoints = [RaftVoterEndpoint.parse(e) for e in ctx.args.controller_endpoint]
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    subject = {"controller_id": node, "directory_id": str(directory), "endpoints": [str(e) for e in endpoints]}
    return _change(ctx, "quorum add-controller", subject, f"controller {node}", "added to the voters",
                   "add_raft_voter", node, directory, endpoints)


def run_remove(ctx: Context) -> int:
    node, directory = _voter_args(ctx.args)
    subject = {"controller_id": node, "directory_id": str(directory)}
    return _change(ctx, "quorum remove-controller", subject, f"controller {node}", "removed from the voters",
                   "remove_raft_voter", node, directory)


def run_unregister(ctx: Context) -> int:
    node = number(ctx.args.id, "broker id")
    return _change(ctx, "brokers unregister", {"broker_id": node}, f"broker {node}", "unregistered",
                   "unregister_broker", node)
