"""CreateTopics (key 19): create topics, on the controller.

ZooKeeper-mode brokers (presets 2.2-3.9) answer NOT_CONTROLLER unless they are the controller; KRaft brokers
(4.0) forward to the quorum, so any broker creates.  Per topic, as Kafka does (messages are Kafka's): an
illegal or colliding name is INVALID_TOPIC_EXCEPTION; an existing one TOPIC_ALREADY_EXISTS; a name twice in one
request INVALID_REQUEST; partitions/replication factor -1 mean the broker's num.partitions /
default.replication.factor (v4+, Kafka 2.4; older releases knew no defaults and refuse -1 as a bad count);
otherwise a count < 1 is INVALID_PARTITIONS / INVALID_REPLICATION_FACTOR, and a factor above the live brokers
INVALID_REPLICATION_FACTOR; an assignment together with a count is INVALID_REQUEST, a bad one
INVALID_REPLICA_ASSIGNMENT; an unknown config key or a bad value INVALID_CONFIG, and so is a null value from
Kafka 3.3 (INVALID_REQUEST on 2.6-3.2, UNKNOWN_SERVER_ERROR before: see _null_configs).  v5+ answers the topic's
partitions, replication factor and configs; v7 its id.  ValidateOnly (v1+) checks and creates nothing.
"""

from __future__ import annotations

import uuid
from collections import Counter
from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing import authorizer as az
from kadmin.testing import configs as C
from kadmin.testing.handlers.base import RequestContext, Response, register, response_class
from kadmin.testing.handlers.describe_configs import topic_entries
from kadmin.testing.handlers.topic_rules import assignment_error, flattened, name_error, place
from kadmin.testing.state.resource_configs import ResourceConfigs
from kadmin.testing.state.topics import PartitionState, Topic, Topics

API_KEY = ApiKey.CREATE_TOPICS


def _plan(ctx: RequestContext, t: Any, version: int, live: set[int], flat: dict[str, str],
          cat: dict[str, C.ConfigDef]) -> tuple[int, str | None, Any]:
    """(error, message, (replica lists, configs)) for one topic."""
    err = name_error(ctx.state, t.name, flat)
    if err is not None:
        return err[0], err[1], None
    nulls = [c.name for c in t.configs if c.value is None]
    if nulls:
        return _null_configs(ctx, nulls)
    defaults = ctx.state.area(ResourceConfigs).get((C.BROKER, ""), {})
    if t.assignments:
        if t.num_partitions != -1 or t.replication_factor != -1:
            return ErrorCode.INVALID_REQUEST, ("Both numPartitions or replicationFactor and replicasAssignments "
                                               "were set. Both cannot be used at the same time."), None
        indexes = sorted(a.partition_index for a in t.assignments)
        if indexes != list(range(len(indexes))):
            return ErrorCode.INVALID_REPLICA_ASSIGNMENT, ("Partitions should be a consecutive 0-based integer "
                                                          "sequence"), None
        by_index = {a.partition_index: list(a.broker_ids) for a in t.assignments}
        replicas = [by_index[i] for i in indexes]
        err = assignment_error(replicas, live)
        if err is not None:
            return err[0], err[1], None
    else:
        defaults_ok = version >= 4
        partitions = t.num_partitions
        rf = t.replication_factor
        if partitions == -1 and defaults_ok:
            partitions = int(defaults.get("num.partitions", C.BROKER_CONFIGS["num.partitions"].default or "1"))
        if rf == -1 and defaults_ok:
            rf = int(defaults.get("default.replication.factor",
                                  C.BROKER_CONFIGS["default.replication.factor"].default or "1"))
        if partitions < 1:
            return ErrorCode.INVALID_PARTITIONS, "Number of partitions was set to an invalid non-positive value.", \
                None
        if rf < 1:
            return ErrorCode.INVALID_REPLICATION_FACTOR, ("Replication factor must be larger than 0, or -1 to use "
                                                          "the default value."), None
        if rf > len(live):
            return ErrorCode.INVALID_REPLICATION_FACTOR, (f"Unable to replicate the partition {rf} time(s): The "
                                                          f"target replication factor of {rf} cannot be reached "
                                                          f"because only {len(live)} broker(s) are registered."), \
                None
        replicas = place(sorted(live), 0, partitions, rf, len(ctx.state.area(Topics)))
    configs: dict[str, str] = {}
    for c in t.configs:
        d = cat.get(c.name)
        if d is None:
            return ErrorCode.INVALID_CONFIG, f"Unknown topic config name: {c.name}", None
        try:
            C.check_value(d, c.value)
        except C.ConfigValueError as exc:
            return exc.code, exc.message, None
        configs[c.name] = c.value
    return ErrorCode.NONE, None, (replicas, configs)


def _null_configs(ctx: RequestContext, names: list[str]) -> tuple[int, str | None, Any]:
    """A config with a null value, as each release answers it (checked after the name, before the counts)."""
    rel = tuple(int(p) for p in C.release(ctx.table).split("."))
    if rel >= (3, 3):  # KAFKA-13863: ZkAdminManager and ReplicationControlManager
        return ErrorCode.INVALID_CONFIG, f"Null value not supported for topic configs: {','.join(names)}", None
    if rel >= (2, 6):  # KAFKA-9695: AdminManager
        return ErrorCode.INVALID_REQUEST, f"Null value not supported for topic configs : {','.join(names)}", None
    # Before: Properties.setProperty(name, null) throws a NullPointerException, answered as an unknown error.
    return ErrorCode.UNKNOWN_SERVER_ERROR, None, None


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    live = ctx.live_ids()
    seen = Counter(t.name for t in req.topics)
    dups = sorted(n for n, k in seen.items() if k > 1)
    validate_only = version >= 1 and req.validate_only
    out = []
    done: set[str] = set()
    flat = flattened(ctx.state)
    # v5+ answers every config of every created topic (about 30 each).  A topic created without configs of its
    # own resolves them all as every other such topic of the request does (same broker, same catalog, same
    # broker-level values), so that list is built once per request and shared: 1,000 topics cost one list, not
    # 30,000 lookups (bench.topics).
    no_own_configs: list[Any] | None = None
    cat = C.catalog(C.TOPIC, ctx.table)
    code: int
    msg: str | None
    plan: Any
    for t in req.topics:
        if t.name in done:
            continue
        done.add(t.name)
        kw: dict[str, Any] = {"name": t.name}
        if not ctx.acts_as_controller():
            code, msg, plan = ErrorCode.NOT_CONTROLLER, "This is not the correct controller for this cluster.", None
        elif t.name in dups:
            code, msg, plan = ErrorCode.INVALID_REQUEST, (f"Create topics request from client `{ctx.client_host}` "
                                                          f"contains multiple entries for the following topics: "
                                                          f"{', '.join(dups)}"), None
        elif not (ctx.authorize(az.CLUSTER, az.CLUSTER_NAME, az.CREATE) or ctx.authorize(az.TOPIC, t.name, az.CREATE)):
            # KafkaApis: CREATE on the cluster, or on the topic's name.
            code, msg, plan = ErrorCode.TOPIC_AUTHORIZATION_FAILED, "Authorization failed.", None
        else:
            code, msg, plan = _plan(ctx, t, version, live, flat, cat)
        kw["error_code"] = code
        if version >= 1:
            kw["error_message"] = msg
        if version >= 5:
            kw.update(num_partitions=-1, replication_factor=-1, configs=[])
        if plan is not None:
            replicas, configs = plan
            topic_id = uuid.uuid4()
            if not validate_only:
                flat[t.name.replace(".", "_")] = t.name
                ctx.state.area(Topics)[t.name] = Topic(
                    t.name, topic_id, {i: PartitionState(replicas=list(r)) for i, r in enumerate(replicas)},
                    internal=False, configs=configs)
            if version >= 5:
                if configs:
                    entries = _answer_configs(R, ctx, configs)
                else:
                    if no_own_configs is None:
                        no_own_configs = _answer_configs(R, ctx, {})
                    entries = no_own_configs
                kw.update(num_partitions=len(replicas), replication_factor=len(replicas[0]), topic_config_error_code=0,
                          configs=entries)
            if version >= 7 and not validate_only:
                kw["topic_id"] = topic_id
        out.append(R.CreatableTopicResult(**kw))
    return R(topics=out)


def _answer_configs(R: Any, ctx: RequestContext, configs: dict[str, str]) -> list[Any]:
    return [R.CreatableTopicConfigs(name=e.name, value=e.value, read_only=e.read_only, config_source=e.source,
                                    is_sensitive=e.sensitive) for e in topic_entries(ctx, configs)]


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    R = response_class(API_KEY)
    extra: dict[str, Any] = {"num_partitions": -1, "replication_factor": -1} if version >= 5 else {}
    return R(topics=[R.CreatableTopicResult(name=n, error_code=code, **extra)
                     for n in dict.fromkeys(t.name for t in req.topics)])


def keys(req: Any, version: int) -> tuple[str, ...]:
    return tuple(t.name for t in req.topics)


register(API_KEY, handle=handle, error_response=error_response, keys=keys)
