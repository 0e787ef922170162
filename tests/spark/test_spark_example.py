"""The README's main job, examples/provision_quotas.py, run in-process on the shipped sample."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_shipped_sample_is_what_make_sample_writes() -> None:
    done = subprocess.run([sys.executable, str(EXAMPLES / "make_sample.py"), "--check"], capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = (EXAMPLES / "quotas_sample.csv").read_text().splitlines()
    assert lines[0] == "user,client_id,ip,quota_key,value" and len(lines) > 2000
    assert (EXAMPLES / "quotas_invalid_sample.csv").read_text().splitlines()[0] == lines[0]


def test_example_job_provisions_the_sample_on_the_embedded_cluster(
        spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    example = _load("provision_quotas")
    out_dir = tmp_path / "results"
    assert example.main(["--results", str(out_dir)]) == 0  # the session fixture's Spark is the active one
    printed = capsys.readouterr()
    assert "embedded fake cluster" in printed.err
    assert "set        ok" in printed.out and "rejected" not in printed.out

    results = spark.read.parquet(str(out_dir))
    counts = {(r["action"], r["status"]): r["count"] for r in results.groupBy("action", "status").count().collect()}
    sample_rows = len((EXAMPLES / "quotas_sample.csv").read_text().splitlines()) - 1
    assert counts == {("set", "ok"): sample_rows}


def test_example_job_exits_1_on_rejected_rows_and_never_overwrites_results(
        spark: Any, capsys: pytest.CaptureFixture[str]) -> None:
    # As `kadmin quotas provision` does on the same input; and without --results each run gets its own folder.
    example = _load("provision_quotas")
    invalid = str(EXAMPLES / "quotas_invalid_sample.csv")
    folders = []
    for _ in range(2):
        assert example.main([invalid]) == 1
        printed = capsys.readouterr().out
        assert "5 input row(s) were rejected" in printed
        folders.append(printed.split("results (parquet): ")[1].split()[0])
    assert folders[0] != folders[1] and all(Path(f).is_dir() for f in folders)
    results = spark.read.parquet(folders[0])
    counts = {(r["action"], r["status"]): r["count"] for r in results.groupBy("action", "status").count().collect()}
    assert counts == {("set", "ok"): 2, ("reject", "rejected"): 5}
    bad = {r["user"]: r["error"] for r in results.filter("status = 'rejected'").collect()}
    assert "value 'fifty' is not a number" in bad["tenant-9004"]
    assert "whole number" in bad["tenant-9002"]
    for f in folders:
        shutil.rmtree(Path(f).parent)
