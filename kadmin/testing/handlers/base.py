"""What a handler gets (a RequestContext), what it provides (an ApiHandler), the registry it joins (HANDLERS,
filled by each handler module's ``register`` call), plus small shared helpers.

Handlers are synchronous and run with the cluster lock held: they read and change shared state, build a
response object, and return.  Waiting (latency, injected delays) happens in the broker, outside the lock.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kadmin.protocol import Message
from kadmin.testing.authorizer import ANONYMOUS, all_operations
from kadmin.testing.schemas import fake_message_type
from kadmin.testing.state.base import ClusterState
from kadmin.testing.state.coordinators import Coordinators
from kadmin.testing.state.groups import Group, Groups

if TYPE_CHECKING:
    from kadmin.testing.cluster import FakeCluster

NONE = 0
UNKNOWN_SERVER_ERROR = -1
UNKNOWN_TOPIC_OR_PARTITION = 3
LEADER_NOT_AVAILABLE = 5
NOT_LEADER_OR_FOLLOWER = 6
OFFSET_METADATA_TOO_LARGE = 12
COORDINATOR_LOAD_IN_PROGRESS = 14
COORDINATOR_NOT_AVAILABLE = 15
NOT_COORDINATOR = 16
ILLEGAL_GENERATION = 22
UNKNOWN_MEMBER_ID = 25
REBALANCE_IN_PROGRESS = 27
UNSUPPORTED_SASL_MECHANISM = 33
ILLEGAL_SASL_STATE = 34
UNSUPPORTED_VERSION = 35
INVALID_REQUEST = 42
TOPIC_AUTHORIZATION_FAILED = 29
GROUP_AUTHORIZATION_FAILED = 30
CLUSTER_AUTHORIZATION_FAILED = 31
TRANSACTIONAL_ID_AUTHORIZATION_FAILED = 53
SECURITY_DISABLED = 54
SASL_AUTHENTICATION_FAILED = 58
NON_EMPTY_GROUP = 68
GROUP_ID_NOT_FOUND = 69
MISMATCHED_ENDPOINT_TYPE = 114
UNSUPPORTED_ENDPOINT_TYPE = 115

#: Kafka's default for offset.metadata.max.bytes.
OFFSET_METADATA_MAX_BYTES = 4096
#: Value Kafka sends for "authorized operations not requested".
AUTH_OPS_NOT_REQUESTED = -2147483648


@dataclass
class SaslState:
    """Per-connection SASL progress (Kafka's SaslServerAuthenticator states, simplified)."""

    mechanism: str | None = None
    handshake_version: int | None = None
    authenticated: bool = False
    principal: str | None = None
    exchange: Any = None  # mechanism-specific server state (e.g. a SCRAM exchange)
    #: Logged in with a delegation token: Kafka refuses token requests on such a channel.
    token_authenticated: bool = False
    close_after_response: bool = False
    #: Monotonic time when the SASL session ends (KIP-368 session lifetime); None: it never does.
    session_expires_at: float | None = None
    #: A KIP-368 re-authentication is under way (a SaslHandshake on an authenticated connection).
    reauthenticating: bool = False
    #: How many times this connection's session was renewed.
    reauthentications: int = 0


@dataclass
class RequestContext:
    cluster: FakeCluster
    state: ClusterState
    node_id: int
    table: dict[int, tuple[int, int]]
    client_host: str
    sasl: SaslState = field(default_factory=SaslState)
    #: The request header's client id (group members are described with it).
    client_id: str = ""

    # --- authorization (kadmin.testing.authorizer): every handler asks here, with Kafka's codes
    @property
    def principal(self) -> str:
        """``User:<SASL user>`` once authenticated, else Kafka's ``User:ANONYMOUS``."""
        return f"User:{self.sasl.principal}" if self.sasl.authenticated and self.sasl.principal else ANONYMOUS

    def authorize(self, resource_type: int, name: str, operation: int) -> bool:
        """May this connection's principal do ``operation`` on the resource?  True without an authorizer."""
        auth = self.cluster._authorizer
        if auth is None:
            return True
        return auth.authorize(self.principal, self.client_host.lstrip("/"), resource_type, name, operation)

    def authorized_operations(self, resource_type: int, name: str) -> int:
        """KIP-430's bit field of what the principal may do there (everything supported, without authorizer)."""
        auth = self.cluster._authorizer
        if auth is None:
            return all_operations(resource_type)
        return auth.authorized_operations(self.principal, self.client_host.lstrip("/"), resource_type, name)

    # --- cluster views used by several handlers
    def live_brokers(self) -> list[tuple[int, str, int]]:
        return self.cluster._live_brokers()

    def coordinator_for(self, key: str, key_type: int = 0) -> int | None:
        """Node coordinating ``key``: a moved group's node if alive, else the hash over live brokers."""
        return self.cluster._coordinator_locked(key, key_type)

    def is_coordinator(self, group_id: str) -> bool:
        return self.coordinator_for(group_id, 0) == self.node_id

    def take_loading(self, group_id: str) -> bool:
        """True (and one count used up) if the group's coordinator is still 'loading' it."""
        return self.state.area(Coordinators).take_loading(group_id)

    def group_error(self, group_id: str) -> int:
        """The coordinator checks every group-scoped API makes first: right node, done loading."""
        if not self.is_coordinator(group_id):
            return NOT_COORDINATOR
        if self.take_loading(group_id):
            return COORDINATOR_LOAD_IN_PROGRESS
        return NONE

    def group(self, group_id: str) -> Group | None:
        return self.state.area(Groups).get(group_id)

    # --- controller-bound APIs (ElectLeaders, Alter/ListPartitionReassignments)
    @property
    def zookeeper_mode(self) -> bool:
        """ZooKeeper-mode brokers advertise LeaderAndIsr (key 4); KRaft brokers (the 4.0 preset) do not."""
        return 4 in self.table

    def acts_as_controller(self) -> bool:
        """Whether this node may answer a controller-bound admin request: in ZooKeeper mode only the
        controller itself (others answer NOT_CONTROLLER); a KRaft broker forwards it to the quorum."""
        return not self.zookeeper_mode or self.cluster._controller_id() == self.node_id

    def live_ids(self) -> set[int]:
        return {n for n, _h, _p in self.live_brokers()}


#: A response message instance.  Typed Any: message classes and their struct classes are built at run time
#: from the schemas, so a static checker cannot see their fields.
Response = Any
Handle = Callable[[RequestContext, Any, int], Response]
ErrorResponse = Callable[[RequestContext, Any, int, int], Response]
Keys = Callable[[Any, int], tuple[str, ...]]


@dataclass(frozen=True)
class ApiHandler:
    """What one API key's handler file registered: how to answer, how to refuse, and what to log."""

    api_key: int
    handle: Handle
    error_response: ErrorResponse
    keys: Keys
    #: The module whose top-level code registered it (the file a reader opens for this key).
    module: str = ""
    #: Versions served, narrower than the schema's; None: every version both schemas have.
    only_versions: tuple[int, int] | None = None

    @property
    def versions(self) -> tuple[int, int]:
        """(lowest, highest) version this handler answers: what its request and response schemas both
        define, narrowed by ``only_versions``.  The broker closes the connection on any other version."""
        req, resp = fake_message_type(self.api_key, "request"), fake_message_type(self.api_key, "response")
        lo, hi = max(req.MIN_VERSION, resp.MIN_VERSION), min(req.MAX_VERSION, resp.MAX_VERSION)
        if self.only_versions is not None:
            lo, hi = max(lo, self.only_versions[0]), min(hi, self.only_versions[1])
        return lo, hi

    def serves(self, version: int) -> bool:
        lo, hi = self.versions
        return lo <= version <= hi

@dataclass(frozen=True)
class NoResponse:
    """What a handler returns when Kafka sends no answer: Produce with acks=0.  ``close`` closes the connection
    instead, which is how Kafka tells an acks=0 producer that a partition failed."""

    close: bool = False


#: The registry: API key -> its handler, filled by each handler module's ``register`` call when
#: kadmin.testing.handlers imports it (every module of the package is imported; there is no list to edit).
HANDLERS: dict[int, ApiHandler] = {}


def _registering_module() -> str:
    """The module whose top-level code is running the registration (through helpers such as
    alter_configs_common.register_alter, which register on their caller's behalf)."""
    frame = sys._getframe(2)
    while frame.f_back is not None and frame.f_code.co_name != "<module>":
        frame = frame.f_back
    return str(frame.f_globals.get("__name__", ""))


def register(api_key: int, *, handle: Handle, error_response: ErrorResponse,
             keys: Keys | None = None, versions: tuple[int, int] | None = None) -> None:
    """Make the fake serve ``api_key``: called once, at the top level of the key's own handler module.

    ``versions`` narrows what is served below the schemas' range (rarely needed: a preset advertising a
    version the handler does not serve fails tests/fake/test_fake_registry.py).  A key registered twice is a
    mistake (two files claiming one API), refused at import."""
    module = _registering_module()
    current = HANDLERS.get(api_key)
    if current is not None and current.module != module:
        raise RuntimeError(f"API key {api_key} is registered by {current.module} and again by {module}")
    HANDLERS[int(api_key)] = ApiHandler(int(api_key), handle, error_response, keys or (lambda _req, _v: ()), module,
                                   versions)


def response_class(api_key: int) -> Any:
    """The response class; typed Any because its struct classes are attributes made at run time."""
    return fake_message_type(api_key, "response")


def has_field(cls: type[Message], attr: str, version: int) -> bool:
    """Whether top-level field ``attr`` exists in ``version`` (to fill ThrottleTimeMs only where it is)."""
    for f in cls._kfields:
        if f.attr == attr:
            return version in f.spec.versions
    return False
