"""Records, log dirs, elections and reassignments against the real peers, where they serve them.

Checked, not assumed: librdkafka's mock cluster advertises none of DeleteRecords, DescribeLogDirs,
ElectLeaders or Alter/ListPartitionReassignments (its ApiVersions table is asserted here), and its Metadata
names no controller (-1).  So against it kadmin must answer DeleteRecords and DescribeLogDirs keys with
UnsupportedVersionError at once, without sending them (a broker closes the connection on an API it lacks), and
the controller-bound calls with a timeout that says no controller was found and that nothing was applied.
Tansu advertises DeleteRecords but its memory storage panics on it, so DeleteRecords is checked on the fake
cluster (tests/admin/test_storage_fake.py) with confluent-kafka's watermarks.
"""

from __future__ import annotations

import time

from confluent_kafka import Producer

from kadmin.client import AdminClient
from kadmin.errors import KafkaTimeoutError, UnsupportedVersionError
from kadmin.protocol.apis import ApiKey
from kadmin.types import TopicPartition as TP
from tests.support.peers import RunningBroker, api_versions

STORAGE_APIS = (ApiKey.DELETE_RECORDS, ApiKey.DESCRIBE_LOG_DIRS, ApiKey.ELECT_LEADERS,
                ApiKey.ALTER_PARTITION_REASSIGNMENTS, ApiKey.LIST_PARTITION_REASSIGNMENTS)
TOPIC = "kadmin-storage"


def test_rdkafka_mock_lacks_these_apis_and_kadmin_says_so(rdkafka_mock: RunningBroker) -> None:
    for addr in rdkafka_mock.nodes.values():
        table = api_versions(addr)
        assert not set(STORAGE_APIS) & set(table), f"the mock now serves some of them: {sorted(table)}"
    producer = Producer({"bootstrap.servers": rdkafka_mock.bootstrap, "log_level": 3})
    producer.produce(TOPIC, b"x")  # the mock creates the topic on first use
    assert producer.flush(10) == 0
    tp = TP(TOPIC, 0)
    with AdminClient(rdkafka_mock.bootstrap, default_timeout_s=10.0) as a:
        started = time.monotonic()
        deleted = a.delete_records({tp: 1})
        dirs = a.describe_log_dirs()
        assert time.monotonic() - started < 5  # answers, not waits for the deadline
        assert isinstance(deleted[tp], UnsupportedVersionError)
        assert set(dirs) == set(rdkafka_mock.nodes)
        assert all(isinstance(d, UnsupportedVersionError) for d in dirs.values())
        elected = a.elect_leaders("preferred", [tp], timeout=1)[tp]
        moved = a.alter_partition_reassignments({tp: [1]}, timeout=1)[tp]
        listed = a.list_partition_reassignments([tp], timeout=1)[tp]
    for err in (elected, moved, listed):
        assert isinstance(err, KafkaTimeoutError) and "controller" in err.message
        assert not err.possibly_applied  # never sent
