"""Module-scoped fixtures made in one line: a FakeCluster, or an AdminClient on the module's ``cluster``,
shared by every test of a module.

The function-scoped cluster is the shipped ``fake_cluster`` fixture (tests/conftest.py's ``cluster``); a
module whose tests only read, or use names of their own, shares one cluster instead, which is what keeps the
suite within its time on two cores.  ``cluster = shared_cluster(brokers=3, versions="3.9")`` at module level
replaces the five lines each such module used to carry.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from kadmin.client import AdminClient
from kadmin.testing import FakeCluster
from tests.support.settings import FAST


def shared_cluster(**options: Any) -> Callable[..., Any]:
    """A module-scoped fixture: one ``FakeCluster(**options)`` for the module, closed after its last test."""

    @pytest.fixture(scope="module")
    def cluster() -> Iterator[FakeCluster]:
        with FakeCluster(**options) as c:
            yield c

    return cluster


def shared_admin(**settings: Any) -> Callable[..., Any]:
    """A module-scoped fixture: one sync AdminClient on the module's ``cluster``, with the fast settings
    updated by ``settings``."""

    @pytest.fixture(scope="module")
    def admin(cluster: FakeCluster) -> Iterator[AdminClient]:
        with AdminClient(cluster.bootstrap, **(FAST | settings)) as a:
            yield a

    return admin
