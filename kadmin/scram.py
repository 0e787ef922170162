"""SCRAM user credentials (KIP-554): mechanisms, upsertions with client-side salting, deletions, descriptions.

Pure: no sockets.  The operations live in :mod:`kadmin.admin.scram` and on the ``AdminClient`` classes
(``describe_user_scram_credentials``, ``alter_user_scram_credentials``).

Why the password is salted here and then forgotten: AlterUserScramCredentials carries the *salted* password
``Hi(password, salt, iterations)`` (RFC 5802 section 2.2, PBKDF2-HMAC with the mechanism's hash, RFC 7677 for
SHA-256), never the password, so the password need not leave this object's constructor.  An upsertion keeps
only the salt and the salted password, both out of ``repr`` and equality, so it can be logged, printed in a
test report or retried without the secret being anywhere.  The salt is fresh from :mod:`secrets` for every
upsertion (a reused salt would make equal passwords look equal in the broker's store).

The password is used as its UTF-8 bytes without SASLprep, as Kafka's own clients and brokers do (see
:mod:`kadmin.network.sasl`): a SASLprep'd credential would not match what the login computes.

The rules checked before anything is sent are the broker's (``ScramControlManager`` / ``ZkAdminManager``):
a non-empty user name, a known mechanism, iterations between 4096 and 16384, and no (user, mechanism) pair
twice in one call (the broker fails such users with DUPLICATE_RESOURCE).
"""

from __future__ import annotations

import enum
import hashlib
import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final

#: Kafka's bounds on a credential's iteration count (``ScramMechanism.minIterations`` and the KIP-554 maximum).
MIN_ITERATIONS: Final = 4096
MAX_ITERATIONS: Final = 16384
DEFAULT_ITERATIONS: Final = 4096
#: Bytes of fresh salt per upsertion (RFC 5802 sets no length; 32 bytes is the hash size of SHA-256).
SALT_BYTES: Final = 32


class ScramMechanism(enum.IntEnum):
    """Kafka's ``ScramMechanism`` codes; ``str()`` is the SASL name (``SCRAM-SHA-256``)."""

    UNKNOWN = 0
    SCRAM_SHA_256 = 1
    SCRAM_SHA_512 = 2

    @property
    def mechanism_name(self) -> str:
        return self.name.replace("_", "-")

    @property
    def hash_name(self) -> str:
        """The hashlib name of the mechanism's hash."""
        return {ScramMechanism.SCRAM_SHA_256: "sha256", ScramMechanism.SCRAM_SHA_512: "sha512"}[self]

    def __str__(self) -> str:
        return self.mechanism_name

    @classmethod
    def parse(cls, value: object) -> ScramMechanism:
        """A mechanism from itself or its name: ``SCRAM-SHA-256``, ``scram_sha_512``, ``sha-256``..."""
        if isinstance(value, cls):
            if value is cls.UNKNOWN:
                raise ValueError("the SCRAM mechanism is UNKNOWN; use SCRAM-SHA-256 or SCRAM-SHA-512")
            return value
        if isinstance(value, bool) or not isinstance(value, str):
            raise TypeError(f"a SCRAM mechanism must be a ScramMechanism or its name, not {value!r}")
        key = value.strip().upper().replace("_", "-")
        if not key.startswith("SCRAM-"):
            key = "SCRAM-" + key
        for m in (cls.SCRAM_SHA_256, cls.SCRAM_SHA_512):
            if m.mechanism_name == key:
                return m
        raise ValueError(f"unknown SCRAM mechanism {value!r}; one of SCRAM-SHA-256, SCRAM-SHA-512")

    @classmethod
    def from_code(cls, code: int) -> ScramMechanism:
        try:
            return cls(code)
        except ValueError:
            return cls.UNKNOWN


def check_user(user: object) -> str:
    if not isinstance(user, str):
        raise TypeError(f"a SCRAM user name must be a string, not {user!r}")
    if not user:
        raise ValueError("a SCRAM user name must not be empty")
    return user


def check_iterations(iterations: object) -> int:
    if isinstance(iterations, bool) or not isinstance(iterations, int):
        raise TypeError(f"iterations must be an int, not {iterations!r}")
    if not MIN_ITERATIONS <= iterations <= MAX_ITERATIONS:
        raise ValueError(f"iterations must be between {MIN_ITERATIONS} and {MAX_ITERATIONS} (Kafka refuses "
                         f"others), not {iterations}")
    return iterations


def salted_password(mechanism: ScramMechanism, password: str, salt: bytes, iterations: int) -> bytes:
    """RFC 5802 ``Hi(Normalize(password), salt, i)``: PBKDF2-HMAC with the mechanism's hash."""
    return hashlib.pbkdf2_hmac(mechanism.hash_name, password.encode("utf-8"), salt, iterations)


@dataclass(frozen=True, init=False)
class ScramUpsertion:
    """Create or replace ``user``'s credential for ``mechanism``.

    The password is salted at construction (a fresh salt from :mod:`secrets`, unless ``salt`` is given, which is
    for tests) and is not kept: ``repr``, equality and pickling never see it.  Salting costs one PBKDF2 run of
    ``iterations`` rounds (a few milliseconds at 4096)."""

    user: str
    mechanism: ScramMechanism
    iterations: int
    salt: bytes = field(repr=False, compare=False)
    salted_password: bytes = field(repr=False, compare=False)

    def __init__(self, user: str, mechanism: ScramMechanism | str, password: str,
                 iterations: int = DEFAULT_ITERATIONS, *, salt: bytes | None = None) -> None:
        u = check_user(user)
        m = ScramMechanism.parse(mechanism)
        its = check_iterations(iterations)
        if not isinstance(password, str):
            raise TypeError(f"the password for SCRAM user {u!r} must be a str, not {type(password).__name__}")
        if not password:
            raise ValueError(f"the password for SCRAM user {u!r} is empty")
        if salt is None:
            salt = secrets.token_bytes(SALT_BYTES)
        elif not isinstance(salt, bytes) or not salt:
            raise TypeError("salt must be non-empty bytes")
        object.__setattr__(self, "user", u)
        object.__setattr__(self, "mechanism", m)
        object.__setattr__(self, "iterations", its)
        object.__setattr__(self, "salt", salt)
        object.__setattr__(self, "salted_password", salted_password(m, password, salt, its))


@dataclass(frozen=True, init=False)
class ScramDeletion:
    """Delete ``user``'s credential for ``mechanism`` (the broker answers RESOURCE_NOT_FOUND if it has none)."""

    user: str
    mechanism: ScramMechanism

    def __init__(self, user: str, mechanism: ScramMechanism | str) -> None:
        object.__setattr__(self, "user", check_user(user))
        object.__setattr__(self, "mechanism", ScramMechanism.parse(mechanism))


ScramAlteration = ScramUpsertion | ScramDeletion


@dataclass(frozen=True)
class ScramCredentialInfo:
    """One credential a user has: its mechanism and iteration count (the broker never returns more)."""

    mechanism: ScramMechanism
    iterations: int


def validate_alterations(alterations: Iterable[ScramAlteration]) -> dict[str, list[ScramAlteration]]:
    """{user: their alterations}, users in first-seen order; refuses a (user, mechanism) pair given twice."""
    if isinstance(alterations, (str, bytes, ScramUpsertion, ScramDeletion)):
        raise TypeError("alterations must be a list of ScramUpsertion / ScramDeletion")
    by_user: dict[str, list[ScramAlteration]] = {}
    seen: set[tuple[str, ScramMechanism]] = set()
    for a in alterations:
        if not isinstance(a, (ScramUpsertion, ScramDeletion)):
            raise TypeError(f"expected ScramUpsertion or ScramDeletion, got {a!r}")
        pair = (a.user, a.mechanism)
        if pair in seen:
            raise ValueError(f"user {a.user!r} has more than one alteration for {a.mechanism}; Kafka refuses "
                             "that in one call (DUPLICATE_RESOURCE)")
        seen.add(pair)
        by_user.setdefault(a.user, []).append(a)
    if not by_user:
        raise ValueError("alterations is empty")
    return by_user


def validate_users(users: Iterable[str] | None) -> list[str] | None:
    """None (every user), or the distinct user names in order."""
    if users is None:
        return None
    if isinstance(users, (str, bytes)):
        raise TypeError("users must be a list of user names, not a single string")
    out = list(dict.fromkeys(check_user(u) for u in users))
    if not out:
        raise ValueError("users is empty (pass None to describe every user)")
    return out
