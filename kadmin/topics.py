"""Topics: what a caller asks for (NewTopic, NewPartitions), what comes back (listings, descriptions, created
topics), and the checks made before anything is sent.

Pure: no sockets.  The operations that send these live in :mod:`kadmin.admin.topics` and on the AdminClient
classes (``list_topics``, ``describe_topics``, ``create_topics``, ``delete_topics``, ``create_partitions``).

Why validate here rather than let the broker answer: the broker's answer comes per topic, after a round trip
to the controller, and some mistakes are not refused by every release the same way (a replication factor
*and* an assignment is INVALID_REQUEST on one release and silently ignored by an old client on another).
The rules are Kafka's own (``org.apache.kafka.common.internals.Topic.validate``, ``CreateTopicsRequest`` and
``ReplicationControlManager``):

* a topic name is 1-249 characters of ``[a-zA-Z0-9._-]`` and neither ``.`` nor ``..``;
* a partition count is >= 1 (or None: the broker's ``num.partitions``, CreateTopics v4+ / Kafka 2.4+);
* a replication factor is >= 1 and fits an int16 (or None: ``default.replication.factor``);
* a replica assignment replaces both: partitions 0..n-1, each a non-empty list of distinct broker ids, all of
  the same length; with an assignment, a replication factor must not be given, and a partition count only if
  it equals the assignment's length;
* configs are ``{name: value}`` of strings; a None value is refused (leave the config out to get the broker's
  default: Kafka refuses a null value with INVALID_CONFIG "Null value not supported for topic configs");
* a name appears once per call.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any

# At run time, not only for type checkers: CreatedTopic's annotations resolve (typing.get_type_hints), as
# every public result's do (tests/client/test_public_surface.py).  configs is pure and does not import this module.
from kadmin.configs import ConfigEntry

#: Kafka's Topic.MAX_NAME_LENGTH.
MAX_TOPIC_NAME_LENGTH = 249
_LEGAL = re.compile(r"[a-zA-Z0-9._-]+")
#: Every rule of :func:`validate_topic_name` for a str, in one match: legal characters, 1-249 of them, neither
#: "." nor "..".  A name it refuses goes through the rules one by one, for the message saying which failed.
_VALID_NAME = re.compile(rf"(?!\.\.?\Z)[a-zA-Z0-9._-]{{1,{MAX_TOPIC_NAME_LENGTH}}}").fullmatch
_INT16_MAX = 2**15 - 1
_INT32_MAX = 2**31 - 1


def validate_topic_name(name: object, what: str = "topic name") -> str:
    """The name, or TypeError/ValueError saying why Kafka would refuse it (with Kafka's reasons)."""
    if type(name) is str and _VALID_NAME(name):
        return name
    if not isinstance(name, str):
        raise TypeError(f"a {what} must be a str, not {type(name).__name__} ({name!r})")
    if not name:
        raise ValueError(f"illegal {what} '': it can't be empty")
    if name in (".", ".."):
        raise ValueError(f"illegal {what} {name!r}: it can't be '.' or '..'")
    if len(name) > MAX_TOPIC_NAME_LENGTH:
        raise ValueError(f"illegal {what} {name[:20]!r}...: it can't be longer than {MAX_TOPIC_NAME_LENGTH} "
                         f"characters (it has {len(name)})")
    if not _LEGAL.fullmatch(name):
        bad = sorted({c for c in name if not _LEGAL.fullmatch(c)})
        raise ValueError(f"illegal {what} {name!r}: it contains {''.join(bad)!r}; legal characters are "
                         "ASCII letters, digits, '.', '_' and '-'")
    return name


def _int(value: object, what: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an int, not {type(value).__name__} ({value!r})")
    if not lo <= value <= hi:
        raise ValueError(f"{what} must be between {lo} and {hi}; got {value}")
    return value


class _NoConfigs(Mapping[str, str]):
    """The configs of a topic given none: an empty mapping that cannot change, so one object serves every such
    topic, and a NewTopic made without configs needs no normalised copy (see :meth:`NewTopic.checked`).

    It compares equal to ``{}``, shows as ``{}`` and pickles as itself; unlike a dict it is hashable (it never
    changes), which is what lets it be a dataclass field's default."""

    __slots__ = ()

    def __getitem__(self, name: str) -> str:
        raise KeyError(name)

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0

    def __eq__(self, other: object) -> bool:
        return not other if isinstance(other, Mapping) else NotImplemented

    def __hash__(self) -> int:
        return hash(frozenset())

    def __repr__(self) -> str:
        return "{}"

    def __reduce__(self) -> str:
        return "NO_CONFIGS"


#: The configs of a topic given none (read-only, so one object serves every such topic).
NO_CONFIGS: Mapping[str, str] = _NoConfigs()


def _configs(configs: object, where: str) -> Mapping[str, str]:
    if configs is None or configs is NO_CONFIGS or (type(configs) is dict and not configs):
        return NO_CONFIGS
    if not isinstance(configs, Mapping):
        raise TypeError(f"{where}: configs must be a mapping of config name to value, not "
                        f"{type(configs).__name__}")
    out: dict[str, str] = {}
    for k, v in configs.items():
        if not isinstance(k, str) or not k:
            raise TypeError(f"{where}: a config name must be a non-empty str; got {k!r}")
        if v is None:
            # Kafka answers INVALID_CONFIG "Null value not supported for topic configs" (INVALID_REQUEST on
            # 2.6-3.2, an internal error before), after the round trip; a default is had by leaving the key out.
            raise TypeError(f"{where}: config {k!r} has the value None; Kafka refuses null topic config values: "
                            "leave the config out to get the broker's default")
        if not isinstance(v, str):
            raise TypeError(f"{where}: the value of config {k!r} must be a str (Kafka configs are strings; "
                            f"write {str(v).lower() if isinstance(v, bool) else v!s:.40}), not {type(v).__name__}")
        out[k] = v
    return MappingProxyType(out)


def _assignment(value: object, where: str) -> tuple[tuple[int, ...], ...]:
    """An assignment as a tuple indexed by partition: from {partition: [brokers]} or [[brokers], ...]."""
    if isinstance(value, Mapping):
        parts = sorted(value)
        if parts != list(range(len(parts))):
            raise ValueError(f"{where}: the assignment must number partitions 0..{len(parts) - 1} without gaps; "
                             f"got {parts}")
        rows = [value[p] for p in parts]
    elif isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        rows = list(value)
    else:
        raise TypeError(f"{where}: a replica assignment is a list of broker-id lists (one per partition) or "
                        f"{{partition: [broker ids]}}, not {type(value).__name__}")
    if not rows:
        raise ValueError(f"{where}: the replica assignment is empty")
    out: list[tuple[int, ...]] = []
    for p, row in enumerate(rows):
        if isinstance(row, (str, bytes)) or not isinstance(row, Iterable):
            raise TypeError(f"{where}: partition {p}'s replicas must be a list of broker ids, not {row!r}")
        ids = tuple(_int(b, f"{where}: a broker id of partition {p}", 0, _INT32_MAX) for b in row)
        if not ids:
            raise ValueError(f"{where}: partition {p} has no replicas")
        if len(set(ids)) != len(ids):
            raise ValueError(f"{where}: partition {p} lists a broker twice: {list(ids)}")
        out.append(ids)
    if len({len(r) for r in out}) != 1:
        raise ValueError(f"{where}: every partition must have the same number of replicas; got "
                         f"{[len(r) for r in out]}")
    return tuple(out)


@dataclass(frozen=True)
class NewTopic:
    """A topic to create.

    ``partitions`` / ``replication_factor`` None take the broker's defaults (``num.partitions``,
    ``default.replication.factor``; Kafka 2.4+).  ``replica_assignment`` ({partition: [broker ids]} or a list
    per partition, first id the preferred leader) replaces both.  ``configs`` are topic configs as strings (a
    config left out takes the broker's default; None is refused, as Kafka refuses a null value).
    """

    name: str
    partitions: int | None = None
    replication_factor: int | None = None
    replica_assignment: Mapping[int, Sequence[int]] | Sequence[Sequence[int]] | None = None
    #: (Without configs: an empty mapping that cannot change, so that such a topic is already normalised.)
    configs: Mapping[str, str] = NO_CONFIGS

    def checked(self) -> NewTopic:
        """A normalised copy (assignment as a tuple per partition, configs read-only), or Type/ValueError.

        A NewTopic with nothing to normalise (no assignment, no configs, valid name and counts) is its own
        checked copy: every field of it is immutable (a str, ints or None, :data:`NO_CONFIGS`), so the request
        can be built from it whatever the caller does after the call (creates come 1,000 topics at a time, and
        a second frozen dataclass per topic was a sixth of kadmin's own CPU around create_topics, issue #28).
        A caller's own configs mapping, even an empty one, is always copied: the caller may change it."""
        name = self.name
        partitions = self.partitions
        rf = self.replication_factor
        if self.configs is NO_CONFIGS and self.replica_assignment is None and type(self) is NewTopic \
                and type(name) is str and _VALID_NAME(name) \
                and (partitions is None or (type(partitions) is int and 1 <= partitions <= _INT32_MAX)) \
                and (rf is None or (type(rf) is int and 1 <= rf <= _INT16_MAX)):
            return self
        name = validate_topic_name(name)
        # The messages' "topic 'name'" is formatted only where it is needed: creates come 1,000 topics at a time.
        assignment: tuple[tuple[int, ...], ...] | None = None
        if self.replica_assignment is not None:
            where = f"topic {name!r}"
            assignment = _assignment(self.replica_assignment, where)
            if rf is not None:
                raise ValueError(f"{where}: give a replication factor or a replica assignment, not both")
            if partitions is not None and partitions != len(assignment):
                raise ValueError(f"{where}: {partitions} partitions but the assignment has {len(assignment)}")
            partitions = None
        if partitions is not None and not (type(partitions) is int and 1 <= partitions <= _INT32_MAX):
            _int(partitions, f"topic {name!r}: the partition count", 1, _INT32_MAX)
        if rf is not None and not (type(rf) is int and 1 <= rf <= _INT16_MAX):
            _int(rf, f"topic {name!r}: the replication factor", 1, _INT16_MAX)
        configs = self.configs
        return NewTopic(name, partitions, rf, assignment, NO_CONFIGS if type(configs) is dict and not configs
                        else _configs(configs, f"topic {name!r}"))

    @property
    def assignment(self) -> tuple[tuple[int, ...], ...] | None:
        """The assignment as a tuple indexed by partition (after :meth:`checked`)."""
        a = self.replica_assignment
        return a if isinstance(a, tuple) else None


@dataclass(frozen=True)
class NewPartitions:
    """Grow a topic to ``total_count`` partitions; ``assignments`` (optional) lists the replicas of each *new*
    partition, first id the preferred leader."""

    total_count: int
    assignments: Sequence[Sequence[int]] | None = None

    def checked(self, topic: str) -> NewPartitions:
        where = f"topic {topic!r}"
        _int(self.total_count, f"{where}: the new total partition count", 1, _INT32_MAX)
        if self.assignments is None:
            return NewPartitions(self.total_count, None)
        if isinstance(self.assignments, Mapping):
            raise TypeError(f"{where}: assignments is a list of replica lists, one per new partition")
        return NewPartitions(self.total_count, _assignment(self.assignments, where))


def validate_new_topics(topics: Iterable[NewTopic]) -> list[NewTopic]:
    if isinstance(topics, (NewTopic, str, bytes)):
        raise TypeError("pass a list of NewTopic, not a single one")
    out: list[NewTopic] = []
    seen: set[str] = set()
    for t in topics:
        if not isinstance(t, NewTopic):
            raise TypeError(f"expected NewTopic, not {type(t).__name__} ({t!r})")
        c = t.checked()
        if c.name in seen:
            raise ValueError(f"topic {c.name!r} is given twice")
        seen.add(c.name)
        out.append(c)
    return out


def validate_topic_names(names: Iterable[str], what: str = "topic names") -> list[str]:
    """Names in order; a duplicate is dropped (asking twice about a topic is one question)."""
    if isinstance(names, (str, bytes)):
        raise TypeError(f"{what} must be a list of names, not a single string")
    return list(dict.fromkeys(validate_topic_name(n) for n in names))


TopicRef = str | uuid.UUID


def names_only(refs: Sequence[object]) -> bool:
    """Whether every topic reference is a plain str (a name; no id among them): one look at their types, in C."""
    return {*map(type, refs)} == {str}


def validate_topic_refs(topics: Iterable[TopicRef]) -> list[TopicRef]:
    """Topic names or ids (uuid.UUID) for DeleteTopics; duplicates are refused (a delete is a write)."""
    if isinstance(topics, (str, bytes, uuid.UUID)):
        raise TypeError("pass a list of topic names or ids, not a single one")
    given: list[Any] = list(topics)
    # The usual call, names only, every one legal and none twice, is checked in three passes that run in C (a
    # call per name was two thirds of this function, issue #28); anything else takes the loop, which says what
    # is wrong with the first name or id at fault.
    if names_only(given) and all(map(_VALID_NAME, given)) and len(set(given)) == len(given):
        return given
    out: list[TopicRef] = []
    seen: set[TopicRef] = set()  # (asking the list was quadratic: 4.8 of 7.8 ms of CPU deleting 1,000 topics)
    for t in given:
        if isinstance(t, uuid.UUID):
            if t.int == 0:
                raise ValueError("the zero uuid is not a topic id")
        else:
            validate_topic_name(t)
        if t in seen:
            raise ValueError(f"topic {t!r} is given twice")
        seen.add(t)
        out.append(t)
    return out


def validate_new_partitions(changes: Mapping[str, int | NewPartitions]) -> dict[str, NewPartitions]:
    if not isinstance(changes, Mapping):
        raise TypeError("create_partitions takes {topic: total count or NewPartitions}")
    out: dict[str, NewPartitions] = {}
    for topic, change in changes.items():
        validate_topic_name(topic)
        np = change if isinstance(change, NewPartitions) else NewPartitions(change)
        out[topic] = np.checked(topic)
    return out


# --- results ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TopicListing:
    name: str
    topic_id: uuid.UUID | None
    is_internal: bool
    partitions: int


@dataclass(frozen=True)
class PartitionInfo:
    """One partition: ``leader`` None when it has none (all replicas offline)."""

    partition: int
    leader: int | None
    leader_epoch: int | None
    replicas: tuple[int, ...]
    isr: tuple[int, ...]
    offline_replicas: tuple[int, ...] = ()
    eligible_leader_replicas: tuple[int, ...] | None = None
    last_known_elr: tuple[int, ...] | None = None


@dataclass(frozen=True)
class TopicDescription:
    name: str
    topic_id: uuid.UUID | None
    is_internal: bool
    partitions: tuple[PartitionInfo, ...]
    authorized_operations: frozenset[str] | None = None

    @property
    def replication_factor(self) -> int:
        return len(self.partitions[0].replicas) if self.partitions else 0


@dataclass(frozen=True)
class CreatedTopic:
    """What CreateTopics answered for a created (or, with validate_only, creatable) topic.

    ``topic_id`` needs v7 (Kafka 2.8+); partitions, replication factor and configs need v5 (Kafka 2.4+); each is
    None when the version did not carry it.  ``config_error`` is set when the topic was created but the broker
    could not describe its configs."""

    name: str
    topic_id: uuid.UUID | None = None
    partitions: int | None = None
    replication_factor: int | None = None
    configs: Mapping[str, ConfigEntry] | None = field(default=None, repr=False)
    config_error: Exception | None = None


#: A CreatedTopic's fields as made by ``CreatedTopic(name)``, for :func:`created_topic_named`.
_NAMED_ONLY = {f.name: f.default for f in fields(CreatedTopic)}
_new_object, _set_attribute = object.__new__, object.__setattr__


def created_topic_named(name: str) -> CreatedTopic:
    """``CreatedTopic(name)``: what CreateTopics before v5 answers for a created topic, made without the
    dataclass ``__init__`` (one attribute dictionary set at once instead of six frozen-attribute writes, half
    the cost; 1,000 at a time, issue #28).  Same fields, same values, equal to ``CreatedTopic(name)``."""
    made = _new_object(CreatedTopic)
    values = _NAMED_ONLY.copy()
    values["name"] = name
    _set_attribute(made, "__dict__", values)
    return made


__all__ = [
    "MAX_TOPIC_NAME_LENGTH",
    "CreatedTopic",
    "NewPartitions",
    "NewTopic",
    "PartitionInfo",
    "TopicDescription",
    "TopicListing",
    "TopicRef",
    "validate_new_partitions",
    "validate_new_topics",
    "validate_topic_name",
    "validate_topic_names",
    "validate_topic_refs",
]
