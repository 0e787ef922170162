"""Lookup strategies: which node must receive each key of an operation.

Each operation owns its strategy (as Kafka's AdminApiDriver handlers do): groups go to their coordinator
(:class:`kadmin.admin.coordinators.CoordinatorLookup`), partitions to their leader (:class:`PartitionLeader`),
topic creation to the controller (:class:`Controller`), cluster-wide reads to any node, or to a node that speaks
the API (:class:`NodeSpeaking`), per-broker reads to every node (:class:`AllNodes`, keyed by node id).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Generic, TypeVar

from kadmin.admin._driver import Context, Done, Failed, Operation, Outcome, Retry, run
from kadmin.errors import (
    KafkaError,
    KafkaTimeoutError,
    LeaderNotAvailableError,
    NoBrokersAvailableError,
    NotControllerError,
    UnknownTopicOrPartitionError,
    UnsupportedVersionError,
    error_for_code,
)
from kadmin.network.metadata import metadata_request
from kadmin.network.retry import Deadline
from kadmin.protocol import Message
from kadmin.protocol.apis import ApiKey
from kadmin.types import TopicPartition

K = TypeVar("K")


class AnyNode(Generic[K]):
    """Every key to one reachable node (cluster-wide lookups such as FindCoordinator); after a node failed,
    the next round prefers another."""

    #: Shares nothing with other calls: the driver awaits it in place (see kadmin.admin._driver.Lookup).
    inline = True

    def __init__(self) -> None:
        self._avoid: set[int] = set()

    async def locate(self, ctx: Context, keys: Sequence[K], deadline: Deadline) -> int:
        others = [n for n in ctx.net.nodes if n not in self._avoid]
        return others[0] if self._avoid and others else ctx.net.least_loaded_node()

    def accepts(self, ctx: Context, keys: Sequence[K], node: int) -> bool:
        """Whether ``node`` may answer ``keys`` now (the sync client's lane keeps to one node): any node."""
        return not self._avoid

    def ready(self, ctx: Context, keys: Sequence[K]) -> int | None:
        """The least loaded node, before any node failed this call (the driver's lean round)."""
        if self._avoid:
            return None
        try:
            return ctx.net.least_loaded_node()
        except NoBrokersAvailableError:
            return None

    def forget(self, ctx: Context, keys: Iterable[K]) -> None:
        pass

    def forget_node(self, ctx: Context, node_id: int) -> None:
        self._avoid.add(node_id)
        if len(self._avoid) >= max(1, len(ctx.net.nodes)):
            self._avoid.clear()


class AllNodes:
    """Keys are node ids, each sent to itself: per-broker calls (ListGroups, ApiVersions, log dirs)."""

    #: Shares nothing with other calls: the driver awaits it in place (see kadmin.admin._driver.Lookup).
    inline = True

    async def locate(self, ctx: Context, keys: Sequence[int], deadline: Deadline) -> dict[int, int | Outcome]:
        return {k: k for k in keys}

    def ready(self, ctx: Context, keys: Sequence[int]) -> int | None:
        """One node's key is that node (the driver's lean round); several go through ``locate``."""
        return keys[0] if len(keys) == 1 else None

    def forget(self, ctx: Context, keys: Iterable[int]) -> None:
        pass

    def forget_node(self, ctx: Context, node_id: int) -> None:
        pass


def candidate_nodes(ctx: Context, avoid: set[int]) -> list[int]:
    """Every known node, the least loaded first, the ones that failed this call (``avoid``) last."""
    try:
        first = [ctx.net.least_loaded_node()]
    except NoBrokersAvailableError:
        first = []
    order = first + sorted(n for n in ctx.net.nodes if n not in first)
    return [n for n in order if n not in avoid] + [n for n in order if n in avoid]


class NodeSpeaking(Generic[K]):
    """Every key to one node that speaks ``api``, kept while it answers.

    Chosen among the nodes that speak the API, not just the least loaded one, so that a rolling upgrade from a
    release without it does not fail calls a newer node could serve.  When no node speaks it, every key fails
    with one UnsupportedVersionError that says so (``unsupported`` holds it, for callers that raise it).

    ``prefer``: the version the request needs for what the caller asked (DescribeCluster v2 for fenced brokers,
    ListConfigResources v1 for types other than client-metrics).  A node speaking at least that is chosen
    before one that speaks the API below it, so that in a cluster being upgraded a newer node answers; when
    none does, the first node speaking the API at all is chosen, and the operation's ``build`` refuses the
    request there with its own reason, unsent."""

    #: Shares nothing with other calls: the driver awaits it in place (see kadmin.admin._driver.Lookup).
    inline = True

    def __init__(self, api: ApiKey, *, too_old: str = "", prefer: int = 0) -> None:
        self.api = api
        self.too_old = too_old
        self.prefer = prefer
        self._node: int | None = None
        self._avoid: set[int] = set()
        self.unsupported: KafkaError | None = None

    def _candidates(self, ctx: Context) -> list[int]:
        return candidate_nodes(ctx, self._avoid)

    def _speaks_preferred(self, ctx: Context, node: int) -> bool:
        """Whether ``node``'s ready connection speaks ``api`` at ``prefer`` or above (nothing asked)."""
        got = ctx.net.ready(node)
        usable = None if got is None else got[1].usable(self.api, ctx.config)
        return usable is not None and usable[1] >= self.prefer

    def accepts(self, ctx: Context, keys: Sequence[K], node: int) -> bool:
        """Whether ``node`` may answer ``keys`` now (the sync client's lane keeps to one node): it is the node
        already chosen, or none is and its ready connection speaks ``api`` at ``prefer`` or above."""
        if self._node is not None or self._avoid:
            return node == self._node
        return self._speaks_preferred(ctx, node)

    def ready(self, ctx: Context, keys: Sequence[K]) -> int | None:
        """The node already chosen, or the first candidate when its ready connection speaks ``api`` (what
        ``locate`` would pick without a request); None when that needs asking (the driver's lean round)."""
        if self._node is not None:
            return self._node
        candidates = self._candidates(ctx)
        if not candidates or not self._speaks_preferred(ctx, candidates[0]):
            return None
        self._node = candidates[0]
        return self._node

    async def locate(self, ctx: Context, keys: Sequence[K], deadline: Deadline) -> dict[K, int | Outcome] | int:
        if self._node is not None:
            return self._node
        refused: list[tuple[int, KafkaError]] = []
        last: KafkaError | None = None
        below: int | None = None  # the first node that speaks the API, below ``prefer``
        for node in self._candidates(ctx):
            if deadline.expired:
                break
            try:
                version = await ctx.net.negotiated_version(node, self.api, deadline=deadline)
            except UnsupportedVersionError as exc:
                refused.append((node, exc))
                continue
            except KafkaError as exc:
                if not exc.retriable and not isinstance(exc, KafkaTimeoutError):
                    return dict.fromkeys(keys, Failed(exc))
                last = exc
                continue
            if version < self.prefer:
                below = node if below is None else below
                continue
            self._node = node
            return node
        if below is not None:
            self._node = below
            return below
        if refused and last is None:
            self.unsupported = await self._explain(ctx, refused, deadline)
            return dict.fromkeys(keys, Failed(self.unsupported))
        err = last or NoBrokersAvailableError(f"no node could be reached for {self.api.kafka_name}")
        return dict.fromkeys(keys, Retry(err))

    async def _explain(self, ctx: Context, refusals: list[tuple[int, KafkaError]],
                       deadline: Deadline) -> KafkaError:
        """One error for "no node speaks the API", saying why when the brokers simply predate it."""
        missing = []
        for node, _exc in refusals:
            try:
                table = await ctx.net.api_versions(node, deadline=deadline)
            except KafkaError:
                continue
            if self.api not in table:
                missing.append(node)
        first = refusals[0][1]
        nodes = ", ".join(str(n) for n, _ in refusals)
        if missing:
            why = f": {self.too_old}" if self.too_old else ""
            return UnsupportedVersionError(f"no broker supports {self.api.kafka_name} (node(s) {nodes}){why}; "
                                           f"{first.message}")
        return UnsupportedVersionError(f"no broker can take this {self.api.kafka_name} request (node(s) {nodes}): "
                                       f"{first.message}")

    def forget(self, ctx: Context, keys: Iterable[K]) -> None:
        pass

    def forget_node(self, ctx: Context, node_id: int) -> None:
        if self._node == node_id:
            self._node = None
        self._avoid.add(node_id)
        if len(self._avoid) >= max(1, len(ctx.net.nodes)):
            self._avoid.clear()


class Controller(Generic[K]):
    """Every key to the controller named by the latest metadata (KRaft brokers name a broker that forwards).

    NOT_CONTROLLER makes the operation answer ``Retry(relookup=True)``; forgetting refreshes the metadata
    before the next round, so the retry goes to the new controller."""

    def __init__(self) -> None:
        self._stale = False

    async def locate(self, ctx: Context, keys: Sequence[K], deadline: Deadline) -> dict[K, int | Outcome] | int:
        if self._stale or ctx.net.controller_id is None:
            try:
                await ctx.net.refresh_metadata(deadline=deadline)
            except KafkaError as exc:
                return dict.fromkeys(keys, Retry(exc))
            self._stale = False
        controller = ctx.net.controller_id
        if controller is None or controller < 0 or controller not in ctx.net.nodes:
            return dict.fromkeys(keys, Retry(NotControllerError("the metadata names no live controller yet")))
        return controller

    def forget(self, ctx: Context, keys: Iterable[K]) -> None:
        self._stale = True

    def forget_node(self, ctx: Context, node_id: int) -> None:
        self._stale = True


# --- partition leaders: a Metadata operation is the lookup -----------------------------------------------


class TopicMetadata(Operation[str]):
    """Metadata for a set of topics: {topic: {partition: leader id}} or the topic's error.  Used by lookups;
    it does not create topics (allow_auto_topic_creation=False where the version has it)."""

    api = ApiKey.METADATA

    def __init__(self) -> None:
        self.lookup = AnyNode()

    def build(self, node: int, keys: list[str], version: int) -> Message:
        return metadata_request(keys, version)

    def handle(self, node: int, keys: list[str], response: Any, version: int) -> dict[str, Outcome]:
        out: dict[str, Outcome] = {}
        for t in response.topics:
            err = error_for_code(t.error_code)
            if err is not None:
                # UNKNOWN_TOPIC_OR_PARTITION for a topic that does not exist: an answer for the lookup to judge.
                out[t.name] = Failed(err) if not err.retriable or isinstance(err, UnknownTopicOrPartitionError) \
                    else Retry(err)
            else:
                out[t.name] = Done({p.partition_index: p.leader_id for p in t.partitions})
        return out


class PartitionLeader:
    """Partitions to their leaders, from one Metadata request for their topics per round.

    ``tolerate_unknown_topics``: a topic the cluster does not have is an answer (the key fails at once with
    UnknownTopicOrPartitionError), as for committed offsets of a deleted topic.  Otherwise it is retried until
    the deadline, for a topic that is being created and not yet in every broker's metadata."""

    def __init__(self, *, tolerate_unknown_topics: bool) -> None:
        self.tolerate_unknown_topics = tolerate_unknown_topics
        self._leaders: dict[TopicPartition, int] = {}

    async def locate(self, ctx: Context, keys: Sequence[TopicPartition],
                     deadline: Deadline) -> dict[TopicPartition, int | Outcome]:
        out: dict[TopicPartition, int | Outcome] = {}
        missing = [tp for tp in keys if tp not in self._leaders]
        for tp in keys:
            if tp in self._leaders:
                out[tp] = self._leaders[tp]
        if not missing:
            return out
        topics = list(dict.fromkeys(tp.topic for tp in missing))
        meta = await run(ctx, TopicMetadata(), topics, deadline)
        for tp in missing:
            got = meta[tp.topic]
            if isinstance(got, KafkaError):
                if isinstance(got, UnknownTopicOrPartitionError):
                    out[tp] = Failed(got) if self.tolerate_unknown_topics else Retry(got)
                else:
                    out[tp] = Retry(got) if got.retriable or isinstance(got, KafkaTimeoutError) else Failed(got)
                continue
            leader = got.get(tp.partition)
            if leader is None:
                err = UnknownTopicOrPartitionError(f"{tp} is not in the cluster metadata (the topic has "
                                                   f"{len(got)} partition(s))")
                out[tp] = Failed(err) if self.tolerate_unknown_topics else Retry(err)
            elif leader < 0:
                out[tp] = Retry(LeaderNotAvailableError(f"{tp} has no leader"))
            else:
                self._leaders[tp] = leader
                out[tp] = leader
        return out

    def forget(self, ctx: Context, keys: Iterable[TopicPartition]) -> None:
        for tp in keys:
            self._leaders.pop(tp, None)

    def forget_node(self, ctx: Context, node_id: int) -> None:
        for tp in [tp for tp, n in self._leaders.items() if n == node_id]:
            del self._leaders[tp]

__all__ = ["AllNodes", "AnyNode", "Controller", "NodeSpeaking", "PartitionLeader", "TopicMetadata",
           "candidate_nodes"]
