"""docs/migration.md names real methods: every kafka-python and confluent-kafka admin method the installed
packages have is in the table, every name the table gives exists there, and every kadmin name is a method of
kadmin.AdminClient.  A peer release that adds a method, or a kadmin rename, fails here instead of leaving the
table wrong."""

from __future__ import annotations

import re
from pathlib import Path

from confluent_kafka.admin import AdminClient as ConfluentAdmin
from kafka.admin import KafkaAdminClient

import kadmin

PAGE = Path(__file__).resolve().parents[2] / "docs" / "migration.md"


def _rows() -> list[tuple[set[str], set[str], set[str]]]:
    text = PAGE.read_text(encoding="utf-8").split("## Method by method", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4 or cells[0] == "kafka-python" or set(cells[0]) <= {"-", " "} and cells[0]:
            continue
        rows.append(tuple(set(re.findall(r"`(\w+)`", c)) for c in cells[:3]))
    return rows  # type: ignore[return-value]


def _public(cls: type) -> set[str]:
    return {n for n in dir(cls) if not n.startswith("_") and callable(getattr(cls, n))}


def test_every_peer_method_is_in_the_table_and_every_name_exists() -> None:
    rows = _rows()
    assert len(rows) > 30
    kp = set().union(*(r[0] for r in rows))
    ck = set().union(*(r[1] for r in rows))
    ours = set().union(*(r[2] for r in rows))
    assert kp == _public(KafkaAdminClient)
    assert ck == _public(ConfluentAdmin)
    assert ours - _public(kadmin.AdminClient) == set()


def test_the_table_covers_every_kadmin_call() -> None:
    ours = set().union(*(r[2] for r in _rows()))
    missing = _public(kadmin.AdminClient) - ours - {"start"}
    # A new kadmin method needs a row (with the peers' names, or blank cells where they have none), and a row
    # that said "—" for it must now name it.
    assert missing == set(), f"add these to docs/migration.md's method table: {sorted(missing)}"
