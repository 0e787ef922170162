"""The README's Python snippets run as a new user runs them: against ``kadmin demo``'s cluster (#18 item 10).

A snippet whose groups the demo does not have prints "failed" on every line, and one that assigns a result
and never reads it teaches ignoring per-key errors; both happened.
"""

from __future__ import annotations

import ast
import contextlib
import io
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from kadmin.testing import FakeCluster

README = Path(__file__).resolve().parents[2] / "README.md"


def _python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)


def test_every_assigned_name_is_read() -> None:
    for block in _python_blocks():
        tree = ast.parse(block)
        stored = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        loaded = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        # `with AdminClient(...) as admin: ...` is a placeholder for the reader's own code.
        placeholders = {item.optional_vars.id for n in ast.walk(tree) if isinstance(n, ast.With)
                        and ast.dump(n.body[0]) == ast.dump(ast.Expr(ast.Constant(Ellipsis)))
                        for item in n.items if isinstance(item.optional_vars, ast.Name)}
        assert stored - placeholders <= loaded, f"assigned and never read: {sorted(stored - loaded)} in\n{block}"


@pytest.fixture(scope="module")
def demo() -> Iterator[FakeCluster]:
    from kadmin.testing.__main__ import seed_demo

    with FakeCluster(brokers=2) as cluster:
        seed_demo(cluster)
        yield cluster


def _run(block: str, bootstrap: str) -> str:
    code = block.replace("broker1:9092,broker2:9092", bootstrap).replace("broker1:9092", bootstrap)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {"__name__": "readme"})  # noqa: S102 - the README's own code
    return out.getvalue()


def test_library_quick_start_runs_against_the_demo(demo: FakeCluster) -> None:
    blocks = [b for b in _python_blocks() if "AdminClient(" in b and "ClientConfig(" not in b]
    assert len(blocks) == 3
    groups, aio, quotas = (_run(b, demo.bootstrap) for b in blocks)
    lines = groups.splitlines()
    assert [line.split()[0] for line in lines] == ["orders-service", "billing", "no-such-group"]
    assert [line for line in lines if "failed" in line] == [lines[2]]
    assert "orders-service" in aio
    assert "altered" in quotas and "failed" not in quotas
    assert demo.quotas[(("user", "alice"),)]["producer_byte_rate"] == 1048576.0
