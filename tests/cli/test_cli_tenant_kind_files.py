"""``kadmin provision``'s checks of the ``groups_offsets``, ``acl_roles`` and ``share_groups_offsets`` files,
made before Spark starts: no JVM, no cluster."""

from __future__ import annotations

from pathlib import Path

import pytest

from kadmin.cli.config import UsageError
from kadmin.cli.tenant_input import FORMATS_HELP, check_file, find_files


def checked_kinds(spec: Path, files: dict[str, str]) -> list[str]:
    """The kinds find_files gives the folder of ``files`` ({name: text}), each file checked."""
    spec.mkdir()
    for name, text in files.items():
        (spec / name).write_text(text)
    found = find_files(str(spec))
    for f in found:
        check_file(f)
    return [f.kind for f in found]


def test_a_groups_offsets_file_is_a_kind_of_its_own(tmp_path: Path) -> None:
    kinds = checked_kinds(tmp_path / "spec", {
        "groups_offsets.csv": "group,topic,partition,target\ng,t,,earliest\ng,t,0,offset:5\n",
        "topics.jsonl": '{"name": "t", "partitions": 1}\n'})
    assert kinds == ["topics", "groups_offsets"]  # topics first: resets come after them
    assert "groups_offsets.csv" in FORMATS_HELP and "offset:N" in FORMATS_HELP


def test_role_and_share_offset_files_are_kinds_of_their_own(tmp_path: Path) -> None:
    kinds = checked_kinds(tmp_path / "spec", {
        "acl_roles.csv": "principal,role,topic,pattern_type,group,transactional_id,idempotent,host\n"
                         "User:a,producer,a-,PREFIXED,,a-tx,true,\n",
        "share_groups_offsets.jsonl": '{"group": "g", "topic": "t", "partition": 0, "target": "earliest"}\n',
        "acls.csv": "principal,operation,resource_type,resource_name\nUser:a,READ,TOPIC,a\n"})
    assert kinds == ["acls", "acl_roles", "share_groups_offsets"]
    assert "acl_roles.csv" in FORMATS_HELP and "share_groups_offsets.csv" in FORMATS_HELP


@pytest.mark.parametrize(("name", "text", "expected"), [
    ("groups_offsets.csv", "group,topic,offset\ng,t,5\n", "missing column(s) target"),
    ("groups_offsets.csv", "group,topic,target,member\ng,t,earliest,m\n", "unknown column(s) member"),
    ("groups_offsets.jsonl", '{"group": "g", "topic": "t", "partition": "zero", "target": "earliest"}\n',
     "'partition' must hold a whole number"),
    ("groups_offsets.jsonl", '{"group": "g", "topic": "t", "target": 5}\n', "'target' must hold text"),
    ("acl_roles.csv", "principal,topic\nUser:a,t\n", "missing column(s) role"),
    ("acl_roles.csv", "principal,role,topic,operation\nUser:a,producer,t,READ\n", "unknown column(s) operation"),
    ("acl_roles.jsonl", '{"principal": "User:a", "role": "producer", "topic": "t", "idempotent": true}\n',
     "'idempotent' must hold text"),
    ("share_groups_offsets.csv", "group,topic,start_offset\ng,t,5\n", "missing column(s) target"),
])
def test_bad_kind_files_are_refused_before_spark(tmp_path: Path, name: str, text: str, expected: str) -> None:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(UsageError) as exc:
        for f in find_files(str(path)):
            check_file(f)
    assert expected in str(exc.value)
