"""The asyncio AdminClient. Each method is one admin operation: lookup, per-version build, per-key fold.

Every method that takes keys returns a dict with one entry per distinct requested key, whose value is the
result or a :class:`kadmin.errors.KafkaError`; one key's failure never raises.  Bad input raises
TypeError/ValueError before any network I/O.  Only failures of the whole call (no broker reachable,
authentication, the client closed) raise.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any, TypeVar, overload

from kadmin import _batching, acls, configs, features, quorum, quotas, scram, storage, tokens, topics
from kadmin import topics as topics_mod
from kadmin import transactions as txn
from kadmin._keys import PartitionKey, ResourceKey, by_caller_key
from kadmin.admin import _driver, _lane, consumer_groups, group_offsets, leaders, log_dirs, records
from kadmin.admin import acls as admin_acls
from kadmin.admin import configs as admin_configs
from kadmin.admin import features as admin_features
from kadmin.admin import quorum as admin_quorum
from kadmin.admin import quotas as admin_quotas
from kadmin.admin import replica_log_dirs as admin_replica_log_dirs
from kadmin.admin import scram as admin_scram
from kadmin.admin import share_groups as admin_share_groups
from kadmin.admin import tokens as admin_tokens
from kadmin.admin import topics as admin_topics
from kadmin.admin import transactions as admin_txn
from kadmin.admin._driver import Context, Operation
from kadmin.admin.cluster import CLUSTER, ApiVersions, ClusterMetadata, DescribeCluster, guess_release
from kadmin.admin.config_resources import ALL_RESOURCES, ListConfigResources, check_resource_types
from kadmin.admin.coordinators import CoordinatorCache, FindCoordinator, key_type_code
from kadmin.admin.groups import (
    DeleteGroups,
    DescribeGroups,
    ListGroups,
    OffsetFetch,
    validate_group_ids,
    validate_group_states,
    validate_group_types,
)
from kadmin.admin.partitions import (
    ListedOffset,
    ListOffsets,
    OffsetSpec,
    check_offset_specs,
    isolation_level_code,
)
from kadmin.admin.streams_groups import RELEASE_ADDING as STREAMS_RELEASE
from kadmin.admin.streams_groups import StreamsGroupDescribe
from kadmin.config import ClientConfig
from kadmin.errors import (
    ErrorCode,
    GroupIdNotFoundError,
    KafkaError,
    UnsupportedVersionError,
)
from kadmin.network.blocking import LaneUnusable
from kadmin.network.client import NetworkClient
from kadmin.network.retry import Deadline, check_timeout
from kadmin.offset_reset import (
    MemberToRemove,
    OffsetResetPlan,
    ResetTo,
    check_offsets,
    check_partition_keys,
    validate_members,
    validate_reset_scope,
)
from kadmin.protocol.apis import ApiKey
from kadmin.replicas import ReplicaLogDirInfo, check_replica_list, check_replica_moves
from kadmin.share_groups import SharePartitionOffset
from kadmin.streams_groups import StreamsGroupDescription
from kadmin.topics import TopicDescription, TopicListing, validate_topic_names
from kadmin.types import (
    ClusterDescription,
    Coordinator,
    GroupDescription,
    GroupListing,
    ListGroupsResult,
    NodeApiVersions,
    OffsetAndMetadata,
    PartitionLag,
    TopicPartition,
)

log = logging.getLogger("kadmin")

K = TypeVar("K", bound=Hashable)
#: A replica as the caller names it: a TopicPartitionReplica or a (topic, partition, broker_id) tuple.
RK = TypeVar("RK", bound=Hashable)


def _config(bootstrap_servers: str | Sequence[str] | None, config: ClientConfig | None,
            kwargs: Mapping[str, Any]) -> ClientConfig:
    if config is not None:
        if bootstrap_servers is not None or kwargs:
            raise TypeError("pass either config=ClientConfig(...) or keyword settings, not both")
        return config
    if bootstrap_servers is None:
        raise TypeError("bootstrap_servers is required (e.g. 'broker1:9092,broker2:9092')")
    return ClientConfig(bootstrap_servers=bootstrap_servers, **kwargs)


class AdminClient:
    """``async with AdminClient("host:9092") as admin: await admin.describe_consumer_groups([...])``.

    Every method reads the same way: validate the input (TypeError/ValueError before any I/O), run one or more
    operations of :mod:`kadmin.admin` through the driver, shape the result."""

    def __init__(self, bootstrap_servers: str | Sequence[str] | None = None, *, config: ClientConfig | None = None,
                 **settings: Any) -> None:
        self.config = _config(bootstrap_servers, config, settings)
        self.net = NetworkClient(self.config)
        self.coordinators = CoordinatorCache(self.net, self.config)
        self._ctx = Context(self.net, self.config, self.coordinators)
        #: Group types ListGroups v5+ reported (group id -> classic/consumer/share/streams).
        self._group_types: dict[str, str] = {}
        self._started = False
        self._start_lock: asyncio.Lock | None = None

    async def __aenter__(self) -> AdminClient:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def start(self, deadline: Deadline | None = None) -> None:
        """Bootstrap (once): metadata from any reachable bootstrap server, within ``deadline`` if given."""
        if self._start_lock is None:
            self._start_lock = asyncio.Lock()
        async with self._start_lock:
            if not self._started:
                await self.net.start(deadline=deadline)
                self._started = True

    async def close(self) -> None:
        await self.net.close()
        self._started = False

    async def _begin(self, timeout: float | None) -> Deadline:
        """The call's deadline, with the client started within it (a started client takes no lock)."""
        checked = check_timeout(timeout)
        deadline = Deadline(checked if checked is not None else self.config.default_timeout_s)
        if not self._started:
            if _lane.LANE.get() is not None:  # on the sync client's calling thread: nothing may be awaited
                raise LaneUnusable("the client has not started")
            await self.start(deadline)
        return deadline

    async def _run(self, op: Operation[K], keys: Iterable[K], deadline: Deadline) -> dict[K, Any]:
        lane = _lane.LANE.get()
        if lane is not None:  # the sync client's lean call (kadmin.admin._lane): one request, not awaited
            return _lane.run_on_lane(self._ctx, op, keys, deadline, lane)
        return await _driver.run(self._ctx, op, keys, deadline)

    # --- cluster -----------------------------------------------------------------------------------------

    async def describe_cluster(self, *, include_authorized_operations: bool = False,
                               include_fenced_brokers: bool = False,
                               timeout: float | None = None) -> ClusterDescription:
        """Nodes, controller and cluster id (DescribeCluster, or Metadata on brokers before Kafka 2.8).

        ``include_authorized_operations``: what the authenticated principal may do on the cluster (needs
        DescribeCluster).  ``include_fenced_brokers`` (KIP-1073): list the brokers the controller has fenced
        too, their ids in ``fenced_brokers``; a node before Kafka 4.0 (DescribeCluster v2) cannot, and the call
        raises UnsupportedVersionError without sending rather than list the live brokers only."""
        if not isinstance(include_authorized_operations, bool):
            raise TypeError("include_authorized_operations must be a bool")
        _check_bool(include_fenced_brokers, "include_fenced_brokers")
        deadline = await self._begin(timeout)
        op = DescribeCluster(include_authorized_operations, include_fenced_brokers)
        got = (await self._run(op, [CLUSTER], deadline))[CLUSTER]
        if isinstance(got, UnsupportedVersionError) and not include_authorized_operations \
                and not include_fenced_brokers:
            got = (await self._run(ClusterMetadata(), [CLUSTER], deadline))[CLUSTER]
        if isinstance(got, KafkaError):
            raise got
        return got  # type: ignore[no-any-return]

    async def api_versions(self, *, timeout: float | None = None) -> dict[int, NodeApiVersions]:
        """Per node: every API the node advertises, its range, ours, and the version we would use."""
        deadline = await self._begin(timeout)
        per_node = await self._run(ApiVersions(self.config), sorted(self.net.nodes), deadline)
        out: dict[int, NodeApiVersions] = {}
        for node_id, res in per_node.items():
            if isinstance(res, KafkaError):
                raise res
            apis, table = res
            out[node_id] = NodeApiVersions(self.net.nodes[node_id], apis, guess_release(table))
        return out

    # --- coordinators ------------------------------------------------------------------------------------

    async def find_coordinators(self, keys: Iterable[str], key_type: str = "group", *,
                                timeout: float | None = None) -> dict[str, Coordinator | KafkaError]:
        """The coordinator (node) of each group (``key_type="group"``) or transactional id
        (``key_type="transaction"``), from FindCoordinator (batched on Kafka 3.0+); each one found is
        remembered for the group calls that follow."""
        ids = validate_group_ids(keys, what="keys")
        code = key_type_code(key_type)
        deadline = await self._begin(timeout)
        found = await self._run(FindCoordinator(code), ids, deadline)
        for k, v in found.items():
            if isinstance(v, Coordinator):
                self.coordinators.remember(code, k, v.node_id)
        return found

    # --- groups ------------------------------------------------------------------------------------------

    async def describe_consumer_groups(self, group_ids: Iterable[str], *, include_authorized_operations: bool = False,
                                       timeout: float | None = None) -> dict[str, GroupDescription | KafkaError]:
        """Classic and consumer-protocol (KIP-848) groups alike: each group through ConsumerGroupDescribe or
        DescribeGroups, whichever its coordinator knows it by (``group_type`` says which); a group is reported
        missing (GroupIdNotFoundError) only when neither knows it."""
        ids = validate_group_ids(group_ids)
        if not isinstance(include_authorized_operations, bool):
            raise TypeError("include_authorized_operations must be a bool")
        deadline = await self._begin(timeout)
        return await consumer_groups.describe_any_protocol(self._run, ids, include_authorized_operations, deadline,
                                                           self._group_types)

    async def describe_share_groups(self, group_ids: Iterable[str], *, include_authorized_operations: bool = False,
                                    timeout: float | None = None) -> dict[str, GroupDescription | KafkaError]:
        """Share groups (KIP-932, ShareGroupDescribe: v1 on Kafka 4.1+, v0 on a 4.0 broker with the early-access
        share groups switched on): state, epochs, members and the partitions each shares.  A coordinator
        without share groups answers each group UnsupportedVersionError (naming the release) without a
        request; a group of another type is GroupIdNotFoundError."""
        ids = validate_group_ids(group_ids)
        if not isinstance(include_authorized_operations, bool):
            raise TypeError("include_authorized_operations must be a bool")
        deadline = await self._begin(timeout)
        got = await self._run(consumer_groups.ShareGroupDescribe(include_authorized_operations), ids, deadline)
        return admin_share_groups.name_release(got, ApiKey.SHARE_GROUP_DESCRIBE, "describing share groups")

    async def alter_consumer_group_offsets(
        self, group_id: str, offsets: Mapping[PartitionKey, OffsetAndMetadata | int], *,
        timeout: float | None = None,
    ) -> dict[PartitionKey, None | KafkaError]:
        """Write committed offsets from outside the group (OffsetCommit, generation -1): per partition (keyed as
        given) None or the error.  The coordinator refuses it while the group has members
        (UnknownMemberIdError)."""
        gid = validate_group_ids([group_id], what="group_id")[0]
        checked, keys = check_offsets(offsets)
        deadline = await self._begin(timeout)
        got = await self._run(group_offsets.AlterGroupOffsets(gid, checked), list(checked), deadline)
        return by_caller_key(got, keys)

    async def reset_consumer_group_offsets(
        self, group_id: str, partitions: Iterable[str | TopicPartition | tuple[str, int]] | str,
        to: ResetTo | str | Any, *, dry_run: bool = True, timeout: float | None = None,
    ) -> OffsetResetPlan:
        """kafka-consumer-groups.sh --reset-offsets: the plan per partition (committed offset, target clamped to
        [log start, log end]); written only with ``dry_run=False``.  ``partitions``: topic names (every
        partition) and/or partitions; ``to``: "earliest", "latest" or a :class:`ResetTo` (an offset, a shift,
        a timestamp, a datetime, a duration).  Raises NonEmptyGroupError, writing nothing, while the group has
        active members (it must be Empty or Dead)."""
        gid = validate_group_ids([group_id], what="group_id")[0]
        topic_names, parts = validate_reset_scope(partitions)
        target = ResetTo.of(to)
        if not isinstance(dry_run, bool):
            raise TypeError("dry_run must be a bool")
        deadline = await self._begin(timeout)

        async def describe() -> GroupDescription | KafkaError:
            got = await consumer_groups.describe_any_protocol(self._run, [gid], False, deadline, self._group_types)
            return got[gid]

        return await group_offsets.reset(self._run, describe, gid, topic_names, parts, target, dry_run, deadline)

    async def delete_consumer_group_offsets(
        self, group_id: str, partitions: Iterable[PartitionKey], *,
        timeout: float | None = None,
    ) -> dict[PartitionKey, None | KafkaError]:
        """OffsetDelete (Kafka 2.4+): per partition (keyed as given) None or the error
        (GroupSubscribedToTopicError while live members read the topic; GroupIdNotFoundError for every
        partition of an unknown group)."""
        gid = validate_group_ids([group_id], what="group_id")[0]
        keys = check_partition_keys(partitions)
        deadline = await self._begin(timeout)
        return by_caller_key(await self._run(group_offsets.DeleteGroupOffsets(gid), list(keys), deadline), keys)

    async def remove_members_from_consumer_group(
        self, group_id: str, members: Iterable[str | MemberToRemove] | None = None, *, reason: str | None = None,
        timeout: float | None = None,
    ) -> dict[MemberToRemove, None | KafkaError]:
        """LeaveGroup v3+ in one batch: ``members`` by member id or :class:`MemberToRemove` (static members by
        instance id); None removes every member the group has now (static ones by instance id)."""
        gid = validate_group_ids([group_id], what="group_id")[0]
        wanted = validate_members(members)
        if reason is not None and not isinstance(reason, str):
            raise TypeError("reason must be a string or None")
        deadline = await self._begin(timeout)
        if wanted is None:
            described = (await consumer_groups.describe_any_protocol(self._run, [gid], False, deadline,
                                                                     self._group_types))[gid]
            if isinstance(described, KafkaError):
                raise described
            wanted = group_offsets.members_of(described)
            if not wanted:
                return {}
        return await self._run(group_offsets.RemoveMembers(gid, reason), wanted, deadline)

    async def delete_consumer_groups(self, group_ids: Iterable[str], *,
                                     timeout: float | None = None) -> dict[str, None | KafkaError]:
        """DeleteGroups on each group's coordinator: per group None or its error (NonEmptyGroupError while it
        has members, GroupIdNotFoundError for a group that does not exist)."""
        ids = validate_group_ids(group_ids)
        deadline = await self._begin(timeout)
        return await self._run(DeleteGroups(), ids, deadline)

    @overload
    async def list_consumer_group_offsets(
        self, group_ids: Iterable[str], partitions: None = None, *, timeout: float | None = None,
    ) -> dict[str, dict[TopicPartition, OffsetAndMetadata | KafkaError] | KafkaError]: ...

    @overload
    async def list_consumer_group_offsets(
        self, group_ids: Iterable[str], partitions: Iterable[PartitionKey], *, timeout: float | None = None,
    ) -> dict[str, dict[PartitionKey, OffsetAndMetadata | KafkaError] | KafkaError]: ...

    async def list_consumer_group_offsets(
        self, group_ids: Iterable[str], partitions: Iterable[Any] | None = None, *,
        timeout: float | None = None,
    ) -> dict[str, dict[Any, OffsetAndMetadata | KafkaError] | KafkaError]:
        """Committed offsets per group (named partitions keyed as given).  A group that does not exist is a
        GroupIdNotFoundError, not an empty dict: a group with no committed offsets is asked about
        (DescribeGroups) to tell the two apart."""
        ids = validate_group_ids(group_ids)
        keys = None if partitions is None else check_partition_keys(partitions)
        deadline = await self._begin(timeout)
        offsets = await self._run(OffsetFetch(None if keys is None else list(keys)), ids, deadline)
        got = await self._missing_groups(offsets, deadline)
        if keys is None:
            return got
        # A partition without a committed offset is absent (as when no partitions are named); the rest are
        # answered under the caller's keys.
        return {g: {k: r[tp] for tp, k in keys.items() if tp in r} if isinstance(r, dict) else r
                for g, r in got.items()}

    async def _missing_groups(self, offsets: dict[str, Any], deadline: Deadline) -> dict[str, Any]:
        """Groups with no committed offsets that their coordinator does not know become GroupIdNotFoundError."""
        empty = [g for g, res in offsets.items() if isinstance(res, dict) and not res]
        if empty:
            described = await self.describe_consumer_groups(empty, timeout=max(deadline.remaining(), 0.001))
            for g, d in described.items():
                if isinstance(d, GroupIdNotFoundError):
                    offsets[g] = GroupIdNotFoundError(f"group {g!r} does not exist (no committed offsets, and "
                                                      f"its coordinator does not know it)")
        return offsets

    async def list_consumer_groups(self, *, states: Iterable[str] | None = None, types: Iterable[str] | None = None,
                                   timeout: float | None = None) -> ListGroupsResult:
        """ListGroups on every broker concurrently; merged, deduplicated, and each failing broker reported.

        ``states`` are Kafka's group states (Stable, Empty, ...; any case); an unknown one is a ValueError.
        ``types`` (classic, consumer, share, streams) as :meth:`list_groups`; without it every group a broker
        lists is listed, whatever its type."""
        state_list = validate_group_states(states)
        type_list = validate_group_types(types)
        deadline = await self._begin(timeout)
        return await self._list_groups(state_list, type_list, deadline)

    async def _list_groups(self, state_list: list[str] | None, type_list: list[str] | None,
                           deadline: Deadline) -> ListGroupsResult:
        await self.net.refresh_metadata(deadline=deadline)
        per_node = await self._run(ListGroups(state_list, type_list), sorted(self.net.nodes), deadline)
        seen: dict[str, GroupListing] = {}
        errors: dict[int, KafkaError] = {}
        for node_id, res in per_node.items():
            if isinstance(res, KafkaError):
                errors[node_id] = res
                continue
            for g in res:
                seen.setdefault(g.group_id, g)
                if g.group_type:
                    # Remembered so that describe_consumer_groups asks the API that knows the group first.
                    self._group_types[g.group_id] = g.group_type
        return ListGroupsResult(tuple(sorted(seen.values(), key=lambda g: g.group_id)), errors)

    async def consumer_group_lag(
        self, group_ids: Iterable[str], *, timeout: float | None = None,
    ) -> dict[str, dict[TopicPartition, PartitionLag | KafkaError] | KafkaError]:
        """Committed offsets (OffsetFetch) against the latest offsets (ListOffsets to each partition's leader).

        A partition whose topic no longer exists gets its UnknownTopicOrPartitionError at once; a group that
        does not exist is a GroupIdNotFoundError."""
        ids = validate_group_ids(group_ids)
        deadline = await self._begin(timeout)
        offsets = await self._missing_groups(await self._run(OffsetFetch(None), ids, deadline), deadline)
        wanted = {tp for res in offsets.values() if isinstance(res, dict)
                  for tp, o in res.items() if isinstance(o, OffsetAndMetadata)}
        ends: dict[TopicPartition, Any] = {}
        if wanted:
            specs = dict.fromkeys(sorted(wanted), OffsetSpec.latest())
            ends = await self._run(ListOffsets(specs, tolerate_unknown_topics=True), specs, deadline)
        out: dict[str, dict[TopicPartition, PartitionLag | KafkaError] | KafkaError] = {}
        for gid, res in offsets.items():
            if isinstance(res, KafkaError):
                out[gid] = res
                continue
            lag: dict[TopicPartition, PartitionLag | KafkaError] = {}
            for tp, o in sorted(res.items()):
                if isinstance(o, KafkaError):
                    lag[tp] = o
                    continue
                end = ends[tp]
                lag[tp] = PartitionLag(o.offset, end.offset) if isinstance(end, ListedOffset) else end
            out[gid] = lag
        return out

    # --- partition offsets -------------------------------------------------------------------------------

    async def list_offsets(self, specs: Mapping[PartitionKey, OffsetSpec | str], *,
                           isolation_level: str = "read_uncommitted",
                           timeout: float | None = None) -> dict[PartitionKey, ListedOffset | KafkaError]:
        """The offset each spec names, per partition: ``{TopicPartition("t", 0): OffsetSpec.latest()}`` (or
        ``("t", 0)`` keys; the result is keyed as given).

        Asked of each partition's leader; a partition of a topic that does not exist is an
        UnknownTopicOrPartitionError at once.  ``isolation_level="read_committed"`` makes "latest" the last
        stable offset (below the first record of a still-open transaction)."""
        checked, keys = check_offset_specs(specs)
        level = isolation_level_code(isolation_level)
        deadline = await self._begin(timeout)
        got = await self._run(ListOffsets(checked, isolation_level=level), checked, deadline)
        return by_caller_key(got, keys)

    # --- records and storage ------------------------------------------------------------------------------

    async def delete_records(self, offsets: Mapping[PartitionKey, int], *, timeout: float | None = None,
                             ) -> dict[PartitionKey, storage.DeletedRecords | KafkaError]:
        """Delete each partition's records below an offset (-1: up to the high watermark), on its leader.

        The value is the partition's new low watermark (log start offset), which never moves back: deleting
        below it changes nothing.  An offset beyond the high watermark is OffsetOutOfRangeError, a topic that does
        not exist UnknownTopicOrPartitionError.  A partition whose request got no answer before the deadline is a
        KafkaTimeoutError with ``possibly_applied=True``: its records may be gone.  Keyed as given."""
        checked, keys = storage.check_delete_records(offsets)
        deadline = await self._begin(timeout)
        op = records.DeleteRecords(checked, _request_timeout_ms(deadline, records.DEFAULT_TIMEOUT_MS))
        return by_caller_key(await self._run(op, checked, deadline), keys)

    async def describe_log_dirs(self, brokers: Iterable[int] | None = None, *,
                                partitions: Iterable[TopicPartition | tuple[str, int]] | None = None,
                                timeout: float | None = None,
                                ) -> dict[int, dict[str, storage.LogDirDescription] | KafkaError]:
        """Per broker (default: every broker), its log directories: path, error (offline), the replicas in
        it with size, offset lag and future flag, and the volume's total/usable bytes (Kafka 3.3+).

        ``partitions`` limits the replicas reported; a broker id the cluster does not have is a
        BrokerNotAvailableError, never sent."""
        ids = storage.validate_brokers(brokers)
        parts = storage.validate_partition_list(partitions, "describe_log_dirs")
        deadline = await self._begin(timeout)
        await self.net.refresh_metadata(deadline=deadline)
        nodes = sorted(self.net.nodes) if ids is None else ids
        known = [n for n in nodes if n in self.net.nodes]
        got = await self._run(log_dirs.DescribeLogDirs(parts), known, deadline) if known else {}
        return {n: got[n] if n in got else log_dirs.unknown_broker(n) for n in nodes}

    async def topic_sizes(self, topics: Iterable[str] | None = None, *, replicas: str = "leader",
                          timeout: float | None = None) -> storage.TopicSizes:
        """Bytes on disk per topic (default: every topic, internal ones too), from every broker's log dirs.

        ``replicas="leader"`` counts one copy of each partition, the leader's (the size of the data);
        ``"all"`` counts every replica (the disk the topic takes across the cluster).  What could not be
        measured is listed in the result, which is then not ``complete``."""
        names = storage.validate_topic_list(topics, "topic_sizes")
        if replicas not in ("leader", "all"):
            raise ValueError(f"replicas must be 'leader' or 'all', not {replicas!r}")
        deadline = await self._begin(timeout)
        await self.net.refresh_metadata(deadline=deadline)
        return await log_dirs.measure_topic_sizes(self._ctx, names, replicas, deadline)

    @overload
    async def elect_leaders(self, election_type: storage.ElectionType | str,
                            partitions: Iterable[PartitionKey], *, timeout: float | None = None,
                            ) -> dict[PartitionKey, storage.ElectionResult | KafkaError]: ...

    @overload
    async def elect_leaders(self, election_type: storage.ElectionType | str = ..., *,
                            partitions: Iterable[PartitionKey], timeout: float | None = None,
                            ) -> dict[PartitionKey, storage.ElectionResult | KafkaError]: ...

    @overload
    async def elect_leaders(self, election_type: storage.ElectionType | str = ..., partitions: None = None, *,
                            timeout: float | None = None,
                            ) -> dict[TopicPartition, storage.ElectionResult | KafkaError]: ...

    async def elect_leaders(self, election_type: storage.ElectionType | str = "preferred",
                            partitions: Iterable[Any] | None = None, *,
                            timeout: float | None = None,
                            ) -> dict[Any, storage.ElectionResult | KafkaError]:
        """Elect leaders ("preferred": the first replica; "unclean": any live replica when no in-sync one is
        left, which may lose records), on the controller.

        Per partition: ElectionResult.ELECTED, ElectionResult.NOT_NEEDED (it already had that leader), or the
        error (PreferredLeaderNotAvailableError, EligibleLeadersNotAvailableError, ...).  ``partitions=None``
        elects for every partition of the cluster; Kafka then reports only the partitions that needed an
        election, and a failure of the whole call raises.  Named partitions are keyed as given."""
        kind = storage.validate_election_type(election_type)
        parts = storage.check_partition_list(partitions, "elect_leaders")
        deadline = await self._begin(timeout)
        op = leaders.ElectLeaders(kind, _request_timeout_ms(deadline, leaders.DEFAULT_TIMEOUT_MS))
        if parts is None:
            every = (await self._run(op, [leaders.ALL_PARTITIONS], deadline))[leaders.ALL_PARTITIONS]
            if isinstance(every, KafkaError):
                raise every
            return {tp: leaders.election_result(v) for tp, v in every.items()}
        got = leaders.by_partition(await self._run(op, leaders.partition_keys(list(parts)), deadline))
        return by_caller_key({tp: leaders.election_result(v) for tp, v in got.items()}, parts)

    async def alter_partition_reassignments(
        self, reassignments: Mapping[PartitionKey, Iterable[int] | None], *,
        allow_replication_factor_change: bool = True, timeout: float | None = None,
    ) -> dict[PartitionKey, None | KafkaError]:
        """Move partitions to new replicas ({partition: [broker ids], the first the preferred leader}) or cancel
        their ongoing move (None), on the controller.  None per partition means the controller accepted it; the
        data moves afterwards (see list_partition_reassignments).  Keyed as given.

        ``allow_replication_factor_change=False`` (KIP-860, AlterPartitionReassignments v1, Kafka 4.1): the
        controller refuses a move to another number of replicas (InvalidReplicationFactorError for that
        partition).  A controller before 4.1 cannot be told: each move is then refused unsent
        (UnsupportedVersionError), while cancellations go ahead."""
        checked, keys = storage.check_reassignments(reassignments)
        _check_bool(allow_replication_factor_change, "allow_replication_factor_change")
        deadline = await self._begin(timeout)
        op = leaders.AlterPartitionReassignments(checked, _request_timeout_ms(deadline, leaders.DEFAULT_TIMEOUT_MS),
                                                 allow_replication_factor_change)
        return by_caller_key(await self._run(op, checked, deadline), keys)

    @overload
    async def list_partition_reassignments(
        self, partitions: Iterable[PartitionKey], *, timeout: float | None = None,
    ) -> dict[PartitionKey, storage.PartitionReassignment | None | KafkaError]: ...

    @overload
    async def list_partition_reassignments(
        self, partitions: None = None, *, timeout: float | None = None,
    ) -> dict[TopicPartition, storage.PartitionReassignment | None | KafkaError]: ...

    async def list_partition_reassignments(
        self, partitions: Iterable[Any] | None = None, *, timeout: float | None = None,
    ) -> dict[Any, storage.PartitionReassignment | None | KafkaError]:
        """Ongoing reassignments: for ``partitions=None`` every one (a failure of the call raises); otherwise each
        given partition's (keyed as given), None when it is not being moved (or does not exist: Kafka does not
        tell)."""
        parts = storage.check_partition_list(partitions, "list_partition_reassignments")
        deadline = await self._begin(timeout)
        op = leaders.ListPartitionReassignments(_request_timeout_ms(deadline, leaders.DEFAULT_TIMEOUT_MS))
        if parts is None:
            every = (await self._run(op, [leaders.ALL_PARTITIONS], deadline))[leaders.ALL_PARTITIONS]
            if isinstance(every, KafkaError):
                raise every
            return dict(every)
        got = leaders.by_partition(await self._run(op, leaders.partition_keys(list(parts)), deadline))
        return by_caller_key(got, parts)

    # --- topics ---------------------------------------------------------------------------------------------

    async def list_topics(self, *, internal: bool = False, timeout: float | None = None) -> list[TopicListing]:
        """Every topic of the cluster, by name (internal ones such as __consumer_offsets only if ``internal``).
        One Metadata request to any node."""
        _check_bool(internal, "internal")
        deadline = await self._begin(timeout)
        got = (await self._run(admin_topics.ListTopics(internal), [admin_topics.ALL_TOPICS],
                               deadline))[admin_topics.ALL_TOPICS]
        if isinstance(got, KafkaError):
            raise got
        return got  # type: ignore[no-any-return]

    async def describe_topics(self, names: Iterable[str], *, include_authorized_operations: bool = False,
                              timeout: float | None = None) -> dict[str, TopicDescription | KafkaError]:
        """Partitions (leader, replicas, ISR, offline replicas), topic id and, if asked, the principal's
        authorized operations, per topic; a topic that does not exist is an UnknownTopicOrPartitionError.
        DescribeTopicPartitions page by page where a node speaks it (Kafka 3.8+ KRaft), else Metadata."""
        checked = topics.validate_topic_names(names)
        _check_bool(include_authorized_operations, "include_authorized_operations")
        if not checked:
            return {}
        deadline = await self._begin(timeout)
        return await admin_topics.describe_topics(self._ctx, checked, include_authorized_operations, deadline)

    async def create_topics(self, new_topics: Iterable[topics.NewTopic], *, validate_only: bool = False,
                            include_configs: bool = False, include_topic_ids: bool = False,
                            timeout: float | None = None) -> dict[str, topics.CreatedTopic | KafkaError]:
        """Create topics (one request to the controller); per topic its CreatedTopic or error
        (TopicAlreadyExistsError, InvalidReplicationFactorError, PolicyViolationError, InvalidConfigError...).
        ``validate_only`` asks the controller to check without creating.  A topic whose answer was lost is a
        KafkaTimeoutError with ``possibly_applied=True``.

        What each choice costs: by default the request is CreateTopics v4 at most, and each CreatedTopic
        carries only its name.  ``include_configs=True`` asks for v5+ (Kafka 2.4+), whose answer carries each
        topic's partition count, replication factor and every config (about 36 per topic, each built by the
        controller: creating 1,000 topics took twice as long on Kafka 3.9).  ``include_topic_ids=True`` asks
        for v7+ (Kafka 2.8+), whose answer carries each topic's id (and, with it, the configs too).  Against an
        older broker a field its version cannot carry stays None."""
        checked = topics.validate_new_topics(new_topics)
        _check_bool(validate_only, "validate_only")
        _check_bool(include_configs, "include_configs")
        _check_bool(include_topic_ids, "include_topic_ids")
        if not checked:
            return {}
        deadline = await self._begin(timeout)
        by_name = {t.name: t for t in checked}
        ms = admin_topics.timeout_ms(deadline.remaining(), self.config.request_timeout_s)
        kind = admin_topics.ValidateCreateTopics if validate_only else admin_topics.CreateTopics
        op = kind(by_name, ms, validate_only, include_configs=include_configs, include_topic_ids=include_topic_ids)
        return await self._run(op, list(by_name), deadline)

    async def delete_topics(self, names_or_ids: Iterable[topics.TopicRef], *,
                            timeout: float | None = None) -> dict[topics.TopicRef, None | KafkaError]:
        """Delete topics by name or by id (uuid.UUID; Kafka 2.8+), in one request to the controller; per topic
        None or its error.  A topic whose answer was lost is a KafkaTimeoutError with ``possibly_applied``.

        Topics named only by name go as DeleteTopics v5 at most: v6+ has the controller resolve and send each
        deleted topic's id, which this call does not return; an id among the topics asks for v6+."""
        checked = topics.validate_topic_refs(names_or_ids)
        if not checked:
            return {}
        deadline = await self._begin(timeout)
        ms = admin_topics.timeout_ms(deadline.remaining(), self.config.request_timeout_s)
        return await self._run(admin_topics.DeleteTopics(ms), checked, deadline)

    async def create_partitions(self, changes: Mapping[str, int | topics.NewPartitions], *,
                                validate_only: bool = False,
                                timeout: float | None = None) -> dict[str, None | KafkaError]:
        """Grow topics to a new total partition count: ``{"t": 6}`` or ``{"t": NewPartitions(6, [[1, 2], ...])}``
        (replicas of the new partitions only); one request to the controller; per topic None or its error."""
        checked = topics.validate_new_partitions(changes)
        _check_bool(validate_only, "validate_only")
        if not checked:
            return {}
        deadline = await self._begin(timeout)
        ms = admin_topics.timeout_ms(deadline.remaining(), self.config.request_timeout_s)
        kind = admin_topics.ValidateCreatePartitions if validate_only else admin_topics.CreatePartitions
        return await self._run(kind(checked, ms, validate_only), list(checked), deadline)

    # --- configs --------------------------------------------------------------------------------------------

    async def describe_configs(self, resources: Iterable[ResourceKey], *, include_synonyms: bool = False,
                               include_documentation: bool = False, timeout: float | None = None,
                               ) -> dict[ResourceKey, dict[str, configs.ConfigEntry] | KafkaError]:
        """{resource: {config name: ConfigEntry}} for topics, brokers (by id; "" = cluster-wide defaults),
        broker loggers, groups and client-metrics subscriptions.  Broker resources are asked of that broker,
        all others in one request to any node (groups and client-metrics in requests of their own: a broker
        whose release lacks such a type fails every resource of the request naming it).  Sensitive values are
        never sent by brokers (value None).  Synonyms need Kafka 1.1+ and documentation 2.6+; an older broker's
        entries come without them.  Keyed as given: ``("topic", "t")``, a broker ``"01"`` or ``("broker", 1)``
        is answered under that key."""
        keys = configs.check_resources(resources)
        checked = list(keys)
        _check_bool(include_synonyms, "include_synonyms")
        _check_bool(include_documentation, "include_documentation")
        if not checked:
            return {}
        deadline = await self._begin(timeout)
        op = admin_configs.DescribeConfigs(include_synonyms, include_documentation)
        return by_caller_key(await self._run(op, checked, deadline), keys)

    async def alter_configs(self, alterations: Mapping[ResourceKey, Sequence[configs.ConfigOp]], *,
                            validate_only: bool = False,
                            timeout: float | None = None) -> dict[ResourceKey, None | KafkaError]:
        """Change configs: ``{ConfigResource.topic("t"): [SetConfig("retention.ms", "3600000"),
        DeleteConfig("cleanup.policy")]}``; per resource None or its error.

        IncrementalAlterConfigs (Kafka 2.3+); a broker without it gets a read-merge-write through AlterConfigs
        that keeps the resource's other dynamic configs, and refuses what AlterConfigs cannot do (APPEND,
        SUBTRACT, log levels, rewriting a sensitive value it cannot read) with an UnsupportedVersionError.
        Keyed as given; a resource with no operations is refused (ValueError) before anything is sent."""
        checked, keys = configs.check_alterations(alterations)
        _check_bool(validate_only, "validate_only")
        if not checked:
            return {}
        deadline = await self._begin(timeout)
        return by_caller_key(await admin_configs.alter_configs(self._ctx, checked, validate_only, deadline), keys)

    # --- client quotas (KIP-546 as shipped) ----------------------------------------------------------------
    async def describe_client_quotas(self, filter: quotas.ClientQuotaFilter, *, timeout: float | None = None,
                                     ) -> dict[quotas.ClientQuotaEntity, dict[str, float]]:
        """{entity: {quota key: value}} for every entity matching ``filter`` (entities sorted).

        One request to one broker that speaks DescribeClientQuotas.  A top-level error in the answer raises it
        (retriable ones after retrying until the deadline); a broker older than Kafka 2.6 raises
        UnsupportedVersionError.
        """
        if not isinstance(filter, quotas.ClientQuotaFilter):
            raise TypeError(f"filter must be a ClientQuotaFilter (e.g. ClientQuotaFilter.all()), not {filter!r}")
        deadline = await self._begin(timeout)
        return await admin_quotas.describe_client_quotas(self._ctx, filter, deadline)

    async def alter_client_quotas(
        self, alterations: Iterable[quotas.ClientQuotaAlteration], *, validate_only: bool = False,
        allow_unknown_keys: bool = False, batch_size: int = _batching.QUOTA_BATCH_SIZE,
        max_concurrency: int = _batching.QUOTA_MAX_CONCURRENCY, timeout: float | None = None,
    ) -> dict[quotas.ClientQuotaEntity, None | KafkaError]:
        """Apply each alteration; {entity: None or its KafkaError}, one entry per alteration, in order.

        Everything is validated before anything is sent (see :mod:`kadmin.quotas` for the rules).  Entities go
        ``batch_size`` (default 10,000) per request, at most ``max_concurrency`` requests in flight: every
        request goes to the one controller, which applies them one after another, so a smaller batch adds
        controller round trips (5,000 alterations took twice as long as five requests of 1,000 than as one on
        Kafka 3.9); a smaller batch bounds what one lost request leaves in doubt.  Retriable errors are retried
        until the deadline (an alteration states final values, so applying it twice is harmless).  An entity
        still unanswered at the deadline gets a KafkaTimeoutError whose ``possibly_applied`` says whether it
        may have been applied anyway.  ``validate_only`` asks the broker to check without applying.  A broker
        older than Kafka 2.6 raises UnsupportedVersionError.
        """
        items = quotas.validate_alterations(alterations, allow_unknown_keys=allow_unknown_keys)
        if not isinstance(validate_only, bool):
            raise TypeError("validate_only must be a bool")
        size, concurrency = admin_quotas.check_batching(batch_size, max_concurrency)
        deadline = await self._begin(timeout)
        return await admin_quotas.alter_client_quotas(self._ctx, items, deadline, validate_only=validate_only,
                                                      batch_size=size, max_concurrency=concurrency)

    async def resolve_client_quotas(self, user: str | None = None, client_id: str | None = None,
                                    ip: str | None = None, *, timeout: float | None = None,
                                    ) -> quotas.ResolvedClientQuotas:
        """Which quota value applies to a client, per key, and which entity it comes from.

        Kafka never shipped KIP-546's ResolveClientQuotas, so this follows Kafka's documented precedence
        client-side (see :func:`kadmin.quotas.precedence_levels`): a None user or client_id means "a name with
        no quota entity of its own", so only the default levels apply for it.  With only ``ip`` given, only
        the ip levels are resolved.  Sends 2-6 DescribeClientQuotas requests concurrently (4 for user and
        client_id, 2 more for an ip; :func:`kadmin.quotas.resolve_filters` explains why no fewer).
        """
        quotas.validate_resolve_args(user, client_id, ip)
        deadline = await self._begin(timeout)

        async def describe(flt: quotas.ClientQuotaFilter) -> dict[quotas.ClientQuotaEntity, dict[str, float]]:
            return await admin_quotas.describe_client_quotas(self._ctx, flt, deadline)

        return await quotas.resolve_client_quotas(describe, user, client_id, ip)

    # --- security: ACLs, SCRAM users, who am I -----------------------------------------------------------

    async def describe_acls(self, filter: acls.AclBindingFilter | None = None, *, principal: str | None = None,
                            timeout: float | None = None) -> acls.AclListing:
        """The bindings matching ``filter`` (all without one), sorted; ``.by_resource()`` folds them.

        ``principal="User:alice"`` answers "what may alice do": her bindings and the ``User:*`` ones, which
        apply to her too (two requests, concurrently).  A top-level error raises (SECURITY_DISABLED: the
        cluster has no authorizer; CLUSTER_AUTHORIZATION_FAILED: no DESCRIBE on the cluster)."""
        flts = admin_acls.describe_filters(filter, principal)
        deadline = await self._begin(timeout)
        op = admin_acls.DescribeAcls()
        got = await self._run(op, flts, deadline)
        admin_acls.raise_if_unsupported(got, op.lookup)
        for res in got.values():
            if isinstance(res, KafkaError):
                raise res
        return admin_acls.listing(got.values())

    async def create_acls(self, bindings: Iterable[acls.AclBinding], *,
                          batch_size: int = _batching.ACL_BATCH_SIZE,
                          max_concurrency: int = _batching.ACL_MAX_CONCURRENCY,
                          timeout: float | None = None) -> dict[acls.AclBinding, None | KafkaError]:
        """Store each binding: {binding: None or its error}, in order.  ``batch_size`` per request."""
        checked = acls.validate_bindings(bindings)
        size, concurrency = admin_quotas.check_batching(batch_size, max_concurrency)
        deadline = await self._begin(timeout)
        op = admin_acls.CreateAcls(batch_size=size, max_concurrency=concurrency)
        got: dict[acls.AclBinding, None | KafkaError] = await self._run(op, checked, deadline)
        admin_acls.raise_if_unsupported(got, op.lookup)
        return got

    async def delete_acls(self, filters: Iterable[acls.AclBindingFilter], *,
                          batch_size: int = _batching.ACL_BATCH_SIZE,
                          max_concurrency: int = _batching.ACL_MAX_CONCURRENCY,
                          timeout: float | None = None) -> dict[acls.AclBindingFilter, acls.AclDeletion | KafkaError]:
        """Delete every binding each filter matches: {filter: the bindings it deleted, or its error}."""
        checked = acls.validate_filters(filters)
        size, concurrency = admin_quotas.check_batching(batch_size, max_concurrency)
        deadline = await self._begin(timeout)
        op = admin_acls.DeleteAcls(batch_size=size, max_concurrency=concurrency)
        got: dict[acls.AclBindingFilter, acls.AclDeletion | KafkaError] = await self._run(op, checked, deadline)
        admin_acls.raise_if_unsupported(got, op.lookup)
        return got

    async def describe_user_scram_credentials(
        self, users: Iterable[str] | None = None, *, timeout: float | None = None,
    ) -> dict[str, tuple[scram.ScramCredentialInfo, ...] | KafkaError]:
        """{user: their credentials (mechanism, iterations)}: every user with a credential when ``users`` is
        None, else one entry per named user (RESOURCE_NOT_FOUND for a user without any)."""
        names = scram.validate_users(users)
        deadline = await self._begin(timeout)
        op = admin_scram.DescribeUserScramCredentials()
        keys: list[str | None] = [admin_scram.ALL_USERS] if names is None else list(names)
        got = await self._run(op, keys, deadline)
        unsupported = op.lookup.unsupported
        if unsupported is not None and all(v is unsupported for v in got.values()):
            raise unsupported
        if names is None:
            every = got[admin_scram.ALL_USERS]
            if isinstance(every, KafkaError):
                raise every
            return every  # type: ignore[no-any-return]
        return got  # type: ignore[return-value]

    async def alter_user_scram_credentials(
        self, alterations: Iterable[scram.ScramAlteration], *, batch_size: int = _batching.SCRAM_BATCH_SIZE,
        timeout: float | None = None,
    ) -> dict[str, None | KafkaError]:
        """Apply ScramUpsertion / ScramDeletion changes: one result per user (None, or the first error of that
        user's changes).  Passwords were salted when the upsertions were made; only salted values are sent."""
        by_user = scram.validate_alterations(alterations)
        size, _ = admin_quotas.check_batching(batch_size, 1)
        deadline = await self._begin(timeout)
        op = admin_scram.AlterUserScramCredentials(by_user, batch_size=size)
        got = await self._run(op, op.keys, deadline)
        unsupported = op.lookup.unsupported
        if unsupported is not None and got and all(v is unsupported for v in got.values()):
            raise unsupported
        return admin_scram.per_user(by_user, got)

    async def whoami(self, *, timeout: float | None = None) -> acls.Identity:
        """This client's principal and what it may do on the cluster (DescribeCluster's authorized operations)."""
        try:
            desc = await self.describe_cluster(include_authorized_operations=True, timeout=timeout)
        except UnsupportedVersionError:  # no DescribeCluster before Kafka 2.8: the principal is still known
            return admin_acls.identity(self.config, None, self.net.token_subject)
        return admin_acls.identity(self.config, desc.authorized_operations, self.net.token_subject)

    async def create_delegation_token(self, *, renewers: Iterable[str] = (), max_lifetime_ms: int = -1,
                                      owner: str | None = None, timeout: float | None = None) -> tokens.DelegationToken:
        """A token for this principal, or (Kafka 3.3+, CREATE_TOKENS on that user) for ``owner``; ``renewers``
        (``User:x``) may renew it too; ``max_lifetime_ms`` -1 takes the broker's limit.  Errors raise."""
        who = tokens.check_principals(renewers, "renewers") or []
        if owner is not None:
            tokens.check_principals([owner], "owner")
        life = tokens.check_period(max_lifetime_ms, "max_lifetime_ms")
        deadline = await self._begin(timeout)
        op = admin_tokens.CreateDelegationToken(who, life, owner)
        got = await self._run(op, [admin_tokens.TOKEN], deadline)
        return _value(got, admin_tokens.TOKEN)  # type: ignore[no-any-return]

    async def renew_delegation_token(self, hmac: bytes, *, renew_period_ms: int = -1,
                                     timeout: float | None = None) -> int:
        """Push the token's expiry to now + ``renew_period_ms`` (-1: the broker's default), capped at its max
        timestamp; returns the new expiry (ms since the epoch).  Errors raise."""
        key = tokens.check_hmac(hmac)
        period = tokens.check_period(renew_period_ms, "renew_period_ms")
        deadline = await self._begin(timeout)
        got = await self._run(admin_tokens.RenewDelegationToken(period), [key], deadline)
        return _value(got, key)  # type: ignore[no-any-return]

    async def expire_delegation_token(self, hmac: bytes, *, expiry_period_ms: int = -1,
                                      timeout: float | None = None) -> int:
        """Expire the token in ``expiry_period_ms`` (negative: now, and the broker forgets it); returns the new
        expiry timestamp.  Errors raise."""
        key = tokens.check_hmac(hmac)
        period = tokens.check_period(expiry_period_ms, "expiry_period_ms")
        deadline = await self._begin(timeout)
        got = await self._run(admin_tokens.ExpireDelegationToken(period), [key], deadline)
        return _value(got, key)  # type: ignore[no-any-return]

    async def describe_delegation_tokens(self, owners: Iterable[str] | None = None, *,
                                         timeout: float | None = None) -> list[tokens.DelegationToken]:
        """The tokens of ``owners`` (every owner when None) that this principal may see.  Errors raise."""
        who = tokens.check_principals(owners, "owners")
        deadline = await self._begin(timeout)
        got = await self._run(admin_tokens.DescribeDelegationTokens(who), [admin_tokens.TOKEN], deadline)
        return _value(got, admin_tokens.TOKEN)  # type: ignore[no-any-return]

    # --- cluster operations: features, the metadata quorum, replica log dirs (issue #26) -----------------------

    async def describe_features(self, *, timeout: float | None = None) -> features.FeatureMetadata:
        """The cluster's finalized feature levels (KIP-584) with their epoch, and the supported ranges of the
        broker that answered, from one broker's ApiVersions v3+ answer.

        A level of 0 means the feature is off; such features are not in ``finalized``
        (``FeatureMetadata.level(name)`` gives 0 for them).  Brokers before ApiVersions v3 (Kafka 2.4), or
        clusters that finalized nothing, report no features: the answer is then empty, not an error.  A
        failure of the call raises."""
        deadline = await self._begin(timeout)
        got = await self._run(admin_features.DescribeFeatures(), [admin_features.FEATURES], deadline)
        return _value(got, admin_features.FEATURES)  # type: ignore[no-any-return]

    async def update_features(self, updates: Mapping[str, features.FeatureUpdate], *, validate_only: bool = False,
                              timeout: float | None = None) -> dict[str, None | KafkaError]:
        """Raise, lower or remove finalized feature levels ({name: FeatureUpdate(level, upgrade_type)}), on the
        controller (UpdateFeatures, Kafka 2.7+), like ``kafka-features.sh upgrade|downgrade|disable``.

        Refused with ValueError before UpdateFeatures is sent (the features are first described, so one
        ApiVersions request goes out): a feature the cluster does not know, a level below the feature's minimum
        (0 is allowed: it disables the feature, as a downgrade), an ``upgrade`` to a level below the finalized
        one, a downgrade to a level above it.  Per feature: None when the controller took the update (with
        ``validate_only``, would take it: nothing changes), else its error (InvalidUpdateVersionError for a level
        some broker cannot run, or a downgrade the controller refuses).  A ZooKeeper-mode controller answers each
        feature on its own; a KRaft controller (Kafka 3.x+) applies all or none, so one refusal is every
        feature's error.  An unsafe downgrade needs UpdateFeatures v1 (Kafka 3.3): against an older controller
        that feature alone fails with UnsupportedVersionError; ``validate_only`` too, for every feature.  An
        update whose answer was lost is a KafkaTimeoutError with ``possibly_applied=True``."""
        checked = features.check_feature_updates(updates)
        _check_bool(validate_only, "validate_only")
        deadline = await self._begin(timeout)
        described = await self._run(admin_features.DescribeFeatures(), [admin_features.FEATURES], deadline)
        features.check_against(checked, _value(described, admin_features.FEATURES))
        op = admin_features.UpdateFeatures(checked, validate_only=validate_only,
                                           timeout_ms=_request_timeout_ms(deadline, admin_features.DEFAULT_TIMEOUT_MS))
        return await self._run(op, list(checked), deadline)

    async def describe_metadata_quorum(self, *, timeout: float | None = None) -> quorum.QuorumInfo:
        """The KRaft metadata quorum (DescribeQuorum, KIP-595), like ``kafka-metadata-quorum.sh describe``: the
        leader, its epoch, the high watermark, and every voter and observer with its log end offset, its lag
        behind the leader and (v1+, Kafka 3.3) its last fetch and caught-up times; v2 (Kafka 3.9, KIP-853) adds
        the replicas' directory ids and the voters' endpoints.

        Asked of a node that speaks DescribeQuorum; a ZooKeeper-mode cluster has no metadata quorum and the call
        raises UnsupportedVersionError.  Errors raise."""
        deadline = await self._begin(timeout)
        got = await self._run(admin_quorum.DescribeQuorum(), [admin_quorum.QUORUM], deadline)
        return _value(got, admin_quorum.QUORUM)  # type: ignore[no-any-return]

    async def add_raft_voter(self, voter_id: int, directory_id: uuid.UUID | str,
                             endpoints: Iterable[quorum.RaftVoterEndpoint | str], *, cluster_id: str | None = None,
                             timeout: float | None = None) -> None:
        """Add a controller to a dynamic KRaft quorum (AddRaftVoter, KIP-853, Kafka 3.9+), like
        ``kafka-metadata-quorum.sh add-controller``: ``voter_id`` and its metadata ``directory_id`` (a UUID or
        Kafka's base64 text) name the replica, which must already be an observer fetching from the leader;
        ``endpoints`` are its controller listeners (RaftVoterEndpoint or "NAME://host:port").

        Raises the quorum's error: UnsupportedVersionError when kraft.version is 0 (a static quorum) or no node
        speaks the API, DuplicateVoterError, InconsistentClusterIdError for a wrong ``cluster_id``.  A lost
        answer raises KafkaTimeoutError with ``possibly_applied=True``.  Bad input (TypeError/ValueError) is
        refused before any I/O."""
        node = quorum.check_node_id(voter_id, "voter_id")
        directory = quorum.check_directory_id(directory_id)
        eps = _endpoints(endpoints)
        cid = _optional_str(cluster_id, "cluster_id")
        deadline = await self._begin(timeout)
        op = admin_quorum.AddRaftVoter(directory, eps, cid, _request_timeout_ms(deadline, 30_000))
        _value(await self._run(op, [node], deadline), node)

    async def remove_raft_voter(self, voter_id: int, directory_id: uuid.UUID | str, *,
                                cluster_id: str | None = None, timeout: float | None = None) -> None:
        """Remove a controller from a dynamic KRaft quorum (RemoveRaftVoter, KIP-853, Kafka 3.9+), like
        ``kafka-metadata-quorum.sh remove-controller``: the voter is named by its id and directory id.

        Raises the quorum's error, never waits past the call's timeout: VoterNotFoundError for a replica that
        is not a voter (or a voter with another directory id), InvalidRequestError for the last voter,
        UnsupportedVersionError when kraft.version is 0.  A lost answer raises KafkaTimeoutError with
        ``possibly_applied=True``.  Bad input is refused before any I/O."""
        node = quorum.check_node_id(voter_id, "voter_id")
        directory = quorum.check_directory_id(directory_id)
        cid = _optional_str(cluster_id, "cluster_id")
        deadline = await self._begin(timeout)
        _value(await self._run(admin_quorum.RemoveRaftVoter(directory, cid), [node], deadline), node)

    async def unregister_broker(self, broker_id: int, *, timeout: float | None = None) -> None:
        """Remove a broker's registration from a KRaft cluster (UnregisterBroker, Kafka 3.0+ in KRaft mode), like
        ``kafka-cluster.sh unregister``: for a broker that is gone for good (a running broker registers again).

        Raises BrokerIdNotRegisteredError for an id the controller does not know, UnsupportedVersionError on a
        ZooKeeper-mode cluster; a lost answer raises KafkaTimeoutError with ``possibly_applied=True``."""
        node = quorum.check_node_id(broker_id, "broker_id")
        deadline = await self._begin(timeout)
        _value(await self._run(admin_quorum.UnregisterBroker(), [node], deadline), node)

    async def alter_replica_log_dirs(self, moves: Mapping[RK, str], *, timeout: float | None = None,
                                     ) -> dict[RK, None | KafkaError]:
        """Move replicas between the log directories of their brokers (AlterReplicaLogDirs, KIP-113), like the
        ``log_dirs`` of kafka-reassign-partitions.sh: {TopicPartitionReplica(topic, partition, broker_id) or a
        (topic, partition, broker_id) tuple: absolute directory path}; each replica's broker gets one request.

        Per replica: None when its broker took the move (the copy runs in the background; see
        describe_replica_log_dirs; moving a replica to the directory it is in cancels a move under way), else the
        broker's error: LogDirNotFoundError (no such directory there), KafkaStorageError (offline directory),
        ReplicaNotAvailableError (the broker holds no replica of it), BrokerNotAvailableError for a broker the
        cluster does not list (never sent).  A move whose answer was lost is a KafkaTimeoutError with
        ``possibly_applied=True``.  Keyed as given; bad input raises before any I/O."""
        checked, keys = check_replica_moves(moves)
        deadline = await self._begin(timeout)
        got = await self._run(admin_replica_log_dirs.AlterReplicaLogDirs(checked), checked, deadline)
        return by_caller_key(got, keys)

    async def describe_replica_log_dirs(self, replicas: Iterable[RK], *, timeout: float | None = None,
                                        ) -> dict[RK, ReplicaLogDirInfo | KafkaError]:
        """Where each replica's log lives (DescribeLogDirs to each broker named, once): its current directory,
        lag and size, and while a move runs the future directory and how far it trails.

        Per replica: ReplicaNotAvailableError when its broker holds no log of it (KafkaStorageError when a
        directory of that broker is offline, since the log may be there), BrokerNotAvailableError for a broker
        the cluster does not list.  Keyed as given; bad input raises before any I/O."""
        asked, keys = check_replica_list(replicas)
        deadline = await self._begin(timeout)
        got = await admin_replica_log_dirs.describe_replica_log_dirs(self._ctx, asked, deadline)
        return by_caller_key(got, keys)

    # --- share groups (KIP-932; issue #25) ------------------------------------------------------------------

    @overload
    async def list_share_group_offsets(
        self, group_ids: Iterable[str], partitions: None = None, *, timeout: float | None = None,
    ) -> dict[str, dict[TopicPartition, SharePartitionOffset | KafkaError] | KafkaError]: ...

    @overload
    async def list_share_group_offsets(
        self, group_ids: Iterable[str], partitions: Iterable[PartitionKey], *, timeout: float | None = None,
    ) -> dict[str, dict[PartitionKey, SharePartitionOffset | KafkaError] | KafkaError]: ...

    async def list_share_group_offsets(
        self, group_ids: Iterable[str], partitions: Iterable[Any] | None = None, *,
        timeout: float | None = None,
    ) -> dict[str, dict[Any, SharePartitionOffset | KafkaError] | KafkaError]:
        """Share groups' start offsets (SPSO) per partition, with the lag from Kafka 4.2 brokers
        (DescribeShareGroupOffsets; ``lag`` is None from 4.1).  ``partitions`` None: every partition the group
        has a start offset in; else those (keyed as given), a partition the group never read being absent.

        Per group: a dict, GroupIdNotFoundError for a group its coordinator does not know (a group without
        offsets is asked about with ShareGroupDescribe to tell the two apart), or UnsupportedVersionError from
        a coordinator older than Kafka 4.1, naming the release."""
        ids = validate_group_ids(group_ids)
        keys = None if partitions is None else check_partition_keys(partitions)
        deadline = await self._begin(timeout)
        got = await self._share_offsets(ids, None if keys is None else list(keys), deadline)
        if keys is None:
            return got
        return {g: {k: r[tp] for tp, k in keys.items() if tp in r} if isinstance(r, dict) else r
                for g, r in got.items()}

    async def _share_offsets(self, ids: list[str], partitions: list[TopicPartition] | None,
                             deadline: Deadline) -> dict[str, Any]:
        got = admin_share_groups.name_release(
            await self._run(admin_share_groups.DescribeShareGroupOffsets(partitions), ids, deadline),
            ApiKey.DESCRIBE_SHARE_GROUP_OFFSETS, "reading share-group offsets")
        empty = [g for g, res in got.items() if isinstance(res, dict) and not res]
        if empty:
            described = await self.describe_share_groups(empty, timeout=max(deadline.remaining(), 0.001))
            for g, d in described.items():
                if isinstance(d, GroupIdNotFoundError):
                    got[g] = d
        return got

    async def alter_share_group_offsets(self, group_id: str, offsets: Mapping[PartitionKey, int], *,
                                        timeout: float | None = None) -> dict[PartitionKey, None | KafkaError]:
        """Set a share group's start offsets (AlterShareGroupOffsets, Kafka 4.1+): per partition (keyed as given)
        None or the error.  The group must have no members: while it has any, its coordinator refuses the
        whole request (NonEmptyGroupError for every partition) and writes nothing.  A group that does not exist
        is made, empty.  A lost answer leaves the partitions "possibly applied"."""
        gid = validate_group_ids([group_id], what="group_id")[0]
        if not isinstance(offsets, Mapping):
            raise TypeError(f"offsets must be a mapping of partition to start offset, not {type(offsets).__name__}")
        keys = check_partition_keys(offsets, "offsets")
        checked: dict[TopicPartition, int] = {}
        for tp, k in keys.items():
            v = offsets[k]
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"offsets[{tp}] must be an int start offset, not {type(v).__name__}")
            if v < 0:
                raise ValueError(f"offsets[{tp}]: a start offset must be >= 0, not {v}")
            checked[tp] = v
        deadline = await self._begin(timeout)
        got = await self._run(admin_share_groups.AlterShareGroupOffsets(gid, checked), list(checked), deadline)
        return by_caller_key(admin_share_groups.name_release(got, ApiKey.ALTER_SHARE_GROUP_OFFSETS,
                                                             "altering share-group offsets"), keys)

    async def reset_share_group_offsets(
        self, group_id: str, partitions: Iterable[str | TopicPartition | tuple[str, int]] | str | None,
        to: ResetTo | str | Any, *, dry_run: bool = True, timeout: float | None = None,
    ) -> OffsetResetPlan:
        """kafka-share-groups.sh --reset-offsets: the plan per partition (``current`` is the start offset, the
        target clamped to [log start, log end]); written (AlterShareGroupOffsets) only with ``dry_run=False``.
        ``partitions``: topic names (every partition) and/or partitions, or None for every partition the group
        has a start offset in; ``to``: "earliest", "latest" or a :class:`ResetTo`.  Raises NonEmptyGroupError,
        writing nothing, while the group has members; UnsupportedVersionError from a broker before Kafka 4.1."""
        gid = validate_group_ids([group_id], what="group_id")[0]
        topic_names, parts = ([], []) if partitions is None else validate_reset_scope(partitions)
        target = ResetTo.of(to)
        if not isinstance(dry_run, bool):
            raise TypeError("dry_run must be a bool")
        deadline = await self._begin(timeout)

        async def describe() -> GroupDescription | KafkaError:
            return (await self.describe_share_groups([gid], timeout=max(deadline.remaining(), 0.001)))[gid]

        async def current() -> Any:
            return (await self._share_offsets([gid], None, deadline))[gid]

        return await admin_share_groups.reset(self._run, describe, current, gid, topic_names, parts,
                                              partitions is None, target, dry_run, deadline)

    async def delete_share_group_offsets(self, group_id: str, topics: Iterable[str], *,
                                         timeout: float | None = None) -> dict[str, None | KafkaError]:
        """Forget a share group's start offsets for whole topics (DeleteShareGroupOffsets, Kafka 4.1+): per topic
        None or the error (UnknownTopicOrPartitionError when the group has no offsets there; for every topic
        GroupIdNotFoundError for an unknown group, NonEmptyGroupError while it has members).  Members that
        subscribe later start again from the group's share.auto.offset.reset."""
        gid = validate_group_ids([group_id], what="group_id")[0]
        names = validate_topic_names(topics, "topics")
        if not names:
            raise ValueError("topics is empty")
        deadline = await self._begin(timeout)
        got = await self._run(admin_share_groups.DeleteShareGroupOffsets(gid), names, deadline)
        return admin_share_groups.name_release(got, ApiKey.DELETE_SHARE_GROUP_OFFSETS,
                                               "deleting share-group offsets")

    async def delete_share_groups(self, group_ids: Iterable[str], *,
                                  timeout: float | None = None) -> dict[str, None | KafkaError]:
        """DeleteGroups on each share group's coordinator, as Java's Admin.deleteShareGroups: per group None or
        its error (NonEmptyGroupError while it has members, GroupIdNotFoundError when it does not exist).  The
        group's start offsets go with it.  A lost answer leaves the group "possibly applied"."""
        ids = validate_group_ids(group_ids)
        deadline = await self._begin(timeout)
        return await self._run(DeleteGroups(), ids, deadline)


    # --- transactions and producers (KIP-664, KIP-939; issue #26) ------------------------------------------

    async def describe_producers(self, partitions: Iterable[PartitionKey], *, timeout: float | None = None,
                                 ) -> dict[PartitionKey, tuple[txn.ProducerState, ...] | KafkaError]:
        """The producers each partition's leader holds state for (DescribeProducers, Kafka 3.0+): producer id
        and epoch, last sequence and timestamp, the epoch of the coordinator of its last marker, and the first
        offset of its open transaction on the partition (``current_transaction_start_offset``, -1 for none).

        One request per leader, all its partitions in it.  A partition of a topic that does not exist is an
        UnknownTopicOrPartitionError at once; a leader older than 3.0 fails its partitions with
        UnsupportedVersionError.  Keyed as given (``("t", 0)`` or ``TopicPartition("t", 0)``)."""
        keys = txn.check_partitions(partitions, "describe_producers")
        deadline = await self._begin(timeout)
        got = await self._run(admin_txn.DescribeProducers(), list(keys), deadline)
        return by_caller_key(got, keys)

    async def list_transactions(self, *, states: Iterable[str] | None = None,
                                producer_ids: Iterable[int] | None = None, duration_filter_ms: int | None = None,
                                transactional_id_pattern: str | None = None,
                                timeout: float | None = None) -> txn.ListTransactionsResult:
        """Every broker's transactions (ListTransactions, Kafka 3.0+), merged, each failing broker reported.

        Filters, applied by the brokers: ``states`` (Kafka's names: Ongoing, PrepareCommit, CompleteAbort...;
        any case; an unknown one is a ValueError), ``producer_ids``, ``duration_filter_ms`` (only transactions
        running longer than that; ListTransactions v1, Kafka 3.8+) and ``transactional_id_pattern`` (a regular
        expression the whole id must match; v2, Kafka 4.1+).  A broker whose version cannot carry a filter the
        call uses is reported in ``errors`` with an UnsupportedVersionError and not asked (its answer would not
        be filtered); the other brokers answer."""
        state_list = txn.check_states(states)
        pid_list = txn.check_producer_ids(producer_ids)
        duration = txn.check_duration(duration_filter_ms)
        pattern = txn.check_pattern(transactional_id_pattern)
        deadline = await self._begin(timeout)
        await self.net.refresh_metadata(deadline=deadline)
        op = admin_txn.ListTransactions(state_list, pid_list, duration, pattern)
        per_node = await self._run(op, sorted(self.net.nodes), deadline)
        seen: dict[str, txn.TransactionListing] = {}
        errors: dict[int, KafkaError] = {}
        for node_id, res in per_node.items():
            if isinstance(res, KafkaError):
                errors[node_id] = res
                continue
            for t in res:
                seen.setdefault(t.transactional_id, t)
        return txn.ListTransactionsResult(tuple(sorted(seen.values(), key=lambda t: t.transactional_id)), errors,
                                          tuple(sorted(per_node)))

    async def describe_transactions(self, transactional_ids: Iterable[str], *, timeout: float | None = None,
                                    ) -> dict[str, txn.TransactionDescription | KafkaError]:
        """Each transactional id's state on its transaction coordinator (DescribeTransactions, Kafka 3.0+):
        state, producer id and epoch, timeout, start time and the partitions of the ongoing transaction.

        The coordinators are found with one batched FindCoordinator (key type 1; one request per id before
        FindCoordinator v4), then one DescribeTransactions per coordinator.  An id no coordinator knows is a
        TransactionalIdNotFoundError."""
        ids = txn.check_transactional_ids(transactional_ids, "describe_transactions")
        deadline = await self._begin(timeout)
        return await self._run(admin_txn.DescribeTransactions(), ids, deadline)

    async def abort_transaction(
        self, specs: txn.AbortTransactionSpec | Iterable[txn.AbortTransactionSpec], *,
        timeout: float | None = None,
    ) -> dict[TopicPartition, None | KafkaError]:
        """Abort a transaction on partitions by writing the abort marker its coordinator never wrote
        (WriteTxnMarkers to each partition's leader, as Java's Admin.abortTransaction does): the partition's
        last stable offset moves past the transaction and read_committed consumers go on.

        ``specs``: one AbortTransactionSpec (partition, producer id and epoch, coordinator epoch; take them
        from ``describe_producers`` or a HangingTransaction's ``abort_spec()``) or several, one per partition.
        Per partition: None once written, or the leader's error (a producer the partition holds no state for,
        an older producer epoch: InvalidProducerEpochError, an older coordinator epoch:
        TransactionCoordinatorFencedError).  A partition whose answer was lost is a KafkaTimeoutError with
        ``possibly_applied=True``.  Needs ClusterAction on the cluster."""
        checked = txn.check_abort_specs(specs)
        deadline = await self._begin(timeout)
        return await self._run(admin_txn.AbortTransaction(checked), list(checked), deadline)

    async def fence_producers(self, transactional_ids: Iterable[str], *, timeout: float | None = None,
                              ) -> dict[str, txn.FencedProducer | KafkaError]:
        """Fence the producers of each transactional id (InitProducerId with the id, on its coordinator, as
        Java's Admin.fenceProducers does): the id's epoch is bumped, so a producer still using it is fenced
        at its next request, and a transaction it left ongoing is aborted.  Per id the new producer id and
        epoch, or the coordinator's error.  An id whose answer was lost is a KafkaTimeoutError with
        ``possibly_applied=True`` (asking again bumps once more, which is harmless)."""
        ids = txn.check_transactional_ids(transactional_ids, "fence_producers")
        deadline = await self._begin(timeout)
        return await self._run(admin_txn.FenceProducers(), ids, deadline)

    async def force_terminate_transaction(self, transactional_id: str, *, timeout: float | None = None,
                                          ) -> txn.FencedProducer | KafkaError:
        """Terminate the transaction of ``transactional_id``, even a prepared two-phase one (KIP-939):
        InitProducerId v6 with KeepPreparedTxn false on its coordinator, which aborts it and bumps the epoch.

        A coordinator that does not speak InitProducerId v6 cannot terminate a prepared transaction: the
        answer is an UnsupportedVersionError and nothing is sent (``fence_producers`` is the older tool).
        Returns the new producer id and epoch, or the coordinator's error; a lost answer is a
        KafkaTimeoutError with ``possibly_applied=True``."""
        ids = txn.check_transactional_ids([transactional_id] if isinstance(transactional_id, str)
                                          else transactional_id, "force_terminate_transaction")
        deadline = await self._begin(timeout)
        got = await self._run(admin_txn.FenceProducers(force_terminate=True), ids, deadline)
        return got[ids[0]]  # type: ignore[no-any-return]

    async def find_hanging_transactions(
        self, *, partitions: Iterable[PartitionKey] | None = None, topics: Iterable[str] | None = None,
        broker_id: int | None = None,
        max_transaction_timeout_ms: int = _batching.MAX_TRANSACTION_TIMEOUT_MS, timeout: float | None = None,
    ) -> txn.HangingTransactionsResult:
        """Transactions hanging on partitions, as ``kafka-transactions.sh find-hanging`` defines them: open on a
        partition (its leader reports a transaction start offset for the producer) for longer than
        ``max_transaction_timeout_ms`` (the cluster's transaction.max.timeout.ms, 15 minutes by default; no
        live transaction may run longer), and not held by its coordinator: the coordinators list no
        transactional id for the producer, or the id's coordinator has another producer id, is not in the
        middle of the transaction (Ongoing, or writing its markers), or does not have the partition in it.

        A producer that died mid-transaction is *not* hanging: its coordinator still holds the transaction
        and aborts it itself once its timeout passes.  Exactly one of ``partitions``, ``topics`` (every
        partition of them) or ``broker_id`` (every partition with a replica there) says where to look.
        Requests: one Metadata for topics or a broker, one DescribeProducers per leader, and only for
        candidates one ListTransactions per broker (filtered by their producer ids) and one DescribeTransactions
        per coordinator.  What could not be checked is in ``errors``, keyed by partition."""
        given = [x is not None for x in (partitions, topics, broker_id)]
        if sum(given) != 1:
            raise ValueError("find_hanging_transactions: give exactly one of partitions, topics or broker_id")
        keys = txn.check_partitions(partitions, "find_hanging_transactions") if partitions is not None else None
        names = topics_mod.validate_topic_names(topics) if topics is not None else None
        if names is not None and not names:
            raise ValueError("find_hanging_transactions: topics is empty")
        if broker_id is not None:
            _check_int(broker_id, "broker_id")
        threshold_ms = txn.check_max_timeout(max_transaction_timeout_ms)
        deadline = await self._begin(timeout)
        errors: dict[TopicPartition, KafkaError] = {}
        if keys is not None:
            wanted = list(keys)
        else:
            if names is None:
                names = [t.name for t in await self.list_topics(timeout=max(deadline.remaining(), 0.001))]
            described = await admin_topics.describe_topics(self._ctx, names, False, deadline) if names else {}
            wanted = []
            for name, d in described.items():
                if isinstance(d, KafkaError):
                    raise d
                wanted += [TopicPartition(name, p.partition) for p in d.partitions
                           if broker_id is None or broker_id in p.replicas]
        if not wanted:
            return txn.HangingTransactionsResult((), {}, 0)
        producers = await self._run(admin_txn.DescribeProducers(), wanted, deadline)
        now = int(time.time() * 1000)
        candidates: list[tuple[TopicPartition, txn.ProducerState]] = []
        for tp, res in producers.items():
            if isinstance(res, KafkaError):
                errors[tp] = res
                continue
            candidates += [(tp, s) for s in res
                           if s.in_transaction and s.last_timestamp < now - threshold_ms]
        if not candidates:
            return txn.HangingTransactionsResult((), errors, len(wanted))
        await self.net.refresh_metadata(deadline=deadline)
        pids = sorted({s.producer_id for _tp, s in candidates})
        listed = await self._run(admin_txn.ListTransactions([], pids, None, None), sorted(self.net.nodes),
                                 deadline)
        listing_failed = next((r for r in listed.values() if isinstance(r, KafkaError)), None)
        tid_of = {t.producer_id: t.transactional_id for r in listed.values() if not isinstance(r, KafkaError)
                  for t in r}
        tids = sorted(set(tid_of.values()))
        described_txns = await self._run(admin_txn.DescribeTransactions(), tids, deadline) if tids else {}
        hanging: list[txn.HangingTransaction] = []
        for tp, s in candidates:
            tid = tid_of.get(s.producer_id)
            desc = described_txns.get(tid) if tid is not None else None
            if tid is None and listing_failed is not None:
                # Some broker did not answer: the id may be on it.  Not decided, not called hanging.
                errors[tp] = listing_failed
                continue
            if isinstance(desc, KafkaError) and getattr(desc, "code", None) != ErrorCode.TRANSACTIONAL_ID_NOT_FOUND:
                errors[tp] = desc
                continue
            held = (isinstance(desc, txn.TransactionDescription) and desc.producer_id == s.producer_id
                    and desc.state in txn.HELD_STATES and tp in desc.partitions)
            if not held:
                state = desc.state if isinstance(desc, txn.TransactionDescription) else None
                hanging.append(txn.HangingTransaction(tp, s.producer_id, s.producer_epoch, s.coordinator_epoch,
                                                      s.current_transaction_start_offset, s.last_timestamp,
                                                      tid, state))
        return txn.HangingTransactionsResult(tuple(hanging), errors, len(wanted))


    # --- groups of every type, streams groups (issue #25, KIP-1043 / KIP-1071) ------------------------------

    async def list_groups(self, *, types: Iterable[str] | None = None, states: Iterable[str] | None = None,
                          timeout: float | None = None) -> ListGroupsResult:
        """Groups of every type (classic, consumer, share, streams; KIP-1043), from ListGroups on every broker
        concurrently, merged; each broker that failed is in ``errors``, never silently skipped.

        ``types`` and ``states`` filter on the brokers (any case; Kafka's spelling comes back in
        ``GroupListing.group_type``/``state``).  An unknown type or state is a ValueError naming the valid
        ones, before any I/O.  A broker older than the filter (types: ListGroups v5, Kafka 3.8; states: v4,
        Kafka 2.6) is reported in ``errors`` with UnsupportedVersionError rather than listed unfiltered."""
        type_list = validate_group_types(types)
        state_list = validate_group_states(states)
        deadline = await self._begin(timeout)
        return await self._list_groups(state_list, type_list, deadline)

    async def describe_classic_groups(self, group_ids: Iterable[str], *, include_authorized_operations: bool = False,
                                      timeout: float | None = None) -> dict[str, GroupDescription | KafkaError]:
        """Classic groups only (DescribeGroups; Java's describeClassicGroups), whatever their protocol type
        (consumers, Connect workers, any JoinGroup user).  A group of another type, or none, is a
        GroupIdNotFoundError (DescribeGroups v6 says "not a classic group"; v0-5 call it Dead)."""
        ids = validate_group_ids(group_ids)
        _check_bool(include_authorized_operations, "include_authorized_operations")
        deadline = await self._begin(timeout)
        return await self._run(DescribeGroups(include_authorized_operations), ids, deadline)

    async def describe_streams_groups(self, group_ids: Iterable[str], *, include_authorized_operations: bool = False,
                                      timeout: float | None = None,
                                      ) -> dict[str, StreamsGroupDescription | KafkaError]:
        """Streams groups (KIP-1071, StreamsGroupDescribe on each group's coordinator): members with their task
        assignments, and the topology the group runs.

        Per group: its description, GroupIdNotFoundError (no such group, or not a streams group), or
        UnsupportedVersionError without a request when its coordinator has no streams groups (before Kafka
        4.2)."""
        ids = validate_group_ids(group_ids)
        _check_bool(include_authorized_operations, "include_authorized_operations")
        deadline = await self._begin(timeout)
        got = await self._run(StreamsGroupDescribe(include_authorized_operations), ids, deadline)
        return admin_share_groups.name_release(got, ApiKey.STREAMS_GROUP_DESCRIBE, "describing streams groups",
                                               STREAMS_RELEASE)

    async def list_streams_group_offsets(
        self, group_ids: Iterable[str], *, timeout: float | None = None,
    ) -> dict[str, dict[TopicPartition, OffsetAndMetadata | KafkaError] | KafkaError]:
        """A streams group's committed offsets (its source topics' positions): OffsetFetch, as for consumer
        groups (Java's listStreamsGroupOffsets).  A group with no committed offsets is described
        (StreamsGroupDescribe) to tell "none committed yet" from "no such group" (GroupIdNotFoundError)."""
        ids = validate_group_ids(group_ids)
        deadline = await self._begin(timeout)
        offsets = await self._run(OffsetFetch(None), ids, deadline)
        empty = [g for g, res in offsets.items() if isinstance(res, dict) and not res]
        if empty:
            described = await self._run(StreamsGroupDescribe(False), empty, deadline)
            for g, d in described.items():
                if isinstance(d, GroupIdNotFoundError):
                    offsets[g] = GroupIdNotFoundError(f"streams group {g!r} does not exist (no committed "
                                                      f"offsets, and its coordinator does not know it)")
        return offsets

    async def delete_streams_groups(self, group_ids: Iterable[str], *,
                                    timeout: float | None = None) -> dict[str, None | KafkaError]:
        """Delete streams groups with their committed offsets (DeleteGroups, as Java's deleteStreamsGroups):
        per group None or its error (NonEmptyGroupError while members are in it, GroupIdNotFoundError).  The
        group's internal topics (changelogs, repartition topics) are the application's to delete, as with
        kafka-streams-groups.sh."""
        ids = validate_group_ids(group_ids)
        deadline = await self._begin(timeout)
        return await self._run(DeleteGroups(), ids, deadline)


    # --- newer-version options (issue #25): config resources by type (KIP-1142) --------------------------------

    async def list_config_resources(self, types: Iterable[configs.ConfigResourceType | str] | None = None, *,
                                    timeout: float | None = None) -> list[configs.ConfigResource]:
        """Every config resource of the given types that the cluster knows (ListConfigResources, KIP-1142):
        topics, brokers, broker loggers, groups, client-metrics subscriptions; ``types=None`` lists every type
        the broker lists.  Sorted by type, then name.

        Types are ConfigResourceType members or names ("topics", "groups", "client-metrics"...); an unknown
        one is a ValueError before any I/O.  A broker before Kafka 4.1 lists client-metrics resources only
        (ListClientMetricsResources, 3.7+): any other request raises UnsupportedVersionError without
        sending, rather than return a partial list."""
        wanted = check_resource_types(types)
        deadline = await self._begin(timeout)
        got = (await self._run(ListConfigResources(wanted), [ALL_RESOURCES], deadline))[ALL_RESOURCES]
        if isinstance(got, KafkaError):
            raise got
        return got  # type: ignore[no-any-return]


def _check_bool(value: object, what: str) -> None:
    if not isinstance(value, bool):
        raise TypeError(f"{what} must be a bool, not {type(value).__name__}")


def _value(results: Mapping[Any, Any], key: Any) -> Any:
    """The one key's value, its error raised (calls with a single key have no per-key results to return)."""
    got = results[key]
    if isinstance(got, KafkaError):
        raise got
    return got


def _endpoints(values: Iterable[quorum.RaftVoterEndpoint | str]) -> list[quorum.RaftVoterEndpoint]:
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise TypeError("endpoints must be a list of RaftVoterEndpoint or 'NAME://host:port' strings")
    out = [e if isinstance(e, quorum.RaftVoterEndpoint) else quorum.RaftVoterEndpoint.parse(e) for e in values]
    if not out:
        raise ValueError("endpoints is empty: a voter needs at least one controller listener")
    return out


def _optional_str(value: object, what: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise TypeError(f"{what} must be a str or None, not {type(value).__name__}")
    return value


def _request_timeout_ms(deadline: Deadline, default_ms: int) -> int:
    """A request's own TimeoutMs (how long the broker may wait for followers or the controller): the default,
    or the call's remaining time when that is shorter."""
    remaining = deadline.remaining()
    return default_ms if remaining == float("inf") else max(1, min(default_ms, int(remaining * 1000)))


def _check_int(value: object, what: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an int, not {type(value).__name__}")
