"""``kadmin provision``'s checks of a ``groups_offsets`` file, made before Spark starts: no JVM, no cluster."""

from __future__ import annotations

from pathlib import Path

import pytest

from kadmin.cli.config import UsageError
from kadmin.cli.tenant_input import FORMATS_HELP, check_file, find_files


def test_a_groups_offsets_file_is_a_kind_of_its_own(tmp_path: Path) -> None:
    spec = tmp_path / "spec"
    spec.mkdir()
    (spec / "groups_offsets.csv").write_text("group,topic,partition,target\ng,t,,earliest\ng,t,0,offset:5\n")
    (spec / "topics.jsonl").write_text('{"name": "t", "partitions": 1}\n')
    files = find_files(str(spec))
    assert [f.kind for f in files] == ["topics", "groups_offsets"]  # topics first: resets come after them
    for f in files:
        check_file(f)
    assert "groups_offsets.csv" in FORMATS_HELP and "offset:N" in FORMATS_HELP


@pytest.mark.parametrize(("name", "text", "expected"), [
    ("groups_offsets.csv", "group,topic,offset\ng,t,5\n", "missing column(s) target"),
    ("groups_offsets.csv", "group,topic,target,member\ng,t,earliest,m\n", "unknown column(s) member"),
    ("groups_offsets.jsonl", '{"group": "g", "topic": "t", "partition": "zero", "target": "earliest"}\n',
     "'partition' must hold a whole number"),
    ("groups_offsets.jsonl", '{"group": "g", "topic": "t", "target": 5}\n', "'target' must hold text"),
])
def test_bad_groups_offsets_files_are_refused_before_spark(tmp_path: Path, name: str, text: str,
                                                           expected: str) -> None:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(UsageError) as exc:
        for f in find_files(str(path)):
            check_file(f)
    assert expected in str(exc.value)
