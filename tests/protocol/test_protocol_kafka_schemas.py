"""kadmin's codec on Kafka's own generator test schemas (reference data, present in CI; see kafka_reference.py).

kadmin's own test schemas (tests/data/schemas) cover the same features and run everywhere; this checks that
the codec also loads Kafka's files as they are (comments, tagged fields without ``versions``, uint32, common
structs) and round-trips every version of them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given

from tests.support.strategies import budget, messages, test_schema_class

KAFKA_TEST_SCHEMAS = ("NullableStructMessage", "SimpleArraysMessage", "SimpleExampleMessage", "SimpleRecordsMessage")


@pytest.mark.parametrize("name", KAFKA_TEST_SCHEMAS)
def test_kafka_generator_schema_roundtrip(name: str, kafka_specs: Path) -> None:
    cls: Any = test_schema_class(name, kafka_specs / "test-schemas")
    versions = range(cls.MIN_VERSION, cls.MAX_VERSION + 1)
    assert len(versions) >= 2
    for version in versions:
        _roundtrip(cls, version)


def _roundtrip(cls: Any, version: int) -> None:
    @budget(20)
    @given(messages(cls, version))
    def check(x: Any) -> None:
        b = x.encode(version)
        y = cls.decode(b, version, exact=True)
        assert y == x and y.encode(version) == b

    check()


def test_kafka_nullable_struct_bytes(kafka_specs: Path) -> None:
    # KIP-893's example as Kafka's generator writes it: a null tagged struct whose default is not null.
    cls: Any = test_schema_class("NullableStructMessage", kafka_specs / "test-schemas")
    msg = cls(nullable_struct=None, nullable_struct2=None, nullable_struct4=None)
    assert msg.encode(1) == bytes.fromhex("ff" "ff" "01" "01" "01" "00")
