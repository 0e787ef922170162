"""Resetting a real group's offsets on Tansu, read back with confluent-kafka (not kadmin).

The group is made by a confluent-kafka consumer that consumes and commits, then leaves.  What Tansu does that
Kafka would not, measured here (Tansu 0.6): ListOffsets by timestamp answers offset 0 for any time, and a
multi-record batch moves its "latest" offset by one; so records are produced one per batch, and the timestamp
case checks that kadmin wrote exactly what Tansu says for that time (asked with confluent-kafka).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka import TopicPartition as CkTopicPartition
from confluent_kafka.admin import AdminClient as CkAdminClient
from confluent_kafka.admin import NewTopic

from kadmin.client import AdminClient
from kadmin.errors import NonEmptyGroupError
from kadmin.offset_reset import PartitionReset, ResetTo
from kadmin.types import TopicPartition
from tests.support.groups_consumers import committed
from tests.support.groups_consumers import tansu_consumer as _consumer
from tests.support.peers import RunningBroker

pytestmark = pytest.mark.timeout(120)
RECORDS = 6  # per partition


@pytest.fixture(scope="module")
def topic(tansu: RunningBroker) -> str:
    name = f"reset-{uuid.uuid4().hex[:8]}"
    ck = CkAdminClient({"bootstrap.servers": tansu.bootstrap})
    for f in ck.create_topics([NewTopic(name, 2, 1)]).values():
        f.result(15)
    p = Producer({"bootstrap.servers": tansu.bootstrap, "linger.ms": 0, "log_level": 3})
    base = int(time.time() * 1000) - 60_000
    for i in range(RECORDS):
        for part in (0, 1):
            p.produce(name, value=b"r%d" % i, partition=part, timestamp=base + i * 1000)
            assert p.flush(10) == 0  # one record per batch (see the module docstring)
    return name


@pytest.fixture(scope="module")
def group(tansu: RunningBroker, topic: str) -> Iterator[tuple[str, Consumer]]:
    """A group whose consumer read everything and committed it, still running."""
    gid = f"g-{uuid.uuid4().hex[:8]}"
    c = _consumer(tansu, gid)
    c.subscribe([topic])
    seen = 0
    deadline = time.monotonic() + 30
    while seen < 2 * RECORDS and time.monotonic() < deadline:
        m = c.poll(0.5)
        if m is not None and not m.error():
            seen += 1
    assert seen == 2 * RECORDS
    c.commit(asynchronous=False)
    yield gid, c
    c.close()


def test_reset_on_tansu_refused_while_active_then_earliest_latest_and_timestamp(
        tansu: RunningBroker, topic: str, group: tuple[str, Consumer]) -> None:
    gid, consumer = group
    with AdminClient(tansu.bootstrap, default_timeout_s=20) as admin:
        with pytest.raises(NonEmptyGroupError):
            admin.reset_consumer_group_offsets(gid, [topic], "earliest", dry_run=False)
        assert committed(tansu, gid, topic) == [RECORDS, RECORDS]
        consumer.close()  # leaves the group: now Empty

        plan = admin.reset_consumer_group_offsets(gid, [topic], "earliest")
        assert [(r.current, r.target) for r in plan.partitions.values() if isinstance(r, PartitionReset)] == \
            [(RECORDS, 0), (RECORDS, 0)]
        assert committed(tansu, gid, topic) == [RECORDS, RECORDS]  # a dry run writes nothing

        assert admin.reset_consumer_group_offsets(gid, [topic], "earliest", dry_run=False).complete
        assert committed(tansu, gid, topic) == [0, 0]

        plan = admin.reset_consumer_group_offsets(gid, [topic], ResetTo.offset(3), dry_run=False)
        assert plan.complete and committed(tansu, gid, topic) == [3, 3]

        assert admin.reset_consumer_group_offsets(gid, [topic], "latest", dry_run=False).complete
        assert committed(tansu, gid, topic) == [RECORDS, RECORDS]

        when = int(time.time() * 1000) - 57_500
        plan = admin.reset_consumer_group_offsets(gid, [TopicPartition(topic, 0)], ResetTo.timestamp(when),
                                                  dry_run=False)
        assert plan.complete
        probe = _consumer(tansu, f"probe-{uuid.uuid4().hex[:6]}")
        try:
            [at] = probe.offsets_for_times([CkTopicPartition(topic, 0, when)], timeout=15)
        finally:
            probe.close()
        expected = at.offset if at.offset >= 0 else RECORDS
        assert committed(tansu, gid, topic) == [expected, RECORDS]
