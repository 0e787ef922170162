"""What the decoder-shortcut tests share (tests/protocol/test_protocol_reuse.py, test_protocol_fast_paths.py):
DescribeClientQuotasResponse messages from plain entries, and a decode by both the fast and the tracing decoder
(which has no shortcut and reads every field on its own)."""

from __future__ import annotations

from typing import Any

from kadmin.protocol import message_type

QUOTAS: Any = message_type("DescribeClientQuotasResponse")
#: One quota entry as plain data: its entity's (type, name) pairs and its (key, value) pairs.
Entry = tuple[list[tuple[str, str | None]], list[tuple[str, float]]]


def quotas_message(entries: list[Entry], tags: dict[int, bytes] | None = None) -> Any:
    """A DescribeClientQuotasResponse of ``entries``; ``tags``: every value's unknown tagged fields."""
    r = QUOTAS
    return r(throttle_time_ms=0, error_code=0, error_message=None, entries=[
        r.EntryData(entity=[r.EntityData(entity_type=t, entity_name=n) for t, n in entity],
                    values=[r.ValueData(key=k, value=v, unknown_tagged_fields=tags) for k, v in values])
        for entity, values in entries])


def fast_and_traced(cls: Any, data: bytes, version: int) -> tuple[Any, Any]:
    """``data`` decoded by the fast decoder and by the tracing one, each to its end."""
    fast = cls.decode(data, version, exact=True)
    traced, end = cls._codec(version, trace=True)[1](data, 0, len(data))
    assert end == len(data)
    return fast, traced


def assert_quota_entries_decode_as_given(entries: list[Entry], version: int) -> None:
    """Both decoders read ``entries`` back as given (and as the message they were encoded from)."""
    msg = quotas_message(entries)
    fast, traced = fast_and_traced(QUOTAS, msg.encode(version), version)
    assert fast == traced == msg
    got = [([(e.entity_type, e.entity_name) for e in entry.entity], [(v.key, v.value) for v in entry.values])
           for entry in fast.entries]
    assert got == entries
