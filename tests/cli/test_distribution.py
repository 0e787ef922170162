"""The release artefacts: ``python -m build`` makes an sdist and a wheel named after the distribution
(kafka-kadmin; the import name and the command stay ``kadmin``) that ``twine check --strict`` accepts, and the
wheel installs by that name into a fresh virtualenv, giving ``import kadmin`` and a working ``kadmin`` command.

Built once per module from a copy of the tree (as test_cli_packaging.py does), without build isolation: the
``docs`` extra installs setuptools and wheel into the test environment, so the build needs no download.
python -m build makes the wheel from the sdist, so the wheel's contents also show what the sdist carries.

The fresh virtualenv is made without pip and has nothing but what the test puts there: the wheel, installed
by name with the shared pip (``pip --python``) from the build folder only (``--no-index``), and its one
dependency, tenacity, copied from this environment's installed files (the test runs offline; pip then sees
the requirement satisfied and ``pip check`` finds nothing broken).
"""

from __future__ import annotations

import importlib.metadata as md
import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

import pytest

from kadmin import __version__

ROOT = Path(__file__).resolve().parents[2]
DIST_NAME = "kafka-kadmin"
FILE_STEM = f"kafka_kadmin-{__version__}"


def _clean_env() -> dict[str, str]:
    # PYTHONPATH would put a checkout's kadmin first and hide what the wheel installed.
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = tmp_path_factory.mktemp("src")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    shutil.copytree(ROOT / "specs", src / "specs")
    shutil.copytree(ROOT / "kadmin", src / "kadmin", symlinks=True,
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    out = tmp_path_factory.mktemp("dist")
    proc = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(src)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "deprecated" not in proc.stdout.lower(), proc.stdout  # e.g. the license table setuptools drops
    return out


def test_build_makes_an_sdist_and_a_wheel_named_after_the_distribution(dist: Path) -> None:
    assert sorted(p.name for p in dist.iterdir()) == [f"{FILE_STEM}-py3-none-any.whl", f"{FILE_STEM}.tar.gz"]
    with zipfile.ZipFile(dist / f"{FILE_STEM}-py3-none-any.whl") as z:
        names = set(z.namelist())
        meta = z.read(f"{FILE_STEM}.dist-info/METADATA").decode()
    assert f"Name: {DIST_NAME}\n" in meta and f"Version: {__version__}\n" in meta
    assert "License-Expression: Apache-2.0" in meta and "Requires-Dist: tenacity" in meta
    assert "Provides-Extra: docs" in meta and "Provides-Extra: spark" in meta
    # Built from the sdist: the schemas behind the kadmin/_specs symlink travelled through it.
    assert "kadmin/_specs/DescribeGroupsRequest.json" in names and "kadmin/py.typed" in names
    with tarfile.open(dist / f"{FILE_STEM}.tar.gz") as t:
        members = t.getnames()
    assert f"{FILE_STEM}/pyproject.toml" in members and f"{FILE_STEM}/README.md" in members
    assert not any("/tests/" in m or "/examples/" in m for m in members)


def test_twine_accepts_both(dist: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", *sorted(map(str, dist.iterdir()))],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("PASSED") == 2, proc.stdout


def _copy_installed(dist_name: str, site_packages: Path) -> None:
    installed = md.distribution(dist_name)
    base = Path(str(installed.locate_file("")))
    for f in installed.files or []:
        src = base / f
        if src.is_file() and "__pycache__" not in f.parts:
            dst = site_packages / f
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst)


def test_the_wheel_installs_by_name_into_a_fresh_venv(dist: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    py = venv / "bin" / "python"
    purelib = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True, env=_clean_env()).stdout.strip()
    assert Path(purelib) != Path(sysconfig.get_paths()["purelib"])
    _copy_installed("tenacity", Path(purelib))
    pip = [sys.executable, "-m", "pip", "--python", str(py)]
    proc = subprocess.run([*pip, "install", "--no-index", "--find-links", str(dist), DIST_NAME],
                          capture_output=True, text=True, timeout=300, env=_clean_env())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"Successfully installed {DIST_NAME}-{__version__}" in proc.stdout
    check = subprocess.run([*pip, "check"], capture_output=True, text=True, timeout=120, env=_clean_env())
    assert check.returncode == 0, check.stdout + check.stderr

    probe = ("import importlib.metadata as m, kadmin, kadmin.testing; "
             "print(kadmin.__file__); print(m.version('kafka-kadmin')); print(kadmin.AdminClient.__name__)")
    got = subprocess.run([str(py), "-c", probe], capture_output=True, text=True, timeout=120, env=_clean_env(),
                         cwd=tmp_path)
    assert got.returncode == 0, got.stderr
    where, version, client = got.stdout.split()
    assert where.startswith(purelib) and version == __version__ and client == "AdminClient"

    cmd = subprocess.run([str(venv / "bin" / "kadmin"), "--help"], capture_output=True, text=True, timeout=120,
                         env=_clean_env(), cwd=tmp_path)
    assert cmd.returncode == 0, cmd.stderr
    assert cmd.stdout.startswith("usage: kadmin") and "groups" in cmd.stdout and "topics" in cmd.stdout
    version_out = subprocess.run([str(venv / "bin" / "kadmin"), "--version"], capture_output=True, text=True,
                                 timeout=120, env=_clean_env(), cwd=tmp_path)
    assert version_out.stdout.strip() == f"kadmin {__version__}"
