"""The JVM options of the short-lived Spark JVMs tests start in child processes (a ``kadmin`` command, an
example job): the settings kadmin's own small runs use (:data:`kadmin.cli.spark_session.SMALL_JAVA_OPTIONS`: the
client compiler only, the serial collector).  They change how fast a fresh JVM gets going, never what Spark
computes.  Set by the tests only, never by the library for its callers' sessions.

Not for the session-long ``spark`` fixture nor the Spark Connect server: measured on the shared 2-core machine,
the client compiler halved the first provisioning test's time on the shared session but made the later ones
about 1.4x slower (its code runs slower once the JVM is warm), a loss over a whole run; the Connect test was
not faster with it either (223 s without, 249 s with, loaded).
"""

from __future__ import annotations

from kadmin.cli.spark_session import SMALL_JAVA_OPTIONS

#: The options, as one ``java`` command-line string.
TEST_JAVA_OPTIONS = " ".join(SMALL_JAVA_OPTIONS)


def child_spark_env() -> dict[str, str]:
    """The environment a child process that starts its own local Spark gets the options from.

    ``spark.driver.defaultJavaOptions`` (which Spark puts before ``extraJavaOptions``) rather than the extra
    options: the CLI sets those itself (its quiet log4j file), and one setting would replace the other.
    """
    return {"PYSPARK_SUBMIT_ARGS": f'--conf "spark.driver.defaultJavaOptions={TEST_JAVA_OPTIONS}" pyspark-shell'}
