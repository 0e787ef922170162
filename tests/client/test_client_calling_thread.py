"""The sync AdminClient reads a caller's iterables and mappings on the calling thread (issue #24).

The loop thread serves every thread of the caller; it must never run the caller's code (a generator passed as
an argument) nor read a list or dict the caller may be changing.  Each generated method copies its arguments
(kadmin._sync_base.copied) before the async method runs.  Here every sync method that takes an iterable or
mapping argument gets a generator (or a mapping that records its reads) for each such argument, against a
FakeCluster, and every read must happen on the calling thread.  The methods are enumerated from the class: a
new method with an iterable argument and no case here fails the coverage test.
"""

from __future__ import annotations

import inspect
import re
import threading
import types
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping
from typing import Any

import pytest

from kadmin._sync_base import copied
from kadmin.acls import AclBinding, AclBindingFilter, AclListing
from kadmin.client import AdminClient
from kadmin.configs import ConfigResource, SetConfig
from kadmin.errors import KafkaError
from kadmin.features import FeatureUpdate
from kadmin.quotas import ClientQuotaAlteration, ClientQuotaEntity, Set
from kadmin.scram import ScramUpsertion
from kadmin.testing import FakeCluster
from kadmin.topics import NewTopic
from kadmin.transactions import AbortTransactionSpec
from kadmin.types import TopicPartition

CLUSTER = pytest.mark.fake_cluster(brokers=1, authorizer={"super_users": ["User:ANONYMOUS"]},
                                   delegation_tokens=True)


class Probe:
    """Generators and mappings that note the thread of every read of theirs."""

    def __init__(self) -> None:
        self.reads: list[int] = []
        self.unfinished = 0

    def gen(self, items: Iterable[Any]) -> Iterator[Any]:
        def run() -> Iterator[Any]:
            self.unfinished += 1
            for item in items:
                self.reads.append(threading.get_ident())
                yield item
            self.reads.append(threading.get_ident())
            self.unfinished -= 1

        return run()

    def mapping(self, items: Mapping[Any, Any]) -> Mapping[Any, Any]:
        return RecordingMapping(dict(items), self.reads)


class RecordingMapping(Mapping[Any, Any]):
    def __init__(self, items: dict[Any, Any], reads: list[int]) -> None:
        self._items = items
        self._reads = reads

    def __getitem__(self, key: Any) -> Any:
        self._reads.append(threading.get_ident())
        return self._items[key]

    def __iter__(self) -> Iterator[Any]:
        self._reads.append(threading.get_ident())
        return iter(self._items)

    def __len__(self) -> int:
        self._reads.append(threading.get_ident())
        return len(self._items)


def _alteration() -> ClientQuotaAlteration:
    return ClientQuotaAlteration(ClientQuotaEntity({"user": "alice"}), [Set("producer_byte_rate", 1024.0)])


Call = Callable[[Probe], tuple[tuple[Any, ...], dict[str, Any]]]


def call(*args: Any, **kwargs: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
    return args, kwargs


#: One valid call per method, with a probe in the place of every iterable or mapping argument.
CASES: dict[str, Call] = {
    "find_coordinators": lambda p: call(p.gen(["g"])),
    "describe_consumer_groups": lambda p: call(p.gen(["g"])),
    "describe_share_groups": lambda p: call(p.gen(["g"])),
    "alter_consumer_group_offsets": lambda p: call("g", p.mapping({("t", 0): 3})),
    "reset_consumer_group_offsets": lambda p: call("g", p.gen(["t"]), "earliest"),
    "delete_consumer_group_offsets": lambda p: call("g", p.gen([("t", 0)])),
    "remove_members_from_consumer_group": lambda p: call("g", p.gen(["member-1"])),
    "delete_consumer_groups": lambda p: call(p.gen(["g"])),
    "list_consumer_group_offsets": lambda p: call(p.gen(["g"]), p.gen([("t", 0)])),
    "list_consumer_groups": lambda p: call(states=p.gen(["Empty"]), types=p.gen(["classic"])),
    "list_groups": lambda p: call(types=p.gen(["streams"]), states=p.gen(["Empty"])),
    "describe_classic_groups": lambda p: call(p.gen(["g"])),
    "describe_streams_groups": lambda p: call(p.gen(["g"])),
    "list_streams_group_offsets": lambda p: call(p.gen(["g"])),
    "delete_streams_groups": lambda p: call(p.gen(["g"])),
    "list_config_resources": lambda p: call(p.gen(["topics"])),
    "consumer_group_lag": lambda p: call(p.gen(["g"])),
    "list_offsets": lambda p: call(p.mapping({("t", 0): "latest", TopicPartition("t", 1): "earliest"})),
    "delete_records": lambda p: call(p.mapping({("t", 0): 1})),
    "describe_log_dirs": lambda p: call(p.gen([1]), partitions=p.gen([("t", 0)])),
    "topic_sizes": lambda p: call(p.gen(["t"])),
    "elect_leaders": lambda p: call("preferred", p.gen([("t", 0)])),
    # the mapping's values are the caller's iterables too
    "alter_partition_reassignments": lambda p: call(p.mapping({("t", 0): p.gen([1]), ("t", 1): None})),
    "list_partition_reassignments": lambda p: call(p.gen([("t", 0)])),
    "describe_topics": lambda p: call(p.gen(["t"])),
    "create_topics": lambda p: call(p.gen([NewTopic("new", 1, 1)])),
    "delete_topics": lambda p: call(p.gen(["t"])),
    "create_partitions": lambda p: call(p.mapping({"t": 3})),
    "describe_configs": lambda p: call(p.gen([ConfigResource.topic("t")])),
    "alter_configs": lambda p: call(p.mapping({ConfigResource.topic("t"): [SetConfig("segment.ms", "9")]})),
    "alter_client_quotas": lambda p: call(p.gen([_alteration()])),
    "create_acls": lambda p: call(p.gen([AclBinding.of("topic", "t", "User:alice", "read")])),
    "delete_acls": lambda p: call(p.gen([AclBindingFilter.all()])),
    "describe_user_scram_credentials": lambda p: call(p.gen(["bob"])),
    "alter_user_scram_credentials": lambda p: call(p.gen([ScramUpsertion("bob", "SCRAM-SHA-256", "pw")])),
    "create_delegation_token": lambda p: call(renewers=p.gen(["User:bob"])),
    "describe_delegation_tokens": lambda p: call(p.gen(["User:bob"])),
    "update_features": lambda p: call(p.mapping({"metadata.version": FeatureUpdate(21)}), validate_only=True),
    "add_raft_voter": lambda p: call(3000, "f3feKK4KQ8ahxv70POUcCQ", p.gen(["CONTROLLER://localhost:9093"])),
    "alter_replica_log_dirs": lambda p: call(p.mapping({("t", 0, 1): "/var/lib/kafka/data-2"})),
    "describe_replica_log_dirs": lambda p: call(p.gen([("t", 0, 1)])),
    "describe_producers": lambda p: call(p.gen([("t", 0)])),
    "list_transactions": lambda p: call(states=p.gen(["Ongoing"]), producer_ids=p.gen([1])),
    "describe_transactions": lambda p: call(p.gen(["tx"])),
    "abort_transaction": lambda p: call(p.gen([AbortTransactionSpec(TopicPartition("t", 0), 1, 0, 0)])),
    "fence_producers": lambda p: call(p.gen(["tx"])),
    # --- share groups (KIP-932; issue #25)
    "list_share_group_offsets": lambda p: call(p.gen(["g"]), p.gen([("t", 0)])),
    "alter_share_group_offsets": lambda p: call("g", p.mapping({("t", 0): 3})),
    "reset_share_group_offsets": lambda p: call("g", p.gen(["t"]), "earliest"),
    "delete_share_group_offsets": lambda p: call("g", p.gen(["t"])),
    "delete_share_groups": lambda p: call(p.gen(["g"])),
}
#: Methods whose iterable arguments exclude each other: one call per argument.
MORE_CASES: dict[str, list[Call]] = {
    "find_hanging_transactions": [lambda p: call(partitions=p.gen([("t", 0)])),
                                  lambda p: call(topics=p.gen(["t"]))],
}
ALL_CASES: list[tuple[str, Call]] = sorted(
    [(n, c) for n, c in CASES.items()] + [(n, c) for n, cs in MORE_CASES.items() for c in cs],
    key=lambda nc: nc[0])

#: Annotations that admit an iterable or a mapping of the caller's.
ITERABLE = re.compile(r"\b(Iterable|Mapping|Sequence|Collection|Iterator|AbstractSet|list|dict|set)\[")


def _public_methods() -> list[str]:
    return sorted(n for n, _ in inspect.getmembers(AdminClient, inspect.isfunction)
                  if not n.startswith("_") and n != "close")


def _iterable_params(name: str) -> set[str]:
    params = inspect.signature(getattr(AdminClient, name)).parameters.values()
    return {p.name for p in params if ITERABLE.search(str(p.annotation))}


def _probed(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> set[str]:
    bound = inspect.signature(getattr(AdminClient, name)).bind(None, *args, **kwargs)
    return {k for k, v in bound.arguments.items() if isinstance(v, (types.GeneratorType, RecordingMapping))}


def test_every_method_with_an_iterable_argument_has_a_case() -> None:
    wanted = {n: _iterable_params(n) for n in _public_methods()}
    assert set(CASES) <= set(wanted), f"cases for methods that do not exist: {set(CASES) - set(wanted)}"
    assert set(MORE_CASES) <= set(wanted), f"cases for methods that do not exist: {set(MORE_CASES) - set(wanted)}"
    missing = {n: params for n, params in wanted.items() if params and n not in CASES and n not in MORE_CASES}
    assert not missing, f"methods taking iterables without a calling-thread case: {missing}"
    probed: dict[str, set[str]] = {}
    for name, make in ALL_CASES:
        args, kwargs = make(Probe())
        probed.setdefault(name, set()).update(_probed(name, args, kwargs))
    for name, seen in probed.items():
        assert seen == wanted[name], f"{name}: probe every iterable argument"
    # the census itself: the 31 methods of issue #24 (12 guarded by hand before, 19 not)
    assert len([n for n in wanted if wanted[n]]) >= 31


@CLUSTER
@pytest.mark.parametrize(("name", "make"), ALL_CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(ALL_CASES)])
def test_a_callers_iterables_are_read_on_the_calling_thread(fake_cluster: FakeCluster, name: str,
                                                             make: Call) -> None:
    fake_cluster.add_topic("t", partitions=2, offsets=[10, 10])
    fake_cluster.add_group("g")
    fake_cluster.commit("g", "t", 0, 5)
    probe = Probe()
    args, kwargs = make(probe)
    with AdminClient(fake_cluster.bootstrap, default_timeout_s=5.0) as admin:
        try:
            getattr(admin, name)(*args, **kwargs)
        except KafkaError:  # the cluster's answer does not matter here; bad input (TypeError, ValueError)
            pass  # would fail the test
    assert probe.reads, "the arguments were never read"
    assert set(probe.reads) == {threading.get_ident()}, "a caller's iterable was read on the loop thread"
    assert probe.unfinished == 0, "a generator was not read to its end on the calling thread"


@CLUSTER
def test_the_probe_sees_the_loop_thread_when_nothing_copies(fake_cluster: FakeCluster) -> None:
    # The check above can fail: handed to the async client as it is, a generator runs on the loop thread.
    fake_cluster.add_topic("t", partitions=1)
    probe = Probe()
    with AdminClient(fake_cluster.bootstrap, default_timeout_s=5.0) as admin:
        admin._call(admin._aio.describe_topics(probe.gen(["t"])), None)
        assert set(probe.reads) == {admin._thread.ident}
    assert threading.get_ident() not in probe.reads


def test_what_copied_copies() -> None:
    gen: Any = (x for x in [1, 2])
    assert copied(gen) == [1, 2]
    listed = [1, 2]
    assert copied(listed) == listed and copied(listed) is not listed
    some = {1, 2}
    assert copied(some) == some and copied(some) is not some
    values = {"a": (x for x in [1]), "b": [2], "c": None}
    out = copied(values)
    assert out == {"a": [1], "b": [2], "c": None} and out["b"] is not values["b"]
    # one value, never a collection to read: as it is
    tp, entity, listing = ("t", 0), ClientQuotaEntity({"user": "a"}), AclListing(())
    for value in ("text", b"bytes", bytearray(b"x"), 5, 1.5, None, tp, frozenset({1}), entity, listing,
                  AclBindingFilter.all(), TopicPartition("t", 0)):
        assert copied(value) is value


@CLUSTER
def test_an_async_generator_is_iterated_and_closed_on_the_loop_thread(fake_cluster: FakeCluster) -> None:
    # What the generator writes for an async-generator method of aio.py (none yet): a sync iterator whose
    # items are awaited on the loop thread, closed there when the caller stops early.
    seen: list[int] = []
    closed: list[int] = []

    async def numbers() -> AsyncIterator[int]:
        try:
            for i in range(3):
                seen.append(threading.get_ident())
                yield i
        finally:
            closed.append(threading.get_ident())

    with AdminClient(fake_cluster.bootstrap, default_timeout_s=5.0) as admin:
        loop_thread = admin._thread.ident
        assert list(admin._iterate(numbers(), 5.0)) == [0, 1, 2]
        assert set(seen) == set(closed) == {loop_thread}
        seen.clear()
        closed.clear()
        it = admin._iterate(numbers(), 5.0)
        assert next(it) == 0
        it.close()
        assert closed == [loop_thread]
