"""The broker side of SASL (PLAIN, SCRAM-SHA-256/512) and a small Kafka-speaking test server around it.

Neither Tansu nor librdkafka's mock speaks SASL or TLS, so the network layer's security paths are tested
against this server.  Its SCRAM side is written from RFC 5802 independently of kadmin's client (its own Hi()
loop instead of hashlib.pbkdf2_hmac, its own message parsing), and is itself pinned by the RFCs' test
vectors, so a shared misunderstanding cannot make both sides agree on something wrong.

The server (``FakeBroker``) answers ApiVersions, SaslHandshake, SaslAuthenticate, Metadata and
DescribeCluster, with switches for the misbehaviours the client must survive (closing on ApiVersions v3+,
INVALID_REQUEST, throttling).  Like a real SASL listener it closes the connection when any other request
arrives before authentication.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import hmac
import os
import ssl
import struct
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kadmin.protocol import message_type
from kadmin.protocol.headers import decode_request_header, response_header_version

# --------------------------------------------------------------------------------------------- SCRAM server


def hi(hash_name: str, password: bytes, salt: bytes, iterations: int) -> bytes:
    """RFC 5802 Hi(): PBKDF2 with HMAC, one output block, written out as the RFC states it."""
    u = hmac.new(password, salt + b"\x00\x00\x00\x01", hash_name).digest()
    out = bytearray(u)
    for _ in range(iterations - 1):
        u = hmac.new(password, u, hash_name).digest()
        for i, b in enumerate(u):
            out[i] ^= b
    return bytes(out)


@dataclass(frozen=True)
class ScramCredential:
    salt: bytes
    iterations: int
    stored_key: bytes
    server_key: bytes

    @classmethod
    def make(cls, hash_name: str, password: str, salt: bytes | None = None,
             iterations: int = 4096) -> ScramCredential:
        salt = salt if salt is not None else os.urandom(16)
        salted = hi(hash_name, password.encode("utf-8"), salt, iterations)
        client_key = hmac.new(salted, b"Client Key", hash_name).digest()
        return cls(salt, iterations, hashlib.new(hash_name, client_key).digest(),
                   hmac.new(salted, b"Server Key", hash_name).digest())


class ScramServer:
    """One server-side SCRAM exchange.  ``step(client_message)`` returns (reply, done, error)."""

    def __init__(self, hash_name: str, credentials: Mapping[str, ScramCredential], *,
                 server_nonce: str | None = None) -> None:
        self.hash_name = hash_name
        self.credentials = credentials
        self.server_nonce = server_nonce or base64.b64encode(os.urandom(18)).decode()
        self.state = "first"
        self.username: str | None = None
        self._client_first_bare = ""
        self._server_first = ""
        self._nonce = ""
        self._cred: ScramCredential | None = None

    @staticmethod
    def _fields(text: str) -> dict[str, str]:
        return {p[0]: p[2:] for p in text.split(",") if len(p) >= 2 and p[1] == "="}

    def step(self, message: bytes) -> tuple[bytes, bool, str | None]:
        text = message.decode("utf-8")
        if self.state == "first":
            if not text.startswith("n,"):
                return b"e=channel-bindings-not-supported", True, "bad gs2 header"
            # gs2 header is "n,[a=authzid]," ; the bare message follows the second comma.
            bare = text.split(",", 2)[2]
            f = self._fields(bare)
            user = f.get("n", "").replace("=2C", ",").replace("=3D", "=")
            self.username = user
            cred = self.credentials.get(user)
            if cred is None:
                self.state = "done"
                return b"e=unknown-user", True, "unknown user"
            self._cred = cred
            self._client_first_bare = bare
            self._nonce = f["r"] + self.server_nonce
            self._server_first = (f"r={self._nonce},s={base64.b64encode(cred.salt).decode()},"
                                  f"i={cred.iterations}")
            self.state = "final"
            return self._server_first.encode(), False, None
        if self.state == "final":
            assert self._cred is not None
            self.state = "done"
            without_proof, _, proof_part = text.rpartition(",p=")
            f = self._fields(without_proof)
            if f.get("r") != self._nonce or f.get("c") != "biws":
                return b"e=other-error", True, "nonce or channel binding mismatch"
            auth = f"{self._client_first_bare},{self._server_first},{without_proof}".encode()
            signature = hmac.new(self._cred.stored_key, auth, self.hash_name).digest()
            proof = base64.b64decode(proof_part)
            client_key = bytes(a ^ b for a, b in zip(proof, signature, strict=False))
            if not hmac.compare_digest(hashlib.new(self.hash_name, client_key).digest(), self._cred.stored_key):
                return b"e=invalid-proof", True, "invalid proof"
            server_sig = hmac.new(self._cred.server_key, auth, self.hash_name).digest()
            return b"v=" + base64.b64encode(server_sig), True, None
        return b"e=other-error", True, "exchange already finished"


def check_plain(message: bytes, users: Mapping[str, str]) -> str | None:
    """The authenticated user for a PLAIN message, or None."""
    parts = message.split(b"\x00")
    if len(parts) != 3:
        return None
    _authzid, user, password = (p.decode("utf-8", "replace") for p in parts)
    return user if users.get(user) == password else None


# --------------------------------------------------------------------------------------------- fake broker

DEFAULT_VERSIONS: dict[int, tuple[int, int]] = {
    3: (0, 12),   # Metadata
    17: (0, 1),   # SaslHandshake
    18: (0, 4),   # ApiVersions
    36: (0, 2),   # SaslAuthenticate
    60: (0, 1),   # DescribeCluster
}
_HASH = {"SCRAM-SHA-256": "sha256", "SCRAM-SHA-512": "sha512"}


@dataclass
class FakeBroker:
    """A one-node Kafka-protocol server on 127.0.0.1 for network-layer tests.

    ``users``: username -> password, served for every mechanism in ``mechanisms`` when ``sasl`` is True.
    ``api_versions_mode``: "normal", "close_v3" (hang up on ApiVersions v3+), "invalid_v3" (INVALID_REQUEST
    at v3+), "unsupported_above:N" (UNSUPPORTED_VERSION in v0 layout above vN), "always_unsupported:N"
    (UNSUPPORTED_VERSION with "max N" at every version: a broken peer).
    """

    node_id: int = 7
    versions: dict[int, tuple[int, int]] = field(default_factory=lambda: dict(DEFAULT_VERSIONS))
    ssl_context: ssl.SSLContext | None = None
    sasl: bool = False
    mechanisms: tuple[str, ...] = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")
    users: dict[str, str] = field(default_factory=dict)
    api_versions_mode: str = "normal"
    throttle_ms: int = 0
    session_lifetime_ms: int = 0
    cluster_id: str = "fake-cluster"
    advertised_host: str = "127.0.0.1"
    host: str = "127.0.0.1"
    #: (api_key, version, monotonic receive time) of every request, across connections.
    received: list[tuple[int, int, float]] = field(default_factory=list)
    connections: int = 0
    #: (client_software_name, client_software_version) from every ApiVersions v3+ request.
    client_software: list[tuple[str, str]] = field(default_factory=list)
    auth_failures: list[str] = field(default_factory=list)
    port: int = 0
    _server: asyncio.base_events.Server | None = None
    _scram_creds: dict[str, dict[str, ScramCredential]] = field(default_factory=dict)
    _tasks: set[asyncio.Task[Any]] = field(default_factory=set)

    async def __aenter__(self) -> FakeBroker:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @property
    def bootstrap(self) -> str:
        return f"{self.host}:{self.port}"

    async def start(self) -> None:
        for mech, h in _HASH.items():
            self._scram_creds[mech] = {u: ScramCredential.make(h, p) for u, p in self.users.items()}
        self._server = await asyncio.start_server(self._serve, self.host, 0, ssl=self.ssl_context)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
        for t in list(self._tasks):
            t.cancel()
        for t in list(self._tasks):
            with contextlib.suppress(BaseException):
                await t
        if self._server is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 2)

    def received_keys(self, api_key: int) -> list[int]:
        return [v for k, v, _t in self.received if k == api_key]

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        self.connections += 1
        state: dict[str, Any] = {"authenticated": not self.sasl, "mechanism": None, "scram": None}
        try:
            while True:
                head = await reader.readexactly(4)
                (size,) = struct.unpack(">i", head)
                frame = await reader.readexactly(size)
                api_key, version, corr, _client_id, body_at = decode_request_header(frame)
                self.received.append((api_key, version, time.monotonic()))
                reply = self._handle(api_key, version, frame[body_at:], state)
                if reply is None:
                    return  # close the connection, as a broker does on a request it will not serve
                if isinstance(reply, bytes):
                    out = struct.pack(">i", corr) + reply
                else:
                    hv = response_header_version(api_key, version)
                    out = struct.pack(">i", corr) + (b"\x00" if hv == 1 else b"") + reply.encode(version)
                writer.write(struct.pack(">i", len(out)) + out)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, ssl.SSLError, OSError):
            return
        finally:
            self._tasks.discard(task)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    def _handle(self, api_key: int, version: int, body: bytes, state: dict[str, Any]) -> Any:
        if api_key == 18:
            if version >= 3 and version <= message_type(18, "request").MAX_VERSION:
                req = message_type(18, "request").decode(body, version)
                self.client_software.append((req.client_software_name, req.client_software_version))
            return self._api_versions(version)
        if api_key not in self.versions or not self.versions[api_key][0] <= version <= self.versions[api_key][1]:
            return None
        if api_key == 17:
            req = message_type(17, "request").decode(body, version)
            resp_cls = message_type(17, "response")
            enabled = list(self.mechanisms) if self.sasl else []
            if req.mechanism not in enabled:
                return resp_cls(error_code=33, mechanisms=enabled)
            state["mechanism"] = req.mechanism
            if req.mechanism in _HASH:
                state["scram"] = ScramServer(_HASH[req.mechanism], self._scram_creds[req.mechanism])
            return resp_cls(error_code=0, mechanisms=enabled)
        if api_key == 36:
            return self._sasl_authenticate(version, body, state)
        if not state["authenticated"]:
            return None
        if api_key == 3:
            resp = message_type(3, "response")(
                throttle_time_ms=self.throttle_ms,
                brokers=[message_type(3, "response").MetadataResponseBroker(
                    node_id=self.node_id, host=self.advertised_host, port=self.port, rack="r1")],
                cluster_id=self.cluster_id, controller_id=self.node_id, topics=[])
            return resp
        if api_key == 60:
            cls = message_type(60, "response")
            return cls(throttle_time_ms=self.throttle_ms, error_code=0, cluster_id=self.cluster_id,
                       controller_id=self.node_id,
                       brokers=[cls.DescribeClusterBroker(broker_id=self.node_id, host=self.advertised_host,
                                                          port=self.port, rack="r1")])
        return None

    def _api_versions(self, version: int) -> Any:
        mode = self.api_versions_mode
        cls = message_type(18, "response")
        entries = [cls.ApiVersion(api_key=k, min_version=lo, max_version=hi)
                   for k, (lo, hi) in sorted(self.versions.items())]
        if version >= 3 and mode == "close_v3":
            return None
        if version >= 3 and mode == "invalid_v3":
            return cls(error_code=42, api_keys=[]).encode(0)  # raw bytes: error bodies use v0 layout
        if mode.startswith("always_unsupported:"):  # a broken peer: refuses every version, even its own
            return cls(error_code=35, api_keys=[cls.ApiVersion(api_key=18, min_version=0,
                                                               max_version=int(mode.split(":")[1]))]).encode(0)
        if mode.startswith("unsupported_above:") and version > int(mode.split(":")[1]):
            top = int(mode.split(":")[1])
            return cls(error_code=35, api_keys=[cls.ApiVersion(api_key=18, min_version=0, max_version=top)]
                       ).encode(0)
        if version > self.versions[18][1]:
            return cls(error_code=35, api_keys=[cls.ApiVersion(api_key=18, min_version=0,
                                                               max_version=self.versions[18][1])]).encode(0)
        return cls(error_code=0, api_keys=entries, throttle_time_ms=0)

    def _sasl_authenticate(self, version: int, body: bytes, state: dict[str, Any]) -> Any:
        req = message_type(36, "request").decode(body, version)
        cls = message_type(36, "response")
        mech = state["mechanism"]
        token = bytes(req.auth_bytes)
        if mech is None:
            return cls(error_code=34, error_message="SaslAuthenticate before SaslHandshake", auth_bytes=b"")
        if mech == "PLAIN":
            user = check_plain(token, self.users)
            if user is None:
                self.auth_failures.append("PLAIN")
                return cls(error_code=58, error_message="Authentication failed: Invalid username or password",
                           auth_bytes=b"")
            state["authenticated"] = True
            return cls(error_code=0, error_message=None, auth_bytes=b"",
                       session_lifetime_ms=self.session_lifetime_ms)
        scram: ScramServer = state["scram"]
        reply, done, error = scram.step(token)
        if error is not None:
            self.auth_failures.append(error)
            return cls(error_code=58, error_message=f"Authentication failed during authentication due to "
                       f"invalid credentials with SASL mechanism {mech}", auth_bytes=b"")
        if done:
            state["authenticated"] = True
            return cls(error_code=0, error_message=None, auth_bytes=reply,
                       session_lifetime_ms=self.session_lifetime_ms)
        return cls(error_code=0, error_message=None, auth_bytes=reply)
