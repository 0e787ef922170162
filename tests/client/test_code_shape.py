"""Size rules the issue #24 restructuring promised, as a test so that they hold.

No function (or method) in ``kadmin/spark/`` or ``kadmin/network/`` runs over 80 lines: those two packages had
six of the ten longest functions of the project, each a pile of if-chains (one per provisioning kind, one per
request path) that the kinds and the one request path replaced.  A long function there is the sign that a
kind or a second path is growing back inline.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
while not (ROOT / "kadmin").is_dir():  # the test may live one folder down (tests/<layer>/)
    ROOT = ROOT.parent
LIMIT = 80


def _long_functions(package: str) -> list[str]:
    found = []
    for path in sorted((ROOT / "kadmin" / package).rglob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                assert node.end_lineno is not None
                length = node.end_lineno - node.lineno + 1
                if length > LIMIT:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({length} lines)")
    return found


@pytest.mark.parametrize("package", ["spark", "network"])
def test_no_function_over_80_lines(package: str) -> None:
    assert _long_functions(package) == []


def test_the_rule_sees_a_long_function(tmp_path: Path) -> None:
    # The scan itself must be able to fail: a 90-line function is reported.
    body = "\n".join(f"    x{i} = {i}" for i in range(89))
    tree = ast.parse(f"def big():\n{body}\n")
    fn = tree.body[0]
    assert isinstance(fn, ast.FunctionDef) and fn.end_lineno is not None
    assert fn.end_lineno - fn.lineno + 1 == 90 > LIMIT
