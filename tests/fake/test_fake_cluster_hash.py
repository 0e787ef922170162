"""The fake cluster places groups as Kafka does: Java's String.hashCode over UTF-16 code units."""

from __future__ import annotations

import random

import pytest

from kadmin.testing.state import java_string_hash, partition_for


def reference(s: str) -> int:
    """String.hashCode by the book: every UTF-16 code unit, 32-bit signed wrap-around."""
    data = s.encode("utf-16-be")
    h = 0
    for i in range(0, len(data), 2):
        h = (31 * h + int.from_bytes(data[i:i + 2], "big")) % (1 << 32)
    return h - (1 << 32) if h >= (1 << 31) else h


@pytest.mark.parametrize(("s", "java"), [
    ("", 0), ("a", 97), ("abc", 96354), ("hello", 99162322),
    ("\u00e9", 233), ("\U0001F600", 1772899),  # outside the BMP: a surrogate pair, two code units
    ("polygenelubricants", -2147483648),  # Integer.MIN_VALUE, which Kafka's Utils.abs maps to 0
])
def test_known_java_hash_codes(s: str, java: int) -> None:
    assert java_string_hash(s) == java == reference(s)


def test_random_strings_ascii_or_not_hash_like_java() -> None:
    rnd = random.Random(7)
    for _ in range(3000):
        chars = [chr(rnd.choice([rnd.randint(0, 127), rnd.randint(128, 0xD7FF), rnd.randint(0xE000, 0x10FFFF)]))
                 for _ in range(rnd.randint(0, 60))]
        for s in ("".join(chars), "".join(c for c in chars if c.isascii())):
            assert java_string_hash(s) == reference(s), s


def test_min_value_goes_to_partition_zero() -> None:
    assert java_string_hash("polygenelubricants") == -(1 << 31)
    assert partition_for("polygenelubricants") == 0
