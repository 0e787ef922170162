"""Share groups (KIP-932): what kadmin answers about their offsets.

A share group does not commit offsets per member: its share coordinator keeps, per partition, the
**share-partition start offset (SPSO)**, the first offset the group has not finished with (every record below
it was delivered and acknowledged, or given up on).  ``list_share_group_offsets`` reads it with
DescribeShareGroupOffsets (Kafka 4.1+), and from v1 (Kafka 4.2) also the lag; ``alter_share_group_offsets``
sets it, but only while the group has no members; ``reset_share_group_offsets`` plans and writes a reset the
way kafka-share-groups.sh --reset-offsets does (a :class:`kadmin.offset_reset.OffsetResetPlan` whose
``current`` is the SPSO).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SharePartitionOffset:
    """One partition of a share group: its start offset (SPSO), the leader epoch that goes with it (None when
    the broker does not say), and the lag: records between the SPSO and the log end the group has not
    finished with (None from Kafka 4.1 brokers, whose DescribeShareGroupOffsets v0 has no lag, or when the
    broker could not compute it)."""

    start_offset: int
    leader_epoch: int | None = None
    lag: int | None = None


__all__ = ["SharePartitionOffset"]
