"""FakeCluster: a multi-broker Kafka look-alike on 127.0.0.1 for testing admin clients over real sockets.

Why a fake and not a real broker: tests need to make brokers old, slow, wrong or dead on demand, per node
and per API, and to see exactly what a client sent.  The fake runs its own asyncio loop in a background
thread and shares nothing with the client under test except sockets, so the client is exercised exactly as
against Kafka.  Everything a test calls here is thread-safe (one lock guards all state).
"""

from __future__ import annotations

import asyncio
import logging
import ssl
import threading
import uuid
from collections.abc import Coroutine, Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, TypeVar

from kadmin.protocol import message_type, shipped_names
from kadmin.testing.authorizer import ScramStore
from kadmin.testing.broker import Broker
from kadmin.testing.faults import FaultRule, Faults, take
from kadmin.testing.handlers.base import hash_partition
from kadmin.testing.requestlog import RequestLogEntry
from kadmin.testing.sasl import MECHANISMS
from kadmin.testing.schemas import fake_only_names
from kadmin.testing.security import SecurityAdmin, authorizer_from
from kadmin.testing.state import (
    ClusterState,
    CommittedOffset,
    Group,
    GroupSnapshot,
    LogDir,
    Member,
    PartitionSnapshot,
    QuotaEntity,
    quota_entity,
)
from kadmin.testing.tokens import store_from
from kadmin.versions import DEFAULT_RELEASE, VersionTable, resolve_table

log = logging.getLogger(__name__)
T = TypeVar("T")

VersionSpec = str | Mapping[int, tuple[int, int]]


@dataclass(frozen=True)
class SaslConfig:
    mechanisms: tuple[str, ...]
    users: Mapping[str, str]


def _sasl_config(sasl: Mapping[str, Any] | None) -> SaslConfig | None:
    if sasl is None:
        return None
    mechs = sasl.get("mechanisms") or [sasl.get("mechanism", "PLAIN")]
    mechs = [str(m).upper() for m in mechs]
    for m in mechs:
        if m not in MECHANISMS:
            raise ValueError(f"unsupported SASL mechanism {m!r}; one of {MECHANISMS}")
    return SaslConfig(tuple(mechs), dict(sasl.get("users", {})))


def _api_key(api: int | str | None) -> int | None:
    """An API key from a number or a name ("DescribeGroups")."""
    if api is None or isinstance(api, int):
        return api
    name = api if api.endswith("Request") else api + "Request"
    fake_only = fake_only_names().get(name[: -len("Request")])
    if fake_only is not None:  # Produce, Fetch...: schemas only the fake has (kadmin.testing.schemas)
        return fake_only
    if name not in shipped_names():
        raise ValueError(f"unknown API {api!r}")
    key = message_type(name).API_KEY
    assert key is not None
    return key


class FakeCluster(SecurityAdmin):
    """A fake Kafka cluster of ``brokers`` nodes (ids 1..N), each on its own port.

    ``versions`` is one release name ("3.9") or table for every broker, or a dict {node_id: release or table}
    for a mixed cluster (nodes it leaves out get the default release).  ``sasl`` enables SASL, e.g.
    ``{"mechanism": "SCRAM-SHA-256", "users": {"alice": "pw"}}`` (or ``"mechanisms": [...]``); ``tls`` is a
    server-side SSLContext.  ``latency_s`` is added to every request.  ``authorizer=True`` (or
    ``{"super_users": ["User:admin"], "allow_everyone_if_no_acl_found": False}``) enforces ACLs on every API
    (see :mod:`kadmin.testing.authorizer`); SASL users get SCRAM credentials for both mechanisms.
    ``delegation_tokens=True`` (or ``{"max_lifetime_ms": ..., "expiry_time_ms": ...}``) turns on the token
    manager (:mod:`kadmin.testing.tokens`); without it the token APIs answer DELEGATION_TOKEN_AUTH_DISABLED.
    """

    def __init__(self, brokers: int = 3, versions: VersionSpec | Mapping[int, VersionSpec] = DEFAULT_RELEASE,
                 latency_s: float = 0.0, sasl: Mapping[str, Any] | None = None, tls: ssl.SSLContext | None = None,
                 cluster_id: str | None = None, start: bool = True, host: str = "127.0.0.1",
                 authorizer: bool | Mapping[str, Any] | None = None,
                 delegation_tokens: bool | Mapping[str, Any] | None = None) -> None:
        if brokers < 1:
            raise ValueError("a cluster needs at least one broker")
        self.cluster_id = cluster_id or "kadmin-fake-" + uuid.uuid4().hex[:10]
        self.latency_s = float(latency_s)
        self.sasl = _sasl_config(sasl)
        self.tls = tls
        self._lock = threading.RLock()
        self._state = ClusterState()
        self._authorizer = authorizer_from(authorizer)
        self._scram = ScramStore()
        self._tokens = store_from(delegation_tokens)
        if self.sasl is not None:
            for user, password in self.sasl.users.items():
                for mechanism in (m for m in self.sasl.mechanisms if m.startswith("SCRAM-")):
                    self.set_scram_password(user, password, mechanism)
        self._faults: list[FaultRule] = []
        self._log: list[RequestLogEntry] = []
        self._log_cond = threading.Condition(self._lock)
        tables = self._tables(range(1, brokers + 1), versions)
        self._brokers: dict[int, Broker] = {n: Broker(self, n, tables[n], host) for n in sorted(tables)}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._closed = False
        if start:
            self.start()

    @staticmethod
    def _tables(nodes: range, versions: VersionSpec | Mapping[int, VersionSpec]) -> dict[int, VersionTable]:
        if isinstance(versions, str):
            return {n: resolve_table(versions) for n in nodes}
        if versions and all(isinstance(v, (tuple, list)) for v in versions.values()):
            return {n: resolve_table(versions) for n in nodes}  # type: ignore[arg-type]
        per_node: Mapping[int, VersionSpec] = versions  # type: ignore[assignment]
        unknown = set(per_node) - set(nodes)
        if unknown:
            raise ValueError(f"versions given for unknown node id(s) {sorted(unknown)}; nodes are {list(nodes)}")
        return {n: resolve_table(per_node.get(n, DEFAULT_RELEASE)) for n in nodes}

    # ------------------------------------------------------------------------------------------ lifecycle

    def start(self) -> FakeCluster:
        """Start the loop thread and every broker; returns self so ``FakeCluster(start=False).start()`` chains."""
        if self._closed:
            raise RuntimeError("this FakeCluster was closed; make a new one")
        if self._thread is not None:
            return self
        loop = asyncio.new_event_loop()
        ready = threading.Event()

        def run() -> None:
            asyncio.set_event_loop(loop)
            loop.call_soon(ready.set)
            loop.run_forever()

        self._loop = loop
        self._thread = threading.Thread(target=run, name=f"kadmin-fake-cluster-{self.cluster_id}", daemon=True)
        self._thread.start()
        ready.wait()
        for b in self._brokers.values():
            self._call(b.start())
        log.info("fake cluster %s up: %s", self.cluster_id, self.bootstrap)
        return self

    def close(self) -> None:
        """Stop every broker and the loop thread.  Idempotent."""
        if self._closed:
            return
        self._closed = True
        if self._loop is None or self._thread is None:
            return
        for b in self._brokers.values():
            if b.alive:
                self._call(b.stop())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()
        self._thread = None

    stop = close

    def __enter__(self) -> FakeCluster:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def _call(self, coro: Coroutine[Any, Any, T], timeout: float = 30.0) -> T:
        if self._loop is None:
            coro.close()
            raise RuntimeError("the cluster is not started")
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout)

    # ------------------------------------------------------------------------------------------ addresses

    @property
    def node_ids(self) -> list[int]:
        return sorted(self._brokers)

    @property
    def bootstrap(self) -> str:
        """"127.0.0.1:port,..." of every broker (alive or not), for a client's bootstrap servers setting."""
        return ",".join(f"{b.host}:{b.port}" for b in self._brokers.values())

    @property
    def addresses(self) -> dict[int, tuple[str, int]]:
        return {n: (b.host, b.port) for n, b in self._brokers.items()}

    def versions_of(self, node_id: int) -> VersionTable:
        return dict(self._broker(node_id).table)

    def set_versions(self, node_id: int, versions: VersionSpec) -> None:
        """Change a broker's version table (an "upgrade"); new requests see it at once."""
        table = resolve_table(versions)
        with self._lock:
            self._broker(node_id).table = table

    def _broker(self, node_id: int) -> Broker:
        try:
            return self._brokers[node_id]
        except KeyError:
            raise ValueError(f"no broker with node id {node_id}; nodes are {self.node_ids}") from None

    # ------------------------------------------------------------------------------------------ broker life

    def stop_broker(self, node_id: int) -> None:
        """Close the broker's listener and every connection to it; it leaves Metadata and coordination."""
        b = self._broker(node_id)
        if b.alive:
            self._call(b.stop())

    def start_broker(self, node_id: int) -> None:
        """Listen again on the same port."""
        b = self._broker(node_id)
        if not b.alive:
            self._call(b.start())

    def is_alive(self, node_id: int) -> bool:
        return self._broker(node_id).alive

    # Called by handlers with the lock held.
    def _live_brokers(self) -> list[tuple[int, str, int]]:
        return [(n, b.host, b.port) for n, b in sorted(self._brokers.items()) if b.alive]

    def _controller_id(self) -> int:
        chosen = self._state.controller
        if chosen is not None and self._brokers[chosen].alive:
            return chosen
        live = [n for n, b in sorted(self._brokers.items()) if b.alive]
        return live[0] if live else -1

    def _coordinator_locked(self, key: str, key_type: int = 0) -> int | None:
        moved = self._state.coordinator_overrides.get(key) if key_type != 1 else None
        if moved is not None and self._brokers[moved].alive:
            return moved
        nodes = sorted(self._brokers)
        # The coordinator is the leader of the key's __consumer_offsets (or __transaction_state) partition;
        # partition p is placed on nodes[p % n] and fails over to the next live node in that order.
        p = hash_partition(key, key_type)
        for i in range(len(nodes)):
            n = nodes[(p + i) % len(nodes)]
            if self._brokers[n].alive:
                return n
        return None

    # ------------------------------------------------------------------------------------------ state API

    def add_topic(self, name: str, partitions: int = 3,
                  offsets: Mapping[int, int | tuple[int, int]] | Sequence[int] | int | None = None,
                  replication_factor: int | None = None) -> None:
        """Create a topic.  ``offsets``: {partition: log_end or (log_start, log_end)}, a list of log ends,
        or one log end for all partitions."""
        with self._lock:
            self._state.add_topic(name, partitions, self.node_ids, replication_factor, offsets)

    def add_group(self, group_id: str, state: str | None = None, protocol_type: str = "consumer",
                  protocol: str = "range", members: Sequence[Member | Mapping[str, Any]] = (),
                  group_type: str = "classic", generation_id: int | None = None) -> None:
        """Create or replace a group (keeping its committed offsets).  ``state`` defaults to Stable with
        members, Empty without.  Members are :class:`Member` or dicts of its fields."""
        with self._lock:
            st = state if state is not None else ("Stable" if members else "Empty")
            self._state.add_group(group_id, st, protocol_type, protocol, members, group_type, generation_id)

    def delete_group(self, group_id: str) -> None:
        with self._lock:
            self._state.groups.pop(group_id, None)

    def commit(self, group: str, topic: str, partition: int, offset: int, metadata: str = "",
               leader_epoch: int = -1) -> None:
        """Store a committed offset, creating the group (Empty, as an admin commit would) if needed."""
        with self._lock:
            g = self._state.groups.get(group)
            if g is None:
                g = self._state.groups[group] = Group(group, state="Empty", protocol_type="consumer")
            g.offsets[(topic, partition)] = CommittedOffset(offset, leader_epoch, metadata)

    def set_log_end(self, topic: str, partition: int, offset: int) -> None:
        with self._lock:
            p = self._partition(topic, partition)
            if offset < p.log_start:
                raise ValueError(f"log end {offset} is below log start {p.log_start}")
            p.log_end = offset

    def set_log_start(self, topic: str, partition: int, offset: int) -> None:
        with self._lock:
            p = self._partition(topic, partition)
            if offset > p.log_end:
                raise ValueError(f"log start {offset} is above log end {p.log_end}")
            p.log_start = offset

    def _partition(self, topic: str, partition: int) -> Any:
        t = self._state.topics.get(topic)
        if t is None or partition not in t.partitions:
            raise ValueError(f"no partition {topic}-{partition}")
        return t.partitions[partition]

    def leader_of(self, topic: str, partition: int) -> int:
        """The partition's current leader (the elected one, else the first live in-sync replica), -1 if none."""
        with self._lock:
            p = self._partition(topic, partition)
            leader: int = p.leader_id(self._live_ids())
            return leader

    # --- leadership, log dirs and reassignments (handlers elect_leaders, log_dirs, *_reassignments)

    def _live_ids(self) -> set[int]:
        return {n for n, b in self._brokers.items() if b.alive}

    def partition(self, topic: str, partition: int) -> PartitionSnapshot:
        """Leader, epoch, replicas, in-sync replicas, ongoing reassignment and offsets of one partition."""
        with self._lock:
            snap: PartitionSnapshot = self._partition(topic, partition).snapshot(self._live_ids())
            return snap

    def move_leader(self, topic: str, partition: int, node_id: int) -> None:
        """Make a live in-sync replica the leader, as after a failover that no preferred election has undone
        (a preferred-leader election moves it back)."""
        with self._lock:
            p = self._partition(topic, partition)
            if node_id not in p.in_sync(self._live_ids()):
                raise ValueError(f"node {node_id} is not a live in-sync replica of {topic}-{partition}")
            if p.leader_id(self._live_ids()) != node_id:
                p.leader, p.leader_epoch = node_id, p.leader_epoch + 1

    def set_isr(self, topic: str, partition: int, isr: Sequence[int] | None) -> None:
        """The partition's in-sync replicas (None: every live replica).  With no live one left the partition
        has no leader until an unclean election picks an out-of-sync replica."""
        with self._lock:
            p = self._partition(topic, partition)
            if isr is not None and not set(isr) <= set(p.replicas):
                raise ValueError(f"in-sync replicas {list(isr)} are not all replicas of {topic}-{partition}")
            p.isr = None if isr is None else list(isr)

    def set_log_dirs(self, node_id: int, dirs: Sequence[str | LogDir]) -> None:
        """A broker's log directories (default: one, /tmp/kafka-logs); ``LogDir(path, offline=True)`` makes
        one answer KAFKA_STORAGE_ERROR.  Replicas live in the first unless ``place_replica`` says otherwise."""
        self._broker(node_id)
        made = [d if isinstance(d, LogDir) else LogDir(str(d)) for d in dirs]
        if not made or len({d.path for d in made}) != len(made):
            raise ValueError("give at least one log dir, each path once")
        with self._lock:
            self._state.log_dirs[node_id] = made

    def place_replica(self, topic: str, partition: int, node_id: int, log_dir: str, *,
                      future_dir: str | None = None, future_behind: int = 0) -> None:
        """Put a replica's log in ``log_dir``; with ``future_dir``, also a future log there (being moved by
        AlterReplicaLogDirs) that trails the current log by ``future_behind`` records."""
        with self._lock:
            p = self._partition(topic, partition)
            known = {d.path for d in self._state.dirs_of(node_id)}
            for d in (log_dir, future_dir):
                if d is not None and d not in known:
                    raise ValueError(f"node {node_id} has no log dir {d!r}; it has {sorted(known)}")
            if node_id not in p.replicas:
                raise ValueError(f"node {node_id} holds no replica of {topic}-{partition}")
            p.dirs[node_id] = log_dir
            if future_dir is None:
                p.future.pop(node_id, None)
            else:
                p.future[node_id] = (future_dir, int(future_behind))

    def finish_reassignments(self) -> None:
        """Every ongoing reassignment completes, as once the adding replicas have caught up."""
        with self._lock:
            live = self._live_ids()
            for t in self._state.topics.values():
                for p in t.partitions.values():
                    if p.reassigning:
                        p.finish_reassignment(live)

    @property
    def topics(self) -> dict[str, dict[int, tuple[int, int]]]:
        """{topic: {partition: (log_start, log_end)}}."""
        with self._lock:
            return {name: {i: (p.log_start, p.log_end) for i, p in t.partitions.items()}
                    for name, t in self._state.topics.items()}

    @property
    def groups(self) -> dict[str, GroupSnapshot]:
        """Immutable snapshots of every group, by id."""
        with self._lock:
            return {gid: g.snapshot() for gid, g in self._state.groups.items()}

    @property
    def quotas(self) -> dict[QuotaEntity, dict[str, float]]:
        """{((entity_type, name or None), ...): {quota key: value}}, entity parts sorted by type."""
        with self._lock:
            return {e: dict(v) for e, v in self._state.quotas.items() if v}

    @quotas.setter
    def quotas(self, value: Mapping[Any, Mapping[str, float]]) -> None:
        with self._lock:
            self._state.quotas = {quota_entity(e): {k: float(x) for k, x in v.items()}
                                  for e, v in value.items() if v}

    def set_quota(self, entity: Mapping[str, str | None], key: str, value: float | None) -> None:
        """Set (or with None remove) one quota, bypassing the broker's validation."""
        with self._lock:
            e = quota_entity(entity)
            cur = self._state.quotas.setdefault(e, {})
            if value is None:
                cur.pop(key, None)
            else:
                cur[key] = float(value)
            if not cur:
                del self._state.quotas[e]

    # --- topics and configs (issue #14)

    @property
    def controller(self) -> int:
        """The node Metadata names as controller (-1 when no broker is up)."""
        with self._lock:
            return self._controller_id()

    def move_controller(self, node_id: int | None) -> None:
        """Make ``node_id`` the controller (None: back to the first live broker).  ZooKeeper-mode presets then
        answer NOT_CONTROLLER on the old controller for CreateTopics, DeleteTopics, CreatePartitions..."""
        with self._lock:
            if node_id is not None:
                self._broker(node_id)
            self._state.controller = node_id

    def topic_id(self, topic: str) -> uuid.UUID:
        with self._lock:
            t = self._state.topics.get(topic)
            if t is None:
                raise ValueError(f"no topic {topic!r}")
            return t.topic_id

    def replicas(self, topic: str) -> dict[int, list[int]]:
        """{partition: replica list} of a topic."""
        with self._lock:
            t = self._state.topics.get(topic)
            if t is None:
                raise ValueError(f"no topic {topic!r}")
            return {i: list(p.replicas) for i, p in sorted(t.partitions.items())}

    def topic_configs(self, topic: str) -> dict[str, str]:
        """The topic's dynamic configs (what was set on it, not defaults)."""
        with self._lock:
            t = self._state.topics.get(topic)
            if t is None:
                raise ValueError(f"no topic {topic!r}")
            return dict(t.configs)

    def set_topic_config(self, topic: str, key: str, value: str | None) -> None:
        """Set (None: remove) a topic's dynamic config, bypassing validation."""
        with self._lock:
            t = self._state.topics.get(topic)
            if t is None:
                raise ValueError(f"no topic {topic!r}")
            if value is None:
                t.configs.pop(key, None)
            else:
                t.configs[key] = value

    def resource_configs(self, resource_type: int, name: str) -> dict[str, str]:
        """Dynamic configs of a non-topic resource: (4, "1") broker 1, (4, "") cluster default, (8, "1")
        broker 1's loggers, (32, group), (16, client-metrics name)."""
        with self._lock:
            return dict(self._state.configs.get((resource_type, name), {}))

    def set_resource_config(self, resource_type: int, name: str, key: str, value: str | None) -> None:
        with self._lock:
            cur = self._state.configs.setdefault((resource_type, name), {})
            if value is None:
                cur.pop(key, None)
            else:
                cur[key] = value
            if not cur:
                del self._state.configs[(resource_type, name)]

    def coordinator_of(self, group: str, key_type: int = 0) -> int | None:
        """The node FindCoordinator names for ``group`` (or a transactional id with key_type=1)."""
        with self._lock:
            return self._coordinator_locked(group, key_type)

    def move_coordinator(self, group: str, node_id: int | None) -> None:
        """Make ``node_id`` the group's coordinator (None: back to hashing).  Requests for the group to the
        old coordinator now get NOT_COORDINATOR, as after a __consumer_offsets leader change."""
        with self._lock:
            if node_id is None:
                self._state.coordinator_overrides.pop(group, None)
            else:
                self._broker(node_id)
                self._state.coordinator_overrides[group] = node_id

    def set_group_config(self, **settings: int) -> None:
        """Group coordinator settings, by Kafka's names with dots as underscores, e.g.
        ``set_group_config(group_consumer_heartbeat_interval_ms=500)`` so that KIP-848 consumers reconcile
        fast in a test.  Known: group.consumer.heartbeat.interval.ms, group.consumer.session.timeout.ms."""
        from kadmin.testing.consumer_groups import DEFAULT_CONFIG

        with self._lock:
            for key, value in settings.items():
                name = key.replace("_", ".")
                if name not in DEFAULT_CONFIG:
                    raise ValueError(f"unknown group setting {name!r}; known: {sorted(DEFAULT_CONFIG)}")
                if not isinstance(value, int) or value <= 0:
                    raise ValueError(f"{name} must be a positive int, not {value!r}")
                self._state.group_config[name] = value

    # ------------------------------------------------------------------------------------------ faults

    def _add_fault(self, rule: FaultRule) -> None:
        if rule.node_id is not None:
            self._broker(rule.node_id)
        if rule.remaining < 1:
            raise ValueError("count must be at least 1")
        with self._lock:
            self._faults.append(rule)

    def inject(self, node_id: int | None, api_key: int | str | None, error_code: int, count: int = 1) -> None:
        """Answer the next ``count`` matching requests with ``error_code`` wherever that API carries errors
        (top level, or every group/key/partition/entry).  The request is not applied.  None = any."""
        self._add_fault(FaultRule("error", node_id, _api_key(api_key), count, error_code=int(error_code)))

    def delay(self, node_id: int | None, api_key: int | str | None, seconds: float, count: int = 1) -> None:
        """Hold the next ``count`` matching requests for ``seconds`` before handling them."""
        self._add_fault(FaultRule("delay", node_id, _api_key(api_key), count, seconds=float(seconds)))

    def drop_connection(self, node_id: int | None, api_key: int | str | None, when: str = "before",
                        count: int = 1) -> None:
        """Close the connection of the next ``count`` matching requests: ``before`` handling them (nothing
        happens) or ``after`` (the change is made, the answer never sent)."""
        if when not in ("before", "after"):
            raise ValueError("when must be 'before' or 'after'")
        self._add_fault(FaultRule("drop_" + when, node_id, _api_key(api_key), count))

    def throttle(self, node_id: int | None, api_key: int | str | None, ms: int, count: int = 1) -> None:
        """Report ThrottleTimeMs=``ms`` in the next ``count`` matching responses that have the field."""
        self._add_fault(FaultRule("throttle", node_id, _api_key(api_key), count, throttle_ms=int(ms)))

    def coordinator_loading(self, group: str, count: int = 1) -> None:
        """The group's coordinator answers COORDINATOR_LOAD_IN_PROGRESS to its next ``count`` group requests."""
        if count < 1:
            raise ValueError("count must be at least 1")
        with self._lock:
            self._state.loading[group] = self._state.loading.get(group, 0) + count

    def clear_faults(self) -> None:
        with self._lock:
            self._faults.clear()
            self._state.loading.clear()

    def _take_faults(self, node_id: int, api_key: int) -> Faults:
        with self._lock:
            if not self._faults:
                return Faults()  # the usual case, on every request: nothing to match
            return take(self._faults, node_id, api_key)

    # ------------------------------------------------------------------------------------------ request log

    def _record(self, entry: RequestLogEntry) -> None:
        with self._lock:
            self._log.append(entry)
            self._log_cond.notify_all()

    @property
    def request_log(self) -> list[RequestLogEntry]:
        """Every request received so far (including refused ones), oldest first."""
        with self._lock:
            return list(self._log)

    def count(self, api_key: int | str | None = None, node: int | None = None, version: int | None = None) -> int:
        key = _api_key(api_key)
        with self._lock:
            return sum(1 for e in self._log if (key is None or e.api_key == key)
                       and (node is None or e.node_id == node) and (version is None or e.version == version))

    def clear_log(self) -> None:
        with self._lock:
            self._log.clear()

    def wait_for_requests(self, n: int, api_key: int | str | None = None, node: int | None = None,
                          timeout: float = 5.0) -> bool:
        """Block until at least ``n`` matching requests are in the log; False on timeout."""
        with self._log_cond:
            return self._log_cond.wait_for(lambda: self.count(api_key, node) >= n, timeout)

    def __repr__(self) -> str:
        return f"FakeCluster({self.cluster_id!r}, nodes={self.node_ids}, bootstrap={self.bootstrap!r})"

