"""Rendering for the CLI: aligned tables for people, one stable JSON document for programs.

Why two formats and not one: a table that fits a terminal has to abbreviate and drop detail, which a
script must never have to parse around.  The JSON shape is a contract documented in ``docs/cli.md``;
``FORMAT_VERSION`` changes only when a field is removed or changes meaning (adding fields does not).

Why tables are capped at 100 columns: they get pasted into tickets and chat, and read in split panes.
Only columns marked ``flex`` are shortened (with a trailing ``~``), widest first, so that numbers and states
are never cut; ``--wide`` lifts the cap for ids and keys that must be copied whole.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from kadmin.errors import KafkaError, KafkaTimeoutError, UnsupportedVersionError
from kadmin.quotas import ClientQuotaEntity

FORMAT_VERSION = 1
MAX_WIDTH = 100
GAP = "  "
ELLIPSIS = "~"
MIN_FLEX = 8

JsonDict = dict[str, Any]


@dataclass(frozen=True)
class Column:
    """A table column; ``flex`` columns may be shortened to fit, ``right`` aligns numbers."""

    header: str
    flex: bool = False
    right: bool = False


def _fit(widths: list[int], columns: Sequence[Column], limit: int) -> list[int]:
    """Column widths whose total (with gaps) is at most ``limit``, shrinking the widest flex column first."""
    widths = list(widths)

    def total() -> int:
        return sum(widths) + len(GAP) * (len(widths) - 1)

    while total() > limit:
        candidates = [i for i, c in enumerate(columns) if c.flex and widths[i] > max(MIN_FLEX, len(c.header))]
        if not candidates:
            break  # nothing left to shrink: fixed columns alone are wider than the limit
        i = max(candidates, key=lambda j: widths[j])
        widths[i] = max(MIN_FLEX, len(columns[i].header), widths[i] - (total() - limit))
    return widths


def _cell(text: str, width: int, right: bool) -> str:
    if len(text) > width:
        text = text[: max(0, width - len(ELLIPSIS))] + ELLIPSIS
    return text.rjust(width) if right else text.ljust(width)


def render_table(columns: Sequence[Column], rows: Iterable[Sequence[object]], limit: int = MAX_WIDTH) -> list[str]:
    """Header plus one line per row, every line at most ``limit`` characters (when the columns allow it)."""
    return fit_table(columns, rows, limit)[0]


def fit_table(columns: Sequence[Column], rows: Iterable[Sequence[object]],
              limit: int = MAX_WIDTH) -> tuple[list[str], bool]:
    """:func:`render_table`, and whether any cell had to be shortened to fit."""
    texts = [[_text(v) for v in row] for row in rows]
    for r in texts:
        if len(r) != len(columns):
            raise ValueError(f"row has {len(r)} cells for {len(columns)} columns: {r!r}")
    natural = [max([len(c.header)] + [len(r[i]) for r in texts]) for i, c in enumerate(columns)]
    widths = _fit(natural, columns, limit)
    lines = []
    for cells in [[c.header for c in columns], *texts]:
        parts = [_cell(t, widths[i], columns[i].right) for i, t in enumerate(cells)]
        lines.append(GAP.join(parts).rstrip())
    return lines, widths != natural


def _text(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return format_number(value)
    return str(value).replace("\n", " ")


def format_number(value: float) -> str:
    """Whole numbers without ".0" (byte rates read better as 1048576); fractions as Python's shortest repr."""
    if math.isfinite(value) and value.is_integer() and abs(value) < 2**63:
        return str(int(value))
    return repr(value)


def shorten(text: str, limit: int = MAX_WIDTH) -> str:
    return text if len(text) <= limit else text[: limit - len(ELLIPSIS)] + ELLIPSIS


# --- JSON ---------------------------------------------------------------------------------------------------


def raise_if_all_refused(results: Mapping[Any, object]) -> None:
    """Every key refused for want of the API (UnsupportedVersionError): the command could not run, so its one
    error is raised (exit 2, one "unsupported by this broker" line) instead of a failed key per key."""
    errs = [e for e in results.values() if isinstance(e, UnsupportedVersionError)]
    if errs and len(errs) == len(results):
        raise errs[0]


def error_json(err: BaseException) -> JsonDict:
    """A per-key error as JSON: the Kafka error name and code (null for client-side errors) and the text."""
    if isinstance(err, KafkaError):
        out: JsonDict = {"name": err.name, "code": err.code, "message": err.message, "retriable": err.retriable}
        if isinstance(err, KafkaTimeoutError):
            out["possibly_applied"] = err.possibly_applied
        return out
    return {"name": type(err).__name__, "code": None, "message": str(err), "retriable": False}


def error_line(err: BaseException) -> str:
    """The one-line form of a per-key error, for table output (stderr)."""
    if isinstance(err, KafkaError):
        text = f"{err.name}: {err.message}" if err.message else err.name
        if isinstance(err, KafkaTimeoutError) and err.possibly_applied:
            text += " (the change may have been applied)"
        return text
    return f"{type(err).__name__}: {err}"


def entity_json(entity: ClientQuotaEntity) -> dict[str, str | None]:
    """An entity as {type: name}, a null name being the default entity of that type (as on the wire)."""
    return entity.as_dict()


def _clean(value: Any) -> Any:
    # JSON has no NaN or infinity; brokers should never send them, but a document must stay parseable.
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, Mapping):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


def document(command: str, body: Mapping[str, Any]) -> JsonDict:
    """The envelope every command's JSON output has: format version, command name, then the body."""
    return {"format": FORMAT_VERSION, "command": command, **body}


def dump_json(doc: Mapping[str, Any]) -> str:
    return json.dumps(_clean(doc), indent=2, allow_nan=False, ensure_ascii=False)


class Printer:
    """Where a command's output goes: ``out`` is the result (stdout), ``err`` per-key errors and notes."""

    def __init__(self, fmt: str, out: TextIO, err: TextIO, *, wide: bool = False) -> None:
        self.fmt = fmt
        self.out = out
        self.err = err
        #: ``--wide``: tables as wide as their longest cell, nothing shortened (ids and keys to copy whole).
        self.wide = wide
        self._said_wide = False

    @property
    def json(self) -> bool:
        return self.fmt == "json"

    def emit(self, command: str, body: Mapping[str, Any]) -> None:
        self.out.write(dump_json(document(command, body)) + "\n")

    def lines(self, lines: Iterable[str], *, full: bool = False) -> None:
        """Write lines, each shortened to the table width unless ``full`` (text meant to be copied whole)."""
        for line in lines:
            self.out.write((line if full or self.wide else shorten(line)) + "\n")

    def table(self, columns: Sequence[Column], rows: Iterable[Sequence[object]]) -> None:
        lines, shortened = fit_table(columns, rows, limit=sys.maxsize if self.wide else MAX_WIDTH)
        self.lines(lines)
        if shortened and not self._said_wide:
            # Said once per command: a member id or key ending in "~" cannot be copied into the next command.
            self._said_wide = True
            self.note("kadmin: cells ending in ~ were shortened to fit 100 columns; --wide shows them whole")

    def key_error(self, key: str, err: BaseException) -> None:
        """One line per failed key on stderr, in table mode (JSON mode carries errors in the document)."""
        where = f"{key}: " if key.strip() else ""  # never "kadmin:  ..." for a key with no name
        self.err.write(shorten(f"kadmin: {where}{error_line(err)}", 1000) + "\n")

    def note(self, text: str) -> None:
        self.err.write(text + "\n")


def iso_time(ms: int | None, *, minutes: bool = False) -> str | None:
    """Milliseconds since the epoch as ISO 8601 in UTC (``2026-11-28T05:44:40.123Z``, or with ``minutes``
    ``2026-11-28T05:44Z`` as kafka-delegation-tokens.sh shows token dates), for tables: people read dates,
    scripts read the JSON, which keeps the milliseconds.  None and negative values (Kafka's "no timestamp",
    -1) stay empty."""
    if ms is None or ms < 0:
        return None
    when = dt.datetime.fromtimestamp(ms / 1000, tz=dt.timezone.utc)
    if minutes:
        return when.strftime("%Y-%m-%dT%H:%MZ")
    return when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def summary_lines(head: str, parts: Sequence[str], limit: int = MAX_WIDTH) -> list[str]:
    """``head: part, part, ...`` wrapped at ``limit`` between parts (never inside one), for the count lines
    of a run: a summary cut at the table width hid the counts of whole kinds (the topics of a provision)."""
    lines: list[str] = []
    line = f"{head}:"
    for i, part in enumerate(parts):
        piece = part + ("," if i < len(parts) - 1 else "")
        if len(line) + 1 + len(piece) > limit and line.strip():
            lines.append(line)
            line = "  " + piece
        else:
            line += " " + piece
    lines.append(line)
    return lines


def more_line(shown: int, total: int, what: str) -> list[str]:
    """``(150 more failed rows not shown; -o json lists every one)`` when not every row was printed."""
    return [] if total <= shown else [f"kadmin: ({total - shown} more {what} not shown; -o json lists every one)"]
