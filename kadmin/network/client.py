"""NetworkClient: connections to every node of one cluster, negotiated and authenticated, behind one API.

The admin layer thinks in node ids and request objects; this class turns those into connections, versions,
deadlines and throttling.  Design points:

* Bootstrap addresses are only used to learn the cluster.  They are not nodes (their ids are unknown), so
  every request after that goes to a node by id.  A bootstrap connection whose address turns out to be a
  node's advertised address is kept as that node's connection instead of being thrown away.
* Each node gets at most one connection; concurrent first requests to a node share one connect+negotiate
  (+SASL) task.  A closed connection is replaced on the next request, and the replacement negotiates afresh:
  the node may have been upgraded in between.
* Versions are validated against the connection's table before anything is written, so an unsupported
  version is an UnsupportedVersionError for the caller, never a broker closing the connection.
* Throttling (KIP-219): a response's ``throttle_time_ms`` holds back the next request on that node's
  connection (done in Connection, so metadata and SASL requests honour it too).
* Metadata is refreshed when it is older than ``metadata_max_age_s``, when a node cannot be reached, and when
  a caller names a node id that is not known.

No state is global and nothing binds to an event loop before the first await, so a client can live in a
private loop thread (the sync facade does that).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kadmin.config import ClientConfig
from kadmin.errors import (
    AuthenticationError,
    ClientClosedError,
    ForkedProcessError,
    KafkaConnectionError,
    KafkaError,
    KafkaTimeoutError,
    NoBrokersAvailableError,
    SecurityMismatchError,
)
from kadmin.network.connection import Connection, format_address
from kadmin.network.metadata import ClusterMetadata, Node, fetch_cluster
from kadmin.network.negotiation import (
    Negotiated,
    check_version,
    choose_version,
    negotiate,
    usable_table,
)
from kadmin.network.rebootstrap import is_rebootstrap, metadata_error
from kadmin.network.retry import Deadline, backoff_delay, retry_call
from kadmin.network.sasl import authenticate, token_cache_for
from kadmin.network.tls import build_ssl_context
from kadmin.protocol import Message
from kadmin.protocol.apis import ApiKey

logger = logging.getLogger("kadmin.network.client")


class _NodeState:
    __slots__ = ("node_id", "conn", "negotiated", "connecting", "failures", "backoff_until")

    def __init__(self, node_id: int) -> None:
        self.node_id = node_id
        self.conn: Connection | None = None
        self.negotiated: Negotiated | None = None
        self.connecting: asyncio.Task[tuple[Connection, Negotiated]] | None = None
        self.failures = 0
        self.backoff_until = 0.0

    def usable(self) -> bool:
        c = self.conn
        if c is None or c.closed or self.negotiated is None:
            return False
        now = time.monotonic()
        if c.reauth_at is None or now < c.reauth_at:
            return True
        # A session due for renewal is renewed on the connection itself (KIP-368) while it lasts; a connection
        # idle past its session's end is replaced (the broker would close it on any request).
        return c.reauthenticate is not None and c.session_ends_at is not None and now < c.session_ends_at


class NetworkClient:
    """Asyncio network layer of one admin client.  See the module docstring for the model."""

    def __init__(self, config: ClientConfig) -> None:
        self._config = config
        self._ssl = build_ssl_context(config)  # file errors surface at construction, not on first connect
        self._tokens = token_cache_for(config)  # OAUTHBEARER: one token (and refresh schedule) for every connection
        self._pid = os.getpid()
        self._metadata: ClusterMetadata | None = None
        self._states: dict[int, _NodeState] = {}
        self._refresh_task: asyncio.Task[ClusterMetadata] | None = None
        self._last_refresh_attempt = 0.0
        self._refresh_errors: dict[str, str] = {}
        self._stale = False
        self._closed = False
        self._retiring: dict[asyncio.Task[None], Connection] = {}
        #: Every (host, port, node_id) connection opened, oldest first: for diagnostics and tests.
        self.connections_opened: list[tuple[str, int, int | None]] = []
        #: KIP-1102: the next metadata round asks only the bootstrap addresses (see kadmin.network.rebootstrap).
        self._bootstrap_only = False
        #: How many times the client went back to its bootstrap addresses (diagnostics and tests).
        self.rebootstraps = 0

    @property
    def config(self) -> ClientConfig:
        return self._config

    @property
    def token_subject(self) -> str | None:
        """The subject of the OAUTHBEARER token this client logs in with (None: no token yet, or no OAUTHBEARER)."""
        return self._tokens.subject if self._tokens is not None else None

    # ----------------------------------------------------------------------------------------------- lifecycle

    async def start(self, *, deadline: Deadline | None = None) -> None:
        """Learn the cluster from the bootstrap servers (trying each, with backoff, until the deadline)."""
        self._check_usable()
        await self.refresh_metadata(deadline=deadline)

    async def close(self) -> None:
        """Close every connection; requests in flight fail, later calls raise ClientClosedError."""
        if self._closed:
            return
        self._closed = True
        tasks: list[asyncio.Task[Any]] = []
        if self._refresh_task is not None and not self._refresh_task.done():
            self._refresh_task.cancel()
            tasks.append(self._refresh_task)
        conns = []
        for st in self._states.values():
            if st.connecting is not None and not st.connecting.done():
                st.connecting.cancel()
                tasks.append(st.connecting)
            if st.conn is not None:
                conns.append(st.conn)
            st.conn = None
        for t, c in list(self._retiring.items()):
            t.cancel()
            tasks.append(t)
            conns.append(c)
        for t in tasks:
            with contextlib.suppress(BaseException):
                await t
        reason = ClientClosedError("the client was closed")
        await asyncio.gather(*(c.close(reason) for c in conns), return_exceptions=True)

    async def __aenter__(self) -> NetworkClient:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def _check_usable(self) -> None:
        if os.getpid() != self._pid:
            raise ForkedProcessError(f"this client was created in process {self._pid}; "
                                     "create a new one after fork()")
        if self._closed:
            raise ClientClosedError("the client is closed")

    def _deadline(self, deadline: Deadline | None) -> Deadline:
        return deadline if deadline is not None else Deadline(self._config.default_timeout_s)

    # ----------------------------------------------------------------------------------------------- metadata

    @property
    def nodes(self) -> dict[int, Node]:
        """Known nodes by id (empty before ``start``)."""
        return dict(self._metadata.nodes) if self._metadata else {}

    @property
    def controller_id(self) -> int | None:
        return self._metadata.controller_id if self._metadata else None

    @property
    def cluster_id(self) -> str | None:
        return self._metadata.cluster_id if self._metadata else None

    @property
    def metadata(self) -> ClusterMetadata | None:
        return self._metadata

    async def refresh_metadata(self, *, deadline: Deadline | None = None) -> ClusterMetadata:
        """Fetch nodes/controller/cluster id now.  Concurrent callers share one fetch."""
        self._check_usable()
        deadline = self._deadline(deadline)
        task = self._refresh_task
        if task is None or task.done():
            # The shared fetch gets its own budget so one impatient caller cannot cut it short for others.
            own = Deadline(max(self._config.default_timeout_s, deadline.remaining()))
            task = asyncio.get_running_loop().create_task(self._refresh(own), name="kadmin-metadata")
            task.add_done_callback(_retrieve)
            self._refresh_task = task
        try:
            return await asyncio.wait_for(asyncio.shield(task), deadline.remaining())
        except asyncio.TimeoutError:
            if self._refresh_errors:
                # Say why, not just "timed out": nothing answered, and these are the reasons.
                raise NoBrokersAvailableError(self._no_metadata(" before the deadline", self._refresh_errors)) \
                    from None
            raise KafkaTimeoutError("the deadline passed while fetching cluster metadata") from None

    async def _refresh(self, deadline: Deadline) -> ClusterMetadata:
        """Metadata from the known nodes, then the bootstrap addresses; rounds retried by ``retry_call``.

        Before the cluster has ever answered, the rounds stop after ``bootstrap_timeout_s``: a wrong address, a
        closed port or a name that does not resolve will not change within a call, so the caller hears about
        it in seconds, with each address and its cause said once."""
        causes: dict[str, str] = {}  # address -> its latest failure, said once however many rounds
        self._refresh_errors = causes
        if self._metadata is None:
            deadline = Deadline(min(deadline.remaining(), self._config.bootstrap_timeout_s))

        async def one_round() -> ClusterMetadata:
            self._last_refresh_attempt = time.monotonic()
            retriable_seen = False
            final: KafkaError | None = None
            targets = self._refresh_targets()
            known = {t for k, t in targets if k == "node"}
            unreachable = set(known)
            for kind, target in targets:
                if deadline.expired:
                    break
                if kind == "node" and self._bootstrap_only:
                    continue  # a node asked for a rebootstrap in this round
                if kind == "bootstrap" and known and unreachable == known and not self._bootstrap_only:
                    # Every known node is unreachable (KIP-1102's second trigger): back to the bootstrap
                    # addresses, names resolved again on connect, until one of them answers.
                    self._start_rebootstrap(f"every known node ({len(known)}) is unreachable")
                where = f"node {target}" if kind == "node" else format_address(*target)  # type: ignore[misc]
                try:
                    if kind == "node":
                        assert isinstance(target, int)
                        conn, neg = await self._connection(target, deadline)
                        md = await fetch_cluster(conn, neg.versions, config=self._config, deadline=deadline)
                    else:
                        assert isinstance(target, tuple)
                        md = await self._fetch_via_bootstrap(target, deadline)
                except (AuthenticationError, ClientClosedError, ForkedProcessError, SecurityMismatchError):
                    raise  # wrong credentials or security settings: no other address will accept them either
                except KafkaError as exc:
                    if kind == "node" and is_rebootstrap(exc):
                        self._start_rebootstrap(f"node {target} answered REBOOTSTRAP_REQUIRED")
                        causes[where] = str(exc)
                        continue
                    if kind == "node" and not isinstance(exc, (KafkaConnectionError, KafkaTimeoutError)):
                        unreachable.discard(target)  # it answered, with an error: it is reachable
                    # Another address may still work (a bootstrap entry may not even be Kafka), so go on.
                    if exc.retriable or isinstance(exc, KafkaTimeoutError):
                        retriable_seen = True
                    else:
                        final = exc
                    logger.debug("metadata from %s failed: %s", where, exc)
                    causes[where] = str(exc)
                    continue
                await self._apply(md)
                if kind == "bootstrap":
                    self._bootstrap_only = False
                return md
            if final is not None and not retriable_seen:
                # Every address gave a definite answer (e.g. no name resolves): waiting will not change it.
                raise type(final)(self._no_metadata("", causes))
            raise _NoMetadataYet()

        try:
            return await retry_call(one_round, deadline=deadline, config=self._config, what="cluster metadata",
                                    retry_if=lambda exc: isinstance(exc, _NoMetadataYet))
        except (_NoMetadataYet, KafkaTimeoutError):
            first = " (no address has answered yet)" if self._metadata is None else ""
            raise NoBrokersAvailableError(self._no_metadata(first, causes)) from None

    def _start_rebootstrap(self, why: str) -> None:
        """From now until a bootstrap address answers, metadata rounds ask only the bootstrap addresses."""
        if not self._bootstrap_only:
            self._bootstrap_only = True
            self.rebootstraps += 1
            logger.info("rebootstrapping (KIP-1102): %s; asking the bootstrap servers %s again", why,
                        ", ".join(format_address(h, p) for h, p in self._config.bootstrap_addresses))

    async def rebootstrap(self, why: str = "asked to", *, deadline: Deadline | None = None) -> ClusterMetadata:
        """Learn the cluster again from the bootstrap addresses only (KIP-1102), resolving their names anew, and
        replace the metadata with the first answer.  Connections to nodes that are no longer listed, or listed
        at another address, are closed then (as on any metadata change)."""
        self._check_usable()
        self._start_rebootstrap(why)
        task = self._refresh_task
        if task is not None and not task.done():
            # A round under way may be asking the known nodes: let it end, then fetch anew.
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(task), self._deadline(deadline).remaining())
            if not self._bootstrap_only:
                assert self._metadata is not None
                return self._metadata  # that round went to the bootstrap addresses and got an answer
        return await self.refresh_metadata(deadline=deadline)

    async def _check_metadata_answer(self, node_id: int, response: Any, version: int, deadline: Deadline) -> None:
        """A Metadata answer's top-level error (v13+): REBOOTSTRAP_REQUIRED makes the client rebootstrap and the
        request fail retriably (the caller asks again, on the cluster as the bootstrap servers describe it);
        any other is raised as it is, since the answer holds no brokers or topics to read."""
        err = metadata_error(response, version)
        if err is None:
            return
        if is_rebootstrap(err):
            await self.rebootstrap(f"node {node_id} answered REBOOTSTRAP_REQUIRED", deadline=deadline)
            raise KafkaConnectionError(f"node {node_id} answered Metadata v{version} with REBOOTSTRAP_REQUIRED; "
                                       f"the client learnt the cluster again from its bootstrap servers")
        raise err

    @staticmethod
    def _no_metadata(first: str, causes: Mapping[str, str]) -> str:
        tried = "; ".join(f"{where}: {cause}" for where, cause in causes.items()) or "no address was tried"
        return f"could not fetch cluster metadata from any node or bootstrap server{first}: {tried}"

    def _refresh_targets(self) -> list[tuple[str, int | tuple[str, int]]]:
        out: list[tuple[str, int | tuple[str, int]]] = []
        if self._metadata:
            out.extend(("node", n) for n in self._nodes_by_preference())
        out.extend(("bootstrap", a) for a in self._config.bootstrap_addresses)
        return out

    async def _fetch_via_bootstrap(self, address: tuple[str, int], deadline: Deadline) -> ClusterMetadata:
        conn, neg = await self._open(address[0], address[1], None, deadline)
        try:
            md = await fetch_cluster(conn, neg.versions, config=self._config, deadline=deadline)
        except KafkaConnectionError as exc:
            await conn.close()
            raise self._explain_hang_up(conn, exc) from exc
        except BaseException:
            await conn.close()
            raise
        # Keep the connection if it is really one of the nodes (same advertised address).
        for node in md.nodes.values():
            if (node.host, node.port) == (conn.host, conn.port):
                st = self._states.setdefault(node.node_id, _NodeState(node.node_id))
                if not st.usable() and (st.connecting is None or st.connecting.done()):
                    conn.node_id = node.node_id
                    st.conn, st.negotiated = conn, neg
                    return md
        await conn.close()
        return md

    def _explain_hang_up(self, conn: Connection, exc: KafkaConnectionError) -> KafkaError:
        """A listener that answered ApiVersions and then hung up on the first other request, unanswered, while
        we do not use SASL: that is what a SASL listener does to a client that skips authentication."""
        others = sum(n for (api, _v), n in conn.requests_sent.items() if api != ApiKey.API_VERSIONS)
        if self._config.uses_sasl or not conn.closed_by_peer or others != 1 or self._metadata is not None:
            # (Once the cluster has answered these same settings, a hang-up is a fault, not a mismatch.)
            return exc
        return SecurityMismatchError(
            f"{conn.label} answered ApiVersions, then closed the connection on the next request without "
            f"answering: the listener probably requires SASL authentication (set security.protocol "
            f"SASL_PLAINTEXT or SASL_SSL and a sasl.mechanism), or it is not a Kafka listener")

    async def _apply(self, md: ClusterMetadata) -> None:
        old = self._metadata
        self._metadata = md
        self._stale = False
        stale: list[Connection] = []
        for node_id, st in list(self._states.items()):
            node = md.nodes.get(node_id)
            conn = st.conn
            if node is None or (conn is not None and (conn.host, conn.port) != (node.host, node.port)):
                # The node left, or moved: its connection points at the wrong place now.
                if conn is not None:
                    stale.append(conn)
                st.conn, st.negotiated = None, None
                if node is None:
                    del self._states[node_id]
        for node_id in md.nodes:
            self._states.setdefault(node_id, _NodeState(node_id))
        if old is None or dict(old.nodes) != dict(md.nodes) or old.controller_id != md.controller_id:
            logger.debug("cluster %s: nodes %s, controller %s (%s)", md.cluster_id,
                         {n.node_id: n.address for n in md.nodes.values()}, md.controller_id, md.source)
        for conn in stale:
            await conn.close(KafkaConnectionError(f"{conn.label} is no longer at that address in the metadata"))

    async def _maybe_refresh(self, deadline: Deadline) -> None:
        if self._metadata is None:
            await self.refresh_metadata(deadline=deadline)
            return
        too_old = self._metadata.age_s > self._config.metadata_max_age_s
        recently = time.monotonic() - self._last_refresh_attempt < self._config.retry_backoff_s
        if (too_old or self._stale) and not recently:
            try:
                await self.refresh_metadata(deadline=Deadline(deadline.cap(self._config.request_timeout_s)))
            except (KafkaConnectionError, KafkaTimeoutError) as exc:
                # Old metadata is still the best guess; the request itself will tell if it is wrong.
                logger.debug("metadata refresh failed, going on with metadata from %.0fs ago: %s",
                             self._metadata.age_s, exc)

    # ----------------------------------------------------------------------------------------------- connections

    async def _open(self, host: str, port: int, node_id: int | None,
                    deadline: Deadline) -> tuple[Connection, Negotiated]:
        """Connect, negotiate, authenticate: a connection ready for requests."""
        cfg = self._config
        current: list[Connection] = []

        async def connect() -> Connection:
            conn = await Connection.open(host, port, config=cfg, ssl_context=self._ssl, node_id=node_id,
                                         timeout_s=deadline.cap(cfg.connect_timeout_s))
            self.connections_opened.append((host, port, node_id))
            current.append(conn)
            return conn

        conn = await connect()
        try:
            conn, neg = await negotiate(conn, config=cfg, deadline=deadline, reconnect=connect)
            if cfg.uses_sasl:
                await authenticate(conn, config=cfg, versions=neg.versions, deadline=deadline, tokens=self._tokens)
        except BaseException:
            for c in current:
                await c.close()
            raise
        return conn, neg

    async def _connection(self, node_id: int, deadline: Deadline) -> tuple[Connection, Negotiated]:
        st = self._states.get(node_id)
        if st is None:
            raise KafkaConnectionError(f"node {node_id} is not in the cluster metadata")
        if st.usable():
            assert st.conn is not None and st.negotiated is not None
            return st.conn, st.negotiated
        task = st.connecting
        if task is None or task.done():
            if st.conn is not None:
                old, st.conn, st.negotiated = st.conn, None, None
                if not old.closed:
                    self._retire(old)
            task = asyncio.get_running_loop().create_task(self._connect_node(st), name=f"kadmin-connect-{node_id}")
            task.add_done_callback(_retrieve)
            st.connecting = task
        try:
            return await asyncio.wait_for(asyncio.shield(task), deadline.remaining())
        except asyncio.TimeoutError:
            raise KafkaTimeoutError(f"the deadline passed while connecting to node {node_id}") from None

    def _retire(self, conn: Connection) -> None:
        """Close a connection that is being replaced (SASL session expiring) once its requests are answered.

        Closing at once would fail requests that are about to be answered on it; the broker still serves the
        old session until its lifetime ends, which is later than our 85% renewal point.
        """
        async def drain_then_close() -> None:
            until = time.monotonic() + self._config.request_timeout_s
            while conn.in_flight and time.monotonic() < until and not conn.closed:
                await asyncio.sleep(0.02)
            await conn.close(KafkaConnectionError(f"replaced the connection to {conn.label}"))

        task = asyncio.get_running_loop().create_task(drain_then_close(), name=f"kadmin-retire-{conn.label}")
        self._retiring[task] = conn
        task.add_done_callback(lambda t: self._retiring.pop(t, None))

    async def _connect_node(self, st: _NodeState) -> tuple[Connection, Negotiated]:
        node = self._metadata.nodes.get(st.node_id) if self._metadata else None
        if node is None:
            raise KafkaConnectionError(f"node {st.node_id} is not in the cluster metadata")
        cfg = self._config
        # Shared by every waiter, so bounded by the config rather than by any one caller's deadline.
        own = Deadline(cfg.connect_timeout_s + 2 * cfg.request_timeout_s)
        try:
            conn, neg = await self._open(node.host, node.port, node.node_id, own)
        except KafkaError as exc:
            st.failures += 1
            st.backoff_until = time.monotonic() + backoff_delay(st.failures, cfg.retry_backoff_s,
                                                                cfg.retry_backoff_max_s)
            if isinstance(exc, KafkaConnectionError):
                self._stale = True  # the node may be gone: let the next call look again
            raise
        if self._closed:
            await conn.close()
            raise ClientClosedError("the client was closed while connecting")
        st.failures = 0
        st.backoff_until = 0.0
        st.conn, st.negotiated = conn, neg
        return conn, neg

    def connection(self, node_id: int) -> Connection | None:
        """The node's current connection, if any (for diagnostics and tests; do not send on it directly)."""
        st = self._states.get(node_id)
        return st.conn if st is not None else None

    def negotiation(self, node_id: int) -> Negotiated | None:
        """What the node's current connection negotiated (advertised table, ApiVersions attempts)."""
        st = self._states.get(node_id)
        return st.negotiated if st is not None and st.usable() else None

    async def _node_connection(self, node_id: int, deadline: Deadline) -> tuple[Connection, Negotiated]:
        self._check_usable()
        await self._maybe_refresh(deadline)
        if self._metadata is None or node_id not in self._metadata.nodes:
            await self.refresh_metadata(deadline=deadline)
        if self._metadata is None or node_id not in self._metadata.nodes:
            known = sorted(self._metadata.nodes) if self._metadata else []
            raise KafkaConnectionError(f"node {node_id} is not in the cluster metadata (known nodes: {known})")
        return await self._connection(node_id, deadline)

    # ----------------------------------------------------------------------------------------------- versions

    async def api_versions(self, node_id: int, *, deadline: Deadline | None = None) -> dict[int, tuple[int, int]]:
        """The {api_key: (min, max)} table the node advertised on its current connection."""
        _conn, neg = await self._node_connection(node_id, self._deadline(deadline))
        return dict(neg.versions)

    async def usable_versions(self, node_id: int, *,
                              deadline: Deadline | None = None) -> dict[int, tuple[int, int]]:
        """The node's table intersected with kadmin's schemas and the user's pins (what will really be used)."""
        _conn, neg = await self._node_connection(node_id, self._deadline(deadline))
        return usable_table(neg.versions, self._config)

    async def negotiated_version(self, node_id: int, api_key: int, *, deadline: Deadline | None = None) -> int:
        """Highest version of ``api_key`` usable with the node; UnsupportedVersionError if none (nothing sent)."""
        conn, neg = await self._node_connection(node_id, self._deadline(deadline))
        return choose_version(api_key, neg.versions, self._config, node=conn.label)

    # ----------------------------------------------------------------------------------------------- requests

    def ready(self, node_id: int) -> tuple[Connection, Negotiated] | None:
        """The node's connection and its negotiation when a request can be written on it now, with nothing to
        await first (metadata fresh, node known, connected, negotiated, session valid); None otherwise, and
        then :meth:`send` does what is missing.  The lean path of single-node calls (issue #28)."""
        md = self._metadata
        if md is None or self._closed or self._stale or node_id not in md.nodes \
                or md.age_s > self._config.metadata_max_age_s or os.getpid() != self._pid:
            return None
        st = self._states.get(node_id)
        if st is None or not st.usable():
            return None
        assert st.conn is not None and st.negotiated is not None
        return st.conn, st.negotiated

    async def send_on(self, conn: Connection, node_id: int, request: Message, version: int, *,
                      deadline: Deadline) -> Any:
        """:meth:`send` on the connection :meth:`ready` gave for ``node_id``, at a version chosen from its
        negotiation (so nothing is checked again)."""
        response = await conn.request(request, version, deadline=deadline)
        if type(request).API_KEY == ApiKey.METADATA:
            await self._check_metadata_answer(node_id, response, version, deadline)
        return response

    async def send(self, node_id: int, request: Message, version: int, *, deadline: Deadline) -> Any:
        """Send ``request`` at ``version`` to a node and return the decoded response.

        Raises UnsupportedVersionError, before writing anything, if the version is outside what the node's
        current connection advertised (intersected with kadmin's range and the pins).  Connection failures are
        retriable KafkaConnectionErrors; the next call reconnects.
        """
        conn = await self._ready_for(node_id, request, version, deadline)
        response = await conn.request(request, version, deadline=deadline)
        if type(request).API_KEY == ApiKey.METADATA:
            await self._check_metadata_answer(node_id, response, version, deadline)
        return response

    async def send_many(self, node_id: int, requests: Sequence[Message], version: int, *, deadline: Deadline,
                        each: Callable[[int, Any, KafkaError | None], None]) -> None:
        """``send`` for many requests of one API to one node, pipelined: ``each(i, response, error)`` per request.

        What ``send`` raises before anything is written (UnsupportedVersionError, no connection, the deadline)
        is raised here for the whole batch; what happens to one request (its answer, or its own error) goes
        to ``each``, as each answer arrives.  Cheaper than one ``send`` per request when there are thousands
        (single-key FindCoordinator on brokers without KIP-699): one connection lookup and version check, and
        no task or timer per request.
        """
        if requests:
            conn = await self._ready_for(node_id, requests[0], version, deadline)
            await conn.request_many(requests, version, deadline=deadline, each=each)

    async def _ready_for(self, node_id: int, request: Message, version: int,
                         deadline: Deadline) -> Connection:
        """The node's connection, once ``version`` of the request's API is known to be usable on it."""
        api_key = type(request).API_KEY
        if api_key is None:
            raise TypeError(f"{type(request).__name__} is not a request message")
        conn, neg = await self._node_connection(node_id, deadline)
        check_version(api_key, version, neg.versions, self._config, node=conn.label)
        return conn

    def least_loaded_node(self) -> int:
        """A node to send an any-node request to: connected and least busy first, recently failed last."""
        md = self._metadata
        if md is not None and len(md.nodes) == 1:
            return next(iter(md.nodes))  # (the only node: nothing to rank)
        order = self._nodes_by_preference()
        if not order:
            raise NoBrokersAvailableError("no nodes are known yet (call start() first)")
        return order[0]

    def _nodes_by_preference(self) -> list[int]:
        if self._metadata is None:
            return []
        now = time.monotonic()

        def score(node_id: int) -> tuple[int, int, float]:
            st = self._states.get(node_id)
            if st is None:
                return (1, 0, random.random())
            if st.usable():
                assert st.conn is not None
                return (0, st.conn.in_flight, random.random())
            return (2 if st.backoff_until > now else 1, st.failures, random.random())

        return sorted(self._metadata.nodes, key=score)

    def __repr__(self) -> str:
        n = len(self._metadata.nodes) if self._metadata else 0
        state = "closed" if self._closed else f"{n} node(s) known"
        return f"<NetworkClient {self._config.client_id!r} {state}>"


class _NoMetadataYet(Exception):
    """A metadata round in which no address answered: what makes ``retry_call`` back off and try again."""


def _retrieve(task: asyncio.Task[Any]) -> None:
    # Shared tasks may end with nobody awaiting them (every caller timed out); read the exception so asyncio
    # does not log "exception was never retrieved" for an error that callers already got.
    if not task.cancelled():
        task.exception()


__all__ = ["NetworkClient", "Node"]
