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
    parser.add_argument("--seed-demo", action="store_true",
                        help="create demo topics, groups, quotas (and with the authorizer, ACLs for alice)")
    parser.add_argument("--authorizer", action=argparse.BooleanOptionalAction, default=None,
                        help="enforce ACLs (default: on with --seed-demo or --sasl); the super user is User:ANONYMOUS, "
                             "or admin with --sasl")
    parser.add_argument("--sasl", action="store_true",
                        help="SASL (PLAIN, SCRAM-SHA-256/512) with users admin and alice; their client properties "
                             "are printed after the address")
    parser.add_argument("--verbose", "-v", action="store_true")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    done = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: done.set())
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    authorizer = args.authorizer if args.authorizer is not None else bool(args.seed_demo or args.sasl)
    if args.sasl and not authorizer:
        parser.error("--sasl demonstrates the users' different rights: it needs the authorizer")
    from kadmin.testing.demo import start_demo

    demo = start_demo(args.brokers, args.versions, sasl=args.sasl, authorizer=authorizer, seed=args.seed_demo)
    try:
        # The first line is the address alone (scripts read it); the logins follow, each a properties file.
        print(demo.cluster.bootstrap, flush=True)
        for user, text in demo.logins.items():
            print(f"\n# {user}.properties\n{text}", end="", flush=True)
        done.wait()
    finally:
        demo.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
