"""``kadmin demo``: an embedded fake cluster with topics, groups, quotas, an authorizer with ACLs and delegation
tokens (and with ``--sasl`` SCRAM users), and the commands to try on it.

Why it exists: the first thing a person wants from an admin CLI is to see what it prints, before pointing it
at a production cluster.  The cluster is :class:`kadmin.testing.FakeCluster` (in this process, on 127.0.0.1),
not Kafka; the demo says so.  It runs until Ctrl-C; ``--once`` prints and exits (for tests and docs).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import signal
import tempfile
import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kadmin.cli.main import Context


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    from kadmin.versions import DEFAULT_RELEASE, RELEASE_NAMES

    # Not the common options: the demo starts its own cluster, so -b, --command-config and --timeout would be
    # offered and ignored.  Only the output format and --debug apply.
    own = argparse.ArgumentParser(add_help=False)
    own.add_argument("--output", "-o", choices=("table", "json"), default=argparse.SUPPRESS,
                     help="table (default) or json")
    own.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                     help="debug logging and tracebacks on stderr")
    p = sub.add_parser("demo", parents=[own], help="run an embedded fake cluster with demo data",
                       description="Start kadmin's embedded fake cluster (not Kafka: kadmin.testing.FakeCluster) "
                                   "with demo groups and quotas, print commands to try, and keep running until "
                                   "Ctrl-C.")
    p.add_argument("--brokers", type=int, default=3, help="number of brokers (3)")
    p.add_argument("--versions", default=None, metavar="RELEASE",
                   help=f"Kafka release every broker imitates ({', '.join(RELEASE_NAMES)}; default "
                        f"{DEFAULT_RELEASE}); 'mixed' makes broker 1 a 2.2 and the others "
                        f"{DEFAULT_RELEASE}")
    p.add_argument("--sasl", action="store_true",
                   help="SASL/SCRAM logins: users admin (super user) and alice; their client properties are printed "
                        "and written to --properties-dir")
    p.add_argument("--properties-dir", metavar="DIR",
                   help="with --sasl: write admin.properties and alice.properties here (default: a temporary "
                        "directory removed at exit)")
    p.add_argument("--no-authorizer", action="store_true", help="no authorizer (ACL commands: SECURITY_DISABLED)")
    p.add_argument("--once", action="store_true", help="print the address and the commands, then exit")
    p.set_defaults(run=run)


def suggestions(sasl: bool = False) -> list[str]:
    """Commands to try, once KADMIN_BOOTSTRAP_SERVERS points at the demo (so they fit a terminal).  With
    SASL every command needs a login: ``--command-config admin.properties`` (run from the properties dir)."""
    if sasl:
        admin, alice = " --command-config admin.properties", " --command-config alice.properties"
        return [
            f"kadmin acls whoami{alice}",
            f"kadmin acls list{admin}",
            f"kadmin users list{admin}",
            f"kadmin tokens create{admin}",
            f"kadmin groups describe orders-service{alice}",
            f"kadmin topics describe payments{alice}",
        ]
    return [
        "kadmin api-versions --kadmin-only",
        "kadmin topics list",
        "kadmin groups list",
        "kadmin groups describe orders-service billing no-such-group",
        "kadmin groups offsets orders-service billing --lag",
        "kadmin groups delete billing",
        "kadmin quotas describe",
        "kadmin quotas resolve --user alice --client-id etl",
        "kadmin quotas alter --user bob --set producer_byte_rate=1048576 --set request_percentage=12.5",
        "kadmin --output json groups describe orders-service",
        "kadmin acls list",
        "kadmin acls create --consumer --topic payments --group billing --allow-principal User:bob",
    ]


def run(ctx: Context) -> int:
    from kadmin.cli.config import ENV_BOOTSTRAP, UsageError
    from kadmin.testing.demo import start_demo
    from kadmin.versions import DEFAULT_RELEASE, RELEASE_NAMES

    args = ctx.args
    ignored = [flag for flag, dest in (("--bootstrap-server", "bootstrap_server"),
                                       ("--command-config", "command_config"), ("--timeout", "timeout"))
               if getattr(args, dest, None) is not None]
    if ignored:
        raise UsageError(f"kadmin demo starts its own cluster: {', '.join(ignored)} does not apply to it")
    if not 1 <= args.brokers <= 16:
        raise UsageError(f"--brokers must be 1..16, not {args.brokers}")
    versions: Any = args.versions or DEFAULT_RELEASE
    if versions == "mixed":
        versions = {1: "2.2"} if args.brokers > 1 else "2.2"
    elif versions not in RELEASE_NAMES:
        raise UsageError(f"--versions {versions!r}: one of {', '.join(RELEASE_NAMES)} or 'mixed'")
    done = threading.Event()
    if not args.once and threading.current_thread() is threading.main_thread():
        # Explicit handlers: a process started in the background by a shell inherits SIGINT as ignored.
        signal.signal(signal.SIGINT, lambda *_: done.set())
        signal.signal(signal.SIGTERM, lambda *_: done.set())
    if args.properties_dir is not None and not args.sasl:
        raise UsageError("--properties-dir goes with --sasl (without SASL no login is needed)")
    if args.sasl and args.no_authorizer:
        raise UsageError("--sasl demonstrates the users' different rights: it needs the authorizer")
    p = ctx.printer
    demo = start_demo(args.brokers, versions, sasl=args.sasl, authorizer=not args.no_authorizer)
    with contextlib.ExitStack() as stack:
        stack.callback(demo.close)
        cluster = demo.cluster
        where = args.properties_dir
        if args.sasl and where is None:
            where = stack.enter_context(tempfile.TemporaryDirectory(prefix="kadmin-demo-"))
        files: dict[str, str] = {}
        for user, text in demo.logins.items():
            assert where is not None
            os.makedirs(where, exist_ok=True)
            path = os.path.join(where, f"{user}.properties")
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            files[user] = path
        export = f"export {ENV_BOOTSTRAP}={shlex.quote(cluster.bootstrap)}"
        steps = ([f"cd {shlex.quote(where)}"] if args.sasl and where is not None else []) + [export]
        if p.json:
            p.emit("demo", {"bootstrap": cluster.bootstrap, "brokers": cluster.node_ids,
                            "cluster_id": cluster.cluster_id, "authorizer": not args.no_authorizer,
                            "sasl": args.sasl, "properties": files, "logins": demo.logins,
                            "try": [*steps, *suggestions(args.sasl)]})
        else:
            p.lines([
                f"kadmin demo: an embedded fake cluster with {args.brokers} broker(s), at",
                f"  {cluster.bootstrap}"], full=True)
            security = ("no authorizer" if args.no_authorizer else
                        "an authorizer (super user: admin; alice has the ACLs 'kadmin acls list' shows)" if args.sasl
                        else "an authorizer (you are User:ANONYMOUS, a super user; alice has a few ACLs)")
            p.lines([
                "(kadmin.testing.FakeCluster in this process: it speaks Kafka's protocol, it is not Kafka)",
                "Seeded with topics orders and payments; groups orders-service (Stable), billing (Empty)",
                "and rebalancing; quotas for user alice, the default user and ip 10.0.0.5;",
                f"{security}; delegation tokens."], full=True)
            for user, path in files.items():
                p.lines(["", f"SASL/SCRAM login of {user} ({path}):",
                         *[f"  {line}" for line in demo.logins[user].splitlines()]], full=True)
            p.lines(["", "Try, in another terminal:"])
            p.lines([f"  {s}" for s in steps], full=True)
            p.lines([f"  {s}" for s in suggestions(args.sasl)], full=True)
            if not args.once:
                p.lines(["", "Ctrl-C stops the cluster."])
        p.out.flush()
        if not args.once:
            while not done.wait(0.5):
                pass
            p.err.write("kadmin demo: stopped\n")
    return 0
