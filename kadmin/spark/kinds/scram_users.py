"""The ``scram_users`` kind: SCRAM credentials, one row per (user, mechanism), passwords by reference.

A row carries the *name* of its secret (``password_ref``); the caller's ``secrets`` function resolves it on
the driver while the batch is built, the password is salted at once into a ``ScramUpsertion`` (which does not
keep it), and nothing of it reaches a DataFrame, a log line or an error text.  Users are the owners of the ACL
grants naming ``User:<user>``: a user whose row is rejected, whose credentials cannot be read, or whose upsert
fails gets none of its grants (they are ``skipped`` with the reason).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from kadmin.spark.kinds import Kind, Phase, Row, register
from kadmin.spark.kinds._sql import (
    Columns,
    Schema,
    column_or,
    frame,
    int_column,
    pick,
    read_kind,
    unreadable,
)
from kadmin.spark.kinds._sql import (
    dedupe as _dedupe,
)
from kadmin.spark.kinds._sql import (
    deletions as _deletions,
)
from kadmin.spark.kinds._sql import (
    enum as _enum,
)
from kadmin.spark.kinds._sql import (
    finish as _finish,
)
from kadmin.spark.kinds._sql import (
    hold_deletions as _hold_deletions,
)
from kadmin.spark.kinds._sql import (
    int_rules as _int_rules,
)
from kadmin.spark.kinds._sql import (
    reasons as _reasons,
)
from kadmin.spark.kinds._sql import (
    when as _when,
)
from kadmin.spark.kinds.context import (
    ApplyContext,
    ExportContext,
    Item,
    PlanContext,
    all_ok,
    one_per_row,
)
from kadmin.spark.sqltext import sql_name, sql_string

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from kadmin.client import AdminClient
    from kadmin.spark.spec import Scope, SecretResolver

log = logging.getLogger("kadmin.spark")

NAME = "scram_users"
COLUMNS = {"user": True, "mechanism": False, "iterations": False, "password_ref": True}
SCHEMA: Schema = (("user", "string"), ("mechanism", "string"), ("iterations", "bigint"), ("in_scope", "boolean"))


def read_scram(admin: AdminClient, scope: Scope | None) -> Columns:
    """Every SCRAM credential (user, mechanism, iterations); passwords are never readable, by design."""
    from kadmin.errors import KafkaError

    described = admin.describe_user_scram_credentials()
    cols: Columns = {n: [] for n, _ in SCHEMA}
    for user, infos in described.items():
        if isinstance(infos, KafkaError):
            raise infos
        for info in infos:
            cols["user"].append(user)
            cols["mechanism"].append(info.mechanism.mechanism_name)
            cols["iterations"].append(info.iterations)
            cols["in_scope"].append(scope is not None and scope.principal_in_scope("User:" + user))
    log.info("read %d SCRAM credential(s)", len(cols["user"]))
    return cols


EXPORT_SCHEMA: Schema = (("user", "string"), ("mechanism", "string"), ("iterations", "bigint"),
                         ("password_ref", "string"))
#: The environment variable an exported user's password reference names: this prefix and the user's name.
PASSWORD_VAR_PREFIX = "KADMIN_SCRAM_"


def password_refs(users: list[str]) -> dict[str, str]:
    """One reference per user (both mechanisms of a user share it): ``env:KADMIN_SCRAM_<NAME>``, the name upper
    case with every other character than A-Z and 0-9 as ``_``; names that fold to the same variable get
    ``_2``, ``_3``... in sorted order, so an export names the same variables every time."""
    import re

    taken: set[str] = set()
    out: dict[str, str] = {}
    for user in sorted(set(users)):
        base = PASSWORD_VAR_PREFIX + re.sub(r"[^A-Z0-9]", "_", user.upper())
        var, n = base, 2
        while var in taken:
            var, n = f"{base}_{n}", n + 1
        taken.add(var)
        out[user] = "env:" + var
    return out


def export(ctx: ExportContext) -> Columns:
    """Every credential (of the scope's principals): user, mechanism, iterations, and a password *reference*
    (:func:`password_refs`) to fill in: a broker never returns a password, and a spec never holds one."""
    cols = read_scram(ctx.admin, None)
    keep = [i for i, u in enumerate(cols["user"]) if ctx.principal_wanted("User:" + u)]
    cols["password_ref"] = [None] * len(cols["user"])
    out = pick(cols, keep, EXPORT_SCHEMA)
    refs = password_refs(out["user"])
    out["password_ref"] = [refs[u] for u in out["user"]]
    return out


def desired_scram(df: DataFrame) -> DataFrame:
    from kadmin.scram import DEFAULT_ITERATIONS, MAX_ITERATIONS, MIN_ITERATIONS

    it, it_bad = int_column(df, "iterations")
    mech = _enum(column_or(df, "mechanism", "CAST(NULL AS STRING)"))
    mech = f"regexp_replace({mech}, '_', '-')"
    mech = f"CASE WHEN {mech} IS NULL THEN 'SCRAM-SHA-256' WHEN {mech} LIKE 'SCRAM-%' THEN {mech} " \
           f"ELSE concat('SCRAM-', {mech}) END"
    base = df.selectExpr(f"CAST({sql_name('user')} AS STRING) AS user", f"{mech} AS mechanism",
                         f"coalesce({it}, {DEFAULT_ITERATIONS}) AS iterations", f"{it_bad} AS _it_bad",
                         f"nullif(trim(CAST({sql_name('password_ref')} AS STRING)), '') AS password_ref")
    q = sql_string("'")
    rules = [
        _when("user IS NULL OR user = ''", "'user is empty'"),
        _when("NOT mechanism IN ('SCRAM-SHA-256', 'SCRAM-SHA-512')",
              f"concat('unknown SCRAM mechanism ', {q}, mechanism, {q}, ' (SCRAM-SHA-256 or SCRAM-SHA-512)')"),
        *_int_rules("iterations", "_it_bad", "iterations", MIN_ITERATIONS, MAX_ITERATIONS),
        _when("password_ref IS NULL", "'password_ref is empty (the name of the secret to resolve)'"),
    ]
    checked = base.selectExpr("user", "mechanism", "iterations", "password_ref",
                              f"{_reasons(rules)} AS reason", "concat(coalesce(user, ''), '/', mechanism) AS key")
    return _dedupe(checked, "key", "concat(CAST(iterations AS STRING), '|', coalesce(password_ref, ''))", "reason")


def plan_scram(desired: DataFrame, current: DataFrame, *, remove_unlisted: bool) -> DataFrame:
    """create / alter (iterations differ) / unchanged / reject per (user, mechanism); deletions in scope.

    A broker never returns a password (only mechanism and iterations), so an existing credential with the
    same iterations is ``unchanged``: a re-run does not rotate passwords.  To rotate one, delete the
    credential (or change its iterations) and run again."""
    cur = current.selectExpr("concat(user, '/', mechanism) AS key", "user", "mechanism", "iterations", "in_scope")
    c = cur.selectExpr("key AS c_key", "iterations AS c_it")
    j = desired.join(c, desired["key"] == c["c_key"], "left")
    rows = j.selectExpr(
        "key", "CASE WHEN reason IS NOT NULL THEN 'reject' WHEN c_key IS NULL THEN 'create' "
               "WHEN c_it != iterations THEN 'alter' ELSE 'unchanged' END AS action",
        "CASE WHEN c_key IS NOT NULL THEN concat('iterations=', CAST(c_it AS STRING)) END AS old_value",
        "concat('iterations=', CAST(iterations AS STRING), ' password=<', coalesce(password_ref, ''), '>') "
        "AS new_value", "reason AS error",
        "map_filter(map('user', user, 'mechanism', mechanism, 'iterations', CAST(iterations AS STRING), "
        "'password_ref', password_ref), (k, v) -> v IS NOT NULL) AS args")
    out = _finish(rows, "scram_users")
    if remove_unlisted:
        gone = _deletions(cur, desired.select("key"), "concat('iterations=', CAST(iterations AS STRING))",
                          "map('user', user, 'mechanism', mechanism)")
        out = out.unionByName(_hold_deletions(_finish(gone, "scram_users"),
                                              desired.filter("reason IS NOT NULL").selectExpr("user AS _held"),
                                              "args['user']", "user"))
    return out


def plan(ctx: PlanContext) -> DataFrame:
    df = ctx.frame_of(NAME)
    assert df is not None
    cols, why = read_kind("SCRAM credentials", SCHEMA, lambda: read_scram(ctx.admin, ctx.scope))
    part = plan_scram(ctx.police(NAME, desired_scram(df)), frame(ctx.spark, cols, SCHEMA),
                      remove_unlisted=ctx.deletes[NAME])
    return unreadable(part, why)


def _scram_upsert(args: dict[str, str], secrets: SecretResolver | None) -> Any:
    from kadmin.scram import ScramUpsertion
    from kadmin.spark.spec import SpecError, env_or_file_secrets

    ref = args["password_ref"]
    if secrets is None:
        raise SpecError("scram_users needs a secrets function to resolve password_ref (secrets=...)")
    try:
        password = secrets(ref)
    except LookupError as exc:
        if secrets is env_or_file_secrets and exc.args:  # kadmin's own text: a variable's or a file's name
            raise SpecError(f"the secret {ref!r} could not be resolved: {exc.args[0]}") from None
        # A user function's KeyError may quote a token or the value: the reference and the type only.
        raise SpecError(f"the secret {ref!r} could not be resolved ({type(exc).__name__})") from None
    except Exception as exc:  # noqa: BLE001 - a user function: its text might hold the secret, so only the type
        raise SpecError(f"the secret {ref!r} could not be resolved ({type(exc).__name__})") from None
    if not isinstance(password, str) or not password:
        raise SpecError(f"the secret {ref!r} resolved to an empty or non-text value")
    return ScramUpsertion(args["user"], args["mechanism"], password, int(args["iterations"]))


def items(ctx: ApplyContext, phase: Phase, rows: list[Row]) -> list[Item]:
    from kadmin.scram import ScramDeletion

    def build(key: str, action: str, a: dict[str, str]) -> tuple[Any, str]:
        payload = ScramDeletion(a["user"], a["mechanism"]) if action == "delete" else _scram_upsert(a, ctx.secrets)
        return payload, a["user"]

    return one_per_row(ctx, phase, rows, build, lambda key, a: a.get("user", key))


def send(ctx: ApplyContext, batch: list[Item]) -> dict[str, BaseException | None]:
    if ctx.validate:
        return all_ok(batch)  # built (and salted) already: the client's rule
    return dict(ctx.admin.alter_user_scram_credentials([i.payload for i in batch], batch_size=ctx.batch_size))


KIND = register(Kind(
    name=NAME, order=0, columns=COLUMNS, plan=plan, items=items,
    export=export, export_schema=EXPORT_SCHEMA,
    phases=(Phase(NAME, ("create", "alter"), "SCRAM users upserted", 10, send, blocks=True),
            Phase(NAME, ("delete",), "SCRAM users deleted", 100, send)),
    owner_sql="args['user']",
    # A user whose row is rejected, or whose credentials could not be read, gets no grant.
    blocks_sql=lambda ctx: "action = 'reject' AND status IN ('failed', 'rejected')",
    blocks_why_sql="CASE WHEN status = 'rejected' THEN concat('its row ', key, ' is rejected: ', error) ELSE error END",
    owner_name=lambda a: a.get("user"),
))
