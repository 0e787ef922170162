"""Real consumer groups for tests: confluent-kafka consumers (classic or KIP-848 protocol) kept alive by one thread.

The consumers join, get their partitions and commit, but never fetch: each assignment is taken and paused at
once, so no Fetch is sent (the fake cluster does not serve Fetch, and the group tests do not need records).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

from confluent_kafka import Consumer, TopicPartition

from tests.support.peers import RunningBroker


class ConsumerGroups:
    """Consumers of any number of groups, polled every 50 ms by one background thread until closed."""

    def __init__(self, bootstrap: str) -> None:
        self.bootstrap = bootstrap
        self.consumers: dict[str, list[Consumer]] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, name="test-consumers", daemon=True)
        self._thread.start()

    def start(self, group: str, topics: Iterable[str], *, protocol: str = "classic", count: int = 1,
              instance_id: str | None = None, **extra: Any) -> list[Consumer]:
        conf: dict[str, Any] = {"bootstrap.servers": self.bootstrap, "group.id": group, "group.protocol": protocol,
                                "enable.auto.commit": False, "auto.offset.reset": "earliest",
                                "log_level": 3, **extra}
        if protocol == "classic":
            conf.update({"session.timeout.ms": 6000, "heartbeat.interval.ms": 300})
        made = []
        for i in range(count):
            c = Consumer({**conf, **({"group.instance.id": f"{instance_id}-{i}"} if instance_id else {})})
            c.subscribe(list(topics), on_assign=self._on_assign(protocol))
            made.append(c)
        with self._lock:
            self.consumers.setdefault(group, []).extend(made)
        return made

    @staticmethod
    def _on_assign(protocol: str) -> Callable[[Consumer, list[TopicPartition]], None]:
        def take_paused(consumer: Consumer, partitions: list[TopicPartition]) -> None:
            if protocol == "classic":
                consumer.assign(partitions)
            else:
                consumer.incremental_assign(partitions)
            consumer.pause(partitions)
        return take_paused

    def _poll(self) -> None:
        while not self._stop.is_set():
            with self._lock:
                everyone = [c for cs in self.consumers.values() for c in cs]
            for c in everyone:
                try:
                    c.poll(0)
                except RuntimeError:
                    pass  # closed meanwhile
            time.sleep(0.05)

    def close_group(self, group: str) -> None:
        with self._lock:
            gone = self.consumers.pop(group, [])
        for c in gone:
            c.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)
        for group in list(self.consumers):
            self.close_group(group)


def wait_until(check: Callable[[], bool], timeout: float = 20.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def tansu_consumer(tansu: RunningBroker, group: str) -> Consumer:
    """A confluent-kafka consumer of ``group`` on Tansu, reading from the earliest offset and committing only
    when told: the independent reader of what kadmin wrote to a real broker's groups."""
    return Consumer({"bootstrap.servers": tansu.bootstrap, "group.id": group, "enable.auto.commit": False,
                     "auto.offset.reset": "earliest", "session.timeout.ms": 6000, "heartbeat.interval.ms": 500,
                     "log_level": 3})


def committed(tansu: RunningBroker, gid: str, topic: str) -> list[int]:
    """The group's committed offsets of ``topic``'s partitions 0 and 1, as confluent-kafka reads them."""
    c = tansu_consumer(tansu, gid)
    try:
        return [tp.offset for tp in c.committed([TopicPartition(topic, p) for p in (0, 1)], timeout=15)]
    finally:
        c.close()
