"""``python -m kadmin.testing``: run a fake cluster in the foreground until Ctrl-C.

Prints the bootstrap address (the one place kadmin prints: it is this program's output).
"""

from __future__ import annotations

import argparse
import logging
import signal
import threading
from collections.abc import Sequence

from kadmin.testing.cluster import FakeCluster
from kadmin.testing.state.groups import Member
from kadmin.versions import DEFAULT_RELEASE, RELEASE_NAMES


def seed_demo(cluster: FakeCluster) -> None:
    """A few topics, groups in several states, offsets and quotas to look at with any admin tool."""
    cluster.add_topic("orders", partitions=3, offsets=[120, 80, 45])
    cluster.add_topic("payments", partitions=1, offsets={0: (10, 500)})
    cluster.add_group("orders-service", members=[
        Member("orders-service-1", client_id="orders-1", host="/10.0.0.5"),
        Member("orders-service-2", client_id="orders-2", host="/10.0.0.6")])
    cluster.add_group("billing", state="Empty")
    cluster.add_group("rebalancing", state="PreparingRebalance", members=[Member("r-1", client_id="r")])
    for p, off in enumerate((100, 70, 45)):
        cluster.commit("orders-service", "orders", p, off)
    cluster.commit("billing", "payments", 0, 400, metadata="nightly")
    cluster.set_quota({"user": "alice"}, "producer_byte_rate", 1048576)
    cluster.set_quota({"user": "alice", "client-id": "etl"}, "consumer_byte_rate", 2097152)
    cluster.set_quota({"user": None}, "request_percentage", 50.0)
    cluster.set_quota({"ip": "10.0.0.5"}, "connection_creation_rate", 20)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kadmin.testing", description=__doc__)
    parser.add_argument("--brokers", type=int, default=3)
    parser.add_argument("--versions", default=DEFAULT_RELEASE, choices=RELEASE_NAMES,
                        help="Kafka release whose API versions every broker advertises")
    parser.add_argument("--seed-demo", action="store_true", help="create demo topics, groups and quotas")
    parser.add_argument("--verbose", "-v", action="store_true")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    done = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: done.set())
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    with FakeCluster(brokers=args.brokers, versions=args.versions) as cluster:
        if args.seed_demo:
            seed_demo(cluster)
        print(cluster.bootstrap, flush=True)
        done.wait()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
