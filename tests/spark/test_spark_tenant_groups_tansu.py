"""The ``groups_offsets`` kind on Tansu (a real broker serving the groups APIs), read back by confluent-kafka.

A confluent-kafka consumer makes the group (consumes, commits, leaves); another stays in a second group, so
that group is active.  kadmin.spark plans and applies reset targets; librdkafka's ``committed()`` reads what
was written; a re-run sends no OffsetCommit (counted by a proxy: Tansu keeps no request log).  Records are
produced one per batch (Tansu moves "latest" by one per batch; see tests/peers/test_groups_reset_tansu.py).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import AdminClient as CkAdminClient
from confluent_kafka.admin import NewTopic

from kadmin import AdminClient
from kadmin.protocol.apis import ApiKey
from tests.support.counting_proxy import CountingProxy
from tests.support.groups_consumers import committed
from tests.support.groups_consumers import tansu_consumer as _consumer
from tests.support.peers import RunningBroker

pytestmark = [pytest.mark.spark, pytest.mark.peer, pytest.mark.timeout(240)]
GROUPS = "group string, topic string, partition int, target string"
RECORDS = 4


def _consume_all(c: Consumer, topic: str) -> None:
    c.subscribe([topic])
    seen, deadline = 0, time.monotonic() + 30
    while seen < 2 * RECORDS and time.monotonic() < deadline:
        m = c.poll(0.5)
        if m is not None and not m.error():
            seen += 1
    assert seen == 2 * RECORDS
    c.commit(asynchronous=False)


@pytest.fixture
def setup(tansu: RunningBroker) -> Iterator[tuple[str, str, str]]:
    """(topic with 2 partitions of RECORDS records, an idle group at the end, an active group)."""
    topic = f"gr-{uuid.uuid4().hex[:8]}"
    ck = CkAdminClient({"bootstrap.servers": tansu.bootstrap})
    for f in ck.create_topics([NewTopic(topic, 2, 1)]).values():
        f.result(15)
    p = Producer({"bootstrap.servers": tansu.bootstrap, "linger.ms": 0, "log_level": 3})
    for i in range(RECORDS):
        for part in (0, 1):
            p.produce(topic, value=b"r%d" % i, partition=part)
            assert p.flush(10) == 0
    idle, active = f"idle-{uuid.uuid4().hex[:6]}", f"live-{uuid.uuid4().hex[:6]}"
    c = _consumer(tansu, idle)
    _consume_all(c, topic)
    c.close()
    live = _consumer(tansu, active)
    _consume_all(live, topic)
    try:
        yield topic, idle, active
    finally:
        live.close()


def test_tansu_group_resets_read_back_by_confluent_kafka(spark: Any, tansu: RunningBroker,
                                                         setup: tuple[str, str, str]) -> None:
    from kadmin.spark import TenantSpec, provision

    topic, idle, active = setup
    fresh = f"new-{uuid.uuid4().hex[:6]}"
    spec = TenantSpec(groups_offsets=spark.createDataFrame([
        (idle, topic, None, "earliest"), (fresh, topic, 1, "offset:2"), (active, topic, 0, "earliest")], GROUPS))
    with CountingProxy(tansu.nodes) as proxy, AdminClient(proxy.bootstrap, default_timeout_s=15) as admin:
        res = {r["key"]: r.asDict() for r in provision(spec, admin, "apply").collect()}
        assert {k: (r["action"], r["old_value"], r["status"]) for k, r in res.items()} == {
            f"{idle}/{topic}:0": ("alter", str(RECORDS), "ok"), f"{idle}/{topic}:1": ("alter", str(RECORDS), "ok"),
            f"{fresh}/{topic}:1": ("alter", None, "ok"), f"{active}/{topic}:0": ("reject", str(RECORDS), "rejected")}
        assert "active group" in res[f"{active}/{topic}:0"]["error"]
        assert proxy.count(ApiKey.OFFSET_COMMIT) == 2  # one per group written
        # Read back by librdkafka: the idle group is at the start, the new group exists at offset 2, the active
        # group was not touched.
        assert committed(tansu, idle, topic) == [0, 0]
        assert committed(tansu, fresh, topic)[1] == 2
        assert committed(tansu, active, topic) == [RECORDS, RECORDS]

        proxy.clear()
        again = {r["key"]: r["status"] for r in provision(spec, admin, "apply").collect()}
        assert set(again.values()) == {"unchanged", "rejected"} and again[f"{active}/{topic}:0"] == "rejected"
        assert proxy.count(ApiKey.OFFSET_COMMIT) == 0
