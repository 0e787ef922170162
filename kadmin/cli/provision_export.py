"""``kadmin provision --export DIR``: the cluster written as a spec that ``kadmin provision DIR`` reads
(:func:`kadmin.spark.export.export`).

The folder is checked before Spark starts (a refused export costs no JVM).  What could not be read (ACLs on a
cluster without an authorizer, or denied to the caller) is named on stderr and makes the exit status 1; the
other kinds are written.  SCRAM passwords are never exported: the references to fill in are listed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kadmin.cli.config import UsageError, build_config, check_timeout
from kadmin.cli.output import Column

if TYPE_CHECKING:
    from kadmin.cli.main import Context


def run_export(ctx: Context) -> int:
    args = ctx.args
    if args.spec is not None:
        raise UsageError("--export writes a spec: give no SPEC_DIR_OR_FILE")
    if args.validate or args.apply or args.remove_unlisted or args.save_plan or args.batch_size is not None:
        raise UsageError("--export reads the cluster only: --validate, --apply, --remove-unlisted, --save-plan "
                         "and --batch-size do not go with it")
    from kadmin.cli.provision import _scope
    from kadmin.spark.export import check_directory

    scope = _scope(args.scope)
    try:
        check_directory(args.export, args.force)
    except (FileExistsError, NotADirectoryError) as exc:
        raise UsageError(str(exc)) from None
    import importlib.util

    if importlib.util.find_spec("pyspark") is None:
        raise UsageError("provision --export needs PySpark: install kadmin with its [spark] extra")
    build_config(args.bootstrap_server, args.command_config, check_timeout(args.timeout))
    from kadmin.cli.quotas import _spark_session
    from kadmin.spark.export import export

    spark = _spark_session(ctx.debug)
    with ctx.admin() as admin:
        result = export(admin, spark, args.export, scope=scope, format=args.format,
                        include_group_offsets=args.include_group_offsets, force=args.force)
    return report(ctx, result)


def report(ctx: Context, result: Any) -> int:
    """Rows and file per kind (stdout), then on stderr each kind that could not be read, what was left out,
    and the password references a provision of the folder needs."""
    p = ctx.printer
    kinds = [*result.rows, *result.missing]
    if p.json:
        p.emit("provision export", {
            "directory": result.directory, "format": result.format,
            "kinds": [{"kind": k, "rows": result.rows.get(k), "file": result.files.get(k),
                       "error": result.missing.get(k)} for k in kinds],
            "password_refs": result.password_refs, "notes": list(result.notes)})
    else:
        p.table([Column("KIND"), Column("ROWS"), Column("FILE", flex=True)],
                [[k, result.rows.get(k, "-"), result.files.get(k, "-" if k in result.rows else "not exported")]
                 for k in kinds])
    for kind, why in result.missing.items():
        p.note(f"kadmin: {kind}: not exported: {why}")
    for note in result.notes:
        p.note(f"kadmin: {note}")
    if result.password_refs:
        p.note(f"kadmin: SCRAM passwords are not readable: {len(result.password_refs)} user(s) get a password_ref "
               f"to fill in before a provision creates them ({', '.join(sorted(set(result.password_refs.values())))})")
    return 0 if result.complete else 1
