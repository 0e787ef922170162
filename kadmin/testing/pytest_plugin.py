"""pytest fixture ``fake_cluster``: a fresh FakeCluster per test, closed afterwards.

Enable with ``pytest_plugins = ["kadmin.testing.pytest_plugin"]`` in a root conftest, ``-p
kadmin.testing.pytest_plugin``, or by importing ``fake_cluster`` into a test module.  Configure per test
with a marker: ``@pytest.mark.fake_cluster(brokers=1, versions="2.8")`` (any FakeCluster keyword).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kadmin.testing.cluster import FakeCluster


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "fake_cluster(**kwargs): FakeCluster options for the fake_cluster fixture")


@pytest.fixture
def fake_cluster(request: pytest.FixtureRequest) -> Iterator[FakeCluster]:
    marker = request.node.get_closest_marker("fake_cluster")
    kwargs = dict(marker.kwargs) if marker is not None else {}
    with FakeCluster(**kwargs) as cluster:
        yield cluster
