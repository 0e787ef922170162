"""The asyncio AdminClient. Each method is one admin operation: lookup, per-version build, per-key fold.

Every method that takes keys returns a dict with one entry per distinct requested key, whose value is the
result or a :class:`kadmin.errors.KafkaError`; one key's failure never raises.  Bad input raises
TypeError/ValueError before any network I/O.  Only failures of the whole call (no broker reachable,
authentication, the client closed) raise.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from kadmin import quotas
from kadmin.admin import _driver
from kadmin.admin import quotas as admin_quotas
from kadmin.admin.coordinators import CoordinatorCache, CoordinatorLookup, find_coordinators, key_type_code
from kadmin.admin.groups import (
    DeleteGroupsHandler,
    DescribeGroupsHandler,
    OffsetFetchHandler,
    validate_group_ids,
    validate_partitions,
)
from kadmin.config import ClientConfig
from kadmin.errors import KafkaError, ProtocolError, UnsupportedVersionError, error_for_code
from kadmin.network.client import NetworkClient
from kadmin.network.retry import Deadline, backoff_delays, check_timeout
from kadmin.protocol import api_name, message_type, shipped_names
from kadmin.types import (
    ApiVersionRange,
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

LIST_GROUPS = 16
LIST_OFFSETS = 2
METADATA = 3


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
    """``async with AdminClient("host:9092") as admin: await admin.describe_consumer_groups([...])``."""

    def __init__(self, bootstrap_servers: str | Sequence[str] | None = None, *, config: ClientConfig | None = None,
                 **settings: Any) -> None:
        self.config = _config(bootstrap_servers, config, settings)
        self.net = NetworkClient(self.config)
        self.coordinators = CoordinatorCache(self.net, self.config)
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

    def _deadline(self, timeout: float | None) -> Deadline:
        checked = check_timeout(timeout)
        return Deadline(checked if checked is not None else self.config.default_timeout_s)

    # --- cluster -----------------------------------------------------------------------------------------

    async def describe_cluster(self, *, timeout: float | None = None) -> ClusterDescription:
        deadline = self._deadline(timeout)
        await self.start(deadline)
        await self.net.refresh_metadata(deadline=deadline)
        nodes = tuple(sorted(self.net.nodes.values(), key=lambda n: n.node_id))
        return ClusterDescription(self.net.cluster_id, self.net.controller_id, nodes)

    async def api_versions(self, *, timeout: float | None = None) -> dict[int, NodeApiVersions]:
        """Per node: every API the node advertises, its range, ours, and the version we would use."""
        deadline = self._deadline(timeout)
        await self.start(deadline)
        ours = _our_ranges()

        async def one(node_id: int) -> NodeApiVersions:
            table = await self.net.api_versions(node_id, deadline=deadline)
            apis: dict[int, ApiVersionRange] = {}
            for key, (lo, hi) in sorted(table.items()):
                mine = ours.get(key)
                negotiated: int | None = None
                if mine is not None:
                    try:
                        negotiated = await self.net.negotiated_version(node_id, key, deadline=deadline)
                    except UnsupportedVersionError:
                        negotiated = None
                apis[key] = ApiVersionRange(key, api_name(key) if mine else _release_api_name(key), lo, hi, mine,
                                            negotiated)
            n = self.net.nodes[node_id]
            return NodeApiVersions(n, apis, _guess_release(table))

        per_node = await _driver.gather_per_node(sorted(self.net.nodes), one)
        out: dict[int, NodeApiVersions] = {}
        for node_id, res in per_node.items():
            if isinstance(res, KafkaError):
                raise res
            out[node_id] = res
        return out

    # --- coordinators ------------------------------------------------------------------------------------

    async def find_coordinators(self, keys: Iterable[str], key_type: str = "group", *,
                                timeout: float | None = None) -> dict[str, Coordinator | KafkaError]:
        ids = validate_group_ids(keys, what="keys")
        code = key_type_code(key_type)
        deadline = self._deadline(timeout)
        await self.start(deadline)
        found = await find_coordinators(self.net, ids, code, deadline, self.config)
        for k, v in found.items():
            if isinstance(v, Coordinator):
                self.coordinators._nodes[(code, k)] = v.node_id
        return found

    # --- groups ------------------------------------------------------------------------------------------

    async def describe_consumer_groups(self, group_ids: Iterable[str], *, include_authorized_operations: bool = False,
                                       timeout: float | None = None) -> dict[str, GroupDescription | KafkaError]:
        ids = validate_group_ids(group_ids)
        if not isinstance(include_authorized_operations, bool):
            raise TypeError("include_authorized_operations must be a bool")
        deadline = self._deadline(timeout)
        await self.start(deadline)
        return await _driver.run(self.net, DescribeGroupsHandler(include_authorized_operations), ids,
                                 CoordinatorLookup(self.coordinators), deadline, self.config)

    async def delete_consumer_groups(self, group_ids: Iterable[str], *,
                                     timeout: float | None = None) -> dict[str, None | KafkaError]:
        ids = validate_group_ids(group_ids)
        deadline = self._deadline(timeout)
        await self.start(deadline)
        return await _driver.run(self.net, DeleteGroupsHandler(), ids, CoordinatorLookup(self.coordinators),
                                 deadline, self.config, write=True)

    async def list_consumer_group_offsets(
        self, group_ids: Iterable[str], partitions: Iterable[TopicPartition | tuple[str, int]] | None = None, *,
        timeout: float | None = None,
    ) -> dict[str, dict[TopicPartition, OffsetAndMetadata | KafkaError] | KafkaError]:
        ids = validate_group_ids(group_ids)
        parts = validate_partitions(partitions)
        deadline = self._deadline(timeout)
        await self.start(deadline)
        return await _driver.run(self.net, OffsetFetchHandler(parts), ids, CoordinatorLookup(self.coordinators),
                                 deadline, self.config)

    async def list_consumer_groups(self, *, states: Iterable[str] | None = None, types: Iterable[str] | None = None,
                                   timeout: float | None = None) -> ListGroupsResult:
        """ListGroups on every broker concurrently; merged, deduplicated, and each failing broker reported."""
        state_list = _str_list(states, "states")
        type_list = _str_list(types, "types")
        deadline = self._deadline(timeout)
        await self.start(deadline)
        await self.net.refresh_metadata()
        req = message_type(LIST_GROUPS, "request")

        async def one(node_id: int) -> list[GroupListing]:
            async def attempt() -> list[GroupListing]:
                v = await self.net.negotiated_version(node_id, LIST_GROUPS)
                if state_list is not None and v < 4:
                    raise UnsupportedVersionError(
                        f"node {node_id} speaks ListGroups up to v{v}; filtering by state needs v4+ (Kafka 2.6)")
                if type_list is not None and v < 5:
                    raise UnsupportedVersionError(
                        f"node {node_id} speaks ListGroups up to v{v}; filtering by type needs v5+ (Kafka 3.8)")
                kwargs: dict[str, Any] = {}
                if v >= 4:
                    kwargs["states_filter"] = state_list or []
                if v >= 5:
                    kwargs["types_filter"] = type_list or []
                resp: Any = await self.net.send(node_id, req(**kwargs), v, deadline=deadline)
                err = error_for_code(resp.error_code)
                if err is not None:
                    raise err
                return [GroupListing(g.group_id, g.protocol_type, g.group_state or None if v >= 4 else None,
                                     g.group_type or None if v >= 5 else None, node_id) for g in resp.groups]

            listed: list[GroupListing] = await _retrying(attempt, deadline, self.config,
                                                         f"ListGroups on node {node_id}")
            return listed

        per_node = await _driver.gather_per_node(sorted(self.net.nodes), one)
        seen: dict[str, GroupListing] = {}
        errors: dict[int, KafkaError] = {}
        for node_id, res in per_node.items():
            if isinstance(res, KafkaError):
                errors[node_id] = res
                continue
            for g in res:
                seen.setdefault(g.group_id, g)
        return ListGroupsResult(tuple(sorted(seen.values(), key=lambda g: g.group_id)), errors)

    async def consumer_group_lag(
        self, group_ids: Iterable[str], *, timeout: float | None = None,
    ) -> dict[str, dict[TopicPartition, PartitionLag | KafkaError] | KafkaError]:
        """Committed offsets against the latest offsets (ListOffsets to each partition's leader)."""
        ids = validate_group_ids(group_ids)
        deadline = self._deadline(timeout)
        await self.start(deadline)
        offsets = await _driver.run(self.net, OffsetFetchHandler(None), ids, CoordinatorLookup(self.coordinators),
                                    deadline, self.config)
        wanted: set[TopicPartition] = set()
        for res in offsets.values():
            if isinstance(res, dict):
                wanted.update(tp for tp, o in res.items() if isinstance(o, OffsetAndMetadata))
        ends = await self._log_end_offsets(wanted, deadline) if wanted else {}
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
                end = ends.get(tp)
                if end is None:
                    lag[tp] = ProtocolError(f"the partition leader's ListOffsets answer has no entry for {tp}")
                elif isinstance(end, KafkaError):
                    lag[tp] = end
                else:
                    lag[tp] = PartitionLag(o.offset, end)
            out[gid] = lag
        return out

    async def _log_end_offsets(self, partitions: set[TopicPartition],
                               deadline: Deadline) -> dict[TopicPartition, int | KafkaError]:
        """Latest offsets; partitions answered with a retriable error (NOT_LEADER_OR_FOLLOWER after a leader
        moved, LEADER_NOT_AVAILABLE...) are asked again with fresh metadata, with backoff, until the deadline."""
        out: dict[TopicPartition, int | KafkaError] = {}
        todo = set(partitions)
        delays = backoff_delays(self.config)
        while True:
            got = await self._log_end_offsets_once(todo, deadline)
            again = {tp for tp, v in got.items() if isinstance(v, KafkaError) and v.retriable}
            out.update((tp, v) for tp, v in got.items() if tp not in again)
            delay = next(delays)
            if not again or deadline.remaining() <= delay:
                out.update((tp, got[tp]) for tp in again)  # out of time: the last error is the answer
                return out
            log.debug("ListOffsets: asking again for %d partition(s) in %.3fs", len(again), delay)
            await asyncio.sleep(delay)
            todo = again

    async def _log_end_offsets_once(self, partitions: set[TopicPartition],
                                    deadline: Deadline) -> dict[TopicPartition, int | KafkaError]:
        topics = sorted({tp.topic for tp in partitions})
        meta_req = message_type(METADATA, "request")
        T = meta_req.MetadataRequestTopic  # type: ignore[attr-defined]

        async def metadata() -> Any:
            node = self.net.least_loaded_node()
            v = await self.net.negotiated_version(node, METADATA)
            req = meta_req(topics=[T(name=t) for t in topics], allow_auto_topic_creation=False) if v >= 4 else \
                meta_req(topics=[T(name=t) for t in topics])
            return await self.net.send(node, req, v, deadline=deadline)

        meta = await _retrying(metadata, deadline, self.config, "Metadata")
        out: dict[TopicPartition, int | KafkaError] = {}
        by_leader: dict[int, dict[str, list[int]]] = {}
        for t in meta.topics:
            terr = error_for_code(t.error_code)
            if terr is not None:
                # An unknown (e.g. deleted) topic comes back with its error and no partitions.
                out.update((tp, terr) for tp in partitions if tp.topic == t.name)
            for p in t.partitions:
                tp = TopicPartition(t.name, p.partition_index)
                if tp not in partitions:
                    continue
                if terr is not None:
                    out[tp] = terr
                elif p.leader_id < 0:
                    out[tp] = error_for_code(5, f"{tp} has no leader")  # type: ignore[assignment]
                else:
                    by_leader.setdefault(p.leader_id, {}).setdefault(t.name, []).append(p.partition_index)
        located = {TopicPartition(t, p) for ps in by_leader.values() for t, parts in ps.items() for p in parts}
        for tp in partitions - located - out.keys():
            # Offsets committed for a partition the topic no longer has (or a topic the answer left out).
            out[tp] = error_for_code(3, f"{tp} is not in the cluster metadata")  # type: ignore[assignment]
        lreq = message_type(LIST_OFFSETS, "request")
        LT, LP = lreq.ListOffsetsTopic, lreq.ListOffsetsPartition  # type: ignore[attr-defined]

        async def one(node_id: int) -> dict[TopicPartition, int | KafkaError]:
            v = await self.net.negotiated_version(node_id, LIST_OFFSETS)
            topics_req = [LT(name=t, partitions=[LP(partition_index=p, timestamp=-1, max_num_offsets=1) for p in ps])
                          for t, ps in by_leader[node_id].items()]
            resp: Any = await self.net.send(node_id, lreq(replica_id=-1, topics=topics_req), v, deadline=deadline)
            res: dict[TopicPartition, int | KafkaError] = {}
            for t in resp.topics:
                for p in t.partitions:
                    tp = TopicPartition(t.name, p.partition_index)
                    err = error_for_code(p.error_code)
                    if err is not None:
                        res[tp] = err
                    elif v == 0:
                        res[tp] = p.old_style_offsets[0] if p.old_style_offsets else -1
                    else:
                        res[tp] = p.offset
            return res

        per_leader = await _driver.gather_per_node(by_leader, one)
        for node_id, res in per_leader.items():
            if isinstance(res, KafkaError):
                for t, ps in by_leader[node_id].items():
                    for p in ps:
                        out[TopicPartition(t, p)] = res
            else:
                out.update(res)
        return out

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
        deadline = self._deadline(timeout)
        await self.start(deadline)
        return await admin_quotas.describe_client_quotas(self.net, filter, deadline, self.config)

    async def alter_client_quotas(
        self, alterations: Iterable[quotas.ClientQuotaAlteration], *, validate_only: bool = False,
        allow_unknown_keys: bool = False, batch_size: int = admin_quotas.DEFAULT_BATCH_SIZE,
        max_concurrency: int = admin_quotas.DEFAULT_MAX_CONCURRENCY, timeout: float | None = None,
    ) -> dict[quotas.ClientQuotaEntity, None | KafkaError]:
        """Apply each alteration; {entity: None or its KafkaError}, one entry per alteration, in order.

        Everything is validated before anything is sent (see :mod:`kadmin.quotas` for the rules).  Entities go
        ``batch_size`` per request, at most ``max_concurrency`` requests in flight; retriable errors are retried
        until the deadline (an alteration states final values, so applying it twice is harmless).  An entity
        still unanswered at the deadline gets a KafkaTimeoutError whose ``possibly_applied`` says whether it
        may have been applied anyway.  ``validate_only`` asks the broker to check without applying.  A broker
        older than Kafka 2.6 raises UnsupportedVersionError.
        """
        items = quotas.validate_alterations(alterations, allow_unknown_keys=allow_unknown_keys)
        if not isinstance(validate_only, bool):
            raise TypeError("validate_only must be a bool")
        size, concurrency = admin_quotas.check_batching(batch_size, max_concurrency)
        deadline = self._deadline(timeout)
        await self.start(deadline)
        return await admin_quotas.alter_client_quotas(self.net, items, deadline, self.config, validate_only=validate_only,
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
        deadline = self._deadline(timeout)
        await self.start(deadline)

        async def describe(flt: quotas.ClientQuotaFilter) -> dict[quotas.ClientQuotaEntity, dict[str, float]]:
            return await admin_quotas.describe_client_quotas(self.net, flt, deadline, self.config)

        return await quotas.resolve_client_quotas(describe, user, client_id, ip)


async def _retrying(fn: Any, deadline: Deadline, config: ClientConfig, what: str) -> Any:
    from kadmin.network.retry import retry_call

    return await retry_call(fn, deadline=deadline, config=config, what=what)


def _str_list(values: Iterable[str] | None, what: str) -> list[str] | None:
    if values is None:
        return None
    if isinstance(values, (str, bytes)):
        raise TypeError(f"{what} must be a list of strings, not a single string")
    out = list(values)
    for v in out:
        if not isinstance(v, str) or not v:
            raise ValueError(f"{what} must contain non-empty strings; got {v!r}")
    return out


def _our_ranges() -> dict[int, tuple[int, int]]:
    out = {}
    for name in shipped_names():
        cls = message_type(name)
        if cls.KIND == "request" and cls.API_KEY is not None:
            out[cls.API_KEY] = (cls.MIN_VERSION, cls.MAX_VERSION)
    return out


def _guess_release(table: Mapping[int, tuple[int, int]]) -> str | None:
    try:
        from kadmin.versions import guess_release
    except ImportError:  # pragma: no cover - versions tables ship with kadmin
        return None
    return guess_release(dict(table))


def _release_api_name(key: int) -> str:
    try:
        from kadmin.versions import API_NAMES
    except ImportError:  # pragma: no cover
        return f"api {key}"
    return API_NAMES.get(key, f"api {key}")
