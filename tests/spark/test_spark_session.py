"""The session ``spark`` fixture itself (tests/spark/conftest.py): Java is there and the session is sized as
the provisioning tests expect."""

from __future__ import annotations

from typing import Any


def test_spark_fixture_runs_a_small_shuffle(spark: Any) -> None:
    # Guards the Java install in .ci/run and the session settings, which the
    # quota-provisioning tests rely on without checking them.
    assert spark.conf.get("spark.sql.shuffle.partitions") == "4"
    rows = spark.range(100).selectExpr("id % 3 AS k").groupBy("k").count().orderBy("k").collect()
    assert [(r["k"], r["count"]) for r in rows] == [(0, 34), (1, 33), (2, 33)]


def test_the_cli_uses_a_session_that_exists_as_it_is(spark: Any) -> None:
    # kadmin's lean settings (one shuffle partition, no adaptive execution...) are for the session it starts
    # itself: a caller's session (here the tests') keeps its own, and its SparkContext is not replaced.
    from kadmin.cli.spark_session import SMALL_CONF, spark_session

    keys = ["spark.sql.shuffle.partitions", *SMALL_CONF]
    before = {k: spark.conf.get(k) for k in keys}
    got = spark_session(False, "kadmin provision", small=True)
    assert got.sparkContext is spark.sparkContext
    assert {k: got.conf.get(k) for k in keys} == before == {k: spark.conf.get(k) for k in keys}
    assert before["spark.sql.shuffle.partitions"] == "4"
