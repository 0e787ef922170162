"""Logging in with a delegation token (KIP-48): SCRAM with the ``tokenauth=true`` extension, the token id as the
name and its HMAC in base64 as the password, acting as the token's owner.

No peer here can check it from the other side (Tansu and librdkafka's mock have no token service; librdkafka
and kafka-python send no SCRAM extensions), so the client's first message is also checked byte for byte
against the format of Kafka's ScramMessages.ClientFirstMessage, and the fake's credential against Kafka's
DelegationTokenManager rule (every SCRAM mechanism, 4096 iterations, password = base64 of the HMAC), computed
here independently with hashlib.
"""

from __future__ import annotations

import base64
import hashlib
import hmac

import pytest

from kadmin.acls import AclBinding
from kadmin.client import AdminClient
from kadmin.config import ClientConfig
from kadmin.errors import (
    AuthenticationError,
    DelegationTokenRequestNotAllowedError,
)
from kadmin.network.sasl import ScramClient
from kadmin.testing import FakeCluster
from tests.support.clusters import shared_cluster

USERS = {"root": "r", "alice": "a"}
MECHANISMS = ("SCRAM-SHA-256", "SCRAM-SHA-512")


cluster = shared_cluster(brokers=2, sasl={"mechanisms": ["PLAIN", *MECHANISMS], "users": USERS},
                         authorizer={"super_users": ["User:root"]}, delegation_tokens=True)


def plain(cluster: FakeCluster, user: str) -> AdminClient:
    return AdminClient(cluster.bootstrap, security_protocol="SASL_PLAINTEXT", sasl_mechanism="PLAIN",
                       sasl_username=user, sasl_password=USERS[user], default_timeout_s=5)


def token_login(cluster: FakeCluster, token_id: str, password: str, mechanism: str = "SCRAM-SHA-256",
                token_auth: bool = True) -> AdminClient:
    return AdminClient(cluster.bootstrap, security_protocol="SASL_PLAINTEXT", sasl_mechanism=mechanism,
                       sasl_username=token_id, sasl_password=password, sasl_token_auth=token_auth,
                       default_timeout_s=5, bootstrap_timeout_s=3)


def test_client_first_message_carries_the_token_extension() -> None:
    nonce = "fyko+d2lbbFgONRv9qkxdawL"
    plain_first = ScramClient("tok=en,1", "pw", "sha256", nonce_factory=lambda: nonce).first()
    token_first = ScramClient("tok=en,1", "pw", "sha256", nonce_factory=lambda: nonce, token_auth=True).first()
    assert plain_first == b"n,,n=tok=3Den=2C1,r=" + nonce.encode()
    assert token_first == plain_first + b",tokenauth=true"


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_a_token_logs_in_as_its_owner_with_the_owners_rights(cluster: FakeCluster, mechanism: str) -> None:
    with plain(cluster, "root") as root, plain(cluster, "alice") as alice:
        assert root.create_acls([AclBinding.of("topic", "alice-", "User:alice", "describe",
                                               pattern_type="prefixed")]) is not None
        mine, other = f"alice-{mechanism}", f"other-{mechanism}"
        cluster.add_topic(mine, 1)
        cluster.add_topic(other, 1)
        token = alice.create_delegation_token()
    password = base64.b64encode(token.hmac).decode()
    with token_login(cluster, token.token_id, password, mechanism) as t:
        # Acting as User:alice: her ACL lets her see her topic and not the other one.
        seen = {listing.name for listing in t.list_topics()}
        assert mine in seen and other not in seen
        assert t.whoami().principal is None  # the owner, which a token channel may not ask for
        # Kafka refuses token requests over a token login (a token cannot mint tokens).
        with pytest.raises(DelegationTokenRequestNotAllowedError):
            t.create_delegation_token()
        with pytest.raises(DelegationTokenRequestNotAllowedError):
            t.describe_delegation_tokens()


def test_the_fakes_token_credential_is_kafkas(cluster: FakeCluster) -> None:
    with plain(cluster, "alice") as alice:
        token = alice.create_delegation_token()
    store = cluster._tokens
    assert store is not None
    found = store.login(token.token_id, "SCRAM-SHA-512")
    assert found is not None
    cred, owner = found
    assert owner == "User:alice" and cred.iterations == 4096
    salted = hashlib.pbkdf2_hmac("sha512", base64.b64encode(token.hmac), cred.salt, 4096)
    client_key = hmac.new(salted, b"Client Key", "sha512").digest()
    assert cred.stored_key == hashlib.sha512(client_key).digest()
    assert cred.server_key == hmac.new(salted, b"Server Key", "sha512").digest()


def test_a_token_login_fails_without_the_extension_with_a_wrong_hmac_and_after_expiry(cluster: FakeCluster) -> None:
    with plain(cluster, "alice") as alice:
        token = alice.create_delegation_token()
        password = base64.b64encode(token.hmac).decode()
        wrong = base64.b64encode(bytes(b ^ 1 for b in token.hmac)).decode()
        for kwargs in ({"password": wrong}, {"password": password, "token_auth": False}):
            with pytest.raises(AuthenticationError), \
                    token_login(cluster, token.token_id, **kwargs) as t:  # type: ignore[arg-type]
                t.list_topics()
        with token_login(cluster, token.token_id, password) as t:
            t.list_topics()
        alice.expire_delegation_token(token.hmac, expiry_period_ms=-1)
    with pytest.raises(AuthenticationError), token_login(cluster, token.token_id, password) as t:
        t.list_topics()


def test_a_properties_file_with_tokenauth_logs_in_with_the_token(cluster: FakeCluster) -> None:
    with plain(cluster, "alice") as alice:
        token = alice.create_delegation_token()
    password = base64.b64encode(token.hmac).decode()
    config = ClientConfig.from_properties({
        "bootstrap.servers": cluster.bootstrap, "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanism": "SCRAM-SHA-512",
        "sasl.jaas.config": "org.apache.kafka.common.security.scram.ScramLoginModule required "
                            f'username="{token.token_id}" password="{password}" tokenauth="true";'})
    assert config.sasl_token_auth and password not in repr(config)
    with AdminClient(config=config) as t:
        assert isinstance(t.list_topics(), list)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"security_protocol": "SASL_PLAINTEXT", "sasl_mechanism": "PLAIN"}, "goes over SCRAM"),
    ({"security_protocol": "PLAINTEXT"}, "use SASL_PLAINTEXT or SASL_SSL"),
])
def test_token_auth_needs_scram(kwargs: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ClientConfig(bootstrap_servers="k:9092", sasl_username="id", sasl_password="x", sasl_token_auth=True,
                     **kwargs)  # type: ignore[arg-type]
