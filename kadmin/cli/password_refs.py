"""A provisioning dry run resolves every ``password_ref`` of the SCRAM users file, in this process, before
anything else: an unset variable or a missing secret file is found by the plan, row by row, not only at
``--apply`` half-way through a run.

Kept apart from Spark: the references are read from the file with Python (CSV, JSON records, Parquet through
pyarrow), each distinct reference is resolved once, and only names (never values) are reported.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from kadmin.cli.json_records import iter_records
from kadmin.cli.tenant_input import SpecFile


@dataclass(frozen=True)
class Unresolved:
    """One row whose reference does not resolve: where (file, row number as the file counts them), whose, why."""

    path: str
    row: int
    user: str
    ref: str
    why: str

    def line(self) -> str:
        return f"kadmin: {self.path}: row {self.row} (user {self.user}): password_ref {self.ref!r}: {self.why}"


def _rows(spec: SpecFile) -> Iterator[tuple[int, Any, Any]]:
    """(row number, user, password_ref) of each record: the line for CSV (the header is line 1) and JSON lines,
    the 1-based record for Parquet."""
    if spec.fmt == "csv":
        with open(spec.path, encoding="utf-8-sig", newline="") as f:
            reader = csv.DictReader(f)
            for record in reader:
                yield reader.line_num, record.get("user"), record.get("password_ref")
    elif spec.fmt == "json":
        with open(spec.path, encoding="utf-8-sig") as f:
            for n, record in iter_records(f):
                if isinstance(record, dict):
                    yield n, record.get("user"), record.get("password_ref")
    else:
        import pyarrow.parquet as pq  # type: ignore[import-untyped]

        table = pq.read_table(spec.path, columns=["user", "password_ref"])
        for n, (user, ref) in enumerate(zip(table.column("user").to_pylist(),
                                            table.column("password_ref").to_pylist(), strict=True), start=1):
            yield n, user, ref


def unresolved_password_refs(files: list[SpecFile], resolve: Callable[[str], str]) -> list[Unresolved]:
    """Every row of the ``scram_users`` file whose ``password_ref`` ``resolve`` cannot resolve (it raises
    KeyError naming the reference, as kadmin.spark.spec.env_or_file_secrets does).  Rows without a reference
    (a deletion) are left to the spec's own checks."""
    out: list[Unresolved] = []
    seen: dict[str, str | None] = {}
    for spec in files:
        if spec.kind != "scram_users":
            continue
        for row, user, ref in _rows(spec):
            if not isinstance(ref, str) or not ref.strip():
                continue
            if ref not in seen:
                try:
                    resolve(ref)
                    seen[ref] = None
                except KeyError as exc:
                    seen[ref] = str(exc.args[0]) if exc.args else "cannot be resolved"
            why = seen[ref]
            if why is not None:
                out.append(Unresolved(spec.path, row, str(user), ref, why))
    return out
