"""Topics: Metadata / DescribeTopicPartitions to read them, CreateTopics / DeleteTopics / CreatePartitions (to
the controller) to change them.

* Reads go to any node.  ``describe_topics`` prefers DescribeTopicPartitions (API 75, KRaft brokers of Kafka
  3.8+), whose answers are cut into pages of at most ``ResponsePartitionLimit`` partitions: each page is one run
  of :class:`DescribeTopicPartitions` from the previous page's cursor.  Where no node speaks it, Metadata.
* Writes go to the controller (:class:`~kadmin.admin.lookups.Controller`): ZooKeeper-mode brokers answer
  NOT_CONTROLLER elsewhere, which re-reads the metadata and goes to the new controller.  They are writes for the
  driver: a request sent and never answered leaves its topics "possibly applied"; a resend answered with what an
  applied first send looks like (TOPIC_ALREADY_EXISTS for a create, UNKNOWN_TOPIC_OR_PARTITION/UNKNOWN_TOPIC_ID
  for a delete, INVALID_PARTITIONS for a partition increase) is reported in doubt, never as the truth.
* Every topic of a call travels in one request to the controller (the protocol minimum), except a topic the
  controller's version cannot carry (broker defaults before CreateTopics v4, an id before DeleteTopics v6): that
  topic fails alone with an UnsupportedVersionError, unsent, and the others are created or deleted.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, ClassVar, Generic, TypeVar

from kadmin.admin._driver import (
    Answers,
    Built,
    Context,
    Done,
    Failed,
    Operation,
    Outcome,
    Retry,
    run,
    split_by_version,
)
from kadmin.admin.lookups import AnyNode, Controller, NodeSpeaking
from kadmin.configs import ConfigEntry, ConfigSource
from kadmin.errors import ErrorCode, KafkaError, ProtocolError, UnsupportedVersionError, error_for_code
from kadmin.network.metadata import metadata_request
from kadmin.network.retry import Deadline
from kadmin.protocol import Message, message_type
from kadmin.protocol.apis import ApiKey
from kadmin.topics import (
    NO_CONFIGS,
    CreatedTopic,
    NewPartitions,
    NewTopic,
    PartitionInfo,
    TopicDescription,
    TopicListing,
    TopicRef,
    created_topic_named,
    names_only,
)
from kadmin.types import decode_authorized_operations

K = TypeVar("K")
ZERO_UUID = uuid.UUID(int=0)
#: The key of the one-key ListTopics operation.
ALL_TOPICS = "*all*"
#: Partitions per DescribeTopicPartitions answer we ask for (Kafka's broker caps it at 2000).
PAGE_PARTITIONS = 2000
#: CreateTopics v4 (Kafka 2.4, KIP-464) takes -1 for "the broker's default" partition count / replication factor.
DEFAULTS_SINCE = 4
#: DeleteTopics v6 (Kafka 2.8, KIP-516) deletes topics by id.
IDS_SINCE = 6


def _error(code: int, message: str | None, what: str) -> KafkaError:
    """The error for ``code``, its text saying which key it is about (the broker's message, else Kafka's)."""
    plain = error_for_code(code)
    assert plain is not None
    err = error_for_code(code, f"{what}: {message or plain.message}")
    assert err is not None
    return err


def _topic_id(value: Any) -> uuid.UUID | None:
    # The all-zero id means "none"; read as the UUID's int (a slot), not through UUID.__eq__.
    return value if isinstance(value, uuid.UUID) and value.int else None


def _retry_or_fail(err: KafkaError) -> Outcome:
    return Retry(err) if err.retriable else Failed(err)


# --- reads ------------------------------------------------------------------------------------------------


def _metadata_topic(t: Any, version: int, include_ops: bool) -> TopicDescription:
    parts = tuple(PartitionInfo(
        p.partition_index, p.leader_id if p.leader_id >= 0 else None,
        p.leader_epoch if version >= 7 and p.leader_epoch >= 0 else None,
        tuple(p.replica_nodes), tuple(p.isr_nodes), tuple(p.offline_replicas) if version >= 5 else ())
        for p in sorted(t.partitions, key=lambda p: p.partition_index))
    ops = decode_authorized_operations(t.topic_authorized_operations) if include_ops and version >= 8 else None
    return TopicDescription(t.name, _topic_id(t.topic_id) if version >= 10 else None,
                            bool(t.is_internal) if version >= 1 else t.name.startswith("__"), parts, ops)


class ListTopics(Operation[str]):
    """Every topic (one Metadata request for all topics, to any node); the one key is :data:`ALL_TOPICS`."""

    api = ApiKey.METADATA

    def __init__(self, internal: bool) -> None:
        self.internal = internal
        self.lookup = AnyNode()

    def build(self, node: int, keys: list[str], version: int) -> Message:
        return metadata_request(None, version)

    def handle(self, node: int, keys: list[str], response: Any, version: int) -> dict[str, Outcome]:
        # A topic listed with an error (LEADER_NOT_AVAILABLE while it is being created) still exists.  A listing
        # needs each topic's name, id, internal flag and partition count only: no PartitionInfo is built
        # (most of list_topics' client CPU per call, issue #28).
        out: list[TopicListing] = []
        for t in response.topics:
            internal = bool(t.is_internal) if version >= 1 else t.name.startswith("__")
            if internal and not self.internal:
                continue
            out.append(TopicListing(t.name, _topic_id(t.topic_id) if version >= 10 else None, internal,
                                    len(t.partitions)))
        return {ALL_TOPICS: Done(sorted(out, key=lambda t: t.name))}


class DescribeTopicsMetadata(Operation[str]):
    """Topics by name through Metadata (brokers without DescribeTopicPartitions): one request to any node."""

    api = ApiKey.METADATA

    def __init__(self, include_authorized_operations: bool) -> None:
        self.include_ops = include_authorized_operations
        self.lookup = AnyNode()

    def build(self, node: int, keys: list[str], version: int) -> Message:
        if self.include_ops and version < 8:
            # include_authorized_operations is the whole request's (one flag for every topic): all fail.
            raise UnsupportedVersionError(f"node {node} speaks Metadata up to v{version}; authorized operations "
                                          "need v8+ (Kafka 2.3)")
        return metadata_request(keys, version, include_topic_operations=self.include_ops)

    def handle(self, node: int, keys: list[str], response: Any, version: int) -> dict[str, Outcome]:
        out: dict[str, Outcome] = {}
        for t in response.topics:
            code = t.error_code
            if code == ErrorCode.NONE:
                out[t.name] = Done(_metadata_topic(t, version, self.include_ops))
                continue
            err = _error(code, None, f"topic {t.name!r}")
            if code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
                # The cluster has no such topic: the answer (auto-creation is off in the request).
                out[t.name] = Failed(err)
            elif code == ErrorCode.LEADER_NOT_AVAILABLE:
                # The topic is being created and has no leaders yet: ask again shortly.
                out[t.name] = Retry(err)
            else:
                # INVALID_TOPIC_EXCEPTION, TOPIC_AUTHORIZATION_FAILED: final; anything retriable: again.
                out[t.name] = _retry_or_fail(err)
        return out


class DescribeTopicPartitions(Operation[str]):
    """One page of DescribeTopicPartitions (KIP-966) from ``cursor``; the page's NextCursor is kept on the
    instance.  Topics the page did not reach come back as Done(None); a topic cut by the page is partial and
    its description continues on the next page."""

    api = ApiKey.DESCRIBE_TOPIC_PARTITIONS

    def __init__(self, lookup: NodeSpeaking[str], cursor: tuple[str, int] | None, include_ops: bool,
                 limit: int = PAGE_PARTITIONS) -> None:
        self.lookup = lookup
        self.cursor = cursor
        self.include_ops = include_ops
        self.limit = limit
        self.next_cursor: tuple[str, int] | None = None

    def build(self, node: int, keys: list[str], version: int) -> Message:
        req: Any = message_type(ApiKey.DESCRIBE_TOPIC_PARTITIONS, "request")
        cursor = None if self.cursor is None else req.Cursor(topic_name=self.cursor[0],
                                                             partition_index=self.cursor[1])
        return req(topics=[req.TopicRequest(name=n) for n in keys],  # type: ignore[no-any-return]
                   response_partition_limit=self.limit, cursor=cursor)

    def handle(self, node: int, keys: list[str], response: Any, version: int) -> dict[str, Outcome]:
        out: dict[str, Outcome] = dict.fromkeys(keys, Done(None))
        nc = response.next_cursor
        self.next_cursor = None if nc is None else (nc.topic_name, nc.partition_index)
        for t in response.topics:
            code = t.error_code
            if code != ErrorCode.NONE:
                err = _error(code, None, f"topic {t.name!r}")
                # UNKNOWN_TOPIC_OR_PARTITION: no such topic, the answer; others as for Metadata.
                out[t.name] = Failed(err) if code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION else _retry_or_fail(err)
                continue
            parts = tuple(PartitionInfo(
                p.partition_index, p.leader_id if p.leader_id >= 0 else None,
                p.leader_epoch if p.leader_epoch >= 0 else None, tuple(p.replica_nodes), tuple(p.isr_nodes),
                tuple(p.offline_replicas),
                None if p.eligible_leader_replicas is None else tuple(p.eligible_leader_replicas),
                None if p.last_known_elr is None else tuple(p.last_known_elr))
                for p in sorted(t.partitions, key=lambda p: p.partition_index))
            ops = decode_authorized_operations(t.topic_authorized_operations) if self.include_ops else None
            out[t.name] = Done(TopicDescription(t.name, _topic_id(t.topic_id), bool(t.is_internal), parts, ops))
        return out


# --- writes (to the controller) -----------------------------------------------------------------------------


class ControllerSpeaking(Generic[K]):
    """The controller, once some node is known to speak ``api`` at all.

    Why the check: a cluster none of whose brokers has the API (librdkafka's mock has no CreateTopics; Tansu
    has no CreatePartitions) would otherwise be asked again and again until the deadline, and a cluster whose
    metadata names no live controller (the mock reports controller 0) would look like a controller election.
    The check costs no request: it reads the ApiVersions tables the client already has."""

    #: Shares nothing with other calls: the driver awaits it in place (see kadmin.admin._driver.Lookup).
    inline = True

    def __init__(self, api: ApiKey) -> None:
        self.api = api
        self.controller: Controller[K] = Controller()
        self._checked = False

    async def locate(self, ctx: Context, keys: Sequence[K], deadline: Deadline) -> dict[K, int | Outcome] | int:
        if not self._checked:
            tables = []
            for node in sorted(ctx.net.nodes):
                try:
                    tables.append(await ctx.net.api_versions(node, deadline=deadline))
                except KafkaError:
                    continue
            if tables and not any(self.api in t for t in tables):
                return dict.fromkeys(keys, Failed(UnsupportedVersionError(
                    f"no broker of this cluster supports {self.api.kafka_name} (API key {int(self.api)})")))
            self._checked = bool(tables)
        return await self.controller.locate(ctx, keys, deadline)

    def forget(self, ctx: Context, keys: Iterable[K]) -> None:
        self.controller.forget(ctx, keys)

    def forget_node(self, ctx: Context, node_id: int) -> None:
        self.controller.forget_node(ctx, node_id)



def _controller_outcome(code: int, err: KafkaError) -> Outcome | None:
    """The cases every controller-bound write shares; None for the operation's own cases."""
    if code == ErrorCode.NOT_CONTROLLER:
        # The controller moved (ZooKeeper-mode brokers): read the metadata again and ask the new one.
        return Retry(err, relookup=True)
    if code == ErrorCode.REQUEST_TIMED_OUT:
        # The controller started the change but did not finish within TimeoutMs: ask again; the driver keeps the
        # key in doubt, and the resend says whether the change landed.
        return Retry(err)
    if code == ErrorCode.THROTTLING_QUOTA_EXCEEDED:
        # KIP-599 controller mutation quota: the change was not made; ask again after the backoff.
        return Retry(err)
    return None


class CreateTopics(Operation[str]):
    """Create topics, all in one request to the controller; a topic leaving its partition count or replication
    factor to the broker before v4 (Kafka 2.4) fails alone, unsent, and the others travel."""

    api = ApiKey.CREATE_TOPICS
    write: ClassVar[bool] = True
    applied_looks_like = frozenset({ErrorCode.TOPIC_ALREADY_EXISTS})

    def __init__(self, topics: Mapping[str, NewTopic], timeout_ms: int, validate_only: bool = False, *,
                 include_configs: bool = True, include_topic_ids: bool = True) -> None:
        self.topics = topics
        self.timeout_ms = timeout_ms
        self.validate_only = validate_only
        #: Whether the caller wants what v5+ (the created topics' configs, partition count and replication
        #: factor) or v7+ (their ids) answers; when neither, the request is v4 at most.
        self.include_configs = include_configs
        self.include_topic_ids = include_topic_ids
        self.lookup = ControllerSpeaking(self.api)

    def version_ceiling(self, keys: list[str]) -> int | None:
        # From v5 the controller describes every config of every created topic (about 36 each) and sends them
        # all: measured on Kafka 3.9, 1,000 topics took 0.168 s at v7 and 0.078 s at v4 (issue #28).
        if self.include_configs or self.include_topic_ids:
            return None
        return DEFAULTS_SINCE

    def build(self, node: int, keys: list[str], version: int) -> Message | Built[str]:
        if self.validate_only and version < 1:
            # validate_only is the whole request's: no topic can travel without it.
            raise UnsupportedVersionError(f"node {node} speaks CreateTopics v0 only; validate_only needs v1+")
        # A topic asking for the broker's default partition count or replication factor (-1, v4+) fails alone
        # on an older controller; the call's other topics are created.  From v4 every topic travels.
        ok, refused = (keys, None) if version >= DEFAULTS_SINCE else split_by_version(
            keys, version, self._need, api=self.api, node=node)
        req: Any = message_type(ApiKey.CREATE_TOPICS, "request")
        # Positional struct constructors (the codec's _from_values, every field in schema order): the topics were
        # checked by NewTopic.checked, and 1,000 keyword constructors were a third of this method (issue #28).
        topic, assignment, config = (req.CreatableTopic._from_values, req.CreatableReplicaAssignment._from_values,
                                     req.CreatableTopicConfig._from_values)
        by_name = self.topics
        topics = []
        for k in ok:
            t = by_name[k]
            partitions, rf, configs = t.partitions, t.replication_factor, t.configs
            if t.replica_assignment is None and configs is NO_CONFIGS:  # (most topics: counts only)
                topics.append(topic(k, -1 if partitions is None else partitions, -1 if rf is None else rf, [], []))
                continue
            a = t.assignment
            if a is not None:
                partitions = rf = None
            topics.append(topic(k, -1 if partitions is None else partitions, -1 if rf is None else rf,
                                [assignment(i, list(r)) for i, r in enumerate(a)] if a is not None else [],
                                [config(n, v) for n, v in configs.items()] if configs else []))
        kw: dict[str, Any] = {"topics": topics, "timeout_ms": self.timeout_ms}
        if version >= 1:
            kw["validate_only"] = self.validate_only
        msg = req(**kw)
        if not refused:
            return msg  # type: ignore[no-any-return]
        return Built(sends=[(msg, ok)] if ok else [], refused=refused)

    def _need(self, name: str) -> tuple[int, str] | None:
        """(v4, why) for a topic that leaves its partition count or replication factor to the broker."""
        t = self.topics[name]
        if t.assignment is None and (t.partitions is None or t.replication_factor is None):
            return DEFAULTS_SINCE, ("the broker's default partition count or replication factor (Kafka 2.4+; "
                                    "give both for an older controller)")
        return None

    def handle(self, node: int, keys: list[str], response: Any, version: int) -> Answers[str]:
        # The created topics as their values (no Done per topic: see Answers), the others as outcomes; an entry
        # given twice counts as its last, as it would in one dict of outcomes.
        done: dict[str, CreatedTopic] = {}
        others: dict[str, Outcome] = {}
        named = version < 5  # (the answer carries each created topic's name, and nothing else about it)
        for t in response.topics:
            name, code = t.name, t.error_code
            if not code:  # ErrorCode.NONE
                done[name] = created_topic_named(name) if named else self._created(t, version)
                if others:
                    others.pop(name, None)
                continue
            done.pop(name, None)
            err = _error(code, t.error_message if version >= 1 else None, f"topic {name!r}")
            shared = _controller_outcome(code, err)
            # TOPIC_ALREADY_EXISTS, INVALID_TOPIC_EXCEPTION, INVALID_PARTITIONS, INVALID_REPLICATION_FACTOR,
            # INVALID_REPLICA_ASSIGNMENT, INVALID_CONFIG, POLICY_VIOLATION, INVALID_REQUEST, *_AUTHORIZATION_FAILED:
            # the controller's verdict on this topic; asking again gets the same one.
            others[name] = shared if shared is not None else Failed(err)
        return Answers(done, others)

    @staticmethod
    def _created(t: Any, version: int) -> CreatedTopic:
        if version < 5:
            return CreatedTopic(t.name)
        code = t.topic_config_error_code
        config_error = error_for_code(code) if code else None
        return CreatedTopic(t.name, _topic_id(t.topic_id) if version >= 7 else None,
                            t.num_partitions if t.num_partitions >= 0 else None,
                            t.replication_factor if t.replication_factor >= 0 else None,
                            _CreatedConfigs(t) if config_error is None else None, config_error)


class _CreatedConfigs(Mapping[str, ConfigEntry]):
    """A created topic's configs, turned into ConfigEntry objects on first use.

    Why lazy: CreateTopics v5+ answers every config of every topic (about 30 each), and most callers never look
    at them; building 30,000 entries for 1,000 topics took 0.14 s of a 0.5 s create_topics call (bench.topics,
    where this made kadmin's create of 1,000 topics about 25% faster).  It keeps the answer's topic entry and
    reads its ``configs`` only then too: the client's decoder leaves a topic's config array undecoded until
    that read when its bytes repeat another topic's (all topics created with the broker's defaults), which
    took kadmin's decoding of the 1,000-topic answer from ~25 ms to ~2 ms."""

    __slots__ = ("_raw", "_built")

    def __init__(self, topic: Any) -> None:
        self._raw: Any = topic
        self._built: dict[str, ConfigEntry] | None = None

    def _entries(self) -> dict[str, ConfigEntry]:
        if self._built is None:
            self._built = {c.name: ConfigEntry(c.name, c.value, ConfigSource.of(c.config_source),
                                               bool(c.is_sensitive), bool(c.read_only))
                           for c in sorted(self._raw.configs or [], key=lambda c: c.name)}
            self._raw = None
        return self._built

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled (a result sent to a Spark executor, say) as the plain dict of entries it stands for: the
        # answer's undecoded bytes stay behind.
        return dict, (self._entries(),)

    def __getitem__(self, name: str) -> ConfigEntry:
        return self._entries()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries())

    def __len__(self) -> int:
        return len(self._entries())

    def __repr__(self) -> str:
        return repr(self._entries())


class ValidateCreateTopics(CreateTopics):
    """CreateTopics with validate_only: nothing is changed, so a lost answer leaves nothing in doubt."""

    write: ClassVar[bool] = False


def _id_need(key: TopicRef) -> tuple[int, str] | None:
    return (IDS_SINCE, "deleting a topic by id (Kafka 2.8+)") if isinstance(key, uuid.UUID) else None


#: A deleted topic's outcome (one object serves every key: a Done cannot change).
_DELETED: Done[None] = Done(None)


class DeleteTopics(Operation[TopicRef]):
    """Delete topics by name or id, all in one request to the controller; an id before v6 (Kafka 2.8) fails
    alone, unsent, and the names travel."""

    api = ApiKey.DELETE_TOPICS
    write: ClassVar[bool] = True
    applied_looks_like = frozenset({ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.UNKNOWN_TOPIC_ID})

    def __init__(self, timeout_ms: int) -> None:
        self.timeout_ms = timeout_ms
        self.lookup = ControllerSpeaking(self.api)

    def version_ceiling(self, keys: list[TopicRef]) -> int | None:
        # Topics named by name only: v5 (the last without ids) says all the caller gets, a per-topic error
        # message included; v6+ has the controller resolve and send each deleted topic's id as well.
        return IDS_SINCE - 1 if names_only(keys) else None

    def build(self, node: int, keys: list[TopicRef], version: int) -> Message | Built[TopicRef]:
        req: Any = message_type(ApiKey.DELETE_TOPICS, "request")
        if version >= IDS_SINCE:
            state = req.DeleteTopicState._from_values  # (name, topic_id)
            topics = [state(None, k) if isinstance(k, uuid.UUID) else state(k, ZERO_UUID) for k in keys]
            return req(topics=topics, timeout_ms=self.timeout_ms)  # type: ignore[no-any-return]
        # A topic named by id fails alone on an older controller; the topics named by name are deleted.
        names: list[TopicRef]
        names, refused = (keys, None) if names_only(keys) else split_by_version(
            keys, version, _id_need, api=self.api, node=node)
        msg = req(topic_names=names, timeout_ms=self.timeout_ms)
        if not refused:
            return msg  # type: ignore[no-any-return]
        return Built(sends=[(msg, names)] if names else [], refused=refused)

    def handle(self, node: int, keys: list[TopicRef], response: Any,
               version: int) -> Mapping[TopicRef, Outcome]:
        if names_only(keys):
            # Every topic named by name: each answer is its name's (the id a v6+ answer carries is no key here).
            # The deleted ones as their value, None (see Answers); an entry given twice counts as its last.
            done: dict[TopicRef, None] = {}
            others: dict[TopicRef, Outcome] = {}
            for r in response.responses:
                name = r.name
                if not r.error_code:  # ErrorCode.NONE
                    done[name] = None
                    if others:
                        others.pop(name, None)
                else:
                    done.pop(name, None)
                    others[name] = self._outcome(r, name, version)
            return Answers(done, others)
        # From v6 the answer to a delete by name carries the topic's id too (KRaft), so an answer is filed under
        # its name when that name was asked for by name, under its id only when its name was not (or it has
        # none).  A name given together with its own id: KRaft refuses the name (INVALID_REQUEST "The provided
        # topic name maps to an ID that was already supplied"), deletes nothing and answers the id entry only
        # through that one answer, so the id gets it too; ZooKeeper-mode brokers delete the topic and answer
        # both entries, the second answer for the name going to the id it carries.
        names = {k for k in keys if isinstance(k, str)}
        ids = {k for k in keys if isinstance(k, uuid.UUID)}
        out: dict[TopicRef, Outcome] = {}
        carried: dict[uuid.UUID, Any] = {}
        for r in response.responses:
            tid = _topic_id(r.topic_id) if version >= 6 else None
            key: TopicRef
            if r.name in names and not (r.name in out and tid in ids and tid not in out):
                key = r.name
                if tid in ids:
                    carried.setdefault(tid, r)
            elif tid in ids:
                key = tid
            else:
                continue  # an answer for a key we did not ask about: the key stays unanswered (ProtocolError)
            out[key] = self._outcome(r, key, version)
        for tid, r in carried.items():
            if tid not in out:
                out[tid] = self._outcome(r, tid, version)
        return out

    @staticmethod
    def _outcome(r: Any, key: TopicRef, version: int) -> Outcome:
        code = r.error_code
        if code == ErrorCode.NONE:
            return _DELETED
        err = _error(code, r.error_message if version >= 5 else None, f"topic {key!r}")
        shared = _controller_outcome(code, err)
        # UNKNOWN_TOPIC_OR_PARTITION / UNKNOWN_TOPIC_ID: no such topic (the answer; in doubt after a lost send, see
        # applied_looks_like); TOPIC_DELETION_DISABLED, INVALID_REQUEST, TOPIC_AUTHORIZATION_FAILED: the
        # controller's verdict.
        return shared if shared is not None else Failed(err)


class CreatePartitions(Operation[str]):
    """Grow topics to new partition counts, all in one request to the controller."""

    api = ApiKey.CREATE_PARTITIONS
    write: ClassVar[bool] = True
    applied_looks_like = frozenset({ErrorCode.INVALID_PARTITIONS})

    def __init__(self, changes: Mapping[str, NewPartitions], timeout_ms: int, validate_only: bool = False) -> None:
        self.changes = changes
        self.timeout_ms = timeout_ms
        self.validate_only = validate_only
        self.lookup = ControllerSpeaking(self.api)

    def build(self, node: int, keys: list[str], version: int) -> Message:
        req: Any = message_type(ApiKey.CREATE_PARTITIONS, "request")
        topics = []
        for k in keys:
            c = self.changes[k]
            assignments = None if c.assignments is None else [
                req.CreatePartitionsAssignment(broker_ids=list(r)) for r in c.assignments]
            topics.append(req.CreatePartitionsTopic(name=k, count=c.total_count, assignments=assignments))
        return req(topics=topics, timeout_ms=self.timeout_ms,  # type: ignore[no-any-return]
                   validate_only=self.validate_only)

    def handle(self, node: int, keys: list[str], response: Any, version: int) -> dict[str, Outcome]:
        out: dict[str, Outcome] = {}
        for r in response.results:
            if r.error_code == ErrorCode.NONE:
                out[r.name] = Done(None)
                continue
            err = _error(r.error_code, r.error_message, f"topic {r.name!r}")
            shared = _controller_outcome(r.error_code, err)
            # INVALID_PARTITIONS (not more than now; in doubt after a lost send), INVALID_REPLICA_ASSIGNMENT,
            # UNKNOWN_TOPIC_OR_PARTITION, POLICY_VIOLATION, INVALID_REQUEST, TOPIC_AUTHORIZATION_FAILED: final.
            out[r.name] = shared if shared is not None else Failed(err)
        return out


class ValidateCreatePartitions(CreatePartitions):
    write: ClassVar[bool] = False


def timeout_ms(remaining_s: float, request_timeout_s: float) -> int:
    """TimeoutMs for a controller write: the broker's wait, bounded by what one request may take."""
    return max(1, int(min(remaining_s, request_timeout_s) * 1000))


def merge_pages(pages: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Topic descriptions from DescribeTopicPartitions pages: the partitions of a topic cut by a page joined; an
    error on any page is the topic's result (a partial description is never passed off as whole)."""
    out: dict[str, Any] = {}
    for page in pages:
        for name, got in page.items():
            prev = out.get(name)
            if got is None or isinstance(prev, KafkaError):
                continue
            if isinstance(prev, TopicDescription) and isinstance(got, TopicDescription):
                seen = {p.partition for p in prev.partitions}
                parts = prev.partitions + tuple(p for p in got.partitions if p.partition not in seen)
                out[name] = TopicDescription(prev.name, prev.topic_id, prev.is_internal,
                                             tuple(sorted(parts, key=lambda p: p.partition)),
                                             prev.authorized_operations)
            else:
                out[name] = got
    return out


async def describe_topics(ctx: Context, names: list[str], include_ops: bool, deadline: Deadline,
                          page_partitions: int = PAGE_PARTITIONS) -> dict[str, TopicDescription | KafkaError]:
    """DescribeTopicPartitions page by page where a node speaks it (names in the order the broker answers them),
    else one Metadata request; {name: description or error} in the given order."""
    lookup: NodeSpeaking[str] = NodeSpeaking(ApiKey.DESCRIBE_TOPIC_PARTITIONS)
    pages: list[dict[str, Any]] = []
    cursor: tuple[str, int] | None = None
    todo = sorted(names)
    while todo:
        op = DescribeTopicPartitions(lookup, cursor, include_ops, page_partitions)
        got = await run(ctx, op, todo, deadline)
        if lookup.unsupported is not None:
            # No node speaks DescribeTopicPartitions (ZooKeeper-mode brokers, Kafka before 3.8): Metadata.
            return await run(ctx, DescribeTopicsMetadata(include_ops), names, deadline)
        pages.append(got)
        if op.next_cursor is None or op.next_cursor == cursor:
            if op.next_cursor is not None:
                stuck = ProtocolError(f"DescribeTopicPartitions: the cursor did not move from {cursor}")
                pages.append(dict.fromkeys((n for n in todo if n >= op.next_cursor[0]), stuck))
            break
        cursor = op.next_cursor
        todo = [n for n in todo if n >= cursor[0]]
    merged = merge_pages(pages)
    missing = ProtocolError("DescribeTopicPartitions: the answers never reached this topic")
    return {n: merged.get(n, missing) for n in names}


__all__ = ["ALL_TOPICS", "CreatePartitions", "CreateTopics", "DeleteTopics", "DescribeTopicPartitions",
           "DescribeTopicsMetadata", "ListTopics", "describe_topics", "ValidateCreatePartitions",
           "ValidateCreateTopics", "merge_pages", "timeout_ms"]
