"""Server side of SASL PLAIN (RFC 4616), SCRAM-SHA-256/512 (RFC 5802, RFC 7677) and OAUTHBEARER (RFC 7628,
validated by kadmin.testing.oauth) for the fake brokers.

Each exchange is a small state machine fed one client token at a time; it returns the server's token and
whether authentication is complete, or raises :class:`SaslFailure` with the message Kafka would send.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import re
from collections.abc import Callable, Mapping
from typing import Any

from kadmin.testing.authorizer import ScramCredential
from kadmin.testing.oauth import JwksValidator, TokenRefused, UnsecuredValidator

#: (user, mechanism name) -> the stored credential, or None.
CredentialLookup = Callable[[str, str], "ScramCredential | None"]
#: (token id, mechanism name) -> (the token's credential, its owner principal), or None (unknown, expired).
TokenLookup = Callable[[str, str], "tuple[ScramCredential, str] | None"]

MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER", "GSSAPI")


class SaslFailure(Exception):
    """Authentication failed; ``str(exc)`` is the error message for the SaslAuthenticate response."""


class Exchange:
    mechanism: str
    principal: str | None = None
    #: When the credential stops being valid (epoch seconds): caps the session lifetime (KIP-368).
    expires_at: float | None = None
    #: Logged in with a delegation token (SCRAM's tokenauth extension): such a channel may not ask for tokens.
    token_authenticated: bool = False

    def step(self, token: bytes) -> tuple[bytes, bool]:
        raise NotImplementedError


class PlainExchange(Exchange):
    mechanism = "PLAIN"

    def __init__(self, users: Mapping[str, str]) -> None:
        self.users = users

    def step(self, token: bytes) -> tuple[bytes, bool]:
        parts = token.split(b"\x00")
        if len(parts) != 3:
            raise SaslFailure("Invalid SASL/PLAIN response: expected 3 tokens")
        authzid, user, password = (p.decode("utf-8", "replace") for p in parts)
        if not user or not password:
            raise SaslFailure("Authentication failed: username or password not specified")
        if authzid and authzid != user:
            raise SaslFailure("Authentication failed: Client requested an authorization id that is different "
                              "from username")
        expected = self.users.get(user)
        if expected is None or not hmac.compare_digest(expected.encode(), password.encode()):
            raise SaslFailure("Authentication failed: Invalid username or password")
        self.principal = user
        return b"", True


def _attrs(msg: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for part in msg.split(","):
        if len(part) < 2 or part[1] != "=":
            raise SaslFailure(f"Invalid SCRAM message attribute {part!r}")
        out.setdefault(part[0], part[2:])
    return out


class ScramExchange(Exchange):
    """RFC 5802 server: client-first -> server-first, client-final -> server-final."""

    def __init__(self, mechanism: str, credentials: CredentialLookup, tokens: TokenLookup | None = None) -> None:
        self.mechanism = mechanism
        self.hash = "sha256" if mechanism == "SCRAM-SHA-256" else "sha512"
        self.credentials = credentials
        self.tokens = tokens
        self.stage = 0
        self.client_first_bare = ""
        self.server_first = ""
        self.gs2_header = ""
        self.nonce = ""
        self.credential: ScramCredential | None = None

    def _hmac(self, key: bytes, msg: bytes) -> bytes:
        return hmac.new(key, msg, self.hash).digest()

    def _failed(self) -> SaslFailure:
        return SaslFailure("Authentication failed during authentication due to invalid credentials with SASL "
                           f"mechanism {self.mechanism}")

    def step(self, token: bytes) -> tuple[bytes, bool]:
        msg = token.decode("utf-8", "replace")
        if self.stage == 0:
            return self._first(msg), False
        if self.stage == 1:
            return self._final(msg), True
        raise SaslFailure("Unexpected SCRAM message after authentication completed")

    def _first(self, msg: str) -> bytes:
        parts = msg.split(",", 2)
        if len(parts) != 3 or parts[0] not in ("n", "y"):
            # 'p' would ask for channel binding, which Kafka does not support either.
            raise SaslFailure("Invalid SCRAM client first message")
        self.gs2_header = parts[0] + "," + parts[1] + ","
        self.client_first_bare = parts[2]
        # n=name,r=nonce[,key=value...]: RFC 5802 extensions after the nonce (Kafka's ScramExtensions).
        fields = self.client_first_bare.split(",")
        if len(fields) < 2 or not fields[0].startswith("n=") or not fields[1].startswith("r=") or len(fields[1]) < 3:
            raise SaslFailure("Invalid SCRAM client first message: missing user name or nonce")
        extensions: dict[str, str] = {}
        for ext in fields[2:]:
            key, eq, value = ext.partition("=")
            if not eq or not key.isalnum():
                raise SaslFailure(f"Invalid SCRAM extension {ext!r}")
            extensions[key] = value
        user = fields[0][2:].replace("=2C", ",").replace("=3D", "=")
        nonce = fields[1][2:]
        # The credential is read at this moment, as a broker reads its credential cache: one deleted through
        # AlterUserScramCredentials fails the next login, one created through it works at once.  With
        # tokenauth=true the name is a token id and only the token cache is read (Kafka's ScramSaslServer).
        cred: ScramCredential | None
        if extensions.get("tokenauth", "").lower() == "true":
            found = self.tokens(user, self.mechanism) if self.tokens is not None else None
            if found is None:
                raise self._failed()
            cred, owner = found
            _kind, _, user = owner.partition(":")
            self.token_authenticated = True
        else:
            cred = self.credentials(user, self.mechanism)
        if cred is None:
            raise self._failed()
        self.credential = cred
        self.nonce = nonce + base64.b64encode(os.urandom(18)).decode()
        self.server_first = f"r={self.nonce},s={base64.b64encode(cred.salt).decode()},i={cred.iterations}"
        self.principal = user
        self.stage = 1
        return self.server_first.encode()

    def _final(self, msg: str) -> bytes:
        if ",p=" not in msg:
            raise SaslFailure("Invalid SCRAM client final message: no proof")
        without_proof, proof_b64 = msg.rsplit(",p=", 1)
        attrs = _attrs(without_proof)
        try:
            channel = base64.b64decode(attrs.get("c", ""), validate=True).decode()
            proof = base64.b64decode(proof_b64, validate=True)
        except (ValueError, UnicodeDecodeError):
            raise SaslFailure("Invalid SCRAM client final message encoding") from None
        if channel != self.gs2_header or attrs.get("r") != self.nonce:
            raise SaslFailure("Invalid SCRAM client final message: channel binding or nonce mismatch")
        auth_message = f"{self.client_first_bare},{self.server_first},{without_proof}".encode()
        assert self.credential is not None
        stored_key = self.credential.stored_key
        signature = self._hmac(stored_key, auth_message)
        if len(proof) != len(signature):
            raise self._failed()
        recovered = bytes(a ^ b for a, b in zip(proof, signature, strict=True))
        if not hmac.compare_digest(hashlib.new(self.hash, recovered).digest(), stored_key):
            raise self._failed()
        self.stage = 2
        return b"v=" + base64.b64encode(self._hmac(self.credential.server_key, auth_message))


_GS2 = re.compile(r"([ny]),(?:a=([^,]*))?,\x01(.*)\x01", re.DOTALL)


class OAuthBearerExchange(Exchange):
    """RFC 7628 server as Kafka's OAuthBearerSaslServer: the client's one message carries the token (and
    KIP-342 extensions); a refused token is answered with a JSON status challenge, the client's lone %x01
    then fails the exchange with that status as the reason."""

    mechanism = "OAUTHBEARER"

    def __init__(self, validator: UnsecuredValidator | JwksValidator) -> None:
        self.validator = validator
        self.error: str | None = None
        self.extensions: dict[str, str] = {}
        self.scope: tuple[str, ...] = ()

    def step(self, token: bytes) -> tuple[bytes, bool]:
        if token == b"\x01" and self.error is not None:
            raise SaslFailure(self.error)
        self.error = None
        m = _GS2.fullmatch(token.decode("utf-8", "replace"))
        if m is None:
            raise SaslFailure("Invalid OAUTHBEARER client first message")
        if m.group(1) != "n":
            raise SaslFailure("OAUTHBEARER: channel binding is not supported")
        authzid = m.group(2)
        pairs: dict[str, str] = {}
        for kv in m.group(3).split("\x01"):
            if not kv:
                continue
            key, eq, value = kv.partition("=")
            if not eq:
                raise SaslFailure("Invalid OAUTHBEARER client first message: a key without a value")
            pairs[key] = value
        auth = pairs.pop("auth", "")
        scheme, _, value = auth.partition(" ")
        if scheme.lower() != "bearer" or not value.strip():
            raise SaslFailure("Invalid OAUTHBEARER client first message: no 'auth=Bearer <token>'")
        try:
            valid = self.validator.validate(value.strip())
        except TokenRefused as exc:
            self.error = str(exc)
            return self.error.encode(), False
        if authzid and authzid != valid.principal:
            self.error = str(TokenRefused("invalid_authorization_id"))
            return self.error.encode(), False
        self.principal = valid.principal
        self.expires_at = valid.expires_at
        self.scope = valid.scope
        self.extensions = pairs
        return b"", True


class GssapiExchange(Exchange):
    """RFC 4752 acceptor (through ``gssapi``, credentials from the broker's keytab) as Kafka's broker runs it:
    Kerberos context tokens until established, then a wrapped offer of "no security layer" and the client's
    wrapped choice.  The principal is the client principal's short name (Kafka's DEFAULT principal-to-local
    rule: ``alice/host@REALM`` is ``alice``)."""

    mechanism = "GSSAPI"

    def __init__(self, keytab: str) -> None:
        import gssapi

        g: Any = gssapi
        self._gssapi = g
        try:
            creds = g.Credentials(usage="accept", store={"keytab": keytab})
            self._ctx = g.SecurityContext(creds=creds, usage="accept")
        except g.exceptions.GSSError as exc:
            raise SaslFailure(f"GSSAPI: the broker cannot use its keytab {keytab}: {exc}") from None
        self._stage = 0

    def step(self, token: bytes) -> tuple[bytes, bool]:
        g = self._gssapi
        try:
            if self._stage == 0:
                out = self._ctx.step(token)
                if not self._ctx.complete:
                    return bytes(out or b""), False
                self._stage = 1
                if out:
                    return bytes(out), False
                token = b""
            if self._stage == 1:
                self._stage = 2
                return bytes(self._ctx.wrap(bytes([0x01, 0, 0, 0]), False).message), False
            choice = self._ctx.unwrap(token).message
        except g.exceptions.GSSError as exc:
            raise SaslFailure("Authentication failed during authentication due to: "
                              f"{' '.join(str(exc).split())}") from None
        if len(choice) < 4 or choice[0] != 0x01:
            raise SaslFailure("GSSAPI: the client chose a security layer; Kafka offers none")
        name = str(self._ctx.initiator_name)
        self.principal = name.split("@", 1)[0].split("/", 1)[0]
        # An authorization id after the 4 bytes is ignored: Kafka's callback handler always authorizes the
        # authenticated principal itself (kafka-python sends its service name there).
        return b"", True


def new_exchange(mechanism: str, users: Mapping[str, str], credentials: CredentialLookup,
                 tokens: TokenLookup | None = None,
                 oauth: UnsecuredValidator | JwksValidator | None = None,
                 keytab: str | None = None) -> Exchange:
    """PLAIN checks ``users`` (the cluster's configured passwords); SCRAM the credential store, through
    ``credentials(user, mechanism)``, or with the tokenauth extension the delegation tokens, through
    ``tokens(token_id, mechanism)`` (None: the cluster has no token service, so token logins fail)."""
    if mechanism == "PLAIN":
        return PlainExchange(users)
    if mechanism in ("SCRAM-SHA-256", "SCRAM-SHA-512"):
        return ScramExchange(mechanism, credentials, tokens)
    if mechanism == "OAUTHBEARER":
        return OAuthBearerExchange(oauth if oauth is not None else UnsecuredValidator())
    if mechanism == "GSSAPI":
        if keytab is None:
            raise SaslFailure("GSSAPI is enabled without a keytab for the broker")
        return GssapiExchange(keytab)
    raise ValueError(f"unsupported SASL mechanism {mechanism!r}; one of {MECHANISMS}")
