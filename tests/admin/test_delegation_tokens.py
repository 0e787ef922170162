"""Delegation tokens against the fake cluster's token manager (no third-party client has these APIs:
kafka-python 3 has no classes for them, and neither peer broker serves them)."""

from __future__ import annotations

from typing import Any

import pytest

from kadmin.client import AdminClient
from kadmin.errors import (
    DelegationTokenAuthDisabledError,
    DelegationTokenAuthorizationFailedError,
    DelegationTokenNotFoundError,
    DelegationTokenOwnerMismatchError,
    DelegationTokenRequestNotAllowedError,
    UnsupportedVersionError,
)
from kadmin.testing import FakeCluster
from kadmin.versions import release_table
from tests.support.clusters import shared_cluster

USERS = {"root": "r", "alice": "a", "bob": "b", "carol": "c"}
HOUR = 3600 * 1000


def login(cluster: FakeCluster, user: str) -> AdminClient:
    return AdminClient(cluster.bootstrap, security_protocol="SASL_PLAINTEXT", sasl_mechanism="PLAIN",
                       sasl_username=user, sasl_password=USERS[user], default_timeout_s=5)


cluster = shared_cluster(brokers=2, sasl={"mechanism": "PLAIN", "users": USERS},
                         authorizer={"super_users": ["User:root"]},
                         delegation_tokens={"max_lifetime_ms": 48 * HOUR, "expiry_time_ms": 24 * HOUR})


def test_token_lifecycle(cluster: FakeCluster) -> None:
    with login(cluster, "alice") as alice, login(cluster, "bob") as bob, login(cluster, "carol") as carol:
        token = alice.create_delegation_token(renewers=["User:bob"], max_lifetime_ms=30 * HOUR)
        assert token.owner == "User:alice" and token.requester == "User:alice" and token.renewers == ("User:bob",)
        assert token.max_ms - token.issued_ms == 30 * HOUR and token.expires_ms - token.issued_ms == 24 * HOUR
        assert token.hmac.hex() not in repr(token) and "hmac" not in repr(token)
        assert cluster.delegation_tokens[token.token_id][0] == "User:alice"
        seen = {t.token_id: t for t in bob.describe_delegation_tokens()}  # a renewer sees it
        assert seen[token.token_id].hmac == token.hmac and seen[token.token_id].renewers == ("User:bob",)
        assert token.token_id not in {t.token_id for t in carol.describe_delegation_tokens()}
        assert bob.renew_delegation_token(token.hmac, renew_period_ms=HOUR) <= token.issued_ms + 30 * HOUR
        with pytest.raises(DelegationTokenOwnerMismatchError):
            carol.renew_delegation_token(token.hmac)
        far = alice.renew_delegation_token(token.hmac, renew_period_ms=1000 * HOUR)
        assert far == token.max_ms  # never past the token's max timestamp
        assert alice.expire_delegation_token(token.hmac) > 0
        assert token.token_id not in cluster.delegation_tokens
        with pytest.raises(DelegationTokenNotFoundError):
            alice.renew_delegation_token(token.hmac)
        assert alice.describe_delegation_tokens(["User:alice"]) == []


def test_token_for_another_owner_needs_create_tokens(cluster: FakeCluster) -> None:
    with login(cluster, "carol") as carol, login(cluster, "root") as root:
        with pytest.raises(DelegationTokenAuthorizationFailedError):
            carol.create_delegation_token(owner="User:bob")
        token = root.create_delegation_token(owner="User:bob")
        assert (token.owner, token.requester) == ("User:bob", "User:root")
        with login(cluster, "bob") as bob:
            assert token.token_id in {t.token_id for t in bob.describe_delegation_tokens(["User:bob"])}


def test_tokens_need_sasl_and_an_enabled_token_manager(cluster: FakeCluster) -> None:
    with FakeCluster(brokers=1, delegation_tokens=True) as plain, \
            AdminClient(plain.bootstrap, default_timeout_s=5) as anonymous:
        with pytest.raises(DelegationTokenRequestNotAllowedError):
            anonymous.create_delegation_token()
    with FakeCluster(brokers=1, sasl={"mechanism": "PLAIN", "users": USERS}) as off, login(off, "alice") as alice:
        with pytest.raises(DelegationTokenAuthDisabledError):
            alice.describe_delegation_tokens()


@pytest.mark.parametrize(("call", "exc"), [
    (lambda a: a.create_delegation_token(renewers=["bob"]), ValueError),
    (lambda a: a.create_delegation_token(renewers=["Group:ops"]), ValueError),
    (lambda a: a.create_delegation_token(renewers="User:bob"), TypeError),
    (lambda a: a.create_delegation_token(max_lifetime_ms=1.5), TypeError),
    (lambda a: a.renew_delegation_token("not-bytes"), TypeError),
    (lambda a: a.expire_delegation_token(b""), TypeError),
    (lambda a: a.describe_delegation_tokens(["alice"]), ValueError),
])
def test_bad_input_sends_nothing(cluster: FakeCluster, call: Any, exc: type[Exception]) -> None:
    with login(cluster, "alice") as alice:
        cluster.clear_log()
        with pytest.raises(exc):
            call(alice)
        assert not [e for e in cluster.request_log if 38 <= e.api_key <= 41]


def test_another_owner_is_refused_unsent_before_v3() -> None:
    table = release_table("3.0")
    assert table[38] == (0, 2)
    with FakeCluster(brokers=1, versions=table, sasl={"mechanism": "PLAIN", "users": USERS},
                     delegation_tokens=True) as c, login(c, "root") as root:
        with pytest.raises(UnsupportedVersionError, match="v3"):
            root.create_delegation_token(owner="User:bob")
        assert c.count("CreateDelegationToken") == 0
        token = root.create_delegation_token()
        assert token.requester is None and c.count("CreateDelegationToken", version=2) == 1
