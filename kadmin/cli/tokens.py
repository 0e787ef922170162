"""``kadmin tokens create|renew|expire|describe``: delegation tokens, like kafka-delegation-tokens.sh.

The flags are that tool's (``--max-life-time-period``, ``--renewer-principal``, ``--owner-principal``,
``--hmac``, ``--renew-time-period``, ``--expiry-time-period``).  A token's HMAC is its password, so it is
printed once, by ``create`` (the one moment it is needed, to hand to the client that logs in with it), and
never by ``describe``.  Brokers issue tokens only to SASL (non-token) logins with
``delegation.token.secret.key`` set; their refusal is the command's error (exit 2, one line).
"""

from __future__ import annotations

import argparse
import base64
import binascii
from typing import TYPE_CHECKING, Any

from kadmin.cli.config import UsageError
from kadmin.cli.output import Column, JsonDict, iso_time
from kadmin.tokens import DelegationToken, check_principals

if TYPE_CHECKING:
    from kadmin.cli.main import Context


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("tokens", help="delegation tokens: create, renew, expire, describe",
                       description="Delegation token commands (like kafka-delegation-tokens.sh).")
    tsub = p.add_subparsers(dest="tokens_command", metavar="SUBCOMMAND", required=True)

    cr = tsub.add_parser("create", parents=[common], help="a token for this principal (or --owner-principal)",
                         description="Create a delegation token and print it with its HMAC (base64), which is "
                                     "the password a client logs in with (SCRAM, tokenauth=true).")
    cr.add_argument("--max-life-time-period", type=int, default=-1, metavar="MS",
                    help="the token's maximum life in ms (default -1: the broker's delegation.token.max.lifetime.ms)")
    cr.add_argument("--renewer-principal", action="append", default=[], metavar="User:NAME",
                    help="a principal that may renew the token (repeatable)")
    cr.add_argument("--owner-principal", metavar="User:NAME",
                    help="create it for this user (Kafka 3.3+, needs CREATE_TOKENS on that user)")
    cr.set_defaults(run=run_create)

    for name, period, helptext in (
            ("renew", "--renew-time-period", "push a token's expiry to now + the period (capped at its max)"),
            ("expire", "--expiry-time-period", "expire a token after the period (negative: now)")):
        q = tsub.add_parser(name, parents=[common], help=helptext, description=helptext[0].upper() + helptext[1:] + ".")
        q.add_argument("--hmac", required=True, metavar="BASE64", help="the token's HMAC, as create printed it")
        q.add_argument(period, type=int, default=-1, metavar="MS", dest="period",
                       help="milliseconds (default -1: " + ("the broker's renew interval)" if name == "renew"
                                                           else "now)"))
        q.set_defaults(run=run_renew if name == "renew" else run_expire)

    ds = tsub.add_parser("describe", parents=[common], help="tokens this principal may see",
                         description="Describe the delegation tokens of --owner-principal (every owner without it) "
                                     "that this principal may see.  HMACs are never printed.")
    ds.add_argument("--owner-principal", action="append", default=[], metavar="User:NAME",
                    help="only tokens of this owner (repeatable)")
    ds.set_defaults(run=run_describe)


def _principals(values: list[str], flag: str) -> list[str]:
    try:
        return check_principals(values, flag) or []
    except (TypeError, ValueError) as exc:
        raise UsageError(str(exc)) from None


def _hmac(text: str) -> bytes:
    try:
        raw = base64.b64decode(text.strip(), validate=True)
    except (binascii.Error, ValueError):
        raw = b""
    if not raw:
        raise UsageError(f"--hmac {text!r} is not base64 (give the HMAC 'kadmin tokens create' printed)")
    return raw


def token_json(t: DelegationToken, *, hmac: bool) -> JsonDict:
    out: JsonDict = {"token_id": t.token_id, "owner": t.owner, "requester": t.requester,
                     "renewers": list(t.renewers), "issue_timestamp": t.issued_ms, "expiry_timestamp": t.expires_ms,
                     "max_timestamp": t.max_ms}
    if hmac:
        out["hmac"] = base64.b64encode(t.hmac).decode("ascii")
    return out


# The issue date is in the JSON (issue_timestamp): with it a token's row no longer fits 100 columns.
_COLUMNS = [Column("TOKEN-ID"), Column("OWNER", flex=True), Column("RENEWERS", flex=True), Column("EXPIRES"),
            Column("MAX")]


def _row(t: DelegationToken) -> list[object]:
    return [t.token_id, t.owner, ",".join(t.renewers) or None, iso_time(t.expires_ms, minutes=True),
            iso_time(t.max_ms, minutes=True)]


def run_create(ctx: Context) -> int:
    a = ctx.args
    renewers = _principals(a.renewer_principal, "--renewer-principal")
    owner = _principals([a.owner_principal], "--owner-principal")[0] if a.owner_principal else None
    with ctx.admin() as admin:
        token = admin.create_delegation_token(renewers=renewers, max_lifetime_ms=a.max_life_time_period, owner=owner)
    p = ctx.printer
    if p.json:
        p.emit("tokens create", {"token": token_json(token, hmac=True)})
        return 0
    p.table(_COLUMNS, [_row(token)])
    # The HMAC on a line of its own, never shortened: it is copied into a client's configuration.
    p.lines(["", f"HMAC: {base64.b64encode(token.hmac).decode('ascii')}",
             "(the password of a SCRAM login with username the token id and tokenauth=\"true\"; kept nowhere else)"],
            full=True)
    return 0


def _change(ctx: Context, command: str) -> int:
    key = _hmac(ctx.args.hmac)
    with ctx.admin() as admin:
        if command == "renew":
            expiry = admin.renew_delegation_token(key, renew_period_ms=ctx.args.period)
        else:
            expiry = admin.expire_delegation_token(key, expiry_period_ms=ctx.args.period)
    p = ctx.printer
    if p.json:
        p.emit(f"tokens {command}", {"expiry_timestamp": expiry})
    else:
        p.lines([f"{'renewed' if command == 'renew' else 'expiry set'}: the token expires at "
                 f"{iso_time(expiry)} ({expiry} ms)"], full=True)
    return 0


def run_renew(ctx: Context) -> int:
    return _change(ctx, "renew")


def run_expire(ctx: Context) -> int:
    return _change(ctx, "expire")


def run_describe(ctx: Context) -> int:
    owners = _principals(ctx.args.owner_principal, "--owner-principal")
    with ctx.admin() as admin:
        found = admin.describe_delegation_tokens(owners or None)
    p = ctx.printer
    if p.json:
        p.emit("tokens describe", {"tokens": [token_json(t, hmac=False) for t in found]})
        return 0
    p.table(_COLUMNS, [_row(t) for t in found])
    if not found:
        p.note("kadmin: no delegation tokens (that this principal may see)")
    return 0
