"""The producer-ids area: what InitProducerId hands out (the next producer id, and each transactional id's
producer id and epoch).  The sequence checks a partition leader makes per producer are kept per partition
(kadmin.testing.producer_state)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class ProducerIds:
    """The area."""

    #: The next producer id InitProducerId allocates.
    next_id: int = 1000
    #: transactional id -> (producer id, epoch).
    transactional: dict[str, tuple[int, int]] = field(default_factory=dict)
