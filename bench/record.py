"""``python -m bench.record NAME FILE SECONDS``: merge one module's result into bench/results/latest.{json,md}.

For a run too long for the runner's budget (``python -m bench.spark_tenants --entities 1000000 > FILE``): the
JSON the module's own command printed is normalized and written as ``python -m bench --only NAME`` would
write it; the other modules keep their entries, marked as from earlier runs.  A module whose printed JSON
leaves its rows out rebuilds them with its ``rebuild(saved)``.
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any


def merge(name: str, result: dict[str, Any], elapsed_s: float) -> Path:
    bm = importlib.import_module("bench.__main__")
    if "rows" not in result:
        result = importlib.import_module(f"bench.{name}").rebuild(result)
    path: Path = bm.RESULTS / "latest.json"
    old: dict[str, Any] = json.loads(path.read_text()) if path.exists() else {"mode": "full", "modules": []}
    record: dict[str, Any] = {"result": result, "table": None, "name": name, "run_utc": bm._now(),
                              "commit": bm._commit(), "elapsed_s": elapsed_s, "recorded_by": "python -m bench.record"}
    record["normalized"], record["shape_problems"] = bm.normalize(name, result)
    by_name = {m["name"]: dict(m, from_previous_run=True) for m in old.get("modules", []) if m.get("name") != name}
    by_name[name] = record
    modules = [by_name[n] for n in bm.MODULES if n in by_name]
    env = dict(old.get("environment", {}), commit=record["commit"])
    report = dict(old, only=[name], finished_utc=bm._now(), elapsed_s=elapsed_s, environment=env, modules=modules)
    bm.RESULTS.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=2, default=bm._jsonable) + "\n")
    (bm.RESULTS / "latest.md").write_text(bm.markdown(report))
    return path


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 3:
        sys.stderr.write("usage: python -m bench.record NAME FILE SECONDS (the run's wall time)\n")
        return 2
    print(merge(args[0], json.loads(Path(args[1]).read_text()), float(args[2])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
