"""Where the CLI's client configuration comes from: flags, the environment, a Kafka-style properties file.

Why a properties file (``--command-config``): it is what ``kafka-consumer-groups.sh --command-config`` and
librdkafka tools already take, so the TLS/SASL settings people have written once work unchanged, and secrets
stay out of the shell history.  The file is read here; its keys are mapped by ``ClientConfig.from_properties``.

The bootstrap servers come from, in this order: ``--bootstrap-server``, ``KADMIN_BOOTSTRAP_SERVERS``, then
``bootstrap.servers`` in the properties file.  None of them is a usage error: silently defaulting to
localhost:9092 would point an admin tool at whatever happens to listen there.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from pathlib import Path

from kadmin.config import ClientConfig

ENV_BOOTSTRAP = "KADMIN_BOOTSTRAP_SERVERS"


class UsageError(Exception):
    """Bad input detected before contacting the cluster: exit status 2, one line."""


_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}


def _unescape(text: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            if nxt == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", text[i + 2:i + 6]):
                out.append(chr(int(text[i + 2:i + 6], 16)))
                i += 6
                continue
            out.append(_ESCAPES.get(nxt, nxt))
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _logical_lines(text: str) -> list[str]:
    """Join continuation lines (an odd number of trailing backslashes), drop comments and blank lines."""
    lines: list[str] = []
    pending = ""
    for raw in text.splitlines():
        line = raw.lstrip() if pending else raw.strip()
        if not pending and (not line or line[0] in "#!"):
            continue
        trailing = len(line) - len(line.rstrip("\\"))
        if trailing % 2 == 1:
            pending += line[:-1]
            continue
        lines.append(pending + line)
        pending = ""
    if pending:
        lines.append(pending)
    return lines


def parse_properties(text: str) -> dict[str, str]:
    """Java ``.properties`` syntax: ``key=value``, ``key: value`` or ``key value``; ``#``/``!`` comments;
    backslash continuations (how multi-line ``sasl.jaas.config`` values are usually written) and escapes."""
    props: dict[str, str] = {}
    for line in _logical_lines(text):
        # The key ends at the first unescaped '=', ':' or whitespace.
        m = re.match(r"((?:[^\\=:\s]|\\.)*)\s*[=:]?\s*(.*)$", line, re.DOTALL)
        if m is None:  # pragma: no cover - the pattern matches any string
            continue
        key, value = _unescape(m.group(1)), _unescape(m.group(2))
        if key:
            props[key] = value
    return props


def read_properties(path: str) -> dict[str, str]:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read --command-config {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise UsageError(f"--command-config {path} is not UTF-8 text") from None
    return parse_properties(text)


def check_timeout(value: float | None) -> float | None:
    if value is None:
        return None
    if not math.isfinite(value) or value <= 0:
        raise UsageError(f"--timeout must be a positive number of seconds, not {value!r}")
    return value


def build_config(bootstrap: str | None, command_config: str | None, timeout: float | None,
                 environ: Mapping[str, str] | None = None) -> ClientConfig:
    """The ClientConfig for a command that talks to a cluster; every problem is a UsageError."""
    env = os.environ if environ is None else environ
    props = read_properties(command_config) if command_config else {}
    servers = bootstrap or env.get(ENV_BOOTSTRAP, "").strip() or None
    if servers is None and not props.get("bootstrap.servers", "").strip():
        raise UsageError(f"no bootstrap servers: pass --bootstrap-server HOST:PORT (or set {ENV_BOOTSTRAP}, "
                         "or bootstrap.servers in the --command-config file)")
    overrides: dict[str, object] = {"client_id": "kadmin-cli"} if "client.id" not in props else {}
    if servers is not None:
        overrides["bootstrap_servers"] = servers
    if timeout is not None:
        overrides["default_timeout_s"] = timeout
        overrides["connect_timeout_s"] = min(timeout, ClientConfig.connect_timeout_s)
        overrides["request_timeout_s"] = min(timeout, ClientConfig.request_timeout_s)
    try:
        return ClientConfig.from_properties(props, **overrides)
    except (ValueError, TypeError) as exc:
        where = f" (from --command-config {command_config})" if command_config else ""
        raise UsageError(f"invalid client configuration{where}: {property_names(str(exc))}") from None


#: The library's setting names as a properties file spells them: a CLI user wrote ``security.protocol``, never
#: ``security_protocol``, and must find the key the message is about in their file.
PROPERTY_NAMES = {
    "security_protocol": "security.protocol",
    "sasl_mechanism": "sasl.mechanism",
    "sasl_username": "the username of sasl.jaas.config (or sasl.username)",
    "sasl_password": "the password of sasl.jaas.config (or sasl.password)",
    "sasl_token_auth": "tokenauth of sasl.jaas.config",
    "ssl_cafile": "ssl.truststore.location (PEM) or ssl.cafile",
    "ssl_certfile": "ssl.certificate.location",
    "ssl_keyfile": "ssl.key.location",
    "ssl_password": "ssl.key.password",
    "ssl_check_hostname": "ssl.endpoint.identification.algorithm",
    "bootstrap_servers": "bootstrap.servers",
    "client_id": "client.id",
    "request_timeout_s": "request.timeout.ms",
    "default_timeout_s": "default.api.timeout.ms",
    "connect_timeout_s": "socket.connection.setup.timeout.ms",
    "retry_backoff_s": "retry.backoff.ms",
    "retry_backoff_max_s": "retry.backoff.max.ms",
    "metadata_max_age_s": "metadata.max.age.ms",
    "max_in_flight": "max.in.flight.requests.per.connection",
}
_ATTRIBUTE = re.compile(r"\b(" + "|".join(sorted(PROPERTY_NAMES, key=len, reverse=True)) + r")\b")


def property_names(message: str) -> str:
    """A configuration error with the library's attribute names replaced by the properties a file has."""
    return _ATTRIBUTE.sub(lambda m: PROPERTY_NAMES[m.group(1)], message)
