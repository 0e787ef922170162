"""Describe consumer groups: state, members, and lag per group, with one result (or error) per group.

    python examples/describe_groups.py                                  # embedded demo cluster
    python examples/describe_groups.py --bootstrap-server broker:9092 payments orders

Without group ids it lists every group first.  Without --bootstrap-server it starts kadmin's embedded fake
cluster (kadmin.testing.FakeCluster, not Kafka) seeded with demo data, and says so.
"""

from __future__ import annotations

import argparse
import contextlib
import sys

from kadmin import AdminClient
from kadmin.errors import KafkaError
from kadmin.testing import embedded


def cluster_address(bootstrap: str | None) -> contextlib.AbstractContextManager[str]:
    """The given cluster, or the embedded demo cluster for as long as the example runs."""
    return embedded.cluster_address(bootstrap, announce=lambda line: print(line, file=sys.stderr))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap-server", help="host:port,... (default: an embedded demo cluster)")
    parser.add_argument("groups", nargs="*", help="group ids (default: every group)")
    args = parser.parse_args()

    failed = 0
    with cluster_address(args.bootstrap_server) as bootstrap, AdminClient(bootstrap) as admin:
        group_ids = args.groups
        if not group_ids:
            listing = admin.list_consumer_groups()
            for node, err in listing.errors.items():
                print(f"warning: broker {node} did not list its groups: {err}", file=sys.stderr)
            group_ids = listing.group_ids()
        if not group_ids:
            print("no groups")
            return 0

        descriptions = admin.describe_consumer_groups(group_ids)
        lags = admin.consumer_group_lag(group_ids)  # committed vs. log-end offsets, per partition

        for group_id in group_ids:
            d = descriptions[group_id]
            if isinstance(d, KafkaError):  # one bad group never hides the others
                print(f"{group_id}: {d.name}: {d.message}")
                failed += 1
                continue
            lag = lags[group_id]
            if isinstance(lag, KafkaError):
                total = f"lag unknown ({lag.name})"
            else:
                known = [v.lag for v in lag.values() if not isinstance(v, KafkaError)]
                total = f"lag {sum(known)} over {len(known)} partition(s)"
            print(f"{group_id}: {d.state}, {len(d.members)} member(s), coordinator {d.coordinator}, {total}")
            for m in d.members:
                print(f"    {m.member_id}  client-id={m.client_id}  host={m.host}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
