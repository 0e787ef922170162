"""``kadmin provision SPEC_DIR_OR_FILE``: topics, topic configs, ACLs, SCRAM users and quotas from files, through
Spark (:func:`kadmin.spark.provision`).

The default is a dry run (the plan, nothing sent): provisioning writes security state, and a command that
creates users and grants access should say what it would do unless told to do it.  Files are checked before
Spark starts (:mod:`kadmin.cli.tenant_input`); SCRAM passwords come from ``password_ref`` references
(``env:VAR``, ``file:PATH``) resolved in this process, never from the files or argv.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from kadmin.cli.config import UsageError, build_config, check_timeout
from kadmin.cli.output import Column, more_line, summary_lines
from kadmin.cli.tenant_input import FORMATS_HELP, check_file, find_files

if TYPE_CHECKING:
    from kadmin.cli.main import Context

SHOWN = 20
NOT_OK = ("failed", "rejected", "skipped", "possibly-applied")


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("provision", parents=[common], help="make tenants (topics, configs, ACLs, users, quotas, "
                                                          "group offsets) match spec files (through Spark)",
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       description="Plan, validate or apply a tenant spec: a directory with one file per kind "
                                   "(or one such file).  Needs kadmin's [spark] extra and Java 17+.  Files are "
                                   "checked before Spark starts.  The default is --dry-run.",
                       epilog=FORMATS_HELP)
    p.add_argument("spec", metavar="SPEC_DIR_OR_FILE", nargs="?")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--dry-run", action="store_true", help="show the plan (and any drift); send nothing (default)")
    mode.add_argument("--validate", action="store_true",
                      help="brokers check the changes with validate_only where the API has it; nothing changes")
    mode.add_argument("--apply", action="store_true", help="make the changes")
    p.add_argument("--scope", action="append", default=[], metavar="FIELD=VALUE",
                   help="where --remove-unlisted may delete: topics=PREFIX, principals=PREFIX (e.g. User:t-), "
                        "groups=PREFIX, kinds=acls,topics (repeatable)")
    p.add_argument("--remove-unlisted", action="store_true",
                   help="delete in-scope entities the spec does not list (needs --scope)")
    p.add_argument("--policy", metavar="FILE",
                   help="a JSON policy file: rows breaking one of its rules are rejected with the "
                        "rule's name (checked before Spark starts; docs/provision.md, Policies)")
    p.add_argument("--batch-size", type=int, metavar="N", help="entities per request (default 1000)")
    p.add_argument("--save-plan", metavar="DIR", help="also write the plan as Parquet to DIR")
    p.add_argument("--all", action="store_true", dest="show_all",
                   help=f"list every row, unchanged ones too (default: the first {SHOWN} changes)")
    p.add_argument("--export", metavar="DIR",
                   help="write the cluster's topics, configs, ACLs, SCRAM users and quotas as a spec into DIR "
                        "(--scope narrows it) instead of provisioning")
    p.add_argument("--format", choices=("csv", "jsonl", "parquet"), default="csv",
                   help="with --export: the spec files' format (default csv)")
    p.add_argument("--force", action="store_true", help="with --export: write into a non-empty DIR, replacing "
                                                         "its spec files")
    p.add_argument("--include-group-offsets", action="store_true",
                   help="with --export: also the consumer groups' committed offsets (groups_offsets) and the "
                        "share groups' start offsets (share_groups_offsets)")
    p.set_defaults(run=run)


def run(ctx: Context) -> int:
    args = ctx.args
    if args.batch_size is not None and args.batch_size < 1:
        raise UsageError(f"--batch-size must be at least 1, not {args.batch_size}")
    if args.export is not None and args.policy is not None:
        raise UsageError("--policy checks a spec's rows when planning; it does not go with --export")
    if args.export is not None:
        from kadmin.cli.provision_export import run_export

        return run_export(ctx)
    if args.spec is None:
        raise UsageError("provision needs SPEC_DIR_OR_FILE (or --export DIR to write one)")
    if args.force or args.include_group_offsets or args.format != "csv":
        raise UsageError("--format, --force and --include-group-offsets go with --export")
    mode = "validate" if args.validate else "apply" if args.apply else "plan"
    files = find_files(args.spec)
    for f in files:
        check_file(f)
    policy = _policy(args.policy)
    scope = _scope(args.scope)
    if args.remove_unlisted and scope is None:
        raise UsageError("--remove-unlisted needs --scope (topics=PREFIX and/or principals=PREFIX): deletions "
                         "happen only inside it")
    import importlib.util

    if importlib.util.find_spec("pyspark") is None:
        raise UsageError("provision needs PySpark: install kadmin with its [spark] extra")
    build_config(args.bootstrap_server, args.command_config, check_timeout(args.timeout))
    from kadmin.cli.provision_frames import SMALL_SPEC_BYTES, read_spec_file, spec_bytes
    from kadmin.cli.spark_session import spark_session
    from kadmin.spark.apply import StderrProgress, provision
    from kadmin.spark.spec import TenantSpec, env_or_file_secrets

    small = spec_bytes(files) <= SMALL_SPEC_BYTES
    spark = spark_session(ctx.debug, "kadmin provision", small=small)
    spec = TenantSpec(secrets=env_or_file_secrets, **{f.kind: read_spec_file(spark, f, small) for f in files})
    p = ctx.printer
    options: dict[str, Any] = {"scope": scope, "remove_unlisted": args.remove_unlisted, "policy": policy}
    if args.batch_size is not None:
        options["batch_size"] = args.batch_size
    with ctx.admin() as admin:
        if args.save_plan:
            plan = provision(spec, admin, "plan", **options).persist()
            plan.write.mode("errorifexists").parquet(args.save_plan)
            p.note(f"kadmin: plan written to {args.save_plan}")
            if mode != "plan":
                # A plan DataFrame does not carry the spec's resolver: the SCRAM users need it again.
                results = provision(plan, admin, mode, progress=progress_line(StderrProgress(p.err), mode),
                                    secrets=env_or_file_secrets,
                                    **{k: v for k, v in options.items() if k == "batch_size"})
            else:
                results = plan
        else:
            results = provision(spec, admin, mode, progress=progress_line(StderrProgress(p.err), mode)
                                if mode != "plan" else None,
                                **options)
        got = _report_rows(results, small, args.show_all, p.json)
    code = report(ctx, mode, got.counts, got.rows, got.bad)
    if mode == "plan":  # the dry run resolves every password_ref too (an --apply run fails those rows itself)
        from kadmin.cli.password_refs import unresolved_password_refs

        missing = unresolved_password_refs(files, env_or_file_secrets)
        for m in missing:
            p.note(m.line())
        code = max(code, 1 if missing else 0)
    return code


def _policy(path: str | None) -> Any:
    """The policy file read and every rule checked (kadmin.spark.policy is pure: no Spark yet)."""
    if path is None:
        return None
    from kadmin.spark.policy import PolicyError, load_policy

    try:
        return load_policy(path)
    except PolicyError as exc:
        raise UsageError(f"--policy: {exc}") from None


def _report_rows(results: Any, small: bool, show_all: bool, json_out: bool) -> Any:
    """The counts, listed rows and rows not ok of ``results``: for a small spec in one Spark job (a plan that
    turns out long is reported the large way), else counted in Spark and only the listed rows collected."""
    from kadmin.cli.provision_frames import large_report, small_report

    shown = None if json_out or show_all else SHOWN
    options: dict[str, Any] = {"show_all": show_all, "shown": shown, "not_ok": NOT_OK, "bad_cap": 100}
    try:
        got = small_report(results, **options) if small else None
        return got if got is not None else large_report(results, **options)
    finally:
        results.unpersist()  # an apply's results are cached by apply_plan


def _scope(items: list[str]) -> Any:
    if not items:
        return None
    from kadmin.spark.spec import SpecError, parse_scope

    try:
        return parse_scope(items)
    except SpecError as exc:
        raise UsageError(f"--scope: {exc}") from None


#: A phase's title as a --validate run says it: nothing is created, granted or deleted then, only checked.
_TO_VALIDATE = {"upserted": "upsert", "created": "create", "added": "add", "reassigned": "reassign",
                "altered": "alter", "granted": "grant", "revoked": "revoke", "reset": "reset", "deleted": "delete"}


def validating_title(title: str) -> str:
    """``topics created`` -> ``validating: topics to create`` (the progress of ``--validate``)."""
    noun, _, verb = title.rpartition(" ")
    return f"validating: {noun} to {_TO_VALIDATE[verb]}" if verb in _TO_VALIDATE and noun else title


def progress_line(inner: Any, mode: str) -> Any:
    """The progress callback for ``mode``: under --validate each phase is named as checked, not done."""
    if mode != "validate":
        return inner
    import dataclasses

    return lambda p: inner(dataclasses.replace(p, phase=validating_title(p.phase)))


def report(ctx: Context, mode: str, counts: dict[tuple[str, str, str], int], rows: list[dict[str, Any]],
           bad: list[dict[str, Any]]) -> int:
    """The changes (or every row with --all), the counts per kind/action/status, and each row not ok."""
    p = ctx.printer
    code = 1 if any(s in NOT_OK for (_, _, s) in counts) else 0
    if p.json:
        p.emit("provision", {
            "mode": mode,
            "summary": [{"kind": k, "action": a, "status": s, "count": n} for (k, a, s), n in sorted(counts.items())],
            "rows": rows})
        return code
    p.table([Column("KIND"), Column("KEY", flex=True), Column("ACTION"), Column("OLD", flex=True),
             Column("NEW", flex=True), Column("STATUS")],
            [[r["kind"], r["key"], r["action"], r["old_value"], r["new_value"], r["status"]] for r in rows])
    changes = sum(n for (_, a, _), n in counts.items() if a not in ("unchanged",))
    if len(rows) < changes and not any(r["action"] == "unchanged" for r in rows):
        p.lines([f"({changes - len(rows)} more change(s) not shown; --all or -o json lists them)"])
    summary = [f"{n} {k} {a}/{s}" for (k, a, s), n in sorted(counts.items())] or ["no rows"]
    p.lines(["", *summary_lines(mode, summary)], full=True)
    for r in sorted(bad, key=lambda r: (str(r["kind"]), str(r["key"]))):
        p.note(f"kadmin: {r['kind']} {r['key']}: {r['status']}: {r['error']}")
    for line in more_line(len(bad), sum(n for (_, _, s), n in counts.items() if s in NOT_OK), "rows not ok"):
        p.note(line)
    if mode == "plan":
        p.lines(["(dry run: nothing was sent)"])
    return code
