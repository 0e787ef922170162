"""No dead names in kadmin (issue #24): every function, class, module-level constant and method defined in the
package is used somewhere, or exported from ``kadmin``.

"Used" is read from the source, by name, as vulture does: a module-level name is used where it is loaded
(``f()``, ``module.f``, ``from m import f``), a method where an attribute of its name is loaded (``x.f``).
The places that count are the package itself, tests/, bench/, examples/ and scripts/, plus strings that name
something in code (``getattr(x, "f")``, ``"kadmin.cli.main:main"``, a string annotation, the keys of
``kadmin._EXPORTS``).  A module's own
``__all__`` does not make a name used: it says what may be imported, not that anything does.

Run ``python tests/test_dead_names.py`` to list every dead name, the folders the test skips included.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

#: The repository: the folder above the tests that holds pyproject.toml (tests may move into layer folders).
ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").exists())
#: Where uses are looked for.
USERS = ("kadmin", "tests", "bench", "examples", "scripts")
#: Folders of the package being restructured by other parts of issue #24 (network: one request path; testing:
#: self-registering fake handlers; spark: one provisioning pipeline).  Widen this once they are merged.
SKIPPED: tuple[str, ...] = ()
#: Names called by a framework, by name, never by kadmin's own code (relative path: qualified name).
CALLED_BY_NAME: dict[str, set[str]] = {
    # asyncio.Protocol calls connection_made on the protocol it was given.
    "kadmin/testing/broker.py": {"_TlsSniffer.connection_made"},
    # The transport calls its protocol's callbacks (the connection's reading end, kadmin.network.connection).
    "kadmin/network/connection.py": {"_Wire.data_received", "_Wire.eof_received", "_Wire.connection_lost",
                                     "_Wire.pause_writing", "_Wire.resume_writing"},
    # pytest calls a plugin's hooks by name (this module is the pytest11 entry point in pyproject.toml).
    "kadmin/testing/pytest_plugin.py": {"pytest_configure"},
}

_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_ENTRY_POINT = re.compile(r"[\w.]+:[\w.]+")
_TYPE_EXPRESSION = re.compile(r"[\w.\[\], |]+")


@dataclass(frozen=True)
class Uses:
    names: set[str]  # loaded as a bare name, imported, or named by a string
    attributes: set[str]  # loaded as an attribute, imported, or named by a string


#: Calls whose string arguments name an attribute.
_BY_NAME_CALLS = {"getattr", "hasattr", "setattr", "delattr", "attrgetter", "methodcaller"}


def _strings_naming_code(value: str, argument_of: str | None) -> Iterator[str]:
    """The names a string constant uses: a name given to getattr and its kind, a ``module:function`` entry
    point or a ``kadmin.`` module path, the names in a string annotation.  Other strings (messages, config
    keys such as ``message.timestamp.after.max.ms``) name nothing, even when a word in them is a method's name."""
    s = value.strip()
    if _IDENTIFIER.fullmatch(s):
        if argument_of in _BY_NAME_CALLS or argument_of == "_EXPORTS":
            yield s
    elif _ENTRY_POINT.fullmatch(s) or (s.startswith("kadmin.") and re.fullmatch(r"[\w.]+", s)):
        yield from re.split(r"[.:]", s)
    elif len(s) < 200 and ("[" in s or "|" in s) and _TYPE_EXPRESSION.fullmatch(s):
        try:
            tree = ast.parse(s, mode="eval")
        except SyntaxError:
            return
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                yield node.id
            elif isinstance(node, ast.Attribute):
                yield node.attr


def _string_contexts(tree: ast.AST) -> dict[int, str]:
    """{id of a string constant: the call it is an argument of (getattr...), or ``_EXPORTS`` for the keys of
    kadmin's lazy export table}."""
    out: dict[int, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            for arg in node.args:
                out[id(arg)] = name
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Dict):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "_EXPORTS" for t in targets):
                out.update({id(key): "_EXPORTS" for key in node.value.keys if key is not None})
    return out


def _is_dunder_all(node: ast.AST) -> bool:
    targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
    return any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets)


def uses(root: Path = ROOT) -> Uses:
    found = Uses(set(), set())
    for folder in USERS:
        for path in sorted((root / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(), str(path))
            contexts = _string_contexts(tree)
            skip = {id(n) for node in ast.walk(tree) if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign))
                    and _is_dunder_all(node) for n in ast.walk(node)}
            for node in ast.walk(tree):
                if id(node) in skip:
                    continue
                if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Store):
                    found.names.add(node.id)
                elif isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Store):
                    found.attributes.add(node.attr)
                elif isinstance(node, ast.alias):
                    found.names.add(node.name.split(".")[-1])
                    found.attributes.add(node.name.split(".")[-1])
                elif isinstance(node, ast.arg):  # a pytest fixture is used by naming it as a parameter
                    found.names.add(node.arg)
                elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                    named = set(_strings_naming_code(node.value, contexts.get(id(node))))
                    found.names.update(named)
                    found.attributes.update(named)
    return found


def definitions(root: Path = ROOT) -> Iterator[tuple[str, int, str, bool]]:
    """(relative path, line, qualified name, is a method) for each name the package defines at module level or
    in a module-level class body (dunders excepted: Python calls them)."""
    for path in sorted((root / "kadmin").rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        for node in ast.parse(path.read_text(), str(path)).body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if not (node.name.startswith("__") and node.name.endswith("__")):  # __getattr__, __dir__
                    yield rel, node.lineno, node.name, False
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    if isinstance(target, ast.Name) and not target.id.startswith("__"):
                        yield rel, node.lineno, target.id, False
            if isinstance(node, ast.ClassDef):
                for member in node.body:
                    if (isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                            and not (member.name.startswith("__") and member.name.endswith("__"))):
                        yield rel, member.lineno, f"{node.name}.{member.name}", True


def dead_names(root: Path = ROOT, skipped: tuple[str, ...] = SKIPPED) -> list[str]:
    used = uses(root)
    dead = []
    for rel, line, name, is_method in definitions(root):
        if any(rel.startswith(f"kadmin/{folder}/") for folder in skipped):
            continue
        if name in CALLED_BY_NAME.get(rel, ()):
            continue
        last = name.rsplit(".", 1)[-1]
        if last not in (used.attributes if is_method else used.names | used.attributes):
            dead.append(f"{rel}:{line}: {name}")
    return dead


def test_no_dead_names() -> None:
    assert dead_names() == []


def test_a_dead_name_is_found(tmp_path: Path) -> None:
    """The scan can fail: a function nothing calls, a method nothing reads, a constant only listed in
    ``__all__`` are reported; names used by a call, an attribute, an import or getattr's string are not."""
    (tmp_path / "kadmin").mkdir()
    (tmp_path / "kadmin" / "mod.py").write_text(
        "LIMIT = 3\nUNUSED = 4\n__all__ = ['UNUSED', 'helper']\n\n"
        "def helper() -> int:\n    return LIMIT\n\n"
        "def orphan() -> None:\n    pass\n\n"
        "class Thing:\n    def used(self) -> None:\n        pass\n\n"
        "    def by_string(self) -> None:\n        pass\n\n"
        "    def never(self) -> None:\n        pass\n\n"
        "    def __repr__(self) -> str:\n        return ''\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_mod.py").write_text(
        "from kadmin.mod import Thing, helper\n\nhelper()\nThing().used()\ngetattr(Thing(), 'by_string')()\n")
    assert dead_names(tmp_path) == ["kadmin/mod.py:2: UNUSED", "kadmin/mod.py:8: orphan",
                                    "kadmin/mod.py:18: Thing.never"]


def test_the_framework_hooks_allowed_are_still_defined() -> None:
    """An allowlist entry whose name is gone would hide nothing, but would go stale unnoticed."""
    defined = {(rel, name) for rel, _line, name, _m in definitions()}
    assert {(rel, name) for rel, names in CALLED_BY_NAME.items() for name in names} <= defined


if __name__ == "__main__":
    for entry in dead_names(skipped=()):
        print(entry)
    sys.exit(0)
