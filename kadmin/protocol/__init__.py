"""kadmin's protocol layer: Kafka's JSON message schemas compiled into exact, fast codecs.

Pure: bytes in, objects out. No sockets, no clocks.
"""

from kadmin.protocol.message import Message, Struct
from kadmin.protocol.registry import api_name, load_schema, message_type, shipped_names

__all__ = ["Message", "Struct", "api_name", "load_schema", "message_type", "shipped_names"]
