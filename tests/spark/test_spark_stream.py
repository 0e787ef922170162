"""kadmin.spark's stream from the plan to the brokers: Arrow and row paths, overlap, bounded concurrency."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from kadmin import AdminClient
from kadmin.errors import KafkaError
from kadmin.quotas import ClientQuotaEntity
from kadmin.testing import FakeCluster

ALTER = 49
LONG = "user string, client_id string, ip string, quota_key string, value double"
KEYS = ("consumer_byte_rate", "producer_byte_rate", "request_percentage")


@pytest.fixture
def kafka() -> Iterator[tuple[FakeCluster, AdminClient]]:
    with FakeCluster(brokers=2) as cluster, AdminClient(cluster.bootstrap) as admin:
        yield cluster, admin


def _value(i: int, key: str) -> float:
    # Whole numbers for the byte rates; bit patterns a text round trip could lose for the percentage.
    return float(1024 * (i + 1)) if key != "request_percentage" else [0.1 + 0.2, 5e-324, 1 / 3][i % 3]


@pytest.mark.parametrize("arrow", [True, False], ids=["arrow", "rows"])
def test_each_entity_travels_once_across_many_stream_partitions(
        spark: Any, kafka: tuple[FakeCluster, AdminClient], monkeypatch: pytest.MonkeyPatch, arrow: bool) -> None:
    import kadmin.spark.kinds.quotas.stream as apply
    from kadmin.spark import Progress, provision_quotas

    if arrow and not apply.arrow_stream_available(spark.range(1)):
        pytest.skip("needs PySpark 4 and pyarrow")
    cluster, admin = kafka
    arrow_calls: list[int] = []
    real_arrow_rows = apply._arrow_rows

    def spy(ordered: Any, partitions: int) -> Any:
        arrow_calls.append(partitions)
        return real_arrow_rows(ordered, partitions)

    monkeypatch.setattr(apply, "_arrow_rows", spy)
    if not arrow:
        monkeypatch.setattr(apply, "arrow_stream_available", lambda df: False)
    # 40 entities x 3 keys in 4 stream partitions (of either kind): every entity's keys must still arrive
    # together, as one alteration, whichever partition boundary falls near it.
    monkeypatch.setattr(apply, "ROWS_PER_ARROW_PARTITION", 30)
    monkeypatch.setattr(apply, "ROWS_PER_STREAM_PARTITION", 30)
    n = 40
    desired = spark.createDataFrame(
        [(f"u{i:02d}", None, None, key, _value(i, key)) for i in range(n) for key in KEYS], LONG)
    events: list[Progress] = []
    results = provision_quotas(desired, admin, batch_size=3, max_concurrency=2, progress=events.append)
    try:
        statuses = [r["status"] for r in results.collect()]
    finally:
        results.unpersist()

    assert arrow_calls == ([4] if arrow else [])
    assert statuses == ["ok"] * (n * len(KEYS))
    # One alteration per entity: an entity split in two would need more requests (or be refused as a
    # duplicate within one request).
    assert cluster.count(ALTER) == -(-n // 3)
    got = {ClientQuotaEntity(e): v for e, v in cluster.quotas.items()}
    want = {ClientQuotaEntity({"user": f"u{i:02d}"}): {k: _value(i, k) for k in KEYS} for i in range(n)}
    assert got == want
    assert all(got[e][k].hex() == v.hex() for e, vals in want.items() for k, v in vals.items())
    assert (events[-1].phase, events[-1].entities_done, events[-1].actions_done) == ("done", n, n * len(KEYS))


def test_arrow_streams_only_plans_of_a_few_partitions() -> None:
    # Each Arrow partition is one job over the whole cached plan: past ARROW_MAX_PARTITIONS the fetches would
    # cost partitions x plan, so large plans stream as rows (one task per partition).
    import kadmin.spark.kinds.quotas.stream as apply

    small = apply.ARROW_MAX_PARTITIONS * apply.ROWS_PER_ARROW_PARTITION
    assert apply.stream_layout(small, True) == (apply.ARROW_MAX_PARTITIONS, True)
    assert apply.stream_layout(small + 1, True) == (apply.stream_partitions(small + 1), False)
    assert apply.stream_layout(2_000_000, True) == (20, False)
    assert apply.stream_layout(10, True) == (1, True)
    assert apply.stream_layout(10, False) == (1, False)


def test_a_plan_too_big_for_arrow_streams_as_rows(
        spark: Any, kafka: tuple[FakeCluster, AdminClient], monkeypatch: pytest.MonkeyPatch) -> None:
    import kadmin.spark.kinds.quotas.stream as apply
    from kadmin.spark import provision_quotas

    cluster, admin = kafka
    arrow_calls: list[int] = []
    monkeypatch.setattr(apply, "_arrow_rows", lambda ordered, partitions: arrow_calls.append(partitions) or iter(()))
    monkeypatch.setattr(apply, "arrow_stream_available", lambda df: True)
    monkeypatch.setattr(apply, "ROWS_PER_ARROW_PARTITION", 10)  # 60 actions: 6 Arrow partitions, too many
    n = 20
    desired = spark.createDataFrame(
        [(f"big{i:02d}", None, None, key, _value(i, key)) for i in range(n) for key in KEYS], LONG)
    results = provision_quotas(desired, admin, batch_size=7, max_concurrency=2)
    try:
        statuses = [r["status"] for r in results.collect()]
    finally:
        results.unpersist()
    assert arrow_calls == []
    assert statuses == ["ok"] * (n * len(KEYS))
    assert {e for e in map(ClientQuotaEntity, cluster.quotas) if (e.get("user") or "").startswith("big")} == {
        ClientQuotaEntity({"user": f"big{i:02d}"}) for i in range(n)}


class _SlowAdmin:
    """alter_client_quotas that takes a while and records how many calls overlap, and how far the stream had
    got when each call started; entities named ``bad*`` fail."""

    def __init__(self, produced: list[int]) -> None:
        self.produced = produced
        self.lock = threading.Lock()
        self.active = 0
        self.peak = 0
        self.seen_at_call: list[int] = []
        self.entities: list[ClientQuotaEntity] = []

    def alter_client_quotas(self, alterations: list[Any], **kw: Any) -> dict[ClientQuotaEntity, KafkaError | None]:
        assert kw["max_concurrency"] == 1
        with self.lock:
            self.active += 1
            self.peak = max(self.peak, self.active)
            self.seen_at_call.append(self.produced[0])
        try:
            time.sleep(0.02)
            out: dict[ClientQuotaEntity, KafkaError | None] = {}
            for a in alterations:
                self.entities.append(a.entity)
                out[a.entity] = KafkaError("refused") if str(a.entity.get("user")).startswith("bad") else None
            return out
        finally:
            with self.lock:
                self.active -= 1


def test_sending_overlaps_the_stream_within_max_concurrency_and_accounts_for_every_entity() -> None:
    pytest.importorskip("pyspark")
    from kadmin.spark.kinds.quotas.stream import send_actions
    from kadmin.spark.report import Progress, ProgressReporter

    produced = [0]
    n = 60

    def entities() -> Iterator[tuple[tuple[str | None, str | None, str | None], list[tuple[str, float | None]]]]:
        for i in range(n):
            produced[0] += 1
            name = f"bad{i}" if i % 7 == 0 else f"u{i}"
            yield (name, None, None), [("producer_byte_rate", float(i)), ("request_percentage", None)]

    admin = _SlowAdmin(produced)
    events: list[Progress] = []
    res = send_actions(entities(), admin, validate_only=False, allow_unknown_keys=False,  # type: ignore[arg-type]
                       batch_size=4, max_concurrency=3, totals=(n, 2 * n),
                       report=ProgressReporter(events.append, "apply"))

    assert admin.peak == 3  # the bound is reached, never passed ...
    assert admin.seen_at_call[0] < n  # ... and sending started while the stream was still being read
    assert sorted(map(str, admin.entities)) == sorted(
        str(ClientQuotaEntity({"user": f"bad{i}" if i % 7 == 0 else f"u{i}"})) for i in range(n))
    assert (res.entities_done, res.actions_done, res.requests) == (n, 2 * n, -(-n // 4))
    assert (res.entities_streamed, res.actions_streamed) == (n, 2 * n)
    assert sorted(f[0] or "" for f in res.failures) == sorted(f"bad{i}" for i in range(0, n, 7))
    assert all("refused" in f[3] for f in res.failures)
    assert [e.phase for e in events] == ["planned"] + ["sending"] * (-(-n // 4)) + ["done"]
    assert (events[-1].entities_done, events[-1].entities_failed) == (n, len(range(0, n, 7)))


def test_a_failed_partition_fetch_surfaces_in_the_stream(spark: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import kadmin.spark.kinds.quotas.stream as apply

    if not apply.arrow_stream_available(spark.range(1)):
        pytest.skip("needs PySpark 4 and pyarrow")
    plan = spark.createDataFrame([("u1", None, None, "producer_byte_rate", 1.0, "set")],
                                 "user string, client_id string, ip string, quota_key string, new_value double, "
                                 "action string")
    calls: list[int] = []

    def broken(self: Any, fn: Any, arg: int, session: Any) -> None:
        calls.append(arg)

        def fail(i: int) -> Any:
            raise RuntimeError(f"partition {i} could not be fetched")

        real_init(self, fail, arg, session)

    real_init = apply._Prefetch.__init__
    monkeypatch.setattr(apply._Prefetch, "__init__", broken)
    with pytest.raises(RuntimeError, match="partition 0 could not be fetched"):
        list(apply.actions_by_entity(plan, 2))
    assert calls == [0]


def test_a_stream_short_of_the_totals_is_an_error_not_ok_rows(
        spark: Any, kafka: tuple[FakeCluster, AdminClient], monkeypatch: pytest.MonkeyPatch) -> None:
    import kadmin.spark.kinds.quotas.stream as apply
    from kadmin.spark import provision_quotas

    cluster, admin = kafka
    real = apply.actions_by_entity

    def lossy(plan: Any, partitions: int | None = None) -> Iterator[Any]:
        stream = real(plan, partitions)
        next(stream)  # one entity lost on the way
        yield from stream

    monkeypatch.setattr(apply, "actions_by_entity", lossy)
    desired = spark.createDataFrame([(f"u{i}", None, None, "producer_byte_rate", 1.0) for i in range(3)], LONG)
    with pytest.raises(RuntimeError, match="returned 2 entities with 2 action"):
        provision_quotas(desired, admin)
    assert len(cluster.quotas) == 2
