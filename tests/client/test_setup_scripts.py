"""The README's two set-up commands, the scripts behind them and .ci/run.

What a fresh machine needs is checked for real by running the two commands on a fresh clone (see the
README); these tests pin what can be checked in seconds: CI runs exactly the README's commands, nothing is
installed outside the project virtualenv, the virtualenv is made and then reused, the extras check notices
what is missing, and .ci/run fails on pytest's "no tests ran" and ends with pytest's summary line.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]


def _setup_section() -> str:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    m = re.search(r"^## Set-up: two commands\n(.*?)^## ", readme, re.DOTALL | re.MULTILINE)
    assert m, "README.md has no '## Set-up: two commands' section"
    return m.group(1)


def _readme_commands() -> list[str]:
    blocks = re.findall(r"```bash\n(.*?)```", _setup_section(), re.DOTALL)
    return [line.strip() for b in blocks for line in b.splitlines() if line.strip() and not line.startswith("#")]


def _ci_commands() -> list[str]:
    text = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    return [re.search(rf'^{name}="(.*)"$', text, re.MULTILINE).group(1)  # type: ignore[union-attr]
            for name in ("MAIN_CMD", "TEST_CMD")]


def test_ci_runs_exactly_the_readme_commands() -> None:
    assert _readme_commands() == _ci_commands()
    main, tests = _readme_commands()
    assert main.startswith("bash scripts/setup.sh") and ".venv/bin/python examples/provision_tenants.py" in main
    assert tests == "bash scripts/test.sh"
    assert "KADMIN_KAFKA_SPECS" in _setup_section()  # the reference-schema location is documented there


def test_nothing_is_installed_outside_the_venv() -> None:
    for path in [REPO / ".ci" / "run", *sorted((REPO / "scripts").glob("*.sh"))]:
        text = path.read_text(encoding="utf-8")
        assert "BREAK_SYSTEM_PACKAGES" not in text, path
        for line in text.splitlines():
            code = line.split("#", 1)[0].strip()
            if re.search(r"(^|[;)]\s*)(say|echo) ", code):  # a message that mentions pip
                continue
            if re.search(r"\bpip3?\b", code) and "PIP_" not in code:
                assert '"$VENV_PY" -m pip' in code, f"{path.name}: pip outside the venv: {line.strip()}"
    setup = (REPO / "scripts" / "setup.sh").read_text(encoding="utf-8")
    assert "ensure_extras spark\n" in setup  # the main job's set-up installs neither test nor lint tools


def _missing_requirements() -> ModuleType:
    spec = importlib.util.spec_from_file_location("missing_requirements", REPO / "scripts" / "missing_requirements.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_missing_requirements_sees_versions_markers_and_absent_packages(monkeypatch: pytest.MonkeyPatch) -> None:
    mr = _missing_requirements()
    assert mr.missing(["test"]) == []  # this venv has the test extra (the tests are running in it)
    monkeypatch.setattr(mr, "_requirements", lambda extras: [
        ("surely-not-installed-kadmin-test-pkg>=1", ""), ("pytest>=999", "test"), ("hypothesis>=1", "test"),
        ("no-such-thing-either; python_version < '3'", ""), ("only-for-docs; extra == 'docs'", "test")])
    lacking = mr.missing(["test"])
    assert lacking[0].startswith("pytest>=999 (have ") and lacking[1] == "surely-not-installed-kadmin-test-pkg>=1"
    assert len(lacking) == 2


def test_a_distribution_still_named_kadmin_is_reported_unless_it_is_the_checkouts_own_metadata(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # kadmin is the distribution kafka-kadmin now; the old name (or the index's unrelated `kadmin`) installed in
    # the venv owns the same import name, so venv.sh uninstalls it.  setuptools' kadmin.egg-info left in the
    # checkout is no installation and is not reported.
    mr = _missing_requirements()

    class Dist:
        def __init__(self, where: Path) -> None:
            self.where = where

        def locate_file(self, path: str) -> Path:
            return self.where / path

    found = {"kadmin": [Dist(REPO)]}
    monkeypatch.setattr(mr.md, "distributions", lambda name: found.get(name, []))
    assert mr.conflicting() == []
    found["kadmin"].append(Dist(tmp_path / "site-packages"))
    assert mr.conflicting() == ["kadmin"]
    assert "kadmin (a conflicting distribution)" in mr.missing([])


def _source_venv(cwd: Path, body: str) -> subprocess.CompletedProcess[str]:
    script = f"set -euo pipefail\nSCRIPT_NAME=t\n. {REPO}/scripts/venv.sh\n{body}\n"
    env = {**os.environ, "PYTHON": sys.executable}
    return subprocess.run(["bash", "-c", script], cwd=cwd, env=env, capture_output=True, text=True, timeout=180)


def test_the_venv_is_made_when_absent_and_reused_after(tmp_path: Path) -> None:
    first = _source_venv(tmp_path, "ensure_venv")
    assert first.returncode == 0, first.stderr
    assert "creating the project virtualenv .venv" in first.stderr
    assert (tmp_path / ".venv" / "bin" / "python").exists()
    second = _source_venv(tmp_path, "ensure_venv")
    assert second.returncode == 0 and "using the project virtualenv .venv" in second.stderr


def _ci_copy(tmp_path: Path, *, setup_status: int, test_output: str, test_status: int) -> Path:
    """A tree where .ci/run is the real one and the commands it runs are stubs."""
    (tmp_path / ".ci").mkdir()
    shutil.copy(REPO / ".ci" / "run", tmp_path / ".ci" / "run")
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "setup.sh").write_text(f"echo setting up >&2\nexit {setup_status}\n")
    (tmp_path / "scripts" / "test.sh").write_text(
        f"printf '%s\\n' ........ {test_output!r}\nexit {test_status}\n")
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    stub = tmp_path / ".venv" / "bin" / "python"
    stub.write_text("#!/bin/sh\necho main job ran\n")
    stub.chmod(0o755)
    return tmp_path


def _ci(tree: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", ".ci/run"], cwd=tree, capture_output=True, text=True, timeout=60)


def test_ci_passes_and_ends_with_pytest_summary(tmp_path: Path) -> None:
    res = _ci(_ci_copy(tmp_path, setup_status=0, test_output="5 passed in 0.10s", test_status=0))
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines()[-1] == "5 passed in 0.10s"
    assert "main job ran" in res.stdout


def test_ci_fails_when_pytest_collects_nothing(tmp_path: Path) -> None:
    res = _ci(_ci_copy(tmp_path, setup_status=0, test_output="no tests ran in 0.01s", test_status=5))
    assert res.returncode != 0
    assert "pytest collected no tests" in res.stderr
    assert res.stdout.splitlines()[-1] == "no tests ran in 0.01s"


def test_ci_fails_when_the_main_job_fails_even_if_tests_pass(tmp_path: Path) -> None:
    res = _ci(_ci_copy(tmp_path, setup_status=1, test_output="5 passed in 0.10s", test_status=0))
    assert res.returncode == 1
    assert "main job (README's first command) failed" in res.stderr
    assert "main job ran" not in res.stdout  # `setup && job`: no job after a failed set-up
    assert res.stdout.splitlines()[-1] == "5 passed in 0.10s"


def test_scripts_are_valid_bash() -> None:
    for path in [REPO / ".ci" / "run", *sorted((REPO / "scripts").glob("*.sh"))]:
        res = subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True)
        assert res.returncode == 0, f"{path}: {res.stderr}"
