"""The reference-comparison tests: skipped with one reason line without the reference, failed in CI.

Runs pytest in a child process on two of those tests with ``KADMIN_KAFKA_SPECS`` pointing at a folder that
does not exist, once as a developer would (skipped, one line saying why) and once as CI does (``CI=true``:
the run fails).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.kafka_reference import DEFAULT_DIR, ENV_VAR, missing_reason, specs_dir

REPO = Path(__file__).resolve().parents[2]
_TESTS = ["tests/protocol/test_specs.py::test_spec_is_the_union_of_3_9_and_trunk",
          "tests/protocol/test_protocol_kafka_schemas.py"]


def _run(tmp_path: Path, ci: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_ADDOPTS")}
    env[ENV_VAR] = str(tmp_path / "no-such-folder")
    if ci is not None:
        env["CI"] = ci
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                           *_TESTS], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)


def test_without_the_reference_the_comparisons_skip_with_one_reason_line(tmp_path: Path) -> None:
    res = _run(tmp_path, ci=None)
    assert res.returncode == 0, res.stdout + res.stderr
    skipped = [line for line in res.stdout.splitlines() if line.startswith("SKIPPED")]
    assert len(skipped) == 1, res.stdout
    assert "Kafka's reference schemas not found at" in skipped[0] and ENV_VAR in skipped[0]
    assert str(tmp_path / "no-such-folder") in skipped[0]
    last = res.stdout.strip().splitlines()[-1]
    assert " skipped" in last and "passed" not in last and "failed" not in last, last


def test_in_ci_a_missing_reference_fails_the_run(tmp_path: Path) -> None:
    res = _run(tmp_path, ci="true")
    assert res.returncode == 1, res.stdout + res.stderr
    assert "CI=true but Kafka's reference schemas not found" in res.stdout
    assert "skipped" not in res.stdout.strip().splitlines()[-1]


def test_reference_location(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(ENV_VAR, raising=False)
    assert specs_dir() == DEFAULT_DIR == REPO.parent / "shared" / "kafka-message-specs"
    monkeypatch.setenv(ENV_VAR, str(tmp_path))
    assert specs_dir() == tmp_path
    for sub in ("3.9", "trunk-2026", "latest", "test-schemas"):
        assert f"no {sub}/ folder" in (missing_reason(tmp_path) or "")
        (tmp_path / sub).mkdir()
    assert missing_reason(tmp_path) is None
