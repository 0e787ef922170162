"""Delete consumer groups that have no members.  A dry run unless --yes is given.

    python examples/delete_empty_groups.py                                # embedded demo cluster, dry run
    python examples/delete_empty_groups.py --bootstrap-server broker:9092 --match 'tmp-*' --yes

Why "empty" is checked twice: the listing's state is only a hint (a consumer may join in between), so the
groups are described first, and the broker itself refuses to delete a group that gained members
(NON_EMPTY_GROUP), which is reported for that group without stopping the others.

Without --bootstrap-server it starts kadmin's embedded fake cluster (kadmin.testing.FakeCluster, not Kafka)
seeded with demo data, and says so.
"""

from __future__ import annotations

import argparse
import contextlib
import fnmatch
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
    parser.add_argument("--match", default="*", help="only group ids matching this glob (default: all)")
    parser.add_argument("--yes", action="store_true", help="really delete (default: only show what would go)")
    args = parser.parse_args()

    with cluster_address(args.bootstrap_server) as bootstrap, AdminClient(bootstrap) as admin:
        listing = admin.list_consumer_groups(states=["Empty"])
        if listing.errors:
            # An incomplete listing is fine for deleting (we only delete what we saw), but say so.
            print(f"warning: {len(listing.errors)} broker(s) did not list their groups", file=sys.stderr)
        candidates = [g for g in listing.group_ids() if fnmatch.fnmatchcase(g, args.match)]
        described = admin.describe_consumer_groups(candidates) if candidates else {}
        empty = [g for g, d in described.items() if not isinstance(d, KafkaError) and d.is_empty]
        if not empty:
            print("no empty groups to delete")
            return 0
        if not args.yes:
            print(f"would delete {len(empty)} empty group(s) (dry run; pass --yes to delete):")
            for g in empty:
                print(f"    {g}")
            return 0

        results = admin.delete_consumer_groups(empty)
        failed = {g: e for g, e in results.items() if e is not None}
        for g, err in results.items():
            print(f"    {g}: {'deleted' if err is None else f'{err.name}: {err.message}'}")
        print(f"deleted {len(results) - len(failed)} of {len(results)} group(s)")
        return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
