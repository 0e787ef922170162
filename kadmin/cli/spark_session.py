"""The Spark session of one CLI run (``kadmin quotas provision``, ``kadmin provision``): the smallest local
session that does the job, started as fast as it can be.

Why lean: a one-shot CLI run pays the JVM's start-up, class loading and the first code generation every time,
and on a small spec that is nearly all of its wall time.  Each setting of a small run was measured on a 4-row
spec and the 750-entity sample (``python -m bench.spark_provision --dry-run --variants``, medians of 3 on a
shared 2-core machine): the JVM's client compiler alone took the 4-row dry run from 27.9 s to 17.0 s; adaptive
execution off takes its Spark jobs from 12 to 4; the others (serial collector, no whole-stage codegen, CSV as
local rows) each saved 0.2-0.5 s there, within the noise, and nothing measurable on the sample; ``local[1]``
saved nothing on either and is not used (figures: bench/results/spark_dryrun.md).

No process-wide side effects beyond the session kadmin itself starts: a session that already exists (a
caller's, a test's) is used exactly as it is, never reconfigured; under ``spark-submit`` the submitted master
and settings are kept (only the log level is kadmin's).
"""

from __future__ import annotations

import os
import sys
import tempfile
from typing import Any

LOG4J2 = """\
rootLogger.level = error
rootLogger.appenderRef.console.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = spark: %p %c{1}: %m%n
"""

#: The settings of every session kadmin starts itself.
LEAN_CONF: dict[str, str] = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.shuffle.partitions": "4",
}
#: What a small run (spec files of a few thousand rows) changes in them: one shuffle partition; no adaptive
#: execution (it plans stage by stage, a Spark job per stage, which costs more than it saves on a few rows);
#: no whole-stage code generation (compiling Java for each stage in a cold JVM costs more than the rows).
SMALL_CONF: dict[str, str] = {
    "spark.sql.shuffle.partitions": "1",
    "spark.sql.adaptive.enabled": "false",
    "spark.sql.codegen.wholeStage": "false",
}

#: JVM options of the local JVM (driver and executor) a small run starts: the client compiler only (a short
#: run does not live long enough to repay the optimizing compiler's threads) and the serial collector (a
#: small heap; no concurrent GC threads on a machine with few cores).
SMALL_JAVA_OPTIONS: tuple[str, ...] = ("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC")

DEFAULT_MASTER = "local[2]"


def spark_session(debug: bool, app: str = "kadmin", small: bool = False) -> Any:
    """The session of this run: an existing one unchanged, else the one ``spark-submit`` set up, else a lean
    local session (the master named by KADMIN_SPARK_MASTER, default ``local[2]``), bound to loopback and quiet
    unless ``debug`` (Spark's own INFO/WARN lines would bury the one line a failing command prints)."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    builder = SparkSession.builder.appName(app)
    if "PYSPARK_GATEWAY_PORT" in os.environ:  # under spark-submit: its master and its settings
        session = builder.getOrCreate()
        session.sparkContext.setLogLevel("DEBUG" if debug else "ERROR")
        return session
    master = os.environ.get("KADMIN_SPARK_MASTER", DEFAULT_MASTER)
    builder = builder.master(master)
    for key, value in {**LEAN_CONF, **(SMALL_CONF if small else {})}.items():
        builder = builder.config(key, value)
    if master.startswith("local"):
        # Bound to loopback: no look-up of the machine's name, which can stall on a badly set up host.
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        builder = builder.config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
    java = list(SMALL_JAVA_OPTIONS) if small and master.startswith("local") else []
    log4j: str | None = None
    if not debug:
        fd, log4j = tempfile.mkstemp(prefix="kadmin-log4j2-", suffix=".properties")
        with os.fdopen(fd, "w") as f:
            f.write(LOG4J2)
        java.append(f"-Dlog4j2.configurationFile={log4j}")
    if java:
        builder = builder.config("spark.driver.extraJavaOptions", " ".join(java))
    try:
        session = builder.getOrCreate()
    finally:
        if log4j is not None:  # read by the JVM at start-up, not needed after
            os.unlink(log4j)
    session.sparkContext.setLogLevel("DEBUG" if debug else "ERROR")
    return session
