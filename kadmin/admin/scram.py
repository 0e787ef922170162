"""SCRAM credential operations: DescribeUserScramCredentials (50), AlterUserScramCredentials (51), KIP-554.

Both go to one node that speaks them (Kafka 2.7+; KRaft brokers forward alterations to the controller).

Why alterations are keyed by (user, mechanism) and not by user: a KRaft controller refuses a request that
changes one user twice, even for two mechanisms (``ScramControlManager``: DUPLICATE_RESOURCE), while callers
commonly set both SCRAM-SHA-256 and SCRAM-SHA-512 for a user.  So a request carries each user at most once, a
user's second mechanism goes in the next request, and the caller gets one result per user (the first error of
that user's changes, or None).  Users go ``batch_size`` per request: 1,000 new users with one mechanism each
are one request.

Retrying is safe: an upsertion states the final credential (the same salt is resent), and a deletion resent
after its lost answer was applied gets RESOURCE_NOT_FOUND, which is therefore reported "possibly applied".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from kadmin import _batching
from kadmin.admin._driver import Done, Failed, Operation, Outcome, Retry, Sent
from kadmin.admin.lookups import NodeSpeaking
from kadmin.errors import ErrorCode, KafkaError, ProtocolError, error_for_code
from kadmin.protocol import message_type
from kadmin.protocol.apis import ApiKey
from kadmin.scram import ScramAlteration, ScramCredentialInfo, ScramDeletion, ScramMechanism

DEFAULT_BATCH_SIZE = _batching.SCRAM_BATCH_SIZE

_TOO_OLD = ("the broker's Kafka release is too old for SCRAM credential administration (Describe/"
            "AlterUserScramCredentials need Kafka 2.7+, KIP-554)")

#: The key of "describe every user".
ALL_USERS: None = None


def _outcome(code: int, message: str | None) -> Outcome | None:
    err = error_for_code(code, message)
    if err is None:
        return None
    # RESOURCE_NOT_FOUND (no such credential), UNACCEPTABLE_CREDENTIAL, UNSUPPORTED_SASL_MECHANISM,
    # DUPLICATE_RESOURCE, CLUSTER_AUTHORIZATION_FAILED: final.  Retriable codes (the controller moving): again.
    return Retry(err) if err.retriable else Failed(err)


class DescribeUserScramCredentials(Operation["str | None"]):
    """Keys are user names (one request for all), or :data:`ALL_USERS` alone (every user with a credential)."""

    api = ApiKey.DESCRIBE_USER_SCRAM_CREDENTIALS

    def __init__(self) -> None:
        self.lookup: NodeSpeaking[str | None] = NodeSpeaking(self.api, too_old=_TOO_OLD)

    def build(self, node: int, keys: list[str | None], version: int) -> Any:
        req: Any = message_type(ApiKey.DESCRIBE_USER_SCRAM_CREDENTIALS, "request")
        if keys == [ALL_USERS]:
            return req(users=None)
        return req(users=[req.UserName(name=u) for u in keys])

    def handle(self, node: int, keys: list[str | None], response: Any, version: int) -> dict[str | None, Outcome]:
        bad = _outcome(response.error_code, response.error_message)
        if bad is not None:
            return dict.fromkeys(keys, bad)
        if keys == [ALL_USERS]:
            users: dict[str, tuple[ScramCredentialInfo, ...]] = {}
            for r in response.results:
                if r.error_code == ErrorCode.NONE:
                    users[r.user] = _infos(r)
            return {ALL_USERS: Done(dict(sorted(users.items())))}
        out: dict[str | None, Outcome] = {}
        for r in response.results:
            if r.user in out or r.user not in keys:
                continue
            out[r.user] = _outcome(r.error_code, r.error_message) or Done(_infos(r))
        return out


def _infos(r: Any) -> tuple[ScramCredentialInfo, ...]:
    return tuple(sorted((ScramCredentialInfo(ScramMechanism.from_code(c.mechanism), c.iterations)
                         for c in r.credential_infos), key=lambda i: i.mechanism))


AlterKey = tuple[str, ScramMechanism]


class AlterUserScramCredentials(Operation[AlterKey]):
    """Keys are (user, mechanism); each request carries a user at most once, ``batch_size`` users per request."""

    api = ApiKey.ALTER_USER_SCRAM_CREDENTIALS
    write = True
    #: A deletion resent after its lost answer was applied finds nothing to delete.  An upsertion's resend
    #: succeeds either way (and its answer is then the truth).
    applied_looks_like = frozenset({ErrorCode.RESOURCE_NOT_FOUND})

    def __init__(self, alterations: Mapping[str, list[ScramAlteration]], *, batch_size: int = DEFAULT_BATCH_SIZE,
                 max_concurrency: int | None = None) -> None:
        self.alterations: dict[AlterKey, ScramAlteration] = {
            (a.user, a.mechanism): a for changes in alterations.values() for a in changes}
        self.batch_size = batch_size
        self.max_in_flight = max_concurrency
        self.lookup: NodeSpeaking[AlterKey] = NodeSpeaking(self.api, too_old=_TOO_OLD)

    @property
    def keys(self) -> list[AlterKey]:
        return list(self.alterations)

    def build(self, node: int, keys: list[AlterKey], version: int) -> list[Sent]:
        req: Any = message_type(ApiKey.ALTER_USER_SCRAM_CREDENTIALS, "request")
        # Slot i holds every user's i-th change in this round, so no request names a user twice.
        slots: list[list[AlterKey]] = []
        seen: dict[str, int] = {}
        for k in keys:
            i = seen.get(k[0], 0)
            seen[k[0]] = i + 1
            if i == len(slots):
                slots.append([])
            slots[i].append(k)
        out: list[Sent] = []
        n = self.batch_size
        for slot in slots:
            for j in range(0, len(slot), n):
                batch = slot[j:j + n]
                deletions, upsertions = [], []
                for k in batch:
                    a = self.alterations[k]
                    if isinstance(a, ScramDeletion):
                        deletions.append(req.ScramCredentialDeletion(name=a.user, mechanism=int(a.mechanism)))
                    else:
                        upsertions.append(req.ScramCredentialUpsertion(
                            name=a.user, mechanism=int(a.mechanism), iterations=a.iterations, salt=a.salt,
                            salted_password=a.salted_password))
                out.append((req(deletions=deletions, upsertions=upsertions), batch))
        return out

    def handle(self, node: int, keys: list[AlterKey], response: Any, version: int) -> dict[AlterKey, Outcome]:
        by_user = {k[0]: k for k in keys}
        out: dict[AlterKey, Outcome] = {}
        for r in response.results:
            k = by_user.get(r.user)
            if k is None:
                continue
            out[k] = _outcome(r.error_code, r.error_message) or _OK
        for k in keys:
            if k not in out:
                out[k] = Failed(ProtocolError(f"node {node}'s AlterUserScramCredentials answer has no result for "
                                              f"user {k[0]!r}"))
        return out


_OK: Done[None] = Done(None)


def per_user(users: Iterable[str], results: Mapping[AlterKey, None | KafkaError]) -> dict[str, None | KafkaError]:
    """One result per user: None when all their changes were applied, else the first error among them."""
    out: dict[str, None | KafkaError] = dict.fromkeys(users)
    for (user, _mechanism), res in results.items():
        if res is not None and out.get(user) is None:
            out[user] = res
    return out


__all__ = ["ALL_USERS", "DEFAULT_BATCH_SIZE", "AlterUserScramCredentials", "DescribeUserScramCredentials",
           "per_user"]
