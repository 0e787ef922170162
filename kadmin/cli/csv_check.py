"""A CSV input read whole, once, before Spark starts, for what Spark's reader would turn into silent nonsense.

Why: a quote that is never closed makes Spark's CSV reader swallow the rest of the file into one field (or end
the row early), and the rows then fail validation as empty values whose message shows Python's ``None``.  The
person needs to hear "line 3: a quoted value is not closed", once, before anything starts.  Python's csv module
in strict mode finds that in one streamed pass (a few seconds for millions of rows; spec files are small).
"""

from __future__ import annotations

import csv

from kadmin.cli.config import UsageError


def check_quotes(path: str) -> None:
    """Refuse (UsageError) a CSV file whose quoting is broken, naming the line its bad record starts on."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as f:
            reader = csv.reader(f, strict=True)
            start = 1
            while True:
                try:
                    next(reader)
                except StopIteration:
                    return
                except csv.Error as exc:
                    why = ("a quoted value is not closed" if "end of data" in str(exc) or "EOF" in str(exc)
                           else f"the CSV quoting is broken ({exc})")
                    raise UsageError(f"{path}: line {start}: {why}: close it with \" (a quote inside a quoted "
                                     "value is written twice: \"\")") from None
                start = reader.line_num + 1
    except UnicodeDecodeError:
        raise UsageError(f"{path}: not UTF-8 text (a CSV file must be UTF-8)") from None
    except OSError as exc:
        raise UsageError(f"{path}: cannot read: {exc.strerror or exc}") from None
