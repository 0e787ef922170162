"""Bad input at every public entry point: a clear TypeError/ValueError, and not one byte to the cluster.

"Before any network I/O" is checked two ways, because each catches what the other cannot:

* on a client that was never started, a bad call must not even connect: the cluster's request log stays
  empty (not even the bootstrap ApiVersions/metadata requests) and the client opened no connection;
* on a started client, the bootstrap requests (ApiVersions, then DescribeCluster or Metadata) are the only
  entries: the log is cleared after start, and a bad call must add nothing to it.

Every method of both clients is covered (a test fails if a public method is added without bad-input cases),
plus a few CLI commands, which must exit 2 without connecting.
"""

from __future__ import annotations

import asyncio
import inspect
import io
import re
from collections.abc import Iterator
from typing import Any

import pytest

from kadmin import aio
from kadmin.cli.main import main as cli_main
from kadmin.client import AdminClient
from kadmin.config import ClientConfig
from kadmin.configs import AppendConfig, ConfigResource, DeleteConfig, SetConfig
from kadmin.features import FeatureUpdate
from kadmin.quotas import ClientQuotaAlteration, ClientQuotaEntity, ClientQuotaFilter, Remove, Set
from kadmin.testing import FakeCluster
from kadmin.topics import NewPartitions, NewTopic
from kadmin.types import TopicPartition

TP = TopicPartition

E = ClientQuotaEntity
ALICE = E({"user": "alice"})
OK_ALT = ClientQuotaAlteration(ALICE, [Set("producer_byte_rate", 1.0)])


def _binding() -> Any:
    from kadmin.acls import AclBinding

    return AclBinding.of("topic", "t", "User:a", "read")


def _filter() -> Any:
    from kadmin.acls import AclBindingFilter

    return AclBindingFilter.all()


def _upsertion() -> Any:
    from kadmin.scram import ScramUpsertion

    return ScramUpsertion("bob", "SCRAM-SHA-256", "pw")


def _deletion() -> Any:
    from kadmin.scram import ScramDeletion

    return ScramDeletion("bob", "SCRAM-SHA-256")


class Lazy:
    """An argument built when the test runs (so a constructor's own refusal cannot break collection)."""

    def __init__(self, make: Any) -> None:
        self.make = make


def built(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    return (tuple(a.make() if isinstance(a, Lazy) else a for a in args),
            {k: v.make() if isinstance(v, Lazy) else v for k, v in kwargs.items()})


def case(method: str, *args: Any, exc: type[Exception], match: str, gap: str | None = None,
         gap_in: tuple[str, ...] = ("sync", "aio"), only: tuple[str, ...] = ("sync", "aio"), **kwargs: Any) -> Any:
    """One bad call, for the clients in ``only``.  ``gap``: a known hole in the clients of ``gap_in`` (the
    reason), marked strict-xfail there so that fixing it flips the test and the mark must go."""
    return {"method": method, "args": args, "kwargs": kwargs, "exc": exc, "match": match, "gap": gap,
            "gap_in": gap_in, "only": only}


def params(client: str) -> list[Any]:
    out = []
    for c in BAD:
        if client not in c["only"]:
            continue
        marks = [pytest.mark.xfail(strict=True, reason=c["gap"])] if c["gap"] and client in c["gap_in"] else []
        out.append(pytest.param(c["method"], c["args"], c["kwargs"], c["exc"], c["match"],
                                id=f"{c['method']}-{c['match'][:30]}", marks=marks))
    return out


NAN, INF = float("nan"), float("inf")

BAD = [
    # --- the timeout every method takes
    case("describe_cluster", timeout=0, exc=ValueError, match="timeout must be a positive number"),
    case("describe_cluster", timeout=-1.5, exc=ValueError, match="timeout must be a positive number"),
    case("api_versions", timeout=True, exc=ValueError, match="timeout must be a positive number"),
    case("describe_cluster", timeout="5", exc=ValueError, match="timeout must be a positive number"),
    case("describe_cluster", timeout=NAN, exc=ValueError, match="timeout must be a positive number"),
    case("api_versions", timeout=INF, exc=ValueError, match="timeout must be a positive number"),
    # --- coordinators
    case("find_coordinators", "g", exc=TypeError, match="keys must be a list of strings"),
    case("find_coordinators", ["g"], "topic", exc=ValueError, match="key_type must be one of"),
    case("find_coordinators", ["g"], key_type=True, exc=ValueError, match="key_type must be one of"),
    case("find_coordinators", [], exc=ValueError, match="keys is empty"),
    # --- groups
    case("describe_consumer_groups", "g", exc=TypeError, match="group_ids must be a list of strings"),
    case("describe_consumer_groups", None, exc=TypeError, match="group_ids must be an iterable"),
    case("describe_consumer_groups", [1], exc=TypeError, match="group_ids must contain strings"),
    case("describe_consumer_groups", [], exc=ValueError, match="group_ids is empty"),
    case("describe_consumer_groups", ["ok", ""], exc=ValueError, match="empty group id"),
    case("describe_consumer_groups", ["g"], include_authorized_operations=1, exc=TypeError,
         match="include_authorized_operations must be a bool"),
    case("describe_consumer_groups", ["x" * 40_000], exc=ValueError, match="32767"),
    case("describe_consumer_groups", ["\ud800"], exc=ValueError, match="UTF-8"),
    case("delete_consumer_groups", [b"g"], exc=TypeError, match="group_ids must contain strings"),
    case("delete_consumer_groups", "g", exc=TypeError, match="group_ids must be a list of strings"),
    case("list_consumer_groups", states="Stable", exc=TypeError, match="states must be a list of strings"),
    case("list_consumer_groups", types=[1], exc=ValueError, match="types must contain non-empty strings"),
    case("list_consumer_groups", states=[""], exc=ValueError, match="unknown group state"),
    case("list_consumer_groups", states=["Stabel"], exc=ValueError, match="unknown group state 'Stabel'"),
    case("list_consumer_groups", types=["straems"], exc=ValueError, match="unknown group type 'straems'; one of"),
    case("list_groups", types="streams", exc=TypeError, match="types must be a list of strings"),
    case("list_groups", types=["streams", "kstreams"], exc=ValueError,
         match="unknown group type 'kstreams'; one of classic, consumer, share, streams"),
    case("list_groups", states=["Rebalancing"], exc=ValueError, match="unknown group state 'Rebalancing'"),
    case("describe_classic_groups", "g", exc=TypeError, match="group_ids must be a list of strings"),
    case("describe_classic_groups", ["g"], include_authorized_operations=1, exc=TypeError,
         match="include_authorized_operations must be a bool"),
    case("describe_streams_groups", [""], exc=ValueError, match="empty group id"),
    case("describe_streams_groups", "g", exc=TypeError, match="group_ids must be a list of strings"),
    case("list_streams_group_offsets", [], exc=ValueError, match="group_ids is empty"),
    case("delete_streams_groups", [b"g"], exc=TypeError, match="group_ids must contain strings"),
    case("list_config_resources", "topics", exc=TypeError, match="not a single value"),
    case("list_config_resources", ["topics", "queues"], exc=ValueError, match="unknown config resource type 'queues'"),
    case("list_config_resources", [], exc=ValueError, match="types is empty"),
    case("describe_cluster", include_fenced_brokers="yes", exc=TypeError,
         match="include_fenced_brokers must be a bool"),
    case("alter_partition_reassignments", {("t", 0): [1]}, allow_replication_factor_change=None, exc=TypeError,
         match="allow_replication_factor_change must be a bool"),
    case("describe_cluster", include_authorized_operations="yes", exc=TypeError,
         match="include_authorized_operations must be a bool"),
    # --- group administration (issue #15)
    case("describe_share_groups", "g", exc=TypeError, match="group_ids must be a list of strings"),
    case("describe_share_groups", [], exc=ValueError, match="group_ids is empty"),
    case("alter_consumer_group_offsets", "g", [("t", 0)], exc=TypeError, match="offsets must be a mapping"),
    case("alter_consumer_group_offsets", "g", {("t", 0): -5}, exc=ValueError, match="an offset must be an int >= 0"),
    case("alter_consumer_group_offsets", "", {("t", 0): 5}, exc=ValueError, match="empty group id"),
    case("alter_consumer_group_offsets", "g", {}, exc=ValueError, match="offsets is empty"),
    case("reset_consumer_group_offsets", "g", ["t"], "newest", exc=ValueError, match="unknown reset target"),
    case("reset_consumer_group_offsets", "g", [], "latest", exc=ValueError, match="partitions is empty"),
    case("reset_consumer_group_offsets", "g", ["t"], "latest", dry_run="no", exc=TypeError,
         match="dry_run must be a bool"),
    case("delete_consumer_group_offsets", "g", [], exc=ValueError, match="partitions is empty"),
    case("delete_consumer_group_offsets", "g", [("t", -1)], exc=ValueError, match="invalid partition"),
    # written partitions: a name no topic can have is refused, as delete_records refuses it
    case("delete_consumer_group_offsets", "g", [("bad name!", 0)], exc=ValueError, match="illegal topic name"),
    case("delete_consumer_group_offsets", "g", [("t", 0), TP("t", 0)], exc=ValueError, match="are the same partition"),
    case("alter_consumer_group_offsets", "g", {("t", 0): 1, TP("t", 0): 2}, exc=ValueError,
         match="are the same partition"),
    case("alter_consumer_group_offsets", "g", {("..", 0): 5}, exc=ValueError, match="illegal topic name"),
    case("reset_consumer_group_offsets", "g", ["x" * 250], "latest", exc=ValueError, match="longer than 249"),
    case("remove_members_from_consumer_group", "g", "m1", exc=TypeError, match="members must be a list"),
    case("remove_members_from_consumer_group", "g", [""], exc=ValueError, match="names no member"),
    case("remove_members_from_consumer_group", "g", None, reason=5, exc=TypeError,
         match="reason must be a string or None"),
    # --- partition offsets
    case("list_offsets", [("t", 0)], exc=TypeError, match="takes a mapping"),
    case("list_offsets", {}, exc=ValueError, match="no partitions given"),
    case("list_offsets", {("t", -1): "latest"}, exc=ValueError, match="invalid partition"),
    case("list_offsets", {("", 0): "latest"}, exc=ValueError, match="illegal topic name .*can't be empty"),
    # names no Kafka topic can have are refused like delete_records refuses them, not sent as a Metadata request
    case("list_offsets", {("bad name!", 0): "latest"}, exc=ValueError, match="illegal topic name .*contains ' !'"),
    case("list_offsets", {("..", 0): "latest"}, exc=ValueError, match="illegal topic name .*'.' or '..'"),
    case("list_offsets", {("x" * 300, 0): "latest"}, exc=ValueError, match="longer than 249"),
    # two spellings of one partition: which spec would win?
    case("list_offsets", {("t", 0): "latest", TP("t", 0): "earliest"}, exc=ValueError,
         match=r"\('t', 0\) and TopicPartition\(topic='t', partition=0\) are the same partition"),
    case("list_offsets", {("t", 0): "newest"}, exc=TypeError, match="expected an OffsetSpec"),
    case("list_offsets", {("t", 0): "latest"}, isolation_level="committed", exc=ValueError,
         match="isolation_level must be one of"),
    case("list_consumer_group_offsets", ["g"], "t", exc=TypeError, match="partitions must be a list"),
    case("list_consumer_group_offsets", ["g"], [("t", -1)], exc=ValueError, match="invalid partition"),
    case("list_consumer_group_offsets", ["g"], [("t", True)], exc=ValueError, match="invalid partition"),
    case("list_consumer_group_offsets", ["g"], [("", 0)], exc=ValueError, match="invalid topic"),
    case("list_consumer_group_offsets", ["g"], [("t", 0, 1)], exc=TypeError, match="partitions must contain"),
    case("list_consumer_group_offsets", ["g"], [], exc=ValueError, match="partitions is empty"),
    case("list_consumer_group_offsets", [""], exc=ValueError, match="empty group id"),
    case("list_consumer_group_offsets", ["g"], [("t", 2**31)], exc=ValueError, match="invalid partition"),
    case("consumer_group_lag", "g", exc=TypeError, match="group_ids must be a list of strings"),
    case("consumer_group_lag", ["g"], timeout=0, exc=ValueError, match="timeout must be a positive number"),
    # --- records and storage
    case("delete_records", [(("t", 0), 1)], exc=TypeError, match="takes a mapping"),
    case("delete_records", {}, exc=ValueError, match="no partitions given"),
    case("delete_records", {("t", 0): -2}, exc=ValueError, match="must be >= 0, or -1"),
    case("delete_records", {("t", 0): 1.0}, exc=TypeError, match="must be an int"),
    case("delete_records", {("bad topic", 0): 1}, exc=ValueError, match="illegal topic name"),
    case("delete_records", {("t", 0): 1}, timeout=0, exc=ValueError, match="timeout must be a positive number"),
    case("delete_records", {("t", 0): 1, TP("t", 0): 2}, exc=ValueError, match="are the same partition"),
    case("describe_log_dirs", 1, exc=TypeError, match="brokers must be a list"),
    case("describe_log_dirs", [-1], exc=ValueError, match="broker id from 0"),
    case("describe_log_dirs", None, partitions=[], exc=ValueError, match="partitions is empty"),
    case("topic_sizes", "t", exc=TypeError, match="topics must be a list"),
    case("topic_sizes", None, replicas="some", exc=ValueError, match="replicas must be 'leader' or 'all'"),
    case("elect_leaders", "sometimes", exc=ValueError, match="election type must be"),
    case("elect_leaders", "preferred", [("t", 2**31)], exc=ValueError, match="invalid partition number"),
    case("elect_leaders", "preferred", [("t", 0), TP("t", 0)], exc=ValueError, match="are the same partition"),
    case("elect_leaders", "preferred", [("bad name!", 0)], exc=ValueError, match="illegal topic name"),
    case("alter_partition_reassignments", {("t", 0): [1, 1]}, exc=ValueError, match="lists a broker twice"),
    case("alter_partition_reassignments", {("t", 0): []}, exc=ValueError, match="is empty"),
    case("alter_partition_reassignments", {("t", 0): "1"}, exc=TypeError, match="must be a list of broker ids"),
    case("alter_partition_reassignments", {("t", 0): [1], TP("t", 0): None}, exc=ValueError,
         match="are the same partition"),
    case("list_partition_reassignments", [TP("t", 0), ("t", 0)], exc=ValueError, match="are the same partition"),
    case("list_partition_reassignments", [], exc=ValueError, match="partitions is empty"),
    case("list_partition_reassignments", ("t", 0), exc=TypeError, match="must be a TopicPartition"),
    # --- topics and configs
    case("list_topics", internal="yes", exc=TypeError, match="internal must be a bool"),
    case("describe_topics", "t", exc=TypeError, match="not a single string"),
    case("describe_topics", ["ok", "bad name"], exc=ValueError, match="illegal topic name 'bad name'"),
    case("create_topics", [NewTopic("")], exc=ValueError, match="it can't be empty"),
    case("create_topics", [NewTopic("..")], exc=ValueError, match="'.' or '..'"),
    case("create_topics", [NewTopic("x" * 250)], exc=ValueError, match="longer than 249"),
    case("create_topics", [NewTopic("t", 0)], exc=ValueError, match="partition count must be between 1"),
    case("create_topics", [NewTopic("t", 1, 0)], exc=ValueError, match="replication factor must be between 1"),
    case("create_topics", [NewTopic("t", replication_factor=1, replica_assignment=[[1]])], exc=ValueError,
         match="not both"),
    case("create_topics", [NewTopic("t", 1, 1), NewTopic("t", 1, 1)], exc=ValueError, match="given twice"),
    case("create_topics", [NewTopic("t", 1, 1, configs={"retention.ms": 5})], exc=TypeError,
         match="must be a str"),
    case("create_topics", [NewTopic("t", 1, 1)], validate_only=None, exc=TypeError,
         match="validate_only must be a bool"),
    case("delete_topics", "t", exc=TypeError, match="not a single one"),
    case("delete_topics", ["t", "t"], exc=ValueError, match="given twice"),
    case("create_partitions", {"t": 0}, exc=ValueError, match="between 1"),
    case("create_partitions", {"t": NewPartitions(3, [[1, 1]])}, exc=ValueError, match="lists a broker twice"),
    case("describe_configs", ConfigResource.topic("t"), exc=TypeError, match="not a single one"),
    case("describe_configs", [ConfigResource.broker("x")], exc=ValueError, match="named by a broker id"),
    case("describe_configs", [("topic", "t"), ConfigResource.topic("t")], exc=ValueError,
         match=r"\('topic', 't'\) and .* are the same config resource \(topics:t\)"),
    case("describe_configs", [ConfigResource.broker("01"), ConfigResource.broker(1)], exc=ValueError,
         match=r"are the same config resource \(brokers:1\)"),
    case("describe_configs", [("topic", "bad name!")], exc=ValueError, match="illegal topic name"),
    case("describe_configs", [ConfigResource.topic("t")], include_synonyms=1, exc=TypeError,
         match="include_synonyms must be a bool"),
    case("alter_configs", {ConfigResource.topic("t"): [SetConfig("retention.ms", 5)]}, exc=TypeError,
         match="must be a str"),
    case("alter_configs", {ConfigResource.topic("t"): [AppendConfig("retention.ms", "5")]}, exc=ValueError,
         match="works only on list configs"),
    case("alter_configs", {ConfigResource.topic("t"): [SetConfig("a", "1"), SetConfig("a", "2")]},
         exc=ValueError, match="more than once"),
    # an empty list would send an IncrementalAlterConfigs entry that changes nothing: a caller's bug, named
    case("alter_configs", {ConfigResource.topic("ok"): [SetConfig("a", "1")], ConfigResource.topic("t"): []},
         exc=ValueError, match="topics:t: no config operations given"),
    case("alter_configs", {("topic", "t"): [SetConfig("a", "1")], ConfigResource.topic("t"): [DeleteConfig("b")]},
         exc=ValueError, match="are the same config resource"),
    # --- quotas
    case("describe_client_quotas", None, exc=TypeError, match="filter must be a ClientQuotaFilter"),
    case("describe_client_quotas", {"user": "alice"}, exc=TypeError, match="filter must be a ClientQuotaFilter"),
    case("alter_client_quotas", [], exc=ValueError, match="alterations is empty"),
    case("alter_client_quotas", [1], exc=TypeError, match="alterations must contain ClientQuotaAlteration"),
    case("alter_client_quotas", Lazy(lambda: [ClientQuotaAlteration(ALICE, [Set("no_such_quota", 1.0)])]),
         exc=ValueError, match="no_such_quota"),
    case("alter_client_quotas", OK_ALT, exc=TypeError, match="wrap the single one"),
    case("alter_client_quotas", [OK_ALT, ClientQuotaAlteration(ALICE, [Remove("consumer_byte_rate")])],
         exc=ValueError, match="more than one alteration"),
    case("alter_client_quotas", [OK_ALT], batch_size=0, exc=ValueError, match="batch_size must be at least 1"),
    case("alter_client_quotas", [OK_ALT], batch_size=2.0, exc=TypeError, match="batch_size must be an int"),
    case("alter_client_quotas", [OK_ALT], max_concurrency=True, exc=TypeError, match="max_concurrency must be an int"),
    case("alter_client_quotas", [OK_ALT], validate_only="yes", exc=TypeError, match="validate_only must be a bool"),
    case("alter_client_quotas", [OK_ALT], timeout=-1, exc=ValueError, match="timeout must be a positive number"),
    case("resolve_client_quotas", 5, exc=TypeError, match="user must be a string or None"),
    case("resolve_client_quotas", "", exc=ValueError, match="user is empty"),
    case("resolve_client_quotas", "alice", client_id=7, exc=TypeError, match="client_id must be a string or None"),
    # --- security: ACLs, SCRAM users, delegation tokens (issue #16)
    case("describe_acls", "topic:t", exc=TypeError, match="filter must be an AclBindingFilter"),
    case("describe_acls", principal="alice", exc=ValueError, match="Type:name"),
    case("create_acls", "topic:t", exc=TypeError, match="bindings must be a list of AclBinding"),
    case("create_acls", [], exc=ValueError, match="bindings is empty"),
    case("create_acls", Lazy(lambda: [_binding(), "x"]), exc=TypeError, match="expected AclBinding objects"),
    case("create_acls", Lazy(lambda: [_binding()]), batch_size=0, exc=ValueError,
         match="batch_size must be at least 1"),
    case("delete_acls", Lazy(lambda: _filter()), exc=TypeError, match="filters must be a list"),
    case("delete_acls", [], exc=ValueError, match="filters is empty"),
    case("describe_user_scram_credentials", "bob", exc=TypeError, match="not a single string"),
    case("describe_user_scram_credentials", [""], exc=ValueError, match="must not be empty"),
    case("alter_user_scram_credentials", [], exc=ValueError, match="alterations is empty"),
    case("alter_user_scram_credentials", ["bob"], exc=TypeError, match="expected ScramUpsertion or ScramDeletion"),
    case("alter_user_scram_credentials", Lazy(lambda: [_upsertion(), _deletion()]), exc=ValueError,
         match="more than one alteration"),
    case("whoami", timeout=0, exc=ValueError, match="timeout must be a positive number"),
    case("create_delegation_token", renewers=["bob"], exc=ValueError, match="Type:name"),
    case("renew_delegation_token", "hmac", exc=TypeError, match="HMAC"),
    case("expire_delegation_token", b"", exc=TypeError, match="HMAC"),
    case("describe_delegation_tokens", "User:a", exc=TypeError, match="not a single string"),
    # --- cluster operations: features, the metadata quorum, replica log dirs (issue #26)
    case("describe_features", timeout=0, exc=ValueError, match="timeout must be a positive number"),
    case("update_features", {}, exc=ValueError, match="updates is empty"),
    case("update_features", {"metadata.version": 5}, exc=TypeError, match="expected a FeatureUpdate"),
    case("update_features", Lazy(lambda: {"": FeatureUpdate(1)}), exc=ValueError,
         match="feature names must be non-empty strings"),
    case("update_features", Lazy(lambda: {"metadata.version": FeatureUpdate(21)}), validate_only="yes",
         exc=TypeError, match="validate_only must be a bool"),
    case("describe_metadata_quorum", timeout=-1, exc=ValueError, match="timeout must be a positive number"),
    case("add_raft_voter", "1", "f3feKK4KQ8ahxv70POUcCQ", ["C://h:1"], exc=TypeError,
         match="voter_id must be an int"),
    case("add_raft_voter", 1, "not-a-uuid", ["C://h:1"], exc=ValueError, match="neither a UUID nor Kafka's base64"),
    case("add_raft_voter", 1, "f3feKK4KQ8ahxv70POUcCQ", [], exc=ValueError, match="endpoints is empty"),
    case("add_raft_voter", 1, "f3feKK4KQ8ahxv70POUcCQ", ["nonsense"], exc=ValueError,
         match="is not NAME://host:port"),
    case("remove_raft_voter", -1, "f3feKK4KQ8ahxv70POUcCQ", exc=ValueError, match="voter_id must be >= 0"),
    case("remove_raft_voter", 1, 5, exc=TypeError, match="directory id must be a uuid.UUID or str"),
    case("unregister_broker", "1", exc=TypeError, match="broker_id must be an int"),
    case("unregister_broker", -2, exc=ValueError, match="broker_id must be >= 0"),
    case("alter_replica_log_dirs", {}, exc=ValueError, match="no replicas given"),
    case("alter_replica_log_dirs", {("t", 0, 1): "relative/dir"}, exc=ValueError, match="must be an absolute path"),
    case("alter_replica_log_dirs", {("t", 0): "/d"}, exc=TypeError, match="a replica is a TopicPartitionReplica"),
    case("describe_replica_log_dirs", [], exc=ValueError, match="no replicas given"),
    case("describe_replica_log_dirs", "t", exc=TypeError, match="replicas must be a list of TopicPartitionReplica"),
    case("describe_replica_log_dirs", [("t", 0, -1)], exc=ValueError, match="broker_id must be an int >= 0"),
    # --- transactions and producers (issue #26)
    case("describe_producers", [], exc=ValueError, match="no partitions given"),
    case("describe_producers", "t", exc=TypeError, match="partitions must be a list of TopicPartition"),
    case("describe_producers", [("t", -1)], exc=ValueError, match="invalid partition number"),
    case("list_transactions", states=["Bogus"], exc=ValueError, match="unknown transaction state 'Bogus'"),
    case("list_transactions", producer_ids=[-5], exc=ValueError, match="a producer id must be from 0"),
    case("list_transactions", duration_filter_ms=-1, exc=ValueError, match="duration_filter_ms must be from 0"),
    case("list_transactions", transactional_id_pattern=5, exc=TypeError,
         match="transactional_id_pattern must be a string"),
    case("describe_transactions", [], exc=ValueError, match="no transactional ids given"),
    case("describe_transactions", "tx", exc=TypeError, match="transactional ids must be a list of strings"),
    case("describe_transactions", [""], exc=ValueError, match="an empty transactional id"),
    case("abort_transaction", [], exc=ValueError, match="no specs given"),
    case("abort_transaction", ["x"], exc=TypeError, match="takes AbortTransactionSpec, not str"),
    case("fence_producers", [], exc=ValueError, match="no transactional ids given"),
    case("fence_producers", "tx", exc=TypeError, match="transactional ids must be a list of strings"),
    case("force_terminate_transaction", "", exc=ValueError, match="an empty transactional id"),
    case("find_hanging_transactions", exc=ValueError, match="give exactly one of partitions, topics or broker_id"),
    case("find_hanging_transactions", topics=["t"], broker_id=1, exc=ValueError,
         match="give exactly one of partitions, topics or broker_id"),
    # --- share groups (KIP-932; issue #25)
    case("list_share_group_offsets", [], exc=ValueError, match="group_ids is empty"),
    case("list_share_group_offsets", "g", exc=TypeError, match="group_ids must be a list of strings"),
    case("list_share_group_offsets", ["g"], [], exc=ValueError, match="partitions is empty"),
    case("list_share_group_offsets", ["g"], [("t", -1)], exc=ValueError, match="invalid partition"),
    case("alter_share_group_offsets", "g", {}, exc=ValueError, match="offsets is empty"),
    case("alter_share_group_offsets", "g", [("t", 0)], exc=TypeError, match="offsets must be a mapping"),
    case("alter_share_group_offsets", "g", {("t", 0): -1}, exc=ValueError, match="a start offset must be >= 0"),
    case("alter_share_group_offsets", "g", {("t", 0): True}, exc=TypeError, match="must be an int start offset"),
    case("alter_share_group_offsets", "", {("t", 0): 1}, exc=ValueError, match="empty group id"),
    case("alter_share_group_offsets", "g", {("t", 0): 1, TP("t", 0): 2}, exc=ValueError,
         match="are the same partition"),
    case("reset_share_group_offsets", "g", ["t"], "newest", exc=ValueError, match="unknown reset target"),
    case("reset_share_group_offsets", "g", [], "latest", exc=ValueError, match="partitions is empty"),
    case("reset_share_group_offsets", "g", None, "latest", dry_run="no", exc=TypeError,
         match="dry_run must be a bool"),
    case("delete_share_group_offsets", "g", [], exc=ValueError, match="topics is empty"),
    case("delete_share_group_offsets", "g", "t", exc=TypeError, match="not a single string"),
    case("delete_share_group_offsets", "g", ["bad name!"], exc=ValueError, match="illegal topic name"),
    case("delete_share_groups", [], exc=ValueError, match="group_ids is empty"),
    case("delete_share_groups", [""], exc=ValueError, match="empty group id"),
]

PUBLIC = sorted(n for n, f in inspect.getmembers(aio.AdminClient, inspect.iscoroutinefunction)
                if not n.startswith("_") and n not in ("start", "close"))


def test_every_public_method_has_bad_input_cases() -> None:
    covered = {c["method"] for c in BAD}
    assert covered == set(PUBLIC), f"methods without cases: {set(PUBLIC) - covered}"
    sync_public = {n for n, f in inspect.getmembers(AdminClient, inspect.isfunction)
                   if not n.startswith("_") and n != "close"}
    assert sync_public == set(PUBLIC), sync_public ^ set(PUBLIC)


@pytest.fixture(scope="module")
def cluster() -> Iterator[FakeCluster]:
    with FakeCluster(brokers=1) as c:
        c.add_group("g")
        yield c


@pytest.fixture(scope="module")
def started(cluster: FakeCluster) -> Iterator[AdminClient]:
    with AdminClient(cluster.bootstrap, default_timeout_s=5.0) as admin:
        yield admin


@pytest.mark.timeout(30)
@pytest.mark.parametrize(("method", "args", "kwargs", "exc", "match"), params("sync"))
def test_sync_client_refuses_before_connecting(cluster: FakeCluster, method: str, args: tuple[Any, ...],
                                               kwargs: dict[str, Any], exc: type[Exception], match: str) -> None:
    cluster.clear_log()
    admin = AdminClient(cluster.bootstrap, default_timeout_s=5.0)
    try:
        args, kwargs = built(args, kwargs)
        with pytest.raises(exc, match=match):
            getattr(admin, method)(*args, **kwargs)
        assert admin._aio.net.connections_opened == []
    finally:
        admin.close()
    assert cluster.request_log == []


@pytest.mark.timeout(30)
@pytest.mark.parametrize(("method", "args", "kwargs", "exc", "match"), params("sync"))
def test_started_sync_client_sends_nothing_more(cluster: FakeCluster, started: AdminClient, method: str,
                                                args: tuple[Any, ...], kwargs: dict[str, Any],
                                                exc: type[Exception], match: str) -> None:
    opened = list(started._aio.net.connections_opened)
    cluster.clear_log()  # what remains of the bootstrap (ApiVersions, DescribeCluster/Metadata) is gone
    args, kwargs = built(args, kwargs)
    with pytest.raises(exc, match=match):
        getattr(started, method)(*args, **kwargs)
    assert cluster.request_log == []
    assert started._aio.net.connections_opened == opened


@pytest.mark.timeout(30)
@pytest.mark.parametrize(("method", "args", "kwargs", "exc", "match"), params("aio"))
def test_asyncio_client_refuses_before_connecting(cluster: FakeCluster, method: str, args: tuple[Any, ...],
                                                  kwargs: dict[str, Any], exc: type[Exception], match: str) -> None:
    cluster.clear_log()

    async def main() -> None:
        admin = aio.AdminClient(cluster.bootstrap, default_timeout_s=5.0)
        a, kw = built(args, kwargs)
        try:
            with pytest.raises(exc, match=match):
                await getattr(admin, method)(*a, **kw)
            assert admin.net.connections_opened == []
        finally:
            await admin.close()

    asyncio.run(main())
    assert cluster.request_log == []


@pytest.mark.parametrize(("make", "exc", "match"), [
    (lambda: ClientQuotaAlteration(ALICE, [Set("producer_byte_rate", -1)]), ValueError, "negative"),
    (lambda: ClientQuotaAlteration(ALICE, [Set("producer_byte_rate", NAN)]), ValueError, "NaN"),
    (lambda: ClientQuotaAlteration(ALICE, [Set("producer_byte_rate", 1.5)]), ValueError, "whole number"),
    (lambda: ClientQuotaAlteration(E({"ip": "10.0.0.1"}), [Set("producer_byte_rate", 1)]), ValueError,
     "user/client-id entities only"),
    (lambda: ClientQuotaAlteration(ALICE, Set("producer_byte_rate", 1)), TypeError, "wrap the single op"),
    (lambda: ClientQuotaAlteration(ALICE, {"producer_byte_rate": None}), TypeError, "no implicit"),
    (lambda: E([("user", "a"), ("user", "b")]), ValueError, "appears twice"),
    (lambda: ClientQuotaAlteration(E({"user": ""}), [Set("producer_byte_rate", 1)]), ValueError, "name is empty"),
    (lambda: ClientQuotaAlteration(E({}), [Set("producer_byte_rate", 1)]), ValueError, "at least one component"),
    (lambda: ClientQuotaFilter([1]), TypeError, "must be ClientQuotaFilterComponent"),
])
def test_quota_values_are_refused_where_they_are_written(make: Any, exc: type[Exception], match: str) -> None:
    # The quota types are entry points too: a bad value fails in its constructor, naming its entity, long
    # before any client sees it.
    with pytest.raises(exc, match=match):
        make()


@pytest.mark.parametrize(("settings", "match"), [
    ({"request_timeout_s": 0}, "request_timeout_s"),
    ({"max_in_flight": 0}, "max_in_flight"),
    ({"security_protocol": "SASL_PLAINTEXT"}, "sasl_mechanism"),
    ({"bootstrap_servers": "no-port"}, "port|host"),
    ({"max_versions": {"NoSuchApi": 1}}, "NoSuchApi"),
])
def test_bad_settings_are_refused_at_construction(cluster: FakeCluster, settings: dict[str, Any],
                                                  match: str) -> None:
    cluster.clear_log()
    kwargs = {"bootstrap_servers": cluster.bootstrap} | settings
    with pytest.raises(ValueError, match=match):
        ClientConfig(**kwargs)
    with pytest.raises(ValueError, match=match):
        AdminClient(**kwargs)
    assert cluster.request_log == []


# --- the command line: bad input exits 2, says why on one line, and never connects --------------------------


@pytest.mark.timeout(30)
@pytest.mark.parametrize(("argv", "says"), [
    (["groups", "describe", "ok", ""], "empty"),
    (["groups", "list", "--state", "Sleepy"], "unknown group state"),
    (["quotas", "alter", "--user", "alice", "--set", "producer_byte_rate=-5"], "negative"),
    (["quotas", "alter", "--user", "alice", "--set", "producer_byte_rate"], "KEY=VALUE|="),
    (["quotas", "alter", "--ip", "10.0.0.1", "--set", "producer_byte_rate=5"], "producer_byte_rate"),
    (["--timeout", "-1", "groups", "describe", "g"], "timeout"),
])
def test_cli_refuses_bad_input_without_connecting(cluster: FakeCluster, argv: list[str], says: str) -> None:
    cluster.clear_log()
    out, err = io.StringIO(), io.StringIO()
    status = cli_main(["--bootstrap-server", cluster.bootstrap, *argv], stdout=out, stderr=err)
    assert status == 2, (status, out.getvalue(), err.getvalue())
    lines = err.getvalue().strip().splitlines()
    assert len(lines) == 1 and re.search(says, lines[0]), lines
    assert cluster.request_log == []
