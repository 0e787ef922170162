"""The columns of each tenant-spec kind: one table shared by the Spark side (:mod:`kadmin.spark.spec`) and the
CLI's checks made before Spark starts (:mod:`kadmin.cli.tenant_input`), read from the kinds' own
declarations.  Pure: importing it needs no PySpark."""

from __future__ import annotations

from kadmin.spark.kinds import kinds

#: Entity kinds, in the order their results are listed: one module each in kadmin/spark/kinds/.
KINDS: tuple[str, ...] = tuple(k.name for k in kinds())

#: kind -> {column: required}, as each kind declares them; ``quotas`` has its own formats
#: (:mod:`kadmin.spark.kinds.quotas.schema`).
COLUMNS: dict[str, dict[str, bool]] = {k.name: dict(k.columns) for k in kinds() if k.columns}
#: Columns holding whole numbers (as numbers or numeric text).
INT_COLUMNS = frozenset({"partitions", "replication_factor", "iterations", "partition"})
#: Column names that would hold a secret in clear: refused, with the reason.
SECRET_COLUMNS = frozenset({"password", "secret", "passwd", "pwd", "salted_password"})


def column_problem(kind: str, columns: list[str]) -> str | None:
    """What is wrong with ``columns`` for ``kind`` (a secret column, a missing or unknown one), or None."""
    wanted = COLUMNS[kind]
    secret = sorted(c for c in columns if c.lower() in SECRET_COLUMNS)
    if secret:
        return (f"column {secret[0]!r} would hold a secret in clear; give password_ref, the name of a secret "
                "that is resolved on the driver")
    missing = [c for c, required in wanted.items() if required and c not in columns]
    if missing:
        return (f"missing column(s) {', '.join(missing)} (it has {', '.join(sorted(columns)) or 'none'}; "
                f"expected {', '.join(wanted)})")
    unknown = sorted(c for c in columns if c not in wanted)
    if unknown:
        return f"unknown column(s) {', '.join(unknown)} (expected {', '.join(wanted)})"
    return None
