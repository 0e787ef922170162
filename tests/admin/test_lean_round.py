"""The small calls' lean path (issue #28): a call whose keys all go to one node whose connection is ready takes
its first round at once, and the usual rounds still take over for everything the lean round cannot settle.

Checked on a FakeCluster: which round ran (the usual ``round`` is watched), that the answers and the per-key,
possibly-applied and deadline rules are the same as on the usual path, and what ``NetworkClient.ready`` and a
lookup's ``ready`` say when the lean round must not run.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import pytest

from kadmin import aio
from kadmin.admin import _driver
from kadmin.admin.lookups import AnyNode, NodeSpeaking
from kadmin.configs import ConfigResource, SetConfig
from kadmin.errors import ErrorCode, KafkaTimeoutError, NotControllerError
from kadmin.network.retry import Deadline
from kadmin.protocol.apis import ApiKey
from kadmin.testing import FakeCluster
from tests.support.settings import FAST


@pytest.fixture
def cluster() -> Iterator[FakeCluster]:
    with FakeCluster(brokers=1, versions="3.9") as c:
        c.add_topic("t", 1, replication_factor=1)
        yield c


class _Rounds:
    """Counts the usual rounds (``_Run.round``) and the lean ones (``_Run.lean_round``) of every call."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.usual = 0
        self.lean = 0
        usual, lean = _driver._Run.round, _driver._Run.lean_round

        async def counted_usual(run: Any) -> None:
            self.usual += 1
            await usual(run)

        async def counted_lean(run: Any, *a: Any) -> None:
            self.lean += 1
            await lean(run, *a)

        monkeypatch.setattr(_driver._Run, "round", counted_usual)
        monkeypatch.setattr(_driver._Run, "lean_round", counted_lean)


def _run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_a_ready_single_node_call_takes_the_lean_round_alone(cluster: FakeCluster,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    async def go() -> tuple[Any, Any, Any]:
        async with aio.AdminClient(cluster.bootstrap, **FAST) as a:
            await a.describe_cluster()  # connects: the first call may need the usual path
            rounds = _Rounds(monkeypatch)
            cluster.clear_log()
            desc = await a.describe_cluster()
            listed = await a.list_topics()
            configs = await a.describe_configs([ConfigResource.topic("t")])
            assert (rounds.lean, rounds.usual) == (3, 0)
            return desc, listed, configs

    desc, listed, configs = _run(go())
    assert [n.node_id for n in desc.nodes] == cluster.node_ids
    assert [t.name for t in listed] == ["t"]
    assert "retention.ms" in configs[ConfigResource.topic("t")]
    # One request per call, as on the usual path.
    assert [e.api_key for e in cluster.request_log] == [ApiKey.DESCRIBE_CLUSTER, ApiKey.METADATA,
                                                         ApiKey.DESCRIBE_CONFIGS]


def test_a_key_the_lean_round_leaves_pending_goes_on_to_the_usual_rounds(cluster: FakeCluster,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    async def go() -> Any:
        async with aio.AdminClient(cluster.bootstrap, **FAST) as a:
            await a.describe_cluster()
            rounds = _Rounds(monkeypatch)
            cluster.inject(None, ApiKey.DESCRIBE_CONFIGS, ErrorCode.NOT_CONTROLLER)  # retriable, once
            started = time.monotonic()
            got = await a.describe_configs([ConfigResource.topic("t")])
            took = time.monotonic() - started
            assert (rounds.lean, rounds.usual) == (1, 1)
            # The usual round came after the first backoff (retry_backoff_s, +-20% jitter), as after any
            # first round that left keys pending.
            assert took >= FAST["retry_backoff_s"] * 0.8
            return got

    got = _run(go())
    assert "retention.ms" in got[ConfigResource.topic("t")]


def test_a_final_error_of_the_lean_round_is_the_keys_answer(cluster: FakeCluster,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    async def go() -> Any:
        async with aio.AdminClient(cluster.bootstrap, **FAST) as a:
            await a.describe_cluster()
            rounds = _Rounds(monkeypatch)
            got = await a.describe_configs([ConfigResource.topic("missing")])
            assert (rounds.lean, rounds.usual) == (1, 0)
            return got

    got = _run(go())
    err = got[ConfigResource.topic("missing")]
    assert getattr(err, "code", None) == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION


def test_an_unanswered_write_of_the_lean_round_is_possibly_applied(cluster: FakeCluster,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    async def go() -> Any:
        async with aio.AdminClient(cluster.bootstrap, **FAST) as a:
            await a.describe_cluster()
            rounds = _Rounds(monkeypatch)
            cluster.delay(None, ApiKey.INCREMENTAL_ALTER_CONFIGS, 2.0)
            got = await a.alter_configs({ConfigResource.topic("t"): [SetConfig("retention.ms", "1000")]},
                                        timeout=0.5)
            assert rounds.lean == 1
            return got

    err = _run(go())[ConfigResource.topic("t")]
    assert isinstance(err, KafkaTimeoutError) and err.possibly_applied


def test_no_lean_round_once_the_deadline_has_passed(cluster: FakeCluster) -> None:
    async def go() -> tuple[Any, Any]:
        async with aio.AdminClient(cluster.bootstrap, **FAST) as a:
            await a.describe_cluster()
            plans = []
            for deadline in (Deadline(5.0), Deadline(0.0)):
                op: _driver.Operation[str] = _driver.Operation()
                op.lookup = AnyNode()
                plans.append(_driver._Run(a._ctx, op, ["k"], deadline).lean_plan())
            return plans[0], plans[1]

    in_time, expired = _run(go())
    assert in_time is not None and in_time[0] == cluster.node_ids[0]
    assert expired is None  # the usual path times the call out without sending


def test_network_ready_only_for_a_connected_known_node_of_an_open_client(cluster: FakeCluster) -> None:
    async def go() -> None:
        a = aio.AdminClient(cluster.bootstrap, **FAST)
        [node] = cluster.node_ids
        assert a.net.ready(node) is None  # not started: no metadata
        await a.start()
        await a.describe_cluster()
        got = a.net.ready(node)
        assert got is not None and got[0] is a.net.connection(node) and not got[0].closed
        assert got[1].usable(ApiKey.DESCRIBE_CLUSTER, a.config) is not None
        assert a.net.ready(node + 100) is None  # not in the metadata
        a.net._stale = True
        assert a.net.ready(node) is None  # a refresh is due first: the usual path does it
        a.net._stale = False
        await a.close()
        assert a.net.ready(node) is None

    _run(go())


def test_node_speaking_is_ready_only_for_a_node_that_speaks_the_api(cluster: FakeCluster) -> None:
    async def go() -> tuple[int | None, int | None]:
        async with aio.AdminClient(cluster.bootstrap, **FAST) as a:
            await a.describe_cluster()
            speaking: NodeSpeaking[str] = NodeSpeaking(ApiKey.DESCRIBE_CONFIGS)
            # An API the fake's 3.9 brokers do not advertise (KIP-1071 streams groups came with 4.1).
            silent: NodeSpeaking[str] = NodeSpeaking(ApiKey.STREAMS_GROUP_DESCRIBE)
            return speaking.ready(a._ctx, ["x"]), silent.ready(a._ctx, ["x"])

    speaks, silent = _run(go())
    assert speaks == cluster.node_ids[0]
    assert silent is None


def test_the_sync_client_hands_each_call_over_once_and_back(cluster: FakeCluster) -> None:
    from kadmin import AdminClient

    with AdminClient(cluster.bootstrap, **FAST) as admin:
        for _ in range(3):  # calls in quick succession: the lane connects (tests/client/test_client_lane.py)
            admin.describe_cluster()
        loop = admin._loop
        scheduled: list[Any] = []
        original = loop.call_soon_threadsafe

        def counted(callback: Any, *args: Any, **kw: Any) -> Any:
            scheduled.append(callback)
            return original(callback, *args, **kw)

        loop.call_soon_threadsafe = counted  # type: ignore[method-assign,assignment]
        try:
            for _ in range(5):
                admin.describe_cluster()
            assert scheduled == []  # on the calling thread's lane (tests/client/test_client_lane.py): none
            admin._lane.eligible = False  # the usual way, which the rest of this test is about
            for _ in range(5):
                admin.describe_cluster()
        finally:
            loop.call_soon_threadsafe = original  # type: ignore[method-assign]
        assert len(scheduled) == 5  # one hand-over per call, and none from the loop thread back
        # An error comes back through the same hand-over, raised on the calling thread.
        cluster.inject(None, ApiKey.DESCRIBE_CLUSTER, ErrorCode.NOT_CONTROLLER, count=1000)
        try:
            with pytest.raises(KafkaTimeoutError) as caught:
                admin.describe_cluster(timeout=0.3)
        finally:
            cluster.clear_faults()
        assert isinstance(caught.value.__cause__, NotControllerError)
