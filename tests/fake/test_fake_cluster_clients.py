"""FakeCluster with an independent client (kafka-python 3.0.12's KafkaAdminClient), SASL, TLS, the pytest
plugin and the ``python -m kadmin.testing`` entry point."""

from __future__ import annotations

import signal
import ssl
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kafka.admin import KafkaAdminClient
from kafka.errors import UnknownMemberIdError
from kafka.structs import OffsetAndMetadata, TopicPartition

from kadmin.testing import FakeCluster, Member
from kadmin.testing.pytest_plugin import fake_cluster  # noqa: F401 - the fixture under test
from kadmin.testing.rawclient import ConnectionClosed, RawConnection
from kadmin.versions import RELEASE_NAMES, RELEASES
from tests.support import tls_util

ROOT = Path(__file__).resolve().parents[2]


def admin(cluster: FakeCluster, **config: Any) -> KafkaAdminClient:
    settings: dict[str, Any] = {"request_timeout_ms": 5000, "client_id": "kp-admin", **config}
    return KafkaAdminClient(bootstrap_servers=cluster.bootstrap, **settings)


@pytest.fixture
def kp(fake_cluster: FakeCluster) -> Iterator[tuple[FakeCluster, KafkaAdminClient]]:  # noqa: F811
    fake_cluster.add_topic("orders", partitions=2, offsets=[10, 20])
    fake_cluster.add_group("live", members=[Member("m-1", client_id="c-1", metadata=b"meta", assignment=b"asg")])
    fake_cluster.add_group("idle")
    fake_cluster.commit("idle", "orders", 0, 4, metadata="hello")
    client = admin(fake_cluster)
    try:
        yield fake_cluster, client
    finally:
        client.close()


@pytest.mark.parametrize("release", RELEASE_NAMES)
def test_kafka_python_admin_against_each_preset(release: str) -> None:
    with FakeCluster(brokers=2, versions=release) as c:
        c.add_topic("t", partitions=1)
        c.add_group("g1", members=[Member("m1", client_id="c1")])
        c.add_group("g2")
        c.commit("g2", "t", 0, 1)
        a = admin(c)
        try:
            assert a.get_broker_version_data(1).broker_version == tuple(int(x) for x in release.split("."))
            assert sorted(g["group_id"] for g in a.list_groups()) == ["g1", "g2"]
            assert a.describe_groups(["g1"])["g1"]["group_state"] == "Stable"
            assert a.list_group_offsets({"g2": None}) == {
                "g2": {TopicPartition("t", 0): OffsetAndMetadata(1, "", -1)}}
            assert a.delete_groups(["g2", "g1"]) == {"g2": "OK", "g1": "NonEmptyGroupError"}
        finally:
            a.close()
        assert set(c.groups) == {"g1"}
        # The client negotiated FindCoordinator within each broker's table: batched only from 3.0.
        fc_versions = {e.version for e in c.request_log if e.api_key == 10}
        assert fc_versions and max(fc_versions) == min(RELEASES[release][10][1], 6)


def test_kafka_python_sees_each_node_of_a_mixed_cluster() -> None:
    """kafka-python keeps one version table per client (its bootstrap node's), so each node is bootstrapped
    from in turn; per-node negotiation itself is tested with raw requests in test_fake_cluster.py."""
    with FakeCluster(brokers=3, versions={1: "2.8", 2: "3.9", 3: "4.0"}) as c:
        for node, release in ((1, "2.8"), (2, "3.9"), (3, "4.0")):
            host, port = c.addresses[node]
            a = KafkaAdminClient(bootstrap_servers=f"{host}:{port}", request_timeout_ms=5000)
            try:
                assert {int(k): v for k, v in a.api_versions().items()} == RELEASES[release]
            finally:
                a.close()
        # The 2.8 node lacks ApiVersions v4: the client got the KIP-511 answer and retried at v3.
        assert [e.version for e in c.request_log if e.api_key == 18 and e.node_id == 1][:2] == [4, 3]
        assert {e.version for e in c.request_log if e.api_key == 18 and e.node_id in (2, 3)} == {4}


def test_kafka_python_describe_and_list(kp: tuple[FakeCluster, KafkaAdminClient]) -> None:
    cluster, client = kp
    described = client.describe_groups(["live", "idle", "ghost"])
    assert described["live"]["group_state"] == "Stable"
    assert [(m["member_id"], m["client_id"]) for m in described["live"]["members"]] == [("m-1", "c-1")]
    assert described["idle"]["group_state"] == "Empty"
    assert described["ghost"]["group_state"] == "Dead"
    assert sorted((g["group_id"], g["group_state"]) for g in client.list_groups()) == [
        ("idle", "Empty"), ("live", "Stable")]
    assert [g["group_id"] for g in client.list_groups(states_filter=["Stable"])] == ["live"]
    info = client.describe_cluster()
    assert info["cluster_id"] == cluster.cluster_id and [b["broker_id"] for b in info["brokers"]] == [1, 2, 3]
    # kafka-python asked every broker for its groups, and each coordinator for its groups.
    assert cluster.count("ListGroups") >= 6 and {e.node_id for e in cluster.request_log if e.api_key == 16} == {1, 2, 3}
    assert cluster.count("DescribeGroups", node=cluster.coordinator_of("live")) >= 1


def test_kafka_python_offsets(kp: tuple[FakeCluster, KafkaAdminClient]) -> None:
    cluster, client = kp
    assert client.list_group_offsets({"idle": None}) == {
        "idle": {TopicPartition("orders", 0): OffsetAndMetadata(4, "hello", -1)}}
    client.alter_group_offsets("idle", {TopicPartition("orders", 1): OffsetAndMetadata(15, "set", -1)})
    assert cluster.groups["idle"].offsets[("orders", 1)].offset == 15
    # An admin-style commit to a group with live members is refused per partition: UNKNOWN_MEMBER_ID.
    refused = client.alter_group_offsets("live", {TopicPartition("orders", 0): OffsetAndMetadata(1, "", -1)})
    assert refused == {TopicPartition("orders", 0): UnknownMemberIdError}
    assert ("orders", 0) not in cluster.groups["live"].offsets


def test_kafka_python_delete_and_stopped_broker(kp: tuple[FakeCluster, KafkaAdminClient]) -> None:
    cluster, client = kp
    assert client.delete_groups(["idle"]) == {"idle": "OK"}
    assert "idle" not in cluster.groups
    victim = next(n for n in cluster.node_ids if n != cluster.coordinator_of("live"))
    cluster.stop_broker(victim)
    fresh = admin(cluster)
    try:
        assert sorted(b["broker_id"] for b in fresh.describe_cluster()["brokers"]) == sorted(
            n for n in cluster.node_ids if n != victim)
    finally:
        fresh.close()


# ---------------------------------------------------------------------------------------------- SASL


@pytest.mark.parametrize("mechanism", ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"])
def test_sasl_with_kafka_python(mechanism: str) -> None:
    with FakeCluster(brokers=1, sasl={"mechanism": mechanism, "users": {"alice": "s3cret"}}) as c:
        c.add_group("g")
        a = admin(c, security_protocol="SASL_PLAINTEXT", sasl_mechanism=mechanism, sasl_plain_username="alice",
                  sasl_plain_password="s3cret")
        try:
            assert [g["group_id"] for g in a.list_groups()] == ["g"]
        finally:
            a.close()
        assert c.count("SaslHandshake") >= 1 and c.count("SaslAuthenticate") >= 1
        assert [e.keys for e in c.request_log if e.api_key == 17][0] == (mechanism,)


@pytest.mark.parametrize("mechanism", ["PLAIN", "SCRAM-SHA-256"])
def test_sasl_wrong_password_fails(mechanism: str) -> None:
    with FakeCluster(brokers=1, sasl={"mechanism": mechanism, "users": {"alice": "s3cret"}}) as c:
        with pytest.raises(Exception):  # noqa: B017 - kafka-python gives up bootstrapping
            admin(c, security_protocol="SASL_PLAINTEXT", sasl_mechanism=mechanism, sasl_plain_username="alice",
                  sasl_plain_password="wrong", request_timeout_ms=1000, bootstrap_timeout_ms=1000)
        assert c.count("SaslAuthenticate") >= 1 and c.count("ListGroups") == 0


def raw(c: FakeCluster) -> RawConnection:
    host, port = c.addresses[c.node_ids[0]]
    return RawConnection(host, port)


def test_sasl_raw_rules() -> None:
    with FakeCluster(brokers=1, sasl={"mechanisms": ["PLAIN", "SCRAM-SHA-512"], "users": {"bob": "pw"}}) as c:
        with raw(c) as conn:  # ApiVersions is allowed before authenticating; anything else closes
            assert conn.request(18, 3, client_software_name="t", client_software_version="1").error_code == 0
            conn.send(16, 4, b"\x00")
            assert conn.is_closed()
        with raw(c) as conn:
            hs = conn.request(17, 1, mechanism="GSSAPI")
            assert (hs.error_code, hs.mechanisms) == (33, ["PLAIN", "SCRAM-SHA-512"])  # UNSUPPORTED_SASL_MECHANISM
            assert conn.is_closed()
        with raw(c) as conn:
            assert conn.request(17, 1, mechanism="PLAIN").error_code == 0
            bad = conn.request(36, 2, auth_bytes=b"\x00bob\x00nope")
            assert bad.error_code == 58 and "Invalid username or password" in bad.error_message
            assert conn.is_closed()
        with raw(c) as conn:
            assert conn.request(17, 1, mechanism="PLAIN").error_code == 0
            assert conn.request(36, 1, auth_bytes=b"\x00bob\x00pw").error_code == 0
            assert conn.request(16, 4).error_code == 0  # authenticated now
            assert conn.request(17, 1, mechanism="PLAIN").error_code == 34  # ILLEGAL_SASL_STATE
        with raw(c) as conn:  # SaslHandshake v0: the token follows as a bare frame
            assert conn.request(17, 0, mechanism="PLAIN").error_code == 0
            conn.send_frame(b"\x00bob\x00pw")
            assert conn.recv_frame() == b""
            assert conn.request(16, 4).error_code == 0


def test_sasl_handshake_without_sasl_is_illegal_state() -> None:
    with FakeCluster(brokers=1) as c, raw(c) as conn:
        assert conn.request(17, 1, mechanism="PLAIN").error_code == 34


# ---------------------------------------------------------------------------------------------- TLS


def test_tls_with_kafka_python_and_raw(tmp_path: Path) -> None:
    pki = tls_util.make_ca(tmp_path)
    server = tls_util.make_cert(pki, "broker", ["127.0.0.1", "localhost"])
    with FakeCluster(brokers=2, tls=pki.server_context(server)) as c:
        c.add_group("secure")
        a = admin(c, security_protocol="SSL", ssl_cafile=str(pki.ca.cert), ssl_check_hostname=True)
        try:
            assert [g["group_id"] for g in a.list_groups()] == ["secure"]
        finally:
            a.close()
        client_ctx = ssl.create_default_context(cafile=str(pki.ca.cert))
        host, port = c.addresses[1]
        with RawConnection(host, port, tls=client_ctx) as conn:
            assert conn.request(3, 12, topics=None).cluster_id == c.cluster_id
        with RawConnection(host, port) as plain:  # a plaintext client gets nothing useful
            plain.send(18, 0, b"")
            with pytest.raises((ConnectionClosed, OSError)):
                plain.recv_frame()


# ---------------------------------------------------------------------------------------------- plugin, CLI


@pytest.mark.parametrize("fake_cluster", [{"brokers": 1, "versions": "2.8", "cluster_id": "from-param"}],
                         indirect=True)
def test_pytest_plugin_fixture_takes_options(fake_cluster: FakeCluster) -> None:  # noqa: F811
    assert fake_cluster.node_ids == [1] and fake_cluster.cluster_id == "from-param"
    assert fake_cluster.versions_of(1) == RELEASES["2.8"]
    with raw(fake_cluster) as conn:
        assert conn.request(60, 0).cluster_id == "from-param"


def test_pytest_plugin_fixture_defaults(fake_cluster: FakeCluster) -> None:  # noqa: F811
    assert fake_cluster.node_ids == [1, 2, 3] and fake_cluster.is_alive(3)


def test_python_dash_m_kadmin_testing() -> None:
    proc = subprocess.Popen([sys.executable, "-m", "kadmin.testing", "--brokers", "2", "--versions", "3.0",
                             "--seed-demo"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        assert proc.stdout is not None
        bootstrap = proc.stdout.readline().strip()
        addresses = bootstrap.split(",")
        assert len(addresses) == 2
        host, port = addresses[0].rsplit(":", 1)
        groups: set[str] = set()
        for address in addresses:
            h, p = address.rsplit(":", 1)
            with RawConnection(h, int(p)) as conn:
                groups |= {g.group_id for g in conn.request(16, 4).groups}
                versions = conn.request(18, 3, client_software_name="t", client_software_version="1")
                assert {k.api_key: (k.min_version, k.max_version) for k in versions.api_keys} == RELEASES["3.0"]
        assert groups == {"orders-service", "billing", "rebalancing"}
        with RawConnection(host, int(port)) as conn:
            quotas = conn.request(48, 1, components=[], strict=False)
            assert len(quotas.entries) == 4
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=10) == 0
