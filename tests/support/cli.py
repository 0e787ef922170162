"""Running the ``kadmin`` command in tests: in a fresh interpreter as a user runs it, or ``main()`` in this
process for the many cases where only the output and the exit status matter."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The repository's root: the child's working directory and the first entry of its PYTHONPATH.
ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Result:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)

    @property
    def err_lines(self) -> list[str]:
        return self.err.splitlines()


def cli_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KADMIN_")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.update(extra or {})
    return env


def run_cli(*args: str, env: Mapping[str, str] | None = None, timeout: float = 60) -> Result:
    """``kadmin ARGS`` in a fresh interpreter (``python -m kadmin.cli`` is the console script's twin)."""
    proc = subprocess.run([sys.executable, "-m", "kadmin.cli", *args], capture_output=True, text=True,
                          env=cli_env(env), timeout=timeout, cwd=ROOT, stdin=subprocess.DEVNULL)
    return Result(proc.returncode, proc.stdout, proc.stderr)


def run_main(*args: str) -> Result:
    """The same command in this process (no interpreter start-up): for the many bad-input cases."""
    from kadmin.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    code = main(list(args), stdout=out, stderr=err)
    return Result(code, out.getvalue(), err.getvalue())


def assert_fits(text: str, width: int = 100) -> None:
    too_wide = [line for line in text.splitlines() if len(line) > width]
    assert not too_wide, too_wide
