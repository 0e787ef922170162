"""Configs of topics, brokers, broker loggers, groups and client-metrics subscriptions: resources, entries,
alterations, and the checks made before anything is sent.

Pure: no sockets.  ``describe_configs`` and ``alter_configs`` on the AdminClient classes send these (see
:mod:`kadmin.admin.configs`).

Why sensitive values are masked in ``repr``: a ``SetConfig("ssl.keystore.password", ...)`` ends up in logs,
tracebacks and test reports far more often than anyone intends.  A value is masked when the broker marked the
entry sensitive, or, for what the caller sends, when its name looks like one of Kafka's PASSWORD-type keys
(:func:`looks_sensitive`).

Why APPEND/SUBTRACT are checked against a table: Kafka allows them only on LIST-type configs and answers
INVALID_CONFIG otherwise, one round trip later; kadmin knows the LIST-type keys of every release it supports
(:data:`LIST_CONFIGS`) and refuses an APPEND on any other *known* key before sending.  Keys it does not know
(plugins, newer releases) are left to the broker.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final

from kadmin._keys import hash_or_none as _hash_or_none
from kadmin._keys import normalise_keys

# --- resources --------------------------------------------------------------------------------------------


class ConfigResourceType(enum.IntEnum):
    """Kafka's ConfigResource.Type codes."""

    UNKNOWN = 0
    TOPIC = 2
    BROKER = 4
    BROKER_LOGGER = 8
    CLIENT_METRICS = 16
    GROUP = 32

    @property
    def cli_name(self) -> str:
        return _CLI_NAMES[self]


_CLI_NAMES = {ConfigResourceType.UNKNOWN: "unknown", ConfigResourceType.TOPIC: "topics",
              ConfigResourceType.BROKER: "brokers", ConfigResourceType.BROKER_LOGGER: "broker-loggers",
              ConfigResourceType.CLIENT_METRICS: "client-metrics", ConfigResourceType.GROUP: "groups"}
_BY_NAME = {**{t.name.lower(): t for t in ConfigResourceType}, **{v: k for k, v in _CLI_NAMES.items()},
            "topic": ConfigResourceType.TOPIC, "broker": ConfigResourceType.BROKER,
            "broker-logger": ConfigResourceType.BROKER_LOGGER, "group": ConfigResourceType.GROUP}


@dataclass(frozen=True, order=True)
class ConfigResource:
    """What configs belong to: a topic, a broker (by id; "" is the cluster-wide default), a broker's loggers
    (by broker id), a consumer group (KIP-848, Kafka 4.0) or a client-metrics subscription (KIP-714)."""

    type: ConfigResourceType
    name: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "_hash", _hash_or_none((self.type, self.name)))

    # Hashed once: resources are the keys of per-resource calls (1,000 topics at a time), and validation, the
    # driver's bookkeeping and the results' re-keying hash each key about fifteen times.
    _hash: ClassVar[int | None]

    def __hash__(self) -> int:
        h = self._hash
        # None: a field is unhashable (bad input that validation refuses with its own message).
        return h if h is not None else hash((self.type, self.name))

    def __getstate__(self) -> dict[str, object]:
        # Never the cached hash: str hashes differ between processes (a Spark executor's, say).
        return {"type": self.type, "name": self.name}

    def __setstate__(self, state: dict[str, Any]) -> None:
        object.__setattr__(self, "type", state["type"])
        object.__setattr__(self, "name", state["name"])
        object.__setattr__(self, "_hash", _hash_or_none((self.type, self.name)))

    @classmethod
    def topic(cls, name: str) -> ConfigResource:
        return cls(ConfigResourceType.TOPIC, name)

    @classmethod
    def broker(cls, node_id: int | str | None = None) -> ConfigResource:
        """A broker's own configs; None (or "") for the cluster-wide default broker configs."""
        return cls(ConfigResourceType.BROKER, "" if node_id is None else str(node_id))

    @classmethod
    def broker_logger(cls, node_id: int | str) -> ConfigResource:
        return cls(ConfigResourceType.BROKER_LOGGER, str(node_id))

    @classmethod
    def group(cls, group_id: str) -> ConfigResource:
        return cls(ConfigResourceType.GROUP, group_id)

    @classmethod
    def client_metrics(cls, name: str) -> ConfigResource:
        return cls(ConfigResourceType.CLIENT_METRICS, name)

    @property
    def broker_id(self) -> int | None:
        """The node that must answer for this resource (broker and broker-logger resources with an id)."""
        if self.type in (ConfigResourceType.BROKER, ConfigResourceType.BROKER_LOGGER) and self.name:
            return int(self.name)
        return None

    def __str__(self) -> str:
        return f"{self.type.cli_name}:{self.name}" if self.name else f"{self.type.cli_name}:<default>"


def resource_type(value: str | int | ConfigResourceType) -> ConfigResourceType:
    """A type from its code, Kafka's enum name, or the CLI's --entity-type spelling ("topics", "brokers"...)."""
    if isinstance(value, ConfigResourceType):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            t = ConfigResourceType(value)
        except ValueError:
            raise ValueError(f"unknown config resource type code {value}") from None
    elif isinstance(value, str):
        found = _BY_NAME.get(value.strip().lower().replace("_", "-")) or _BY_NAME.get(value.strip().lower())
        if found is None:
            raise ValueError(f"unknown config resource type {value!r}; one of "
                             f"{', '.join(_CLI_NAMES[t] for t in ConfigResourceType if t)}")
        t = found
    else:
        raise TypeError(f"a resource type is a name or a code, not {type(value).__name__}")
    if t is ConfigResourceType.UNKNOWN:
        raise ValueError("UNKNOWN is not a resource type one can ask about")
    return t


def validate_resource(resource: object) -> ConfigResource:
    """A checked resource: a known type, a name of the right form (broker ids are ints >= 0)."""
    if isinstance(resource, tuple) and len(resource) == 2 and not isinstance(resource, ConfigResource):
        resource = ConfigResource(resource_type(resource[0]), resource[1])
    if not isinstance(resource, ConfigResource):
        raise TypeError(f"expected a ConfigResource (e.g. ConfigResource.topic('t')), not {resource!r}")
    t = resource_type(resource.type)
    name = resource.name
    broker_kind = t in (ConfigResourceType.BROKER, ConfigResourceType.BROKER_LOGGER)
    if broker_kind and isinstance(name, int) and not isinstance(name, bool):
        # A broker is named by its id, so the id as an int is taken too (as ConfigResource.broker(1) takes it).
        if name < 0:
            raise ValueError(f"a {t.cli_name} resource is named by a broker id (an int >= 0), not {name!r}")
        name = str(name)
    if not isinstance(name, str):
        raise TypeError(f"a config resource name is a str, not {type(name).__name__} ({name!r})")
    if broker_kind:
        if name == "" and t is ConfigResourceType.BROKER:
            return ConfigResource(t, "")
        if not name.isdigit() or not name.isascii():
            raise ValueError(f"a {t.cli_name} resource is named by a broker id (an int >= 0), not {name!r}")
        return ConfigResource(t, str(int(name)))
    if t is ConfigResourceType.TOPIC:
        from kadmin.topics import validate_topic_name

        validate_topic_name(name)
    elif not name:
        raise ValueError(f"a {t.cli_name} resource needs a name")
    # A resource already in its normal form is immutable (frozen): the caller's object serves as the key.
    return resource if t is resource.type and type(resource) is ConfigResource else ConfigResource(t, name)


def check_resources(resources: Iterable[object], call: str = "describe_configs") -> dict[ConfigResource, Any]:
    """{checked resource: the caller's key}: the same key twice is one question; two spellings of one resource
    (``("topic", "t")`` and ``ConfigResource.topic("t")``, brokers ``"01"`` and ``"1"``) are refused."""
    if isinstance(resources, (ConfigResource, str, bytes)):
        raise TypeError("pass a list of ConfigResource, not a single one")
    return normalise_keys(resources, validate_resource, call, "config resource")


def validate_resources(resources: Iterable[ConfigResource]) -> list[ConfigResource]:
    return list(check_resources(resources))


# --- entries ----------------------------------------------------------------------------------------------


class ConfigSource(enum.IntEnum):
    UNKNOWN = 0
    DYNAMIC_TOPIC_CONFIG = 1
    DYNAMIC_BROKER_CONFIG = 2
    DYNAMIC_DEFAULT_BROKER_CONFIG = 3
    STATIC_BROKER_CONFIG = 4
    DEFAULT_CONFIG = 5
    DYNAMIC_BROKER_LOGGER_CONFIG = 6
    CLIENT_METRICS_CONFIG = 7
    GROUP_CONFIG = 8

    @classmethod
    def of(cls, code: int) -> ConfigSource:
        """The source of a wire code; a code this release of kadmin does not know is UNKNOWN.  A dict lookup, not
        ``cls(code)``: a describe of 1,000 topics reads 36,000 of them, and the Enum call costs ~1 us each."""
        return _SOURCE_OF.get(code, ConfigSource.UNKNOWN)

    @property
    def is_dynamic(self) -> bool:
        """Set through the Admin API (what AlterConfigs replaces), as opposed to files and defaults."""
        return self in _DYNAMIC


_SOURCE_OF: Final = {int(s): s for s in ConfigSource}
_DYNAMIC = frozenset({ConfigSource.DYNAMIC_TOPIC_CONFIG, ConfigSource.DYNAMIC_BROKER_CONFIG,
                      ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG, ConfigSource.DYNAMIC_BROKER_LOGGER_CONFIG,
                      ConfigSource.CLIENT_METRICS_CONFIG, ConfigSource.GROUP_CONFIG})


class ConfigType(enum.IntEnum):
    UNKNOWN = 0
    BOOLEAN = 1
    STRING = 2
    INT = 3
    SHORT = 4
    LONG = 5
    DOUBLE = 6
    LIST = 7
    CLASS = 8
    PASSWORD = 9

    @classmethod
    def of(cls, code: int) -> ConfigType:
        """The type of a wire code (UNKNOWN for one kadmin does not know), by dict lookup as ConfigSource.of."""
        return _TYPE_OF.get(code, ConfigType.UNKNOWN)


_TYPE_OF: Final = {int(t): t for t in ConfigType}
_MASK: Final = "<sensitive>"
_SENSITIVE_NAME = re.compile(r"password|secret|jaas|credential|token|keystore\.key|certificate|\.key$")


def looks_sensitive(name: str) -> bool:
    """Whether a config name looks like one of Kafka's PASSWORD-type keys (ssl.keystore.password,
    sasl.jaas.config, ssl.keystore.key, delegation.token.secret.key...): its value is never shown."""
    return bool(_SENSITIVE_NAME.search(name.lower()))


def _shown(name: str, value: str | None, sensitive: bool) -> str:
    if value is None:
        return "None"
    return _MASK if sensitive or looks_sensitive(name) else repr(value)


@dataclass(frozen=True)
class ConfigSynonym:
    name: str
    value: str | None
    source: ConfigSource

    def __repr__(self) -> str:
        return f"ConfigSynonym({self.name!r}, {_shown(self.name, self.value, False)}, {self.source.name})"


@dataclass(frozen=True)
class ConfigEntry:
    """One config of a resource as the broker described it.  ``value`` is None for sensitive entries (brokers
    never send those) and for keys without a value.  ``type`` and ``documentation`` need DescribeConfigs v3
    (Kafka 2.6+) and ``include_documentation``; ``synonyms`` need ``include_synonyms`` (v1+), highest
    precedence first."""

    name: str
    value: str | None
    source: ConfigSource = ConfigSource.UNKNOWN
    is_sensitive: bool = False
    is_read_only: bool = False
    synonyms: tuple[ConfigSynonym, ...] = ()
    type: ConfigType = ConfigType.UNKNOWN
    documentation: str | None = field(default=None, repr=False)

    @property
    def is_default(self) -> bool:
        return self.source is ConfigSource.DEFAULT_CONFIG

    def __repr__(self) -> str:
        flags = "".join(f", {f}=True" for f in ("is_sensitive", "is_read_only") if getattr(self, f))
        syn = f", synonyms={list(self.synonyms)!r}" if self.synonyms else ""
        typ = f", type={self.type.name}" if self.type else ""
        return (f"ConfigEntry({self.name!r}, {_shown(self.name, self.value, self.is_sensitive)}, "
                f"source={self.source.name}{flags}{typ}{syn})")


# --- alterations ------------------------------------------------------------------------------------------


class OpType(enum.IntEnum):
    """IncrementalAlterConfigs' ConfigOperation codes."""

    SET = 0
    DELETE = 1
    APPEND = 2
    SUBTRACT = 3


@dataclass(frozen=True)
class SetConfig:
    """Set ``name`` to ``value`` (a string, as Kafka configs are)."""

    name: str
    value: str
    op: OpType = field(default=OpType.SET, init=False, repr=False)

    def __repr__(self) -> str:
        return f"SetConfig({self.name!r}, {_shown(self.name, self.value, False)})"


@dataclass(frozen=True)
class DeleteConfig:
    """Remove the resource's own value of ``name``, so the next level (broker, default) applies again."""

    name: str
    op: OpType = field(default=OpType.DELETE, init=False, repr=False)

    @property
    def value(self) -> None:
        return None


@dataclass(frozen=True)
class AppendConfig:
    """Add ``value`` (one item, or several comma-separated) to a LIST config such as cleanup.policy."""

    name: str
    value: str
    op: OpType = field(default=OpType.APPEND, init=False, repr=False)

    def __repr__(self) -> str:
        return f"AppendConfig({self.name!r}, {_shown(self.name, self.value, False)})"


@dataclass(frozen=True)
class SubtractConfig:
    """Remove ``value`` (one item, or several comma-separated) from a LIST config."""

    name: str
    value: str
    op: OpType = field(default=OpType.SUBTRACT, init=False, repr=False)

    def __repr__(self) -> str:
        return f"SubtractConfig({self.name!r}, {_shown(self.name, self.value, False)})"


ConfigOp = SetConfig | DeleteConfig | AppendConfig | SubtractConfig

#: The LIST-type configs of every release kadmin supports (topic configs, broker configs that are dynamic,
#: client-metrics and group configs), from Kafka's ConfigDef declarations.  APPEND/SUBTRACT on any other key
#: *in* :data:`KNOWN_CONFIGS` is refused before sending; unknown keys are left to the broker.
LIST_CONFIGS: Final = frozenset({
    "cleanup.policy", "leader.replication.throttled.replicas", "follower.replication.throttled.replicas",
    "log.cleanup.policy", "ssl.cipher.suites", "ssl.enabled.protocols", "sasl.enabled.mechanisms",
    "listeners", "advertised.listeners", "listener.security.protocol.map", "metric.reporters",
    "super.users", "log.dirs", "metrics", "match",
})
#: Non-list configs kadmin knows (topic configs of Kafka 2.2-4.0 and common dynamic broker configs).
KNOWN_CONFIGS: Final = LIST_CONFIGS | frozenset({
    "compression.type", "delete.retention.ms", "file.delete.delay.ms", "flush.messages", "flush.ms",
    "index.interval.bytes", "local.retention.bytes", "local.retention.ms", "max.compaction.lag.ms",
    "max.message.bytes", "message.downconversion.enable", "message.format.version",
    "message.timestamp.after.max.ms", "message.timestamp.before.max.ms", "message.timestamp.difference.max.ms",
    "message.timestamp.type", "min.cleanable.dirty.ratio", "min.compaction.lag.ms", "min.insync.replicas",
    "preallocate", "remote.storage.enable", "retention.bytes", "retention.ms", "segment.bytes",
    "compression.gzip.level", "compression.lz4.level", "compression.zstd.level", "remote.log.copy.disable",
    "remote.log.delete.on.disable",
    "segment.index.bytes", "segment.jitter.ms", "segment.ms", "unclean.leader.election.enable",
    "log.retention.ms", "log.retention.bytes", "log.segment.bytes", "message.max.bytes", "num.io.threads",
    "num.network.threads", "log.cleaner.threads", "background.threads", "num.partitions",
    "default.replication.factor", "interval.ms", "consumer.session.timeout.ms",
    "consumer.heartbeat.interval.ms",
})

_OPS = (SetConfig, DeleteConfig, AppendConfig, SubtractConfig)


def _check_op(resource: ConfigResource, op: object) -> ConfigOp:
    where = f"{resource}"
    if not isinstance(op, _OPS):
        raise TypeError(f"{where}: expected SetConfig, DeleteConfig, AppendConfig or SubtractConfig, not {op!r}")
    if not isinstance(op.name, str) or not op.name:
        raise TypeError(f"{where}: a config name must be a non-empty str; got {op.name!r}")
    if not isinstance(op, DeleteConfig) and not isinstance(op.value, str):
        v = op.value
        raise TypeError(f"{where}: the value of {op.name!r} must be a str (Kafka configs are strings), not "
                        f"{type(v).__name__}")
    if isinstance(op, (AppendConfig, SubtractConfig)):
        if resource.type is ConfigResourceType.BROKER_LOGGER:
            raise ValueError(f"{where}: {op.op.name} is not defined for logger levels; use SetConfig")
        if op.name in KNOWN_CONFIGS and op.name not in LIST_CONFIGS:
            raise ValueError(f"{where}: {op.op.name} works only on list configs, and {op.name!r} is not one; "
                             "use SetConfig")
    return op


def check_alterations(alterations: Mapping[Any, Sequence[ConfigOp]],
                      ) -> tuple[dict[ConfigResource, tuple[ConfigOp, ...]], dict[ConfigResource, Any]]:
    """:func:`validate_alterations`, and {checked resource: the caller's key} to answer by."""
    if not isinstance(alterations, Mapping):
        raise TypeError("alter_configs takes {ConfigResource: [SetConfig/DeleteConfig/AppendConfig/SubtractConfig]}")
    keys = normalise_keys(alterations, validate_resource, "alter_configs", "config resource")
    out: dict[ConfigResource, tuple[ConfigOp, ...]] = {}
    for r, key in keys.items():
        ops = alterations[key]
        if isinstance(ops, _OPS):
            ops = [ops]
        if isinstance(ops, (str, bytes)) or not isinstance(ops, Iterable):
            raise TypeError(f"{r}: expected a list of config operations, not {type(ops).__name__}")
        checked = tuple(_check_op(r, op) for op in ops)
        if not checked:
            # An empty IncrementalAlterConfigs entry changes nothing but is still a write the broker must
            # authorize and answer; an empty list is almost always a caller's bug (a filter that matched nothing).
            raise ValueError(f"{r}: no config operations given (pass at least one SetConfig/DeleteConfig/"
                             "AppendConfig/SubtractConfig, or leave the resource out)")
        names = [op.name for op in checked]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"{r}: config(s) {', '.join(map(repr, dup))} given more than once")
        out[r] = checked
    return out, keys


def validate_alterations(alterations: Mapping[ConfigResource, Sequence[ConfigOp]]
                         ) -> dict[ConfigResource, tuple[ConfigOp, ...]]:
    """Checked {resource: ops}: at least one operation per resource, each config name at most once per resource
    (Kafka refuses duplicates)."""
    return check_alterations(alterations)[0]


def parse_assignments(text: str) -> dict[str, str]:
    """``k=v,k2=[a,b]`` as kafka-configs.sh reads --add-config: commas inside [...] belong to the value."""
    out: dict[str, str] = {}
    for item in _split_top(text):
        if not item.strip():
            continue
        if "=" not in item:
            raise ValueError(f"{item!r} is not key=value")
        k, v = item.split("=", 1)
        k = k.strip()
        v = v.strip()
        if not k:
            raise ValueError(f"{item!r} has an empty config name")
        if v.startswith("[") and v.endswith("]"):
            v = v[1:-1]
        if k in out:
            raise ValueError(f"config {k!r} is given twice")
        out[k] = v
    return out


def _split_top(text: str) -> list[str]:
    parts: list[str] = []
    depth = 0
    cur: list[str] = []
    for ch in text:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth = max(0, depth - 1)
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return parts


__all__ = [
    "KNOWN_CONFIGS",
    "LIST_CONFIGS",
    "AppendConfig",
    "ConfigEntry",
    "ConfigOp",
    "ConfigResource",
    "ConfigResourceType",
    "ConfigSource",
    "ConfigSynonym",
    "ConfigType",
    "DeleteConfig",
    "OpType",
    "SetConfig",
    "SubtractConfig",
    "check_alterations",
    "check_resources",
    "looks_sensitive",
    "parse_assignments",
    "resource_type",
    "validate_alterations",
    "validate_resource",
    "validate_resources",
]
