"""Rebootstrap (KIP-1102): when the client must forget the cluster it knows and learn it again from its
bootstrap addresses.

Two triggers, as in Kafka's clients (``metadata.recovery.strategy=rebootstrap``, the default since 4.0):

* a Metadata answer (v13+) whose top-level ErrorCode is REBOOTSTRAP_REQUIRED: the broker says the client's
  view is stale (e.g. the cluster was replaced behind the same addresses);
* every known node is unreachable: the nodes the metadata names may all be gone (a cluster moved to new hosts),
  while the bootstrap addresses (often a DNS name or a load balancer) still lead to the cluster.

Either way :class:`kadmin.network.client.NetworkClient` asks only the bootstrap addresses on its next metadata
round, connecting to each by name again (``asyncio.open_connection`` resolves the name on every connect; no
address is kept resolved), and replaces the metadata with the first answer.  Unlike Java's client, which waits
``metadata.recovery.rebootstrap.trigger.ms`` (5 minutes) with no node reachable, kadmin rebootstraps in the
same round: an admin call has a deadline far shorter than that, and the bootstrap addresses are asked anyway
once the known nodes fail.
"""

from __future__ import annotations

from typing import Any

from kadmin.errors import ErrorCode, KafkaError, error_for_code

#: Metadata's first version with a top-level ErrorCode (KIP-1102).
METADATA_ERROR_SINCE = 13


def metadata_error(response: Any, version: int) -> KafkaError | None:
    """The top-level error of a Metadata answer (v13+), or None (older versions have none)."""
    if version < METADATA_ERROR_SINCE:
        return None
    return error_for_code(int(getattr(response, "error_code", ErrorCode.NONE)),
                          getattr(response, "error_message", None))


def is_rebootstrap(err: BaseException | None) -> bool:
    return isinstance(err, KafkaError) and err.code == ErrorCode.REBOOTSTRAP_REQUIRED


__all__ = ["METADATA_ERROR_SINCE", "is_rebootstrap", "metadata_error"]
