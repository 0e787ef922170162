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
