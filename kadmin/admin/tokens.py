"""Delegation token operations: CreateDelegationToken (38), RenewDelegationToken (39), ExpireDelegationToken (40),
DescribeDelegationToken (41).  Each is one request to a node that speaks the API (KRaft brokers forward to the
controller).  Naming another owner needs CreateDelegationToken v3 (Kafka 3.3+): refused unsent below it.

Renew and expire are writes named by the token's HMAC; a lost answer leaves the token "possibly" renewed or
expired (the driver reports it so), and their resend is harmless (both set an absolute expiry).  A create
whose answer was lost and whose resend succeeded returns the new token, and says in the log that an earlier
request may have created another one: its owner can list and expire it.
"""

from __future__ import annotations

import logging
from typing import Any

from kadmin.admin._driver import Done, Failed, Operation, Outcome, Retry
from kadmin.admin.lookups import NodeSpeaking
from kadmin.errors import ErrorCode, UnsupportedVersionError, error_for_code
from kadmin.protocol import Message, message_type
from kadmin.protocol.apis import ApiKey
from kadmin.tokens import DelegationToken

log = logging.getLogger("kadmin.admin")

#: The one key of create and describe.
TOKEN = "token"
OWNER_SINCE = 3
_TOO_OLD = "delegation tokens need Kafka 1.1+ (KIP-48)"


def _outcome(code: int, message: str | None = None) -> Outcome | None:
    # DELEGATION_TOKEN_AUTH_DISABLED, _REQUEST_NOT_ALLOWED, _NOT_FOUND, _OWNER_MISMATCH, _EXPIRED,
    # _AUTHORIZATION_FAILED, INVALID_PRINCIPAL_TYPE: final, asking again gets the same.  Retriable codes: again.
    err = error_for_code(code, message)
    if err is None:
        return None
    return Retry(err) if err.retriable else Failed(err)


def _principal(kind: str, name: str) -> str:
    return f"{kind}:{name}"


class CreateDelegationToken(Operation[str]):
    api = ApiKey.CREATE_DELEGATION_TOKEN
    write = True
    applied_looks_like = frozenset()

    def __init__(self, renewers: list[str], max_lifetime_ms: int, owner: str | None) -> None:
        self.renewers = renewers
        self.max_lifetime_ms = max_lifetime_ms
        self.owner = owner
        self.sends = 0
        self.lookup: NodeSpeaking[str] = NodeSpeaking(self.api, too_old=_TOO_OLD)

    def build(self, node: int, keys: list[str], version: int) -> Message:
        req: Any = message_type(ApiKey.CREATE_DELEGATION_TOKEN, "request")
        if self.owner is not None and version < OWNER_SINCE:
            # The owner is the request's (its one key is the token): nothing can travel without it.
            raise UnsupportedVersionError(f"a token for another owner needs CreateDelegationToken v{OWNER_SINCE}+ "
                                          f"(Kafka 3.3+); node {node} speaks v{version}: nothing was sent")
        renewers = [req.CreatableRenewers(principal_type=r.partition(":")[0], principal_name=r.partition(":")[2])
                    for r in self.renewers]
        fields: dict[str, Any] = {"renewers": renewers, "max_lifetime_ms": self.max_lifetime_ms}
        if version >= OWNER_SINCE:
            # Null (not the schema's "" default) means "the caller", as Kafka's own client sends it.
            fields["owner_principal_type"], fields["owner_principal_name"] = (None, None) if self.owner is None \
                else self.owner.split(":", 1)
        self.sends += 1
        return req(**fields)  # type: ignore[no-any-return]

    def handle(self, node: int, keys: list[str], response: Any, version: int) -> dict[str, Outcome]:
        r = response
        bad = _outcome(r.error_code)
        if bad is not None:
            return {TOKEN: bad}
        if self.sends > 1:
            log.warning("CreateDelegationToken: an earlier request was sent and not answered; it may have created "
                        "another token for %s (describe_delegation_tokens lists it)", _principal(r.principal_type,
                                                                                                  r.principal_name))
        requester = _principal(r.token_requester_principal_type, r.token_requester_principal_name) \
            if version >= OWNER_SINCE else None
        return {TOKEN: Done(DelegationToken(r.token_id, _principal(r.principal_type, r.principal_name), requester,
                                            tuple(self.renewers), r.issue_timestamp_ms, r.expiry_timestamp_ms,
                                            r.max_timestamp_ms, bytes(r.hmac)))}


class _ChangeExpiry(Operation[bytes]):
    """Renew or expire: one token, named by its HMAC; the answer is the new expiry timestamp."""

    write = True
    applied_looks_like = frozenset()

    def __init__(self, period_ms: int) -> None:
        self.period_ms = period_ms
        self.lookup: NodeSpeaking[bytes] = NodeSpeaking(self.api, too_old=_TOO_OLD)

    def handle(self, node: int, keys: list[bytes], response: Any, version: int) -> dict[bytes, Outcome]:
        return {keys[0]: _outcome(response.error_code) or Done(int(response.expiry_timestamp_ms))}


class RenewDelegationToken(_ChangeExpiry):
    api = ApiKey.RENEW_DELEGATION_TOKEN

    def build(self, node: int, keys: list[bytes], version: int) -> Message:
        return message_type(ApiKey.RENEW_DELEGATION_TOKEN, "request")(hmac=keys[0], renew_period_ms=self.period_ms)


class ExpireDelegationToken(_ChangeExpiry):
    api = ApiKey.EXPIRE_DELEGATION_TOKEN
    #: A resend after an applied "expire now" finds no token.
    applied_looks_like = frozenset({ErrorCode.DELEGATION_TOKEN_NOT_FOUND})

    def build(self, node: int, keys: list[bytes], version: int) -> Message:
        return message_type(ApiKey.EXPIRE_DELEGATION_TOKEN, "request")(hmac=keys[0],
                                                                      expiry_time_period_ms=self.period_ms)


class DescribeDelegationTokens(Operation[str]):
    api = ApiKey.DESCRIBE_DELEGATION_TOKEN

    def __init__(self, owners: list[str] | None) -> None:
        self.owners = owners
        self.lookup: NodeSpeaking[str] = NodeSpeaking(self.api, too_old=_TOO_OLD)

    def build(self, node: int, keys: list[str], version: int) -> Message:
        req: Any = message_type(ApiKey.DESCRIBE_DELEGATION_TOKEN, "request")
        owners = None if self.owners is None else [
            req.DescribeDelegationTokenOwner(principal_type=o.partition(":")[0], principal_name=o.partition(":")[2])
            for o in self.owners]
        return req(owners=owners)  # type: ignore[no-any-return]

    def handle(self, node: int, keys: list[str], response: Any, version: int) -> dict[str, Outcome]:
        bad = _outcome(response.error_code)
        if bad is not None:
            return {TOKEN: bad}
        out = [DelegationToken(
            t.token_id, _principal(t.principal_type, t.principal_name),
            _principal(t.token_requester_principal_type, t.token_requester_principal_name) if version >= 3 else None,
            tuple(_principal(r.principal_type, r.principal_name) for r in t.renewers), t.issue_timestamp,
            t.expiry_timestamp, t.max_timestamp, bytes(t.hmac)) for t in response.tokens]
        return {TOKEN: Done(out)}


__all__ = ["TOKEN", "CreateDelegationToken", "DescribeDelegationTokens", "ExpireDelegationToken",
           "RenewDelegationToken"]
