"""kadmin.spark end to end: real PySpark (the session ``spark`` fixture) against FakeCluster + AdminClient.

Spark jobs cost about a second each on the shared 2-core machines, so each test covers one theme with as
few provision runs as it takes to prove it.
"""

from __future__ import annotations

import math
import subprocess
import sys
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from kadmin import AdminClient
from kadmin.quotas import ClientQuotaEntity
from kadmin.testing import FakeCluster

D = "<default>"
LONG = "user string, client_id string, ip string, quota_key string, value double"
ALTER = 49
DESCRIBE = 48
INVALID_REQUEST = 42


@pytest.fixture
def kafka() -> Iterator[tuple[FakeCluster, AdminClient]]:
    with FakeCluster(brokers=2) as cluster, AdminClient(cluster.bootstrap) as admin:
        yield cluster, admin


def E(**kw: str | None) -> ClientQuotaEntity:
    """An entity from the same cells the DataFrames use (``<default>`` = the default entity)."""
    return ClientQuotaEntity({("client-id" if k == "client_id" else k): (None if v == D else v)
                              for k, v in kw.items()})


def quotas(cluster: FakeCluster) -> dict[ClientQuotaEntity, dict[str, float]]:
    return {ClientQuotaEntity(e): v for e, v in cluster.quotas.items()}


def seed(cluster: FakeCluster, values: dict[ClientQuotaEntity, dict[str, float]]) -> None:
    cluster.quotas = values  # a ClientQuotaEntity is a Mapping, which FakeCluster takes as an entity


def rows(df: Any) -> list[dict[str, Any]]:
    return sorted((r.asDict() for r in df.collect()),
                  key=lambda r: tuple(str(r[c]) for c in ("user", "client_id", "ip", "quota_key", "new_value")))


def by_key(df: Any) -> dict[tuple[Any, ...], dict[str, Any]]:
    out = {}
    for r in rows(df):
        k = (r["user"], r["client_id"], r["ip"], r["quota_key"])
        assert k not in out, f"two result rows for {k}"
        out[k] = r
    return out


def test_plan_validate_apply_then_rerun_sends_nothing(spark: Any, kafka: tuple[FakeCluster, AdminClient]) -> None:
    from kadmin.spark import RESULT_COLUMNS, Progress, plan_quotas, provision_quotas, result_schema

    cluster, admin = kafka
    seed(cluster, {E(user="alice"): {"producer_byte_rate": 1000.0, "consumer_byte_rate": 5.0}})
    desired = spark.createDataFrame([
        ("alice", None, None, "producer_byte_rate", 2000.0),   # changed
        ("alice", None, None, "consumer_byte_rate", 5.0),      # unchanged
        ("bob", None, None, "request_percentage", 12.5),       # new
        ("bob", "app", None, "producer_byte_rate", 10.0),      # new, user+client-id
        ("carl", None, None, "consumer_byte_rate", 7.0),
        (None, "svc", None, "controller_mutation_rate", 2.5),
        (None, None, "10.0.0.1", "connection_creation_rate", 3.0),
    ], LONG)

    planned = plan_quotas(desired, admin)
    assert tuple(planned.columns) == RESULT_COLUMNS and planned.schema == result_schema()
    got = by_key(planned)
    assert (got[("alice", None, None, "producer_byte_rate")]["action"],
            got[("alice", None, None, "producer_byte_rate")]["old_value"]) == ("set", 1000.0)
    assert got[("alice", None, None, "consumer_byte_rate")]["status"] == "unchanged"
    assert sorted(r["status"] for r in got.values()) == ["planned"] * 6 + ["unchanged"]
    assert cluster.count(ALTER) == 0
    assert cluster.count(DESCRIBE) == 1  # one describe for the whole scope

    validated = rows(provision_quotas(desired, admin, mode="validate", batch_size=2))
    assert sorted(r["status"] for r in validated) == ["unchanged"] + ["validated"] * 6
    assert quotas(cluster) == {E(user="alice"): {"producer_byte_rate": 1000.0, "consumer_byte_rate": 5.0}}

    events: list[Progress] = []
    cluster.clear_log()
    applied = by_key(provision_quotas(desired, admin, batch_size=2, max_concurrency=2, progress=events.append))
    assert sorted(r["status"] for r in applied.values()) == ["ok"] * 6 + ["unchanged"]
    assert all(r["error"] is None for r in applied.values())
    # 6 entities with changes (alice, bob, bob/app, carl, svc, the ip), 2 per request.
    assert cluster.count(ALTER) == 3
    assert cluster.count(DESCRIBE) == 1
    assert quotas(cluster) == {
        E(user="alice"): {"producer_byte_rate": 2000.0, "consumer_byte_rate": 5.0},
        E(user="bob"): {"request_percentage": 12.5},
        E(user="bob", client_id="app"): {"producer_byte_rate": 10.0},
        E(user="carl"): {"consumer_byte_rate": 7.0},
        E(client_id="svc"): {"controller_mutation_rate": 2.5},
        E(ip="10.0.0.1"): {"connection_creation_rate": 3.0},
    }
    assert [e.phase for e in events] == ["planned", "sending", "sending", "sending", "done"]
    assert (events[0].entities_total, events[0].actions_total) == (6, 6)
    assert (events[-1].entities_done, events[-1].entities_failed, events[-1].requests) == (6, 0, 3)

    cluster.clear_log()
    again = rows(provision_quotas(desired, admin))
    assert {r["status"] for r in again} == {"unchanged"} and len(again) == 7
    assert cluster.count(ALTER) == 0


def test_wide_format_and_default_entities(spark: Any, kafka: tuple[FakeCluster, AdminClient]) -> None:
    from kadmin.spark import provision_quotas

    cluster, admin = kafka
    seed(cluster, {E(user=D): {"producer_byte_rate": 1.0}})
    wide = spark.createDataFrame([
        (D, None, 100.0, None),
        ("carol", D, 200.0, 50.0),
        ("dave", "", None, 7.0),   # an empty client-id cell: not part of the entity
        (D, D, None, 1.5),
    ], "user string, `client-id` string, producer_byte_rate double, request_percentage double")
    res = by_key(provision_quotas(wide, admin))
    assert {k: (r["action"], r["status"]) for k, r in res.items()} == {
        (D, None, None, "producer_byte_rate"): ("set", "ok"),
        ("carol", D, None, "producer_byte_rate"): ("set", "ok"),
        ("carol", D, None, "request_percentage"): ("set", "ok"),
        ("dave", None, None, "request_percentage"): ("set", "ok"),
        (D, D, None, "request_percentage"): ("set", "ok"),
    }
    assert res[(D, None, None, "producer_byte_rate")]["old_value"] == 1.0
    assert quotas(cluster) == {
        ClientQuotaEntity({"user": None}): {"producer_byte_rate": 100.0},
        ClientQuotaEntity({"user": "carol", "client-id": None}): {"producer_byte_rate": 200.0,
                                                                  "request_percentage": 50.0},
        ClientQuotaEntity({"user": "dave"}): {"request_percentage": 7.0},
        ClientQuotaEntity({"user": None, "client-id": None}): {"request_percentage": 1.5},
    }
    cluster.clear_log()
    assert {r["status"] for r in rows(provision_quotas(wide, admin))} == {"unchanged"}
    assert cluster.count(ALTER) == 0


def test_rejected_rows_have_reasons_and_never_block_valid_ones(spark: Any,
                                                                kafka: tuple[FakeCluster, AdminClient]) -> None:
    from kadmin.spark import RejectedRowsError, provision_quotas

    cluster, admin = kafka
    desired = spark.createDataFrame([
        ("ok", None, None, "producer_byte_rate", "100"),
        (None, None, None, "producer_byte_rate", "1"),
        ("u", None, "1.2.3.4", "producer_byte_rate", "1"),
        ("neg", None, None, "request_percentage", "-1"),
        ("nan", None, None, "request_percentage", "NaN"),
        ("inf", None, None, "request_percentage", "Infinity"),
        ("frac", None, None, "producer_byte_rate", "1.5"),
        ("unk", None, None, "bogus_rate", "1"),
        (None, None, "1.2.3.4", "producer_byte_rate", "1"),
        ("txt", None, None, "request_percentage", "abc"),
        ("nokey", None, None, "", "1"),
        ("dup", None, None, "request_percentage", "1"),
        ("dup", None, None, "request_percentage", "2"),
        ("same", None, None, "request_percentage", "3"),
        ("same", None, None, "request_percentage", "3.0"),
        ("big", None, None, "producer_byte_rate", "1e19"),
        (None, None, "9.9.9.9", "connection_creation_rate", "3000000000"),
    ], "user string, client_id string, ip string, quota_key string, value string")
    res = rows(provision_quotas(desired, admin))
    rejected = [r for r in res if r["status"] == "rejected"]
    assert all(r["action"] == "reject" and r["error"] for r in rejected)
    reasons = {(r["user"], r["ip"]): r["error"] for r in rejected if r["user"] != "dup"}
    expected = {
        (None, None): "no entity",
        ("u", "1.2.3.4"): "ip cannot be combined",
        ("neg", None): "must be >= 0, not -1.0",
        ("nan", None): "finite number, not NaN",
        ("inf", None): "finite number, not Infinity",
        ("frac", None): "producer_byte_rate must be a whole number, not 1.5",
        ("unk", None): "unknown quota key 'bogus_rate' for user/client-id entities",
        (None, "1.2.3.4"): "unknown quota key 'producer_byte_rate' for ip entities",
        ("txt", None): "value 'abc' is not a number",
        ("nokey", None): "quota_key is empty",
        ("big", None): "at most 9223372036854775807",
        (None, "9.9.9.9"): "connection_creation_rate must be at most 2147483647",
    }
    assert set(reasons) == set(expected)
    for k, text in expected.items():
        assert text in reasons[k], (k, reasons[k])
    assert [r["error"] for r in res if r["user"] == "dup"] == [
        "conflicting values for the same entity and quota_key in the input"] * 2
    assert [(r["status"], r["new_value"]) for r in res if r["user"] == "same"] == [("ok", 3.0)]
    assert quotas(cluster) == {E(user="ok"): {"producer_byte_rate": 100.0},
                               E(user="same"): {"request_percentage": 3.0}}
    assert len(res) == 16  # 17 rows, the two identical "same" rows are one desire

    cluster.clear_log()
    with pytest.raises(RejectedRowsError) as info:
        provision_quotas(desired, admin, strict=True)
    assert info.value.count == 14 and len(info.value.samples) == 5
    assert cluster.request_log == []  # nothing described, nothing sent


def test_remove_unlisted_null_values_and_scope(spark: Any, kafka: tuple[FakeCluster, AdminClient]) -> None:
    from kadmin.spark import plan_quotas, provision_quotas

    cluster, admin = kafka
    seed(cluster, {
        E(user="a"): {"producer_byte_rate": 1.0, "consumer_byte_rate": 2.0, "request_percentage": 3.0},
        E(user="b"): {"producer_byte_rate": 1.0},
        E(user=D): {"producer_byte_rate": 9.0},
        E(user="a", client_id="x"): {"producer_byte_rate": 1.0},  # another shape: outside the default scope
        E(ip="1.1.1.1"): {"connection_creation_rate": 1.0},
    })
    desired = spark.createDataFrame([
        ("a", None, None, "producer_byte_rate", 1.0),
        ("a", None, None, "consumer_byte_rate", None),   # explicit removal
        ("a", None, None, "request_percentage", -3.0),   # rejected: must not turn into a removal
        ("c", None, None, "consumer_byte_rate", None),   # removal of a key that is not set
    ], LONG)
    without = by_key(plan_quotas(desired, admin))
    assert without[("a", None, None, "consumer_byte_rate")]["action"] == "remove"
    assert without[("c", None, None, "consumer_byte_rate")]["action"] == "unchanged"
    assert ("b", None, None, "producer_byte_rate") not in without

    res = by_key(provision_quotas(desired, admin, remove_unlisted=True))
    assert {k: r["action"] for k, r in res.items()} == {
        ("a", None, None, "producer_byte_rate"): "unchanged",
        ("a", None, None, "consumer_byte_rate"): "remove",
        ("a", None, None, "request_percentage"): "reject",
        ("c", None, None, "consumer_byte_rate"): "unchanged",
        ("b", None, None, "producer_byte_rate"): "remove",
        (D, None, None, "producer_byte_rate"): "remove",
    }
    assert res[("b", None, None, "producer_byte_rate")]["old_value"] == 1.0
    assert res[("b", None, None, "producer_byte_rate")]["status"] == "ok"
    assert quotas(cluster) == {
        E(user="a"): {"producer_byte_rate": 1.0, "request_percentage": 3.0},
        E(user="a", client_id="x"): {"producer_byte_rate": 1.0},
        E(ip="1.1.1.1"): {"connection_creation_rate": 1.0},
    }
    everything = by_key(plan_quotas(desired, admin, remove_unlisted=True, scope="all"))
    assert everything[("a", "x", None, "producer_byte_rate")]["action"] == "remove"
    assert everything[(None, None, "1.1.1.1", "connection_creation_rate")]["action"] == "remove"


def test_partial_failure_is_reported_per_entity_and_a_rerun_finishes(
        spark: Any, kafka: tuple[FakeCluster, AdminClient]) -> None:
    from kadmin.spark import provision_quotas

    cluster, admin = kafka
    desired = spark.createDataFrame(
        [(f"u{i}", None, None, key, float(i)) for i in range(6)
         for key in ("producer_byte_rate", "consumer_byte_rate")], LONG)
    cluster.inject(None, ALTER, error_code=INVALID_REQUEST, count=1)  # one request (2 entities) refused
    first = rows(provision_quotas(desired, admin, batch_size=2, max_concurrency=1))
    failed = {r["user"] for r in first if r["status"] == "failed"}
    assert len(failed) == 2
    assert all("INVALID_REQUEST" in r["error"] for r in first if r["status"] == "failed")
    assert {r["status"] for r in first if r["user"] not in failed} == {"ok"}
    assert {e.get("user") for e in quotas(cluster)} == {f"u{i}" for i in range(6)} - failed

    second = rows(provision_quotas(desired, admin, batch_size=2))
    assert {r["user"] for r in second if r["status"] == "ok"} == failed, (first, second)
    assert {r["status"] for r in second if r["user"] not in failed} == {"unchanged"}
    assert len(quotas(cluster)) == 6


def test_exact_float_bits_and_numeric_column_types(spark: Any, kafka: tuple[FakeCluster, AdminClient]) -> None:
    from kadmin.spark import provision_quotas

    cluster, admin = kafka
    tricky = 0.1 + 0.2
    doubles = spark.createDataFrame([
        ("f1", "request_percentage", 1234.5678),
        ("f2", "request_percentage", tricky),
        ("f3", "request_percentage", 5e-324),
        ("f4", "request_percentage", -0.0),  # folded to 0.0, which kadmin.quotas accepts
    ], "user string, quota_key string, value double")
    decimals = spark.createDataFrame([
        ("d1", "request_percentage", Decimal("1234.5678")),
        ("d2", "producer_byte_rate", Decimal("1048576")),
    ], "user string, quota_key string, value decimal(20,4)")
    longs = spark.createDataFrame([("i1", "producer_byte_rate", 2**53)],
                                  "user string, quota_key string, value long")
    for df in (doubles, decimals, longs):
        res = rows(provision_quotas(df, admin))
        assert {r["status"] for r in res} == {"ok"}, res
    got = {e.get("user"): v for e, v in quotas(cluster).items()}
    assert got["f1"]["request_percentage"].hex() == (1234.5678).hex()
    assert got["f2"]["request_percentage"].hex() == tricky.hex()
    assert got["f3"]["request_percentage"] == 5e-324
    assert math.copysign(1.0, got["f4"]["request_percentage"]) == 1.0
    assert got["d1"]["request_percentage"].hex() == (1234.5678).hex()
    assert got["d2"]["producer_byte_rate"] == 1048576.0
    assert got["i1"]["producer_byte_rate"] == float(2**53)

    # 0.3 is one ulp away from 0.1 + 0.2: a change, where a tolerant comparison would call it unchanged.
    near = rows(provision_quotas(spark.createDataFrame(
        [("f2", "request_percentage", 0.3), ("f1", "request_percentage", 1234.5678)],
        "user string, quota_key string, value double"), admin))
    assert [(r["user"], r["action"], r["old_value"] == tricky) for r in near] == [
        ("f1", "unchanged", False), ("f2", "set", True)]
    assert quotas(cluster)[E(user="f2")]["request_percentage"] == 0.3


# --- no Spark session needed ------------------------------------------------------------------------------


def test_scope_parsing_and_the_describe_filter() -> None:
    from kadmin.quotas import ClientQuotaFilter
    from kadmin.quotas import ClientQuotaFilterComponent as C
    from kadmin.spark.kinds.quotas.diff import parse_scope, scope_filter

    assert parse_scope("all") is None
    assert parse_scope("client-id") == [frozenset({"client_id"})]
    shapes = parse_scope([("client-id", "user"), "user"])
    assert shapes == [frozenset({"user"}), frozenset({"user", "client_id"})]
    assert scope_filter(shapes) == ClientQuotaFilter([C.any("user")], strict=False)
    assert scope_filter([frozenset({"ip"})]) == ClientQuotaFilter([C.any("ip")], strict=True)
    assert scope_filter([frozenset({"ip"}), frozenset({"user"})]) == ClientQuotaFilter.all()
    with pytest.raises(ValueError, match="not an entity Kafka accepts"):
        parse_scope([("ip", "user")])
    with pytest.raises(ValueError, match="unknown entity type"):
        parse_scope("group")


def test_import_kadmin_does_not_load_pyspark_and_the_code_avoids_rdd_apis() -> None:
    code = "import sys, kadmin, kadmin.spark; assert 'pyspark' not in sys.modules, 'pyspark was imported'"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).resolve().parents[2])
    # Spark Connect has no RDDs and no SparkContext: the provisioning code must not touch either.
    root = Path(__file__).resolve().parents[2] / "kadmin" / "spark"
    for path in root.rglob("*.py"):  # kinds/ included
        text = path.read_text()
        for banned in (".rdd", ".sparkContext", "SparkContext(", "SparkContext.", ".parallelize(",
                       ".mapPartitions("):
            assert banned not in text, f"{path.name} uses {banned}"


def test_reasons_exact_text_quotes_and_limits(spark: Any, kafka: tuple[FakeCluster, AdminClient]) -> None:
    """The rules are SQL text: quotes and backslashes in data and keys come back verbatim, several failed
    rules join with "; " in rule order, and the integral limits are exact at the double next to them."""
    from kadmin.spark import plan_quotas

    _, admin = kafka
    desired = spark.createDataFrame([
        ("q", None, None, "request_percentage", "it's \\ 'bad'"),
        ("multi", None, None, "", "-1"),
        ("key", None, None, "it's\\", "1"),
        (None, None, "1.1.1.1", "connection_creation_rate", "2147483647"),
        (None, None, "1.1.1.2", "connection_creation_rate", "2147483648"),
        ("below63", None, None, "producer_byte_rate", "9223372036854774784"),  # 2**63 - 1024, a double
        ("at63", None, None, "producer_byte_rate", "9223372036854775807"),  # parses to 2**63
    ], "user string, client_id string, ip string, quota_key string, value string")
    got = {(r["user"] or r["ip"]): (r["action"], r["error"]) for r in plan_quotas(desired, admin).collect()}
    from kadmin import quotas as q

    known = ", ".join(sorted(q.USER_CLIENT_KEYS))
    assert got == {
        "q": ("reject", "value 'it's \\ 'bad'' is not a number"),
        "multi": ("reject", "quota_key is empty; value must be >= 0, not -1.0"),
        "key": ("reject", f"unknown quota key 'it's\\' for user/client-id entities (known: {known})"),
        "1.1.1.1": ("set", None),
        "1.1.1.2": ("reject", "connection_creation_rate must be at most 2147483647, not 2.147483648E9"),
        "below63": ("set", None),
        "at63": ("reject", "producer_byte_rate must be at most 9223372036854775807, not 9.223372036854776E18"),
    }
    wide = spark.createDataFrame([("w1", " 5 ", "x"), ("w2", "", None), ("w3", "-0.0", " ")],
                                 "user string, producer_byte_rate string, `we'ird``key` string")
    got_wide = {(r["user"], r["quota_key"]): (r["action"], r["new_value"], r["error"])
                for r in plan_quotas(wide, admin).collect()}
    assert got_wide == {
        ("w1", "producer_byte_rate"): ("set", 5.0, None),
        ("w1", "we'ird`key"): ("reject", None, "value 'x' is not a number; unknown quota key 'we'ird`key' for "
                                               f"user/client-id entities (known: {known})"),
        ("w3", "producer_byte_rate"): ("set", 0.0, None),  # blank cells are unspecified, -0.0 is folded
    }
    assert math.copysign(1.0, got_wide[("w3", "producer_byte_rate")][1]) == 1.0
