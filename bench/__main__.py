"""``python -m bench [--quick] [--only NAME ...]``: run every benchmark, write bench/results/latest.{json,md}.

``python -m bench --bootstrap-server HOST:PORT [--quick]`` instead runs :mod:`bench.cluster` against a cluster
of yours: topic creation and deletion, small calls and client quotas, kadmin and its peers in the same run,
each case with its wall time, client CPU and requests on the wire; only names under a fresh
``kadmin-bench-*`` prefix are created, and removed at the end.  It writes bench/results/cluster.{json,md}.

Each benchmark module measures kadmin and its peer (kafka-python) side by side in the same run, on the same
machine and cluster, so the *ratio* is the result; absolute times on a shared 2-core machine are context only.

The module contract
-------------------
A benchmark is a module ``bench.<name>`` with ``run(quick: bool) -> dict``.  The dict should have this shape
(the aggregator adapts other shapes it knows, and says so in the output):

``{"name": str,
   "rows": [{"case": str, "kadmin_s": float, "peer": "kafka-python", "peer_s": float | None,
             "ratio": float | None, ...any extra figures}],
   "notes": [str, ...],
   "targets": [{"what": str, "target": str, "measured": str | number, "met": bool}]}``

* ``ratio`` is ``peer_s / kadmin_s``: above 1, kadmin is faster.  ``peer_s``/``ratio`` are None when the peer
  cannot do the case at all (say why in ``notes``).
* ``targets`` are the module's own pass/fail goals (request counts, a minimum ratio...).
* An optional ``format_table(result) -> str`` (or ``table``) gives the module's detailed markdown, included
  in latest.md.

How it runs
-----------
Every module runs in a child process of its own (``python -m bench --child NAME``): a module that crashes,
hangs or leaves threads behind (a JVM for Spark) costs only its own entry, which records the error, and the
others still run.  Full mode must finish within 10 minutes on 2 cores, so each child gets a time budget out
of what is left of ``--budget`` (default 570 s), and is killed when it overruns.

Outputs: ``bench/results/latest.json`` (every module's raw dict, the normalized rows, errors, timings and the
environment) and ``bench/results/latest.md`` (the ratios table, targets, notes and each module's details).  A
full run of every module also rewrites the README section between ``<!-- bench:start -->`` and
``<!-- bench:end -->`` (``--no-readme`` to skip).  With ``--only``, the other modules' entries are kept from
the last run in the same mode (marked, with their dates), so one benchmark can be refreshed without a full run.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import logging
import math
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

log = logging.getLogger("bench")

MODULES = ("codec", "groups", "quotas", "security", "topics", "topics_tansu", "transactions", "spark_provision",
           "spark_tenants", "spark_export")
ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
README = ROOT / "README.md"
START, END = "<!-- bench:start -->", "<!-- bench:end -->"
DEFAULT_BUDGET_S = 570.0
MIN_SHARE_S = 45.0  # what each module still to come is guaranteed, whatever the ones before it took


# --- the child: one module, result as JSON ---------------------------------------------------------------


def child(name: str, quick: bool, out: Path) -> int:
    """Import ``bench.<name>``, run it, write {"result", "table"} (or {"error"}) to ``out``."""
    import importlib
    import traceback

    payload: dict[str, Any]
    try:
        try:
            module = importlib.import_module(f"bench.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"bench.{name}":
                raise  # a dependency of the module is missing: an error of the module, reported below
            out.write_text(json.dumps({"error": f"bench.{name} is missing: {exc}", "missing": True}))
            return 0
        result = module.run(quick)
        table = None
        formatter = getattr(module, "format_table", None) or getattr(module, "table", None)
        if callable(formatter):
            try:
                table = formatter(result)
            except Exception as exc:  # noqa: BLE001 - the numbers matter more than the module's own table
                table = f"(format_table failed: {type(exc).__name__}: {exc})"
        payload = {"result": result, "table": table}
    except BaseException as exc:  # noqa: BLE001 - reported in the aggregate, never raised
        payload = {"error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()[-4000:]}
    out.write_text(json.dumps(payload, default=_jsonable))
    return 0


def _jsonable(x: Any) -> Any:
    if isinstance(x, (set, frozenset, tuple)):
        return list(x)
    if isinstance(x, Path):
        return str(x)
    return repr(x)


def run_module(name: str, quick: bool, timeout_s: float) -> dict[str, Any]:
    """Run one module in a child process; always returns a record (with "error" when it failed)."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix=f"bench-{name}-") as tmp:
        out = Path(tmp) / "result.json"
        cmd = [sys.executable, "-m", "bench", "--child", name, "--out", str(out)] + (["--quick"] if quick else [])
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
        log.info("running bench.%s (budget %.0f s)", name, timeout_s)
        try:
            proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout_s)
        except subprocess.TimeoutExpired as exc:
            tail = (exc.stderr or b"")[-2000:]
            return {"name": name, "error": f"timed out after {timeout_s:.0f} s (killed)",
                    "stderr_tail": tail.decode(errors="replace") if isinstance(tail, bytes) else tail,
                    "elapsed_s": round(time.monotonic() - started, 1)}
        elapsed = round(time.monotonic() - started, 1)
        if not out.exists():
            return {"name": name, "error": f"the child exited with status {proc.returncode} without a result",
                    "stderr_tail": proc.stderr[-2000:], "elapsed_s": elapsed}
        payload = json.loads(out.read_text())
    payload["name"] = name
    payload["elapsed_s"] = elapsed
    return payload


# --- normalization: every module's output into the common shape -----------------------------------------


def _ratio(peer_s: Any, kadmin_s: Any) -> float | None:
    if isinstance(peer_s, (int, float)) and isinstance(kadmin_s, (int, float)) and kadmin_s > 0:
        return round(peer_s / kadmin_s, 2)
    return None


def _case_kind(cases: dict[str, Any]) -> str | None:
    first = next(iter(cases.values()), None)
    if not isinstance(first, dict) or not isinstance(first.get("kadmin"), dict):
        return None
    if "wall_s" in first["kadmin"]:
        return "wall"
    if any(k.endswith("_ms") for k in first["kadmin"]):
        return "ops_ms"
    return None


def normalize(name: str, raw: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """(result in the common shape, what did not fit) for one module's dict."""
    problems: list[str] = []
    rows: list[dict[str, Any]] = []
    if isinstance(raw.get("rows"), list):
        for r in raw["rows"]:
            if not isinstance(r, dict) or "case" not in r or "kadmin_s" not in r:
                problems.append(f"a row without case/kadmin_s: {str(r)[:120]}")
                continue
            row = dict(r)
            row.setdefault("peer", "kafka-python")
            row.setdefault("peer_s", None)
            if row.get("ratio") is None:
                row["ratio"] = _ratio(row["peer_s"], row["kadmin_s"])
            rows.append(row)
    elif isinstance(raw.get("cases"), dict) and _case_kind(raw["cases"]) == "wall":
        # bench.groups' shape: {"cases": {label: {"what", "kadmin": {"wall_s"}, "kafka_python": {"wall_s"}}}}
        problems.append("no 'rows': adapted from its 'cases' dict (kadmin/kafka_python wall_s per case)")
        for label, c in raw["cases"].items():
            k, p = c["kadmin"], c.get("kafka_python") or {}
            row = {"case": f"({label}) {c.get('what', label)}" + (f" [{c['preset']}]" if c.get("preset") else ""),
                   "kadmin_s": k.get("wall_s"), "peer": p.get("client", "kafka-python"), "peer_s": p.get("wall_s"),
                   "ratio": _ratio(p.get("wall_s"), k.get("wall_s"))}
            if p.get("extrapolated"):
                row["peer_extrapolated"] = True
            for key in ("requests", "find_coordinator", "describe_groups"):
                if key in k:
                    row[f"kadmin_{key}"] = k[key]
                if key in p:
                    row[f"peer_{key}"] = p[key]
            rows.append(row)
    elif isinstance(raw.get("cases"), dict) and _case_kind(raw["cases"]) == "ops_ms":
        # bench.codec's shape: {"cases": {title: {"kadmin": {"encode_ms", "decode_ms"}, "<peer>": {...}, ...}}}
        problems.append("no 'rows': adapted from its 'cases' dict (per-library <op>_ms per case)")
        for title, c in raw["cases"].items():
            ops = sorted(k[:-3] for k in c["kadmin"] if k.endswith("_ms"))
            peers = [lib for lib, v in c.items() if lib != "kadmin" and isinstance(v, dict)
                     and all(f"{op}_ms" in v for op in ops)]
            for op in ops:
                for lib in peers:
                    k_s, p_s = c["kadmin"][f"{op}_ms"] / 1000, c[lib][f"{op}_ms"] / 1000
                    rows.append({"case": f"{title}: {op}", "kadmin_s": k_s, "peer": lib, "peer_s": p_s,
                                 "ratio": _ratio(p_s, k_s), "bytes": c.get("bytes")})
        if "target" in raw and "target_met" in raw:
            raw = dict(raw, targets=[{"what": "every case, encode and decode", "target": raw["target"],
                                      "measured": "see the ratios", "met": bool(raw["target_met"])}])
    elif "apply_s" in raw and "direct_s" in raw:
        # bench.spark_provision's flat shape: the Spark path against kadmin's own direct call (kafka-python has
        # no quota API, so the comparison is with kadmin without Spark).
        problems.append("no 'rows': adapted from its flat dict (apply_s against direct_s)")
        n = raw.get("entities")
        rows.append({"case": f"provision {n:,} entities through Spark (plan + apply)" if isinstance(n, int)
                     else "provision through Spark", "kadmin_s": raw["apply_s"],
                     "peer": "kadmin alter_client_quotas, no Spark", "peer_s": raw["direct_s"],
                     "ratio": _ratio(raw["direct_s"], raw["apply_s"])})
        extra = {k: raw[k] for k in ("plan_s", "send_phase_s", "rerun_s", "alter_requests", "target_alter_requests",
                                     "rerun_alter_requests", "peak_python_mb_apply") if k in raw}
        if extra:
            raw = dict(raw, notes=[*raw.get("notes", []),
                                   "figures: " + ", ".join(f"{k}={v}" for k, v in extra.items())])
    else:
        problems.append("neither 'rows' nor a known shape: no ratios could be read")
    targets: list[dict[str, Any]] = []
    raw_targets = raw.get("targets", [])
    if isinstance(raw_targets, dict):
        problems.append("'targets' is a {name: bool} dict: adapted (no target/measured text)")
        targets = [{"what": k, "target": "", "measured": "", "met": bool(v)} for k, v in raw_targets.items()]
    elif isinstance(raw_targets, list):
        for t in raw_targets:
            if isinstance(t, dict) and "what" in t and "met" in t:
                targets.append({"what": t["what"], "target": t.get("target", ""), "measured": t.get("measured", ""),
                                "met": bool(t["met"])})
            else:
                problems.append(f"a target without what/met: {str(t)[:120]}")
    notes = [str(n) for n in raw.get("notes", [])] if isinstance(raw.get("notes", []), list) else [str(raw["notes"])]
    if "name" not in raw:
        problems.append("no 'name'")
    return {"name": raw.get("name", name), "rows": rows, "notes": notes, "targets": targets}, problems


# --- reports ---------------------------------------------------------------------------------------------


def _fmt_s(x: Any) -> str:
    if not isinstance(x, (int, float)) or isinstance(x, bool) or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    return f"{x:.3f}" if x < 100 else f"{x:.0f}"


def _fmt_ratio(x: Any) -> str:
    return f"**{x:.2f}x**" if isinstance(x, (int, float)) else "n/a"


def summary_table(modules: list[dict[str, Any]]) -> list[str]:
    lines = ["| benchmark | case | peer | ratio (peer / kadmin) | kadmin s | peer s |",
             "| --- | --- | --- | ---: | ---: | ---: |"]
    for m in modules:
        if "error" in m:
            lines.append(f"| {m['name']} | *not run: {m['error'][:150]}* | | | | |")
            continue
        for r in m["normalized"]["rows"]:
            peer_s = _fmt_s(r.get("peer_s")) + (" *" if r.get("peer_extrapolated") else "")
            lines.append(f"| {m['name']} | {r['case']} | {r.get('peer') or ''} | {_fmt_ratio(r.get('ratio'))} | "
                         f"{_fmt_s(r.get('kadmin_s'))} | {peer_s} |")
    return lines


def markdown(report: dict[str, Any]) -> str:
    env = report["environment"]
    modules = report["modules"]
    lines = [
        "# Benchmarks",
        "",
        f"Run {report['finished_utc']} ({report['mode']} mode, {report['elapsed_s']:.0f} s in all), commit "
        f"`{env['commit']}`, Python {env['python']}, {env['cpus']} CPU(s), {env['platform']}."
        + (f"  Only {', '.join(report['only'])} ran this time; the other modules' figures are from earlier runs "
           "(dates under Modules)." if report.get("only") and any(m.get("from_previous_run") for m in modules)
           else ""),
        "",
        "Each benchmark measures kadmin and its peer side by side in the same run.  **ratio = peer time / kadmin "
        "time**: above 1, kadmin is faster.  Absolute seconds are context only: this is a shared 2-core machine.",
        "Generated by `python -m bench" + (" --quick" if report["mode"] == "quick" else "") + "`; raw numbers in "
        "[latest.json](latest.json).",
        "",
        "## Ratios",
        "",
        *summary_table(modules),
        "",
        "\\* the peer was measured on a sample and extrapolated (see the module's notes).",
        "",
        "## Targets",
        "",
        "| benchmark | what | target | measured | met |",
        "| --- | --- | --- | --- | :---: |",
    ]
    for m in modules:
        for t in m.get("normalized", {}).get("targets", []):
            lines.append(f"| {m['name']} | {t['what']} | {t['target']} | {t['measured']} | "
                         f"{'yes' if t['met'] else '**NO**'} |")
    lines += ["", "## Modules", ""]
    for m in modules:
        when = f", run {m['run_utc']}, commit `{m.get('commit', '?')}`" if m.get("from_previous_run") else ""
        lines.append(f"### {m['name']} ({m.get('elapsed_s', 0):.0f} s{when})")
        lines.append("")
        if "error" in m:
            lines.append(f"Not run: {m['error']}")
            lines.append("")
            continue
        for n in m["normalized"]["notes"]:
            lines.append(f"- {n}")
        for p in m.get("shape_problems", []):
            lines.append(f"- (aggregator) output shape: {p}")
        if m.get("table"):
            lines += ["", m["table"]]
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def readme_block(report: dict[str, Any]) -> str:
    lines = [f"_Written by `python -m bench` on {report['finished_utc'][:10]} (full mode, commit "
             f"`{report['environment']['commit']}`, {report['environment']['cpus']} CPU(s)).  ratio = kafka-python "
             "time / kadmin time, measured side by side in the same run; absolute times are context only.  "
             "Details, targets and notes: [bench/results/latest.md](bench/results/latest.md)._", "",
             *summary_table(report["modules"])]
    return "\n".join(lines)


def update_readme(report: dict[str, Any]) -> bool:
    text = README.read_text()
    if START not in text or END not in text or text.index(START) > text.index(END):
        log.warning("README.md has no %s ... %s section; not updated", START, END)
        return False
    head, rest = text.split(START, 1)
    _old, tail = rest.split(END, 1)
    README.write_text(f"{head}{START}\n{readme_block(report)}\n{END}{tail}")
    return True


def _commit() -> str:
    """HEAD's short hash, plus "+ uncommitted changes" when kadmin/ or bench/ differ from it (the numbers are
    then those of the working tree, which a reader of the results should know)."""
    def git(*a: str) -> str:
        return subprocess.run(["git", *a], cwd=ROOT, capture_output=True, text=True, timeout=10).stdout.strip()

    try:
        head = git("rev-parse", "--short", "HEAD") or "unknown"
        dirty = git("status", "--porcelain", "--", "kadmin", "bench")
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return f"{head} + uncommitted changes" if dirty else head


# --- main ------------------------------------------------------------------------------------------------


def _against(bootstrap: str, quick: bool, budget: float) -> int:
    """``--bootstrap-server``: bench.cluster on the user's cluster, in a child process as every module runs;
    its own result files, so that the fake's and Tansu's figures in latest.* stay as they were."""
    os.environ["KADMIN_BENCH_BOOTSTRAP"] = bootstrap  # read by bench.cluster in the child
    record = run_module("cluster", quick, budget)
    record["run_utc"] = _now()
    record["commit"] = _commit()
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "cluster.json").write_text(json.dumps(record, indent=2, default=_jsonable) + "\n")
    if "error" in record:
        log.error("bench.cluster: %s", record["error"])
        return 1
    table = record.get("table") or ""
    (RESULTS / "cluster.md").write_text(f"# bench.cluster against {bootstrap} ({record['run_utc']})\n\n{table}\n")
    sys.stdout.write(table + "\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes (a minute or two instead of ~10)")
    parser.add_argument("--only", action="append", metavar="NAME", choices=MODULES,
                        help="run only this module (repeatable)")
    parser.add_argument("--budget", type=float, default=DEFAULT_BUDGET_S, metavar="S",
                        help=f"total seconds for all modules (default {DEFAULT_BUDGET_S:g})")
    parser.add_argument("--no-readme", action="store_true", help="do not rewrite README.md's benchmark section")
    parser.add_argument("--bootstrap-server", metavar="HOST:PORT",
                        help="run bench.cluster against this cluster of yours instead (kadmin and its peers, same "
                             "run; only topics and quota entities under a fresh kadmin-bench-* prefix are "
                             "created, and removed at the end); writes bench/results/cluster.{json,md}")
    parser.add_argument("--child", metavar="NAME", help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(args.child, args.quick, args.out)
    logging.basicConfig(level=logging.INFO, format="%(name)s: %(message)s")
    if args.bootstrap_server:
        return _against(args.bootstrap_server, args.quick, args.budget)

    names = args.only or list(MODULES)
    mode = "quick" if args.quick else "full"
    commit = _commit()
    started = time.monotonic()
    fresh: dict[str, dict[str, Any]] = {}
    for i, name in enumerate(names):
        left = args.budget - (time.monotonic() - started)
        still_to_come = len(names) - i - 1
        timeout = max(MIN_SHARE_S, left - MIN_SHARE_S * still_to_come)
        record = run_module(name, args.quick, timeout)
        record["run_utc"] = _now()
        record["commit"] = commit
        if "error" not in record:
            record["normalized"], record["shape_problems"] = normalize(name, record["result"])
            log.info("bench.%s: %d row(s) in %.0f s", name, len(record["normalized"]["rows"]), record["elapsed_s"])
        else:
            log.warning("bench.%s: %s", name, record["error"])
        fresh[name] = record

    # With --only, the other modules keep their entries from the last run in the same mode, marked as such,
    # so that refreshing one benchmark does not cost a full run on a shared machine.
    previous = _previous(mode) if args.only else {}
    modules = []
    for name in MODULES:
        if name in fresh:
            modules.append(fresh[name])
        elif name in previous:
            modules.append(dict(previous[name], from_previous_run=True))
    report = {
        "mode": mode,
        "only": args.only,
        "finished_utc": _now(),
        "elapsed_s": round(time.monotonic() - started, 1),
        "environment": {"commit": commit, "python": platform.python_version(), "cpus": os.cpu_count(),
                        "platform": platform.platform(terse=True)},
        "contract": "rows[].ratio = peer_s / kadmin_s (above 1: kadmin faster)",
        "modules": modules,
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "latest.json").write_text(json.dumps(report, indent=2, default=_jsonable) + "\n")
    (RESULTS / "latest.md").write_text(markdown(report))
    log.info("wrote %s and %s (%.0f s)", RESULTS / "latest.json", RESULTS / "latest.md", report["elapsed_s"])
    complete = {m["name"] for m in modules} == set(MODULES)
    if mode == "full" and complete and not args.no_readme and update_readme(report):
        log.info("updated the benchmark section of %s", README)
    sys.stdout.write("\n".join(summary_table(modules)) + "\n")
    return 0


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def _previous(mode: str) -> dict[str, dict[str, Any]]:
    try:
        old = json.loads((RESULTS / "latest.json").read_text())
    except (OSError, ValueError):
        return {}
    if old.get("mode") != mode:
        return {}
    when, commit = old.get("finished_utc", "?"), old.get("environment", {}).get("commit", "?")
    return {m["name"]: {"run_utc": when, "commit": commit, **m} for m in old.get("modules", [])
            if isinstance(m, dict) and "name" in m}


if __name__ == "__main__":
    sys.exit(main())
