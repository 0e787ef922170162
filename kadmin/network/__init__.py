"""kadmin's network layer: connections, version negotiation, TLS/SASL, metadata, retries (asyncio)."""

from kadmin.network.client import NetworkClient
from kadmin.network.connection import Connection
from kadmin.network.metadata import ClusterMetadata, Node
from kadmin.network.negotiation import Negotiated
from kadmin.network.retry import Deadline, retry_call

__all__ = ["ClusterMetadata", "Connection", "Deadline", "Negotiated", "NetworkClient", "Node", "retry_call"]
