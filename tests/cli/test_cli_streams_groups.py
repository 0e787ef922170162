"""``kadmin streams-groups list|describe|delete`` against the fake's 4.3 preset (in-process main())."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from kadmin.testing import FakeCluster, StreamsMember, StreamsTopic, Subtopology
from tests.support.cli import run_main

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(scope="module")
def cluster() -> Iterator[FakeCluster]:
    with FakeCluster(brokers=2, versions="4.3") as c:
        c.add_topic("clicks", 2)
        # Seeded with the dataclasses here (the library test seeds with dicts).
        c.add_streams_group("app", members=[StreamsMember("m1", process_id="proc-1", active={"0": (0, 1)},
                                                          standby={"0": (1,)})],
                            subtopologies=[Subtopology("0", source_topics=("clicks",),
                                                       state_changelog_topics=(StreamsTopic("app-counts-changelog"),))],
                            topology_epoch=1)
        c.add_streams_group("done-app")
        c.add_group("classic-g")
        c.commit("app", "clicks", 0, 12)
        yield c


def test_list_shows_only_streams_groups(cluster: FakeCluster) -> None:
    r = run_main("streams-groups", "list", "--bootstrap-server", cluster.bootstrap, "-o", "json")
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert [(g["group_id"], g["state"]) for g in doc["groups"]] == [("app", "Stable"), ("done-app", "Empty")]
    r = run_main("streams-groups", "list", "--bootstrap-server", cluster.bootstrap, "--state", "empty")
    assert r.code == 0 and "done-app" in r.out and "app " not in r.out.replace("done-app", "")


def test_describe_members_offsets_topology(cluster: FakeCluster) -> None:
    r = run_main("streams-groups", "describe", "app", "classic-g", "--members", "--offsets", "--topology",
                 "--bootstrap-server", cluster.bootstrap)
    assert r.code == 1  # classic-g is not a streams group
    assert "proc-1" in r.out and "0:0,1" in r.out and "app-counts-changelog" in r.out
    assert "clicks" in r.out and "12" in r.out
    assert "classic-g" in r.err and "not a streams group" in r.err
    r = run_main("streams-groups", "describe", "app", "--offsets", "--bootstrap-server", cluster.bootstrap,
                 "-o", "json")
    doc = json.loads(r.out)["groups"][0]
    assert doc["members"][0]["assignment"]["standby"] == [{"subtopology_id": "0", "partitions": [1]}]
    assert doc["offsets"] == [{"topic": "clicks", "partition": 0, "offset": 12}]


def test_delete_empty_only(cluster: FakeCluster) -> None:
    r = run_main("streams-groups", "delete", "done-app", "app", "--bootstrap-server", cluster.bootstrap)
    assert r.code == 1
    assert "done-app" in r.out and "deleted" in r.out
    assert "app" in r.err and "not empty" in r.err.lower()
    assert "done-app" not in cluster.groups and "app" in cluster.groups


def test_unknown_state_is_a_usage_error_before_io(cluster: FakeCluster) -> None:
    cluster.clear_log()
    r = run_main("streams-groups", "list", "--state", "Rebalancing", "--bootstrap-server", cluster.bootstrap)
    assert r.code == 2 and "NotReady" in r.err
    assert cluster.count() == 0
