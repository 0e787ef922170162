"""Streams groups (KIP-1071) and groups of every type (KIP-1043) on the fake's 4.1/4.2/4.3 presets and on a
mixed 3.9 + 4.3 cluster: describe_streams_groups, their offsets and deletion through the consumer-group APIs,
list_groups' type and state filters, describe_classic_groups.  The request log says what went over the wire.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from kadmin.aio import AdminClient
from kadmin.errors import GroupIdNotFoundError, NonEmptyGroupError, UnsupportedVersionError
from kadmin.streams_groups import StreamsGroupDescription, StreamsTasks
from kadmin.testing import FakeCluster
from kadmin.types import GroupDescription, OffsetAndMetadata, TopicPartition

pytestmark = pytest.mark.timeout(60)

STREAMS_GROUP_DESCRIBE, LIST_GROUPS, DELETE_GROUPS, OFFSET_FETCH = 89, 16, 42, 9

APP_MEMBERS = [
    {"member_id": "m1", "process_id": "p1", "client_id": "app-1", "user_endpoint": ("app-host", 8080),
     "client_tags": {"zone": "a"}, "active": {"0": [0, 1]}, "standby": {"1": [0]}, "topology_epoch": 2},
    {"member_id": "m2", "process_id": "p2", "active": {"1": [0]}, "warmup": {"0": [1]}, "topology_epoch": 2},
]
APP_TOPOLOGY = [
    {"subtopology_id": "0", "source_topics": ["clicks"], "repartition_sink_topics": ["app-rep"],
     "state_changelog_topics": [{"name": "app-store-changelog", "partitions": 2, "replication_factor": 3,
                                 "configs": {"cleanup.policy": "compact"}}]},
    {"subtopology_id": "1", "repartition_source_topics": [{"name": "app-rep", "partitions": 2}]},
]


def _seed(c: FakeCluster) -> None:
    c.add_topic("clicks", 2)
    c.add_streams_group("app", members=APP_MEMBERS, subtopologies=APP_TOPOLOGY, topology_epoch=2, group_epoch=5)
    c.add_streams_group("idle-app", subtopologies=APP_TOPOLOGY[:1])
    c.add_group("classic-g")
    c.add_group("kip848-g", group_type="consumer", members=[{"member_id": "c1", "assigned": [("clicks", 0)]}])
    c.add_group("sharers", group_type="share")
    c.commit("app", "clicks", 0, 40)
    c.commit("app", "clicks", 1, 41)


def _run(coro: Any) -> Any:
    return asyncio.run(coro)


async def _with(c: FakeCluster, fn: Any) -> Any:
    async with AdminClient(c.bootstrap, default_timeout_s=10, retry_backoff_s=0.05) as admin:
        return await fn(admin)


@pytest.fixture(scope="module", params=["4.2", "4.3"])
def cluster(request: pytest.FixtureRequest) -> Iterator[FakeCluster]:
    with FakeCluster(brokers=3, versions=request.param) as c:
        _seed(c)
        yield c


def test_describe_streams_group_members_topology_and_tasks(cluster: FakeCluster) -> None:
    cluster.clear_log()
    got = _run(_with(cluster, lambda a: a.describe_streams_groups(["app", "idle-app", "classic-g", "missing"])))
    app = got["app"]
    assert isinstance(app, StreamsGroupDescription)
    assert (app.state, app.group_epoch, app.target_assignment_epoch, app.topology_epoch) == ("Stable", 5, 5, 2)
    assert app.coordinator == cluster.coordinator_of("app")
    assert [s.subtopology_id for s in app.subtopologies or ()] == ["0", "1"]
    sub0 = (app.subtopologies or ())[0]
    assert sub0.source_topics == ("clicks",) and sub0.repartition_sink_topics == ("app-rep",)
    changelog = sub0.state_changelog_topics[0]
    assert (changelog.name, changelog.partitions, changelog.replication_factor) == ("app-store-changelog", 2, 3)
    assert changelog.configs == {"cleanup.policy": "compact"}
    m1, m2 = sorted(app.members, key=lambda m: m.member_id)
    assert m1.assignment.active_tasks == (StreamsTasks("0", (0, 1)),)
    assert m1.assignment.standby_tasks == (StreamsTasks("1", (0,)),)
    assert m1.user_endpoint == ("app-host", 8080) and m1.client_tags == {"zone": "a"} and m1.process_id == "p1"
    assert m2.assignment.warmup_tasks == (StreamsTasks("0", (1,)),) and m2.topology_epoch == 2
    idle = got["idle-app"]
    assert isinstance(idle, StreamsGroupDescription) and idle.state == "Empty" and idle.is_empty
    # A group of another type, and no group: GROUP_ID_NOT_FOUND, as Kafka answers both.
    assert isinstance(got["classic-g"], GroupIdNotFoundError) and "not a streams group" in str(got["classic-g"])
    assert isinstance(got["missing"], GroupIdNotFoundError)
    assert cluster.count(STREAMS_GROUP_DESCRIBE) >= 1
    with_ops = _run(_with(cluster, lambda a: a.describe_streams_groups(["app"], include_authorized_operations=True)))
    assert isinstance(with_ops["app"], StreamsGroupDescription)
    assert {"DESCRIBE", "DELETE", "READ"} <= (with_ops["app"].authorized_operations or set())
    assert app.authorized_operations is None


def test_streams_group_offsets_and_delete_through_group_apis(cluster: FakeCluster) -> None:
    cluster.add_streams_group("to-delete")
    cluster.commit("to-delete", "clicks", 0, 7)
    got = _run(_with(cluster, lambda a: a.list_streams_group_offsets(["app", "idle-app", "missing"])))
    assert got["app"] == {TopicPartition("clicks", 0): OffsetAndMetadata(40, "", None),
                          TopicPartition("clicks", 1): OffsetAndMetadata(41, "", None)}
    assert got["idle-app"] == {}  # a streams group with nothing committed yet: not "missing"
    assert isinstance(got["missing"], GroupIdNotFoundError)
    cluster.clear_log()
    deleted = _run(_with(cluster, lambda a: a.delete_streams_groups(["to-delete", "app"])))
    assert deleted["to-delete"] is None and "to-delete" not in cluster.groups
    assert isinstance(deleted["app"], NonEmptyGroupError) and "app" in cluster.groups
    assert cluster.count(DELETE_GROUPS) >= 1


def test_list_groups_by_type_and_state(cluster: FakeCluster) -> None:
    async def calls(a: AdminClient) -> Any:
        return (await a.list_groups(), await a.list_groups(types=["STREAMS"]),
                await a.list_groups(types=["streams", "consumer"], states=["stable"]),
                await a.list_groups(types=["classic"]))
    every, streams, stable, classic = _run(_with(cluster, calls))
    types = {g.group_id: g.group_type for g in every.groups}
    assert {"app": "streams", "idle-app": "streams", "classic-g": "classic", "kip848-g": "consumer",
            "sharers": "share"}.items() <= types.items()
    assert streams.group_ids() == ["app", "idle-app"] and streams.complete
    assert stable.group_ids() == ["app", "kip848-g"]
    assert classic.group_ids() == ["classic-g"]
    shared = _run(_with(cluster, lambda a: a.list_groups(types=["share", "classic"])))
    assert shared.group_ids() == ["classic-g", "sharers"]
    sent = [e for e in cluster.request_log if e.api_key == LIST_GROUPS]
    assert sent and all(e.version == 5 for e in sent)


def test_describe_classic_groups_only_classic(cluster: FakeCluster) -> None:
    got = _run(_with(cluster, lambda a: a.describe_classic_groups(["classic-g", "kip848-g", "app"])))
    assert isinstance(got["classic-g"], GroupDescription) and got["classic-g"].group_type == "classic"
    assert isinstance(got["kip848-g"], GroupIdNotFoundError)
    assert isinstance(got["app"], GroupIdNotFoundError)


@pytest.mark.parametrize("bad, match", [(["streams", "bogus"], "unknown group type 'bogus'; one of classic, "
                                                                "consumer, share, streams"),
                                        (["Stable2"], "unknown group state")])
def test_unknown_type_or_state_refused_before_io(bad: list[str], match: str) -> None:
    with FakeCluster(brokers=1, versions="4.3") as c:
        kwargs = {"types": bad} if "streams" in bad else {"states": bad}
        with pytest.raises(ValueError, match=match):
            _run(_with(c, lambda a: a.list_groups(**kwargs)))
        assert c.count(LIST_GROUPS) == 0


def test_streams_groups_absent_from_4_1_preset() -> None:
    """4.1 has streams groups as early access only (no key 89 advertised): each group is refused unsent."""
    with FakeCluster(brokers=1, versions="4.1") as c:
        c.add_streams_group("app")
        got = _run(_with(c, lambda a: a.describe_streams_groups(["app"])))
        assert isinstance(got["app"], UnsupportedVersionError)
        assert c.count(STREAMS_GROUP_DESCRIBE) == 0
        listed = _run(_with(c, lambda a: a.list_groups(types=["streams"])))
        assert listed.group_ids() == ["app"]  # ListGroups v5 lists it all the same


def test_mixed_3_9_and_4_3_cluster() -> None:
    """A rolling upgrade: groups coordinated by the 3.9 broker are refused per group, unsent; the 4.3 brokers'
    groups are described; list_groups with a type filter works on every broker (ListGroups v5 is 3.8+)."""
    with FakeCluster(brokers=3, versions={1: "3.9", 2: "4.3", 3: "4.3"}) as c:
        c.add_streams_group("on-old")
        c.add_streams_group("on-new", members=APP_MEMBERS[:1], subtopologies=APP_TOPOLOGY)
        c.move_coordinator("on-old", 1)
        c.move_coordinator("on-new", 2)
        got = _run(_with(c, lambda a: a.describe_streams_groups(["on-old", "on-new"])))
        assert isinstance(got["on-old"], UnsupportedVersionError)
        assert isinstance(got["on-new"], StreamsGroupDescription) and len(got["on-new"].members) == 1
        assert {e.node_id for e in c.request_log if e.api_key == STREAMS_GROUP_DESCRIBE} == {2}
        listed = _run(_with(c, lambda a: a.list_groups(types=["streams"])))
        assert listed.group_ids() == ["on-new", "on-old"] and listed.complete


def test_a_streams_group_delete_whose_answer_is_lost_is_possibly_applied() -> None:
    """Chaos invariant for the write: the broker deletes, the answer is lost, the resend finds no group; the
    delete is reported in doubt (possibly applied), never as 'not found', and nothing else is lost."""
    from kadmin.errors import KafkaTimeoutError

    with FakeCluster(brokers=3, versions="4.3") as c:
        c.add_streams_group("gone-app")
        c.add_streams_group("kept-app", members=APP_MEMBERS[:1], subtopologies=APP_TOPOLOGY)
        c.drop_connection(None, DELETE_GROUPS, when="after")
        got = _run(_with(c, lambda a: a.delete_streams_groups(["gone-app", "kept-app"], timeout=5.0)))
        dropped = [e for e in c.request_log if e.api_key == DELETE_GROUPS]
        # Whichever request lost its answer: its groups are in doubt, the other's answered as they are.
        for gid in ("gone-app", "kept-app"):
            r = got[gid]
            if isinstance(r, KafkaTimeoutError):
                assert r.possibly_applied, r
            elif gid == "gone-app":
                assert r is None
            else:
                assert isinstance(r, NonEmptyGroupError)
        assert "gone-app" not in c.groups and "kept-app" in c.groups
        assert dropped


def test_describe_consumer_groups_points_a_streams_group_to_its_call(cluster: FakeCluster) -> None:
    async def calls(a: AdminClient) -> Any:
        await a.list_groups()  # learns the groups' types
        return await a.describe_consumer_groups(["app"])
    got = _run(_with(cluster, calls))["app"]
    assert isinstance(got, GroupIdNotFoundError)
    assert "is a streams group" in str(got) and "describe_streams_groups" in str(got)
