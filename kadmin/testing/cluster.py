"""FakeCluster: a multi-broker Kafka look-alike on 127.0.0.1 for testing admin clients over real sockets.

Why a fake and not a real broker: tests need to make brokers old, slow, wrong or dead on demand, per node
and per API, and to see exactly what a client sent.  The fake runs its own asyncio loop in a background
thread and shares nothing with the client under test except sockets, so the client is exercised exactly as
against Kafka.  Everything a test calls here is thread-safe (one lock guards all state).

This module is about brokers and topology (lifecycle, addresses, versions, faults, the request log).  The
methods that seed and inspect state come from each area of :mod:`kadmin.testing.state` (``add_topic`` from
the topics area, ``add_group`` from groups, ``set_quota`` from quotas...) and from
:mod:`kadmin.testing.security` (ACLs, SCRAM users, tokens), mixed into :class:`FakeCluster`.
"""

from __future__ import annotations

import asyncio
import logging
import ssl
import threading
import uuid
from collections.abc import Coroutine, Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Any, TypeVar

from kadmin.protocol import message_type, shipped_names
from kadmin.testing.authorizer import ScramStore
from kadmin.testing.broker import Broker
from kadmin.testing.faults import FaultRule, Faults, take
from kadmin.testing.oauth import JwksValidator, UnsecuredValidator, validator_from
from kadmin.testing.requestlog import RequestLogEntry
from kadmin.testing.sasl import MECHANISMS
from kadmin.testing.schemas import fake_only_names
from kadmin.testing.security import SecurityAdmin, authorizer_from
from kadmin.testing.state.base import ClusterState
from kadmin.testing.state.controller import ControllerAdmin
from kadmin.testing.state.coordinators import Coordinators, CoordinatorsAdmin
from kadmin.testing.state.features import FeaturesAdmin
from kadmin.testing.state.groups import GroupsAdmin
from kadmin.testing.state.log_dirs import LogDirsAdmin
from kadmin.testing.state.quorum import QuorumAdmin
from kadmin.testing.state.quotas import QuotasAdmin
from kadmin.testing.state.resource_configs import ResourceConfigsAdmin
from kadmin.testing.state.share_groups import ShareGroupsAdmin
from kadmin.testing.state.streams_groups import StreamsGroupsAdmin
from kadmin.testing.state.topics import TopicsAdmin
from kadmin.testing.state.transactions import TransactionsAdmin
from kadmin.testing.tokens import store_from
from kadmin.versions import DEFAULT_RELEASE, VersionTable, resolve_table

log = logging.getLogger(__name__)
T = TypeVar("T")

VersionSpec = str | Mapping[int, tuple[int, int]]


@dataclass(frozen=True)
class SaslConfig:
    mechanisms: tuple[str, ...]
    users: Mapping[str, str]
    #: OAUTHBEARER's token validator (kadmin.testing.oauth): Kafka's unsecured one unless a JWKS is given.
    oauth: UnsecuredValidator | JwksValidator | None = None
    #: Kafka's connections.max.reauth.ms: 0 announces no session lifetime; otherwise the lifetime is this,
    #: capped by a token's expiry, and a connection that outlives its session is closed.
    max_reauth_ms: int = 0
    #: GSSAPI: the keytab holding the brokers' service key(s) (``kafka/<host>@REALM``).
    gssapi_keytab: str | None = None


def _sasl_config(sasl: Mapping[str, Any] | None) -> SaslConfig | None:
    if sasl is None:
        return None
    mechs = sasl.get("mechanisms") or [sasl.get("mechanism", "PLAIN")]
    mechs = [str(m).upper() for m in mechs]
    for m in mechs:
        if m not in MECHANISMS:
            raise ValueError(f"unsupported SASL mechanism {m!r}; one of {MECHANISMS}")
    oauth = validator_from(sasl.get("oauthbearer")) if "OAUTHBEARER" in mechs else None
    keytab = sasl.get("gssapi_keytab")
    if "GSSAPI" in mechs and keytab is None:
        raise ValueError("SASL mechanism GSSAPI needs gssapi_keytab (the brokers' service keytab)")
    return SaslConfig(tuple(mechs), dict(sasl.get("users", {})), oauth, int(sasl.get("max_reauth_ms", 0)), keytab)


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


class FakeCluster(TopicsAdmin, LogDirsAdmin, GroupsAdmin, CoordinatorsAdmin, QuotasAdmin, ResourceConfigsAdmin,
                  ControllerAdmin, SecurityAdmin, FeaturesAdmin, QuorumAdmin, TransactionsAdmin,
                  ShareGroupsAdmin, StreamsGroupsAdmin):
    """A fake Kafka cluster of ``brokers`` nodes (ids 1..N), each on its own port.

    ``versions`` is one release name ("3.9") or table for every broker, or a dict {node_id: release or table}
    for a mixed cluster (nodes it leaves out get the default release).  ``sasl`` enables SASL, e.g.
    ``{"mechanism": "SCRAM-SHA-256", "users": {"alice": "pw"}}`` (or ``"mechanisms": [...]``; with OAUTHBEARER,
    ``"oauthbearer": {"jwks_url": ..., "issuer": ..., "audience": ...}`` or Kafka's unsecured validator by
    default; with GSSAPI, ``"gssapi_keytab"``: the brokers' service keytab; ``"max_reauth_ms"``: Kafka's
    connections.max.reauth.ms, KIP-368); ``tls`` is a
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

    def _live_ids(self) -> set[int]:
        return {n for n, b in self._brokers.items() if b.alive}

    def _check_node(self, node_id: int) -> None:
        self._broker(node_id)

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

    def clear_faults(self) -> None:
        with self._lock:
            self._faults.clear()
            self._state.area(Coordinators).loading.clear()

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

