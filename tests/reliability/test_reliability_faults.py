"""One fault at a time, deterministic: the bugs the chaos test found, each pinned by a scenario of its own.

Each test sets up exactly the interleaving that broke a promise (a deadline, an honest "done", a call
that was not cancelled failing anyway) and checks the promise over real sockets against FakeCluster.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from kadmin.aio import AdminClient
from kadmin.errors import KafkaTimeoutError
from kadmin.quotas import ClientQuotaAlteration, ClientQuotaEntity, Set
from kadmin.testing import FakeCluster
from kadmin.types import GroupDescription
from tests.support.aio import run
from tests.support.reliability_util import FAST

FIND_COORDINATOR, DELETE_GROUPS, ALTER_QUOTAS, API_VERSIONS = 10, 42, 49, 18
NOT_CONTROLLER = 41
MARGIN_S = 0.4


pytestmark = pytest.mark.fake_cluster(brokers=3)


@pytest.fixture
def cluster(fake_cluster: FakeCluster) -> FakeCluster:
    c = fake_cluster
    c.add_group("g")
    return c


async def timed(coro: Any) -> tuple[float, Any]:
    start = time.monotonic()
    res = await coro
    return time.monotonic() - start, res


@pytest.mark.timeout(30)
def test_a_short_call_sharing_a_slow_coordinator_lookup_keeps_its_own_deadline(cluster: FakeCluster) -> None:
    # Two calls need the same coordinator; lookups are shared.  The short call must not wait for the
    # long call's lookup past its own deadline, and the long one must still get the answer.
    cluster.delay(None, FIND_COORDINATOR, 2.0)

    async def main() -> None:
        async with AdminClient(cluster.bootstrap, **(FAST | {"request_timeout_s": 5.0})) as admin:
            long = asyncio.create_task(timed(admin.describe_consumer_groups(["g"], timeout=8.0)))
            await asyncio.sleep(0.1)
            elapsed, res = await timed(admin.describe_consumer_groups(["g"], timeout=0.5))
            assert elapsed < 0.5 + MARGIN_S, elapsed
            assert isinstance(res["g"], KafkaTimeoutError)
            elapsed, res = await long
            assert isinstance(res["g"], GroupDescription) and 1.8 < elapsed < 4.0, (elapsed, res)
            assert cluster.count(FIND_COORDINATOR) == 1  # still one shared lookup

    run(main())


@pytest.mark.timeout(30)
def test_cancelling_the_call_that_owns_a_shared_lookup_does_not_fail_the_others(cluster: FakeCluster) -> None:
    cluster.delay(None, FIND_COORDINATOR, 0.5)

    async def main() -> None:
        async with AdminClient(cluster.bootstrap, **FAST) as admin:
            owner = asyncio.create_task(admin.describe_consumer_groups(["g"], timeout=5.0))
            await asyncio.sleep(0.1)
            other = asyncio.create_task(admin.describe_consumer_groups(["g"], timeout=5.0))
            await asyncio.sleep(0.1)
            owner.cancel()
            res = await other  # used to raise CancelledError: the owner's cancellation leaked into it
            assert isinstance(res["g"], GroupDescription)
            with pytest.raises(asyncio.CancelledError):
                await owner

    run(main())


@pytest.mark.timeout(30)
def test_a_delete_applied_but_unanswered_is_not_reported_as_not_found(cluster: FakeCluster) -> None:
    # The broker deletes the group and the connection drops before the answer; the resend is answered
    # GROUP_ID_NOT_FOUND.  Reporting that as the result would say "failed" for a delete that was done.
    cluster.drop_connection(None, DELETE_GROUPS, when="after")

    async def main() -> None:
        async with AdminClient(cluster.bootstrap, **FAST) as admin:
            res = await admin.delete_consumer_groups(["g", "never-existed"], timeout=5.0)
            err = res["g"]
            assert isinstance(err, KafkaTimeoutError) and err.possibly_applied, err
            assert "GroupIdNotFoundError" in str(err) and "in doubt" in str(err)
            assert "g" not in cluster.groups
            carrying_g = [e for e in cluster.request_log if e.api_key == DELETE_GROUPS and "g" in e.keys]
            assert len(carrying_g) == 2

    run(main())


@pytest.mark.timeout(30)
def test_an_unanswered_alteration_stays_possibly_applied_after_later_answers(cluster: FakeCluster) -> None:
    # Applied, answer lost; every resend is answered NOT_CONTROLLER until the deadline.  The final timeout
    # must still say possibly_applied: the first send did apply it.
    alice = ClientQuotaEntity({"user": "alice"})
    cluster.delay(None, ALTER_QUOTAS, 0.3)
    cluster.drop_connection(None, ALTER_QUOTAS, when="after")

    async def main() -> None:
        async with AdminClient(cluster.bootstrap, **FAST) as admin:
            call = asyncio.create_task(admin.alter_client_quotas(
                [ClientQuotaAlteration(alice, [Set("producer_byte_rate", 5.0)])], timeout=1.5))
            # While the broker holds the first request (its faults are already taken), refuse the resends.
            loop = asyncio.get_running_loop()
            assert await loop.run_in_executor(None, cluster.wait_for_requests, 1, ALTER_QUOTAS)
            cluster.inject(None, ALTER_QUOTAS, NOT_CONTROLLER, count=10_000)
            err = (await call)[alice]
            assert isinstance(err, KafkaTimeoutError) and err.possibly_applied, err
            assert cluster.count(ALTER_QUOTAS) >= 2  # it was answered (NOT_CONTROLLER) after the drop

    run(main())
    assert cluster.quotas == {(("user", "alice"),): {"producer_byte_rate": 5.0}}


@pytest.mark.timeout(30)
def test_connecting_to_a_slow_coordinator_stops_at_the_calls_deadline(cluster: FakeCluster) -> None:
    # The coordinator is a node the client has not connected to yet, and it is slow to answer ApiVersions.
    # Negotiating with it used to be bounded by default_timeout_s instead of the call's deadline.
    async def main() -> None:
        async with AdminClient(cluster.bootstrap, **(FAST | {"request_timeout_s": 5.0})) as admin:
            connected = {n for n in cluster.node_ids if admin.net.connection(n) is not None}
            target = next(n for n in cluster.node_ids if n not in connected)
            cluster.move_coordinator("g", target)
            cluster.delay(target, API_VERSIONS, 3.0)
            elapsed, res = await timed(admin.describe_consumer_groups(["g"], timeout=0.6))
            assert isinstance(res["g"], KafkaTimeoutError), res
            assert elapsed < 0.6 + MARGIN_S, elapsed

    run(main())
