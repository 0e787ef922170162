"""``sasl.jaas.config`` read as Kafka's Java client reads it, for the login modules kadmin speaks.

Why a parser and not a regex: a properties file written for Kafka's tools is trusted to mean what it means to
Java, and the slips people make in it (a missing closing quote or ``;``, a SCRAM mechanism with the PLAIN
login module, a second user given in ``sasl.username``) must be refused with a message that names the slip,
not surface later as "needs sasl_password" or an authentication failure.

The grammar is Java's (``org.apache.kafka.common.security.JaasConfig``, built on ``StreamTokenizer``)::

    LoginModuleClass controlFlag (key=value)* ;

exactly one entry; the control flag one of ``required``, ``requisite``, ``sufficient``, ``optional``; values
quoted with ``"`` or ``'`` (backslash escapes inside) or bare words; ``//`` and ``/* */`` comments.  Error
messages never quote option values: they hold passwords.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Final

PLAIN_MODULE: Final = "org.apache.kafka.common.security.plain.PlainLoginModule"
SCRAM_MODULE: Final = "org.apache.kafka.common.security.scram.ScramLoginModule"
OAUTHBEARER_MODULE: Final = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule"
#: Java's Kerberos login module (the IBM JDK's has another name; its options differ, so it is not read).
KRB5_MODULE: Final = "com.sun.security.auth.module.Krb5LoginModule"
#: The mechanisms each supported login module logs in with.
MODULE_MECHANISMS: Final = MappingProxyType({PLAIN_MODULE: ("PLAIN",), SCRAM_MODULE: ("SCRAM-SHA-256", "SCRAM-SHA-512"),
                                             OAUTHBEARER_MODULE: ("OAUTHBEARER",), KRB5_MODULE: ("GSSAPI",)})
CONTROL_FLAGS: Final = ("required", "requisite", "sufficient", "optional")

_WORD = re.compile(r"[A-Za-z0-9_.$\-\u0080-\U0010ffff]+")
_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}


@dataclass(frozen=True)
class JaasEntry:
    """One login module entry: its class, control flag and options (``repr`` hides the option values)."""

    module: str
    flag: str
    options: dict[str, str] = field(repr=False)

    @property
    def short_module(self) -> str:
        return self.module.rsplit(".", 1)[-1]


class _Token:
    __slots__ = ("kind", "text")

    def __init__(self, kind: str, text: str) -> None:
        self.kind = kind  # "word" | "quoted" | "=" | ";" | "unterminated"
        self.text = text


def _tokens(text: str) -> list[_Token]:
    out: list[_Token] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end + 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
        elif ch in "=;":
            out.append(_Token(ch, ch))
            i += 1
        elif ch in "\"'":
            value: list[str] = []
            j = i + 1
            while j < n and text[j] != ch and text[j] != "\n":
                if text[j] == "\\" and j + 1 < n:
                    value.append(_ESCAPES.get(text[j + 1], text[j + 1]))
                    j += 2
                    continue
                value.append(text[j])
                j += 1
            if j >= n or text[j] != ch:
                out.append(_Token("unterminated", "".join(value)))
                i = j
            else:
                out.append(_Token("quoted", "".join(value)))
                i = j + 1
        else:
            m = _WORD.match(text, i)
            if m is None:
                raise ValueError(f"sasl.jaas.config: unexpected character {ch!r}")
            out.append(_Token("word", m.group(0)))
            i = m.end()
    return out


def parse_jaas(text: str) -> JaasEntry:
    """The one login module entry of a ``sasl.jaas.config`` value, as Java's client parses it."""
    tokens = _tokens(text)
    if not tokens:
        raise ValueError("sasl.jaas.config is empty: it names no login module")
    entries: list[JaasEntry] = []
    i = 0
    while i < len(tokens):
        entry, i = _entry(tokens, i)
        entries.append(entry)
    if len(entries) != 1:
        raise ValueError(f"sasl.jaas.config has {len(entries)} login module entries; Kafka's clients take exactly 1")
    return entries[0]


def _entry(tokens: list[_Token], i: int) -> tuple[JaasEntry, int]:
    module = tokens[i]
    if module.kind != "word":
        raise ValueError("sasl.jaas.config must start with a login module class name, e.g. "
                         f"{SCRAM_MODULE} required username=\"...\" password=\"...\";")
    i += 1
    flag = tokens[i].text if i < len(tokens) and tokens[i].kind == "word" else None
    if flag is None or flag.lower() not in CONTROL_FLAGS:
        shown = f" {flag!r}" if flag is not None else ""
        raise ValueError(f"sasl.jaas.config: invalid login module control flag{shown} after {module.text} "
                         f"(one of {', '.join(CONTROL_FLAGS)})")
    i += 1
    options: dict[str, str] = {}
    while True:
        if i >= len(tokens):
            raise ValueError("sasl.jaas.config: the login module entry is not terminated by ';'")
        tok = tokens[i]
        if tok.kind == ";":
            return JaasEntry(module.text, flag.lower(), options), i + 1
        if tok.kind != "word":
            raise ValueError("sasl.jaas.config: expected an option name (key=value) or ';'")
        key = tok.text
        if i + 1 >= len(tokens) or tokens[i + 1].kind != "=":
            raise ValueError(f"sasl.jaas.config: option {key!r} has no '=value'")
        if i + 2 >= len(tokens) or tokens[i + 2].kind in ("=", ";"):
            raise ValueError(f"sasl.jaas.config: no value given for option {key!r}")
        value = tokens[i + 2]
        if value.kind == "unterminated":
            raise ValueError(f"sasl.jaas.config: the value of {key!r} has no closing quote")
        options[key] = value.text  # a repeated key: the last one wins, as in Java's option map
        i += 3


def login_for(text: str, mechanism: str | None) -> tuple[str, str, bool]:
    """(username, password, token_auth) from a ``sasl.jaas.config`` for ``mechanism``, refusing what Java
    refuses and what kadmin cannot do.  ``token_auth`` is ScramLoginModule's ``tokenauth="true"``: a
    delegation-token login (username the token id, password its HMAC in base64)."""
    entry = parse_jaas(text)
    mechanisms = MODULE_MECHANISMS.get(entry.module)
    if mechanisms is None:
        raise ValueError(f"sasl.jaas.config names login module {entry.module}; kadmin supports {PLAIN_MODULE} "
                         f"(PLAIN), {SCRAM_MODULE} (SCRAM-SHA-256/512), {OAUTHBEARER_MODULE} (OAUTHBEARER) and "
                         f"{KRB5_MODULE} (GSSAPI)")
    if entry.module in (OAUTHBEARER_MODULE, KRB5_MODULE) and mechanism is None:
        raise ValueError(f"sasl.jaas.config names {entry.short_module}: set sasl.mechanism={mechanisms[0]}")
    if mechanism is not None and mechanism.upper() not in mechanisms:
        wanted = {"PLAIN": PLAIN_MODULE, "OAUTHBEARER": OAUTHBEARER_MODULE,
                  "GSSAPI": KRB5_MODULE}.get(mechanism.upper(), SCRAM_MODULE)
        raise ValueError(f"sasl.mechanism={mechanism} does not go with {entry.short_module} in sasl.jaas.config "
                         f"(that module logs in with {'/'.join(mechanisms)}); use {wanted}")
    token_auth = entry.options.get("tokenauth", "false").strip().lower() == "true"
    if token_auth and entry.module != SCRAM_MODULE:
        raise ValueError("sasl.jaas.config has tokenauth=\"true\", which only ScramLoginModule reads (delegation "
                         "tokens log in over SCRAM)")
    missing = [k for k in ("username", "password") if k not in entry.options]
    if missing:
        raise ValueError(f"sasl.jaas.config has no {' or '.join(missing)} option ({entry.short_module} needs "
                         "username=\"...\" password=\"...\")")
    return entry.options["username"], entry.options["password"], token_auth


def kerberos_login_for(text: str) -> dict[str, str]:
    """The options of a ``Krb5LoginModule`` entry (``useKeyTab``, ``keyTab``, ``principal``, ``useTicketCache``,
    ``ticketCache``), refusing another module."""
    entry = parse_jaas(text)
    if entry.module != KRB5_MODULE:
        raise ValueError(f"sasl.mechanism=GSSAPI does not go with {entry.short_module} in sasl.jaas.config; use "
                         f"{KRB5_MODULE}")
    return dict(entry.options)


def oauthbearer_login_for(text: str) -> dict[str, str]:
    """The options of an ``OAuthBearerLoginModule`` entry (``unsecuredLogin*`` for an unsecured token;
    ``clientId``, ``clientSecret``, ``scope``, ``extension_<name>`` for the OIDC login), refusing another
    module.  Option values are returned as given; messages never quote them."""
    entry = parse_jaas(text)
    if entry.module != OAUTHBEARER_MODULE:
        raise ValueError(f"sasl.mechanism=OAUTHBEARER does not go with {entry.short_module} in sasl.jaas.config; "
                         f"use {OAUTHBEARER_MODULE}")
    return dict(entry.options)


__all__ = ["CONTROL_FLAGS", "JaasEntry", "KRB5_MODULE", "MODULE_MECHANISMS", "OAUTHBEARER_MODULE", "PLAIN_MODULE",
           "SCRAM_MODULE", "kerberos_login_for", "login_for", "oauthbearer_login_for", "parse_jaas"]
