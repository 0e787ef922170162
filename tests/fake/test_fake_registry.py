"""The fake cluster's handlers register themselves, one file per API key, and cover what the presets advertise;
its state is split by area.

Why: adding an API to the fake must be one new file in kadmin/testing/handlers/ (no import list, no
``__all__``, no table to extend), plus an area module in kadmin/testing/state/ if it keeps a new kind of
state, and the fake must never advertise an API it does not serve.  Handlers are checked here from the
registry as the package fills it on import, not from a list kept beside it.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import kadmin.testing.handlers as handlers_pkg
from kadmin.protocol.apis import ApiKey
from kadmin.testing import FakeCluster
from kadmin.testing.handlers import HANDLERS
from kadmin.testing.handlers.base import ApiHandler, register
from kadmin.testing.rawclient import ConnectionClosed, RawConnection
from kadmin.testing.schemas import fake_message_type
from kadmin.testing.state.quotas import Quotas
from kadmin.versions import API_NAMES, RELEASE_NAMES, RELEASES

pytestmark = pytest.mark.timeout(60)

TESTING = Path(handlers_pkg.__file__).resolve().parent.parent


def _snake(camel: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", camel).lower()


def _package_modules() -> set[str]:
    return {f"{handlers_pkg.__name__}.{m.name}" for m in pkgutil.iter_modules(handlers_pkg.__path__)}


@pytest.mark.parametrize("release", RELEASE_NAMES)
def test_every_advertised_key_has_a_registered_handler_for_its_whole_range(release: str) -> None:
    for key, (lo, hi) in RELEASES[release].items():
        handler = HANDLERS.get(key)
        assert handler is not None, f"{release} advertises {API_NAMES[key]} ({key}): no handler registered it"
        served_lo, served_hi = handler.versions
        assert served_lo <= lo and hi <= served_hi, (
            f"{release} advertises {API_NAMES[key]} v{lo}-{hi}; {handler.module} serves v{served_lo}-{served_hi}")


def test_every_module_of_the_package_is_imported_and_every_handler_comes_from_one() -> None:
    """Discovery, not a list: each file in the folder is loaded, and each registration names its file."""
    modules = _package_modules()
    assert modules <= set(sys.modules), sorted(modules - set(sys.modules))
    registering = {h.module for h in HANDLERS.values()}
    assert registering <= modules, sorted(registering - modules)
    # Helpers register nothing; everything else registers at least one key (there are dozens of handlers).
    assert len(registering) >= 50


def test_one_file_per_api_key_named_after_it() -> None:
    """A module serving one key is named after that key's schema (DescribeGroups -> describe_groups.py), so a
    reader finds a key's handler by name; a module serving several keys serves them with one handler."""
    by_module: dict[str, list[ApiHandler]] = defaultdict(list)
    for h in HANDLERS.values():
        by_module[h.module].append(h)
    for module, served in by_module.items():
        short = module.rsplit(".", 1)[1]
        if len(served) == 1:
            schema = fake_message_type(served[0].api_key, "request").__name__.removesuffix("Request")
            assert short == _snake(schema), f"{module} serves {schema}: name the file {_snake(schema)}.py"
        else:
            codes = {h.handle.__code__ for h in served}
            assert len(codes) == 1, f"{module} serves {[h.api_key for h in served]} with different handlers: " \
                "give each key its own file"


def test_a_second_file_registering_a_key_is_refused_at_import() -> None:
    before = HANDLERS[ApiKey.METADATA]
    source = "register(3, handle=lambda c, r, v: None, error_response=lambda c, r, v, e: None)\n"
    with pytest.raises(RuntimeError, match="registered by kadmin.testing.handlers.metadata and again by "
                                           "someone_elses_metadata"):
        exec(compile(source, "someone_elses_metadata.py", "exec"),  # noqa: S102 - a module's top level
             {"__name__": "someone_elses_metadata", "register": register})
    assert HANDLERS[ApiKey.METADATA] is before


def test_reimporting_a_handler_module_registers_it_again_without_complaint() -> None:
    module = importlib.reload(importlib.import_module("kadmin.testing.handlers.heartbeat"))
    assert HANDLERS[ApiKey.HEARTBEAT].module == module.__name__


def test_the_broker_dispatches_through_the_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """A version the registered handler does not serve closes the connection, as for an unknown API, even
    where the broker's table advertises it; the versions it serves are answered by its handle."""
    real = HANDLERS[ApiKey.DESCRIBE_CLUSTER]
    seen: list[int] = []

    def handle(ctx: Any, req: Any, version: int) -> Any:
        seen.append(version)
        return real.handle(ctx, req, version)

    monkeypatch.setitem(HANDLERS, ApiKey.DESCRIBE_CLUSTER,
                        ApiHandler(real.api_key, handle, real.error_response, real.keys, real.module, (1, 1)))
    assert HANDLERS[ApiKey.DESCRIBE_CLUSTER].versions == (1, 1)
    with FakeCluster(brokers=1, versions="3.9") as c:
        host, port = c.addresses[1]
        with RawConnection(host, port) as conn:
            assert conn.request(ApiKey.DESCRIBE_CLUSTER, 1).error_code == 0
        with RawConnection(host, port) as conn:
            with pytest.raises((ConnectionClosed, OSError)):
                conn.request(ApiKey.DESCRIBE_CLUSTER, 0)
    assert seen == [1]


@dataclass
class _Transactions:
    """An area no handler has yet: what a new API's own state module would define."""

    open: dict[str, int] = field(default_factory=dict)


def test_a_new_kind_of_state_is_an_area_made_on_first_use_and_owned_by_one_cluster() -> None:
    with FakeCluster(brokers=1) as a, FakeCluster(brokers=1) as b:
        with a._lock:
            first = a._state.area(_Transactions)
            first.open["t-1"] = 7
            assert a._state.area(_Transactions) is first
        with b._lock:
            assert b._state.area(_Transactions).open == {}
        # The existing areas answer through the same door: what a test seeds, a handler's area holds.
        a.set_quota({"user": "alice"}, "producer_byte_rate", 1024.0)
        with a._lock:
            assert a._state.area(Quotas) == {(("user", "alice"),): {"producer_byte_rate": 1024.0}}
        with b._lock:
            assert a._state.area(Quotas) is not b._state.area(Quotas) and b._state.area(Quotas) == {}


_CLIENT_SIDE = ("kadmin.admin", "kadmin.network", "kadmin.client", "kadmin.aio", "kadmin.cli", "kadmin.spark")


def test_the_fake_never_imports_the_client_the_admin_layer_or_the_network() -> None:
    """The fake is an independent oracle: agreeing with the client because it shares its code would prove
    nothing.  Every import in kadmin/testing (lazy ones included) stays clear of the client side."""
    offenders = []
    for path in sorted(TESTING.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0 else []
            offenders += [f"{path.relative_to(TESTING)}: {n}" for n in names
                          if any(n == c or n.startswith(c + ".") for c in _CLIENT_SIDE)]
    assert offenders == []
