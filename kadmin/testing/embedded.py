"""The embedded default for examples and demos: a given cluster, or a seeded FakeCluster while needed.

Why in the library: every runnable example takes ``--bootstrap-server`` and, without it, must still run
against something real on the wire and say so.  One helper keeps that behaviour (and the message) the same
everywhere.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator


@contextlib.contextmanager
def cluster_address(bootstrap: str | None, *, brokers: int = 3, seed_demo: bool = True,
                    announce: Callable[[str], None] | None = None) -> Iterator[str]:
    """Yield ``bootstrap``; or, when it is empty, start a FakeCluster (seeded with demo data) and yield its
    address for as long as the block runs.  ``announce`` receives one line saying which it is."""
    if bootstrap:
        yield bootstrap
        return
    from kadmin.testing import FakeCluster
    from kadmin.testing.__main__ import seed_demo as seed

    with FakeCluster(brokers=brokers) as cluster:
        if seed_demo:
            seed(cluster)
        if announce is not None:
            announce(f"(no --bootstrap-server: using kadmin's embedded fake cluster at {cluster.bootstrap}"
                     f"{', seeded with demo data' if seed_demo else ''}; it is not Kafka)")
        yield cluster.bootstrap
