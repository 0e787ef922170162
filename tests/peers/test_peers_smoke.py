"""The peer fixtures start, answer ApiVersions, and really go away when stopped.

Also pins the peer quirks recorded in tests/data/peer_versions.json that
kadmin's version negotiation is built around, so an upgraded peer that changes
them shows up here rather than as a puzzling failure elsewhere.
"""

from __future__ import annotations

import json
import signal
import socket
import struct
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Producer
from kafka.protocol.admin import (
    CreateAclsRequest,
    CreateTopicsRequest,
    DeleteRecordsRequest,
    DescribeConfigsRequest,
    DescribeUserScramCredentialsRequest,
)
from kafka.protocol.consumer import ListOffsetsRequest
from kafka.protocol.metadata.api_versions import ApiVersionsRequest

from tests.support import peers
from tests.support.peers import RunningBroker

API_VERSIONS = 18


def _recorded() -> dict[str, Any]:
    return json.loads(peers.PEER_VERSIONS_PATH.read_text())


def _can_bind(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind((peers.HOST, port))
        except OSError:
            return False
    return True


def _framed(request: object, correlation_id: int) -> bytes:
    request.with_header(correlation_id=correlation_id, client_id="kadmin-tests")  # type: ignore[attr-defined]
    return request.encode(header=True, framed=True)  # type: ignore[attr-defined,no-any-return]


def test_tansu_answers_api_versions(tansu: RunningBroker) -> None:
    assert list(tansu.nodes) == [111]
    assert tansu.bootstrap == "{}:{}".format(*tansu.nodes[111])
    table = peers.api_versions(tansu.addresses[0])
    assert table[API_VERSIONS] == (0, 4)
    assert peers.pid_alive(tansu.pid)


def test_rdkafka_mock_answers_api_versions_on_every_node(rdkafka_mock: RunningBroker) -> None:
    assert sorted(rdkafka_mock.nodes) == [1, 2, 3]
    assert rdkafka_mock.bootstrap.split(",") == [f"{h}:{p}" for h, p in rdkafka_mock.addresses]
    for address in rdkafka_mock.addresses:
        assert peers.api_versions(address)[API_VERSIONS] == (0, 2)


def test_stopping_tansu_by_pid_frees_process_and_port(fresh_tansu: RunningBroker) -> None:
    host, port = fresh_tansu.addresses[0]
    assert peers.port_open(host, port)
    peers.stop_pid(fresh_tansu.pid)
    assert not peers.pid_alive(fresh_tansu.pid)
    assert not peers.port_open(host, port)
    assert _can_bind(port)
    peers.stop_pid(fresh_tansu.pid)  # a second stop (the fixture's) is harmless


def test_stopping_the_mock_by_pid_frees_every_node(peer_log_dir: Path) -> None:
    mock = peers.start_rdkafka_mock(num_brokers=2, log_dir=peer_log_dir)
    try:
        assert len(mock.nodes) == 2
        mock.stop()
        assert not peers.pid_alive(mock.pid)
        for host, port in mock.addresses:
            assert not peers.port_open(host, port)
    finally:
        mock.stop()


def test_mock_child_exits_by_itself_when_its_parent_goes_away(peer_log_dir: Path) -> None:
    # The parent's end of the child's stdin closes when the parent dies; the
    # child must take that as its cue so no mock outlives a crashed test run.
    mock = peers.start_rdkafka_mock(num_brokers=1, log_dir=peer_log_dir)
    try:
        child = peers._CHILDREN[mock.pid]
        assert child.stdin is not None
        child.stdin.close()
        child.wait(timeout=15)
        assert not peers.pid_alive(mock.pid)
    finally:
        mock.stop()


def test_stop_pid_escalates_to_sigkill_for_a_process_ignoring_sigterm() -> None:
    code = ("import signal, sys, time\n"
            "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
            "print('ready', flush=True)\n"
            "time.sleep(60)\n")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, start_new_session=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == b"ready\n"
        started = time.monotonic()
        peers.stop_pid(proc.pid, grace=0.5)
        assert time.monotonic() - started < 5
        assert proc.wait(timeout=5) == -signal.SIGKILL
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()


def test_mock_answers_api_versions_v3_with_unsupported_version_and_keeps_the_connection(
    rdkafka_mock: RunningBroker,
) -> None:
    request = ApiVersionsRequest[3](client_software_name="kadmin-tests", client_software_version="0")
    with socket.create_connection(rdkafka_mock.addresses[0], timeout=5) as sock:
        payload = peers.raw_exchange(sock, _framed(request, correlation_id=41))
        # correlation id | int16 error 35 | ONE byte raw count 1 | key 18 min 0 max 2 | int32 throttle
        assert payload == struct.pack(">ihbhhhi", 41, 35, 1, API_VERSIONS, 0, 2, 0)
        answer = peers.exchange(sock, ApiVersionsRequest[0](), correlation_id=42)
        assert answer.error_code == 0
        assert len(answer.api_keys) == len(_recorded()["rdkafka_mock"])


def test_tansu_answers_api_versions_v4_in_full(tansu: RunningBroker) -> None:
    request = ApiVersionsRequest[4](client_software_name="kadmin-tests", client_software_version="0")
    answer = peers.exchange(tansu.addresses[0], request)
    assert answer.error_code == 0
    table = {k.api_key: (k.min_version, k.max_version) for k in answer.api_keys}
    assert table == peers.api_versions(tansu.addresses[0])


def test_recorded_tables_match_the_installed_peers(tansu: RunningBroker, rdkafka_mock: RunningBroker) -> None:
    recorded = _recorded()
    if recorded["versions"] != peers.peer_software_versions():
        pytest.skip(f"recorded for {recorded['versions']}, installed {peers.peer_software_versions()}: "
                    "run `python tests/support/peers.py --record` and review the notes")
    for name, broker in (("tansu", tansu), ("rdkafka_mock", rdkafka_mock)):
        live = {str(k): list(v) for k, v in peers.api_versions(broker.addresses[0]).items()}
        assert live == recorded[name], name


# --- Tansu quirks recorded in the notes (describe_configs, create_acls, scram, delete_records) -----------------


def _raw_answer(address: tuple[str, int], request: Any, correlation_id: int) -> bytes:
    """The answer's bytes after the correlation id: for answers no decoder reads."""
    with socket.create_connection(address, timeout=5) as sock:
        payload = peers.raw_exchange(sock, _framed(request, correlation_id))
    assert payload[:4] == struct.pack(">i", correlation_id)
    return payload[4:]


def _create_topic(address: tuple[str, int], name: str, configs: dict[str, str]) -> None:
    req = CreateTopicsRequest[4]
    topic = req.CreatableTopic(name=name, num_partitions=1, replication_factor=1, assignments=[],
                               configs=[req.CreatableTopic.CreatableTopicConfig(name=k, value=v)
                                        for k, v in configs.items()])
    answer = peers.exchange(address, req(topics=[topic], timeout_ms=5000, validate_only=False))
    assert [(t.name, t.error_code) for t in answer.topics] == [(name, 0)]


def test_tansu_topic_configs_acls_and_scram_answers_are_as_recorded(tansu: RunningBroker) -> None:
    notes = _recorded()["notes"]["tansu"]
    assert {"describe_configs", "create_acls", "scram", "delete_records"} <= set(notes)
    address = tansu.addresses[0]
    topic = f"quirks-{uuid.uuid4().hex[:8]}"
    _create_topic(address, topic, {"retention.ms": "60000"})
    # DescribeConfigs: only the key set, labelled DEFAULT_CONFIG (5), not DYNAMIC_TOPIC_CONFIG (1).
    dc = DescribeConfigsRequest[2]
    answer = peers.exchange(address, dc(resources=[dc.DescribeConfigsResource(
        resource_type=2, resource_name=topic, configuration_keys=None)], include_synonyms=False))
    (result,) = answer.results
    assert result.error_code == 0
    assert [(c.name, c.value, c.config_source) for c in result.configs] == [("retention.ms", "60000", 5)]

    # CreateAcls: v1 sends ThrottleTimeMs and no Results array; v2/v3 a null compact array and no tag buffer.
    for version, body in ((1, bytes(4)), (2, bytes(6)), (3, bytes(6))):
        ca = CreateAclsRequest[version]
        creation = ca.AclCreation(resource_type=2, resource_name=topic, resource_pattern_type=3,
                                  principal="User:quirk", host="*", operation=3, permission_type=3)
        assert _raw_answer(address, ca(creations=[creation]), 50 + version) == body, version

    # DescribeUserScramCredentials: header tags, throttle, error 0, null message, null Results, no tag buffer.
    ds = DescribeUserScramCredentialsRequest[0]
    for users in ([ds.UserName(name="quirk")], None):
        assert _raw_answer(address, ds(users=users), 60) == bytes(9)


def test_tansu_delete_records_panics_and_then_ignores_sigterm(fresh_tansu: RunningBroker) -> None:
    address = fresh_tansu.addresses[0]
    _create_topic(address, "doomed", {})
    producer = Producer({"bootstrap.servers": fresh_tansu.bootstrap, "log_level": 0})
    producer.produce("doomed", b"x", partition=0)
    assert producer.flush(10) == 0

    dr = DeleteRecordsRequest[1]
    request = dr(topics=[dr.DeleteRecordsTopic(name="doomed", partitions=[
        dr.DeleteRecordsTopic.DeleteRecordsPartition(partition_index=0, offset=1)])], timeout_ms=1000)
    with pytest.raises(ConnectionError):  # closed, no answer
        _raw_answer(address, request, 70)
    deadline = time.monotonic() + 5
    while "not yet implemented" not in fresh_tansu.log_path.read_text() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert "not yet implemented" in fresh_tansu.log_path.read_text()
    assert peers.api_versions(address)[API_VERSIONS] == (0, 4)  # other connections are still served

    peers._signal_group(fresh_tansu.pid, signal.SIGTERM)
    assert not peers._wait_gone(fresh_tansu.pid, 1.5)  # SIGTERM no longer stops it
    peers.stop_pid(fresh_tansu.pid, grace=0.2)  # SIGKILL does
    assert not peers.pid_alive(fresh_tansu.pid)
    assert not peers.port_open(*address)


def _list_offsets(address: tuple[str, int], version: int, topic: str, timestamp: int) -> tuple[int, int, int]:
    """(error code, timestamp, offset) of partition 0, asked with kafka-python's ListOffsets classes."""
    req = ListOffsetsRequest[version]
    part: dict[str, int] = {"partition_index": 0, "timestamp": timestamp}
    if version >= 4:
        part["current_leader_epoch"] = -1
    fields: dict[str, Any] = {"replica_id": -1, "topics": [req.ListOffsetsTopic(
        name=topic, partitions=[req.ListOffsetsTopic.ListOffsetsPartition(**part)])]}
    if version >= 2:
        fields["isolation_level"] = 0
    answer = peers.exchange(address, req(**fields)).topics[0].partitions[0]
    return answer.error_code, answer.timestamp, answer.offset


def test_tansu_list_offsets_answers_are_as_recorded(tansu: RunningBroker) -> None:
    assert "list_offsets" in _recorded()["notes"]["tansu"]
    address = tansu.addresses[0]
    topic = f"offsets-{uuid.uuid4().hex[:8]}"
    _create_topic(address, topic, {})
    # v0: the partition's entry ends after its error code; OldStyleOffsets is missing.
    name = topic.encode()
    v0 = ListOffsetsRequest[0]
    request = v0(replica_id=-1, topics=[v0.ListOffsetsTopic(name=topic, partitions=[
        v0.ListOffsetsTopic.ListOffsetsPartition(partition_index=0, timestamp=-1, max_num_offsets=5)])])
    assert _raw_answer(address, request, 80) == (struct.pack(">ih", 1, len(name)) + name
                                                  + struct.pack(">iih", 1, 0, 0))

    # One batch of five records, with timestamps of the producer's choosing.
    base = 1_700_000_000_000
    delivered: list[int] = []
    producer = Producer({"bootstrap.servers": tansu.bootstrap, "linger.ms": 500, "log_level": 0})
    for ts in (10, 30, 20, 40, 45):
        producer.produce(topic, b"x", partition=0, timestamp=base + ts,
                         on_delivery=lambda err, msg: delivered.append(-1 if err else msg.offset()))
    assert producer.flush(15) == 0
    assert delivered == [0, 1, 2, 3, 4]
    for version in (1, 5, 7, 9):
        # The batch moved "latest" by one, not five; both answers carry the broker's clock, not -1.
        (code, stamp, latest), (_c, _s, earliest) = (_list_offsets(address, version, topic, -1),
                                                    _list_offsets(address, version, topic, -2))
        assert (code, latest, earliest) == (0, 1, 0), version
        assert stamp > base, version
    # Any time finds offset 0 (Kafka: 0 for T<=10, 3 for T=35); past the last record offset 0 with timestamp -1
    # (Kafka: offset -1).
    assert _list_offsets(address, 7, topic, base)[2] == 0
    assert _list_offsets(address, 7, topic, base + 35)[2] == 0
    assert _list_offsets(address, 7, topic, base * 2)[1:] == (-1, 0)
    # MAX_TIMESTAMP, EARLIEST_LOCAL and LATEST_TIERED, though v9 is advertised: the connection is closed.
    for special in (-3, -4, -5):
        with pytest.raises(ConnectionError):
            _list_offsets(address, 9, topic, special)
