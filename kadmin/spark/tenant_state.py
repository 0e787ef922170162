"""The cluster's current state per kind, read once on the driver and handed to Spark as a small DataFrame.

Why on the driver and once: the desired tables can be as large as a company's tenant list, while the cluster's
state of a kind is one answer (one DescribeAcls, one DescribeUserScramCredentials, one DescribeClientQuotas, a
Metadata/DescribeTopicPartitions and a DescribeConfigs for the topics that matter) which the client holds
anyway.  The diff is then a join that runs where the desired rows are.  Columns are built as lists and go to
Spark through Arrow when it is available (no Python tuple per row), the way :func:`kadmin.spark.plan.current_frame`
does for quotas.

Every frame carries ``in_scope``: whether ``remove_unlisted`` may delete the entity (see
:class:`kadmin.spark.spec.Scope`).  It is decided here, in Python, from the same prefix rules the docs state,
so that the Spark side only ever filters on a boolean.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.types import BooleanType, DoubleType, LongType, StringType, StructField, StructType

from kadmin.spark.spec import Scope

if TYPE_CHECKING:
    from kadmin.client import AdminClient

log = logging.getLogger("kadmin.spark")

Columns = dict[str, list[Any]]


def _schema(fields: Iterable[tuple[str, Any]]) -> StructType:
    return StructType([StructField(n, t, True) for n, t in fields])


TOPICS_SCHEMA = _schema([("name", StringType()), ("partitions", LongType()), ("replication_factor", LongType()),
                         ("in_scope", BooleanType())])
CONFIGS_SCHEMA = _schema([("topic", StringType()), ("config", StringType()), ("value", StringType()),
                          ("in_scope", BooleanType())])
ACLS_SCHEMA = _schema([("principal", StringType()), ("host", StringType()), ("operation", StringType()),
                       ("permission", StringType()), ("resource_type", StringType()),
                       ("resource_name", StringType()), ("pattern_type", StringType()), ("in_scope", BooleanType())])
SCRAM_SCHEMA = _schema([("user", StringType()), ("mechanism", StringType()), ("iterations", LongType()),
                        ("in_scope", BooleanType())])
QUOTAS_SCHEMA = _schema([("user", StringType()), ("client_id", StringType()), ("ip", StringType()),
                         ("quota_key", StringType()), ("value", DoubleType()), ("in_scope", BooleanType())])


def frame(spark: SparkSession, cols: Columns, schema: StructType) -> DataFrame:
    """``cols`` as a DataFrame of ``schema``: through a pyarrow Table when PySpark 4 and pyarrow are there."""
    names = [f.name for f in schema.fields]
    try:
        import pyarrow as pa  # type: ignore[import-untyped]
        import pyspark

        arrow = int(pyspark.__version__.split(".")[0]) >= 4
    except ImportError:
        arrow = False
    if arrow:
        types = {StringType: pa.string(), LongType: pa.int64(), DoubleType: pa.float64(), BooleanType: pa.bool_()}
        table = pa.table({f.name: pa.array(cols[f.name], type=types[type(f.dataType)]) for f in schema.fields})
        return spark.createDataFrame(table, schema=schema)
    return spark.createDataFrame(list(zip(*(cols[n] for n in names), strict=True)), schema=schema)


# --- topics ---------------------------------------------------------------------------------------------


def read_topics(admin: AdminClient, desired: Callable[[], set[str]], scope: Scope | None,
                ) -> tuple[Columns, list[str]]:
    """Existing topics that the spec names or the scope covers: name, partitions, replication factor.

    ``desired`` gives the names the spec holds; it is called (a Spark job) only when the cluster has topics,
    so planning against an empty cluster costs no job for it.  Returns the columns and the existing topic
    names described (whose configs are read next)."""
    from kadmin.errors import KafkaError, UnknownTopicOrPartitionError

    listed = admin.list_topics()
    names = desired() if listed else set()
    wanted = sorted(t.name for t in listed
                    if t.name in names or (scope is not None and scope.topic_in_scope(t.name)))
    described = admin.describe_topics(wanted) if wanted else {}
    cols: Columns = {"name": [], "partitions": [], "replication_factor": [], "in_scope": []}
    present: list[str] = []
    for name in wanted:
        d = described.get(name)
        if isinstance(d, UnknownTopicOrPartitionError) or d is None:
            continue  # deleted between the listing and the description: it does not exist
        if isinstance(d, KafkaError):
            raise d
        cols["name"].append(name)
        cols["partitions"].append(len(d.partitions))
        cols["replication_factor"].append(d.replication_factor)
        cols["in_scope"].append(scope is not None and scope.topic_in_scope(name))
        present.append(name)
    log.info("read %d existing topic(s) of %d on the cluster", len(present), len(listed))
    return cols, present


def read_topic_configs(admin: AdminClient, topics: list[str], scope: Scope | None) -> Columns:
    """The topics' own (dynamic) config values: what a spec sets and what ``remove_unlisted`` may delete.

    Defaults and broker-level values are not the topic's: a spec asking for the default value still sets it
    on the topic (so that a later change of the broker default does not move it)."""
    from kadmin.configs import ConfigResource, ConfigSource
    from kadmin.errors import KafkaError, UnknownTopicOrPartitionError

    cols: Columns = {"topic": [], "config": [], "value": [], "in_scope": []}
    if not topics:
        return cols
    described = admin.describe_configs([ConfigResource.topic(t) for t in topics])
    for resource, entries in described.items():
        if isinstance(entries, UnknownTopicOrPartitionError):
            continue
        if isinstance(entries, KafkaError):
            raise entries
        in_scope = scope is not None and scope.topic_in_scope(resource.name)
        for name, entry in entries.items():
            if entry.source is not ConfigSource.DYNAMIC_TOPIC_CONFIG:
                continue
            cols["topic"].append(resource.name)
            cols["config"].append(name)
            cols["value"].append(entry.value)
            cols["in_scope"].append(in_scope)
    return cols


# --- ACLs -----------------------------------------------------------------------------------------------


def read_acls(admin: AdminClient, scope: Scope | None) -> Columns:
    """Every binding on the cluster (one DescribeAcls), names as Kafka's enum names."""
    listing = admin.describe_acls()
    cols: Columns = {f.name: [] for f in ACLS_SCHEMA.fields}
    for b in listing:
        p, e = b.pattern, b.entry
        cols["principal"].append(e.principal)
        cols["host"].append(e.host)
        cols["operation"].append(e.operation.name)
        cols["permission"].append(e.permission.name)
        cols["resource_type"].append(p.resource_type.name)
        cols["resource_name"].append(p.name)
        cols["pattern_type"].append(p.pattern_type.name)
        cols["in_scope"].append(scope is not None and scope.principal_in_scope(e.principal))
    log.info("read %d ACL binding(s)", len(cols["principal"]))
    return cols


# --- SCRAM users ----------------------------------------------------------------------------------------


def read_scram(admin: AdminClient, scope: Scope | None) -> Columns:
    """Every SCRAM credential (user, mechanism, iterations); passwords are never readable, by design."""
    described = admin.describe_user_scram_credentials()
    cols: Columns = {f.name: [] for f in SCRAM_SCHEMA.fields}
    from kadmin.errors import KafkaError

    for user, infos in described.items():
        if isinstance(infos, KafkaError):
            raise infos
        for info in infos:
            cols["user"].append(user)
            cols["mechanism"].append(info.mechanism.mechanism_name)
            cols["iterations"].append(info.iterations)
            cols["in_scope"].append(scope is not None and scope.principal_in_scope("User:" + user))
    log.info("read %d SCRAM credential(s)", len(cols["user"]))
    return cols


# --- quotas ---------------------------------------------------------------------------------------------


def read_quotas(admin: AdminClient, scope: Scope | None) -> Columns:
    """Every client quota (one DescribeClientQuotas, all entities); in scope: entities with a user whose
    principal ``User:<name>`` has a scope prefix (default-user and user-less entities never are)."""
    from kadmin.spark.plan import read_current

    base = read_current(admin, None)
    users = base["user"]
    base["in_scope"] = [u is not None and u != "<default>" and scope is not None
                        and scope.principal_in_scope("User:" + u) for u in users]
    base["value"] = base.pop("value")
    return base


__all__ = ["frame", "read_acls", "read_quotas", "read_scram", "read_topic_configs", "read_topics"]
