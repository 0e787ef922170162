"""The record of every request a fake broker received, for tests that assert on traffic.

Tests ask questions like "did the client send FindCoordinator once, batched, to node 2?" — so each entry
keeps the keys the request was about (group ids, coordinator keys, quota entities, topics), not just its
API key.  Requests a broker refused (unsupported version, unknown API) are logged too: seeing them is the
point of a version-negotiation test.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RequestLogEntry:
    node_id: int
    api_key: int
    version: int
    correlation_id: int
    keys: tuple[str, ...]
    client_id: str | None
    timestamp: float
