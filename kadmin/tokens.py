"""Delegation tokens (KIP-48; owners other than the caller KIP-373): what the token operations take and return.

Pure: no sockets.  The operations are on the ``AdminClient`` classes (``create_delegation_token``,
``renew_delegation_token``, ``expire_delegation_token``, ``describe_delegation_tokens``), sent by
:mod:`kadmin.admin.tokens`.

A token's HMAC is its password (a client logs in with SCRAM, the token id as user name and the HMAC as
password), so it never appears in ``repr`` or logs; read ``token.hmac`` where it is needed.  Brokers issue
tokens only over SASL connections and only with ``delegation.token.secret.key`` set; they answer
DELEGATION_TOKEN_REQUEST_NOT_ALLOWED or DELEGATION_TOKEN_AUTH_DISABLED otherwise.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from kadmin.acls import check_principal


@dataclass(frozen=True)
class DelegationToken:
    """A token as the broker issued or described it; timestamps are ms since the epoch."""

    token_id: str
    owner: str
    requester: str | None
    renewers: tuple[str, ...]
    issued_ms: int
    expires_ms: int
    max_ms: int
    hmac: bytes = field(repr=False, compare=False)


def check_principals(values: Iterable[str] | None, what: str) -> list[str] | None:
    """Distinct ``User:name`` principals, in order (the brokers accept only User principals here)."""
    if values is None:
        return None
    if isinstance(values, (str, bytes)):
        raise TypeError(f"{what} must be a list of principals, not a single string")
    out = []
    for v in values:
        check_principal(v, what)
        if not v.startswith("User:"):
            raise ValueError(f"{what}: {v!r} is not a User principal "
                             "(Kafka refuses other types: INVALID_PRINCIPAL_TYPE)")
        out.append(v)
    return list(dict.fromkeys(out))


def check_hmac(value: object) -> bytes:
    if not isinstance(value, (bytes, bytearray)) or not value:
        raise TypeError("a delegation token is named by its HMAC: non-empty bytes (DelegationToken.hmac)")
    return bytes(value)


def check_period(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not -(2**63) <= value < 2**63:
        raise TypeError(f"{what} must be an int of milliseconds, not {value!r}")
    return value
