"""Timing helpers shared by kadmin's benchmarks.

The machines these run on are shared (two cores, other people's test suites running), so a single timing
says little.  Every number here is the best of N repetitions: noise from other processes only ever adds
time, so the minimum is the closest estimate of what the code itself costs.  Time is the process's CPU
time, not the wall clock: when the two cores are oversubscribed the wall clock also counts the time this
process spent waiting for a core, which is the other processes' cost, not the code's.  The code is
single-threaded and does no I/O, so for it CPU time and wall time agree on a quiet machine.  Each
repetition starts from a collected heap, so one library's garbage is not billed to the next; the
collector stays on, because real callers pay for the garbage collections their allocations trigger.
"""

from __future__ import annotations

import gc
import logging
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

K = TypeVar("K")


def best_of_interleaved(fns: dict[K, Callable[[], Any]], repeat: int, numbers: dict[K, int],
                        clock: Callable[[], float] = time.process_time) -> dict[K, float]:
    """Seconds per call of each function: the fastest of ``repeat`` runs of ``numbers[name]`` calls each, the
    functions taking turns run by run.

    Why turns: when one function's repetitions all run back to back, a noisy minute on the shared machine can
    land on all of them and on none of its rival's, and the ratio then measures the machine.  Taking
    turns spreads any slow stretch over every contender, so their minima come from the same conditions.
    """
    best = dict.fromkeys(fns, float("inf"))
    for _ in range(repeat):
        for name, fn in fns.items():
            number = numbers[name]
            gc.collect()
            start = clock()
            for _ in range(number):
                fn()
            best[name] = min(best[name], (clock() - start) / number)
    return best


def calls_for(fn: Callable[[], Any], target_seconds: float = 0.05) -> int:
    """How many calls make one repetition last about ``target_seconds`` (at least one call)."""
    start = time.process_time()
    fn()
    once = time.process_time() - start
    return max(1, int(target_seconds / once)) if once > 0 else 1000


def ratio(slow: float, fast: float) -> float:
    return slow / fast if fast > 0 else float("inf")


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A GitHub-style table; numbers are printed as given, so callers format them."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["| " + " | ".join(c.ljust(w) for c, w in zip(cells[0], widths, strict=True)) + " |",
             "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    for row in cells[1:]:
        lines.append("| " + " | ".join(c.rjust(w) for c, w in zip(row, widths, strict=True)) + " |")
    return "\n".join(lines)


def print_run(run: Callable[[bool], dict[str, Any]], format_table: Callable[[dict[str, Any]], str]) -> None:
    """What ``python -m bench.<module> [--quick]`` prints: the module's table, its targets and its notes."""
    logging.basicConfig(level=logging.WARNING)
    out = run("--quick" in sys.argv)
    print(format_table(out))
    for t in out["targets"]:
        print(f"- {t['what']}: {t['measured']} (target {t['target']}) {'met' if t['met'] else 'NOT met'}")
    for note in out["notes"]:
        print(f"- {note}")
