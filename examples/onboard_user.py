"""Onboard a tenant user: a SCRAM password, READ on its prefixed groups and topics, then what it may do.

    python examples/onboard_user.py                       # an embedded, secured fake cluster
    ONBOARD_PASSWORD=... python examples/onboard_user.py --bootstrap-server broker:9093 \\
        --command-config admin.properties --user bob --prefix bob-

The admin's own connection settings (SASL, TLS) come from a Kafka-style properties file, as for the kadmin
command line.  The new user's password comes from $ONBOARD_PASSWORD or a prompt, never from the command line;
it is salted here and only the salted form is sent.  Without --bootstrap-server the example starts kadmin's
embedded fake cluster (kadmin.testing.FakeCluster, not Kafka) with SASL/SCRAM and an authorizer, and at the
end logs in as the new user to show the grants at work.
"""

from __future__ import annotations

import argparse
import contextlib
import getpass
import os
import secrets
import sys
from collections.abc import Iterator
from typing import Any

from kadmin import AclBinding, AdminClient, ClientConfig, ScramUpsertion
from kadmin.errors import KafkaError

ADMIN = ("admin", "admin-secret")  # the embedded cluster's super user


@contextlib.contextmanager
def admin_settings(args: argparse.Namespace) -> Iterator[dict[str, Any]]:
    """Settings for the admin's client: from the given cluster's properties file, or an embedded cluster."""
    if args.bootstrap_server:
        props: dict[str, str] = {}
        if args.command_config:
            from kadmin.cli.config import read_properties

            props = read_properties(args.command_config)
        yield {"config": ClientConfig.from_properties(props, bootstrap_servers=args.bootstrap_server)}
        return
    from kadmin.testing import FakeCluster

    with FakeCluster(brokers=3, sasl={"mechanisms": ["SCRAM-SHA-512"], "users": dict([ADMIN])},
                     authorizer={"super_users": [f"User:{ADMIN[0]}"]}) as cluster:
        for group in (f"{args.prefix}orders", f"{args.prefix}billing", "someone-else"):
            cluster.add_group(group)
        print(f"(no --bootstrap-server: using kadmin's embedded fake cluster at {cluster.bootstrap}, with "
              "SASL/SCRAM and an authorizer; it is not Kafka)", file=sys.stderr)
        yield {"bootstrap_servers": cluster.bootstrap, **scram(*ADMIN)}


def scram(user: str, password: str) -> dict[str, Any]:
    return {"security_protocol": "SASL_PLAINTEXT", "sasl_mechanism": "SCRAM-SHA-512", "sasl_username": user,
            "sasl_password": password}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap-server", help="host:port,... (default: an embedded secured fake cluster)")
    parser.add_argument("--command-config", help="the admin's client properties (security.protocol, sasl.*)")
    parser.add_argument("--user", default="bob")
    parser.add_argument("--prefix", default="bob-", help="the tenant's group and topic name prefix")
    args = parser.parse_args()
    password = os.environ.get("ONBOARD_PASSWORD")
    if not password and sys.stdin.isatty():
        password = getpass.getpass(f"password for {args.user}: ")
    if not password and args.bootstrap_server:
        print("no password: set ONBOARD_PASSWORD or run on a terminal", file=sys.stderr)
        return 2
    password = password or secrets.token_urlsafe(16)  # the embedded cluster: any password will do

    principal = f"User:{args.user}"
    grants = [AclBinding.of(kind, args.prefix, principal, op, pattern_type="prefixed")
              for kind, ops in (("group", ("read",)), ("topic", ("read", "describe"))) for op in ops]
    failed = 0
    with admin_settings(args) as settings:
        with AdminClient(**settings) as admin:
            users = admin.alter_user_scram_credentials([ScramUpsertion(args.user, "SCRAM-SHA-512", password)])
            acls = admin.create_acls(grants)
            for key, err in [*users.items(), *acls.items()]:
                print(f"{key}: {'ok' if err is None else f'{err.name}: {err.message}'}")
                failed += err is not None
            print(f"what {principal} may do:")
            for pattern, entries in admin.describe_acls(principal=principal).by_resource().items():
                print(f"    {pattern}: " + ", ".join(f"{e.permission.name} {e.operation.name}" for e in entries))
        if not args.bootstrap_server:  # show the grants at work, as the new user
            with AdminClient(settings["bootstrap_servers"], **scram(args.user, password)) as user:
                groups = [g.group_id for g in user.list_consumer_groups().groups]
                print(f"logged in as {user.whoami().principal}; groups visible: {', '.join(groups)}")
                other = user.describe_consumer_groups(["someone-else"])["someone-else"]
                print(f"someone-else: {other.name if isinstance(other, KafkaError) else 'visible (unexpected)'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
