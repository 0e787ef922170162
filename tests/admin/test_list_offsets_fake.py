"""list_offsets on the fake cluster at every release preset, both isolation levels (audit #14 item 16).

The fake has no transaction coordinator (kadmin.versions withholds AddPartitionsToTxn/EndTxn, and a
transactional Produce is refused), so no transaction is ever open and the last stable offset, what
READ_COMMITTED "latest" answers, is the high watermark (kadmin/testing/handlers/list_offsets.py last_fetchable).
What can be tested: both levels answer the high watermark as confluent-kafka's consumers (read_committed and
read_uncommitted) read it, on every preset, across leaders, after DeleteRecords moved the log start.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from confluent_kafka import Consumer
from confluent_kafka import TopicPartition as CkTP

from kadmin.admin.partitions import ListedOffset
from kadmin.client import AdminClient
from kadmin.protocol.apis import ApiKey
from kadmin.testing import FakeCluster
from kadmin.versions import RELEASE_NAMES

pytestmark = pytest.mark.timeout(60)

OFFSETS = {0: (0, 7), 1: (3, 12), 2: (0, 0)}


@pytest.fixture(scope="module", params=RELEASE_NAMES)
def cluster(request: pytest.FixtureRequest) -> Iterator[FakeCluster]:
    with FakeCluster(brokers=3, versions=str(request.param)) as c:
        c.add_topic("t", partitions=3, offsets=OFFSETS)
        yield c


def ck(c: FakeCluster, isolation: str) -> list[tuple[int, int]]:
    consumer = Consumer({"bootstrap.servers": c.bootstrap, "group.id": "lo-fake", "isolation.level": isolation,
                         "enable.auto.commit": False, "log_level": 0})
    try:
        return [consumer.get_watermark_offsets(CkTP("t", p), timeout=10) for p in OFFSETS]
    finally:
        consumer.close()


@pytest.mark.parametrize("isolation", ["read_uncommitted", "read_committed"])
def test_both_levels_agree_with_confluent_kafka_on_every_preset(cluster: FakeCluster, isolation: str) -> None:
    with AdminClient(cluster.bootstrap, retry_backoff_s=0.02, default_timeout_s=10.0) as a:
        cluster.clear_log()
        late = a.list_offsets({("t", p): "latest" for p in OFFSETS}, isolation_level=isolation)
        early = a.list_offsets({("t", p): "earliest" for p in OFFSETS}, isolation_level=isolation)
        # One ListOffsets per partition leader (three partitions over three brokers), at v2+ for both levels.
        sent = [e for e in cluster.request_log if e.api_key == ApiKey.LIST_OFFSETS]
        assert all(e.version >= 2 for e in sent)
    got = [(early[("t", p)], late[("t", p)]) for p in OFFSETS]
    assert all(isinstance(lo, ListedOffset) and isinstance(hi, ListedOffset) for lo, hi in got), got
    ours = [(lo.offset, hi.offset) for lo, hi in got]  # type: ignore[union-attr]
    assert ours == list(OFFSETS.values())  # no open transaction: LSO == high watermark
    assert ours == ck(cluster, isolation)


def test_read_committed_is_sent_as_isolation_level_one() -> None:
    """What the brokers above cannot show (with no open transaction both levels answer alike): the request
    carries IsolationLevel 1, and a leader too old for it (v0/v1) is refused for those keys, unsent."""
    from kadmin.admin.partitions import ListOffsets, OffsetSpec, isolation_level_code
    from kadmin.errors import UnsupportedVersionError
    from kadmin.types import TopicPartition

    tp = TopicPartition("t", 0)
    op = ListOffsets({tp: OffsetSpec.latest()}, isolation_level=isolation_level_code("read_committed"))
    assert op.build(1, [tp], 2).isolation_level == 1  # type: ignore[attr-defined]
    with pytest.raises(UnsupportedVersionError, match="read_committed needs v2"):
        op.build(1, [tp], 1)
    plain = ListOffsets({tp: OffsetSpec.latest()})
    assert plain.build(1, [tp], 2).isolation_level == 0  # type: ignore[attr-defined]
