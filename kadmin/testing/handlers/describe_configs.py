"""DescribeConfigs (key 32): the configs of topics, brokers, broker loggers, groups and client-metrics.

As Kafka's ConfigHelper: any broker answers for topics (UNKNOWN_TOPIC_OR_PARTITION for a topic it does not
have); a broker or broker-logger resource must name the answering broker's own id, or "" for the cluster-wide
broker defaults (which list only what was set cluster-wide); any other id is INVALID_REQUEST "Unexpected broker
id" (so a client must send broker resources to that broker).  Group and client-metrics resources exist on KRaft
brokers (the 4.0 preset); ZooKeeper-mode brokers answer INVALID_REQUEST for them.  A type the release does not
know (broker loggers before 2.4, KIP-412; client-metrics before 3.7, KIP-714; groups before 3.9, KIP-848) is parsed
as UNKNOWN and fails the whole request: INVALID_REQUEST for every resource (before 2.6 with "Unexpected resource
type UNKNOWN for resource <name>" and the unknown resource echoed as type 0; from 2.6 with the stock INVALID_REQUEST
message and the types as sent).  Sensitive values are never
sent (null value, IsSensitive).  v0 has IsDefault instead of ConfigSource; synonyms need v1+ and
IncludeSynonyms; ConfigType and Documentation need v3+ and IncludeDocumentation for the text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing import authorizer as az
from kadmin.testing import configs as C
from kadmin.testing.handlers.base import RequestContext, Response, register, response_class
from kadmin.testing.state.resource_configs import ResourceConfigs
from kadmin.testing.state.topics import Topics

API_KEY = ApiKey.DESCRIBE_CONFIGS


@dataclass(frozen=True)
class Entry:
    name: str
    value: str | None
    source: int
    read_only: bool
    sensitive: bool
    synonyms: tuple[tuple[str, str | None, int], ...]
    type: int
    doc: str | None


def _entry(d: C.ConfigDef | None, name: str, synonyms: list[tuple[str, str | None, int]],
           read_only: bool = False, default: str | None = None) -> Entry:
    """``default``: the value when no synonym applies (Kafka then reports the config's own value, DEFAULT_CONFIG)."""
    sensitive = d is not None and d.sensitive
    value, source = (synonyms[0][1], synonyms[0][2]) if synonyms else (default, C.DEFAULT)
    if sensitive:
        value = None
        synonyms = [(n, None, s) for n, _v, s in synonyms]
    return Entry(name, value, source, read_only, sensitive, tuple(synonyms),
                 d.type if d is not None else C.STRING, d.doc if d is not None else None)


def topic_entries(ctx: RequestContext, topic_configs: dict[str, str]) -> list[Entry]:
    """Every topic config as the answering broker resolves it (also used by CreateTopics v5+).

    As Kafka's ConfigHelper.createTopicConfigEntry: the topic's own value, then the first-priority broker
    synonym (ServerTopicConfigSynonyms) as set on this broker, cluster-wide, and its KafkaConfig default where
    that is not null (log.roll.ms, log.retention.ms-style names with a null default give no DEFAULT_CONFIG
    synonym).  A config without a broker synonym (the throttled-replicas lists, remote.storage.enable) has no
    synonyms: its value is the topic default, source DEFAULT_CONFIG."""
    node = ctx.state.area(ResourceConfigs).get((C.BROKER, str(ctx.node_id)), {})
    default = ctx.state.area(ResourceConfigs).get((C.BROKER, ""), {})
    out = []
    for d, is_listed, b in C.topic_resolution(ctx.table):  # b: the broker synonym, gated by the broker's release
        name = d.name
        if name not in topic_configs and not is_listed:
            continue  # an internal config of this release: described only where set
        syn: list[tuple[str, str | None, int]] = []
        if name in topic_configs:
            syn.append((name, topic_configs[name], C.DYNAMIC_TOPIC))
        if b is not None:
            if b.name in node:
                syn.append((b.name, node[b.name], C.DYNAMIC_BROKER))
            if b.name in default:
                syn.append((b.name, default[b.name], C.DYNAMIC_DEFAULT_BROKER))
            if b.default is not None:
                syn.append((b.name, b.default, C.DEFAULT))
        out.append(_entry(d, name, syn, default=d.default))
    return out


def _broker_entries(ctx: RequestContext, name: str) -> list[Entry]:
    default = ctx.state.area(ResourceConfigs).get((C.BROKER, ""), {})
    cat = C.catalog(C.BROKER, ctx.table)
    if name == "":
        # The cluster-wide resource lists only what was set cluster-wide.
        return [_entry(C.broker_def(k, ctx.table), k, [(k, v, C.DYNAMIC_DEFAULT_BROKER)])
                for k, v in sorted(default.items())]
    node = ctx.state.area(ResourceConfigs).get((C.BROKER, name), {})
    static = {"broker.id": name}
    me = next((b for b in ctx.live_brokers() if b[0] == ctx.node_id), None)
    if me is not None:
        static["advertised.listeners"] = f"PLAINTEXT://{me[1]}:{me[2]}"
    out = []
    # Names outside the catalog (listener overrides, custom configs) are listed where set, as Kafka lists its
    # KafkaConfig's originals; Kafka reports them read-only (not in DynamicBrokerConfig.AllDynamicConfigs).
    for k in sorted(cat.keys() | node.keys() | default.keys()):
        d = cat.get(k) or C.broker_def(k, ctx.table)
        syn: list[tuple[str, str | None, int]] = []
        if k in node:
            syn.append((k, node[k], C.DYNAMIC_BROKER))
        if k in default:
            syn.append((k, default[k], C.DYNAMIC_DEFAULT_BROKER))
        if k in static:
            syn.append((k, static[k], C.STATIC_BROKER))
        if k in cat:
            syn.append((k, d.default, C.DEFAULT))
        out.append(_entry(d, k, syn, read_only=k not in cat or not d.dynamic))
    return out


def _logger_entries(ctx: RequestContext, name: str) -> list[Entry]:
    levels = {**C.LOGGERS, **ctx.state.area(ResourceConfigs).get((C.BROKER_LOGGER, name), {})}
    return [Entry(k, v, C.DYNAMIC_BROKER_LOGGER, False, False, ((k, v, C.DYNAMIC_BROKER_LOGGER),), C.STRING, None)
            for k, v in sorted(levels.items())]


def _plain_entries(ctx: RequestContext, rtype: int, name: str, source: int) -> list[Entry]:
    own = ctx.state.area(ResourceConfigs).get((rtype, name), {})
    out = []
    for k, d in sorted(C.catalog(rtype, ctx.table).items()):
        syn: list[tuple[str, str | None, int]] = [(k, own[k], source)] if k in own else []
        syn.append((k, d.default, C.DEFAULT))
        out.append(_entry(d, k, syn))
    return out


def resource_error(ctx: RequestContext, rtype: int, name: str,
                   operation: int = az.DESCRIBE_CONFIGS) -> tuple[int, str] | None:
    """Why this broker cannot answer for the resource (shared with the alter handlers, which ask for
    ALTER_CONFIGS), or None."""
    if not C.supports_type(rtype, ctx.table):
        return ErrorCode.INVALID_REQUEST, f"Unsupported resource type: {C.TYPE_NAMES.get(rtype, 'UNKNOWN')}"
    # KafkaApis: topics and groups are authorized by name, broker-wide resources on the cluster.
    if rtype == C.TOPIC and not ctx.authorize(az.TOPIC, name, operation):
        return ErrorCode.TOPIC_AUTHORIZATION_FAILED, "Topic authorization failed."
    if rtype == C.GROUP and not ctx.authorize(az.GROUP, name, operation):
        return ErrorCode.GROUP_AUTHORIZATION_FAILED, "Group authorization failed."
    if rtype not in (C.TOPIC, C.GROUP) and not ctx.authorize(az.CLUSTER, az.CLUSTER_NAME, operation):
        return ErrorCode.CLUSTER_AUTHORIZATION_FAILED, "Cluster authorization failed."
    if rtype in (C.BROKER, C.BROKER_LOGGER):
        if rtype == C.BROKER and name == "":
            return None
        if not name.isdigit() or int(name) != ctx.node_id:
            return ErrorCode.INVALID_REQUEST, (f"Unexpected broker id, expected {ctx.node_id} or empty string, "
                                               f"but received {name}")
        return None
    if rtype == C.TOPIC:
        if name not in ctx.state.area(Topics):
            return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, f"The topic '{name}' does not exist."
        return None
    if not name:
        return ErrorCode.INVALID_REQUEST, f"A {C.TYPE_NAMES[rtype]} resource needs a name"
    return None


def entries(ctx: RequestContext, rtype: int, name: str) -> list[Entry]:
    if rtype == C.TOPIC:
        return topic_entries(ctx, ctx.state.area(Topics)[name].configs)
    if rtype == C.BROKER:
        return _broker_entries(ctx, name)
    if rtype == C.BROKER_LOGGER:
        return _logger_entries(ctx, name)
    if rtype == C.GROUP:
        return _plain_entries(ctx, rtype, name, C.GROUP_SOURCE)
    return _plain_entries(ctx, rtype, name, C.CLIENT_METRICS_SOURCE)


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    synonyms = version >= 1 and req.include_synonyms
    docs = version >= 3 and req.include_documentation
    unparsed = next((r for r in req.resources if C.unparsed_type(r.resource_type, ctx.table)), None)
    if unparsed is not None:
        # A type this release cannot parse fails the whole request (see C.unparsed_type), in the error response's
        # shape of the release: before 2.6 the exception's message and the unknown resource echoed as UNKNOWN (0);
        # from 2.6 (generated messages) INVALID_REQUEST's stock message and every type id as sent.
        generated = C.generated_describe(ctx.table)
        why = C.INVALID_REQUEST_TEXT if generated else \
            f"Unexpected resource type UNKNOWN for resource {unparsed.resource_name}"
        return R(results=[R.DescribeConfigsResult(
            error_code=ErrorCode.INVALID_REQUEST, error_message=why, resource_name=r.resource_name, configs=[],
            resource_type=r.resource_type if generated or not C.unparsed_type(r.resource_type, ctx.table) else 0)
            for r in req.resources])
    results = []
    for res in req.resources:
        err = resource_error(ctx, res.resource_type, res.resource_name)
        if err is not None:
            results.append(R.DescribeConfigsResult(error_code=err[0], error_message=err[1],
                                                   resource_type=res.resource_type,
                                                   resource_name=res.resource_name, configs=[]))
            continue
        wanted = None if res.configuration_keys is None else set(res.configuration_keys)
        configs = []
        for e in entries(ctx, res.resource_type, res.resource_name):
            if wanted is not None and e.name not in wanted:
                continue
            kw: dict[str, Any] = {"name": e.name, "value": e.value, "read_only": e.read_only,
                                  "is_sensitive": e.sensitive}
            if version == 0:
                kw["is_default"] = e.source == C.DEFAULT
            else:
                kw["config_source"] = e.source
                kw["synonyms"] = [R.DescribeConfigsSynonym(name=n, value=v, source=s) for n, v, s in e.synonyms] \
                    if synonyms else []
            if version >= 3:
                kw["config_type"] = e.type
                kw["documentation"] = e.doc if docs else None
            configs.append(R.DescribeConfigsResourceResult(**kw))
        results.append(R.DescribeConfigsResult(error_code=ErrorCode.NONE, error_message=None,
                                               resource_type=res.resource_type, resource_name=res.resource_name,
                                               configs=configs))
    return R(results=results)


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    R = response_class(API_KEY)
    return R(results=[R.DescribeConfigsResult(error_code=code, error_message=None, resource_type=r.resource_type,
                                              resource_name=r.resource_name, configs=[]) for r in req.resources])


def keys(req: Any, version: int) -> tuple[str, ...]:
    return tuple(f"{r.resource_type}:{r.resource_name}" for r in req.resources)


register(API_KEY, handle=handle, error_response=error_response, keys=keys)
