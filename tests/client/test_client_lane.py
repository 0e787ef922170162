"""The sync client's lane (issue #28, small calls): describe_cluster and list_topics on the calling thread, over
one blocking connection, with the answers, errors and time bounds of the usual way (the loop thread)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kadmin import AdminClient
from kadmin.admin import _driver
from kadmin.config import ClientConfig
from kadmin.errors import ClientClosedError, ErrorCode, KafkaError, KafkaTimeoutError
from kadmin.network.blocking import BlockingLane
from kadmin.protocol.apis import ApiKey
from kadmin.testing import FakeCluster, Member
from kadmin.types import GroupDescription
from tests.support import tls_util
from tests.support.settings import FAST, FAULT_FAST


class _UsualWay:
    """Counts the driver's runs (the loop thread's way) by operation name."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.ops: list[str] = []
        real = _driver.run

        async def counted(ctx: Any, op: Any, keys: Any, deadline: Any) -> Any:
            self.ops.append(type(op).__name__)
            return await real(ctx, op, keys, deadline)

        monkeypatch.setattr(_driver, "run", counted)


def warm(admin: AdminClient) -> None:
    """Calls in quick succession: the lane connects at the second (kadmin.network.blocking._BURST_S)."""
    for _ in range(3):
        admin.list_topics()
    assert admin._lane._sock is not None


@pytest.fixture
def cluster() -> Iterator[FakeCluster]:
    with FakeCluster(brokers=3, versions="3.9") as c:
        c.add_topic("orders", 3, replication_factor=2)
        c.add_topic("__consumer_offsets", 1, replication_factor=1)
        yield c


def test_small_reads_take_the_lane_and_answer_as_the_usual_way(cluster: FakeCluster,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    with AdminClient(cluster.bootstrap, **FAST) as admin:
        admin._lane.eligible = False  # the usual way first, for the answers to compare with
        usual = (admin.describe_cluster(), admin.list_topics(), admin.list_topics(internal=True))
        admin._lane.eligible = True
        warm(admin)
        way = _UsualWay(monkeypatch)
        cluster.clear_log()
        lane = (admin.describe_cluster(), admin.list_topics(), admin.list_topics(internal=True))
        assert lane == usual
        assert way.ops == []  # none of them went through the loop thread's driver
        assert cluster.count(ApiKey.DESCRIBE_CLUSTER) == 1 and cluster.count(ApiKey.METADATA) == 2
        # Other calls take the usual way, on the same client.
        assert set(admin.api_versions()) == {1, 2, 3}
        assert way.ops == ["ApiVersions"]


def test_a_retriable_error_goes_on_the_usual_way_which_retries(cluster: FakeCluster,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    with AdminClient(cluster.bootstrap, **FAST) as admin:
        warm(admin)
        way = _UsualWay(monkeypatch)
        cluster.clear_log()
        cluster.inject(None, ApiKey.DESCRIBE_CLUSTER, ErrorCode.NOT_CONTROLLER, count=2)
        got = admin.describe_cluster()
        assert got.cluster_id == cluster.cluster_id
        # The lane's try met the first error; the usual way met the second, backed off and asked again.
        assert cluster.count(ApiKey.DESCRIBE_CLUSTER) == 3
        assert way.ops == ["DescribeCluster"]


def test_a_final_error_is_the_answer_as_on_the_usual_way(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeCluster(brokers=1, versions="3.9") as c, AdminClient(c.bootstrap, **FAST) as admin:
        warm(admin)
        way = _UsualWay(monkeypatch)
        c.clear_log()
        c.inject(None, ApiKey.DESCRIBE_CLUSTER, ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
        with pytest.raises(KafkaError) as raised:
            admin.describe_cluster()
        assert raised.value.code == ErrorCode.CLUSTER_AUTHORIZATION_FAILED
        assert c.count(ApiKey.DESCRIBE_CLUSTER) == 1 and way.ops == []  # asked once: the answer is final


def test_a_silent_broker_costs_the_calls_timeout_once(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeCluster(brokers=1, versions="3.9") as c, AdminClient(c.bootstrap, **FAULT_FAST) as admin:
        warm(admin)
        c.delay(None, ApiKey.METADATA, 3.0)
        began = time.monotonic()
        try:
            # The lane waits out the call's timeout; what is left of it (nearly nothing) goes to the usual way,
            # whose resend may still be answered in time (the fake held only the first request).
            assert admin.list_topics(timeout=0.8) == []
        except KafkaTimeoutError:
            pass
        took = time.monotonic() - began
        assert took < 1.55, took  # the lane's wait and the usual way's together (one each would be 1.6 s or more)
        assert not admin._lane.usable()  # shut for a while: the next calls take the usual way
        c.clear_faults()
        way = _UsualWay(monkeypatch)
        time.sleep(2.5)  # the delayed request has been answered (to a closed socket) by now
        assert [t.name for t in admin.list_topics()] == []
        assert way.ops == ["ListTopics"]


def test_a_lost_connection_goes_on_the_usual_way(cluster: FakeCluster) -> None:
    with AdminClient(cluster.bootstrap, **FAULT_FAST) as admin:
        before = admin.list_topics()
        cluster.drop_connection(None, ApiKey.METADATA, "before")
        assert admin.list_topics() == before


def test_sasl_listeners_never_take_the_lane(monkeypatch: pytest.MonkeyPatch) -> None:
    users = {"alice": "pw"}
    with FakeCluster(brokers=1, sasl={"mechanism": "PLAIN", "users": users}) as c:
        with AdminClient(c.bootstrap, security_protocol="SASL_PLAINTEXT", sasl_mechanism="PLAIN",
                         sasl_username="alice", sasl_password="pw", **FAST) as admin:
            way = _UsualWay(monkeypatch)
            assert admin.describe_cluster().cluster_id == c.cluster_id
            assert way.ops == ["DescribeCluster"]
    assert not BlockingLane(ClientConfig(bootstrap_servers="x:1", security_protocol="SASL_SSL", sasl_mechanism="PLAIN",
                                         sasl_username="u", sasl_password="p")).eligible


def test_tls_listeners_take_the_lane_with_the_clients_trust(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ca = tls_util.make_ca(tmp_path)
    server = tls_util.make_cert(ca, "server", ["localhost", "127.0.0.1"])
    with FakeCluster(brokers=1, tls=ca.server_context(server)) as c:
        with AdminClient(c.bootstrap, security_protocol="SSL", ssl_cafile=str(ca.ca.cert), **FAST) as admin:
            warm(admin)
            way = _UsualWay(monkeypatch)
            assert admin.describe_cluster().cluster_id == c.cluster_id
            assert way.ops == []
        # A client that does not trust the broker's certificate: the lane fails over, the usual way says why.
        with pytest.raises(Exception) as raised:
            with AdminClient(c.bootstrap, security_protocol="SSL", **FAST) as untrusting:
                untrusting.describe_cluster()
        assert "certificate" in str(raised.value)


def test_threads_share_the_lane_or_take_the_usual_way(cluster: FakeCluster) -> None:
    with AdminClient(cluster.bootstrap, **FAST) as admin:
        want = admin.list_topics()
        got: list[Any] = []

        def worker() -> None:
            for _ in range(50):
                got.append(admin.list_topics())

        threads = [threading.Thread(target=worker) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert len(got) == 200 and all(g == want for g in got)


def test_a_closed_client_refuses_and_its_lane_is_closed(cluster: FakeCluster) -> None:
    admin = AdminClient(cluster.bootstrap, **FAST)
    warm(admin)
    admin.close()
    assert admin._lane._sock is None
    with pytest.raises(ClientClosedError):
        admin.list_topics()


@pytest.mark.parametrize("client_id", ["kadmin", "", "c" * 300])
def test_the_lanes_frames_are_the_usual_encoding(client_id: str) -> None:
    from kadmin.protocol.headers import encode_request

    lane = BlockingLane(ClientConfig(bootstrap_servers="h:1", client_id=client_id))
    for api, version in ((ApiKey.METADATA, 12), (ApiKey.METADATA, 1), (ApiKey.DESCRIBE_CLUSTER, 0),
                         (ApiKey.API_VERSIONS, 3), (ApiKey.API_VERSIONS, 0)):
        for correlation in (1, 255, 2**31 - 1):
            assert lane._frame(api, version, correlation, b"body") == encode_request(
                api, version, correlation, client_id, b"body")


def test_configs_of_topics_take_the_lane_and_a_named_broker_its_own_way(cluster: FakeCluster,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from kadmin import ConfigResource

    orders, missing = ConfigResource.topic("orders"), ConfigResource.topic("missing")
    with AdminClient(cluster.bootstrap, **FAST) as admin:
        admin.list_topics()
        admin._lane.eligible = False
        usual = admin.describe_configs([orders, missing])
        usual_brokers = {n: admin.describe_configs([ConfigResource.broker(n)]) for n in (1, 2, 3)}
        admin._lane.eligible = True
        warm(admin)  # the lane's node is set by now
        way = _UsualWay(monkeypatch)
        assert admin.describe_configs([orders, missing]) == usual  # one request, both answered
        assert isinstance(usual[missing], KafkaError) and usual[orders]["cleanup.policy"].value == "delete"
        assert way.ops == []
        # A broker's own configs: asked of that broker, on the lane only when it is the lane's node.
        for n in (1, 2, 3):
            assert admin.describe_configs([ConfigResource.broker(n)]) == usual_brokers[n]
        assert way.ops.count("DescribeConfigs") == 2
        # A call naming a broker and a topic is two requests: the usual way.
        assert set(admin.describe_configs([orders, ConfigResource.broker(1)])) == {orders, ConfigResource.broker(1)}
        assert way.ops.count("DescribeConfigs") == 3


def test_rebootstrap_required_on_the_lane_rebootstraps_then_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    """KIP-1102: Metadata v13 answering REBOOTSTRAP_REQUIRED on the lane makes the client learn the cluster again
    from its bootstrap addresses (as the usual way does on that answer); the call is then answered."""
    with FakeCluster(brokers=1, versions="4.1") as c, AdminClient(c.bootstrap, **FAST) as admin:
        c.add_topic("orders", 1, replication_factor=1)
        warm(admin)
        assert admin._lane.node is not None  # the lane is in use
        before = admin._aio.net.rebootstraps
        way = _UsualWay(monkeypatch)
        sent: list[int] = []
        real = BlockingLane.request

        def counted(lane: BlockingLane, *args: Any) -> bytes:
            sent.append(args[2])
            return real(lane, *args)

        monkeypatch.setattr(BlockingLane, "request", counted)
        c.inject(None, ApiKey.METADATA, ErrorCode.REBOOTSTRAP_REQUIRED, count=1)
        assert [t.name for t in admin.list_topics()] == ["orders"]
        assert sent == [ApiKey.METADATA]  # the lane asked first, and met the injected answer
        assert admin._aio.net.rebootstraps == before + 1
        assert way.ops == ["ListTopics"]  # answered the usual way, after the rebootstrap


def test_a_lone_call_goes_the_usual_way_and_an_idle_connection_is_not_reused(
        cluster: FakeCluster, monkeypatch: pytest.MonkeyPatch) -> None:
    """The lane connects only for calls in quick succession, and closes a connection idle for a minute before
    using it (a broker closes idle connections): an occasional caller opens no second connection per call."""
    from kadmin.network import blocking

    now = [1000.0]
    monkeypatch.setattr(blocking.time, "monotonic", lambda: now[0])
    with AdminClient(cluster.bootstrap, **FAST) as admin:  # (started by ``with``)
        way = _UsualWay(monkeypatch)
        admin.list_topics()  # a first call: no connection for it
        assert admin._lane._sock is None and way.ops == ["ListTopics"]
        now[0] += 0.5
        admin.list_topics()  # half a second later: a burst, the lane connects
        assert admin._lane._sock is not None and way.ops == ["ListTopics"]
        opened = admin._lane._sock
        now[0] += 30
        admin.list_topics()  # half a minute later: the same connection
        assert admin._lane._sock is opened and way.ops == ["ListTopics"]
        now[0] += 61
        admin.list_topics()  # idle past a minute: closed, and this lone call goes the usual way
        assert admin._lane._sock is None and way.ops == ["ListTopics", "ListTopics"]
        assert admin._lane.usable()  # not a failure: the next burst connects again


def test_a_group_whose_coordinator_is_known_is_described_on_the_lane(monkeypatch: pytest.MonkeyPatch) -> None:
    """describe_consumer_groups takes the lane once each group's coordinator is cached and is the lane's node:
    the same answers (a missing group's error included) as the usual way, one DescribeGroups, no lookup."""
    with FakeCluster(brokers=1, versions="3.9") as c, AdminClient(c.bootstrap, **FAST) as admin:
        c.add_group("busy", members=[Member("m1", client_id="c1")])
        admin._lane.eligible = False
        usual = admin.describe_consumer_groups(["busy", "missing"])
        admin._lane.eligible = True
        warm(admin)
        way = _UsualWay(monkeypatch)
        c.clear_log()
        for _ in range(3):
            assert admin.describe_consumer_groups(["busy", "missing"]) == usual
        assert way.ops == []
        assert c.count(ApiKey.DESCRIBE_GROUPS) == 3 and c.count(ApiKey.FIND_COORDINATOR) == 0
        busy, missing = usual["busy"], usual["missing"]
        assert isinstance(busy, GroupDescription) and [m.client_id for m in busy.members] == ["c1"]
        # DescribeGroups v5 (3.9's) reports an unknown group Dead without an error: kadmin says it is missing.
        assert isinstance(missing, KafkaError)


def test_a_group_on_the_lane_meeting_not_coordinator_is_asked_again_the_usual_way(
        monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeCluster(brokers=1, versions="3.9") as c, AdminClient(c.bootstrap, **FAST) as admin:
        c.add_group("busy", members=[Member("m1")])
        admin.describe_consumer_groups(["busy"])  # the coordinator is cached
        warm(admin)
        way = _UsualWay(monkeypatch)
        c.clear_log()
        c.inject(None, ApiKey.DESCRIBE_GROUPS, ErrorCode.NOT_COORDINATOR, count=2)
        got = admin.describe_consumer_groups(["busy"])["busy"]
        assert isinstance(got, GroupDescription) and [m.member_id for m in got.members] == ["m1"]
        # The lane's try met NOT_COORDINATOR (not a final answer) and left the cache to the usual way, which met
        # it too, looked the coordinator up again and asked once more.
        assert way.ops == ["DescribeGroups"]
        assert c.count(ApiKey.DESCRIBE_GROUPS) == 3 and c.count(ApiKey.FIND_COORDINATOR) == 1


def test_groups_of_both_protocols_are_described_on_the_lane_one_api_after_the_other(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Kafka 4.0: a KIP-848 group is asked DescribeGroups first while its type is unknown (answered
    GROUP_ID_NOT_FOUND), then ConsumerGroupDescribe; once ListGroups told the types, one call asks each API for
    its groups, one after the other on the lane (there is no event loop to gather on there)."""
    with FakeCluster(brokers=1, versions="4.0") as c, AdminClient(c.bootstrap, **FAST) as admin:
        c.add_topic("orders", 1, replication_factor=1)
        c.add_group("busy", members=[Member("m1")])
        c.add_group("kip848", group_type="consumer", members=[{"member_id": "c1", "assigned": [("orders", 0)]}])
        admin._lane.eligible = False
        usual = admin.describe_consumer_groups(["busy", "kip848"])
        admin._lane.eligible = True
        warm(admin)
        way = _UsualWay(monkeypatch)
        c.clear_log()
        assert admin.describe_consumer_groups(["busy", "kip848"]) == usual
        assert way.ops == []
        assert c.count(ApiKey.DESCRIBE_GROUPS) == 1 and c.count(ApiKey.CONSUMER_GROUP_DESCRIBE) == 1
        admin.list_consumer_groups()  # the types are known now (the usual way: one request per broker)
        way.ops.clear()
        c.clear_log()
        assert admin.describe_consumer_groups(["busy", "kip848"]) == usual
        assert way.ops == []
        assert c.count(ApiKey.DESCRIBE_GROUPS) == 1 and c.count(ApiKey.CONSUMER_GROUP_DESCRIBE) == 1
        assert usual["kip848"].group_type == "consumer" and usual["busy"].group_type == "classic"
