"""Configs: DescribeConfigs, IncrementalAlterConfigs (Kafka 2.3+) and the AlterConfigs fallback before it.

Routing (:class:`ResourceNode`): a broker or broker-logger resource with an id goes to that broker (only it
answers for its own configs; any other says "Unexpected broker id"); every other resource (topics, groups,
client-metrics, the cluster-wide broker default) goes to one node that speaks the API, so a call sends one
request per named broker plus one for everything else: the protocol minimum, except that DescribeConfigs sends group
and client-metrics resources (and broker loggers at v2) in requests of their own, because a broker whose release
lacks such a type fails every resource of the request that names it.

Before Kafka 2.3 brokers only have AlterConfigs, which *replaces* all of a resource's dynamic configs.
``alter_configs`` then reads the resource (DescribeConfigs), keeps every dynamic config the caller does not
change, applies the SET/DELETE operations and writes the whole set back (:func:`merge_for_replace`).  It refuses,
per resource and before writing: APPEND/SUBTRACT (AlterConfigs cannot express them), broker-logger resources
(AlterConfigs has no log levels), and a resource with a sensitive dynamic config the call does not set (the
broker never reveals its value, so writing the set back would drop it).  The read and the write are two
requests: a change made by someone else in between is overwritten, as with Kafka's own tools on such brokers.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar

from kadmin.admin._driver import Context, Done, Failed, Operation, Outcome, Retry, Sent, run
from kadmin.admin.lookups import NodeSpeaking
from kadmin.configs import (
    AppendConfig,
    ConfigEntry,
    ConfigOp,
    ConfigResource,
    ConfigResourceType,
    ConfigSource,
    ConfigSynonym,
    ConfigType,
    DeleteConfig,
    SetConfig,
    SubtractConfig,
)
from kadmin.errors import ErrorCode, KafkaError, UnsupportedVersionError, error_for_code
from kadmin.network.retry import Deadline
from kadmin.protocol import Message, message_type
from kadmin.protocol.apis import ApiKey

#: The dynamic source of each resource's own values: what AlterConfigs replaces.
_OWN_SOURCE = {ConfigResourceType.TOPIC: ConfigSource.DYNAMIC_TOPIC_CONFIG,
               ConfigResourceType.GROUP: ConfigSource.GROUP_CONFIG,
               ConfigResourceType.CLIENT_METRICS: ConfigSource.CLIENT_METRICS_CONFIG}


class ResourceNode:
    """Broker resources with an id to that broker; all others to one node that speaks ``api``."""

    #: Shares nothing with other calls: the driver awaits it in place (see kadmin.admin._driver.Lookup).
    inline = True

    def __init__(self, api: ApiKey, too_old: str = "") -> None:
        self.any: NodeSpeaking[ConfigResource] = NodeSpeaking(api, too_old=too_old)

    async def locate(self, ctx: Context, keys: Sequence[ConfigResource],
                     deadline: Deadline) -> dict[ConfigResource, int | Outcome]:
        out: dict[ConfigResource, int | Outcome] = {}
        fixed = [k for k in keys if k.broker_id is not None]
        if any(k.broker_id not in ctx.net.nodes for k in fixed):
            try:
                await ctx.net.refresh_metadata(deadline=deadline)  # a broker that just joined
            except KafkaError as exc:
                return dict.fromkeys(keys, Retry(exc))
        for k in fixed:
            node = k.broker_id
            if node in ctx.net.nodes:
                out[k] = node
            else:
                err = error_for_code(ErrorCode.BROKER_NOT_AVAILABLE, f"{k}: the cluster metadata has no broker {node}")
                assert err is not None
                out[k] = Failed(err)
        others = [k for k in keys if k.broker_id is None]
        if others:
            where = await self.any.locate(ctx, others, deadline)
            out.update(dict.fromkeys(others, where) if isinstance(where, int) else where)
        return out

    def accepts(self, ctx: Context, keys: Sequence[ConfigResource], node: int) -> bool:
        """Whether ``node`` may answer ``keys`` now (the sync client's lane keeps to one node): it is the broker
        every resource names, or no resource names one and ``node`` speaks ``api``."""
        brokers = {k.broker_id for k in keys}
        if brokers == {None}:
            return self.any.accepts(ctx, keys, node)
        return brokers == {node}

    def ready(self, ctx: Context, keys: Sequence[ConfigResource]) -> int | None:
        """The one node every resource goes to, when known now (the driver's lean round): the broker all of
        them name, or the node that speaks ``api`` for resources without a broker id."""
        brokers = {k.broker_id for k in keys}
        if len(brokers) != 1:
            return None
        [broker] = brokers
        if broker is None:
            return self.any.ready(ctx, keys)
        return broker if broker in ctx.net.nodes else None

    def forget(self, ctx: Context, keys: Iterable[ConfigResource]) -> None:
        pass

    def forget_node(self, ctx: Context, node_id: int) -> None:
        self.any.forget_node(ctx, node_id)

    @property
    def unsupported(self) -> KafkaError | None:
        """Set when no node speaks the API (for resources without a broker id)."""
        return self.any.unsupported


#: Resource type codes a broker may answer with (a code we do not know is not a key anyone asked about).
_TYPES = {int(t): t for t in ConfigResourceType}


def _key(resource_type: int, name: str) -> ConfigResource | None:
    t = _TYPES.get(resource_type)
    return None if t is None else ConfigResource(t, name)


def _outcome(code: int, message: str | None, resource: ConfigResource) -> Outcome:
    plain = error_for_code(code)
    assert plain is not None
    err = error_for_code(code, f"{resource}: {message or plain.message}")
    assert err is not None
    if code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
        # No such topic: the answer (retriable in Kafka's table for produce/fetch, where metadata may lag; a config
        # request is answered from the same metadata the topic would be created in).
        return Failed(err)
    # INVALID_REQUEST (a type or broker id this broker does not serve), INVALID_CONFIG, POLICY_VIOLATION,
    # *_AUTHORIZATION_FAILED: the broker's verdict, final.  A retriable code (REQUEST_TIMED_OUT...) is asked again.
    return Retry(err) if err.retriable else Failed(err)


#: Resource types each Kafka release before the one named lacks, so that a DescribeConfigs naming one fails as a
#: whole there: broker loggers (KIP-412), client-metrics (KIP-714), group configs (KIP-848, KAFKA-14511).
_TYPE_SINCE = {ConfigResourceType.BROKER_LOGGER: ("broker loggers", "2.4"),
               ConfigResourceType.CLIENT_METRICS: ("client-metrics configs", "3.7"),
               ConfigResourceType.GROUP: ("group configs", "3.9")}
_TYPE_SERVED = {ConfigResourceType.GROUP: " on KRaft with the new group coordinator, the default from Kafka 4.0"}
#: Types sent apart from others (see DescribeConfigs.build); the first tuple from v3, the second at v0-v2.
_APART = (ConfigResourceType.CLIENT_METRICS, ConfigResourceType.GROUP)
_APART_V2 = (ConfigResourceType.BROKER_LOGGER, *_APART)
#: How Kafka's Errors.INVALID_REQUEST default message starts: what a 2.6+ broker's whole-request refusal carries.
_STOCK_INVALID_REQUEST = "This most likely occurs because of a request being malformed"


def _type_refusal(key: ConfigResource, message: str | None) -> str:
    """The message for a broker's INVALID_REQUEST on ``key`` that names no reason of its own (the whole-request
    refusal of a type the broker's release lacks), saying which release added the type."""
    known = _TYPE_SINCE.get(key.type)
    if known is None:
        return message or "refused"
    what, since = known
    # Group configs: the type arrived in 3.9, but a 3.9 broker serves them only on KRaft with the new group
    # coordinator (the default from 4.0), so "need 3.9+" alone read as nonsense to someone talking to a 3.9 broker.
    where = _TYPE_SERVED.get(key.type, "")
    return (f"the broker does not know {key.type.cli_name} resources ({what} need Kafka {since}+{where}): "
            f"{message or 'refused'}")


class DescribeConfigs(Operation[ConfigResource]):
    """Configs of resources: one request per named broker, one for all other resources (groups and client-metrics
    apart, see build)."""

    api = ApiKey.DESCRIBE_CONFIGS

    def __init__(self, include_synonyms: bool = False, include_documentation: bool = False) -> None:
        self.include_synonyms = include_synonyms
        self.include_documentation = include_documentation
        self.lookup = ResourceNode(ApiKey.DESCRIBE_CONFIGS)

    def build(self, node: int, keys: list[ConfigResource], version: int) -> Message | list[Sent]:
        # A broker fails every resource of a DescribeConfigs that names a type its release does not know (KafkaApis
        # throws while sorting the resources for authorization).  Groups (3.9+) and client-metrics (3.7+) therefore
        # travel in requests of their own, one per type, at every version: the broker's release cannot be told from
        # the version it speaks.  Broker loggers (2.4+) do so at v2, which Kafka 2.0-2.5 all speak; from v3 (2.6+)
        # every broker knows them.  Keys of one kind stay one request.
        apart = _APART if version > 2 else _APART_V2
        parts: dict[ConfigResourceType | None, list[ConfigResource]] = {}
        for k in keys:
            parts.setdefault(k.type if k.type in apart else None, []).append(k)
        if len(parts) <= 1:
            return self._request(keys, version)
        order = [None, *apart]
        return [(self._request(ks, version), ks) for _t, ks in sorted(parts.items(), key=lambda p: order.index(p[0]))]

    def _request(self, keys: list[ConfigResource], version: int) -> Message:
        req: Any = message_type(ApiKey.DESCRIBE_CONFIGS, "request")
        # Synonyms (v1+) and documentation (v3+) are extras: an older broker is not asked for them (the fields do
        # not exist at its version) and its answer simply lacks them.
        return req(resources=[req.DescribeConfigsResource(  # type: ignore[no-any-return]
            resource_type=int(k.type), resource_name=k.name, configuration_keys=None) for k in keys],
            include_synonyms=self.include_synonyms and version >= 1,
            include_documentation=self.include_documentation and version >= 3)

    def handle(self, node: int, keys: list[ConfigResource], response: Any,
               version: int) -> dict[ConfigResource, Outcome]:
        out: dict[ConfigResource, Outcome] = {}
        typed: set[tuple[int, str]] | None = None
        for r in response.results:
            key = _key(r.resource_type, r.resource_name)
            echoed = key is None or key.type is ConfigResourceType.UNKNOWN
            if echoed:
                # A broker that does not know the type asked for (a broker logger on Kafka 2.2/2.3) parses it as
                # UNKNOWN and answers under that type: the answer belongs to the key of that name it did not
                # answer under its own type.
                if typed is None:
                    typed = {(x.resource_type, x.resource_name) for x in response.results}
                key = next((k for k in keys if k.name == r.resource_name and k not in out
                            and (int(k.type), k.name) not in typed), None)
            if key is None:
                continue
            if r.error_code != ErrorCode.NONE:
                message = r.error_message
                if echoed or (r.error_code == ErrorCode.INVALID_REQUEST and (
                        not message or message.startswith((_STOCK_INVALID_REQUEST, "Unexpected resource type")))):
                    # The whole-request refusal of a type the broker's release lacks: echoed as UNKNOWN before
                    # 2.6, named as sent with no reason of its own from 2.6.
                    message = _type_refusal(key, message)
                out[key] = _outcome(r.error_code, message, key)
                continue
            out[key] = Done({c.name: self._entry(c, version) for c in sorted(r.configs, key=lambda c: c.name)})
        return out

    def _entry(self, c: Any, version: int) -> ConfigEntry:
        if version == 0:
            # v0 knows only "default or not": a non-default value's level is unknown.
            source = ConfigSource.DEFAULT_CONFIG if c.is_default else ConfigSource.UNKNOWN
            synonyms: tuple[ConfigSynonym, ...] = ()
        else:
            source = ConfigSource.of(c.config_source)
            synonyms = tuple(ConfigSynonym(s.name, s.value, ConfigSource.of(s.source)) for s in c.synonyms) \
                if c.synonyms else ()
        return ConfigEntry(c.name, None if c.is_sensitive else c.value, source, bool(c.is_sensitive),
                           bool(c.read_only), synonyms, ConfigType.of(c.config_type) if version >= 3 else
                           ConfigType.UNKNOWN, c.documentation if version >= 3 else None)


class IncrementalAlterConfigs(Operation[ConfigResource]):
    """Set/delete/append/subtract per config.  Applying an operation twice gives the same configs (an APPEND of
    an item already there is a no-op), so a resend's answer is the truth: nothing is left in doubt."""

    api = ApiKey.INCREMENTAL_ALTER_CONFIGS
    write: ClassVar[bool] = True
    applied_looks_like: ClassVar[frozenset[ErrorCode] | None] = frozenset()

    def __init__(self, changes: Mapping[ConfigResource, Sequence[ConfigOp]], validate_only: bool) -> None:
        self.changes = changes
        self.validate_only = validate_only
        self.lookup = ResourceNode(ApiKey.INCREMENTAL_ALTER_CONFIGS, "IncrementalAlterConfigs needs Kafka 2.3+")

    def build(self, node: int, keys: list[ConfigResource], version: int) -> Message:
        req: Any = message_type(ApiKey.INCREMENTAL_ALTER_CONFIGS, "request")
        return req(resources=[req.AlterConfigsResource(  # type: ignore[no-any-return]
            resource_type=int(k.type), resource_name=k.name,
            configs=[req.AlterableConfig(name=op.name, config_operation=int(op.op), value=op.value)
                     for op in self.changes[k]]) for k in keys], validate_only=self.validate_only)

    def handle(self, node: int, keys: list[ConfigResource], response: Any,
               version: int) -> dict[ConfigResource, Outcome]:
        return _fold_alter(response)


def _fold_alter(response: Any) -> dict[ConfigResource, Outcome]:
    """One outcome per resource of an AlterConfigs or IncrementalAlterConfigs answer (the same shape)."""
    out: dict[ConfigResource, Outcome] = {}
    for r in response.responses:
        key = _key(r.resource_type, r.resource_name)
        if key is not None:
            out[key] = Done(None) if r.error_code == ErrorCode.NONE else _outcome(r.error_code, r.error_message, key)
    return out


class AlterConfigs(Operation[ConfigResource]):
    """The whole set of dynamic configs per resource (brokers before 2.3).  Writing the same set twice gives the
    same configs, so a resend's answer is the truth."""

    api = ApiKey.ALTER_CONFIGS
    write: ClassVar[bool] = True
    applied_looks_like: ClassVar[frozenset[ErrorCode] | None] = frozenset()

    def __init__(self, full_sets: Mapping[ConfigResource, Mapping[str, str]], validate_only: bool) -> None:
        self.full_sets = full_sets
        self.validate_only = validate_only
        self.lookup = ResourceNode(ApiKey.ALTER_CONFIGS)

    def build(self, node: int, keys: list[ConfigResource], version: int) -> Message:
        req: Any = message_type(ApiKey.ALTER_CONFIGS, "request")
        return req(resources=[req.AlterConfigsResource(  # type: ignore[no-any-return]
            resource_type=int(k.type), resource_name=k.name,
            configs=[req.AlterableConfig(name=n, value=v) for n, v in self.full_sets[k].items()]) for k in keys],
            validate_only=self.validate_only)

    def handle(self, node: int, keys: list[ConfigResource], response: Any,
               version: int) -> dict[ConfigResource, Outcome]:
        return _fold_alter(response)


class ValidateIncrementalAlterConfigs(IncrementalAlterConfigs):
    """validate_only: nothing changes, so nothing is in doubt."""

    write: ClassVar[bool] = False


class ValidateAlterConfigs(AlterConfigs):
    write: ClassVar[bool] = False


async def _lacks_incremental(ctx: Context, resource: ConfigResource, deadline: Deadline) -> str | None:
    """Which node(s) cannot take IncrementalAlterConfigs at all (the API is not in their table), as a clause
    ("broker 1 does not speak it", "no broker of this cluster speaks it"), or None."""
    nodes = [resource.broker_id] if resource.broker_id is not None else sorted(ctx.net.nodes)
    for node in nodes:
        try:
            table = await ctx.net.api_versions(node, deadline=deadline)
        except KafkaError:
            return None
        if ApiKey.INCREMENTAL_ALTER_CONFIGS in table:
            return None
    return f"broker {nodes[0]} does not speak it" if len(nodes) == 1 else "no broker of this cluster speaks it"


async def alter_configs(ctx: Context, changes: Mapping[ConfigResource, Sequence[ConfigOp]], validate_only: bool,
                        deadline: Deadline) -> dict[ConfigResource, None | KafkaError]:
    """IncrementalAlterConfigs; for resources whose broker predates it, read-merge-write with AlterConfigs."""
    inc = (ValidateIncrementalAlterConfigs if validate_only else IncrementalAlterConfigs)(changes, validate_only)
    got: dict[ConfigResource, Any] = await run(ctx, inc, list(changes), deadline)
    old: list[ConfigResource] = []
    for r, v in got.items():
        if isinstance(v, UnsupportedVersionError):
            who = await _lacks_incremental(ctx, r, deadline)
            if who is not None:
                refusal = fallback_refusal(r, changes[r], who)
                if refusal is not None:
                    got[r] = refusal
                else:
                    old.append(r)
    if not old:
        return got
    current = await run(ctx, DescribeConfigs(), old, deadline)
    full_sets: dict[ConfigResource, dict[str, str]] = {}
    for r in old:
        cur = current[r]
        merged = cur if isinstance(cur, KafkaError) else merge_for_replace(r, cur, changes[r])
        if isinstance(merged, KafkaError):
            got[r] = merged
        else:
            full_sets[r] = merged
    if full_sets:
        write = (ValidateAlterConfigs if validate_only else AlterConfigs)(full_sets, validate_only)
        got.update(await run(ctx, write, list(full_sets), deadline))
    return got


def own_source(resource: ConfigResource) -> ConfigSource | None:
    if resource.type is ConfigResourceType.BROKER:
        return ConfigSource.DYNAMIC_BROKER_CONFIG if resource.name else ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG
    return _OWN_SOURCE.get(resource.type)


def fallback_refusal(resource: ConfigResource, ops: Sequence[ConfigOp], node_text: str) -> KafkaError | None:
    """Why the AlterConfigs fallback cannot carry these operations, or None.  ``node_text`` says who lacks
    IncrementalAlterConfigs, as a clause: "broker 1 does not speak it", "no broker of this cluster speaks it"."""
    if resource.type is ConfigResourceType.BROKER_LOGGER:
        return UnsupportedVersionError(f"{resource}: log levels need broker loggers (KIP-412, Kafka 2.4+), changed "
                                       f"through IncrementalAlterConfigs, and {node_text}")
    odd = next((op for op in ops if isinstance(op, (AppendConfig, SubtractConfig))), None)
    if odd is not None:
        return UnsupportedVersionError(
            f"{resource}: {odd.op.name} {odd.name!r} needs IncrementalAlterConfigs (Kafka 2.3+), and {node_text}; "
            "AlterConfigs can only replace whole values (use SetConfig with the full list)")
    return None


def merge_for_replace(resource: ConfigResource, current: Mapping[str, ConfigEntry],
                      ops: Sequence[ConfigOp]) -> dict[str, str] | KafkaError:
    """The full set AlterConfigs must write: the resource's dynamic configs with ``ops`` applied."""
    source = own_source(resource)
    if source is None:
        return UnsupportedVersionError(f"{resource}: AlterConfigs cannot change this resource type")
    if any(e.source is ConfigSource.UNKNOWN for e in current.values()):
        return UnsupportedVersionError(f"{resource}: this broker's DescribeConfigs (v0) does not say which values "
                                       "are dynamic, so they cannot be kept; refusing to rewrite them")
    changed = {op.name for op in ops}
    full: dict[str, str] = {}
    for name, e in current.items():
        if e.source is not source:
            continue
        if e.value is None and name not in changed:
            # Sensitive (or null) dynamic values are never sent by brokers: writing the set back would drop them.
            return UnsupportedVersionError(
                f"{resource}: {name!r} is a sensitive dynamic config whose value the broker does not reveal, so "
                "AlterConfigs (the only way to change configs before Kafka 2.3) would drop it; set it in the same "
                "call to keep it")
        if e.value is not None:
            full[name] = e.value
    for op in ops:
        if isinstance(op, SetConfig):
            full[op.name] = op.value
        elif isinstance(op, DeleteConfig):
            full.pop(op.name, None)
    return full


__all__ = ["AlterConfigs", "DescribeConfigs", "IncrementalAlterConfigs", "ResourceNode", "ValidateAlterConfigs",
           "ValidateIncrementalAlterConfigs", "alter_configs", "fallback_refusal", "merge_for_replace", "own_source"]
