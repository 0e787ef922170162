"""The public surface (issue #24): every kadmin type a caller meets is importable from ``kadmin`` itself.

A caller meets a type in a client method's parameters or result, in a field of a result (recursively), or in a
public method or property of such a type.  The walk below starts from both clients' public methods, so a future
method whose result is a new dataclass fails here until the dataclass is exported: nobody has to remember to.
``kadmin`` imports its names lazily (``import kadmin.protocol`` must stay a pure codec); the last tests keep that.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import subprocess
import sys
import types
import typing
from pathlib import Path

import kadmin
import kadmin.aio
import kadmin.client
import kadmin.errors

PACKAGE = Path(kadmin.__file__).resolve().parent


def _is_kadmin_type(tp: object) -> bool:
    return isinstance(tp, type) and (tp.__module__ == "kadmin" or tp.__module__.startswith("kadmin."))


#: A function's @overload signatures (Python 3.11+; on 3.10 the implementation's signature, which covers them).
_overloads: typing.Callable[[typing.Any], typing.Sequence[typing.Any]] = getattr(typing, "get_overloads",
                                                                                 lambda fn: ())


def _public_functions(cls: type) -> dict[str, typing.Any]:
    """{name: function} for the public methods, classmethods and staticmethods of ``cls`` (``__init__`` too)."""
    out: dict[str, typing.Any] = {}
    for name, value in vars(cls).items():
        fn = value.__func__ if isinstance(value, (classmethod, staticmethod)) else value
        if inspect.isfunction(fn) and (name == "__init__" or not name.startswith("_")):
            out[name] = fn
        elif isinstance(value, property) and not name.startswith("_") and value.fget is not None:
            out[name] = value.fget
    return out


def types_met(roots: list[type]) -> dict[type, str]:
    """{kadmin-defined type: where a caller first meets it} reached from the public methods of ``roots``.

    Annotations are resolved with ``typing.get_type_hints`` (a name that only exists for type checkers raises
    here: a caller could not resolve it either).  A TypeVar counts by its bound and constraints.  Private
    classes (``_Named``, the base of the ACL enums) are not part of the surface and are not followed."""
    found: dict[type, str] = {}

    def walk(tp: object, where: str) -> None:
        if isinstance(tp, typing.TypeVar):
            bound = tp.__bound__
            if isinstance(bound, typing.ForwardRef):  # resolved where the TypeVar is, else among the exports
                names = {**{n: getattr(kadmin, n) for n in kadmin.__all__}, **vars(sys.modules[tp.__module__])}
                bound = eval(bound.__forward_arg__, names)
            for t in (bound, *tp.__constraints__):
                walk(t, where)
            return
        for arg in typing.get_args(tp):
            walk(arg, where)
        origin = typing.get_origin(tp)
        if origin is not None:
            walk(origin, where)
            return
        if not _is_kadmin_type(tp) or tp in found:
            return
        assert isinstance(tp, type)
        found[tp] = where
        if not tp.__name__.startswith("_"):
            visit(tp)

    def visit(cls: type) -> None:
        if dataclasses.is_dataclass(cls):
            for name, hint in typing.get_type_hints(cls).items():
                if not name.startswith("_"):
                    walk(hint, f"{cls.__name__}.{name}")
        for name, fn in _public_functions(cls).items():
            for f in (fn, *_overloads(fn)):
                # The sync client's annotations are kadmin.aio's, copied verbatim by scripts/gen_sync.py and
                # imported there only for type checkers (so that importing it stays cheap): resolved where
                # they were written.
                where_written = vars(kadmin.aio) if f.__module__ == "kadmin.client" else None
                for param, hint in typing.get_type_hints(f, where_written).items():
                    walk(hint, f"{cls.__name__}.{name}({param})")

    for root in roots:
        visit(root)
    return found


def missing_exports(found: dict[type, str]) -> list[str]:
    return sorted(f"{tp.__module__}.{tp.__qualname__} (met in {where})" for tp, where in found.items()
                  if not tp.__name__.startswith("_")
                  and (tp.__name__ not in kadmin._EXPORTS or getattr(kadmin, tp.__name__) is not tp))


def test_every_kadmin_type_in_the_clients_signatures_is_importable_from_kadmin() -> None:
    roots: list[type] = [kadmin.aio.AdminClient, kadmin.client.AdminClient]
    found = types_met(roots)
    # The walk reaches deep (a result's field's type), so it can be trusted to see a new one.
    from kadmin.admin.partitions import ListedOffset, OffsetSpec
    from kadmin.quotas import ClientQuotaFilterComponent, MatchType
    from kadmin.types import ConsumerAssignment
    assert {OffsetSpec, ListedOffset, ClientQuotaFilterComponent, MatchType, ConsumerAssignment} <= set(found)
    assert missing_exports({tp: w for tp, w in found.items() if tp not in roots}) == []


def test_the_walk_fails_on_a_new_result_type_that_is_not_exported() -> None:
    """What the test above guards against: a method added with a result type of its own, not exported."""

    # Built with real classes in their annotations (this module's are strings, resolved in its namespace).
    level = dataclasses.make_dataclass("FeatureLevel", [("name", str)], frozen=True)
    levels = dataclasses.make_dataclass("FeatureLevels", [("levels", types.GenericAlias(tuple, (level, ...)))],
                                        frozen=True)
    level.__module__ = levels.__module__ = "kadmin.features"

    class Client:
        async def describe_features(self, *, timeout: float | None = None) -> object:
            raise NotImplementedError

    Client.describe_features.__annotations__ = {"timeout": float | None,
                                                "return": types.GenericAlias(dict, (str, levels))}
    assert missing_exports(types_met([Client])) == [
        "kadmin.features.FeatureLevel (met in FeatureLevels.levels)",
        "kadmin.features.FeatureLevels (met in Client.describe_features(return))"]


def test_the_errors_written_by_hand_are_exported() -> None:
    """The hierarchy's classes (KafkaError, BrokerError, KafkaTimeoutError...) are catchable as ``kadmin.X``;
    the one class per broker error code, generated from the table, stays in :mod:`kadmin.errors`."""
    tree = ast.parse((PACKAGE / "errors.py").read_text())
    by_hand = {node.name for node in tree.body if isinstance(node, ast.ClassDef)}
    assert "KafkaError" in by_hand and len(by_hand) > 10
    assert {name for name in by_hand if kadmin._EXPORTS.get(name) != "kadmin.errors"} == set()
    assert all(issubclass(getattr(kadmin, name), kadmin.errors.KafkaError) for name in by_hand)


def test_the_export_table_matches_the_type_checking_imports_and_the_defining_modules() -> None:
    """``_EXPORTS`` (what runs) and the TYPE_CHECKING imports (what mypy sees) name the same things, and each
    name comes from the module that defines it (a re-export would break when that module stops importing it)."""
    tree = ast.parse((PACKAGE / "__init__.py").read_text())
    checked = {alias.name: node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
               and node.module != "kadmin._version" and node.module != "__future__" and node.module != "typing"
               for alias in node.names}
    assert checked == kadmin._EXPORTS
    for name, module in kadmin._EXPORTS.items():
        value = getattr(kadmin, name)
        if isinstance(value, type):
            assert value.__module__ == module, name
    assert sorted(kadmin.__all__) == sorted([*kadmin._EXPORTS, "__version__"])


def _child(code: str) -> None:
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)


def test_dir_lists_the_lazy_names_without_importing_them() -> None:
    _child("import sys, kadmin\n"
           "names = dir(kadmin)\n"
           "assert {'OffsetSpec', 'ListedOffset', 'AdminClient', 'KafkaTimeoutError', '__version__'} <= set(names)\n"
           "assert set(kadmin._EXPORTS) <= set(names), set(kadmin._EXPORTS) - set(names)\n"
           "loaded = sorted(m for m in sys.modules if m.startswith('kadmin.'))\n"
           "assert loaded == ['kadmin._version'], loaded\n")


def test_import_kadmin_protocol_stays_a_pure_codec() -> None:
    """The reason the exports are lazy: the codec loads neither the network, the admin layer nor asyncio."""
    _child("import sys, kadmin.protocol\n"
           "bad = sorted(m for m in sys.modules if m.split('.')[:2] in (['kadmin', 'network'], ['kadmin', 'admin'],"
           " ['kadmin', 'aio'], ['kadmin', 'client']) or m == 'asyncio')\n"
           "assert not bad, bad\n"
           "from kadmin import OffsetSpec\n"
           "assert 'kadmin.admin.partitions' in sys.modules\n")
