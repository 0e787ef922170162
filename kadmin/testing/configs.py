"""The fake cluster's configs: what keys each resource has, their types and defaults, and how a value is found.

Shared by the DescribeConfigs, AlterConfigs, IncrementalAlterConfigs and CreateTopics handlers.  The catalog
is a deliberately small slice of Kafka's (LogConfig for topics, KafkaConfig for brokers, GroupConfig,
ClientMetricsConfigs), with Kafka's names, types and defaults, kept independent of kadmin's client-side tables
(:mod:`kadmin.configs`) so that a wrong entry on one side shows up as a test failure, not as agreement.

How Kafka resolves a topic config, highest precedence first (DescribeConfigs synonyms come in this order):
the topic's own dynamic value (DYNAMIC_TOPIC_CONFIG), the answering broker's dynamic value of the broker-level
synonym (DYNAMIC_BROKER_CONFIG), the cluster-wide dynamic default (DYNAMIC_DEFAULT_BROKER_CONFIG), and the
default (DEFAULT_CONFIG).  The fake has no server.properties, so STATIC_BROKER_CONFIG never appears.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from kadmin.testing.state.base import ClusterState
from kadmin.testing.state.resource_configs import ResourceConfigs
from kadmin.testing.state.topics import Topics
from kadmin.versions import guess_release

TOPIC, BROKER, BROKER_LOGGER, CLIENT_METRICS, GROUP = 2, 4, 8, 16, 32
TYPE_NAMES = {TOPIC: "TOPIC", BROKER: "BROKER", BROKER_LOGGER: "BROKER_LOGGER", CLIENT_METRICS: "CLIENT_METRICS",
              GROUP: "GROUP"}

# ConfigSource codes
DYNAMIC_TOPIC, DYNAMIC_BROKER, DYNAMIC_DEFAULT_BROKER, STATIC_BROKER, DEFAULT = 1, 2, 3, 4, 5
DYNAMIC_BROKER_LOGGER, CLIENT_METRICS_SOURCE, GROUP_SOURCE = 6, 7, 8
# ConfigType codes
BOOLEAN, STRING, INT, SHORT, LONG, DOUBLE, LIST, CLASS, PASSWORD = 1, 2, 3, 4, 5, 6, 7, 8, 9
TYPE_LABEL = {BOOLEAN: "BOOLEAN", STRING: "STRING", INT: "INT", SHORT: "SHORT", LONG: "LONG", DOUBLE: "DOUBLE",
              LIST: "LIST", CLASS: "CLASS", PASSWORD: "PASSWORD"}

LONG_MAX = str(2**63 - 1)
LOG_LEVELS = ("OFF", "FATAL", "ERROR", "WARN", "INFO", "DEBUG", "TRACE")
#: Loggers every fake broker has, with their initial levels (a slice of Kafka's log4j setup).
LOGGERS = {"root": "INFO", "kafka": "INFO", "kafka.controller": "TRACE", "kafka.log.LogCleaner": "INFO",
           "state.change.logger": "INFO", "kafka.request.logger": "WARN"}


@dataclass(frozen=True)
class ConfigDef:
    name: str
    type: int
    default: str | None
    doc: str
    #: Broker-level key whose value a topic inherits (topic configs), None if none.
    synonym: str | None = None
    #: Brokers: updatable through the Admin API (per broker and cluster-wide); False = read-only.
    dynamic: bool = True
    #: (first, last) release having it; None = no bound.
    since: str | None = None
    until: str | None = None
    #: First release whose DescribeConfigs lists it.  From ``since`` until then it is an internal config (Kafka's
    #: defineInternal): accepted in creates and alters, described only where set (ConfigHelper.allConfigs shows
    #: the originals plus nonInternalValues).
    listed_since: str | None = None
    #: Allowed values (STRING enums), checked on alter.
    choices: tuple[str, ...] | None = None
    #: Kafka's validator of a number (ConfigDef.Range and the like): what is wrong with it, or None.
    check: Callable[[int], str | None] | None = None

    @property
    def sensitive(self) -> bool:
        return self.type == PASSWORD


def _d(name: str, type_: int, default: str | None, doc: str, **kw: object) -> ConfigDef:
    return ConfigDef(name, type_, default, doc, **kw)  # type: ignore[arg-type]


def _between(lo: int | None, hi: int | None) -> Callable[[int], str | None]:
    """ConfigDef.Range.between / atLeast, with Kafka's messages."""
    def check(n: int) -> str | None:
        if lo is not None and n < lo:
            return f"Value must be at least {lo}"
        if hi is not None and n > hi:
            return f"Value must be no more than {hi}"
        return None
    return check


def _gzip_level(n: int) -> str | None:
    """CompressionType.GZIP.levelValidator: Deflater's 1..9, or -1 (Deflater.DEFAULT_COMPRESSION)."""
    return None if 1 <= n <= 9 or n == -1 else "Value must be between 1 and 9 or equal to -1"


#: Kafka's LogConfig topic configs, each with the releases that have it.  A name may appear twice when its default
#: changed (message.timestamp.after.max.ms: Long.MAX_VALUE from KIP-937 in 3.6, one hour from KIP-1030 in 4.0).
#: Facts: KIP-354 max.compaction.lag.ms (2.3); KIP-937 (3.6); KIP-405's remote.storage.enable and
#: local.retention.* internal from 3.0 (KAFKA-12816), public from 3.6;
#: KIP-390 compression levels (3.8; ranges from CompressionType's level validators); KIP-950 (3.9); 4.0 removed
#: message.format.version, message.downconversion.enable and message.timestamp.difference.max.ms.
TOPIC_DEFS: tuple[ConfigDef, ...] = (
    _d("cleanup.policy", LIST, "delete", "delete and/or compact old segments", synonym="log.cleanup.policy",
       choices=("delete", "compact")),
    _d("compression.type", STRING, "producer", "final compression of the topic's batches",
       synonym="compression.type", choices=("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer")),
    _d("delete.retention.ms", LONG, "86400000", "how long delete tombstones are kept on compacted topics",
       synonym="log.cleaner.delete.retention.ms"),
    _d("file.delete.delay.ms", LONG, "60000", "wait before a deleted segment file is removed",
       synonym="log.segment.delete.delay.ms"),
    _d("flush.messages", LONG, LONG_MAX, "fsync after this many messages", synonym="log.flush.interval.messages"),
    _d("flush.ms", LONG, LONG_MAX, "fsync after this long", synonym="log.flush.interval.ms"),
    _d("follower.replication.throttled.replicas", LIST, "", "replicas throttled on the follower side"),
    _d("index.interval.bytes", INT, "4096", "bytes between offset index entries", synonym="log.index.interval.bytes"),
    _d("leader.replication.throttled.replicas", LIST, "", "replicas throttled on the leader side"),
    _d("local.retention.bytes", LONG, "-2", "local bytes kept with tiered storage", since="3.0", listed_since="3.6",
       synonym="log.local.retention.bytes", check=_between(-2, None)),
    _d("local.retention.ms", LONG, "-2", "local time kept with tiered storage", since="3.0", listed_since="3.6",
       synonym="log.local.retention.ms", check=_between(-2, None)),
    _d("max.compaction.lag.ms", LONG, LONG_MAX, "longest a message may stay uncompacted", since="2.3",
       synonym="log.cleaner.max.compaction.lag.ms", check=_between(1, None)),
    _d("max.message.bytes", INT, "1048588", "largest record batch accepted", synonym="message.max.bytes"),
    _d("message.downconversion.enable", BOOLEAN, "true", "down-convert for old consumers", until="3.9",
       synonym="log.message.downconversion.enable"),
    # The default is the release's own inter-broker protocol version (Kafka's ApiVersion.latestVersion): one
    # definition per preset's release line.
    _d("message.format.version", STRING, "2.2-IV1", "message format version",
       synonym="log.message.format.version", until="2.5"),
    _d("message.format.version", STRING, "2.6-IV0", "message format version",
       synonym="log.message.format.version", since="2.6", until="2.7"),
    _d("message.format.version", STRING, "2.8-IV1", "message format version",
       synonym="log.message.format.version", since="2.8", until="2.8"),
    _d("message.format.version", STRING, "3.0-IV1", "message format version",
       synonym="log.message.format.version", since="3.0", until="3.9"),
    _d("message.timestamp.type", STRING, "CreateTime", "CreateTime or LogAppendTime",
       synonym="log.message.timestamp.type", choices=("CreateTime", "LogAppendTime")),
    _d("message.timestamp.difference.max.ms", LONG, LONG_MAX, "largest gap between a CreateTime and the broker's "
       "clock", synonym="log.message.timestamp.difference.max.ms", until="3.9", check=_between(0, None)),
    _d("message.timestamp.before.max.ms", LONG, LONG_MAX, "how far in the past a CreateTime may be",
       synonym="log.message.timestamp.before.max.ms", since="3.6", check=_between(0, None)),
    _d("message.timestamp.after.max.ms", LONG, LONG_MAX, "how far in the future a CreateTime may be",
       synonym="log.message.timestamp.after.max.ms", since="3.6", until="3.9", check=_between(0, None)),
    _d("message.timestamp.after.max.ms", LONG, "3600000", "how far in the future a CreateTime may be",
       synonym="log.message.timestamp.after.max.ms", since="4.0", check=_between(0, None)),
    _d("compression.gzip.level", INT, "-1", "gzip level when the topic compresses with gzip",
       synonym="compression.gzip.level", since="3.8", check=_gzip_level),
    _d("compression.lz4.level", INT, "9", "lz4 level when the topic compresses with lz4",
       synonym="compression.lz4.level", since="3.8", check=_between(1, 17)),
    _d("compression.zstd.level", INT, "3", "zstd level when the topic compresses with zstd",
       synonym="compression.zstd.level", since="3.8", check=_between(-131072, 22)),
    _d("remote.log.copy.disable", BOOLEAN, "false", "stop copying segments to tiered storage", since="3.9"),
    _d("remote.log.delete.on.disable", BOOLEAN, "false", "delete tiered data when tiered storage is turned off",
       since="3.9"),
    _d("min.cleanable.dirty.ratio", DOUBLE, "0.5", "dirty ratio that triggers compaction",
       synonym="log.cleaner.min.cleanable.ratio"),
    _d("min.compaction.lag.ms", LONG, "0", "shortest a message stays uncompacted",
       synonym="log.cleaner.min.compaction.lag.ms"),
    _d("min.insync.replicas", INT, "1", "replicas that must acknowledge an acks=all write",
       synonym="min.insync.replicas"),
    _d("preallocate", BOOLEAN, "false", "preallocate segment files", synonym="log.preallocate"),
    _d("remote.storage.enable", BOOLEAN, "false", "tiered storage for the topic", since="3.0", listed_since="3.6"),
    _d("retention.bytes", LONG, "-1", "size bound of each partition's log", synonym="log.retention.bytes"),
    _d("retention.ms", LONG, "604800000", "time bound of the log", synonym="log.retention.ms"),
    _d("segment.bytes", INT, "1073741824", "segment file size", synonym="log.segment.bytes"),
    _d("segment.index.bytes", INT, "10485760", "offset index size", synonym="log.index.size.max.bytes"),
    _d("segment.jitter.ms", LONG, "0", "random jitter on segment roll", synonym="log.roll.jitter.ms"),
    _d("segment.ms", LONG, "604800000", "roll a segment after this long", synonym="log.roll.ms"),
    _d("unclean.leader.election.enable", BOOLEAN, "false", "allow out-of-sync leaders",
       synonym="unclean.leader.election.enable"),
)

BROKER_CONFIGS: dict[str, ConfigDef] = {d.name: d for d in (
    _d("advertised.listeners", STRING, None, "listeners published to clients", dynamic=False),
    _d("auto.create.topics.enable", BOOLEAN, "false", "create topics on first use", dynamic=False),
    _d("background.threads", INT, "10", "threads for background tasks"),
    _d("broker.id", INT, None, "this broker's id", dynamic=False),
    _d("compression.type", STRING, "producer", "default compression of topics",
       choices=("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer")),
    _d("default.replication.factor", INT, "1", "replication factor of topics created without one",
       dynamic=False),
    _d("log.cleaner.threads", INT, "1", "log cleaner threads"),
    _d("log.cleanup.policy", LIST, "delete", "default cleanup.policy", choices=("delete", "compact")),
    _d("log.retention.bytes", LONG, "-1", "default retention.bytes"),
    _d("log.retention.ms", LONG, "604800000", "default retention.ms"),
    _d("log.segment.bytes", INT, "1073741824", "default segment.bytes"),
    _d("message.max.bytes", INT, "1048588", "default max.message.bytes"),
    _d("min.insync.replicas", INT, "1", "default min.insync.replicas"),
    _d("num.io.threads", INT, "8", "request handler threads"),
    _d("num.network.threads", INT, "3", "network threads"),
    _d("num.partitions", INT, "1", "partition count of topics created without one", dynamic=False),
    _d("ssl.cipher.suites", LIST, "", "TLS cipher suites of the listeners"),
    _d("ssl.keystore.password", PASSWORD, None, "password of the listeners' keystore"),
    _d("unclean.leader.election.enable", BOOLEAN, "false", "default unclean.leader.election.enable"),
)}

#: Broker synonyms whose KafkaConfig default is null (the value then comes from a lower synonym: log.roll.hours,
#: log.roll.jitter.hours, log.flush.scheduler.interval.ms), so DescribeConfigs shows no DEFAULT_CONFIG synonym.
_NULL_DEFAULT_SYNONYMS = ("log.roll.ms", "log.roll.jitter.ms", "log.flush.interval.ms")
#: KIP-405's broker-side log.local.retention.* (RemoteLogManagerConfig) arrived with tiered storage in 3.6.
_SYNONYM_SINCE = {"log.local.retention.ms": "3.6", "log.local.retention.bytes": "3.6"}


def _broker_synonym_defs() -> tuple[ConfigDef, ...]:
    """The broker-side name of every topic config that has one (Kafka's ServerTopicConfigSynonyms, the
    first-priority name), not already in BROKER_CONFIGS: typed and release-gated as their topic config and
    updatable per broker and cluster-wide (Kafka's DynamicLogConfig reconfigures exactly these names)."""
    return tuple(
        dataclasses.replace(d, name=d.synonym, doc=f"default {d.name}", listed_since=None,
                            default=None if d.synonym in _NULL_DEFAULT_SYNONYMS else d.default,
                            since=_SYNONYM_SINCE.get(d.synonym, d.since))
        for d in TOPIC_DEFS if d.synonym is not None and d.synonym not in BROKER_CONFIGS)


#: The broker catalog: BROKER_CONFIGS, the topic configs' broker synonyms, and the lower-priority synonyms of
#: the ms/hours chains (LogConfig's segment.ms <- log.roll.ms, log.roll.hours; retention.ms <- log.retention.ms,
#: log.retention.minutes, log.retention.hours; ...), which Kafka does not update dynamically (they are not
#: first-priority synonyms, so not in DynamicLogConfig): read-only here.
BROKER_DEFS: tuple[ConfigDef, ...] = (*BROKER_CONFIGS.values(), *_broker_synonym_defs(),
    _d("log.roll.hours", INT, "168", "segment.ms in hours, below log.roll.ms", dynamic=False),
    _d("log.roll.jitter.hours", INT, "0", "segment.jitter.ms in hours, below log.roll.jitter.ms", dynamic=False),
    _d("log.retention.minutes", INT, None, "retention.ms in minutes, below log.retention.ms", dynamic=False),
    _d("log.retention.hours", INT, "168", "retention.ms in hours, below log.retention.minutes", dynamic=False),
    _d("log.flush.scheduler.interval.ms", LONG, LONG_MAX, "flush.ms, below log.flush.interval.ms",
       dynamic=False),
)

GROUP_CONFIGS: dict[str, ConfigDef] = {d.name: d for d in (
    _d("consumer.heartbeat.interval.ms", INT, "5000", "heartbeat interval of KIP-848 consumer groups"),
    _d("consumer.session.timeout.ms", INT, "45000", "session timeout of KIP-848 consumer groups"),
    _d("share.heartbeat.interval.ms", INT, "5000", "heartbeat interval of share groups"),
    _d("share.record.lock.duration.ms", INT, "30000", "record lock duration of share groups"),
    _d("share.session.timeout.ms", INT, "45000", "session timeout of share groups"),
    _d("share.auto.offset.reset", STRING, "latest", "where a share group starts without a share-partition state",
       since="4.0", choices=("latest", "earliest")),
    _d("streams.heartbeat.interval.ms", INT, "5000", "heartbeat interval of KIP-1071 streams groups", since="4.1"),
    _d("streams.session.timeout.ms", INT, "45000", "session timeout of KIP-1071 streams groups", since="4.1"),
    _d("streams.num.standby.replicas", INT, "0", "standby replicas of KIP-1071 streams groups", since="4.1"),
)}

CLIENT_METRICS_CONFIGS: dict[str, ConfigDef] = {d.name: d for d in (
    _d("interval.ms", INT, "300000", "push interval of the subscription"),
    _d("match", LIST, "", "client selectors of the subscription"),
    _d("metrics", LIST, "", "metric name prefixes of the subscription"),
)}


def _release_key(name: str) -> tuple[int, ...]:
    return tuple(int(p) for p in name.split("."))


def release(table: Mapping[int, tuple[int, int]]) -> str:
    """The release a broker's table impersonates; a custom table that matches none counts as the newest."""
    # Keyed by the table's contents (a table can be swapped or changed, as in a rolling upgrade): guessing walks
    # every release's table, and the config handlers ask once per topic (1,000 topics per CreateTopics).
    return _release_of(frozenset(table.items()))


@functools.lru_cache(maxsize=64)
def _release_of(items: frozenset[tuple[int, tuple[int, int]]]) -> str:
    return guess_release(dict(items)) or "4.0"


def listed(d: ConfigDef, table: Mapping[int, tuple[int, int]]) -> bool:
    """Whether DescribeConfigs lists this config even when it is not set (see ConfigDef.listed_since)."""
    return d.listed_since is None or _release_key(release(table)) >= _release_key(d.listed_since)


def topic_resolution(table: Mapping[int, tuple[int, int]],
                     ) -> tuple[tuple[ConfigDef, bool, ConfigDef | None], ...]:
    """Every topic config of this table's release, in name order, as (its definition, whether DescribeConfigs
    lists it unset (:func:`listed`), the definition of its broker synonym where this release's broker has one).
    Made once per release: DescribeConfigs and CreateTopics v5+ resolve every config of every topic by it, 1,000
    topics at a time."""
    return _topic_resolution(release(table))


@functools.lru_cache(maxsize=16)
def _topic_resolution(rel_name: str) -> tuple[tuple[ConfigDef, bool, ConfigDef | None], ...]:
    rel = _release_key(rel_name)
    brokers = _catalog_of(BROKER, rel_name)
    return tuple((d, d.listed_since is None or rel >= _release_key(d.listed_since),
                  brokers.get(d.synonym) if d.synonym is not None else None)
                 for _n, d in sorted(_catalog_of(TOPIC, rel_name).items()))


def kraft(table: Mapping[int, tuple[int, int]]) -> bool:
    """KRaft brokers (the 4.0 preset) do not advertise the ZooKeeper-era LeaderAndIsr (key 4)."""
    return 4 not in table


def catalog(rtype: int, table: Mapping[int, tuple[int, int]]) -> dict[str, ConfigDef]:
    """The keys a resource type has on a broker of this table's release (a fresh dict: callers may change it)."""
    return dict(_catalog_of(rtype, release(table)))


@functools.lru_cache(maxsize=64)
def _catalog_of(rtype: int, rel_name: str) -> dict[str, ConfigDef]:
    """Made once per (resource type, release); never handed out itself (see catalog)."""
    base: Iterable[ConfigDef] = TOPIC_DEFS if rtype == TOPIC else BROKER_DEFS if rtype == BROKER else {
        GROUP: GROUP_CONFIGS, CLIENT_METRICS: CLIENT_METRICS_CONFIGS}.get(rtype, {}).values()
    rel = _release_key(rel_name)
    return {d.name: d for d in base
            if (d.since is None or rel >= _release_key(d.since)) and (d.until is None or rel <= _release_key(d.until))}


#: The release whose ConfigResource.Type first has each type beyond TOPIC and BROKER: BROKER_LOGGER with KIP-412
#: (2.4), CLIENT_METRICS with KIP-714 (3.7; 3.7's ConfigHelper knows BROKER, BROKER_LOGGER, CLIENT_METRICS and TOPIC
#: only), GROUP with KIP-848's group configs (KAFKA-14511, merged for 3.9 after 3.8 branched).
TYPE_SINCE = {BROKER_LOGGER: (2, 4), CLIENT_METRICS: (3, 7), GROUP: (3, 9)}
#: From 2.6 DescribeConfigs is a generated message (KAFKA-9432): its error response repeats each resource's type id
#: as sent and carries Errors.INVALID_REQUEST's stock message; before, the hand-written request had parsed the ids
#: (an unknown one as UNKNOWN, 0) and the response carried the exception's own message.
GENERATED_DESCRIBE_SINCE = (2, 6)
INVALID_REQUEST_TEXT = ("This most likely occurs because of a request being malformed by the client library or the "
                        "message was sent to an incompatible broker. See the broker logs for more details.")


def supports_type(rtype: int, table: Mapping[int, tuple[int, int]]) -> bool:
    """Resource types a broker serves configs for: those its release knows (see unparsed_type); group and
    client-metrics configs on KRaft brokers only here."""
    if unparsed_type(rtype, table):
        return False
    if rtype in (GROUP, CLIENT_METRICS):
        return kraft(table)
    return True


def unparsed_type(rtype: int, table: Mapping[int, tuple[int, int]]) -> bool:
    """A type id this broker's ConfigResource.Type lacks (see TYPE_SINCE), so it reads it as UNKNOWN (0).  KafkaApis
    (ConfigHelper from 3.x) then throws InvalidRequestException("Unexpected resource type UNKNOWN for resource
    <name>") while sorting the resources for authorization, and the whole DescribeConfigs request is answered with
    INVALID_REQUEST for every resource (DescribeConfigsRequest.getErrorResponse; see GENERATED_DESCRIBE_SINCE)."""
    if rtype in (TOPIC, BROKER):
        return False
    since = TYPE_SINCE.get(rtype)
    return since is None or _release_key(release(table)) < since


def generated_describe(table: Mapping[int, tuple[int, int]]) -> bool:
    """Whether this release's DescribeConfigs error response has the generated shape (GENERATED_DESCRIBE_SINCE)."""
    return _release_key(release(table)) >= GENERATED_DESCRIBE_SINCE


class ConfigValueError(Exception):
    """Why a change is refused.  ``config_exception``: Kafka raised a ConfigException there, which a ZooKeeper-mode
    broker (ZkAdminManager) answers as INVALID_REQUEST "Invalid config value for resource <resource>: <message>"
    and a KRaft broker (ConfigAdminManager.validateBrokerConfigChange) as INVALID_REQUEST with the bare message
    (see answer_message)."""

    def __init__(self, code: int, message: str, config_exception: bool = False) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.config_exception = config_exception


INVALID_CONFIG = 40
INVALID_REQUEST = 42


def check_value(d: ConfigDef, value: str | None) -> None:
    """Kafka's ConfigDef.parseType checks, with its message shape; INVALID_CONFIG on failure."""
    if value is None:
        return
    bad = ConfigValueError(INVALID_CONFIG, f"Invalid value {value} for configuration {d.name}: "
                                           f"Not a number of type {TYPE_LABEL[d.type]}")
    v = value.strip()
    if d.type == BOOLEAN:
        if v.lower() not in ("true", "false"):
            raise ConfigValueError(INVALID_CONFIG, f"Invalid value {value} for configuration {d.name}: "
                                                   "Expected value to be either true or false")
    elif d.type in (INT, SHORT, LONG):
        bits = {INT: 31, SHORT: 15, LONG: 63}[d.type]
        try:
            n = int(v)
        except ValueError:
            raise bad from None
        if not -(2**bits) <= n < 2**bits:
            raise bad
        problem = d.check(n) if d.check is not None else None
        if problem is not None:
            raise ConfigValueError(INVALID_CONFIG, f"Invalid value {value} for configuration {d.name}: {problem}")
    elif d.type == DOUBLE:
        try:
            float(v)
        except ValueError:
            raise bad from None
    if d.choices is not None:
        items = [i.strip() for i in v.split(",")] if d.type == LIST else [v]
        for i in items:
            if i and i not in d.choices:
                raise ConfigValueError(INVALID_CONFIG, f"Invalid value {i} for configuration {d.name}: "
                                                       f"String must be one of: {', '.join(d.choices)}")


def list_items(value: str | None) -> list[str]:
    return [i.strip() for i in (value or "").split(",") if i.strip()]


# --- dynamic broker configs (Kafka's DynamicBrokerConfig) -----------------------------------------------------

#: Kafka's DynamicSecurityConfigs (SslConfigs.RECONFIGURABLE_CONFIGS): dynamic only per listener, as
#: ``listener.name.<listener>.<name>``; unprefixed they are refused.  KIP-651 (2.7) added the PEM three: before 2.7
#: they are names the broker does not know, so accepted as custom configs.
DYNAMIC_SECURITY = ("ssl.keystore.type", "ssl.keystore.location", "ssl.keystore.password", "ssl.key.password",
                    "ssl.truststore.type", "ssl.truststore.location", "ssl.truststore.password")
DYNAMIC_SECURITY_PEM = ("ssl.keystore.certificate.chain", "ssl.keystore.key", "ssl.truststore.certificates")
PEM_SINCE = (2, 7)
#: DynamicListenerConfig.ReconfigurableConfigs less the cluster-level ones (max.connections,
#: max.connection.creation.rate, num.network.threads): with DYNAMIC_SECURITY, Kafka's PerBrokerConfigs, which the
#: cluster-wide default resource ("") refuses.  Not in the fake's catalog, they are otherwise custom names here.
PER_BROKER_LISTENER = (
    "advertised.listeners", "listeners", "listener.security.protocol.map", "principal.builder.class",
    "ssl.protocol", "ssl.provider", "ssl.cipher.suites", "ssl.enabled.protocols", "ssl.keymanager.algorithm",
    "ssl.trustmanager.algorithm", "ssl.endpoint.identification.algorithm", "ssl.secure.random.implementation",
    "ssl.client.auth", "ssl.engine.factory.class", "sasl.mechanism.inter.broker.protocol", "sasl.jaas.config",
    "sasl.enabled.mechanisms", "sasl.kerberos.service.name", "sasl.kerberos.kinit.cmd",
    "sasl.kerberos.ticket.renew.window.factor", "sasl.kerberos.ticket.renew.jitter",
    "sasl.kerberos.min.time.before.relogin", "sasl.kerberos.principal.to.local.rules",
    "sasl.login.refresh.window.factor", "sasl.login.refresh.window.jitter", "sasl.login.refresh.min.period.seconds",
    "sasl.login.refresh.buffer.seconds")
CLUSTER_LEVEL_LISTENER = ("max.connections", "max.connection.creation.rate", "num.network.threads")
#: Kafka's ListenerMechanismConfigs: overridden per listener AND mechanism
#: (``listener.name.<l>.<mechanism>.sasl.jaas.config``), whose synonym is the base name.
LISTENER_MECHANISM = ("sasl.jaas.config", "sasl.login.callback.handler.class", "sasl.login.class",
                      "sasl.server.callback.handler.class", "connections.max.reauth.ms")
#: Kafka's ListenerConfigRegex.
_LISTENER_OVERRIDE = re.compile(r"listener\.name\.[^.]*\.(.*)")
_PASSWORD_LIKE = ("password", "jaas.config", "ssl.keystore.key", "ssl.keystore.certificate.chain",
                  "ssl.truststore.certificates")


def listener_base(name: str) -> str | None:
    """The config a ``listener.name.<l>.`` override stands for (the mechanism configs without their mechanism:
    Kafka's brokerConfigSynonyms), or None for a name without the prefix."""
    m = _LISTENER_OVERRIDE.fullmatch(name)
    if m is None:
        return None
    base = m.group(1)
    return next((c for c in LISTENER_MECHANISM if base.endswith(c)), base)


def dynamic_security(table: Mapping[int, tuple[int, int]]) -> tuple[str, ...]:
    pem = _release_key(release(table)) >= PEM_SINCE
    return DYNAMIC_SECURITY + DYNAMIC_SECURITY_PEM if pem else DYNAMIC_SECURITY


def broker_def(name: str, table: Mapping[int, tuple[int, int]]) -> ConfigDef:
    """How the fake types a broker config: its catalog entry; a listener override as its base (Kafka's
    KafkaConfig.configType, so ``listener.name.internal.ssl.keystore.password`` is a PASSWORD checked as one);
    any other name is a custom config, which Kafka stores as given (DynamicConfig.Broker allows custom props):
    STRING, or PASSWORD (so sensitive, never described) when the name looks like a secret.  Kafka itself
    describes a name it has no type for as sensitive with type UNKNOWN; the fake's catalog is a small slice of
    KafkaConfig, so it cannot tell such names from real ones it lacks and types them by name instead."""
    cat = catalog(BROKER, table)
    d = cat.get(name)
    if d is not None:
        return d
    base = listener_base(name)
    b = cat.get(base) if base is not None else None
    if b is not None:
        return dataclasses.replace(b, name=name, default=None, dynamic=True)
    secret = name.endswith(_PASSWORD_LIKE)
    return ConfigDef(name, PASSWORD if secret else STRING, None, "a config this fake broker does not know")


def _per_broker_only(name: str, table: Mapping[int, tuple[int, int]]) -> bool:
    """Kafka's perBrokerConfigs: the security and listener configs, and every listener override but those of the
    cluster-level listener configs."""
    m = _LISTENER_OVERRIDE.fullmatch(name)
    if m is not None:
        return m.group(1) not in CLUSTER_LEVEL_LISTENER
    return name in PER_BROKER_LISTENER or name in dynamic_security(table)


def _scala_set(names: Iterable[str]) -> str:
    """How Kafka's message prints a Scala Set of names (Set1..Set4; a larger one is a HashSet in Scala 2.13)."""
    items = sorted(names)
    return f"{'Set' if len(items) <= 4 else 'HashSet'}({', '.join(items)})"


def validate_broker(props: Mapping[str, str], per_broker: bool, table: Mapping[int, tuple[int, int]]) -> None:
    """Kafka's DynamicBrokerConfig.validateConfigs over a broker resource's resulting dynamic configs, in its order:
    known read-only configs ("Cannot update these configs dynamically"), unprefixed DynamicSecurityConfigs, the
    values' types (of an override: its base's), and at the cluster default the per-broker configs.  Each is a
    ConfigException in Kafka, so INVALID_REQUEST (see ConfigValueError)."""
    cat = catalog(BROKER, table)

    def refuse(bad: list[str], why: str) -> None:
        if bad:
            raise ConfigValueError(INVALID_REQUEST, f"{why}: {_scala_set(bad)}", config_exception=True)

    refuse([k for k in props if k in cat and not cat[k].dynamic], "Cannot update these configs dynamically")
    security = dynamic_security(table)
    refuse([k for k in props if k in security],
           "These security configs can be dynamically updated only per-listener using the listener prefix")
    for k in sorted(props):
        base = listener_base(k)
        try:  # an override is checked as its base, under the base's name (Kafka's validateConfigTypes)
            check_value(cat[base] if base in cat else broker_def(k, table), props[k])
        except ConfigValueError as exc:
            raise ConfigValueError(INVALID_REQUEST, exc.message, config_exception=True) from None
    if not per_broker:
        refuse([k for k in props if _per_broker_only(k, table)],
               "Cannot update these configs at default cluster level, broker id must be specified")


def answer_message(exc: ConfigValueError, rtype: int, name: str, table: Mapping[int, tuple[int, int]]) -> str:
    """The error message a broker of this release sends for ``exc`` about resource (rtype, name)."""
    if exc.config_exception and not kraft(table):
        return (f"Invalid config value for resource ConfigResource(type={TYPE_NAMES.get(rtype, 'UNKNOWN')}, "
                f"name='{name}'): {exc.message}")
    return exc.message


# --- changes (AlterConfigs, IncrementalAlterConfigs, CreateTopics) -----------------------------------------

SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3
_OP_WORD = {APPEND: "append", SUBTRACT: "subtract"}


def _def_for(rtype: int, key: str, table: Mapping[int, tuple[int, int]]) -> ConfigDef:
    if rtype == BROKER:
        return broker_def(key, table)  # Kafka takes any name for a broker; validate_broker judges the result
    d = catalog(rtype, table).get(key)
    if d is None:
        kind = {TOPIC: "topic", GROUP: "group", CLIENT_METRICS: "client metrics"}.get(rtype, "")
        raise ConfigValueError(INVALID_CONFIG, f"Unknown {kind} config name: {key}")
    return d


def _logger_change(current: dict[str, str], ops: list[tuple[str, int, str | None]]) -> dict[str, str]:
    out = dict(current)
    for key, op, value in ops:
        if key not in LOGGERS and key not in current:
            raise ConfigValueError(INVALID_CONFIG, f"Logger {key} does not exist!")
        if op == SET:
            if value is None or value.upper() not in LOG_LEVELS:
                raise ConfigValueError(INVALID_CONFIG, f"Cannot set the log level of {key} to {value} as it is "
                                                       f"not a supported log level. Valid log levels are "
                                                       f"{', '.join(LOG_LEVELS)}")
            out[key] = value.upper()
        elif op == DELETE:
            if key == "root":
                raise ConfigValueError(INVALID_REQUEST, "Removing the log level of the root logger is not allowed")
            out.pop(key, None)
        else:
            raise ConfigValueError(INVALID_REQUEST, f"{_OP_WORD.get(op, op)} is not supported for broker loggers")
    return out


def incremental_change(rtype: int, current: Mapping[str, str], ops: list[tuple[str, int, str | None]],
                       table: Mapping[int, tuple[int, int]], per_broker: bool = True) -> dict[str, str]:
    """The resource's new dynamic configs after ``ops`` (name, op code, value), or ConfigValueError.  A broker
    resource (``per_broker``: named by an id, not the cluster default "") is judged as a whole once the ops are
    applied, as Kafka applies them to the stored configs and then validates the result (validate_broker)."""
    names = [k for k, _o, _v in ops]
    if len(set(names)) != len(names):
        raise ConfigValueError(INVALID_REQUEST, "Error due to duplicate config keys")
    for _k, op, _v in ops:
        if op not in (SET, DELETE, APPEND, SUBTRACT):
            raise ConfigValueError(INVALID_REQUEST, f"Unknown alter config operation type {op}")
    if rtype == BROKER_LOGGER:
        return _logger_change(dict(current), ops)
    out = dict(current)
    for key, op, value in ops:
        d = _def_for(rtype, key, table)
        if op == SET:
            if value is None:
                raise ConfigValueError(INVALID_REQUEST, f"Null value not supported for : {key}")
            if rtype != BROKER:
                check_value(d, value)
            out[key] = value
        elif op == DELETE:
            out.pop(key, None)
        else:
            if d.type != LIST:
                raise ConfigValueError(INVALID_CONFIG,
                                       f"Config value {_OP_WORD[op]} is not allowed for config key: {key}")
            items = list_items(out[key] if key in out else d.default)
            given = list_items(value)
            if op == APPEND:
                items += [i for i in given if i not in items]
            else:
                items = [i for i in items if i not in given]
            new = ",".join(items)
            if rtype != BROKER:
                check_value(d, new)
            out[key] = new
    if rtype == BROKER:
        validate_broker(out, per_broker, table)
    return out


def replace_all(rtype: int, pairs: list[tuple[str, str | None]],
                table: Mapping[int, tuple[int, int]], per_broker: bool = True) -> dict[str, str]:
    """AlterConfigs: the given pairs become the resource's whole set of dynamic configs (a broker's judged as a
    whole, see incremental_change)."""
    if rtype == BROKER_LOGGER:
        raise ConfigValueError(INVALID_REQUEST, "AlterConfigs does not support the BROKER_LOGGER resource type; "
                                                "use IncrementalAlterConfigs")
    names = [k for k, _v in pairs]
    if len(set(names)) != len(names):
        raise ConfigValueError(INVALID_REQUEST, "Error due to duplicate config keys")
    out: dict[str, str] = {}
    for key, value in pairs:
        d = _def_for(rtype, key, table)
        if value is None:
            raise ConfigValueError(INVALID_REQUEST, f"Null value not supported for : {key}")
        if rtype != BROKER:
            check_value(d, value)
        out[key] = value
    if rtype == BROKER:
        validate_broker(out, per_broker, table)
    return out


def current(state: ClusterState, rtype: int, name: str) -> dict[str, str]:
    """The resource's dynamic configs (a copy); the resource must exist."""
    if rtype == TOPIC:
        return dict(state.area(Topics)[name].configs)
    return dict(state.area(ResourceConfigs).get((rtype, name), {}))


def store(state: ClusterState, rtype: int, name: str, configs: dict[str, str]) -> None:
    if rtype == TOPIC:
        state.area(Topics)[name].configs = configs
    elif configs:
        state.area(ResourceConfigs)[(rtype, name)] = configs
    else:
        state.area(ResourceConfigs).pop((rtype, name), None)
