"""Names and literals quoted for Spark SQL text: pure (no PySpark), so that every module building SQL can use
them without importing Spark."""

from __future__ import annotations


def sql_name(name: str) -> str:
    """A column name quoted for SQL text (and ``F.col``), so names with dots, dashes or quotes are taken literally."""
    return "`" + name.replace("`", "``") + "`"


def sql_string(text: str) -> str:
    """``text`` as a Spark SQL string literal (backslash escapes are on by default, so both are escaped)."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


__all__ = ["sql_name", "sql_string"]
