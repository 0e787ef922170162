"""The documentation site builds with warnings as errors, and its generated reference is complete.

``mkdocs build --strict`` runs once per test session (about ten seconds on two cores) into a temporary folder;
the tests then read the built HTML: every public name of kadmin, kadmin.aio, kadmin.testing and kadmin.spark
has its entry, every method of both clients has one, and the CLI reference has every command the parser
has.  The generator is also run on a parser with a command added after the fact, which must appear with no
edit to the generator; and a copy of the site's configuration with a broken link must fail to build.
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import shutil
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType

import pytest

import kadmin
import kadmin.aio
from kadmin.cli.main import build_parser

REPO = Path(__file__).resolve().parents[2]


def _hooks() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_hooks", REPO / "scripts" / "docs_hooks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def _mkdocs(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site)],
                          capture_output=True, text=True, timeout=600, env=_env())


def _env() -> dict[str, str]:
    import os

    # Material prints a banner about its successor on every build; the build's own output is what matters.
    return {**os.environ, "NO_MKDOCS_2_WARNING": "1"}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    started = time.monotonic()
    proc = _mkdocs(REPO / "mkdocs.yml", out)
    took = time.monotonic() - started
    assert proc.returncode == 0, f"mkdocs build --strict failed after {took:.1f} s:\n{proc.stdout}\n{proc.stderr}"
    assert "WARNING" not in proc.stderr, proc.stderr
    return out


def _html(site: Path, page: str) -> str:
    return (site / page / "index.html").read_text(encoding="utf-8")


def _ids(site: Path) -> set[str]:
    import re

    found: set[str] = set()
    for path in (site / "reference" / "api").rglob("index.html"):
        found |= set(re.findall(r'id="(kadmin\.[\w.]+)"', path.read_text(encoding="utf-8")))
    return found


def test_every_public_name_has_an_entry(site: Path) -> None:
    hooks = _hooks()
    ids = _ids(site)
    missing = []
    for package in ("kadmin", "kadmin.testing", "kadmin.spark"):
        for name in hooks.public_names(package):
            if f"{hooks.defining_module(package, name)}.{name}" not in ids:
                missing.append(f"{package}.{name}")
    public_aio = [n for n, v in vars(kadmin.aio).items() if not n.startswith("_")
                  and (inspect.isclass(v) or inspect.isfunction(v)) and v.__module__ == "kadmin.aio"]
    missing += [f"kadmin.aio.{n}" for n in public_aio if f"kadmin.aio.{n}" not in ids]
    assert missing == []
    assert "kadmin.testing.pytest_plugin.fake_cluster" in ids


def test_every_method_of_both_clients_has_an_entry(site: Path) -> None:
    ids = _ids(site)
    for module, cls in (("kadmin.client", kadmin.AdminClient), ("kadmin.aio", kadmin.aio.AdminClient)):
        methods = [n for n, _ in inspect.getmembers(cls, inspect.isfunction) if not n.startswith("_")]
        assert len(methods) > 40
        assert [m for m in methods if f"{module}.AdminClient.{m}" not in ids] == []


def test_fake_cluster_shows_the_methods_its_mixins_give_it(site: Path) -> None:
    from kadmin.testing import FakeCluster

    ids = _ids(site)
    methods = [n for n, _ in inspect.getmembers(FakeCluster, inspect.isfunction) if not n.startswith("_")]
    assert {"add_topic", "add_group", "commit", "set_quota", "inject"} <= set(methods)
    assert [m for m in methods if f"kadmin.testing.cluster.FakeCluster.{m}" not in ids] == []


def test_every_command_is_in_the_cli_reference(site: Path) -> None:
    page = _html(site, "reference/cli")
    commands = [c.name for c in _hooks().walk(build_parser())][1:]
    assert len(commands) > 40
    assert [c for c in commands if f"<code>{c}</code>" not in page] == []
    assert "--bootstrap-server" in page and "--output" in page


def test_the_site_has_the_guides_and_the_changelog(site: Path) -> None:
    for page in ("getting-started", "connecting", "guides/topics-configs", "guides/groups-offsets",
                 "guides/quotas", "guides/acls-users", "guides/tokens", "guides/testing", "provision", "migration",
                 "cli", "reference/api/errors", "changelog"):
        assert (site / page / "index.html").is_file(), page
    assert "kafka-kadmin" in _html(site, "changelog")
    # The per-code error classes exist only at run time; the generated table lists them all.
    errors = _html(site, "reference/api/errors")
    assert "NotCoordinatorError" in errors and "GroupIdNotFoundError" in errors


def test_a_command_added_later_appears_with_no_edit() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    new = sub.add_parser("widgets", help="widgets: frobnicate")
    inner = new.add_subparsers(dest="w", metavar="SUBCOMMAND")
    frob = inner.add_parser("frobnicate", help="frobnicate widgets")
    frob.add_argument("--level", type=int, choices=[1, 2, 3], help="how hard")
    page = _hooks().cli_reference(parser)
    assert "### `kadmin widgets frobnicate`" in page
    assert "| `--level` `{1,2,3}` | how hard (one of `1`, `2`, `3`) |" in page
    assert "[`widgets`](#kadmin-widgets)" in page


def test_a_broken_link_fails_the_build(tmp_path: Path) -> None:
    # The site's own settings (strict, link and anchor validation), on a one-page site whose page links to a
    # page and an anchor that do not exist.  The reference plugins are left out: what is checked is that the
    # configuration turns a broken link into a failed build.
    import yaml

    config = yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))
    config.pop("hooks")
    config["plugins"] = ["search"]
    config["nav"] = ["index.md"]
    config["theme"] = {"name": "mkdocs"}
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# x\n\n[gone](nowhere.md), [no anchor](#nothing)\n")
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(config))
    proc = _mkdocs(tmp_path / "mkdocs.yml", tmp_path / "site")
    assert proc.returncode != 0
    assert "nowhere.md" in proc.stderr and "#nothing" in proc.stderr
    shutil.rmtree(tmp_path / "site", ignore_errors=True)
