"""The caller's keys, kept: one normalising step and one way back, for every method that takes keys.

kadmin sends normalised keys (``TopicPartition("t", 0)``, ``ConfigResource(TOPIC, "t")``, broker ``"1"``) but
answers under the key the caller passed (``("t", 0)``, ``ConfigResource("topic", "t")``, broker ``"01"``):
``results[key]`` works for every key asked about, whatever spelling Kafka's own tools would accept.

Two *different* keys that mean the same thing (``("t", 0)`` and ``TopicPartition("t", 0)``; brokers ``"1"`` and
``"01"``) are refused with a ValueError before anything is sent: in a mapping they carry two values for one
partition or resource (neither may silently win), and in a list one of them could only be answered by a copy
of the other's answer.  The same key listed twice is one question and gets one answer.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from kadmin.configs import ConfigResource, ConfigResourceType
    from kadmin.types import TopicPartition

CK = TypeVar("CK", bound=Hashable)
N = TypeVar("N", bound=Hashable)
V = TypeVar("V")

#: A partition as callers may name it: ``TopicPartition("t", 0)`` or ``("t", 0)``.
PartitionKey = TypeVar("PartitionKey", bound="TopicPartition | tuple[str, int]")
#: A config resource as callers may name it: ``ConfigResource.topic("t")`` or ``("topic", "t")`` /
#: ``(ConfigResourceType.TOPIC, "t")``.
ResourceKey = TypeVar("ResourceKey", bound="ConfigResource | tuple[ConfigResourceType | str | int, str]")


def normalise_keys(keys: Iterable[CK], check: Callable[[CK], N], call: str, what: str) -> dict[N, CK]:
    """{normalised key: the caller's key}, in the caller's order.  ``check`` validates and normalises one key
    (raising TypeError/ValueError); two different caller keys with one normal form raise ValueError naming
    both (``what`` says what a key is: "partition", "config resource")."""
    out: dict[N, CK] = {}
    for key in keys:
        normal = check(key)
        if normal in out:
            first = out[normal]
            if first == key:
                continue
            raise ValueError(f"{call}: {first!r} and {key!r} are the same {what} ({normal}); "
                             "give it once")
        out[normal] = key
    return out


def hash_or_none(fields: tuple[object, ...]) -> int | None:
    """The hash a key caches (TopicPartition, ConfigResource), or None when a field is unhashable: bad input that
    validation refuses with its own message, which a TypeError from the constructor would pre-empt."""
    try:
        return hash(fields)
    except TypeError:
        return None


def by_caller_key(results: Mapping[N, V], keys: Mapping[N, CK]) -> dict[CK, V]:
    """Results keyed by normalised keys, re-keyed by the caller's keys (``keys`` from :func:`normalise_keys`)."""
    return {key: results[normal] for normal, key in keys.items()}


def partitions_by_topic(partitions: Iterable[TopicPartition]) -> dict[str, list[int]]:
    """{topic: [partition, ...]} in first-seen order: how every request names the partitions it carries."""
    topics: dict[str, list[int]] = {}
    for tp in partitions:
        topics.setdefault(tp.topic, []).append(tp.partition)
    return topics


__all__ = ["PartitionKey", "ResourceKey", "by_caller_key", "hash_or_none", "normalise_keys", "partitions_by_topic"]
