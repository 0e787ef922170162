"""The demo cluster of ``kadmin demo`` and ``python -m kadmin.testing``: seeded data, an authorizer with a few
ACLs, delegation tokens, and optionally SASL with SCRAM users, plus the client properties to connect with.

Why an authorizer by default: without one every ACL command answers SECURITY_DISABLED, and the tenant sample
(which grants ACLs) fails; the demo is where people look before trusting a tool.  Without SASL the client is
``User:ANONYMOUS``, made a super user so that every command works; with SASL, ``admin`` is the super user and
``alice`` an ordinary user whose rights are the seeded ACLs, so ``acls whoami`` shows the difference.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any

from kadmin.testing.cluster import FakeCluster

#: Who the demo's users are: the super user, and one user limited to her ACLs.
SUPER_USER = "admin"
USER = "alice"
SCRAM_MODULE = "org.apache.kafka.common.security.scram.ScramLoginModule"
MECHANISM = "SCRAM-SHA-256"


@dataclass
class DemoCluster:
    """A started demo cluster and, with SASL, the properties each demo user connects with (user -> text)."""

    cluster: FakeCluster
    logins: dict[str, str] = field(default_factory=dict)

    def close(self) -> None:
        self.cluster.close()


def properties(bootstrap: str, user: str, password: str) -> str:
    """A ``--command-config`` file for ``user``: Kafka's own client properties, usable by Kafka's tools too."""
    return (f"bootstrap.servers={bootstrap}\n"
            "security.protocol=SASL_PLAINTEXT\n"
            f"sasl.mechanism={MECHANISM}\n"
            f'sasl.jaas.config={SCRAM_MODULE} required username="{user}" password="{password}";\n')


def seed_acls(cluster: FakeCluster) -> None:
    """alice: kafka-acls.sh's consumer role on orders (as group orders-service) and producer role on
    payments."""
    who = f"User:{USER}"
    for rt, name, op in (("topic", "orders", "read"), ("topic", "orders", "describe"),
                         ("group", "orders-service", "read"), ("topic", "payments", "write"),
                         ("topic", "payments", "describe"), ("topic", "payments", "create")):
        cluster.add_acl(rt, name, who, op)


def start_demo(brokers: int = 3, versions: Any = None, *, sasl: bool = False, authorizer: bool = True,
               seed: bool = True) -> DemoCluster:
    """Start the demo cluster (the caller closes it): with ``seed`` topics, groups, offsets and quotas (and
    with ``authorizer`` ACLs for alice); with ``sasl`` SCRAM logins for admin and alice (random passwords, in
    ``logins``)."""
    from kadmin.testing.__main__ import seed_demo

    options: dict[str, Any] = {"brokers": brokers, "delegation_tokens": True}
    if versions is not None:
        options["versions"] = versions
    passwords = {SUPER_USER: secrets.token_urlsafe(12), USER: secrets.token_urlsafe(12)} if sasl else {}
    if sasl:
        options["sasl"] = {"mechanisms": ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"], "users": passwords}
    if authorizer:
        options["authorizer"] = {"super_users": [f"User:{SUPER_USER}" if sasl else "User:ANONYMOUS"]}
    cluster = FakeCluster(**options)
    try:
        if seed:
            seed_demo(cluster)
            if authorizer:
                seed_acls(cluster)
    except BaseException:
        cluster.close()
        raise
    logins = {user: properties(cluster.bootstrap, user, pw) for user, pw in passwords.items()}
    return DemoCluster(cluster, logins)
