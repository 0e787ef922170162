"""Per-connection API version negotiation (KIP-511 ApiVersions) and version choice.

Why on every connection: a real Kafka broker closes the connection when it receives a request at a version it
does not speak, and during a rolling upgrade the same node id can come back speaking different versions.  So
each new connection first asks "what do you speak?" and every request afterwards is sent at the highest version
both sides speak (further narrowed by the user's pins), or not sent at all.

ApiVersions itself is the chicken-and-egg case.  We open with the newest version we send (v3+ also tells the
broker our software name/version).  A broker that does not know that version answers UNSUPPORTED_VERSION with
a body that is meant to be v0 layout and to list its own ApiVersions range; we retry at the lower of "one
below what we sent" and that range's maximum.  Peers are not uniform about that error body (librdkafka's mock
cluster sends its own layout), so it is parsed leniently, and when nothing can be read we drop to v0, which
every broker answers.  A peer that simply closes the connection at v3+ gets a fresh connection and v0.  The
number of attempts is bounded, so a confused peer can never make us loop.
"""

from __future__ import annotations

import logging
import re
import struct
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field

from kadmin._version import __version__
from kadmin.config import ClientConfig
from kadmin.errors import (
    BrokerError,
    ErrorCode,
    KafkaConnectionError,
    KafkaError,
    ProtocolError,
    UnsupportedVersionError,
    error_for_code,
)
from kadmin.network.connection import Connection, decode_response
from kadmin.network.retry import Deadline
from kadmin.protocol import api_name, message_type
from kadmin.protocol.apis import ApiKey
from kadmin.protocol.client_versions import client_range
from kadmin.protocol.headers import response_body_offset

logger = logging.getLogger("kadmin.network.negotiation")

API_VERSIONS = ApiKey.API_VERSIONS
UNSUPPORTED_VERSION = ErrorCode.UNSUPPORTED_VERSION
INVALID_REQUEST = ErrorCode.INVALID_REQUEST
CLIENT_SOFTWARE_NAME = "kadmin"
#: A peer gets at most this many ApiVersions requests per connection attempt chain.
MAX_ATTEMPTS = 4

VersionTable = Mapping[int, tuple[int, int]]

_ALLOWED = re.compile(r"[^a-zA-Z0-9._-]")


def software_field(text: str) -> str:
    """Make ``text`` acceptable to brokers as client_software_name/version.

    Kafka rejects the whole ApiVersions request (INVALID_REQUEST) unless the value matches
    ``[a-zA-Z0-9](?:[a-zA-Z0-9\\-.]*[a-zA-Z0-9])?``; a local version such as ``0.1.0+dirty`` would otherwise
    cost a round trip and a fallback to v0 on every connection.
    """
    cleaned = _ALLOWED.sub("-", text)
    cleaned = re.sub(r"^[^a-zA-Z0-9]+|[^a-zA-Z0-9]+$", "", cleaned)
    return cleaned or "unknown"


CLIENT_SOFTWARE_VERSION = software_field(__version__)


def our_range(api_key: int) -> tuple[int, int] | None:
    """Versions kadmin's client sends of an API (schemas' range, capped where kadmin does not handle a newer
    version yet: kadmin.protocol.client_versions); None if not shipped."""
    return client_range(api_key)


def usable_range(api_key: int, advertised: VersionTable, config: ClientConfig) -> tuple[int, int] | None:
    """Intersection of ours, the node's and the user's pins for one API; None when empty."""
    ours = our_range(api_key)
    theirs = advertised.get(api_key)
    if ours is None or theirs is None:
        return None
    pin_lo, pin_hi = config.pinned_range(api_key)
    lo = max(ours[0], theirs[0], pin_lo)
    hi = min(ours[1], theirs[1], pin_hi)
    return (lo, hi) if lo <= hi else None


def usable_table(advertised: VersionTable, config: ClientConfig) -> dict[int, tuple[int, int]]:
    """Every API both sides (and the pins) allow, with its usable range: what ``api_versions`` reports."""
    out: dict[int, tuple[int, int]] = {}
    for key in advertised:
        r = usable_range(key, advertised, config)
        if r is not None:
            out[key] = r
    return dict(sorted(out.items()))


def unsupported_version_error(api_key: int, advertised: VersionTable, config: ClientConfig, node: str,
                              version: int | None = None) -> BrokerError:
    """The error for "no version fits", naming the API, the node, both ranges and any pins."""
    name = f"{api_name(api_key)} (API key {api_key})"
    ours = our_range(api_key)
    theirs = advertised.get(api_key)
    ours_s = f"v{ours[0]}-v{ours[1]}" if ours else "none (kadmin ships no schema for it)"
    theirs_s = f"v{theirs[0]}-v{theirs[1]}" if theirs else "none (it does not support this API)"
    pin_lo, pin_hi = config.pinned_range(api_key)
    pins = ""
    if (pin_lo, pin_hi) != (0, 32767):
        pins = f"; pinned to v{pin_lo}-v{pin_hi} by min_versions/max_versions"
    asked = f"v{version} of " if version is not None else ""
    return UnsupportedVersionError(
        f"cannot send {asked}{name} to {node}: the node supports {theirs_s}, kadmin supports {ours_s}{pins}")


def choose_version(api_key: int, advertised: VersionTable, config: ClientConfig, *, node: str) -> int:
    """Highest usable version, or UnsupportedVersionError (raised before anything is sent)."""
    r = usable_range(api_key, advertised, config)
    if r is None:
        raise unsupported_version_error(api_key, advertised, config, node)
    return r[1]


def check_version(api_key: int, version: int, advertised: VersionTable, config: ClientConfig, *,
                  node: str) -> None:
    """Raise UnsupportedVersionError unless ``version`` is usable with this node right now."""
    r = usable_range(api_key, advertised, config)
    if r is None or not r[0] <= version <= r[1]:
        raise unsupported_version_error(api_key, advertised, config, node, version)


@dataclass(frozen=True)
class Negotiated:
    """What one connection's negotiation found.

    ``attempts`` lists the ApiVersions versions sent, in order (e.g. ``(4, 2)`` against a peer whose maximum
    is 2): the evidence that the fallback path ran.
    """

    versions: Mapping[int, tuple[int, int]]
    attempts: tuple[int, ...]
    reconnects: int = 0
    finalized_features: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    #: usable_range per API for one client's config (the table and the pins never change): see ``usable``.
    _usable: dict[int, tuple[int, int] | None] = field(default_factory=dict, compare=False, repr=False)
    _usable_config: list[ClientConfig] = field(default_factory=list, compare=False, repr=False)

    def usable(self, api_key: int, config: ClientConfig) -> tuple[int, int] | None:
        """:func:`usable_range` for this table, worked out once per API (the lean path asks on every call)."""
        if not self._usable_config or self._usable_config[0] is not config:
            self._usable.clear()
            self._usable_config[:] = [config]
        cache = self._usable
        if api_key in cache:
            return cache[api_key]
        got = cache[api_key] = usable_range(api_key, self.versions, config)
        return got


def _advertised_api_versions_max(body: bytes) -> int | None:
    """Key 18's max version from an UNSUPPORTED_VERSION ApiVersions body, trying the layouts seen in the wild.

    Kafka sends v0 layout; a peer might use the layout of the version we sent (compact arrays); librdkafka's
    mock uses a one-byte entry count with v0-style entries.  The first layout that parses and lists key 18 wins.
    """
    def v0() -> dict[int, int]:
        (n,) = struct.unpack_from(">i", body, 2)
        if n < 0 or 6 + 6 * n > len(body):
            raise ValueError
        return {k: hi for k, _lo, hi in struct.iter_unpack(">hhh", body[6:6 + 6 * n])}

    def compact() -> dict[int, int]:
        from kadmin.protocol.primitives import read_uvarint

        n, pos = read_uvarint(body, 2)
        out = {}
        for _ in range(max(n - 1, 0)):
            k, _lo, hi = struct.unpack_from(">hhh", body, pos)
            pos += 6
            tags, pos = read_uvarint(body, pos)
            for _t in range(tags):
                _tag, pos = read_uvarint(body, pos)
                size, pos = read_uvarint(body, pos)
                pos += size
            if pos > len(body):
                raise ValueError
            out[k] = hi
        return out

    def byte_count() -> dict[int, int]:
        n = body[2]
        if 3 + 6 * n > len(body):
            raise ValueError
        return {k: hi for k, _lo, hi in struct.iter_unpack(">hhh", body[3:3 + 6 * n])}

    for layout in (v0, compact, byte_count):
        try:
            table = layout()
        except (ValueError, struct.error, IndexError, Exception):  # noqa: BLE001 - any failure: next layout
            continue
        if API_VERSIONS in table:
            return table[API_VERSIONS]
    return None


def _request_body(version: int) -> bytes:
    cls = message_type(API_VERSIONS, "request")
    if version >= 3:
        return bytes(cls(client_software_name=CLIENT_SOFTWARE_NAME,
                         client_software_version=CLIENT_SOFTWARE_VERSION).encode(version))
    return bytes(cls().encode(version))


async def negotiate(conn: Connection, *, config: ClientConfig, deadline: Deadline,
                    reconnect: Callable[[], Awaitable[Connection]] | None = None) -> tuple[Connection, Negotiated]:
    """Run ApiVersions on ``conn`` (falling back as described in the module doc).

    Returns the connection to use from now on (a new one if the peer closed the first) and what was learned.
    Raises KafkaConnectionError when the peer cannot be talked to, ProtocolError on garbage.
    """
    ours = our_range(API_VERSIONS)
    assert ours is not None
    # A max pin on ApiVersions itself is honoured (useful against peers that mishandle newer versions).
    _pin_lo, pin_hi = config.pinned_range(API_VERSIONS)
    version = max(min(ours[1], pin_hi), 0)
    attempts: list[int] = []
    reconnects = 0
    last_error: KafkaError | None = None
    for _ in range(MAX_ATTEMPTS):
        attempts.append(version)
        try:
            frame = await conn.request_raw(API_VERSIONS, version, _request_body(version), deadline=deadline)
        except KafkaConnectionError as exc:
            # Some peers hang up on a version they do not know instead of answering; v0 is universal.
            if version < 3 or reconnect is None or not conn.closed:
                raise
            logger.debug("%s closed the connection on ApiVersions v%d; reconnecting to retry at v0",
                         conn.label, version)
            last_error = exc
            conn = await reconnect()
            reconnects += 1
            version = 0
            continue
        body_at = response_body_offset(frame, 0)  # ApiVersions responses always use header v0
        body = frame[body_at:]
        if len(body) < 2:
            raise ProtocolError(f"ApiVersions v{version} response from {conn.label} is {len(body)} bytes long")
        (code,) = struct.unpack_from(">h", body, 0)
        if code == UNSUPPORTED_VERSION:
            their_max = _advertised_api_versions_max(body)
            nxt = version - 1 if their_max is None else min(version - 1, their_max)
            if their_max is None:
                nxt = 0
            logger.debug("%s answered ApiVersions v%d with UNSUPPORTED_VERSION (advertises max %s); retrying at v%d",
                         conn.label, version, their_max, nxt)
            if nxt < 0 or nxt >= version:
                last_error = UnsupportedVersionError(f"{conn.label} does not accept ApiVersions v{version} "
                                                     "and there is no lower version to try")
                break
            version = nxt
            continue
        if code == INVALID_REQUEST and version >= 3:
            logger.debug("%s rejected ApiVersions v%d as INVALID_REQUEST; retrying at v0", conn.label, version)
            version = 0
            continue
        if code != 0:
            err = error_for_code(code)
            assert err is not None
            raise type(err)(f"ApiVersions v{version} to {conn.label} failed: {err.message}")
        response = decode_response(frame, API_VERSIONS, version)
        table = {int(k.api_key): (int(k.min_version), int(k.max_version)) for k in response.api_keys}
        features = {}
        if version >= 3 and response.finalized_features_epoch >= 0:
            features = {f.name: (int(f.min_version_level), int(f.max_version_level))
                        for f in response.finalized_features}
        result = Negotiated(table, tuple(attempts), reconnects, features)
        logger.debug("%s: ApiVersions v%d (attempts %s) advertised %d APIs", conn.label, version,
                     list(attempts), len(table))
        return conn, result
    final = ProtocolError(f"ApiVersions negotiation with {conn.label} did not converge after versions {attempts}")
    raise final from last_error


__all__ = [
    "CLIENT_SOFTWARE_NAME",
    "CLIENT_SOFTWARE_VERSION",
    "Negotiated",
    "VersionTable",
    "check_version",
    "choose_version",
    "negotiate",
    "our_range",
    "software_field",
    "unsupported_version_error",
    "usable_range",
    "usable_table",
]
