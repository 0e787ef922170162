"""SASL/GSSAPI (Kerberos v5, RFC 4752) as Kafka's brokers expect it, through the ``gssapi`` package.

The service principal is ``<sasl.kerberos.service.name>/<broker host>`` (a host-based service name, the host as
the client connects to it, as Kafka's clients do).  After the Kerberos context is established the broker sends a
wrapped 4-byte offer (security layers, maximum message size); Kafka uses no security layer, so the client
answers "no security layer" (``0x01``, size 0) wrapped without confidentiality, and nothing after the SASL
exchange is wrapped.

Credentials come from a keytab (``useKeyTab``/``keyTab`` in Java's ``Krb5LoginModule``, ``sasl.kerberos.keytab``
in librdkafka), kept in a private in-memory ticket cache; from a given ticket cache file; or from the default
ticket cache (``kinit``, ``KRB5CCNAME``).  ``gssapi`` (the ``kafka-kadmin[gssapi]`` extra) is imported when a login
starts; Kerberos' blocking calls (ticket requests to the KDC) run in a worker thread.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from typing import Any

from kadmin.errors import AuthenticationError

logger = logging.getLogger("kadmin.network.sasl_gssapi")

#: RFC 4752's security-layer bit for "no security layer", the only one Kafka uses.
NO_SECURITY_LAYER = 0x01
_ccache_ids = itertools.count(1)


def gssapi_module() -> Any:
    try:
        import gssapi
    except ImportError:
        raise AuthenticationError("sasl_mechanism GSSAPI needs the 'gssapi' package (and the system's Kerberos "
                                  "libraries): pip install 'kafka-kadmin[gssapi]'") from None
    return gssapi


class GssapiClient:
    """The client side of one SASL/GSSAPI exchange with the broker at ``host``.

    ``initial()`` gives the first token; ``respond(challenge)`` the next one, or None when the exchange is over.
    """

    def __init__(self, host: str, *, service: str = "kafka", principal: str | None = None,
                 keytab: str | None = None, ccache: str | None = None) -> None:
        self._gssapi = gssapi_module()
        self.service_principal = f"{service}/{host}"
        self._target = f"{service}@{host}"
        self._principal = principal
        self._keytab = keytab
        self._ccache = ccache
        self._ctx: Any = None
        self._layer_sent = False

    def __repr__(self) -> str:
        return f"GssapiClient(service_principal={self.service_principal!r}, principal={self._principal!r})"

    def _credentials(self) -> Any:
        g = self._gssapi
        name = g.Name(self._principal, g.NameType.kerberos_principal) if self._principal else None
        if self._keytab is not None:
            store = {"client_keytab": self._keytab, "ccache": f"MEMORY:kadmin-{next(_ccache_ids)}"}
            return g.Credentials(name=name, usage="initiate", store=store)
        if self._ccache is not None:
            return g.Credentials(name=name, usage="initiate", store={"ccache": self._ccache})
        return g.Credentials(name=name, usage="initiate")

    def initial(self) -> bytes:
        g = self._gssapi
        try:
            target = g.Name(self._target, g.NameType.hostbased_service)
            self._ctx = g.SecurityContext(name=target, creds=self._credentials(), usage="initiate",
                                          flags=g.RequirementFlag.mutual_authentication)
            token = self._ctx.step()
        except g.exceptions.GSSError as exc:
            raise self._explain(exc) from None
        return bytes(token or b"")

    def respond(self, challenge: bytes) -> bytes | None:
        g = self._gssapi
        ctx = self._ctx
        try:
            if not ctx.complete:
                token = ctx.step(challenge)
                # Established with nothing left to send: an empty message asks for the broker's layer offer.
                return bytes(token or b"")
            if self._layer_sent:
                return None
            offer = ctx.unwrap(challenge).message
        except g.exceptions.GSSError as exc:
            raise self._explain(exc) from None
        if len(offer) != 4:
            raise AuthenticationError("GSSAPI: the broker's security-layer offer is not 4 bytes (RFC 4752)")
        if not offer[0] & NO_SECURITY_LAYER:
            raise AuthenticationError("GSSAPI: the broker requires a Kerberos security layer (integrity or "
                                      "confidentiality); Kafka uses none")
        self._layer_sent = True
        # No security layer, maximum size 0, no authorization id (the broker authorizes the principal itself).
        return bytes(ctx.wrap(bytes([NO_SECURITY_LAYER, 0, 0, 0]), False).message)

    @property
    def principal(self) -> str | None:
        """The client principal the context was established for."""
        if self._ctx is not None and self._ctx.complete:
            return str(self._ctx.initiator_name)
        return self._principal

    def _explain(self, exc: Any) -> AuthenticationError:
        """One line naming the likely fix for the usual Kerberos failures."""
        text = " ".join(str(exc).split())
        minor = text.split("Minor", 1)[-1]
        low = minor.lower()
        if "not found in kerberos database" in low:
            return AuthenticationError(f"GSSAPI: the KDC does not know the broker's service principal "
                                       f"{self.service_principal} (check sasl.kerberos.service.name and the broker "
                                       f"host name): {_detail(minor)}")
        if "clock skew" in low:
            return AuthenticationError(f"GSSAPI: clock skew too great between this machine and the KDC or broker "
                                       f"(synchronise the clocks): {_detail(minor)}")
        if ("no kerberos credentials" in low or "no credentials cache" in low or "credentials cache file" in low
                or "no credentials were supplied" in text.lower()):
            return AuthenticationError("GSSAPI: no Kerberos ticket: run kinit, or give a keytab and principal "
                                       f"(useKeyTab/keyTab/principal in sasl.jaas.config): {_detail(minor)}")
        if "keytab" in low or "key table" in low:
            return AuthenticationError(f"GSSAPI: cannot log in from the keytab {self._keytab}: {_detail(minor)}")
        return AuthenticationError(f"GSSAPI: Kerberos failed for {self.service_principal}: {_detail(text)}")


def _detail(minor: str) -> str:
    # "(2529638919): Server kafka/x@R not found in Kerberos database" -> the words after the code.
    return minor.split("):", 1)[-1].strip() if "):" in minor else minor.strip()


async def gssapi_exchange(host: str, round_trip: Any, *, service: str, principal: str | None, keytab: str | None,
                          ccache: str | None) -> tuple[str | None, int]:
    """Run the exchange through ``round_trip(token) -> (reply, session_lifetime_ms)``; returns the client
    principal and the session lifetime the broker announced."""
    client = GssapiClient(host, service=service, principal=principal, keytab=keytab, ccache=ccache)
    token: bytes | None = await asyncio.to_thread(client.initial)
    lifetime_ms = 0
    while token is not None:
        reply, lifetime_ms = await round_trip(token)
        token = await asyncio.to_thread(client.respond, reply)
    return client.principal, lifetime_ms


__all__ = ["GssapiClient", "NO_SECURITY_LAYER", "gssapi_exchange", "gssapi_module"]
