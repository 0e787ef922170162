"""Packaging: the wheel carries the message schemas (through the kadmin/_specs symlink), py.typed, one
version, and the ``kadmin`` console script.

Built from a copy of the tree (symlinks kept as symlinks), so the test neither writes into the working tree
nor depends on anything a previous build left in build/.  Like ``pip install .``, the build fetches
setuptools and wheel from the package index.
"""

from __future__ import annotations

import configparser
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from kadmin import __version__

ROOT = Path(__file__).resolve().parents[2]


def test_wheel_contents(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    shutil.copytree(ROOT / "specs", src / "specs")
    shutil.copytree(ROOT / "kadmin", src / "kadmin", symlinks=True,
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    assert (src / "kadmin" / "_specs").is_symlink()  # as in the repository
    out = tmp_path / "dist"
    # With build isolation, as `pip install .` builds: pip fetches the build requirements the pyproject names.
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(src)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    (wheel,) = out.glob("kafka_kadmin-*.whl")  # the distribution's name (the import name stays kadmin)
    assert wheel.name.startswith(f"kafka_kadmin-{__version__}-")
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        specs = {n for n in names if n.startswith("kadmin/_specs/") and n.endswith(".json")}
        assert {f"kadmin/_specs/{p.name}" for p in (ROOT / "specs").glob("*.json")} == specs
        assert "kadmin/_specs/DescribeClientQuotasRequest.json" in specs
        # The fake cluster's own schemas (Produce, Fetch...), which kadmin.protocol does not list.
        fake = {f"kadmin/testing/specs/{p.name}" for p in (ROOT / "kadmin" / "testing" / "specs").glob("*.json")}
        assert "kadmin/testing/specs/ProduceRequest.json" in fake and fake <= names
        assert "kadmin/py.typed" in names
        assert {"kadmin/cli/main.py", "kadmin/cli/__main__.py", "kadmin/testing/__main__.py"} <= names
        assert not any(n.startswith(("tests/", "examples/", "bench/")) for n in names)
        (ep_name,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
        eps = configparser.ConfigParser()
        eps.read_string(z.read(ep_name).decode())
        assert eps["console_scripts"]["kadmin"] == "kadmin.cli.main:main"
        (meta_name,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        meta = z.read(meta_name).decode()
        assert f"Version: {__version__}\n" in meta
        assert "Provides-Extra: spark" in meta and "extra == \"spark\"" in meta
