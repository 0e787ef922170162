"""Print what the project's virtualenv lacks for kadmin and the given extras; exit 0 when it lacks nothing.

    .venv/bin/python scripts/missing_requirements.py spark,test
    .venv/bin/python scripts/missing_requirements.py --conflicting   # distributions to uninstall first

Used by scripts/venv.sh to decide whether to run pip at all: a ``pip install -e .[...]`` that has nothing to
do still rebuilds the editable wheel (seconds, on every test run).  Reads the requirements from
pyproject.toml (Python 3.11+) or, on 3.10, from the installed kadmin's metadata; checks names, versions and
markers with ``packaging`` (pip's own copy when the venv has no other).  kadmin itself must be installed in
editable mode from this checkout, so that the tests run the code they sit beside.

The distribution is ``kafka-kadmin`` (its import name is ``kadmin``); a distribution still called ``kadmin`` in
the venv (this project's old name, or the unrelated Kerberos module of that name on the package index) owns the
same import name, so it is reported too, and scripts/venv.sh uninstalls it before installing.
"""

from __future__ import annotations

import importlib.metadata as md
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DIST = "kafka-kadmin"
#: Distributions that install an import package named ``kadmin`` and so must not sit beside kafka-kadmin.
CONFLICTING = ("kadmin",)

try:
    from packaging.requirements import Requirement
except ImportError:  # pragma: no cover - a venv with only pip
    from pip._vendor.packaging.requirements import Requirement  # type: ignore[no-redef]


def _requirements(extras: list[str]) -> list[tuple[str, str]]:
    """(requirement, extra or "") pairs: the base dependencies and those of each extra."""
    try:
        import tomllib
    except ImportError:  # Python 3.10: the installed metadata, which is as new as the last install
        try:
            raw = md.requires(DIST) or []
        except md.PackageNotFoundError:
            return [(DIST, "")]
        return [(r, e) for r in raw for e in ["", *extras]]
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    out = [(r, "") for r in project.get("dependencies", [])]
    for extra in extras:
        out.extend((r, extra) for r in project.get("optional-dependencies", {}).get(extra, []))
    return out


def _kadmin_problem() -> str | None:
    # Every kadmin distribution on the path, not just the first: a kadmin.egg-info in the checkout (left by
    # setuptools) is found first when the checkout is on sys.path, and says nothing about the venv.
    found = False
    for dist in md.distributions(name=DIST):
        found = True
        raw = dist.read_text("direct_url.json")
        info = json.loads(raw) if raw else {}
        url = str(info.get("url", ""))
        if info.get("dir_info", {}).get("editable") and Path(url.removeprefix("file://")).resolve() == REPO:
            return None
    return f"{DIST} (editable, from this checkout)" if found else DIST


def conflicting() -> list[str]:
    """Installed distributions other than kafka-kadmin that provide the import name ``kadmin``.

    Metadata lying in the checkout itself is not an installation: setuptools leaves ``kadmin.egg-info`` there,
    and it is found whenever the checkout is on sys.path (under pytest, say)."""
    out = []
    for name in CONFLICTING:
        if any(Path(str(d.locate_file(""))).resolve() != REPO for d in md.distributions(name=name)):
            out.append(name)
    return out


def missing(extras: list[str]) -> list[str]:
    out: list[str] = [f"{name} (a conflicting distribution)" for name in conflicting()]
    problem = _kadmin_problem()
    if problem is not None:
        out.append(problem)
    for text, extra in _requirements(extras):
        req = Requirement(text)
        if req.marker is not None and not req.marker.evaluate({"extra": extra}):
            continue
        if req.name.lower() == DIST:
            continue
        try:
            version = md.version(req.name)
        except md.PackageNotFoundError:
            out.append(str(req))
            continue
        if req.specifier and not req.specifier.contains(version, prereleases=True):
            out.append(f"{req} (have {version})")
    return sorted(set(out))


def main(argv: list[str]) -> int:
    if argv == ["--conflicting"]:
        print(" ".join(conflicting()))
        return 0
    extras = [e for arg in argv for e in arg.split(",") if e]
    lacking = missing(extras)
    if lacking:
        print(", ".join(lacking))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
