"""Export a live cluster into a tenant spec: the first step of bringing an existing cluster under provisioning.

Each kind reads the cluster's entities back as its own spec rows (``Kind.export``: the same reads its plan
makes for its diff), and this module writes them in the files ``kadmin provision`` reads (one per kind:
``topics.csv``, ``acls.jsonl``, ``quotas.parquet``...), so that a provision of the export against the same
cluster plans no change, and against an empty one recreates it.  Generic over the registered kinds: a kind
with an ``export`` is exported, in the registry's order.

What cannot be exported as a value: SCRAM passwords (a broker never returns one): each user's ``password_ref``
is a reference to fill in (``env:KADMIN_SCRAM_<USER>``, listed in :attr:`ExportResult.password_refs`), and
sensitive topic configs (noted, left out).  A kind the caller may not describe (ACLs on a cluster without an
authorizer, or denied by it) is reported in :attr:`ExportResult.missing` and the others are written.
"""

from __future__ import annotations

import csv
import functools
import json
import logging
import os
import shutil
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kadmin.spark.kinds import Kind, kinds
from kadmin.spark.kinds._sql import Columns, read_kind
from kadmin.spark.kinds.context import ExportContext

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from kadmin.client import AdminClient
    from kadmin.spark.spec import ScopeLike

log = logging.getLogger("kadmin.spark")

#: format -> the file extension ``kadmin provision`` reads it by.
EXTENSIONS = {"csv": ".csv", "jsonl": ".jsonl", "parquet": ".parquet"}
#: Kinds exported only when asked (``include_group_offsets``): a group's offsets (a consumer group's committed
#: ones, a share group's start offsets) are a position, not a configuration.
OPTIONAL_KINDS = ("groups_offsets", "share_groups_offsets")
_SPEC_EXTENSIONS = (".csv", ".jsonl", ".ndjson", ".json", ".parquet", ".pq")


@dataclass(frozen=True)
class ExportResult:
    """What an export wrote (``files`` and ``rows`` per kind; a kind with no entity gets no file), what it could
    not read (``missing``: kind -> why), the password references to fill in before a provision creates the
    users (``password_refs``: user -> reference), what it left out (``notes``) and the exported frames."""

    directory: str
    format: str
    files: dict[str, str]
    rows: dict[str, int]
    missing: dict[str, str]
    password_refs: dict[str, str]
    notes: tuple[str, ...]
    frames: dict[str, DataFrame] = field(repr=False)

    @property
    def complete(self) -> bool:
        return not self.missing


def check_directory(directory: str, force: bool) -> None:
    """Refuse to export into a non-empty folder unless ``force`` (FileExistsError; NotADirectoryError for a
    file).  Checked before anything is read, so that a refused export costs nothing."""
    if os.path.exists(directory) and not os.path.isdir(directory):
        raise NotADirectoryError(f"{directory}: not a directory")
    if not force and os.path.isdir(directory) and os.listdir(directory):
        raise FileExistsError(f"{directory}: not empty (an export writes a whole spec; force=True / --force "
                              "replaces the spec files in it)")


def export(admin: AdminClient, spark: Any, directory: str, *, scope: ScopeLike = None, format: str = "csv",
           include_group_offsets: bool = False, force: bool = False) -> ExportResult:
    """Write the cluster's topics (partitions, replication factor), their own configs, ACLs, SCRAM users
    (mechanism, iterations, a password *reference*), quotas and, with ``include_group_offsets``, consumer
    groups' committed offsets and share groups' start offsets into ``directory`` as a spec
    ``kadmin provision`` reads (``format``: csv, jsonl or parquet).

    ``scope`` (as :func:`kadmin.spark.provision`'s: ``topics=PREFIX``, ``principals=PREFIX``, ``kinds=...``)
    narrows what is exported; a field it leaves out narrows nothing.  With ``force`` the spec files already
    in ``directory`` are replaced (other files are left alone); without it a non-empty ``directory`` is
    refused.  Internal topics are never exported."""
    from kadmin.spark.spec import SpecError, parse_scope

    if format not in EXTENSIONS:
        raise SpecError(f"unknown export format {format!r} (csv, jsonl or parquet)")
    wanted = parse_scope(scope)
    check_directory(directory, force)
    os.makedirs(directory, exist_ok=True)
    if force:
        _remove_spec_files(directory)
    ctx = ExportContext(admin, wanted)
    files: dict[str, str] = {}
    rows: dict[str, int] = {}
    missing: dict[str, str] = {}
    frames: dict[str, DataFrame] = {}
    refs: dict[str, str] = {}
    for k in _exported_kinds(wanted, include_group_offsets):
        assert k.export is not None
        cols, why = read_kind(k.name.replace("_", " "), k.export_schema, functools.partial(k.export, ctx))
        if why is not None:
            missing[k.name] = why
            continue
        rows[k.name] = len(cols[k.export_schema[0][0]])
        if k.name == "scram_users":
            refs.update(zip(cols["user"], cols["password_ref"], strict=True))
        if not rows[k.name]:
            continue
        frames[k.name] = _frame(spark, cols, k)
        files[k.name] = _write(frames[k.name], cols, k, directory, format)
    log.info("exported %s to %s; missing: %s", rows, directory, sorted(missing) or "none")
    return ExportResult(directory, format, files, rows, missing, refs, tuple(ctx.notes), frames)


def _exported_kinds(scope: Any, include_group_offsets: bool) -> list[Kind]:
    return [k for k in kinds() if k.export is not None and (scope is None or scope.allows(k.name))
            and (include_group_offsets or k.name not in OPTIONAL_KINDS)]


def _remove_spec_files(directory: str) -> None:
    """The spec files of every kind (any format): a stale ``acls.csv`` beside a new ``acls.jsonl`` would make
    the folder unreadable, and one left from an earlier export would be read as today's state."""
    names = {k.name for k in kinds()}
    for entry in os.listdir(directory):
        stem, ext = os.path.splitext(entry)
        if stem in names and ext.lower() in _SPEC_EXTENSIONS:
            path = os.path.join(directory, entry)
            if os.path.isdir(path):
                shutil.rmtree(path)
            else:
                os.remove(path)


def _frame(spark: Any, cols: Columns, k: Kind) -> DataFrame:
    from kadmin.spark.kinds._sql import frame

    return frame(spark, cols, k.export_schema)


def _write(df: DataFrame, cols: Columns, k: Kind, directory: str, fmt: str) -> str:
    """One file per kind: CSV (RFC 4180 quoting, as ``provision`` reads it; null as an empty cell) and JSON
    lines written from the driver's columns (Spark would write a folder of part files), Parquet by Spark."""
    path = os.path.join(directory, k.name + EXTENSIONS[fmt])
    names = [n for n, _ in k.export_schema]
    count = len(cols[names[0]])
    if fmt == "parquet":
        df.coalesce(1).write.mode("overwrite").parquet(path)
    elif fmt == "csv":
        with open(path, "w", encoding="utf-8", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(names)
            w.writerows([_cell(cols[n][i]) for n in names] for i in range(count))
    else:
        with open(path, "w", encoding="utf-8") as f:
            for i in range(count):
                f.write(json.dumps({n: cols[n][i] for n in names}, ensure_ascii=False) + "\n")
    return path


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value)  # the shortest text that reads back as the same double
    return str(value)


__all__ = ["EXTENSIONS", "OPTIONAL_KINDS", "ExportResult", "check_directory", "export"]
