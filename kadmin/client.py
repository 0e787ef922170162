"""The synchronous AdminClient: the asyncio client run on a private event loop in a background thread.

Why a private loop: scripts, threads and Spark drivers call admin methods from code that has no event loop
(or one they do not own).  One loop thread per client serves every calling thread; calls are submitted
with ``run_coroutine_threadsafe`` and waited on, so the client is safe to share between threads.
After ``os.fork()`` the child must not use the parent's sockets or loop: the client refuses with a clear
error instead.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import threading
from collections.abc import Coroutine, Iterable, Mapping, Sequence
from typing import Any, TypeVar, overload

from kadmin import acls, aio, configs, quotas, scram, storage, tokens, topics
from kadmin._keys import PartitionKey, ResourceKey
from kadmin.admin import acls as admin_acls
from kadmin.admin import quotas as admin_quotas
from kadmin.admin import scram as admin_scram
from kadmin.admin.partitions import ListedOffset, OffsetSpec
from kadmin.config import ClientConfig
from kadmin.errors import ClientClosedError, ForkedProcessError, KafkaError, KafkaTimeoutError
from kadmin.network.retry import check_timeout
from kadmin.offset_reset import MemberToRemove, OffsetResetPlan, ResetTo
from kadmin.topics import TopicDescription, TopicListing
from kadmin.types import (
    ClusterDescription,
    Coordinator,
    GroupDescription,
    ListGroupsResult,
    NodeApiVersions,
    OffsetAndMetadata,
    PartitionLag,
    TopicPartition,
)

T = TypeVar("T")


class AdminClient:
    """``with AdminClient("host:9092") as admin: admin.describe_consumer_groups(["g1", "g2"])``."""

    def __init__(self, bootstrap_servers: str | Sequence[str] | None = None, *, config: ClientConfig | None = None,
                 **settings: Any) -> None:
        cfg = aio._config(bootstrap_servers, config, settings)
        self.config = cfg
        self._pid = os.getpid()
        self._closed = False
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run_loop, name="kadmin-loop", daemon=True)
        self._thread.start()
        self._aio = self._submit(_make_aio(cfg), timeout=None)

    def _run_loop(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.run_forever()

    def _check(self) -> None:
        if os.getpid() != self._pid:
            raise ForkedProcessError(
                f"this AdminClient was created in process {self._pid} and cannot be used after fork() "
                f"(in process {os.getpid()}): create a new AdminClient in the child")
        if self._closed:
            raise ClientClosedError("the AdminClient is closed")

    def _submit(self, coro: Coroutine[Any, Any, T], timeout: float | None) -> T:
        fut = asyncio.run_coroutine_threadsafe(coro, self._loop)
        try:
            # The coroutine enforces its own deadline; the margin here only guards against a stuck loop.
            return fut.result(None if timeout is None else timeout + 30.0)
        except concurrent.futures.TimeoutError:
            fut.cancel()
            raise KafkaTimeoutError("the call did not finish in time") from None

    def _call(self, coro: Coroutine[Any, Any, T], timeout: float | None) -> T:
        try:
            self._check()
            checked = check_timeout(timeout)
        except (KafkaError, ValueError):
            coro.close()
            raise
        return self._submit(coro, checked if checked is not None else self.config.default_timeout_s)

    def __enter__(self) -> AdminClient:
        self._call(self._aio.start(), None)
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._closed or os.getpid() != self._pid:
            return
        try:
            self._submit(self._aio.close(), timeout=10.0)
        finally:
            self._closed = True
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=10.0)
            if not self._thread.is_alive():
                self._loop.close()

    def __del__(self) -> None:  # best effort: a forgotten client should not keep its thread alive
        try:
            if not self._closed and os.getpid() == self._pid and self._loop.is_running():
                self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass

    # --- operations (see kadmin.aio.AdminClient for what each does) ---------------------------------------

    def describe_cluster(self, *, include_authorized_operations: bool = False,
                         timeout: float | None = None) -> ClusterDescription:
        return self._call(self._aio.describe_cluster(
            include_authorized_operations=include_authorized_operations, timeout=timeout), timeout)

    def api_versions(self, *, timeout: float | None = None) -> dict[int, NodeApiVersions]:
        return self._call(self._aio.api_versions(timeout=timeout), timeout)

    def find_coordinators(self, keys: Iterable[str], key_type: str = "group", *,
                          timeout: float | None = None) -> dict[str, Coordinator | KafkaError]:
        return self._call(self._aio.find_coordinators(keys, key_type, timeout=timeout), timeout)

    def describe_consumer_groups(self, group_ids: Iterable[str], *, include_authorized_operations: bool = False,
                                 timeout: float | None = None) -> dict[str, GroupDescription | KafkaError]:
        return self._call(self._aio.describe_consumer_groups(
            group_ids, include_authorized_operations=include_authorized_operations, timeout=timeout), timeout)

    def delete_consumer_groups(self, group_ids: Iterable[str], *,
                               timeout: float | None = None) -> dict[str, None | KafkaError]:
        return self._call(self._aio.delete_consumer_groups(group_ids, timeout=timeout), timeout)

    def describe_share_groups(self, group_ids: Iterable[str], *, include_authorized_operations: bool = False,
                              timeout: float | None = None) -> dict[str, GroupDescription | KafkaError]:
        return self._call(self._aio.describe_share_groups(
            group_ids, include_authorized_operations=include_authorized_operations, timeout=timeout), timeout)

    def alter_consumer_group_offsets(
        self, group_id: str, offsets: Mapping[PartitionKey, OffsetAndMetadata | int], *,
        timeout: float | None = None,
    ) -> dict[PartitionKey, None | KafkaError]:
        return self._call(self._aio.alter_consumer_group_offsets(group_id, offsets, timeout=timeout), timeout)

    def reset_consumer_group_offsets(
        self, group_id: str, partitions: Iterable[str | TopicPartition | tuple[str, int]] | str,
        to: ResetTo | str | Any, *, dry_run: bool = True, timeout: float | None = None,
    ) -> OffsetResetPlan:
        return self._call(self._aio.reset_consumer_group_offsets(
            group_id, partitions, to, dry_run=dry_run, timeout=timeout), timeout)

    def delete_consumer_group_offsets(
        self, group_id: str, partitions: Iterable[PartitionKey], *,
        timeout: float | None = None,
    ) -> dict[PartitionKey, None | KafkaError]:
        return self._call(self._aio.delete_consumer_group_offsets(group_id, partitions, timeout=timeout), timeout)

    def remove_members_from_consumer_group(
        self, group_id: str, members: Iterable[str | MemberToRemove] | None = None, *, reason: str | None = None,
        timeout: float | None = None,
    ) -> dict[MemberToRemove, None | KafkaError]:
        return self._call(self._aio.remove_members_from_consumer_group(
            group_id, members, reason=reason, timeout=timeout), timeout)

    def list_consumer_groups(self, *, states: Iterable[str] | None = None, types: Iterable[str] | None = None,
                             timeout: float | None = None) -> ListGroupsResult:
        return self._call(self._aio.list_consumer_groups(states=states, types=types, timeout=timeout), timeout)

    @overload
    def list_consumer_group_offsets(
        self, group_ids: Iterable[str], partitions: None = None, *, timeout: float | None = None,
    ) -> dict[str, dict[TopicPartition, OffsetAndMetadata | KafkaError] | KafkaError]: ...

    @overload
    def list_consumer_group_offsets(
        self, group_ids: Iterable[str], partitions: Iterable[PartitionKey], *, timeout: float | None = None,
    ) -> dict[str, dict[PartitionKey, OffsetAndMetadata | KafkaError] | KafkaError]: ...

    def list_consumer_group_offsets(
        self, group_ids: Iterable[str], partitions: Iterable[Any] | None = None, *,
        timeout: float | None = None,
    ) -> dict[str, dict[Any, OffsetAndMetadata | KafkaError] | KafkaError]:
        return self._call(self._aio.list_consumer_group_offsets(group_ids, partitions, timeout=timeout), timeout)

    def consumer_group_lag(self, group_ids: Iterable[str], *, timeout: float | None = None,
                           ) -> dict[str, dict[TopicPartition, PartitionLag | KafkaError] | KafkaError]:
        return self._call(self._aio.consumer_group_lag(group_ids, timeout=timeout), timeout)

    def list_offsets(self, specs: Mapping[PartitionKey, OffsetSpec | str], *,
                     isolation_level: str = "read_uncommitted",
                     timeout: float | None = None) -> dict[PartitionKey, ListedOffset | KafkaError]:
        return self._call(self._aio.list_offsets(specs, isolation_level=isolation_level, timeout=timeout),
                          timeout)

    # --- records and storage (see kadmin.aio.AdminClient) -------------------------------------------------

    def delete_records(self, offsets: Mapping[PartitionKey, int], *,
                       timeout: float | None = None) -> dict[PartitionKey, storage.DeletedRecords | KafkaError]:
        return self._call(self._aio.delete_records(_copied(offsets), timeout=timeout), timeout)

    def describe_log_dirs(self, brokers: Iterable[int] | None = None, *,
                          partitions: Iterable[TopicPartition | tuple[str, int]] | None = None,
                          timeout: float | None = None,
                          ) -> dict[int, dict[str, storage.LogDirDescription] | KafkaError]:
        return self._call(self._aio.describe_log_dirs(_listed(brokers), partitions=_listed(partitions),
                                                      timeout=timeout), timeout)

    def topic_sizes(self, topics: Iterable[str] | None = None, *, replicas: str = "leader",
                    timeout: float | None = None) -> storage.TopicSizes:
        return self._call(self._aio.topic_sizes(_listed(topics), replicas=replicas, timeout=timeout), timeout)

    @overload
    def elect_leaders(self, election_type: storage.ElectionType | str, partitions: Iterable[PartitionKey], *,
                      timeout: float | None = None) -> dict[PartitionKey, storage.ElectionResult | KafkaError]: ...

    @overload
    def elect_leaders(self, election_type: storage.ElectionType | str = ..., *, partitions: Iterable[PartitionKey],
                      timeout: float | None = None) -> dict[PartitionKey, storage.ElectionResult | KafkaError]: ...

    @overload
    def elect_leaders(self, election_type: storage.ElectionType | str = ..., partitions: None = None, *,
                      timeout: float | None = None) -> dict[TopicPartition, storage.ElectionResult | KafkaError]: ...

    def elect_leaders(self, election_type: storage.ElectionType | str = storage.ElectionType.PREFERRED,
                      partitions: Iterable[Any] | None = None, *,
                      timeout: float | None = None) -> dict[Any, storage.ElectionResult | KafkaError]:
        return self._call(self._aio.elect_leaders(election_type, _listed(partitions), timeout=timeout), timeout)

    def alter_partition_reassignments(
        self, reassignments: Mapping[PartitionKey, Iterable[int] | None], *, timeout: float | None = None,
    ) -> dict[PartitionKey, None | KafkaError]:
        return self._call(self._aio.alter_partition_reassignments(_copied(reassignments), timeout=timeout), timeout)

    @overload
    def list_partition_reassignments(
        self, partitions: Iterable[PartitionKey], *, timeout: float | None = None,
    ) -> dict[PartitionKey, storage.PartitionReassignment | None | KafkaError]: ...

    @overload
    def list_partition_reassignments(
        self, partitions: None = None, *, timeout: float | None = None,
    ) -> dict[TopicPartition, storage.PartitionReassignment | None | KafkaError]: ...

    def list_partition_reassignments(
        self, partitions: Iterable[Any] | None = None, *, timeout: float | None = None,
    ) -> dict[Any, storage.PartitionReassignment | None | KafkaError]:
        return self._call(self._aio.list_partition_reassignments(_listed(partitions), timeout=timeout), timeout)

    # --- topics (see kadmin.aio.AdminClient) ------------------------------------------------------------------

    def list_topics(self, *, internal: bool = False, timeout: float | None = None) -> list[TopicListing]:
        return self._call(self._aio.list_topics(internal=internal, timeout=timeout), timeout)

    def describe_topics(self, names: Iterable[str], *, include_authorized_operations: bool = False,
                        timeout: float | None = None) -> dict[str, TopicDescription | KafkaError]:
        return self._call(self._aio.describe_topics(_listed(names),
                                                    include_authorized_operations=include_authorized_operations,
                                                    timeout=timeout), timeout)

    def create_topics(self, new_topics: Iterable[topics.NewTopic], *, validate_only: bool = False,
                      timeout: float | None = None) -> dict[str, topics.CreatedTopic | KafkaError]:
        return self._call(self._aio.create_topics(_listed(new_topics), validate_only=validate_only,
                                                  timeout=timeout), timeout)

    def delete_topics(self, names_or_ids: Iterable[topics.TopicRef], *,
                      timeout: float | None = None) -> dict[topics.TopicRef, None | KafkaError]:
        return self._call(self._aio.delete_topics(_listed(names_or_ids), timeout=timeout), timeout)

    def create_partitions(self, changes: Mapping[str, int | topics.NewPartitions], *, validate_only: bool = False,
                          timeout: float | None = None) -> dict[str, None | KafkaError]:
        return self._call(self._aio.create_partitions(changes, validate_only=validate_only, timeout=timeout),
                          timeout)

    # --- configs (see kadmin.aio.AdminClient) -----------------------------------------------------------------

    def describe_configs(self, resources: Iterable[ResourceKey], *, include_synonyms: bool = False,
                         include_documentation: bool = False, timeout: float | None = None,
                         ) -> dict[ResourceKey, dict[str, configs.ConfigEntry] | KafkaError]:
        return self._call(self._aio.describe_configs(_listed(resources), include_synonyms=include_synonyms,
                                                     include_documentation=include_documentation,
                                                     timeout=timeout), timeout)

    def alter_configs(self, alterations: Mapping[ResourceKey, Sequence[configs.ConfigOp]], *,
                      validate_only: bool = False,
                      timeout: float | None = None) -> dict[ResourceKey, None | KafkaError]:
        return self._call(self._aio.alter_configs(_copied(alterations), validate_only=validate_only, timeout=timeout),
                          timeout)

    # --- client quotas (see kadmin.aio.AdminClient) ---------------------------------------------------------
    def describe_client_quotas(self, filter: quotas.ClientQuotaFilter, *, timeout: float | None = None,
                               ) -> dict[quotas.ClientQuotaEntity, dict[str, float]]:
        return self._call(self._aio.describe_client_quotas(filter, timeout=timeout), timeout)

    def alter_client_quotas(
        self, alterations: Iterable[quotas.ClientQuotaAlteration], *, validate_only: bool = False,
        allow_unknown_keys: bool = False, batch_size: int = admin_quotas.DEFAULT_BATCH_SIZE,
        max_concurrency: int = admin_quotas.DEFAULT_MAX_CONCURRENCY, timeout: float | None = None,
    ) -> dict[quotas.ClientQuotaEntity, None | KafkaError]:
        # Materialized here, on the caller's thread: a caller's generator must not run on the loop thread.
        items = alterations if isinstance(alterations, quotas.ClientQuotaAlteration) else list(alterations)
        return self._call(self._aio.alter_client_quotas(
            items, validate_only=validate_only, allow_unknown_keys=allow_unknown_keys, batch_size=batch_size,
            max_concurrency=max_concurrency, timeout=timeout), timeout)

    def resolve_client_quotas(self, user: str | None = None, client_id: str | None = None, ip: str | None = None,
                              *, timeout: float | None = None) -> quotas.ResolvedClientQuotas:
        return self._call(self._aio.resolve_client_quotas(user, client_id, ip, timeout=timeout), timeout)

    # --- security: ACLs, SCRAM users, who am I (see kadmin.aio for the semantics)

    def describe_acls(self, filter: acls.AclBindingFilter | None = None, *, principal: str | None = None,
                      timeout: float | None = None) -> acls.AclListing:
        return self._call(self._aio.describe_acls(filter, principal=principal, timeout=timeout), timeout)

    def create_acls(self, bindings: Iterable[acls.AclBinding], *, batch_size: int = admin_acls.DEFAULT_BATCH_SIZE,
                    max_concurrency: int = admin_acls.DEFAULT_MAX_CONCURRENCY,
                    timeout: float | None = None) -> dict[acls.AclBinding, None | KafkaError]:
        return self._call(self._aio.create_acls(bindings, batch_size=batch_size,
                                                max_concurrency=max_concurrency, timeout=timeout), timeout)

    def delete_acls(self, filters: Iterable[acls.AclBindingFilter], *, batch_size: int = admin_acls.DEFAULT_BATCH_SIZE,
                    max_concurrency: int = admin_acls.DEFAULT_MAX_CONCURRENCY,
                    timeout: float | None = None) -> dict[acls.AclBindingFilter, acls.AclDeletion | KafkaError]:
        return self._call(self._aio.delete_acls(filters, batch_size=batch_size,
                                                max_concurrency=max_concurrency, timeout=timeout), timeout)

    def describe_user_scram_credentials(self, users: Iterable[str] | None = None, *, timeout: float | None = None,
                                        ) -> dict[str, tuple[scram.ScramCredentialInfo, ...] | KafkaError]:
        return self._call(self._aio.describe_user_scram_credentials(users, timeout=timeout), timeout)

    def alter_user_scram_credentials(self, alterations: Iterable[scram.ScramAlteration], *,
                                     batch_size: int = admin_scram.DEFAULT_BATCH_SIZE,
                                     timeout: float | None = None) -> dict[str, None | KafkaError]:
        return self._call(self._aio.alter_user_scram_credentials(alterations, batch_size=batch_size,
                                                                 timeout=timeout), timeout)

    def whoami(self, *, timeout: float | None = None) -> acls.Identity:
        return self._call(self._aio.whoami(timeout=timeout), timeout)

    def create_delegation_token(self, *, renewers: Iterable[str] = (), max_lifetime_ms: int = -1,
                                owner: str | None = None, timeout: float | None = None) -> tokens.DelegationToken:
        return self._call(self._aio.create_delegation_token(renewers=renewers, max_lifetime_ms=max_lifetime_ms,
                                                            owner=owner, timeout=timeout), timeout)

    def renew_delegation_token(self, hmac: bytes, *, renew_period_ms: int = -1, timeout: float | None = None) -> int:
        return self._call(self._aio.renew_delegation_token(hmac, renew_period_ms=renew_period_ms, timeout=timeout),
                          timeout)

    def expire_delegation_token(self, hmac: bytes, *, expiry_period_ms: int = -1,
                                timeout: float | None = None) -> int:
        return self._call(self._aio.expire_delegation_token(hmac, expiry_period_ms=expiry_period_ms,
                                                            timeout=timeout), timeout)

    def describe_delegation_tokens(self, owners: Iterable[str] | None = None, *,
                                   timeout: float | None = None) -> list[tokens.DelegationToken]:
        return self._call(self._aio.describe_delegation_tokens(owners, timeout=timeout), timeout)


async def _make_aio(cfg: ClientConfig) -> aio.AdminClient:
    # Created on the loop thread so that its asyncio primitives belong to that loop.
    return aio.AdminClient(config=cfg)


def _listed(values: Iterable[Any] | None) -> Any:
    """A one-shot iterable (a generator) read on the caller's thread, so that the loop thread never runs the
    caller's code; anything else passes through for the async client to check."""
    if values is None or isinstance(values, (str, bytes, Mapping, list, tuple, set, frozenset)):
        return values
    return list(values) if isinstance(values, Iterable) else values


def _copied(mapping: Any) -> Any:
    """A mapping copied on the caller's thread (the caller may change it while the loop thread reads it);
    anything else passes through for the async client to refuse."""
    return dict(mapping) if isinstance(mapping, Mapping) else mapping
