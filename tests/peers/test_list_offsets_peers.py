"""kadmin.list_offsets against brokers kadmin did not write (audit #14 item 16).

Records are produced with confluent-kafka, and what kadmin lists is compared with confluent-kafka's own
watermarks (librdkafka's ListOffsets, an independent codec), so one bug cannot hide on both sides.

* librdkafka's mock cluster serves ListOffsets v0-v7 and transactions, but answers the high watermark for
  read_committed even while a transaction is open (measured: it keeps no last stable offset); kadmin's
  read_committed answer is checked against confluent-kafka's read_committed consumer.
* Tansu serves ListOffsets v1-v9 with the quirks recorded in tests/data/peer_versions.json (one produced batch
  moves LATEST by one; MAX_TIMESTAMP, EARLIEST_LOCAL and LATEST_TIERED close the connection although v9 is
  advertised).  kadmin must agree with confluent-kafka on what Tansu answers, and for a spec that makes Tansu
  hang up it must report that partition as an error within the caller's timeout (never an invented offset)
  while a following call on the same client still works.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka import TopicPartition as CkTP

from kadmin.admin.partitions import ListedOffset, OffsetSpec
from kadmin.client import AdminClient
from kadmin.errors import KafkaError, KafkaTimeoutError, UnknownTopicOrPartitionError
from kadmin.topics import NewTopic
from kadmin.types import TopicPartition as TP
from tests.support.peers import RunningBroker
from tests.support.settings import PEER_FAST as FAST

pytestmark = pytest.mark.timeout(120)


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def ck_watermarks(bootstrap: str, topic: str, partitions: range, isolation: str = "read_uncommitted",
                  ) -> list[tuple[int, int]]:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": unique("wm"), "enable.auto.commit": False,
                         "isolation.level": isolation, "log_level": 0})
    try:
        return [consumer.get_watermark_offsets(CkTP(topic, p), timeout=15) for p in partitions]
    finally:
        consumer.close()


def produce(bootstrap: str, topic: str, counts: dict[int, int], **conf: Any) -> None:
    producer = Producer({"bootstrap.servers": bootstrap, "log_level": 0, **conf})
    for p, n in counts.items():
        for i in range(n):
            producer.produce(topic, value=b"v%d" % i, partition=p)
    assert producer.flush(15) == 0


def listed(admin: AdminClient, specs: dict[Any, Any], **kw: Any) -> dict[Any, int]:
    got = admin.list_offsets(specs, **kw)
    assert all(isinstance(v, ListedOffset) for v in got.values()), got
    return {k: v.offset for k, v in got.items()}  # type: ignore[union-attr]


# --- librdkafka's mock cluster ----------------------------------------------------------------------------


def test_rdkafka_mock_offsets_agree_with_confluent_kafka(rdkafka_mock: RunningBroker) -> None:
    topic = unique("lo")
    produce(rdkafka_mock.bootstrap, topic, {0: 5, 1: 2})  # auto-created with 4 partitions
    parts = range(4)
    theirs = ck_watermarks(rdkafka_mock.bootstrap, topic, parts)
    assert theirs[0][1] == 5 and theirs[1][1] == 2 and theirs[2] == (0, 0)
    with AdminClient(rdkafka_mock.bootstrap, **FAST) as admin:
        early = listed(admin, {(topic, p): "earliest" for p in parts})
        late = listed(admin, {TP(topic, p): OffsetSpec.latest() for p in parts})
        assert [early[(topic, p)] for p in parts] == [lo for lo, _hi in theirs]
        assert [late[TP(topic, p)] for p in parts] == [hi for _lo, hi in theirs]
        key = (unique("nope"), 0)
        missing = admin.list_offsets({key: "latest"})
        assert set(missing) == {key}, missing
        assert isinstance(missing[key], UnknownTopicOrPartitionError), missing


def test_rdkafka_mock_read_committed_agrees_with_confluent_kafka(rdkafka_mock: RunningBroker) -> None:
    """read_committed reaches the broker as isolation level 1 and is answered as librdkafka's own
    read_committed consumer is answered.  Measured (librdkafka 2.16 mock): with a transaction left open the
    mock still answers the high watermark for READ_COMMITTED (it keeps no last stable offset), so the LSO
    below an open transaction cannot be checked against this peer; kadmin's fake has no transactions at all
    (its LSO is the high watermark by construction, kadmin/testing/handlers/list_offsets.py last_fetchable)."""
    topic = unique("txn")
    produce(rdkafka_mock.bootstrap, topic, {0: 3})
    tx = Producer({"bootstrap.servers": rdkafka_mock.bootstrap, "transactional.id": unique("tx"), "log_level": 0})
    tx.init_transactions(15)
    tx.begin_transaction()
    for i in range(4):
        tx.produce(topic, value=b"t%d" % i, partition=0)
    assert tx.flush(15) == 0
    key = (topic, 0)
    try:
        with AdminClient(rdkafka_mock.bootstrap, **FAST) as admin:
            uncommitted = listed(admin, {key: "latest"})[key]
            committed = listed(admin, {key: "latest"}, isolation_level="read_committed")[key]
            (ck_lso,) = ck_watermarks(rdkafka_mock.bootstrap, topic, range(1), "read_committed")
            (ck_hw,) = ck_watermarks(rdkafka_mock.bootstrap, topic, range(1))
            assert uncommitted == ck_hw[1] == 7
            assert committed == ck_lso[1]
            tx.commit_transaction(15)
            # The commit marker takes an offset too: 8 for both clients and both levels.
            assert listed(admin, {key: "latest"}, isolation_level="read_committed")[key] == ck_watermarks(
                rdkafka_mock.bootstrap, topic, range(1), "read_committed")[0][1] == listed(
                admin, {key: "latest"})[key] == 8
    finally:
        tx.flush(5)


# --- Tansu ------------------------------------------------------------------------------------------------


def test_tansu_offsets_agree_with_confluent_kafka(tansu: RunningBroker) -> None:
    topic = unique("lo")
    with AdminClient(tansu.bootstrap, **FAST) as admin:
        made = admin.create_topics([NewTopic(topic, 2, 1)])
        assert not isinstance(made[topic], KafkaError), made
        before = listed(admin, {(topic, 0): "latest", (topic, 1): "latest"})
        assert before == {(topic, 0): 0, (topic, 1): 0}
        produce(tansu.bootstrap, topic, {0: 3})  # one batch: Tansu moves LATEST by one (recorded quirk)
        theirs = ck_watermarks(tansu.bootstrap, topic, range(2))
        late = listed(admin, {(topic, 0): "latest", TP(topic, 1): "latest"})
        early = listed(admin, {(topic, 0): "earliest", (topic, 1): "earliest"})
        assert late == {(topic, 0): theirs[0][1], TP(topic, 1): theirs[1][1]}
        assert early == {(topic, 0): theirs[0][0], (topic, 1): theirs[1][0]}
        assert late[(topic, 0)] > 0 and late[TP(topic, 1)] == 0
        # read_committed: no transactions here, so the last stable offset is the high watermark.
        assert listed(admin, {(topic, 0): "latest"}, isolation_level="read_committed") == {(topic, 0): late[(topic, 0)]}
        admin.delete_topics([topic])


@pytest.mark.parametrize("spec", [OffsetSpec.max_timestamp(), OffsetSpec.earliest_local(), OffsetSpec.latest_tiered()],
                         ids=str)
def test_tansu_hangs_up_on_special_specs_and_kadmin_says_so(tansu: RunningBroker, spec: OffsetSpec) -> None:
    """Tansu advertises ListOffsets v9 but closes the connection on -3/-4/-5 instead of answering.  A hang-up
    is retriable (a broker restarting looks the same), so kadmin asks again on fresh connections until the
    call's deadline and then reports the partition as a KafkaTimeoutError naming the last cause: no offset is
    invented, the wait is bounded by the caller's timeout, and the client keeps working."""
    topic = unique("hang")
    with AdminClient(tansu.bootstrap, **FAST) as admin:
        admin.create_topics([NewTopic(topic, 1, 1)])
        started = time.monotonic()
        got = admin.list_offsets({(topic, 0): spec}, timeout=2)
        took = time.monotonic() - started
        err = got[(topic, 0)]
        assert isinstance(err, KafkaTimeoutError), got
        assert "closed the connection" in str(err) and not err.possibly_applied
        assert took < 4, f"the call took {took:.1f}s with a 2 s timeout"
        # The client is still usable: the next call, on a fresh connection, is answered.
        assert listed(admin, {(topic, 0): "latest"}) == {(topic, 0): 0}
        admin.delete_topics([topic])
