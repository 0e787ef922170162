"""``kadmin quotas describe|alter|resolve|provision``: client quotas (KIP-546 as shipped).

Why values are checked here before connecting: ``--set producer_byte_rate=1.5`` is a typo or a
misunderstanding, and the broker's answer to it differs between ZooKeeper and KRaft clusters and only comes
after a round trip.  ``kadmin.quotas`` holds the rules; this module parses the flags into its types, so a bad
flag fails with the same message the library would give, and nothing is sent.

Against a broker without the quota APIs (Kafka before 2.6, Tansu) every quota command exits 2 with one
"unsupported by this broker" line: no entity could be looked at, so there are no per-key results to report.
"""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TextIO

from kadmin.cli.config import UsageError, build_config, check_timeout
from kadmin.cli.output import Column, JsonDict, entity_json, error_json, summary_lines
from kadmin.cli.provision_input import FORMATS_HELP, check_columns, check_input
from kadmin.quotas import (
    CLIENT_ID,
    IP,
    USER,
    ClientQuotaAlteration,
    ClientQuotaEntity,
    ClientQuotaFilter,
    ClientQuotaFilterComponent,
    QuotaOp,
    Remove,
    ResolvedQuota,
    Set,
    UnknownQuotaKeyError,
    validate_alterations,
    validate_resolve_args,
)

if TYPE_CHECKING:
    from kadmin.cli.main import Context

_ENTITY_FLAGS = ((USER, "user", "NAME"), (CLIENT_ID, "client_id", "NAME"), (IP, "ip", "ADDR"))


def _entity_flags(p: argparse.ArgumentParser, defaults: bool = True) -> None:
    for entity_type, dest, metavar in _ENTITY_FLAGS:
        flag = "--" + entity_type
        if defaults:
            g = p.add_mutually_exclusive_group()
            g.add_argument(flag, dest=dest, metavar=metavar, help=f"the {entity_type} named {metavar}")
            g.add_argument(flag + "-default", dest=dest + "_default", action="store_true",
                           help=f"the default {entity_type} entity")
        else:
            p.add_argument(flag, dest=dest, metavar=metavar)


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("quotas", help="client quotas: describe, alter, resolve, provision",
                       description="Client quota commands (brokers need Kafka 2.6+).")
    qsub = p.add_subparsers(dest="quotas_command", metavar="SUBCOMMAND", required=True)

    ds = qsub.add_parser("describe", parents=[common], help="quotas configured on matching entities",
                         description="Quotas of every entity matching the flags (all entities without flags).  "
                                     "Non-strict, an entity may have types the flags do not name.")
    _entity_flags(ds)
    ds.add_argument("--strict", action="store_true", help="only entities with exactly the named types")
    ds.set_defaults(run=run_describe)

    al = qsub.add_parser("alter", parents=[common], help="set or remove quotas of one entity",
                         description="Set and/or remove quota keys of one entity, in one request.")
    _entity_flags(al)
    al.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE",
                    help="set KEY to VALUE (repeatable), e.g. producer_byte_rate=1048576")
    al.add_argument("--remove", dest="removes", action="append", default=[], metavar="KEY",
                    help="remove KEY, so the next level of the precedence order applies (repeatable)")
    al.add_argument("--validate-only", action="store_true", help="let the broker check, without applying")
    al.add_argument("--allow-unknown-keys", action="store_true",
                    help="send keys kadmin does not know (a newer broker's); the broker decides")
    al.set_defaults(run=run_alter)

    rs = qsub.add_parser("resolve", parents=[common], help="the quotas that apply to a client, and where from",
                         description="Which value of each quota applies to a client, and the entity it is set on, "
                                     "following Kafka's precedence (user+client-id, user, default user, ..., "
                                     "default client-id).  Leave out --user/--client-id for a client whose "
                                     "name has no entity of its own.")
    _entity_flags(rs, defaults=False)
    rs.set_defaults(run=run_resolve)

    pv = qsub.add_parser("provision", parents=[common], help="make quotas match a file (through Spark)",
                         formatter_class=argparse.RawDescriptionHelpFormatter,
                         description="Make the cluster's quotas match FILE (CSV, Parquet or JSON; long or wide "
                                     "layout, below), through a local Spark session.  Needs kadmin's [spark] "
                                     "extra and Java 17+.  The file's header and column types are checked before "
                                     "Spark starts.  Nothing is removed unless a flag says so "
                                     "(--remove-unlisted, --empty-means-remove); when one does, a line saying how "
                                     "many keys of which kinds of entity will be removed comes first.",
                         epilog=FORMATS_HELP)
    pv.add_argument("file", metavar="FILE")
    mode = pv.add_mutually_exclusive_group()
    mode.add_argument("--dry-run", action="store_true", help="show the plan; send nothing")
    mode.add_argument("--validate", action="store_true",
                      help="send the changes with validate_only: the brokers check them, nothing changes")
    pv.add_argument("--remove-unlisted", action="store_true",
                    help="remove quota keys that entities in scope have but FILE does not list")
    pv.add_argument("--scope", action="append", metavar="KIND", default=[],
                    help="entity kinds read and (with --remove-unlisted) pruned: user, client-id, "
                         "user+client-id, ip (repeatable), or all; default: the kinds in FILE")
    pv.add_argument("--empty-means-remove", action="store_true",
                    help="let a long-format row with an empty value remove its key (refused otherwise)")
    pv.add_argument("--all", action="store_true", dest="show_all",
                    help=f"list every row, unchanged ones too (default: the summary and the first "
                         f"{SHOWN_CHANGES} changes)")
    pv.add_argument("--batch-size", type=int, metavar="N", help="entities per request (default: kadmin's)")
    pv.add_argument("--file-format", choices=("csv", "parquet", "json"),
                    help="how to read FILE (default: from its extension)")
    pv.add_argument("--strict", action="store_true", help="refuse the whole file if any row is invalid")
    pv.add_argument("--allow-unknown-keys", action="store_true", help="send quota keys kadmin does not know")
    # No "waiting for the cluster" notice: the time goes to Spark jobs (the progress bar shows the sending).
    pv.set_defaults(run=run_provision, waiting_notice=False)


# --- parsing ------------------------------------------------------------------------------------------------


def _name(value: str, flag: str) -> str:
    if not value:
        raise UsageError(f"--{flag} needs a non-empty name (use --{flag}-default for the default entity)")
    return value


def entity_from_args(args: argparse.Namespace) -> ClientQuotaEntity | None:
    """The entity the flags name (None when no flag was given)."""
    parts: dict[str, str | None] = {}
    for entity_type, dest, _ in _ENTITY_FLAGS:
        name = getattr(args, dest, None)
        if name is not None:
            parts[entity_type] = _name(name, entity_type)
        elif getattr(args, dest + "_default", False):
            parts[entity_type] = None
    return ClientQuotaEntity(parts) if parts else None


def filter_from_args(args: argparse.Namespace) -> ClientQuotaFilter:
    entity = entity_from_args(args)
    if entity is None:
        if args.strict:
            raise UsageError("--strict needs at least one entity flag (--user, --client-id, --ip or a -default)")
        return ClientQuotaFilter.all()
    comps = [ClientQuotaFilterComponent.default(t) if n is None else ClientQuotaFilterComponent.exact(t, n)
             for t, n in entity.components]
    try:
        return ClientQuotaFilter(comps, strict=bool(args.strict))
    except ValueError as exc:
        raise UsageError(str(exc)) from None


_INT = re.compile(r"[+-]?\d+")
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def parse_value(key: str, text: str) -> float | int:
    """A quota value from the command line, written as a plain number: digits, an optional fraction and
    exponent (no spaces, no '_' separators, no nan/inf).  Integers stay ints when a float64 holds them
    exactly; one that it cannot hold is refused here, in the CLI's words, with the value it would become."""
    if not _NUMBER.fullmatch(text):
        raise UsageError(f"--set {key}={text}: {text!r} is not a plain number (digits, an optional fraction "
                         "and exponent; no spaces or '_')")
    if _INT.fullmatch(text):
        n = int(text)
        try:
            nearest = float(n)
        except OverflowError:
            raise UsageError(f"--set {key}={text}: too large for a quota (a float64)") from None
        if int(nearest) != n:
            raise UsageError(f"--set {key}={text}: {text} has no exact float64 value (quotas are doubles on the "
                             f"wire); the nearest is {int(nearest)}: give that to accept the rounding")
        return n if n else 0  # "-0" is 0
    value = float(text)
    if not math.isfinite(value):
        raise UsageError(f"--set {key}={text}: too large for a quota (a float64)")
    return value + 0.0  # "-0.0" is 0.0: a zero's sign means nothing to a rate


def ops_from_args(sets: Sequence[str], removes: Sequence[str]) -> list[QuotaOp]:
    ops: list[QuotaOp] = []
    for item in sets:
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep:
            raise UsageError(f"--set {item!r}: expected KEY=VALUE, e.g. --set producer_byte_rate=1048576")
        if not key:
            raise UsageError(f"--set {item!r}: the quota key is empty")
        if not raw.strip():
            raise UsageError(f"--set {item!r}: the value is empty (use --remove {key} to remove the key)")
        ops.append(Set(key, parse_value(key, raw)))  # an int is converted by ClientQuotaAlteration, exactly
    for key in removes:
        if not key.strip() or "=" in key:
            raise UsageError(f"--remove {key!r}: expected a quota key name, e.g. --remove consumer_byte_rate")
        ops.append(Remove(key.strip()))
    if not ops:
        raise UsageError("nothing to alter: give at least one --set KEY=VALUE or --remove KEY")
    return ops


# --- describe -----------------------------------------------------------------------------------------------


def _quota_rows(quotas: dict[ClientQuotaEntity, dict[str, float]]) -> list[list[object]]:
    return [[str(e), k, v] for e in sorted(quotas) for k, v in sorted(quotas[e].items())]


def run_describe(ctx: Context) -> int:
    flt = filter_from_args(ctx.args)
    with ctx.admin() as admin:
        quotas = admin.describe_client_quotas(flt)
    p = ctx.printer
    if p.json:
        p.emit("quotas describe", {
            "filter": {"components": [{"entity_type": c.entity_type, "match": c.match_type.name.lower(),
                                       "name": c.name} for c in flt.components], "strict": flt.strict},
            "entities": [{"entity": entity_json(e), "quotas": dict(sorted(quotas[e].items()))}
                         for e in sorted(quotas)]})
        return 0
    p.table([Column("ENTITY", flex=True), Column("KEY"), Column("VALUE", right=True)], _quota_rows(quotas))
    if not quotas:
        p.note(f"kadmin: no quotas configured on entities matching {flt}")
    return 0


# --- alter --------------------------------------------------------------------------------------------------


def _op_json(op: QuotaOp) -> JsonDict:
    if isinstance(op, Set):
        return {"op": "set", "key": op.key, "value": op.value}
    return {"op": "remove", "key": op.key}


def run_alter(ctx: Context) -> int:
    args = ctx.args
    entity = entity_from_args(args)
    if entity is None:
        raise UsageError("name the entity: --user NAME|--user-default, --client-id NAME|--client-id-default, "
                         "or --ip ADDR|--ip-default")
    ops = ops_from_args(args.sets, args.removes)
    try:
        alteration = ClientQuotaAlteration(entity, ops)
        validate_alterations([alteration], allow_unknown_keys=args.allow_unknown_keys)
    except UnknownQuotaKeyError as exc:
        flag = next((f"--set {item}" for item in args.sets if item.partition("=")[0].strip() == exc.key),
                    f"--remove {exc.key}")
        raise UsageError(f"{flag}: {exc.key!r} {exc.why}; pass --allow-unknown-keys to send it anyway (the broker "
                         "decides)") from None
    except (ValueError, TypeError) as exc:
        raise UsageError(str(exc)) from None
    with ctx.admin() as admin:
        res = admin.alter_client_quotas([alteration], validate_only=args.validate_only,
                                        allow_unknown_keys=args.allow_unknown_keys)
    err = res[entity]
    p = ctx.printer
    if p.json:
        p.emit("quotas alter", {"validate_only": args.validate_only, "entities": [{
            "entity": entity_json(entity), "ops": [_op_json(o) for o in alteration.ops],
            "error": error_json(err) if err is not None else None}]})
        return 1 if err is not None else 0
    if err is not None:
        p.key_error(str(entity), err)
        return 1
    verb = "validated by the broker (not applied)" if args.validate_only else "altered"
    p.table([Column("ENTITY", flex=True), Column("OP"), Column("KEY"), Column("VALUE", right=True),
             Column("RESULT")],
            [[str(entity), "set" if isinstance(o, Set) else "remove", o.key,
              o.value if isinstance(o, Set) else None, verb] for o in alteration.ops])
    return 0


# --- resolve ------------------------------------------------------------------------------------------------

_KNOWN_USER_CLIENT_KEYS = ("consumer_byte_rate", "controller_mutation_rate", "producer_byte_rate",
                           "request_percentage")


def _resolved_json(r: ResolvedQuota) -> JsonDict:
    return {"key": r.key, "value": r.value, "level": r.level, "entity": entity_json(r.source)}


def run_resolve(ctx: Context) -> int:
    args = ctx.args
    user = _name(args.user, "user") if args.user is not None else None
    client_id = _name(args.client_id, "client-id") if args.client_id is not None else None
    ip = _name(args.ip, "ip") if args.ip is not None else None
    try:
        validate_resolve_args(user, client_id, ip)
    except (ValueError, TypeError) as exc:
        raise UsageError(str(exc)) from None
    with ctx.admin() as admin:
        res = admin.resolve_client_quotas(user, client_id, ip)
    resolved = [*res.quotas.values(), *res.ip_quotas.values()]
    # The library resolves user/client-id keys unless only an ip was given; say which keys nothing sets.
    user_client = ip is None or user is not None or client_id is not None
    unset = [k for k in _KNOWN_USER_CLIENT_KEYS if k not in res.quotas] if user_client else []
    if ip is not None and "connection_creation_rate" not in res.ip_quotas:
        unset.append("connection_creation_rate")
    p = ctx.printer
    if p.json:
        p.emit("quotas resolve", {"user": user, "client_id": client_id, "ip": ip,
                                  "quotas": [_resolved_json(r) for r in resolved], "unset": unset})
        return 0
    who = ", ".join(f"{t} {n!r}" for t, n in (("user", user), ("client-id", client_id), ("ip", ip))
                    if n is not None) or "a client whose user and client-id have no entities of their own"
    p.lines([f"effective quotas for {who}:"])
    rows: list[list[object]] = [[r.key, r.value, r.level, str(r.source)] for r in resolved]
    rows += [[k, None, None, "(none set: the broker's static default applies)"] for k in unset]
    p.table([Column("KEY"), Column("VALUE", right=True), Column("LEVEL", right=True), Column("FROM", flex=True)],
            rows)
    return 0


# --- provision ----------------------------------------------------------------------------------------------


class ProgressBar:
    """A one-line progress bar on a terminal's stderr; nothing at all when stderr is not a terminal."""

    def __init__(self, stream: TextIO, width: int = 30) -> None:
        self.stream = stream
        self.width = width
        self.drawn = False
        self.last = ""

    def __call__(self, progress: Any) -> None:
        total = int(progress.entities_total)
        done = int(progress.entities_done)
        frac = float(progress.fraction)
        filled = int(frac * self.width)
        bar = "#" * filled + "." * (self.width - filled)
        failed = f", {progress.entities_failed} failed" if progress.entities_failed else ""
        text = f"[{bar}] {int(frac * 100):3d}% {done}/{total} entities{failed}"
        if text != self.last or not self.drawn:  # the last batch and "done" say the same: draw it once
            self.stream.write("\r" + text)
            self.last = text
            self.drawn = True
        if progress.phase == "done":
            self.finish()
        self.stream.flush()

    def finish(self) -> None:
        if self.drawn:
            self.stream.write("\n")
            self.drawn = False


def _file_format(path: str, fmt: str | None) -> str:
    """csv, parquet or json: as given, else from the extension (a directory is Spark's Parquet output)."""
    import os

    if not os.path.exists(path):
        raise UsageError(f"{path}: no such file")
    if fmt is not None:
        return fmt
    ext = os.path.splitext(path.rstrip("/"))[1].lower()
    found = {".csv": "csv", ".parquet": "parquet", ".pq": "parquet", ".json": "json", ".jsonl": "json",
             ".ndjson": "json"}.get(ext)
    if found is None and os.path.isdir(path):
        found = "parquet"
    if found is None:
        raise UsageError(f"{path}: cannot tell the format from the extension; pass --file-format csv|parquet|json")
    return found


def _read_frame(spark: Any, path: str, fmt: str) -> Any:
    import os

    if fmt == "csv":
        # Every column as text: the quota schema parses numbers exactly, where inferSchema could round.
        return spark.read.csv(path, header=True, inferSchema=False)
    if fmt == "parquet":
        return spark.read.parquet(path)
    multiline = False  # JSON lines, unless the file is one JSON array
    if os.path.isfile(path):
        with open(path, encoding="utf-8") as f:
            multiline = f.read(4096).lstrip().startswith("[")
    return spark.read.json(path, multiLine=multiline)


def _spark_session(debug: bool) -> Any:
    """The run's Spark session (:func:`kadmin.cli.spark_session.spark_session`); named here so that tests can
    refuse Spark before the input is checked."""
    from kadmin.cli.spark_session import spark_session

    return spark_session(debug, "kadmin quotas provision")


SHOWN_CHANGES = 20

_SCOPE_KINDS = {"user": ("user",), "client-id": ("client-id",), "client_id": ("client-id",),
                "user+client-id": ("user", "client-id"), "client-id+user": ("user", "client-id"),
                "user+client_id": ("user", "client-id"), "client_id+user": ("user", "client-id"), "ip": ("ip",)}


def scope_from_args(values: Sequence[str]) -> Any:
    """``--scope`` values as kadmin.spark takes them: None (the kinds in the file), "all", or a list of
    entity-type tuples.  Checked here, before Spark starts."""
    kinds: list[tuple[str, ...]] = []
    for v in values:
        for part in v.split(","):
            part = part.strip().lower()
            if not part:
                continue
            if part == "all":
                if len(values) > 1:
                    raise UsageError("--scope all cannot be combined with other --scope values")
                return "all"
            kind = _SCOPE_KINDS.get(part.replace(" ", ""))
            if kind is None:
                raise UsageError(f"--scope {part!r}: one of user, client-id, user+client-id, ip, all")
            if kind not in kinds:
                kinds.append(kind)
    return kinds or None


def run_provision(ctx: Context) -> int:
    args = ctx.args
    if args.batch_size is not None and args.batch_size < 1:
        raise UsageError(f"--batch-size must be at least 1, not {args.batch_size}")
    scope = scope_from_args(args.scope)
    mode = "plan" if args.dry_run else "validate" if args.validate else "apply"
    import importlib.util

    if importlib.util.find_spec("pyspark") is None:
        raise UsageError("quotas provision needs PySpark: install kadmin with its [spark] extra")
    # Configuration and file problems are usage errors: report them before starting a JVM.  (Checked, not
    # kept: the context's config is made when connecting, so that "waiting for the cluster" is not said
    # while it is Spark that is starting.)
    build_config(args.bootstrap_server, args.command_config, check_timeout(args.timeout))
    fmt = _file_format(args.file, args.file_format)
    shape = check_input(args.file, fmt)
    from kadmin.spark.kinds.quotas.stream import provision_quotas

    spark = _spark_session(ctx.debug)
    desired = _read_frame(spark, args.file, fmt)
    if shape is None:  # Parquet without pyarrow: the same checks on the schema Spark read
        shape = check_columns(args.file, desired.columns)
    if shape.layout == "long" and not args.empty_means_remove:
        _refuse_empty_values(desired, args.file)
    removals_possible = args.remove_unlisted or args.empty_means_remove
    bar = ProgressBar(ctx.printer.err) if ctx.printer.err.isatty() and mode != "plan" else None
    options: dict[str, Any] = {"remove_unlisted": args.remove_unlisted, "strict": args.strict,
                               "allow_unknown_keys": args.allow_unknown_keys, "scope": scope}
    p = ctx.printer
    try:
        with ctx.admin() as admin:
            if removals_possible and mode != "plan":
                # Say what will be removed before anything is: a plan first (it reads the current quotas).
                planned = provision_quotas(desired, admin, mode="plan", **options)
                p.note(removal_line(removal_counts(planned), mode))
            if args.batch_size is not None:
                options["batch_size"] = args.batch_size
            results = provision_quotas(desired, admin, mode=mode, progress=bar, **options)
            # Cached, so that the counts and the rows do not each recompute a plan (which reads the cluster's
            # current quotas); only the rows that are shown come to the driver.
            results = results.persist()
            try:
                counts = {(r["action"], r["status"]): int(r["count"])
                          for r in results.groupBy("action", "status").count().collect()}
                if removals_possible and mode == "plan":
                    p.note(removal_line(removal_counts(results), mode))
                bad = [r.asDict() for r in results.filter(results["status"].isin("failed", "rejected")).collect()]
                shown = results if args.show_all else results.filter(results["action"] != "unchanged")
                shown = shown.orderBy("user", "client_id", "ip", "quota_key")
                if not p.json and not args.show_all:
                    shown = shown.limit(SHOWN_CHANGES)
                rows = [r.asDict() for r in shown.collect()]
            finally:
                results.unpersist()
    finally:
        if bar is not None:
            bar.finish()
    return report_provision(ctx, mode, counts, rows, bad, show_all=args.show_all)


def _refuse_empty_values(desired: Any, path: str) -> None:
    """A long-format row with an empty value would remove its key: refused unless --empty-means-remove."""
    from pyspark.sql import functions as F

    entity = [c for c in ("user", "client_id", "client-id", "ip") if c in desired.columns]
    value = F.col(f"`{VALUE}`")
    blank = value.isNull()
    if dict(desired.dtypes).get(VALUE) == "string":
        blank = blank | (F.trim(value) == "")
    empty = desired.filter(blank)
    samples = empty.limit(3).collect()
    if not samples:
        return
    count = empty.count()
    who = "; ".join(" ".join([*(f"{c}={r[c]}" for c in entity if r[c] not in (None, "")), str(r["quota_key"])])
                    for r in samples)
    raise UsageError(f"{path}: {count} row(s) have an empty value ({who}{'; ...' if count > 3 else ''}); an empty "
                     "value would remove the key: give a value, or pass --empty-means-remove to remove such keys")


VALUE = "value"


def _kind(cells: dict[str, Any]) -> str:
    parts = []
    for col, label in (("user", "user"), ("client_id", "client-id"), ("ip", "ip")):
        v = cells.get(col)
        if v is not None:
            parts.append(f"default {label}" if v == "<default>" else label)
    return "+".join(parts) or "no entity"


def removal_counts(results: Any) -> dict[str, tuple[int, int]]:
    """{entity kind: (quota keys removed, entities)} of the rows whose action is ``remove``."""
    out: dict[str, tuple[int, int]] = {}
    rows = results.filter(results["action"] == "remove").groupBy("user", "client_id", "ip").count().collect()
    for r in rows:
        keys, entities = out.get(_kind(r.asDict()), (0, 0))
        out[_kind(r.asDict())] = (keys + int(r["count"]), entities + 1)
    return out


def removal_line(counts: dict[str, tuple[int, int]], mode: str) -> str:
    """The one line said before applying: how many keys of which kinds of entity the run removes."""
    verb = {"plan": "the plan removes", "validate": "validating the removal of"}.get(mode, "removing")
    if not counts:
        return f"kadmin: {verb} no quota keys"
    total = sum(k for k, _ in counts.values())
    parts = [f"{k} key{'' if k == 1 else 's'} on {n} {kind} entit{'y' if n == 1 else 'ies'}"
             for kind, (k, n) in sorted(counts.items())]
    return f"kadmin: {verb} {total} quota key{'' if total == 1 else 's'}: {', '.join(parts)}"


_RESULT_KEYS = ("user", "client_id", "ip", "quota_key", "old_value", "new_value", "action", "status", "error")


def report_provision(ctx: Context, mode: str, counts: dict[tuple[str, str], int], rows: list[dict[str, Any]],
                     bad: list[dict[str, Any]], *, show_all: bool = False) -> int:
    """Print a provisioning run: the rows (every one with --all or in JSON, else the first changes), the
    counts per (action, status), and each failed or rejected row on stderr."""
    p = ctx.printer
    if p.json:
        p.emit("quotas provision", {
            "mode": mode,
            "summary": [{"action": a, "status": s, "count": n} for (a, s), n in sorted(counts.items())],
            "changes": [{k: r.get(k) for k in _RESULT_KEYS} for r in rows]})
        return 1 if bad else 0
    changed = sum(n for (a, _), n in counts.items() if a != "unchanged")
    if rows:
        p.table([Column("USER", flex=True), Column("CLIENT-ID", flex=True), Column("IP", flex=True),
                 Column("KEY", flex=True), Column("OLD", right=True), Column("NEW", right=True), Column("ACTION"),
                 Column("STATUS")],
                [[r["user"], r["client_id"], r["ip"], r["quota_key"], r["old_value"], r["new_value"], r["action"],
                  r["status"]] for r in rows])
    if not show_all and changed > len(rows):
        p.lines([f"... and {changed - len(rows)} more changed row(s) (--all lists every row, -o json every "
                 "change)"])
    summary = [f"{n} {a}/{s}" for (a, s), n in sorted(counts.items())] or ["no rows"]
    p.lines(["", *summary_lines(mode, summary)], full=True)
    for r in sorted(bad, key=lambda r: tuple(str(r.get(c) or "") for c in ("user", "client_id", "ip", "quota_key"))):
        who = ", ".join(f"{c}={r[c]}" for c in ("user", "client_id", "ip") if r[c] is not None) or "(no entity)"
        p.note(f"kadmin: {who} {r['quota_key']}: {r['status']}: {r['error']}")
    if mode == "plan":
        p.lines(["(dry run: nothing was sent)"])
    return 1 if bad else 0
