"""The tests' own layout (issue #24): every test module lives in one layer folder, and the folders are
packages, so that helpers are imported as ``tests.support.X`` and never as siblings.  tests/__init__.py says
which folder a new file goes to."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
LAYERS = {"protocol", "network", "admin", "fake", "client", "cli", "spark", "reliability", "peers", "docs"}


def test_every_test_module_is_in_a_layer_folder() -> None:
    misplaced = sorted(str(p.relative_to(TESTS)) for p in TESTS.rglob("test_*.py")
                       if p.parent.parent != TESTS or p.parent.name not in LAYERS)
    assert misplaced == [], f"place these by the rules in tests/__init__.py: {misplaced}"


def test_the_layer_folders_and_support_are_packages() -> None:
    folders = (*LAYERS, "support", ".")
    missing = sorted(name for name in folders if not (TESTS / name / "__init__.py").is_file())
    assert missing == []


def test_no_test_module_imports_another_by_its_bare_name() -> None:
    # Sibling imports (``import peers``, ``from test_cli import run_cli``) only worked while every folder was
    # on sys.path; in packages they fail at collection, and a new file written the old way should say so here.
    siblings = {p.stem for p in TESTS.rglob("*.py") if p.stem != "__init__"}
    bad = []
    for path in TESTS.rglob("*.py"):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            words = line.split()
            if len(words) >= 2 and words[0] in ("import", "from") and words[1].split(".")[0] in siblings:
                bad.append(f"{path.relative_to(TESTS)}:{n}: {line.strip()}")
    assert bad == []
