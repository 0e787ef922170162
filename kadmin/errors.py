"""One exception hierarchy for kadmin.

Everything kadmin raises, or returns as a per-key result, is a :class:`KafkaError`.  Broker error codes map
to one subclass each (generated from the single table in :mod:`kadmin._error_codes`), so callers can catch
``kadmin.errors.NotCoordinatorError`` or test ``err.retriable`` without knowing numbers.  Client-side failures
(bad bytes, a version no node speaks, a deadline) live in the same tree so that a per-key result is always
"a value or a KafkaError", never some third thing.
"""

from __future__ import annotations

from typing import ClassVar

from kadmin._error_codes import ERROR_CODES
from kadmin._error_codes import ErrorCode as ErrorCode  # re-exported: codes by name


class KafkaError(Exception):
    """Root of every kadmin error.

    ``code`` is the Kafka error code, or ``None`` for errors raised by the client itself.  ``retriable`` says
    whether the same request may succeed if sent again (possibly to a re-looked-up node).
    """

    code: ClassVar[int | None] = None
    name: ClassVar[str] = "KAFKA_ERROR"
    retriable: ClassVar[bool] = False
    default_message: ClassVar[str] = ""

    def __init__(self, message: str | None = None) -> None:
        self.message = message if message else self.default_message
        super().__init__(self.message)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r})"

    def __eq__(self, other: object) -> bool:
        # Results are compared in tests and reports; two errors of the same kind and text are the same result.
        return type(other) is type(self) and other.message == self.message

    def __hash__(self) -> int:
        return hash((type(self), self.message))


class BrokerError(KafkaError):
    """An error code a broker sent.  ``error_for_code`` picks the subclass."""


class UnknownBrokerError(BrokerError):
    """A code this version of kadmin has no name for; ``code`` is set per instance."""

    name = "UNKNOWN_CODE"

    def __init__(self, code: int, message: str | None = None) -> None:
        super().__init__(message or f"unknown Kafka error code {code}")
        self.code = code  # type: ignore[misc]  # per instance: the code this kadmin has no name for


# --- client-side errors -------------------------------------------------------------------------------------


class ProtocolError(KafkaError):
    """Bytes that do not decode, or a message that cannot be encoded for the asked version."""

    name = "PROTOCOL_ERROR"


class SchemaError(KafkaError, ValueError):
    """A JSON message schema that is not valid in Kafka's schema format."""

    name = "SCHEMA_ERROR"


class FieldVersionError(ProtocolError, ValueError):
    """A non-default value was set on a non-ignorable field that the chosen version does not have."""

    name = "FIELD_VERSION_ERROR"


class KafkaConnectionError(KafkaError):
    """A connection failed, was closed, or timed out; requests in flight on it may be sent again."""

    name = "CONNECTION_ERROR"
    retriable = True


class KafkaTimeoutError(KafkaError):
    """The call's deadline passed before this key was answered.

    ``possibly_applied`` is True for writes (deletes, quota alterations) that were sent but not answered:
    the broker may have applied them.
    """

    name = "CLIENT_TIMEOUT"

    def __init__(self, message: str | None = None, *, possibly_applied: bool = False) -> None:
        self.possibly_applied = possibly_applied
        super().__init__(message or "the call's deadline passed before a result arrived")


class NoBrokersAvailableError(KafkaConnectionError):
    name = "NO_BROKERS_AVAILABLE"


class HostResolutionError(KafkaConnectionError):
    """A host name that does not resolve: a configuration error to fix, not a fault to wait out."""

    name = "HOST_NOT_RESOLVED"
    retriable = False


class UndecodableResponseError(KafkaConnectionError):
    """A node answered, but its answer does not decode at the version asked: the connection was closed.

    Retriable as a connection fault (another connection or node may answer), but the request *was* received
    and answered: a write that got such an answer may have been applied, and the admin driver reports it so
    at once instead of resending it until the deadline.  ``__cause__`` is the ProtocolError naming the field."""

    name = "UNDECODABLE_RESPONSE"


class SecurityMismatchError(KafkaError):
    """The client's security settings do not match the listener's: TLS to a plaintext listener, plaintext to
    a TLS listener, or no SASL where the listener requires it.  Retrying cannot help; the message says which."""

    name = "SECURITY_MISMATCH"


class ClientClosedError(KafkaError):
    name = "CLIENT_CLOSED"


class NoCommittedOffsetError(KafkaError):
    """A reset relative to the committed offset (``ResetTo.shift_by``) of a partition the group has committed
    nothing for: kadmin's own refusal for that partition, named so (the root's name is no Kafka error)."""

    name = "NO_COMMITTED_OFFSET"


class ForkedProcessError(KafkaError, RuntimeError):
    """The client was created in a parent process; sockets and loops must not be shared across fork()."""

    name = "FORKED_PROCESS"


class AuthenticationError(KafkaError):
    """SASL or TLS authentication to a broker failed (wrong password, unknown mechanism, bad certificate)."""

    name = "AUTHENTICATION_FAILED"


class AuthorizationError(KafkaError):
    """The principal may not perform the operation (the broker's *_AUTHORIZATION_FAILED codes)."""

    name = "AUTHORIZATION_FAILED"


# --- the generated per-code classes ------------------------------------------------------------------------

_BY_CODE: dict[int, type[BrokerError]] = {}


def _class_name(kafka_name: str) -> str:
    parts = kafka_name.lower().split("_")
    base = "".join(p.capitalize() for p in parts)
    return base if base.endswith("Error") else base + "Error"


def _make_classes() -> None:
    g = globals()
    for code, kname, retriable, message in ERROR_CODES:
        if code == 0:
            continue
        bases: tuple[type, ...] = (BrokerError,)
        if kname.endswith("AUTHORIZATION_FAILED"):
            bases = (BrokerError, AuthorizationError)
        elif kname in ("SASL_AUTHENTICATION_FAILED", "UNSUPPORTED_SASL_MECHANISM", "ILLEGAL_SASL_STATE"):
            bases = (BrokerError, AuthenticationError)
        cls = type(
            _class_name(kname),
            bases,
            {
                "code": code,
                "name": kname,
                "retriable": retriable,
                "default_message": message,
                "__module__": __name__,
                "__doc__": message,
            },
        )
        g[cls.__name__] = cls
        _BY_CODE[code] = cls


_make_classes()


def error_class_for_code(code: int) -> type[BrokerError] | None:
    return _BY_CODE.get(code)


def error_for_code(code: int, message: str | None = None) -> BrokerError | None:
    """Return an exception instance for a non-zero Kafka error code, or None for 0 (no error)."""
    if code == 0:
        return None
    cls = _BY_CODE.get(code)
    if cls is None:
        return UnknownBrokerError(code, message)
    return cls(message)


def is_retriable(err: BaseException) -> bool:
    return isinstance(err, KafkaError) and bool(err.retriable)


# Names used across the code base; defined by the table, re-bound here so that type checkers see them.
UnknownServerError: type[BrokerError] = _BY_CODE[-1]
UnsupportedVersionError: type[BrokerError] = _BY_CODE[35]
NotCoordinatorError: type[BrokerError] = _BY_CODE[16]
CoordinatorNotAvailableError: type[BrokerError] = _BY_CODE[15]
CoordinatorLoadInProgressError: type[BrokerError] = _BY_CODE[14]
GroupIdNotFoundError: type[BrokerError] = _BY_CODE[69]
NonEmptyGroupError: type[BrokerError] = _BY_CODE[68]
InvalidRequestError: type[BrokerError] = _BY_CODE[42]
RequestTimedOutError: type[BrokerError] = _BY_CODE[7]
SaslAuthenticationFailedError: type[BrokerError] = _BY_CODE[58]
UnsupportedSaslMechanismError: type[BrokerError] = _BY_CODE[33]
UnknownTopicOrPartitionError: type[BrokerError] = _BY_CODE[ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]
LeaderNotAvailableError: type[BrokerError] = _BY_CODE[ErrorCode.LEADER_NOT_AVAILABLE]
NotControllerError: type[BrokerError] = _BY_CODE[ErrorCode.NOT_CONTROLLER]
UnknownMemberIdError: type[BrokerError] = _BY_CODE[ErrorCode.UNKNOWN_MEMBER_ID]
GroupSubscribedToTopicError: type[BrokerError] = _BY_CODE[ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC]
