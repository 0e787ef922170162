"""Client configuration: one immutable object, validated once, safe to print.

A frozen dataclass rather than a dict so that a typo is an error at construction, not a silently ignored key,
and so that a client and the connections it opens can share one config without defensive copies.  Passwords
are kept out of ``repr`` (and so out of logs, tracebacks and test reports) because configs get printed.
"""

from __future__ import annotations

import logging
import re
import ssl
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from types import MappingProxyType
from typing import Any

from kadmin.jaas import kerberos_login_for, login_for, oauthbearer_login_for

logger = logging.getLogger("kadmin.config")

SECURITY_PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
SASL_MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER", "GSSAPI")
#: Fields that hold secrets: shown as *** in a repr.
_SECRET_FIELDS = ("ssl_password", "sasl_password", "sasl_oauthbearer_client_secret")

_MIB = 1024 * 1024


def _api_key_by_name() -> dict[str, int]:
    # Imported lazily: the protocol registry reads the schema folder, which a config need not pay for
    # unless someone pins a version by name.
    from kadmin.protocol import api_name

    out: dict[str, int] = {}
    for key in range(0, 200):
        name = api_name(key)
        if not name.startswith("api key"):
            out[name.lower()] = key
            out[name.lower() + "request"] = key
    return out


def _normalize_pins(pins: Mapping[int | str, int] | None, what: str) -> Mapping[int, int]:
    if pins is None:
        return MappingProxyType({})
    if not isinstance(pins, Mapping):
        raise ValueError(f"{what} must be a mapping of API key or API name to a version, not {type(pins).__name__}")
    out: dict[int, int] = {}
    names: dict[str, int] | None = None
    for k, v in pins.items():
        if isinstance(k, bool):
            raise ValueError(f"{what}: {k!r} is not an API key or name")
        if isinstance(k, int):
            key = k
            if not 0 <= key <= 32767:
                raise ValueError(f"{what}: API key {key} is outside 0..32767")
        elif isinstance(k, str):
            if k.strip().isdigit():
                key = int(k.strip())
            else:
                if names is None:
                    names = _api_key_by_name()
                found = names.get(k.strip().lower())
                if found is None:
                    raise ValueError(f"{what}: unknown API name {k!r} (use a name like 'Metadata' or an API key)")
                key = found
        else:
            raise ValueError(f"{what}: {k!r} is not an API key or name")
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 32767:
            raise ValueError(f"{what}[{k!r}] must be a version number 0..32767, not {v!r}")
        if key in out and out[key] != v:
            raise ValueError(f"{what}: API key {key} is pinned twice with different versions")
        out[key] = v
    return MappingProxyType(out)


def _split_servers(value: str | Sequence[str]) -> tuple[str, ...]:
    if isinstance(value, str):
        parts = [p.strip() for p in value.split(",")]
    elif isinstance(value, Sequence):
        parts = []
        for p in value:
            if not isinstance(p, str):
                raise ValueError(f"bootstrap_servers entries must be strings, got {type(p).__name__}")
            parts.extend(x.strip() for x in p.split(","))
    else:
        raise ValueError("bootstrap_servers must be a list of 'host:port' strings or one comma-separated string")
    servers = tuple(p for p in parts if p)
    if not servers:
        raise ValueError("bootstrap_servers is empty: give at least one 'host:port'")
    for s in servers:
        parse_host_port(s)
    return servers


def parse_host_port(address: str) -> tuple[str, int]:
    """Split 'host:port', '[v6]:port' or a bare IPv6 literal with a trailing port ('::1:9092' is ambiguous, so
    IPv6 needs brackets unless it has no port at all, which is an error)."""
    a = address.strip()
    m = re.fullmatch(r"\[([0-9A-Fa-f:.%a-zA-Z0-9]+)\]:(\d+)", a)
    if m:
        host, port_s = m.group(1), m.group(2)
    else:
        # Kafka-style listener prefixes ("PLAINTEXT://host:port") are accepted because users paste them.
        a = re.sub(r"^[A-Za-z_]+://", "", a)
        m = re.fullmatch(r"\[([0-9A-Fa-f:.%a-zA-Z0-9]+)\]:(\d+)", a)
        if m:
            host, port_s = m.group(1), m.group(2)
        else:
            if a.count(":") != 1:
                raise ValueError(f"bootstrap address {address!r} is not 'host:port' (IPv6 needs '[addr]:port')")
            host, port_s = a.rsplit(":", 1)
    if not host or not port_s.isdigit():
        raise ValueError(f"bootstrap address {address!r} is not 'host:port'")
    port = int(port_s)
    if not 0 < port < 65536:
        raise ValueError(f"bootstrap address {address!r} has port {port} outside 1..65535")
    return host, port


def _positive(name: str, value: Any, *, allow_zero: bool = False) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{name} must be a number, not {value!r}")
    if value < 0 or (value == 0 and not allow_zero) or value != value:
        raise ValueError(f"{name} must be {'>= 0' if allow_zero else '> 0'}, not {value!r}")


@dataclass(frozen=True, repr=False)
class ClientConfig:
    """Everything a kadmin client needs to reach and talk to a cluster.

    Timeouts are in seconds.  ``default_timeout_s`` bounds a whole admin call (all retries included);
    ``bootstrap_timeout_s`` bounds the first contact with a cluster: while no bootstrap address has ever
    answered, kadmin gives up after this long (within the call's deadline) with one error naming every address
    and its cause, because a wrong address or port does not fix itself within a call;
    ``request_timeout_s`` bounds one request on one connection, after which that connection is considered
    stuck and closed (its in-flight requests become retriable connection errors).

    ``max_versions``/``min_versions`` pin API versions by key or name (``{"Metadata": 9}``).  Pins only narrow
    the range negotiated with each broker; they never make kadmin send a version a broker did not advertise.
    """

    bootstrap_servers: str | Sequence[str]  # required: never guessed (a guess would reach whatever listens there)
    client_id: str = "kadmin"
    security_protocol: str = "PLAINTEXT"
    ssl_cafile: str | None = None
    ssl_certfile: str | None = None
    ssl_keyfile: str | None = None
    ssl_password: str | None = field(default=None, repr=False)
    ssl_check_hostname: bool = True
    ssl_context: ssl.SSLContext | None = field(default=None, compare=False)
    sasl_mechanism: str | None = None
    sasl_username: str | None = None
    sasl_password: str | None = field(default=None, repr=False)
    #: A delegation-token login (KIP-48): ``sasl_username`` is the token id, ``sasl_password`` its HMAC in
    #: base64, and the SCRAM exchange carries the ``tokenauth=true`` extension.  SCRAM mechanisms only.
    sasl_token_auth: bool = False
    #: OAUTHBEARER (KIP-255): exactly one token source.  A callable (plain or async) returning an
    #: ``kadmin.network.oauth.OAuthToken`` or a ``(token, expires_at)`` pair (MSK IAM, Azure, custom IdPs) ...
    sasl_oauthbearer_token_provider: Callable[[], Any] | None = field(default=None, compare=False)
    #: ... or an OIDC token endpoint for the client-credentials flow (KIP-768), with the client's id, secret
    #: and scope ...
    sasl_oauthbearer_token_endpoint_url: str | None = None
    sasl_oauthbearer_client_id: str | None = None
    sasl_oauthbearer_client_secret: str | None = field(default=None, repr=False)
    sasl_oauthbearer_scope: str | None = None
    #: ... or the claims of an unsecured (``alg: none``) token for development clusters (``sub`` required).
    sasl_oauthbearer_unsecured_claims: Mapping[str, Any] | None = field(default=None, hash=False)
    sasl_oauthbearer_unsecured_lifetime_s: float = 3600.0
    #: SASL extensions sent with the token (KIP-342), e.g. Confluent Cloud's ``logicalCluster``.
    sasl_oauthbearer_extensions: Mapping[str, str] = field(default_factory=dict, hash=False)
    #: Token refresh (Kafka's ``sasl.login.refresh.*``) and token-endpoint retries (``sasl.login.retry.*``).
    sasl_login_refresh_window_factor: float = 0.8
    sasl_login_refresh_window_jitter: float = 0.05
    sasl_login_refresh_min_period_s: float = 60.0
    sasl_login_refresh_buffer_s: float = 300.0
    sasl_login_retry_backoff_s: float = 0.1
    sasl_login_retry_backoff_max_s: float = 10.0
    sasl_login_connect_timeout_s: float = 10.0
    sasl_login_read_timeout_s: float = 10.0
    #: GSSAPI (Kerberos): the broker's service name (its principal is ``<name>/<broker host>``), the client
    #: principal, and where its credentials are: a keytab, a ticket cache file, or (neither) the default cache.
    sasl_kerberos_service_name: str = "kafka"
    sasl_kerberos_principal: str | None = None
    sasl_kerberos_keytab: str | None = None
    sasl_kerberos_ccache: str | None = None
    connect_timeout_s: float = 10.0
    request_timeout_s: float = 30.0
    default_timeout_s: float = 60.0
    bootstrap_timeout_s: float = 5.0
    retry_backoff_s: float = 0.1
    retry_backoff_max_s: float = 2.0
    max_frame_bytes: int = 100 * _MIB
    max_versions: Mapping[int | str, int] = field(default_factory=dict, hash=False)
    min_versions: Mapping[int | str, int] = field(default_factory=dict, hash=False)
    metadata_max_age_s: float = 300.0
    max_in_flight: int = 100

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "bootstrap_servers", _split_servers(self.bootstrap_servers))
        if not isinstance(self.client_id, str):
            raise ValueError("client_id must be a string")
        if len(self.client_id.encode("utf-8")) > 32767:
            raise ValueError("client_id is longer than 32767 bytes")
        proto = str(self.security_protocol).upper()
        if proto not in SECURITY_PROTOCOLS:
            raise ValueError(f"security_protocol {self.security_protocol!r} is not one of "
                             f"{', '.join(SECURITY_PROTOCOLS)}")
        set_(self, "security_protocol", proto)
        uses_ssl = proto in ("SSL", "SASL_SSL")
        uses_sasl = proto.startswith("SASL_")
        if not uses_ssl:
            given = [n for n in ("ssl_cafile", "ssl_certfile", "ssl_keyfile", "ssl_context") if getattr(self, n)]
            if given:
                raise ValueError(f"{', '.join(given)} given but security_protocol is {proto}; use SSL or SASL_SSL")
        if self.ssl_context is not None and not isinstance(self.ssl_context, ssl.SSLContext):
            raise ValueError("ssl_context must be an ssl.SSLContext")
        if self.ssl_context is not None and (self.ssl_cafile or self.ssl_certfile or self.ssl_keyfile):
            raise ValueError("give either ssl_context or ssl_cafile/ssl_certfile/ssl_keyfile, not both")
        if self.ssl_keyfile and not self.ssl_certfile:
            raise ValueError("ssl_keyfile needs ssl_certfile (the client certificate it belongs to)")
        if not isinstance(self.ssl_check_hostname, bool):
            raise ValueError("ssl_check_hostname must be True or False")
        if uses_sasl:
            if self.sasl_mechanism is None:
                raise ValueError(f"security_protocol {proto} needs sasl_mechanism ({', '.join(SASL_MECHANISMS)})")
            mech = str(self.sasl_mechanism).upper()
            if mech not in SASL_MECHANISMS:
                raise ValueError(f"sasl_mechanism {self.sasl_mechanism!r} is not supported; kadmin speaks "
                                 f"{', '.join(SASL_MECHANISMS)}")
            set_(self, "sasl_mechanism", mech)
        elif self.sasl_mechanism is not None:
            raise ValueError(f"sasl_mechanism given but security_protocol is {proto}; use SASL_PLAINTEXT or SASL_SSL")
        self._check_oauthbearer(uses_sasl)
        self._check_gssapi(uses_sasl)
        if uses_sasl and self.sasl_mechanism not in ("OAUTHBEARER", "GSSAPI"):
            mech = str(self.sasl_mechanism)
            if not self.sasl_username:
                raise ValueError(f"sasl_mechanism {mech} needs sasl_username")
            if self.sasl_password is None:
                raise ValueError(f"sasl_mechanism {mech} needs sasl_password")
            if self.sasl_token_auth and not mech.startswith("SCRAM-"):
                raise ValueError(f"sasl_token_auth (a delegation-token login) goes over SCRAM-SHA-256 or "
                                 f"SCRAM-SHA-512, not {mech}")
        if not isinstance(self.sasl_token_auth, bool):
            raise ValueError("sasl_token_auth must be True or False")
        if self.sasl_token_auth and not uses_sasl:
            raise ValueError(f"sasl_token_auth given but security_protocol is {proto}; use SASL_PLAINTEXT or "
                             "SASL_SSL")
        for name in ("connect_timeout_s", "request_timeout_s", "default_timeout_s", "bootstrap_timeout_s",
                     "retry_backoff_max_s", "metadata_max_age_s"):
            _positive(name, getattr(self, name))
        _positive("retry_backoff_s", self.retry_backoff_s, allow_zero=True)
        if self.retry_backoff_max_s < self.retry_backoff_s:
            raise ValueError("retry_backoff_max_s must be >= retry_backoff_s")
        for name in ("max_frame_bytes", "max_in_flight"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
                raise ValueError(f"{name} must be a positive integer, not {v!r}")
        if self.max_frame_bytes < 64:
            raise ValueError("max_frame_bytes must be at least 64")
        set_(self, "max_versions", _normalize_pins(self.max_versions, "max_versions"))
        set_(self, "min_versions", _normalize_pins(self.min_versions, "min_versions"))
        for key, lo in self.min_versions.items():
            hi = self.max_versions.get(key)
            if hi is not None and lo > hi:
                raise ValueError(f"API key {key}: min_versions {lo} is above max_versions {hi}")

    def _check_gssapi(self, uses_sasl: bool) -> None:
        """GSSAPI needs the ``gssapi`` package (said before connecting, naming the extra) and readable files."""
        given = [k for k in ("sasl_kerberos_principal", "sasl_kerberos_keytab", "sasl_kerberos_ccache")
                 if getattr(self, k) is not None]
        if not (uses_sasl and self.sasl_mechanism == "GSSAPI"):
            if given:
                raise ValueError(f"{', '.join(given)} given but sasl_mechanism is not GSSAPI")
            return
        import importlib.util

        if importlib.util.find_spec("gssapi") is None:
            raise ValueError("sasl_mechanism GSSAPI needs the 'gssapi' package (and the system's Kerberos "
                             "libraries): pip install 'kafka-kadmin[gssapi]'")
        if self.sasl_username is not None or self.sasl_password is not None or self.sasl_token_auth:
            raise ValueError("sasl_username/sasl_password/sasl_token_auth are not used by GSSAPI; Kerberos logs "
                             "in with a ticket (kinit) or sasl_kerberos_keytab and sasl_kerberos_principal")
        if not isinstance(self.sasl_kerberos_service_name, str) or not self.sasl_kerberos_service_name.strip():
            raise ValueError("sasl_kerberos_service_name must be the broker's Kerberos service name, e.g. 'kafka'")
        if self.sasl_kerberos_keytab is not None:
            if self.sasl_kerberos_ccache is not None:
                raise ValueError("give sasl_kerberos_keytab or sasl_kerberos_ccache, not both")
            if not self.sasl_kerberos_principal:
                raise ValueError("sasl_kerberos_keytab needs sasl_kerberos_principal (the principal whose key "
                                 "it holds)")
            try:
                with open(self.sasl_kerberos_keytab, "rb"):
                    pass
            except OSError as exc:
                raise ValueError(f"cannot read the keytab {self.sasl_kerberos_keytab}: {exc.strerror or exc}") \
                    from None

    def _check_oauthbearer(self, uses_sasl: bool) -> None:
        """OAUTHBEARER needs exactly one token source; its settings without OAUTHBEARER are a mistake."""
        set_ = object.__setattr__
        oauth = uses_sasl and self.sasl_mechanism == "OAUTHBEARER"
        sources = {"sasl_oauthbearer_token_provider": self.sasl_oauthbearer_token_provider,
                   "sasl_oauthbearer_token_endpoint_url": self.sasl_oauthbearer_token_endpoint_url,
                   "sasl_oauthbearer_unsecured_claims": self.sasl_oauthbearer_unsecured_claims}
        given = [k for k, v in sources.items() if v is not None]
        extras = [k for k in ("sasl_oauthbearer_client_id", "sasl_oauthbearer_client_secret",
                              "sasl_oauthbearer_scope") if getattr(self, k) is not None]
        if not oauth:
            if given or extras or self.sasl_oauthbearer_extensions:
                raise ValueError(f"{', '.join(given + extras) or 'sasl_oauthbearer_extensions'} given but "
                                 "sasl_mechanism is not OAUTHBEARER (set security_protocol SASL_SSL or "
                                 "SASL_PLAINTEXT and sasl_mechanism OAUTHBEARER)")
            return
        if not given:
            raise ValueError("sasl_mechanism OAUTHBEARER needs a token source: sasl_oauthbearer_token_provider (a "
                             "callable), sasl_oauthbearer_token_endpoint_url (OIDC, with client id and secret) or "
                             "sasl_oauthbearer_unsecured_claims (an unsecured token, {'sub': ...})")
        if len(given) > 1:
            raise ValueError(f"sasl_mechanism OAUTHBEARER takes one token source, not {' and '.join(given)}")
        if self.sasl_username is not None or self.sasl_password is not None or self.sasl_token_auth:
            raise ValueError("sasl_username/sasl_password/sasl_token_auth are not used by OAUTHBEARER; give a "
                             "token source instead")
        if self.sasl_oauthbearer_token_provider is None:
            import importlib.util

            if importlib.util.find_spec("joserfc") is None:
                raise ValueError(f"{given[0]} reads or makes JWTs with the 'joserfc' package: pip install "
                                 "'kafka-kadmin[oauth]' (a sasl_oauthbearer_token_provider callable needs "
                                 "nothing extra)")
        provider = self.sasl_oauthbearer_token_provider
        if provider is not None and not callable(provider):
            raise ValueError("sasl_oauthbearer_token_provider must be a callable returning a token and its expiry")
        url = self.sasl_oauthbearer_token_endpoint_url
        if url is not None:
            if not isinstance(url, str) or not re.match(r"^(https?|file)://", url):
                raise ValueError("sasl_oauthbearer_token_endpoint_url must be an http://, https:// or file:// URL")
            if not url.startswith("file:") and (not self.sasl_oauthbearer_client_id
                                                 or self.sasl_oauthbearer_client_secret is None):
                raise ValueError("the OIDC client-credentials login needs sasl_oauthbearer_client_id and "
                                 "sasl_oauthbearer_client_secret (clientId and clientSecret in sasl.jaas.config)")
        elif extras:
            raise ValueError(f"{', '.join(extras)} given without sasl_oauthbearer_token_endpoint_url")
        claims = self.sasl_oauthbearer_unsecured_claims
        if claims is not None:
            if not isinstance(claims, Mapping) or not claims.get("sub"):
                raise ValueError("sasl_oauthbearer_unsecured_claims needs a 'sub' claim (the principal; "
                                 "unsecuredLoginStringClaim_sub in sasl.jaas.config)")
            set_(self, "sasl_oauthbearer_unsecured_claims", MappingProxyType(dict(claims)))
        from kadmin.network.oauth import check_extension  # the protocol's rules live with the SASL message

        ext = self.sasl_oauthbearer_extensions
        if not isinstance(ext, Mapping):
            raise ValueError("sasl_oauthbearer_extensions must be a mapping of name to value")
        for k, v in ext.items():
            if not isinstance(k, str) or not isinstance(v, str):
                raise ValueError("sasl_oauthbearer_extensions names and values must be strings")
            check_extension(k, v)
        set_(self, "sasl_oauthbearer_extensions", MappingProxyType(dict(ext)))
        for name in ("sasl_oauthbearer_unsecured_lifetime_s",
                     "sasl_login_connect_timeout_s", "sasl_login_read_timeout_s", "sasl_login_retry_backoff_max_s"):
            _positive(name, getattr(self, name))
        for name in ("sasl_login_refresh_buffer_s", "sasl_login_retry_backoff_s", "sasl_login_refresh_window_jitter",
                     "sasl_login_refresh_min_period_s"):
            _positive(name, getattr(self, name), allow_zero=True)
        if not 0.5 <= self.sasl_login_refresh_window_factor <= 1.0:
            raise ValueError("sasl_login_refresh_window_factor must be within 0.5..1.0 (Kafka's range)")
        if self.sasl_login_refresh_window_jitter > 0.25:
            raise ValueError("sasl_login_refresh_window_jitter must be within 0..0.25 (Kafka's range)")

    @property
    def bootstrap_addresses(self) -> list[tuple[str, int]]:
        """``bootstrap_servers`` as (host, port) pairs, in the order given."""
        return [parse_host_port(s) for s in self.bootstrap_servers]

    @property
    def uses_ssl(self) -> bool:
        return self.security_protocol in ("SSL", "SASL_SSL")

    @property
    def uses_sasl(self) -> bool:
        return self.security_protocol.startswith("SASL_")

    def pinned_range(self, api_key: int) -> tuple[int, int]:
        """The user's (min, max) pin for an API; (0, 32767) when unpinned."""
        lo = self.min_versions.get(api_key, 0)
        hi = self.max_versions.get(api_key, 32767)
        return int(lo), int(hi)

    def __repr__(self) -> str:
        parts = []
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name in _SECRET_FIELDS:
                parts.append(f"{f.name}={'***' if v is not None else None}")
            elif f.name in ("max_versions", "min_versions"):
                parts.append(f"{f.name}={dict(v)!r}")
            elif f.name == "ssl_context":
                parts.append(f"{f.name}={'<SSLContext>' if v is not None else None}")
            else:
                parts.append(f"{f.name}={v!r}")
        return f"ClientConfig({', '.join(parts)})"

    __str__ = __repr__

    def with_changes(self, **changes: Any) -> ClientConfig:
        """A copy with some fields changed (validated again)."""
        return replace(self, **changes)

    @classmethod
    def from_properties(cls, props: Mapping[str, str], **overrides: Any) -> ClientConfig:
        """Build a config from Kafka-style client properties (the CLI's ``--command-config`` file).

        Java and librdkafka spell the same setting differently; both spellings are read so that a properties
        file written for ``kafka-consumer-groups.sh`` or for a librdkafka tool works unchanged.  Unknown keys
        are logged (by name only, values may be secrets) and ignored, as Kafka's own tools do.
        """
        kw: dict[str, Any] = {}
        p = {str(k).strip(): str(v).strip() for k, v in props.items()}
        used: set[str] = set()

        def take(*names: str) -> str | None:
            for n in names:
                if n in p:
                    used.add(n)
                    return p[n]
            return None

        def seconds(name: str, *keys: str) -> None:
            raw = take(*keys)
            if raw is None:
                return
            try:
                kw[name] = int(raw) / 1000.0
            except ValueError:
                raise ValueError(f"property {keys[0]} must be a whole number of milliseconds, not {raw!r}") from None

        if (v := take("bootstrap.servers", "metadata.broker.list")) is not None:
            kw["bootstrap_servers"] = v
        if (v := take("client.id")) is not None:
            kw["client_id"] = v
        if (v := take("security.protocol")) is not None:
            kw["security_protocol"] = v.upper()
        if (v := take("sasl.mechanism", "sasl.mechanisms")) is not None:
            kw["sasl_mechanism"] = v.upper()
        jaas = take("sasl.jaas.config")
        user, password = take("sasl.username"), take("sasl.password")
        if kw.get("sasl_mechanism") == "OAUTHBEARER":
            kw.update(_oauthbearer_properties(jaas, take))
            jaas = None
        if (v := take("sasl.kerberos.service.name")) is not None:
            kw["sasl_kerberos_service_name"] = v
        if kw.get("sasl_mechanism") == "GSSAPI":
            kw.update(_kerberos_properties(jaas, take))
            jaas = None
        if jaas is not None:
            # Java's way: the JAAS entry is the login; librdkafka's sasl.username/password are not read by
            # Java at all, so a differing one is ignored, with a warning (names only, never values).
            jaas_user, jaas_password, token_auth = login_for(jaas, kw.get("sasl_mechanism"))
            if token_auth:
                kw["sasl_token_auth"] = True
            if user is not None and user != jaas_user:
                logger.warning("sasl.username is ignored: sasl.jaas.config names another user, and Kafka's "
                               "Java clients log in as the JAAS user")
            if password is not None and password != jaas_password:
                logger.warning("sasl.password is ignored: sasl.jaas.config has the password (as Java reads it)")
            user, password = jaas_user, jaas_password
        if user is not None:
            kw["sasl_username"] = user
        if password is not None:
            kw["sasl_password"] = password
        ca = take("ssl.cafile", "ssl.ca.location")
        trust = take("ssl.truststore.location")
        if trust is not None:
            ttype = (take("ssl.truststore.type") or "JKS").upper()
            if ttype != "PEM":
                raise ValueError(f"ssl.truststore.type {ttype} cannot be read by Python's ssl module; convert the "
                                 "truststore to PEM and set ssl.truststore.type=PEM or ssl.cafile")
            ca = ca or trust
        else:
            take("ssl.truststore.type")
        if ca is not None:
            kw["ssl_cafile"] = ca
        if (v := take("ssl.certfile", "ssl.certificate.location")) is not None:
            kw["ssl_certfile"] = v
        if (v := take("ssl.keyfile", "ssl.key.location")) is not None:
            kw["ssl_keyfile"] = v
        if (v := take("ssl.password", "ssl.key.password")) is not None:
            kw["ssl_password"] = v
        keystore = take("ssl.keystore.location")
        keystore_type = (take("ssl.keystore.type") or "JKS").upper()
        if keystore is not None:
            if keystore_type != "PEM":
                raise ValueError(f"ssl.keystore.location (a {keystore_type} keystore) cannot be read by Python's ssl "
                                 "module; convert it to PEM (ssl.keystore.type=PEM), or give "
                                 "ssl.certificate.location and ssl.key.location as PEM files")
            # Java's PEM keystore: the private key and the certificate chain in one file.
            kw.setdefault("ssl_certfile", keystore)
        algo = take("ssl.endpoint.identification.algorithm")
        if algo is not None:
            if algo.lower() in ("", "none"):
                kw["ssl_check_hostname"] = False
            elif algo.lower() == "https":
                kw["ssl_check_hostname"] = True
            else:
                raise ValueError(f"ssl.endpoint.identification.algorithm must be 'https' or empty, not {algo!r}")
        seconds("request_timeout_s", "request.timeout.ms")
        seconds("default_timeout_s", "default.api.timeout.ms")
        seconds("connect_timeout_s", "socket.connection.setup.timeout.ms")
        seconds("retry_backoff_s", "retry.backoff.ms")
        seconds("retry_backoff_max_s", "retry.backoff.max.ms")
        seconds("metadata_max_age_s", "metadata.max.age.ms")
        if (v := take("max.in.flight.requests.per.connection")) is not None:
            try:
                kw["max_in_flight"] = int(v)
            except ValueError:
                raise ValueError(f"max.in.flight.requests.per.connection must be an integer, not {v!r}") from None
        if "retry_backoff_s" in kw and "retry_backoff_max_s" not in kw:
            kw["retry_backoff_max_s"] = max(kw["retry_backoff_s"], cls.retry_backoff_max_s)
        unknown = sorted(set(p) - used)
        if unknown:
            logger.warning("ignoring client properties kadmin does not use: %s", ", ".join(unknown))
        kw.update(overrides)
        if "bootstrap_servers" not in kw:
            raise ValueError("no bootstrap servers: set bootstrap.servers (kadmin never guesses localhost:9092)")
        config = cls(**kw)
        if config.ssl_certfile:
            check_client_certificate(config.ssl_certfile, config.ssl_keyfile, config.ssl_password)
        return config


def _kerberos_properties(jaas: str | None, take: Callable[..., str | None]) -> dict[str, Any]:
    """ClientConfig keywords from Java's ``Krb5LoginModule`` JAAS entry (``useKeyTab``, ``keyTab``,
    ``principal``, ``useTicketCache``, ``ticketCache``) or librdkafka's ``sasl.kerberos.keytab`` and
    ``sasl.kerberos.principal``."""
    kw: dict[str, Any] = {}
    opts = kerberos_login_for(jaas) if jaas is not None else {}
    keytab = take("sasl.kerberos.keytab")
    principal = take("sasl.kerberos.principal") or opts.get("principal")
    if opts.get("useKeyTab", "false").lower() == "true":
        keytab = opts.get("keyTab") or keytab
        if keytab is None:
            raise ValueError("sasl.jaas.config: useKeyTab=true needs keyTab=\"/path/to/client.keytab\"")
    take("sasl.kerberos.kinit.cmd", "sasl.kerberos.min.time.before.relogin")  # librdkafka's kinit: not needed
    if keytab is not None:
        kw["sasl_kerberos_keytab"] = keytab
    elif opts.get("useTicketCache", "false").lower() == "true" and opts.get("ticketCache"):
        kw["sasl_kerberos_ccache"] = opts["ticketCache"]
    if principal is not None:
        kw["sasl_kerberos_principal"] = principal
    return kw


_OIDC_HANDLERS = ("org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler",
                  "org.apache.kafka.common.security.oauthbearer.secured.OAuthBearerLoginCallbackHandler")
_UNSECURED_CLAIM = re.compile(r"unsecuredLogin(String|Number|List)Claim_(.+)")


def _oauthbearer_properties(jaas: str | None, take: Callable[..., str | None]) -> dict[str, Any]:
    """ClientConfig keywords from Java's OAUTHBEARER properties (the ``OAuthBearerLoginModule`` JAAS entry,
    ``sasl.oauthbearer.*``, ``sasl.login.*``, KIP-1139's ``client.credentials`` names) and librdkafka's
    (``sasl.oauthbearer.method``, ``.client.id``, ``.client.secret``, ``.extensions``, ``.config``)."""
    kw: dict[str, Any] = {}
    opts = oauthbearer_login_for(jaas) if jaas is not None else {}
    handler = take("sasl.login.callback.handler.class")
    method = (take("sasl.oauthbearer.method") or "").lower()
    url = take("sasl.oauthbearer.token.endpoint.url")
    if handler is not None and handler not in _OIDC_HANDLERS:
        raise ValueError(f"sasl.login.callback.handler.class {handler} is a Java class kadmin cannot run; kadmin "
                         "does the OIDC login (OAuthBearerLoginCallbackHandler) itself, and takes a token provider "
                         "callable in Python (sasl_oauthbearer_token_provider) for anything else")
    client_id = take("sasl.oauthbearer.client.credentials.client.id", "sasl.oauthbearer.client.id") \
        or opts.get("clientId")
    secret = take("sasl.oauthbearer.client.credentials.client.secret", "sasl.oauthbearer.client.secret")
    secret = secret if secret is not None else opts.get("clientSecret")
    scope = take("sasl.oauthbearer.scope") or opts.get("scope")
    extensions = {k[len("extension_"):]: v for k, v in opts.items() if k.startswith("extension_")}
    extensions.update({k[len("unsecuredLoginExtension_"):]: v for k, v in opts.items()
                       if k.startswith("unsecuredLoginExtension_")})
    if (raw := take("sasl.oauthbearer.extensions")) is not None:  # librdkafka: name=value,name=value
        for pair in filter(None, (p.strip() for p in raw.split(","))):
            name, eq, value = pair.partition("=")
            if not eq:
                raise ValueError("sasl.oauthbearer.extensions must be name=value pairs separated by commas")
            extensions[name.strip()] = value.strip()
    if extensions:
        kw["sasl_oauthbearer_extensions"] = extensions
    if url is not None or handler is not None or method == "oidc":
        if url is None:
            raise ValueError("the OIDC login needs sasl.oauthbearer.token.endpoint.url")
        kw["sasl_oauthbearer_token_endpoint_url"] = url
        if client_id is not None:
            kw["sasl_oauthbearer_client_id"] = client_id
        if secret is not None:
            kw["sasl_oauthbearer_client_secret"] = secret
        if scope:
            kw["sasl_oauthbearer_scope"] = scope
    else:
        claims: dict[str, Any] = {}
        for key, value in opts.items():
            m = _UNSECURED_CLAIM.fullmatch(key)
            if m is None:
                continue
            kind, name = m.groups()
            if kind == "Number":
                try:
                    claims[name] = float(value) if "." in value else int(value)
                except ValueError:
                    raise ValueError(f"sasl.jaas.config: {key} is not a number") from None
            elif kind == "List":
                # Java's list claim: the first character is the separator ("," if it is a letter or digit).
                sep, rest = (value[0], value[1:]) if value and not value[0].isalnum() else (",", value)
                claims[name] = [v for v in rest.split(sep) if v]
            else:
                claims[name] = value
        if (cfg := take("sasl.oauthbearer.config")) is not None:  # librdkafka: principal=x scope=a,b lifeSeconds=n
            for item in cfg.split():
                name, _, value = item.partition("=")
                if name == "principal":
                    claims["sub"] = value
                elif name == "scope":
                    claims["scope"] = [v for v in value.split(",") if v]
                elif name == "lifeSeconds":
                    opts["unsecuredLoginLifetimeSeconds"] = value
                elif name.startswith("extension_"):
                    kw.setdefault("sasl_oauthbearer_extensions", {})[name[len("extension_"):]] = value
        take("enable.sasl.oauthbearer.unsecure.jwt")
        if not claims:
            raise ValueError("sasl.mechanism=OAUTHBEARER needs a token source: sasl.oauthbearer.token.endpoint.url "
                             "with clientId/clientSecret (OIDC), or unsecuredLoginStringClaim_sub in an "
                             "OAuthBearerLoginModule sasl.jaas.config (an unsecured token), or a token provider "
                             "callable (sasl_oauthbearer_token_provider, from Python)")
        kw["sasl_oauthbearer_unsecured_claims"] = claims
        if (life := opts.get("unsecuredLoginLifetimeSeconds")) is not None:
            try:
                kw["sasl_oauthbearer_unsecured_lifetime_s"] = float(life)
            except ValueError:
                raise ValueError("unsecuredLoginLifetimeSeconds must be a number of seconds") from None

    def number(name: str, key: str, scale: float = 1.0) -> None:
        raw = take(key)
        if raw is None:
            return
        try:
            kw[name] = float(raw) * scale
        except ValueError:
            raise ValueError(f"property {key} must be a number, not {raw!r}") from None

    number("sasl_login_refresh_window_factor", "sasl.login.refresh.window.factor")
    number("sasl_login_refresh_window_jitter", "sasl.login.refresh.window.jitter")
    number("sasl_login_refresh_min_period_s", "sasl.login.refresh.min.period.seconds")
    number("sasl_login_refresh_buffer_s", "sasl.login.refresh.buffer.seconds")
    number("sasl_login_retry_backoff_s", "sasl.login.retry.backoff.ms", 0.001)
    number("sasl_login_retry_backoff_max_s", "sasl.login.retry.backoff.max.ms", 0.001)
    number("sasl_login_connect_timeout_s", "sasl.login.connect.timeout.ms", 0.001)
    number("sasl_login_read_timeout_s", "sasl.login.read.timeout.ms", 0.001)
    # Broker-side validation settings some shared properties files carry: read, not used by a client.
    take("sasl.oauthbearer.sub.claim.name", "sasl.oauthbearer.scope.claim.name")
    return kw


class _NoPassword(Exception):
    pass


def check_client_certificate(certfile: str, keyfile: str | None, password: str | None) -> None:
    """Load the client certificate and key once, as Java loads a keystore when a client is made, so that a
    wrong ``ssl.key.password`` is reported as that (OpenSSL says ``[SSL] PEM lib``), an encrypted key without
    a password is refused instead of prompting on the terminal, and a key that belongs to another certificate
    is named.  Messages name files, never the password."""
    asked: list[bool] = []

    def give_password() -> str:
        asked.append(True)
        if password is None:
            raise _NoPassword
        return password

    key = keyfile or certfile
    try:
        ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT).load_cert_chain(certfile, keyfile, password=give_password)
    except _NoPassword:
        raise ValueError(f"the private key in {key} is encrypted: give its password (ssl.key.password)") from None
    except ssl.SSLError as exc:
        text = str(exc)
        if asked:
            raise ValueError(f"ssl.key.password does not decrypt the private key in {key} (wrong password?)") from None
        if "KEY_VALUES_MISMATCH" in text:
            raise ValueError(f"the private key in {key} does not belong to the certificate in {certfile}") from None
        raise ValueError(f"cannot load the client certificate {certfile} and key {key}: {exc.reason or text}") from None
    except OSError as exc:
        raise ValueError(f"cannot read the client certificate or key {exc.filename or key}: "
                         f"{exc.strerror or exc}") from None


__all__ = ["ClientConfig", "SASL_MECHANISMS", "SECURITY_PROTOCOLS", "parse_host_port"]
