"""The columns of each tenant-spec kind: one table shared by the Spark side (:mod:`kadmin.spark.spec`) and the
CLI's checks made before Spark starts (:mod:`kadmin.cli.tenant_input`).  Pure: importing it needs no PySpark."""

from __future__ import annotations

#: Entity kinds, in the order their results are listed.
KINDS: tuple[str, ...] = ("scram_users", "topics", "topic_configs", "acls", "groups_offsets", "quotas")

#: kind -> {column: required}; ``quotas`` has its own formats (:mod:`kadmin.spark.schema`).
COLUMNS: dict[str, dict[str, bool]] = {
    "topics": {"name": True, "partitions": False, "replication_factor": False, "configs": False},
    "topic_configs": {"topic": True, "config": True, "value": True},
    "acls": {"principal": True, "host": False, "operation": True, "permission": False, "resource_type": True,
             "resource_name": True, "pattern_type": False},
    "scram_users": {"user": True, "mechanism": False, "iterations": False, "password_ref": True},
    "groups_offsets": {"group": True, "topic": True, "partition": False, "target": True},
}
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
