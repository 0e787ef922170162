"""The producer-ids area: what InitProducerId hands out (the next producer id).  Transactional ids, with their
producer id and epoch, are the transaction coordinator's (kadmin.testing.state.transactions); the sequence
checks a partition leader makes per producer are kept per partition (kadmin.testing.producer_state)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class ProducerIds:
    """The area."""

    #: The next producer id InitProducerId allocates.
    next_id: int = 1000
