"""``kadmin acls list|create|delete``: ACLs with kafka-acls.sh's flags, one result per binding or filter.

The flags are kafka-acls.sh's (``--allow-principal``, ``--deny-principal``, ``--operation``, ``--topic``,
``--group``, ``--cluster``, ``--transactional-id``, ``--resource-pattern-type``, ``--allow-host``,
``--deny-host``), so a runbook line translates one to one.  As there, ``create`` makes every combination of
the resources, principals (with their hosts) and operations given, and an operation that does not apply to a
resource type (READ on the cluster) is refused before anything is sent, because Kafka would store it and
never consult it.

``list`` with only ``--principal User:alice`` answers "what may alice do": her bindings and the ``User:*``
ones, folded per resource.
"""

from __future__ import annotations

import argparse
import itertools
import textwrap
from typing import TYPE_CHECKING, Any

from kadmin.acl_roles import CONSUMER, PRODUCER, Grant, role_grants
from kadmin.acls import (
    CLUSTER_NAME,
    VALID_OPERATIONS,
    AccessControlEntry,
    AccessControlEntryFilter,
    AclBinding,
    AclBindingFilter,
    AclDeletion,
    AclOperation,
    PatternType,
    ResourcePattern,
    ResourcePatternFilter,
    ResourceType,
    check_principal,
)
from kadmin.cli.config import UsageError
from kadmin.cli.output import MAX_WIDTH, Column, JsonDict, error_json

if TYPE_CHECKING:
    from kadmin.cli.main import Context

_RESOURCE_FLAGS = (("topic", ResourceType.TOPIC), ("group", ResourceType.GROUP),
                   ("transactional_id", ResourceType.TRANSACTIONAL_ID))
_OPERATIONS = [op.name for op in AclOperation if op not in (AclOperation.UNKNOWN, AclOperation.ANY)]


def _resource_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--topic", action="append", default=[], metavar="NAME", help="a topic (repeatable; * = all)")
    p.add_argument("--group", action="append", default=[], metavar="NAME", help="a consumer group (repeatable)")
    p.add_argument("--transactional-id", action="append", default=[], metavar="ID",
                   help="a transactional id (repeatable)")
    p.add_argument("--cluster", action="store_true", help="the cluster resource")


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("acls", help="ACLs: list, create, delete (kafka-acls.sh's flags)",
                       description="ACL commands.  The cluster needs an authorizer (else SECURITY_DISABLED).")
    asub = p.add_subparsers(dest="acls_command", metavar="SUBCOMMAND", required=True)

    ls = asub.add_parser("list", parents=[common], help="bindings matching the flags (all without flags)",
                         description="List ACL bindings.  With a resource flag, the bindings on it (pattern type "
                                     "'any' by default; 'match' also lists the wildcard and prefixes that apply "
                                     "to it).  With only --principal: what that principal may do, including "
                                     "User:* grants.")
    _resource_flags(ls)
    ls.add_argument("--resource-pattern-type", default="any", metavar="TYPE",
                    help="any (default), match, literal or prefixed")
    ls.add_argument("--principal", metavar="TYPE:NAME", help="only bindings of this principal")
    ls.set_defaults(run=run_list)

    who = asub.add_parser("whoami", parents=[common], help="this client's principal and what it may do",
                          description="The principal the cluster sees for this client's configuration, the "
                                      "operations it may perform on the cluster, and (when it may describe "
                                      "ACLs) its bindings, User:* ones included.")
    who.set_defaults(run=run_whoami)

    for name, helptext in (("create", "create bindings (every resource x principal x operation)"),
                           ("delete", "delete the bindings matching the flags")):
        c = asub.add_parser(name, parents=[common], help=helptext,
                            description=f"{name.capitalize()} ACL bindings for every combination of the resources, "
                                        "principals and operations given.")
        _resource_flags(c)
        c.add_argument("--resource-pattern-type", default="literal", metavar="TYPE",
                       help="literal (default) or prefixed" + ("" if name == "create" else "; also any, match"))
        c.add_argument("--allow-principal", action="append", default=[], metavar="TYPE:NAME")
        c.add_argument("--deny-principal", action="append", default=[], metavar="TYPE:NAME")
        c.add_argument("--allow-host", action="append", default=[], metavar="HOST",
                       help="hosts for the allow bindings (default: *)")
        c.add_argument("--deny-host", action="append", default=[], metavar="HOST",
                       help="hosts for the deny bindings (default: *)")
        c.add_argument("--operation", action="append", default=[], metavar="OP",
                       help=f"repeatable: {', '.join(_OPERATIONS)}" + ("" if name == "create" else " (default: any)"))
        c.add_argument("--producer", action="store_true",
                       help="kafka-acls.sh's producer role: WRITE, DESCRIBE, CREATE on each --topic; "
                            "WRITE, DESCRIBE on each --transactional-id")
        c.add_argument("--consumer", action="store_true",
                       help="kafka-acls.sh's consumer role: READ, DESCRIBE on each --topic; READ on each --group")
        c.add_argument("--idempotent", action="store_true",
                       help="with --producer: also IDEMPOTENT_WRITE on the cluster")
        c.set_defaults(run=run_create if name == "create" else run_delete)


# --- parsing ------------------------------------------------------------------------------------------------


def _pattern_type(text: str, allowed: tuple[PatternType, ...]) -> PatternType:
    try:
        pt = PatternType.parse(text)
    except ValueError:
        pt = PatternType.UNKNOWN
    if pt not in allowed:
        raise UsageError(f"--resource-pattern-type {text!r}: one of {', '.join(p.name.lower() for p in allowed)}")
    return pt


def resources(args: argparse.Namespace) -> list[tuple[ResourceType, str]]:
    out: list[tuple[ResourceType, str]] = []
    for dest, rt in _RESOURCE_FLAGS:
        for name in getattr(args, dest):
            if not name:
                raise UsageError(f"--{dest.replace('_', '-')} needs a non-empty name")
            out.append((rt, name))
    if args.cluster:
        out.append((ResourceType.CLUSTER, CLUSTER_NAME))
    return list(dict.fromkeys(out))


def operations(values: list[str]) -> list[AclOperation]:
    out: list[AclOperation] = []
    for v in values:
        try:
            op = AclOperation.parse(v)
        except ValueError:
            op = AclOperation.UNKNOWN
        if op in (AclOperation.UNKNOWN, AclOperation.ANY):
            raise UsageError(f"--operation {v!r}: one of {', '.join(_OPERATIONS)}")
        out.append(op)
    return list(dict.fromkeys(out))


def principals(args: argparse.Namespace, default_host: str | None = "*") -> list[tuple[str, str, str | None]]:
    """(principal, permission, host) for every --allow-/--deny-principal and its hosts (``default_host`` when
    none is given: ``*`` for bindings, None = any host for filters)."""
    out: list[tuple[str, str, str | None]] = []
    for perm, who, hosts in (("ALLOW", args.allow_principal, args.allow_host),
                             ("DENY", args.deny_principal, args.deny_host)):
        if hosts and not who:
            raise UsageError(f"--{perm.lower()}-host needs --{perm.lower()}-principal")
        for p in who:
            try:
                check_principal(p, f"--{perm.lower()}-principal")
            except ValueError as exc:
                raise UsageError(str(exc)) from None
            for h in hosts or [default_host]:
                if h is not None and not h:
                    raise UsageError(f"--{perm.lower()}-host is empty (use * for any host)")
                out.append((p, perm, h))
    return list(dict.fromkeys(out))


def cli_role_grants(args: argparse.Namespace) -> list[Grant] | None:
    """What kafka-acls.sh's ``--producer`` / ``--consumer`` expand to, resource by resource (None without them),
    from the one table of :mod:`kadmin.acl_roles` (which provisioning's ``acl_roles`` kind reads too).

    The same rules as kafka-acls.sh: a role needs a --topic, --consumer needs a --group, --producer takes no
    --group and --consumer no --transactional-id, a role replaces --operation and --cluster, and it only
    allows (no --deny-principal)."""
    if not (args.producer or args.consumer):
        if args.idempotent:
            raise UsageError("--idempotent goes with --producer")
        return None
    if args.operation:
        raise UsageError("--producer/--consumer choose the operations themselves: leave --operation out")
    if args.deny_principal or args.deny_host:
        raise UsageError("--producer/--consumer grant (ALLOW) only, as in kafka-acls.sh: leave --deny-principal and "
                         "--deny-host out")
    if args.cluster:
        raise UsageError("--producer/--consumer name no --cluster (--idempotent adds the cluster's IDEMPOTENT_WRITE)")
    if args.idempotent and not args.producer:
        raise UsageError("--idempotent goes with --producer")
    if not args.topic:
        raise UsageError("--producer/--consumer need at least one --topic")
    if args.consumer and not args.group:
        raise UsageError("--consumer needs a --group (the consumer group it reads as)")
    if args.producer and not args.consumer and args.group:
        raise UsageError("--group goes with --consumer, not --producer")
    if args.consumer and not args.producer and args.transactional_id:
        raise UsageError("--transactional-id goes with --producer, not --consumer")
    roles = [role for role, on in ((PRODUCER, args.producer), (CONSUMER, args.consumer)) if on]
    return role_grants(roles, resources(args), idempotent=args.idempotent)


def bindings_from_args(args: argparse.Namespace) -> list[AclBinding]:
    roles = cli_role_grants(args)
    if roles is not None:
        who = principals(args)
        if not who:
            raise UsageError("name at least one --allow-principal or --deny-principal (e.g. User:alice)")
        pt = _pattern_type(args.resource_pattern_type, (PatternType.LITERAL, PatternType.PREFIXED))
        return [AclBinding(ResourcePattern(rt, name, PatternType.LITERAL if rt is ResourceType.CLUSTER else pt),
                           AccessControlEntry(p, op, perm, host or "*"))
                for (rt, name, op), (p, perm, host) in itertools.product(roles, who)]
    res = resources(args)
    if not res:
        raise UsageError("name at least one resource: --topic, --group, --transactional-id or --cluster")
    who = principals(args)
    if not who:
        raise UsageError("name at least one --allow-principal or --deny-principal (e.g. User:alice)")
    ops = operations(args.operation)
    if not ops:
        raise UsageError("name at least one --operation (e.g. --operation read)")
    pt = _pattern_type(args.resource_pattern_type, (PatternType.LITERAL, PatternType.PREFIXED))
    for rt, _name in res:
        wrong = [op.name for op in ops if op not in VALID_OPERATIONS[rt]]
        if wrong:
            valid = ", ".join(sorted(o.name for o in VALID_OPERATIONS[rt]))
            raise UsageError(f"operation(s) {', '.join(wrong)} do not apply to {rt.name} resources; valid: {valid}")
    if pt is PatternType.PREFIXED and any(rt is ResourceType.CLUSTER for rt, _ in res):
        raise UsageError("the cluster resource has no prefixed form (its only name is kafka-cluster)")
    try:
        return [AclBinding(ResourcePattern(rt, name, pt), AccessControlEntry(p, op, perm, host or "*"))
                for (rt, name), (p, perm, host), op in itertools.product(res, who, ops)]
    except (TypeError, ValueError) as exc:
        raise UsageError(str(exc)) from None


def filters_from_args(args: argparse.Namespace) -> list[AclBindingFilter]:
    roles = cli_role_grants(args)
    if roles is not None:
        pt = _pattern_type(args.resource_pattern_type, (PatternType.LITERAL, PatternType.PREFIXED,
                                                        PatternType.ANY, PatternType.MATCH))
        anyone: list[tuple[str | None, str, str | None]] = [*principals(args, default_host=None)] or [
            (None, "ANY", None)]
        return list(dict.fromkeys(
            AclBindingFilter(ResourcePatternFilter(rt, name, PatternType.LITERAL if rt is ResourceType.CLUSTER else pt),
                             AccessControlEntryFilter(p, h, op, perm))
            for (rt, name, op), (p, perm, h) in itertools.product(roles, anyone)))
    res = resources(args)
    if not res:
        raise UsageError("name at least one resource to delete from: --topic, --group, --transactional-id or "
                         "--cluster ('kadmin acls list' shows every binding with its resource; a name matches "
                         "that name only, and --topic '*' the wildcard bindings themselves)")
    pt = _pattern_type(args.resource_pattern_type, (PatternType.LITERAL, PatternType.PREFIXED, PatternType.ANY,
                                                    PatternType.MATCH))
    who: list[tuple[str | None, str, str | None]] = [*principals(args, default_host=None)]
    if not who:
        who = [(None, "ANY", None)]
    ops: list[AclOperation] = operations(args.operation) or [AclOperation.ANY]
    return list(dict.fromkeys(
        AclBindingFilter(ResourcePatternFilter(rt, name, pt), AccessControlEntryFilter(p, h, op, perm))
        for (rt, name), (p, perm, h), op in itertools.product(res, who, ops)))


# --- output -------------------------------------------------------------------------------------------------

_COLUMNS = [Column("RESOURCE-TYPE"), Column("PATTERN"), Column("NAME", flex=True), Column("PRINCIPAL", flex=True),
            Column("HOST"), Column("OPERATION"), Column("PERMISSION")]


def binding_json(b: AclBinding) -> JsonDict:
    p, e = b.pattern, b.entry
    return {"resource_type": p.resource_type.name, "pattern_type": p.pattern_type.name, "name": p.name,
            "principal": e.principal, "host": e.host, "operation": e.operation.name, "permission": e.permission.name}


def _row(b: AclBinding) -> list[object]:
    p, e = b.pattern, b.entry
    return [p.resource_type.name, p.pattern_type.name, p.name, e.principal, e.host, e.operation.name,
            e.permission.name]


def filter_json(f: AclBindingFilter) -> JsonDict:
    p, e = f.pattern, f.entry
    return {"resource_type": p.resource_type.name, "pattern_type": p.pattern_type.name, "name": p.name,
            "principal": e.principal, "host": e.host, "operation": e.operation.name, "permission": e.permission.name}


# --- commands -----------------------------------------------------------------------------------------------


def run_list(ctx: Context) -> int:
    args = ctx.args
    res = resources(args)
    pt = _pattern_type(args.resource_pattern_type, (PatternType.ANY, PatternType.MATCH, PatternType.LITERAL,
                                                    PatternType.PREFIXED))
    if args.principal is not None:
        try:
            check_principal(args.principal, "--principal")
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    with ctx.admin() as admin:
        if not res and args.principal is not None and pt is PatternType.ANY:
            bindings = list(admin.describe_acls(principal=args.principal))
        else:
            filters = [AclBindingFilter(ResourcePatternFilter(rt, name, pt), AccessControlEntryFilter(args.principal))
                       for rt, name in res] or [AclBindingFilter(ResourcePatternFilter(pattern_type=pt),
                                                                 AccessControlEntryFilter(args.principal))]
            found: set[AclBinding] = set()
            for f in filters:
                found.update(admin.describe_acls(f))
            bindings = sorted(found, key=AclBinding.sort_key)
    p = ctx.printer
    if p.json:
        p.emit("acls list", {"bindings": [binding_json(b) for b in bindings]})
        return 0
    p.table(_COLUMNS, [_row(b) for b in bindings])
    if not bindings:
        p.note("kadmin: no ACL bindings match")
    return 0


def _raise_if_no_authorizer(errors: list[BaseException]) -> None:
    """Every binding refused with SECURITY_DISABLED: the cluster has no authorizer, so the command could not run
    (exit 2, one line, as ``acls list`` says it), not "some bindings failed" with a line per binding."""
    from kadmin.errors import ErrorCode, KafkaError

    if errors and all(isinstance(e, KafkaError) and e.code == ErrorCode.SECURITY_DISABLED for e in errors):
        raise errors[0]


def run_create(ctx: Context) -> int:
    bindings = bindings_from_args(ctx.args)
    with ctx.admin() as admin:
        res = admin.create_acls(bindings)
    if all(e is not None for e in res.values()):
        _raise_if_no_authorizer([e for e in res.values() if e is not None])
    p = ctx.printer
    failed = {b: e for b, e in res.items() if e is not None}
    if p.json:
        p.emit("acls create", {"bindings": [{**binding_json(b), "error": error_json(e) if e is not None else None}
                                            for b, e in res.items()]})
        return 1 if failed else 0
    p.table([*_COLUMNS, Column("RESULT")], [[*_row(b), "created"] for b, e in res.items() if e is None])
    for b, e in failed.items():
        p.key_error(str(b), e)
    return 1 if failed else 0


def run_delete(ctx: Context) -> int:
    filters = filters_from_args(ctx.args)
    with ctx.admin() as admin:
        res = admin.delete_acls(filters)
    if not any(isinstance(r, AclDeletion) for r in res.values()):
        _raise_if_no_authorizer([r for r in res.values() if not isinstance(r, AclDeletion)])
    p = ctx.printer
    bad = False
    if p.json:
        out = []
        for f, r in res.items():
            if isinstance(r, AclDeletion):
                bad = bad or bool(r.failed)
                out.append({"filter": filter_json(f), "deleted": [binding_json(b) for b in r.deleted],
                            "failed": [{**binding_json(b), "error": error_json(e)} for b, e in r.failed.items()],
                            "error": None})
            else:
                bad = True
                out.append({"filter": filter_json(f), "deleted": [], "failed": [], "error": error_json(r)})
        p.emit("acls delete", {"filters": out})
        return 1 if bad else 0
    rows: list[list[object]] = []
    for f, r in res.items():
        if isinstance(r, AclDeletion):
            rows.extend([*_row(b), "deleted"] for b in r.deleted)
            for b, e in r.failed.items():
                bad = True
                p.key_error(str(b), e)
        else:
            bad = True
            p.key_error(str(f), r)
    p.table([*_COLUMNS, Column("RESULT")], rows)
    if not rows and not bad:
        p.note("kadmin: no ACL bindings matched; nothing was deleted")
    return 1 if bad else 0


def run_whoami(ctx: Context) -> int:
    from kadmin.errors import ErrorCode, KafkaError

    with ctx.admin() as admin:
        me = admin.whoami()
        bindings: list[AclBinding] | None = None
        note = None
        if me.principal is not None:
            try:
                bindings = list(admin.describe_acls(principal=me.principal))
            except KafkaError as exc:
                if exc.code not in (ErrorCode.CLUSTER_AUTHORIZATION_FAILED, ErrorCode.SECURITY_DISABLED):
                    raise
                note = f"{exc.name}: bindings not listed"
    ops = None if me.cluster_operations is None else sorted(op.name for op in me.cluster_operations)
    p = ctx.printer
    if p.json:
        p.emit("acls whoami", {"principal": me.principal, "cluster_operations": ops,
                               "bindings": None if bindings is None else [binding_json(b) for b in bindings]})
        return 0
    if me.principal is not None:
        who = me.principal
    elif ctx.config().sasl_token_auth:
        who = "(the owner of the delegation token this client logs in with)"
    else:
        who = "(decided by the TLS certificate)"
    listed = ", ".join(ops) if ops else ("none" if ops is not None else "unknown")
    # Wrapped, never cut: the operations are the answer (defect: the list used to end in "IDEMP~").
    p.lines([f"principal: {who}", *textwrap.wrap(f"cluster operations: {listed}", MAX_WIDTH,
                                                   subsequent_indent="  ", break_long_words=False)], full=True)
    if bindings is not None:
        p.table(_COLUMNS, [_row(b) for b in bindings])
    if note:
        p.note(f"kadmin: {note}")
    return 0
