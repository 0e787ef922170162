"""describe_metadata_quorum, add_raft_voter / remove_raft_voter and unregister_broker (KIP-595/853) on the fake.

Why: a platform team checks the controller quorum before and after every controller change; a wrong voter key
or the last voter must come back as the quorum's error at once (never a hang), a lost answer as "possibly
applied", and a ZooKeeper-mode cluster (the 2.8 and 3.9 presets) as one clear UnsupportedVersionError.
kafka-python's describe_metadata_quorum reads back what kadmin changed.
"""

from __future__ import annotations

import asyncio
import base64
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, TypeVar

import pytest
from kafka import KafkaAdminClient

from kadmin.aio import AdminClient
from kadmin.errors import (
    BrokerIdNotRegisteredError,
    DuplicateVoterError,
    InconsistentClusterIdError,
    InvalidRequestError,
    KafkaTimeoutError,
    UnsupportedVersionError,
    VoterNotFoundError,
)
from kadmin.protocol.apis import ApiKey
from kadmin.quorum import QuorumInfo, RaftVoterEndpoint, check_directory_id
from kadmin.testing import FakeCluster
from kadmin.testing.state.quorum import directory_id

T = TypeVar("T")


def run(cluster: FakeCluster, body: Callable[[AdminClient], Awaitable[T]], *, started: bool = True) -> T:
    async def go() -> T:
        admin = AdminClient(cluster.bootstrap)
        try:
            if started:
                await admin.start()
            return await body(admin)
        finally:
            await admin.close()
    return asyncio.run(go())


@pytest.fixture(params=["4.0", "4.3"])
def kraft(request: pytest.FixtureRequest) -> Iterator[FakeCluster]:
    """A KRaft cluster of Kafka 4.0 (the first without ZooKeeper) and of the newest preset."""
    with FakeCluster(4, versions=request.param) as c:
        yield c


def kp_quorum(cluster: FakeCluster) -> dict[str, Any]:
    kp = KafkaAdminClient(bootstrap_servers=cluster.bootstrap, request_timeout_ms=10_000)
    try:
        return kp.describe_metadata_quorum()  # type: ignore[no-any-return]
    finally:
        kp.close()


def _kp_partition(got: dict[str, Any]) -> dict[str, Any]:
    return got["topics"][0]["partitions"][0]  # type: ignore[no-any-return]


# --- describe -----------------------------------------------------------------------------------------------


def test_describe_a_fresh_kraft_quorum_matches_kafka_python(kraft: FakeCluster) -> None:
    info = run(kraft, lambda a: a.describe_metadata_quorum())
    assert info.leader_id == kraft.controller
    assert [v.replica_id for v in info.voters] == [kraft.controller]
    assert sorted(o.replica_id for o in info.observers) == sorted(set(kraft.node_ids) - {kraft.controller})
    assert info.voters[0].directory_id == directory_id(kraft.controller)
    assert set(info.nodes) == {kraft.controller}
    theirs = _kp_partition(kp_quorum(kraft))
    assert theirs["leader_id"] == info.leader_id and theirs["leader_epoch"] == info.leader_epoch
    assert theirs["high_watermark"] == info.high_watermark
    assert [v["replica_id"] for v in theirs["current_voters"]] == [v.replica_id for v in info.voters]
    assert sorted(o["replica_id"] for o in theirs["observers"]) == sorted(o.replica_id for o in info.observers)


def test_voters_observers_and_lag(kraft: FakeCluster) -> None:
    kraft.set_quorum_voters([1, 2, 3])
    kraft.set_quorum_lag(2, 12, idle_ms=3_000)
    kraft.set_quorum_lag(4, 40)
    info = run(kraft, lambda a: a.describe_metadata_quorum())
    by_id = {r.replica_id: r for r in info.voters + info.observers}
    assert [v.replica_id for v in info.voters] == [1, 2, 3] and [o.replica_id for o in info.observers] == [4]
    assert by_id[2].lag == 12 and by_id[2].log_end_offset == info.high_watermark - 12
    assert by_id[4].lag == 40 and by_id[1].lag == 0 and by_id[3].lag == 0
    assert info.max_follower_lag == 12
    now = int(time.time() * 1000)
    lag_ms = info.max_follower_lag_time_ms(now)
    assert lag_ms is not None and 3_000 <= lag_ms < 60_000
    assert by_id[2].last_fetch_timestamp is not None and now - by_id[2].last_fetch_timestamp >= 3_000


@pytest.mark.parametrize("release", ["2.8", "3.9"])
def test_zookeeper_mode_has_no_quorum(release: str) -> None:
    with FakeCluster(2, versions=release) as c:
        for call in (lambda a: a.describe_metadata_quorum(),
                     lambda a: a.add_raft_voter(2, directory_id(2), ["CONTROLLER://h:9093"]),
                     lambda a: a.remove_raft_voter(1, directory_id(1)),
                     lambda a: a.unregister_broker(2)):
            with pytest.raises(UnsupportedVersionError, match="KRaft"):
                run(c, call)
        assert c.count(ApiKey.DESCRIBE_QUORUM) == c.count(ApiKey.ADD_RAFT_VOTER) == 0


# --- voter changes ------------------------------------------------------------------------------------------


def test_add_then_remove_a_voter_read_back_by_kafka_python(kraft: FakeCluster) -> None:
    run(kraft, lambda a: a.add_raft_voter(3, str(directory_id(3)), ["CONTROLLER://ctl3.example:9093"]))
    assert kraft.quorum_voters() == {1: directory_id(1), 3: directory_id(3)}
    theirs = kp_quorum(kraft)
    assert sorted(v["replica_id"] for v in _kp_partition(theirs)["current_voters"]) == [1, 3]
    info = run(kraft, lambda a: a.describe_metadata_quorum())
    assert info.nodes[3] == (RaftVoterEndpoint("CONTROLLER", "ctl3.example", 9093),)
    run(kraft, lambda a: a.remove_raft_voter(3, directory_id(3)))
    assert kraft.quorum_voters() == {1: directory_id(1)}
    assert [v["replica_id"] for v in _kp_partition(kp_quorum(kraft))["current_voters"]] == [1]


def test_removing_the_leader_starts_a_new_epoch(kraft: FakeCluster) -> None:
    kraft.set_quorum_voters([1, 2])
    run(kraft, lambda a: a.remove_raft_voter(1, directory_id(1)))
    info = run(kraft, lambda a: a.describe_metadata_quorum())
    assert info.leader_id == 2 and info.leader_epoch == 2


def _timed(cluster: FakeCluster, body: Callable[[AdminClient], Awaitable[T]]) -> tuple[float, BaseException]:
    """How long the call took to raise, and what it raised."""
    start = time.monotonic()
    with pytest.raises(Exception) as caught:
        run(cluster, body)
    return time.monotonic() - start, caught.value


@pytest.mark.parametrize(("call", "error", "match"), [
    (lambda a: a.remove_raft_voter(1, directory_id(1), timeout=20), InvalidRequestError, "last voter"),
    (lambda a: a.remove_raft_voter(3, directory_id(3), timeout=20), VoterNotFoundError, "not in the voter set"),
    (lambda a: a.remove_raft_voter(1, uuid.uuid4(), timeout=20), VoterNotFoundError, "not in the voter set"),
    (lambda a: a.add_raft_voter(1, directory_id(1), ["C://h:1"], timeout=20), DuplicateVoterError, "already"),
    (lambda a: a.add_raft_voter(2, uuid.uuid4(), ["C://h:1"], timeout=20), InvalidRequestError, "not an observer"),
    (lambda a: a.add_raft_voter(2, directory_id(2), ["C://h:1"], cluster_id="other", timeout=20),
     InconsistentClusterIdError, None),
])
def test_refusals_come_back_at_once(kraft: FakeCluster, call: Callable[[AdminClient], Awaitable[None]],
                                    error: type[Exception], match: str | None) -> None:
    took, got = _timed(kraft, call)
    assert isinstance(got, error), got
    assert match is None or match in str(got)
    assert took < 5  # the quorum's answer, not the 20 s timeout
    assert kraft.quorum_voters() == {1: directory_id(1)}


def test_static_quorum_refuses_voter_changes(kraft: FakeCluster) -> None:
    kraft.set_finalized_features({"kraft.version": 0})
    with pytest.raises(UnsupportedVersionError, match="kraft.version"):
        run(kraft, lambda a: a.add_raft_voter(2, directory_id(2), ["C://h:1"]))


def test_bad_input_is_refused_before_any_io(kraft: FakeCluster) -> None:
    kraft.clear_log()
    bad: list[Callable[[AdminClient], Awaitable[None]]] = [
        lambda a: a.add_raft_voter(-1, directory_id(2), ["C://h:1"]),
        lambda a: a.add_raft_voter("2", directory_id(2), ["C://h:1"]),  # type: ignore[arg-type]
        lambda a: a.add_raft_voter(2, "not-a-uuid", ["C://h:1"]),
        lambda a: a.add_raft_voter(2, directory_id(2), []),
        lambda a: a.add_raft_voter(2, directory_id(2), "C://h:1"),
        lambda a: a.add_raft_voter(2, directory_id(2), ["h:1"]),
        lambda a: a.add_raft_voter(2, directory_id(2), ["C://h:0"]),
        lambda a: a.add_raft_voter(2, directory_id(2), ["C://h:1"], cluster_id=7),  # type: ignore[arg-type]
        lambda a: a.remove_raft_voter(True, directory_id(1)),
        lambda a: a.remove_raft_voter(1, 12),  # type: ignore[arg-type]
        lambda a: a.unregister_broker(-3),
        lambda a: a.unregister_broker(None),  # type: ignore[arg-type]
    ]
    for call in bad:
        with pytest.raises((TypeError, ValueError)):
            run(kraft, call, started=False)
    assert kraft.request_log == []


def test_kafka_base64_directory_ids_are_accepted() -> None:
    u = directory_id(5)
    kafka_form = base64.urlsafe_b64encode(u.bytes).decode("ascii").rstrip("=")  # as Kafka's Uuid prints it
    assert len(kafka_form) == 22
    assert check_directory_id(kafka_form) == u
    assert check_directory_id(str(u)) == u
    assert RaftVoterEndpoint.parse("CONTROLLER://[::1]:9093") == RaftVoterEndpoint("CONTROLLER", "::1", 9093)
    assert str(RaftVoterEndpoint("CONTROLLER", "::1", 9093)) == "CONTROLLER://[::1]:9093"


def test_lost_add_is_possibly_applied(kraft: FakeCluster) -> None:
    kraft.drop_connection(None, "AddRaftVoter", when="after", count=10)
    with pytest.raises(KafkaTimeoutError) as caught:
        run(kraft, lambda a: a.add_raft_voter(2, directory_id(2), ["C://h:1"], timeout=3))
    assert caught.value.possibly_applied
    assert 2 in kraft.quorum_voters()  # it was in fact applied


def test_lost_add_whose_resend_says_duplicate_is_in_doubt(kraft: FakeCluster) -> None:
    kraft.drop_connection(None, "AddRaftVoter", when="after", count=1)
    with pytest.raises(KafkaTimeoutError) as caught:
        run(kraft, lambda a: a.add_raft_voter(2, directory_id(2), ["C://h:1"], timeout=5))
    assert caught.value.possibly_applied
    assert kraft.count(ApiKey.ADD_RAFT_VOTER) >= 2


# --- unregister ---------------------------------------------------------------------------------------------


def test_unregister_broker(kraft: FakeCluster) -> None:
    assert run(kraft, lambda a: a.unregister_broker(4)) is None
    with pytest.raises(BrokerIdNotRegisteredError):
        run(kraft, lambda a: a.unregister_broker(99))


def test_lost_unregister_is_possibly_applied(kraft: FakeCluster) -> None:
    kraft.drop_connection(None, "UnregisterBroker", when="after", count=10)
    with pytest.raises(KafkaTimeoutError) as caught:
        run(kraft, lambda a: a.unregister_broker(4, timeout=3))
    assert caught.value.possibly_applied


def test_quorum_info_lag_time_without_times() -> None:
    info = QuorumInfo(1, 1, 10, (), ())
    assert info.max_follower_lag == 0 and info.max_follower_lag_time_ms(0) == 0


def test_lost_remove_whose_resend_says_not_found_is_in_doubt(kraft: FakeCluster) -> None:
    kraft.set_quorum_voters([1, 2])
    kraft.drop_connection(None, "RemoveRaftVoter", when="after", count=1)
    with pytest.raises(KafkaTimeoutError) as caught:
        run(kraft, lambda a: a.remove_raft_voter(2, directory_id(2), timeout=5))
    assert caught.value.possibly_applied
    assert kraft.quorum_voters() == {1: directory_id(1)}  # it was in fact applied
    assert kraft.count(ApiKey.REMOVE_RAFT_VOTER) >= 2
