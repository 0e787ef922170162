"""``kadmin configs describe|alter``: configs of topics, brokers, broker loggers, groups, client-metrics.

Flags follow kafka-configs.sh: ``--entity-type topics|brokers|broker-loggers|groups|client-metrics``,
``--entity-name`` (repeatable) or ``--entity-default`` (the cluster-wide broker default), ``--add-config
k=v,k2=[a,b]``, ``--delete-config k,k2``; kadmin adds ``--append-config`` / ``--subtract-config`` for list
configs (IncrementalAlterConfigs).  ``describe`` shows what was set dynamically, like kafka-configs.sh;
``--all`` shows every key with its source; without a name it describes every entity of the type, as
kafka-configs.sh does (alter always needs names).  Sensitive values are never printed, in either format: the broker
does not send them, and what the caller sets is not echoed.
"""

from __future__ import annotations

import argparse
import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from kadmin.cli.config import UsageError
from kadmin.cli.output import MAX_WIDTH, Column, JsonDict, error_json
from kadmin.configs import (
    AppendConfig,
    ConfigEntry,
    ConfigOp,
    ConfigResource,
    ConfigResourceType,
    DeleteConfig,
    SetConfig,
    SubtractConfig,
    looks_sensitive,
    parse_assignments,
    resource_type,
    validate_alterations,
    validate_resources,
)
from kadmin.errors import KafkaError, UnsupportedVersionError

if TYPE_CHECKING:
    from kadmin.cli.main import Context
    from kadmin.client import AdminClient

ENTITY_TYPES = ("topics", "brokers", "broker-loggers", "groups", "client-metrics")
MASK = "<sensitive>"


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("configs", help="configs: describe, alter",
                       description="Config commands (like kafka-configs.sh).")
    csub = p.add_subparsers(dest="configs_command", metavar="SUBCOMMAND", required=True)

    def entity(q: argparse.ArgumentParser) -> None:
        q.add_argument("--entity-type", choices=ENTITY_TYPES,
                       help="the kind of entity (or one of the shortcuts --topic, --broker, --broker-defaults, "
                            "--broker-logger, --group)")
        # kafka-configs.sh's shortcuts: --topic T is --entity-type topics --entity-name T, and so on.
        q.add_argument("--topic", action="append", default=[], metavar="T", help="a topic (repeatable)")
        q.add_argument("--broker", action="append", default=[], metavar="ID", help="a broker id (repeatable)")
        q.add_argument("--broker-defaults", action="store_true", help="the cluster-wide broker default")
        q.add_argument("--broker-logger", action="append", default=[], metavar="ID",
                       help="a broker's loggers (repeatable)")
        q.add_argument("--group", action="append", default=[], metavar="G", help="a group (repeatable)")
        q.add_argument("--entity-name", action="append", default=[], metavar="NAME",
                       help="topic, broker id, group or subscription name (repeatable)")
        q.add_argument("--entity-default", action="store_true",
                       help="the cluster-wide default (brokers only)")

    ds = csub.add_parser("describe", parents=[common], help="show configs",
                         description="Show the dynamic configs of entities (--all: every config).")
    entity(ds)
    ds.add_argument("--all", action="store_true", help="every config, with its source")
    ds.add_argument("--synonyms", action="store_true", help="also where each value could come from")
    ds.add_argument("--documentation", action="store_true", help="also each config's documentation (Kafka 2.6+)")
    ds.set_defaults(run=run_describe)

    al = csub.add_parser("alter", parents=[common], help="set, delete, append, subtract configs",
                         description="Change configs.  Kafka before 2.3 has only AlterConfigs: kadmin then "
                                     "reads the configs and writes them back with the change.")
    entity(al)
    al.add_argument("--add-config", action="append", default=[], metavar="K=V,...",
                    help="set configs; [a,b] for a list value")
    al.add_argument("--delete-config", action="append", default=[], metavar="K,...", help="remove configs")
    al.add_argument("--append-config", action="append", default=[], metavar="K=V,...",
                    help="add items to list configs (Kafka 2.3+)")
    al.add_argument("--subtract-config", action="append", default=[], metavar="K=V,...",
                    help="remove items from list configs (Kafka 2.3+)")
    al.add_argument("--validate-only", action="store_true", help="let the broker check, change nothing")
    al.set_defaults(run=run_alter)


_SHORTCUTS = (("topic", "topics"), ("broker", "brokers"), ("broker_logger", "broker-loggers"), ("group", "groups"))


def apply_shortcuts(args: argparse.Namespace) -> None:
    """kafka-configs.sh's ``--topic T`` / ``--broker N`` / ``--broker-defaults`` / ``--broker-logger N`` /
    ``--group G`` turned into ``--entity-type`` and ``--entity-name`` (one entity type per command, as there)."""
    used = [(dest, etype) for dest, etype in _SHORTCUTS if getattr(args, dest)]
    if args.broker_defaults and not any(etype == "brokers" for _, etype in used):
        used.append(("broker_defaults", "brokers"))
    types = sorted({etype for _, etype in used})
    if len(types) > 1:
        raise UsageError(f"one entity type per command: the shortcuts name {' and '.join(types)}")
    if not types:
        if args.entity_type is None:
            raise UsageError("give --entity-type (topics, brokers, broker-loggers, groups, client-metrics) or a "
                             "shortcut: --topic, --broker, --broker-defaults, --broker-logger, --group")
        return
    if args.entity_type is not None and args.entity_type != types[0]:
        raise UsageError(f"--entity-type {args.entity_type} contradicts the {types[0]} shortcut")
    args.entity_type = types[0]
    for dest, _ in _SHORTCUTS:
        args.entity_name = [*args.entity_name, *getattr(args, dest)]
    if args.broker_defaults:
        args.entity_default = True


def resources(args: argparse.Namespace, *, describe_all: bool = False) -> list[ConfigResource]:
    """The named entities; none named is a usage error unless ``describe_all`` (describe), which then returns []
    for :func:`every_resource` to list, as kafka-configs.sh --describe does without --entity-name."""
    apply_shortcuts(args)
    t = resource_type(args.entity_type)
    names: list[str] = list(args.entity_name)
    if args.entity_default:
        if t is not ConfigResourceType.BROKER:
            raise UsageError("--entity-default works with --entity-type brokers only")
        names.append("")
    if not names:
        if not describe_all:
            raise UsageError("give --entity-name (or --entity-default for brokers)")
        return []
    try:
        return validate_resources([ConfigResource(t, n) for n in names])
    except (TypeError, ValueError) as exc:
        raise UsageError(str(exc)) from None


def _name(r: ConfigResource) -> str:
    return r.name if r.name else "<default>"


def _shown(e: ConfigEntry) -> str | None:
    return MASK if e.is_sensitive or (e.value is not None and looks_sensitive(e.name)) else e.value


def _documentation_lines(e: ConfigEntry) -> list[str]:
    """``  name: text``, wrapped at the table width rather than cut: documentation is read whole.  A broker before
    Kafka 2.6 sends none, which is said rather than left out."""
    text = e.documentation or "(no documentation from this broker)"
    return textwrap.wrap(f"{e.name}: {text}", MAX_WIDTH, initial_indent="  ", subsequent_indent="    ",
                         break_long_words=False, break_on_hyphens=False) or [f"  {e.name}:"]


def entry_json(e: ConfigEntry, synonyms: bool, docs: bool) -> JsonDict:
    out: JsonDict = {"name": e.name, "value": None if e.is_sensitive or looks_sensitive(e.name) else e.value,
                     "source": e.source.name, "sensitive": e.is_sensitive, "read_only": e.is_read_only,
                     "type": e.type.name}
    if synonyms:
        out["synonyms"] = [{"name": s.name, "value": None if e.is_sensitive or looks_sensitive(s.name) else s.value,
                            "source": s.source.name} for s in e.synonyms]
    if docs:
        out["documentation"] = e.documentation
    return out


def every_resource(admin: AdminClient, t: ConfigResourceType) -> tuple[list[ConfigResource], dict[int, KafkaError]]:
    """Every entity of type ``t``, listed as kafka-configs.sh --describe does without --entity-name: all topics
    (internal ones too), every broker and then the cluster-wide default "", every broker's loggers (there is no
    default for loggers), every group (ListConfigResources on Kafka 4.1+, else ListGroups), every client-metrics
    subscription (ListConfigResources).  Also the brokers whose group listing failed."""
    if t is ConfigResourceType.TOPIC:
        return [ConfigResource.topic(x.name) for x in admin.list_topics(internal=True)], {}
    if t in (ConfigResourceType.BROKER, ConfigResourceType.BROKER_LOGGER):
        ids = sorted(n.node_id for n in admin.describe_cluster().nodes)
        if t is ConfigResourceType.BROKER_LOGGER:
            return [ConfigResource.broker_logger(n) for n in ids], {}
        return [ConfigResource.broker(n) for n in ids] + [ConfigResource.broker("")], {}
    if t is ConfigResourceType.CLIENT_METRICS:
        # ListConfigResources (ListClientMetricsResources v0 on Kafka 3.7-4.0) names every subscription.
        return admin.list_config_resources([t]), {}
    assert t is ConfigResourceType.GROUP, t
    try:
        # KIP-1142 (Kafka 4.1+): groups with configs but no members too, which ListGroups does not list.
        return admin.list_config_resources([t]), {}
    except UnsupportedVersionError:
        pass
    listed = admin.list_consumer_groups()
    return [ConfigResource.group(g) for g in sorted(set(listed.group_ids()))], dict(listed.errors)


def run_describe(ctx: Context) -> int:
    a = ctx.args
    rs = resources(a, describe_all=True)
    listing_errors: dict[int, KafkaError] | None = None
    with ctx.admin() as admin:
        if not rs:
            rs, listing_errors = every_resource(admin, resource_type(a.entity_type))
        res = admin.describe_configs(rs, include_synonyms=a.synonyms,
                                     include_documentation=a.documentation) if rs else {}
    p = ctx.printer
    failed = [r for r in rs if isinstance(res[r], KafkaError)]
    status = 1 if failed or listing_errors else 0

    def shown(entries: dict[str, ConfigEntry]) -> list[ConfigEntry]:
        return [e for e in entries.values() if a.all or e.source.is_dynamic]

    if p.json:
        items = []
        for r in rs:
            got = res[r]
            item: JsonDict = {"entity_type": r.type.cli_name, "entity_name": r.name,
                              "error": error_json(got) if isinstance(got, KafkaError) else None}
            if not isinstance(got, KafkaError):
                item["configs"] = [entry_json(e, a.synonyms, a.documentation) for e in shown(got)]
            items.append(item)
        body: JsonDict = {"resources": items}
        if listing_errors is not None:
            body["listing_errors"] = [{"broker": n, "error": error_json(e)} for n, e in sorted(listing_errors.items())]
        p.emit("configs describe", body)
        return status
    for r in rs:
        got = res[r]
        if isinstance(got, KafkaError):
            continue
        p.lines([f"{r.type.cli_name} {_name(r)}:"])
        rows = [[e.name, _shown(e), e.source.name, "yes" if e.is_read_only else "no"] for e in shown(got)]
        p.table([Column("CONFIG", flex=True), Column("VALUE", flex=True), Column("SOURCE"), Column("READ-ONLY")],
                rows)
        # What --synonyms and --documentation asked for goes under the table, indented, config by config.
        for e in shown(got):
            if a.synonyms:
                for s in e.synonyms:
                    value = MASK if e.is_sensitive or looks_sensitive(s.name) else s.value
                    p.lines([f"  {e.name} <- {s.name}={value} ({s.source.name})"])
            if a.documentation:
                p.lines(_documentation_lines(e), full=True)
    for r in failed:
        err = res[r]
        assert isinstance(err, KafkaError)
        p.key_error(f"{r.type.cli_name} {_name(r)}", err)
    for node, lost in sorted((listing_errors or {}).items()):
        p.key_error(f"listing groups on broker {node}", lost)
    if listing_errors:
        p.note(f"kadmin: the list of groups is incomplete: {len(listing_errors)} broker(s) answered with an error")
    return status


def operations(args: argparse.Namespace) -> list[ConfigOp]:
    try:
        ops: list[ConfigOp] = []
        for text in args.add_config:
            ops += [SetConfig(k, v) for k, v in parse_assignments(text).items()]
        for text in args.append_config:
            ops += [AppendConfig(k, v) for k, v in parse_assignments(text).items()]
        for text in args.subtract_config:
            ops += [SubtractConfig(k, v) for k, v in parse_assignments(text).items()]
        for text in args.delete_config:
            ops += [DeleteConfig(k.strip()) for k in text.split(",") if k.strip()]
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if not ops:
        raise UsageError("nothing to change: give --add-config, --delete-config, --append-config or "
                         "--subtract-config")
    return ops


def run_alter(ctx: Context) -> int:
    rs = resources(ctx.args)
    ops = operations(ctx.args)
    try:
        checked = validate_alterations({r: ops for r in rs})
    except (TypeError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    with ctx.admin() as admin:
        res = admin.alter_configs(checked, validate_only=ctx.args.validate_only)
    return _report(ctx, rs, res, [op.name for op in ops])


def _report(ctx: Context, rs: Sequence[ConfigResource], res: Any, names: list[str]) -> int:
    p = ctx.printer
    failed = [r for r in rs if isinstance(res[r], KafkaError)]
    done = "validated" if ctx.args.validate_only else "altered"
    if p.json:
        p.emit("configs alter", {"resources": [
            {"entity_type": r.type.cli_name, "entity_name": r.name, "configs": names,
             "error": error_json(res[r]) if isinstance(res[r], KafkaError) else None} for r in rs]})
        return 1 if failed else 0
    ok = [r for r in rs if r not in failed]
    if ok:
        p.table([Column("ENTITY", flex=True), Column("RESULT"), Column("CONFIGS", flex=True)],
                [[f"{r.type.cli_name} {_name(r)}", done, ",".join(names)] for r in ok])
    for r in failed:
        p.key_error(f"{r.type.cli_name} {_name(r)}", res[r])
    return 1 if failed else 0
