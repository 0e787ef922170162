"""kadmin.cli.json_records: every record of a JSON-lines or JSON-array file, streamed in chunks.

Small chunks (7 characters) put every kind of cut (inside a string, a number, an escape, between records)
at a chunk's edge; the records must come back exactly as ``json.loads`` of the whole file gives them."""

from __future__ import annotations

import io
import json
import random
from typing import Any

import pytest

from kadmin.cli import json_records
from kadmin.cli.json_records import JsonRecordError, iter_records


def records(n: int) -> list[Any]:
    rng = random.Random(17)
    out: list[Any] = []
    for i in range(n):
        out.append({"name": f"t{i}-\u00e9v\\\"ents", "partitions": rng.randint(1, 10**6), "ratio": rng.random(),
                    "configs": {"retention.ms": str(rng.randint(0, 10**9))}, "flag": rng.random() < 0.5,
                    "none": None, "list": [1, [2, {"x": "y"}]]})
    return out


@pytest.mark.parametrize("chunk", [7, 64, 1 << 20])
@pytest.mark.parametrize("layout", ["lines", "array", "pretty"])
def test_every_record_comes_back_whatever_the_chunk(monkeypatch: pytest.MonkeyPatch, chunk: int,
                                                    layout: str) -> None:
    monkeypatch.setattr(json_records, "CHUNK", chunk)
    data = records(40)
    if layout == "lines":
        text = "\n".join(json.dumps(r) for r in data) + "\n\n"
    elif layout == "array":
        text = json.dumps(data)
    else:
        text = "  \n" + json.dumps(data, indent=3) + "\n"
    got = list(iter_records(io.StringIO(text)))
    assert [r for _, r in got] == data
    if layout == "lines":
        assert [n for n, _ in got] == list(range(1, 41))
    else:
        assert [n for n, _ in got] == list(range(1, 41))


@pytest.mark.parametrize(("text", "expected"), [
    ('{"a": 1}\n{"a": \n', "line 2 is not a JSON record"),
    ('{"a": 1}\n\n{"a": 1}, {"b": 2}\n', "line 3 is not a JSON record"),
    ('[{"a": 1}, {"a": 2}', "no closing ']'"),
    ('[{"a": 1} {"a": 2}]', "after record 1: expected ',' or ']'"),
    ('[{"a": 1},]', "record 2 is not valid JSON"),
    ('[{"a": 1}] x', "text after the JSON array"),
    ('[{"a": "unterminated}]', "record 1 is not valid JSON"),
])
def test_bad_files_name_the_line_or_record(monkeypatch: pytest.MonkeyPatch, text: str, expected: str) -> None:
    for chunk in (5, 1 << 20):
        monkeypatch.setattr(json_records, "CHUNK", chunk)
        with pytest.raises(JsonRecordError, match=None) as exc:
            list(iter_records(io.StringIO(text)))
        assert expected in str(exc.value)


def test_empty_array_and_empty_file() -> None:
    assert list(iter_records(io.StringIO(" [ ] \n"))) == []
    assert list(iter_records(io.StringIO(""))) == []
    assert list(iter_records(io.StringIO("\n\n"))) == []
