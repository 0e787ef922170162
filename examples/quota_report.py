"""Report client quotas: every configured entity, then the quotas that actually apply to each user.

    python examples/quota_report.py                                       # embedded demo cluster
    python examples/quota_report.py --bootstrap-server broker:9092 --user alice --client-id etl

Why the second part: Kafka picks one entity per quota key by precedence (user+client-id, user, default user,
..., default client-id), so "what is alice allowed" is rarely what alice's own entity says.  Each line shows
the value, and the entity it comes from.

Without --bootstrap-server it starts kadmin's embedded fake cluster (kadmin.testing.FakeCluster, not Kafka)
seeded with demo data, and says so.
"""

from __future__ import annotations

import argparse
import contextlib
import sys

from kadmin import AdminClient
from kadmin.errors import UnsupportedVersionError
from kadmin.quotas import USER, ClientQuotaFilter
from kadmin.testing import embedded


def cluster_address(bootstrap: str | None) -> contextlib.AbstractContextManager[str]:
    """The given cluster, or the embedded demo cluster for as long as the example runs."""
    return embedded.cluster_address(bootstrap, announce=lambda line: print(line, file=sys.stderr))


def number(v: float) -> str:
    return str(int(v)) if v.is_integer() else repr(v)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap-server", help="host:port,... (default: an embedded demo cluster)")
    parser.add_argument("--user", action="append", default=[], help="resolve for this user (repeatable; "
                        "default: every user that has an entity)")
    parser.add_argument("--client-id", help="resolve for this client id too")
    args = parser.parse_args()

    with cluster_address(args.bootstrap_server) as bootstrap, AdminClient(bootstrap) as admin:
        try:
            quotas = admin.describe_client_quotas(ClientQuotaFilter.all())
        except UnsupportedVersionError as exc:  # Kafka before 2.6, or a broker without KIP-546
            print(f"this cluster has no client quota APIs: {exc}", file=sys.stderr)
            return 2

        print(f"{len(quotas)} entit(y/ies) with quotas:")
        for entity, values in quotas.items():
            settings = ", ".join(f"{k}={number(v)}" for k, v in sorted(values.items()))
            print(f"    {entity}: {settings}")

        users = args.user or sorted({e[USER] for e in quotas if USER in e and e[USER] is not None})
        for user in users:
            resolved = admin.resolve_client_quotas(user=user, client_id=args.client_id)
            who = f"user {user!r}" + (f", client-id {args.client_id!r}" if args.client_id else "")
            print(f"\neffective quotas for {who}:")
            if not resolved.quotas:
                print("    none configured: the brokers' static defaults apply")
            for key, r in resolved.quotas.items():
                print(f"    {key} = {number(r.value)}  (level {r.level}: {r.source})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
