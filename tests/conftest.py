"""Shared fixtures: real third-party peers and one Spark session.

Peers that cannot start make the requesting test ERROR, never skip: on this
project's machines both peers are installed by ``pip install -e .[test]``, so a
missing one means a broken environment that must be seen, not hidden.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

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
from tests.support.kafka_reference import kafka_specs, pytest_runtest_makereport  # noqa: E402,F401 - reference-comparison tests
from tests.support.peers import RunningBroker  # noqa: E402

_PEER_FIXTURES = {"tansu", "fresh_tansu", "rdkafka_mock"}


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
        if "spark" in used:
            item.add_marker(pytest.mark.spark)


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


@pytest.fixture(scope="session")
def connect_session() -> Iterator[Any]:
    """A Spark Connect session (``remote("local[2]")``: PySpark starts a local Connect server), for the child
    runs that repeat the provisioning tests on Spark Connect (KADMIN_TEST_SPARK_CONNECT=1, see
    tests/test_spark_tenants.py).  One per run: the server's JVM costs about a minute to start."""
    from pyspark.sql import SparkSession

    session = SparkSession.builder.remote("local[2]").config("spark.sql.shuffle.partitions", "4").getOrCreate()
    try:
        yield session
    finally:
        session.stop()


@pytest.fixture
def tspark(request: pytest.FixtureRequest) -> Any:
    """The session's classic local[2] Spark, or, in the Connect child run (KADMIN_TEST_SPARK_CONNECT=1, started by
    tests/test_spark_tenants.py), the Spark Connect session: the provisioning tests that take it run on both."""
    connect = os.environ.get("KADMIN_TEST_SPARK_CONNECT") == "1"
    return request.getfixturevalue("connect_session" if connect else "spark")


@pytest.fixture(scope="session")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One local SparkSession for the whole run, built only if a test asks.

    Starting a JVM costs seconds and a lot of memory on a 2-core machine, so
    there is exactly one, sized small: 2 local cores, 4 shuffle partitions, no
    UI, bound to loopback so it never looks up the machine's network name.
    """
    # Workers must run the same interpreter (and so see the same packages).
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    warehouse = tmp_path_factory.mktemp("spark-warehouse")
    session = (
        SparkSession.builder.master("local[2]")
        .appName("kadmin-tests")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.default.parallelism", "2")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.warehouse.dir", str(warehouse))
        .config("spark.sql.session.timeZone", "UTC")
        # The default 1g ran out late in a full run ("Not enough memory to build and broadcast the table"):
        # hundreds of provisioning runs share this one JVM.
        .config("spark.driver.memory", "2g")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    try:
        yield session
    finally:
        session.stop()


@pytest.fixture(autouse=True)
def _spark_cache_cleared(request: pytest.FixtureRequest) -> Iterator[None]:
    """After each test that used the shared Spark session, drop what it cached (provision's results are
    persisted until the caller unpersists them, and tests rarely do), so the session's memory does not grow
    with the number of Spark tests."""
    yield
    if "spark" not in request.fixturenames and "tspark" not in request.fixturenames:
        return
    from pyspark.sql import SparkSession

    try:
        active = SparkSession.getActiveSession()
        if active is not None:
            active.catalog.clearCache()
    except Exception:  # noqa: BLE001 - a stopped or remote session: nothing of ours to free
        pass
