"""``kadmin users list|describe|set-password|delete``: SCRAM credentials (KIP-554, Kafka 2.7+).

Why there is no ``--password`` flag: a command line is visible to every user of the machine (``ps``), kept
in shell history and CI logs.  The password comes from a prompt (asked twice, not echoed), the first line of
standard input (``--password-stdin``) or an environment variable (``--password-env NAME``).  It is salted
on this machine (PBKDF2, a fresh random salt) and only the salted form is sent; kadmin never prints it.
"""

from __future__ import annotations

import argparse
import getpass
import os
import sys
from typing import TYPE_CHECKING, Any

from kadmin.cli.config import UsageError
from kadmin.cli.output import Column, JsonDict, error_json
from kadmin.errors import KafkaError
from kadmin.scram import (
    DEFAULT_ITERATIONS,
    MAX_ITERATIONS,
    MIN_ITERATIONS,
    ScramAlteration,
    ScramDeletion,
    ScramMechanism,
    ScramUpsertion,
)

if TYPE_CHECKING:
    from kadmin.cli.main import Context

_MECHANISMS = ("SCRAM-SHA-256", "SCRAM-SHA-512")


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("users", help="SCRAM users: list, describe, set-password, delete",
                       description="SCRAM credential commands (brokers need Kafka 2.7+).")
    usub = p.add_subparsers(dest="users_command", metavar="SUBCOMMAND", required=True)

    ls = usub.add_parser("list", parents=[common], help="every user with a SCRAM credential")
    ls.set_defaults(run=run_list)

    ds = usub.add_parser("describe", parents=[common], help="the SCRAM credentials of users",
                         description="Mechanisms and iteration counts of each user's credentials.")
    ds.add_argument("users", nargs="+", metavar="USER")
    ds.set_defaults(run=run_describe)

    sp = usub.add_parser("set-password", parents=[common], help="create or replace a user's SCRAM credential",
                         description="Set USER's password for each --mechanism (default SCRAM-SHA-512).  The "
                                     "password is read from a prompt, --password-stdin or --password-env, "
                                     "never from the command line.")
    sp.add_argument("user", metavar="USER")
    sp.add_argument("--mechanism", action="append", default=[], metavar="M",
                    help="SCRAM-SHA-256 or SCRAM-SHA-512 (repeatable; default SCRAM-SHA-512)")
    sp.add_argument("--iterations", type=int, default=DEFAULT_ITERATIONS, metavar="N",
                    help=f"PBKDF2 rounds, {MIN_ITERATIONS}..{MAX_ITERATIONS} (default {DEFAULT_ITERATIONS})")
    src = sp.add_mutually_exclusive_group()
    src.add_argument("--password-stdin", action="store_true", help="read the password from stdin's first line")
    src.add_argument("--password-env", metavar="NAME", help="read the password from environment variable NAME")
    sp.set_defaults(run=run_set_password)

    dl = usub.add_parser("delete", parents=[common], help="delete users' SCRAM credentials",
                         description="Delete the given mechanisms' credentials of each USER (default: every "
                                     "credential the user has).")
    dl.add_argument("users", nargs="+", metavar="USER")
    dl.add_argument("--mechanism", action="append", default=[], metavar="M",
                    help="SCRAM-SHA-256 or SCRAM-SHA-512 (repeatable; default: all the user has)")
    dl.set_defaults(run=run_delete)


def _users(values: list[str]) -> list[str]:
    for u in values:
        if not u:
            raise UsageError("a user name is empty")
    return list(dict.fromkeys(values))


def _mechanisms(values: list[str]) -> list[ScramMechanism]:
    out: list[ScramMechanism] = []
    for v in values:
        try:
            out.append(ScramMechanism.parse(v))
        except (TypeError, ValueError):
            raise UsageError(f"--mechanism {v!r}: one of {', '.join(_MECHANISMS)}") from None
    return list(dict.fromkeys(out))


def read_password(args: argparse.Namespace, stdin: Any = None, environ: Any = None) -> str:
    """The password from --password-env, --password-stdin, or a prompt on the terminal (asked twice)."""
    env = os.environ if environ is None else environ
    src = sys.stdin if stdin is None else stdin
    if args.password_env is not None:
        value = env.get(args.password_env)
        if value is None:
            raise UsageError(f"--password-env {args.password_env}: that environment variable is not set")
        password = value
    elif args.password_stdin:
        line = src.readline()
        password = line[:-1] if line.endswith("\n") else line
        password = password[:-1] if password.endswith("\r") else password
    else:
        if not src.isatty():
            raise UsageError("no terminal to prompt for the password: use --password-stdin or --password-env NAME")
        password = getpass.getpass(f"password for {args.user}: ")
        if getpass.getpass("again: ") != password:
            raise UsageError("the two passwords differ")
    if not password:
        raise UsageError("the password is empty")
    return password


def _infos_json(infos: Any) -> list[JsonDict]:
    return [{"mechanism": str(i.mechanism), "iterations": i.iterations} for i in infos]


def run_list(ctx: Context) -> int:
    with ctx.admin() as admin:
        users = admin.describe_user_scram_credentials()
    p = ctx.printer
    if p.json:
        p.emit("users list", {"users": [{"user": u, "credentials": _infos_json(i)} for u, i in users.items()
                                        if not isinstance(i, KafkaError)]})
        return 0
    p.table([Column("USER", flex=True), Column("MECHANISM"), Column("ITERATIONS", right=True)],
            [[u, str(i.mechanism), i.iterations] for u, infos in users.items() if not isinstance(infos, KafkaError)
             for i in infos])
    if not users:
        p.note("kadmin: no user has a SCRAM credential")
    return 0


def run_describe(ctx: Context) -> int:
    names = _users(ctx.args.users)
    with ctx.admin() as admin:
        got = admin.describe_user_scram_credentials(names)
    p = ctx.printer
    failed = {u: r for u, r in got.items() if isinstance(r, KafkaError)}
    if p.json:
        p.emit("users describe", {"users": [
            {"user": u, "credentials": [] if isinstance(r, KafkaError) else _infos_json(r),
             "error": error_json(r) if isinstance(r, KafkaError) else None} for u, r in got.items()]})
        return 1 if failed else 0
    p.table([Column("USER", flex=True), Column("MECHANISM"), Column("ITERATIONS", right=True)],
            [[u, str(i.mechanism), i.iterations] for u, r in got.items() if not isinstance(r, KafkaError) for i in r])
    for u, e in failed.items():
        p.key_error(u, e)
    return 1 if failed else 0


def _report(ctx: Context, command: str, changes: list[ScramAlteration], res: dict[str, None | KafkaError]) -> int:
    p = ctx.printer
    failed = {u: e for u, e in res.items() if e is not None}
    if p.json:
        p.emit(command, {"users": [
            {"user": u, "changes": [{"op": "set" if isinstance(c, ScramUpsertion) else "delete",
                                     "mechanism": str(c.mechanism),
                                     **({"iterations": c.iterations} if isinstance(c, ScramUpsertion) else {})}
                                    for c in changes if c.user == u],
             "error": error_json(e) if e is not None else None} for u, e in res.items()]})
        return 1 if failed else 0
    verb = "password set" if command == "users set-password" else "deleted"
    p.table([Column("USER", flex=True), Column("MECHANISM"), Column("RESULT")],
            [[c.user, str(c.mechanism), verb] for c in changes if res.get(c.user) is None])
    for u, e in failed.items():
        p.key_error(u, e)
    return 1 if failed else 0


def run_set_password(ctx: Context) -> int:
    args = ctx.args
    user = _users([args.user])[0]
    mechanisms = _mechanisms(args.mechanism) or [ScramMechanism.SCRAM_SHA_512]
    if not MIN_ITERATIONS <= args.iterations <= MAX_ITERATIONS:
        raise UsageError(f"--iterations must be between {MIN_ITERATIONS} and {MAX_ITERATIONS}, not {args.iterations}")
    password = read_password(args)
    changes: list[ScramAlteration] = [ScramUpsertion(user, m, password, args.iterations) for m in mechanisms]
    del password
    with ctx.admin() as admin:
        res = admin.alter_user_scram_credentials(changes)
    return _report(ctx, "users set-password", changes, res)


def run_delete(ctx: Context) -> int:
    names = _users(ctx.args.users)
    mechanisms = _mechanisms(ctx.args.mechanism)
    with ctx.admin() as admin:
        pre: dict[str, KafkaError] = {}
        if mechanisms:
            changes: list[ScramAlteration] = [ScramDeletion(u, m) for u in names for m in mechanisms]
        else:
            # Every credential each user has: a deletion of one that does not exist would be refused.
            have = admin.describe_user_scram_credentials(names)
            changes = []
            for u, r in have.items():
                if isinstance(r, KafkaError):
                    pre[u] = r
                else:
                    changes.extend(ScramDeletion(u, i.mechanism) for i in r)
        res: dict[str, None | KafkaError] = admin.alter_user_scram_credentials(changes) if changes else {}
    res = {u: pre.get(u, res.get(u)) for u in names}
    return _report(ctx, "users delete", changes, res)
