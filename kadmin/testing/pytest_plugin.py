"""pytest fixture ``fake_cluster``: a fresh FakeCluster per test, closed afterwards.

Registered by installing kadmin (the ``pytest11`` entry point ``kadmin`` in pyproject.toml), so every pytest
run in an environment with kadmin has the fixture and the marker; nothing starts unless a test asks for the
fixture, and ``pytest -p no:kadmin`` switches the plugin off.  Configure per test
with indirect parametrization, ``@pytest.mark.parametrize("fake_cluster", [{"brokers": 1}], indirect=True)``,
or (with the plugin registered, which declares the marker) ``@pytest.mark.fake_cluster(brokers=1,
versions="2.8")``.  Both take any FakeCluster keyword; the parameter wins over the marker.
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
    kwargs.update(getattr(request, "param", None) or {})
    with FakeCluster(**kwargs) as cluster:
        yield cluster
