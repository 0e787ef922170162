"""The Spark sessions, for the tests in this folder only: everything that starts Spark lives here.

One classic local[2] session for the whole run (built only if a test asks), the Spark Connect session for the
Connect child run, and ``tspark`` choosing between them.  The root conftest marks every test that uses one of
them ``spark``; a test that starts Spark in a child process carries the marker itself.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="session")
def connect_session() -> Iterator[Any]:
    """A Spark Connect session (``remote("local[2]")``: PySpark starts a local Connect server), for the child
    runs that repeat the provisioning tests on Spark Connect (KADMIN_TEST_SPARK_CONNECT=1, see
    tests/spark/test_spark_tenants.py).  One per run: the server's JVM costs about a minute to start."""
    from pyspark.sql import SparkSession

    session = SparkSession.builder.remote("local[2]").config("spark.sql.shuffle.partitions", "4").getOrCreate()
    try:
        yield session
    finally:
        session.stop()


@pytest.fixture
def tspark(request: pytest.FixtureRequest) -> Any:
    """The session's classic local[2] Spark, or, in the Connect child run (KADMIN_TEST_SPARK_CONNECT=1, started by
    tests/spark/test_spark_tenants.py), the Spark Connect session: the provisioning tests that take it run on both."""
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
