"""kadmin/client.py is generated from kadmin/aio.py by scripts/gen_sync.py (issue #24): nothing about a method
is written twice.  These tests fail when the file on disk is stale, and pin what the generator promises: the
same signatures and docstrings as the async client, methods added to aio.py picked up without editing the
generator, and public methods it cannot mirror safely refused with a reason."""

from __future__ import annotations

import ast
import importlib.util
import inspect
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest

from kadmin import aio
from kadmin.client import AdminClient

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "scripts" / "gen_sync.py").is_file())
SCRIPT = ROOT / "scripts" / "gen_sync.py"


def _load_generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_sync", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_sync"] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


gen_sync = _load_generator()
AIO_TEXT = (ROOT / "kadmin" / "aio.py").read_text(encoding="utf-8")

MIRRORED = sorted(n for n, _ in inspect.getmembers(aio.AdminClient, inspect.iscoroutinefunction)
                  if not n.startswith("_") and n not in gen_sync.NOT_MIRRORED)


def test_client_py_is_what_the_generator_writes() -> None:
    # The drift test: edit aio.py (or the generator) without rerunning it, and this fails.
    on_disk = (ROOT / "kadmin" / "client.py").read_text(encoding="utf-8")
    assert gen_sync.generate(AIO_TEXT) == on_disk, "kadmin/client.py is stale: run python scripts/gen_sync.py"


def test_check_mode_fails_on_a_stale_file_and_writing_makes_it_pass(tmp_path: Path) -> None:
    # The script as the lead runs it, on a copy of the tree whose client.py lost a method.
    (tmp_path / "scripts").mkdir()
    (tmp_path / "kadmin").mkdir()
    shutil.copy(SCRIPT, tmp_path / "scripts" / "gen_sync.py")
    shutil.copy(ROOT / "kadmin" / "aio.py", tmp_path / "kadmin" / "aio.py")
    fresh = (ROOT / "kadmin" / "client.py").read_text(encoding="utf-8")
    stale = fresh.replace("    def whoami(", "    def whoami_renamed(")
    assert stale != fresh
    target = tmp_path / "kadmin" / "client.py"
    target.write_text(stale, encoding="utf-8")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, str(tmp_path / "scripts" / "gen_sync.py"), *args],
                              capture_output=True, text=True, timeout=60, check=False)

    checked = run("--check")
    assert checked.returncode == 1
    assert "kadmin/client.py is stale" in checked.stderr
    assert target.read_text(encoding="utf-8") == stale  # check mode writes nothing
    assert run().returncode == 0
    assert target.read_text(encoding="utf-8") == fresh
    assert run("--check").returncode == 0
    assert run().returncode == 0  # idempotent: a second run leaves the file as it is
    assert target.read_text(encoding="utf-8") == fresh


def test_the_sync_client_mirrors_every_public_async_method() -> None:
    sync_public = sorted(n for n, _ in inspect.getmembers(AdminClient, inspect.isfunction)
                         if not n.startswith("_") and n != "close")
    assert sync_public == MIRRORED


@pytest.mark.parametrize("name", MIRRORED)
def test_a_sync_method_has_the_async_signature_and_docstring(name: str) -> None:
    sync_fn, async_fn = getattr(AdminClient, name), getattr(aio.AdminClient, name)
    assert inspect.signature(sync_fn) == inspect.signature(async_fn)
    doc = inspect.getdoc(sync_fn)
    assert doc, f"help(kadmin.AdminClient.{name}) would show no text"
    assert doc == inspect.getdoc(async_fn)


def test_overload_stubs_are_carried_over() -> None:
    # typing.get_overloads needs 3.11; the source says the same on every version.
    tree = ast.parse((ROOT / "kadmin" / "client.py").read_text(encoding="utf-8"))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "AdminClient")
    stubs = sorted(f.name for f in cls.body if isinstance(f, ast.FunctionDef) and f.decorator_list)
    aio_cls = next(n for n in ast.parse(AIO_TEXT).body
                   if isinstance(n, ast.ClassDef) and n.name == "AdminClient")
    aio_stubs = sorted(f.name for f in aio_cls.body
                       if isinstance(f, ast.AsyncFunctionDef) and f.decorator_list)
    assert stubs == aio_stubs
    assert len(stubs) == 9  # 7, and list_share_group_offsets' two (issue #25)


NEW_METHODS = '''
    async def describe_widgets(self, transactional_ids: Iterable[str], *, verbose: bool = False,
                                    state: Literal["Ongoing", "CompleteCommit"] | None = None,
                                    timeout: float | None = None) -> dict[str, TopicPartition | KafkaError]:
        """A method that is not there yet (one of the coming operations)."""
        return {}

    @overload
    async def fence(self, ids: None = None, /) -> int: ...

    @overload
    async def fence(self, ids: Iterable[str], /) -> str: ...

    async def fence(self, ids: Iterable[str] | None = None, /, *extra: Any,
                    **options: Mapping[str, int]) -> Any:
        """Positional-only, *args and **kwargs."""
        return None

    async def stream_records(self, topic: str, *, limit: int = 10,
                             timeout: float | None = None) -> AsyncIterator[TopicPartition]:
        """An async generator: the sync client returns an iterator."""
        yield TopicPartition(topic, 0)
'''


def _with_new_methods(text: str) -> str:
    anchor = "    # --- cluster ---"
    assert anchor in text
    imports = "from collections.abc import AsyncIterator\nfrom typing import Any, Literal,"
    text = text.replace("from typing import Any,", imports, 1)
    return text.replace(anchor, NEW_METHODS.strip("\n") + "\n\n" + anchor, 1)


def test_a_method_added_to_aio_is_generated_without_editing_the_generator() -> None:
    text = gen_sync.generate(_with_new_methods(AIO_TEXT))
    assert text != gen_sync.generate(AIO_TEXT)
    compile(text, "client.py", "exec")
    assert textwrap.indent(textwrap.dedent('''
        def describe_widgets(
            self, transactional_ids: Iterable[str], *, verbose: bool = False,
            state: Literal["Ongoing", "CompleteCommit"] | None = None, timeout: float | None = None,
        ) -> dict[str, TopicPartition | KafkaError]:
            """A method that is not there yet (one of the coming operations)."""
            return self._call(self._aio.describe_widgets(
                copied(transactional_ids), verbose=verbose, state=state, timeout=timeout,
            ), timeout)''').strip("\n"), "    ") in text
    assert "    def fence(self, ids: None = None, /) -> int: ..." in text
    assert ("            copied(ids), *[copied(v) for v in extra], "
            "**{k: copied(v) for k, v in options.items()},\n"
            "        ), None)") in text  # no timeout parameter: the client's default bounds the wait
    assert "    ) -> Iterator[TopicPartition]:" in text
    assert ("        return self._iterate(self._aio.stream_records(topic, limit=limit, timeout=timeout), "
            "timeout)") in text
    # names met only in annotations are imported for type checkers only (import time, issue #28)
    assert "from typing import TYPE_CHECKING, overload\n" in text
    assert "\nif TYPE_CHECKING:\n" in text
    assert "    from collections.abc import Iterable, Iterator, Mapping, Sequence\n" in text
    assert "    from typing import Any, Literal\n" in text


@pytest.mark.parametrize(("method", "error"), [
    ("    def helper(self, x: int) -> int:\n        \"\"\"A plain def.\"\"\"\n        return x\n",
     "plain def"),
    ("    @property\n    async def prop(self) -> int:\n        \"\"\"A property.\"\"\"\n        return 1\n",
     "decorator other than @overload"),
    ("    async def undocumented(self, *, timeout: float | None = None) -> int:\n        return 1\n",
     "has no docstring"),
    ("    async def unannotated(self):\n        \"\"\"No return annotation.\"\"\"\n", "no return annotation"),
    ("    async def stream(self) -> list[int]:\n        \"\"\"A generator, wrongly annotated.\"\"\"\n"
     "        yield 1\n", "async generator must be annotated"),
    ("    async def odd(self, x: NoSuchType) -> int:\n        \"\"\"A name from nowhere.\"\"\"\n"
     "        return 1\n", "neither imports nor defines"),
])
def test_what_cannot_be_mirrored_safely_stops_the_generator(method: str, error: str) -> None:
    text = AIO_TEXT.replace("    # --- cluster ---", method + "\n    # --- cluster ---", 1)
    with pytest.raises(gen_sync.GenerationError, match=error):
        gen_sync.generate(text)


def test_the_generated_file_says_it_is_generated() -> None:
    first = (ROOT / "kadmin" / "client.py").read_text(encoding="utf-8").split("\n", 1)[0]
    assert first == "# generated by scripts/gen_sync.py from kadmin/aio.py; do not edit"
