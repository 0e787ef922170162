"""What every layer folder shares: the markers, the fast client settings, the fake cluster and a client on it,
and real third-party peers.

* ``cluster``: the test's own FakeCluster, the shipped plugin's ``fake_cluster`` fixture
  (kadmin.testing.pytest_plugin, registered by installing kadmin); configure it per module with
  ``pytestmark = pytest.mark.fake_cluster(brokers=3, versions="3.9")`` or per test.  A module whose tests
  share one cluster (read-mostly tests, or tests using unique names: cheaper) makes its own module-scoped
  ``cluster`` with tests.support.clusters.shared_cluster.
* ``fast_settings`` / ``admin``: tests.support.settings.FAST, and an AdminClient with it on ``cluster``.
* ``tansu``, ``fresh_tansu``, ``rdkafka_mock``: real peers.  Peers that cannot start make the requesting test
  ERROR, never skip: on this project's machines both peers are installed by ``pip install -e .[test]``, so a
  missing one means a broken environment that must be seen, not hidden.
* The Spark session fixtures are in tests/spark/conftest.py: every test that starts Spark lives there.

Markers: ``peer`` and ``spark`` are added from the fixtures a test uses; a test that starts Spark in a child
process (no fixture to see) carries ``@pytest.mark.spark`` itself.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kadmin.client import AdminClient
from kadmin.testing import FakeCluster

# kafka-python (used here only as an independent codec) loads its schemas
# through deprecated importlib.resources calls, at import time: hundreds of
# warnings that would bury the ones about our own code.
_KAFKA_PYTHON_NOISE = (
    ("read_text is deprecated", "kafka.protocol.schemas.load_json"),
    ("open_text is deprecated", "importlib.resources._legacy"),
)
for _message, _module in _KAFKA_PYTHON_NOISE:
    warnings.filterwarnings("ignore", message=_message, category=DeprecationWarning, module=_module)

from tests.support import peers  # noqa: E402 - after the filters, since importing it loads schemas
from tests.support.kafka_reference import (  # noqa: E402,F401 - the reference tests' fixture and hook
    kafka_specs,
    pytest_runtest_makereport,
)
from tests.support.peers import RunningBroker  # noqa: E402
from tests.support.settings import FAST  # noqa: E402

#: peer_log_dir: the two smoke tests that start a mock of their own ask only for the log folder.
_PEER_FIXTURES = {"tansu", "fresh_tansu", "rdkafka_mock", "peer_log_dir"}
#: ``tspark`` asks for its session with getfixturevalue, so ``spark`` is not among its test's fixture names.
_SPARK_FIXTURES = {"spark", "tspark", "connect_session"}


def pytest_configure(config: pytest.Config) -> None:
    # The same filters for schemas loaded later, while test modules are
    # collected or run (pytest resets the filters around each phase).
    for message, module in _KAFKA_PYTHON_NOISE:
        config.addinivalue_line("filterwarnings", f"ignore:{message}:DeprecationWarning:{module}")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Mark by fixture use, so `-m "not peer and not spark"` gives a fast local
    # run without every test author remembering to add the markers.
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        if used & _PEER_FIXTURES:
            item.add_marker(pytest.mark.peer)
        if used & _SPARK_FIXTURES:
            item.add_marker(pytest.mark.spark)
    # The Spark tests first (a stable sort: each group keeps its order).  They are the longest tests; run in
    # two worker processes (scripts/test.sh), the first worker's share of the list then holds them all, so one
    # JVM serves them while the other worker runs the quick tests, and the workers steal each other's
    # remaining quick tests at the end instead of one waiting out a minute-long Spark test alone.
    items.sort(key=lambda item: item.get_closest_marker("spark") is None)


_SPARK_BEFORE = pytest.StashKey[bool]()


def _spark_context_running() -> bool:
    """Whether this process has a live SparkContext (asked only if pyspark is imported: never imports it)."""
    pyspark = sys.modules.get("pyspark")
    return pyspark is not None and getattr(pyspark.SparkContext, "_active_spark_context", None) is not None


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    item.stash[_SPARK_BEFORE] = _spark_context_running()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    # `-m "not spark"` must never pay for a JVM: a test that starts Spark in this process without the marker
    # (through no fixture the collection hook above sees) errors here, naming the rule.  A test that starts
    # Spark in a child process cannot be seen from here; it carries @pytest.mark.spark itself.
    result = yield
    started = _spark_context_running() and not item.stash.get(_SPARK_BEFORE, True)
    if started and item.get_closest_marker("spark") is None:
        raise AssertionError(f"{item.nodeid} started Spark but is not marked spark: add @pytest.mark.spark")
    return result


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    # Fixture finalizers normally stop every peer; this catches anything a
    # helper started outside a fixture (or a finalizer that raised).
    peers.stop_all()


@pytest.fixture(scope="session")
def peer_log_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Directory holding every peer's stdout/stderr log for this session."""
    return tmp_path_factory.mktemp("peer-logs")


@pytest.fixture(scope="session")
def tansu(peer_log_dir: Path) -> Iterator[RunningBroker]:
    """One Tansu broker shared by the session (single node, id 111).

    Tests sharing it must use unique topic/group names; use ``fresh_tansu``
    when a test needs an empty broker or kills it.
    """
    broker = peers.start_tansu(log_dir=peer_log_dir)
    try:
        yield broker
    finally:
        broker.stop()


@pytest.fixture
def fresh_tansu(peer_log_dir: Path) -> Iterator[RunningBroker]:
    """A Tansu broker of this test's own: empty, and free to be killed.

    Cheap (Tansu starts in well under a second), so prefer it over the shared
    one whenever state from other tests could matter.
    """
    broker = peers.start_tansu(log_dir=peer_log_dir)
    try:
        yield broker
    finally:
        broker.stop()


@pytest.fixture(scope="session")
def rdkafka_mock(peer_log_dir: Path) -> Iterator[RunningBroker]:
    """librdkafka's 3-node mock cluster (node ids 1, 2, 3), shared by the session."""
    broker = peers.start_rdkafka_mock(num_brokers=3, log_dir=peer_log_dir)
    try:
        yield broker
    finally:
        broker.stop()


@pytest.fixture
def fast_settings() -> dict[str, Any]:
    """The shared fast client settings (a copy: a test may add its own)."""
    return dict(FAST)


@pytest.fixture
def cluster(fake_cluster: FakeCluster) -> FakeCluster:
    """The test's own FakeCluster: the shipped ``fake_cluster`` fixture, configured by the module's or the
    test's ``fake_cluster`` marker.  A module's own (module-scoped) ``cluster`` overrides this one."""
    return fake_cluster


@pytest.fixture
def admin(cluster: FakeCluster, fast_settings: dict[str, Any]) -> Iterator[AdminClient]:
    """A sync AdminClient on ``cluster`` with the fast settings, closed after the test."""
    with AdminClient(cluster.bootstrap, **fast_settings) as client:
        yield client
