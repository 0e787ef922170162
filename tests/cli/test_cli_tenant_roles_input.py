"""``kadmin provision``'s checks of ``acl_roles`` and ``share_groups_offsets`` files, made before Spark starts:
no JVM, no cluster."""

from __future__ import annotations

from pathlib import Path

import pytest

from kadmin.cli.config import UsageError
from kadmin.cli.tenant_input import FORMATS_HELP, check_file, find_files


def test_role_and_share_offset_files_are_kinds_of_their_own(tmp_path: Path) -> None:
    spec = tmp_path / "spec"
    spec.mkdir()
    (spec / "acl_roles.csv").write_text("principal,role,topic,pattern_type,group,transactional_id,idempotent,host\n"
                                        "User:a,producer,a-,PREFIXED,,a-tx,true,\n")
    (spec / "share_groups_offsets.jsonl").write_text('{"group": "g", "topic": "t", "partition": 0, '
                                                     '"target": "earliest"}\n')
    (spec / "acls.csv").write_text("principal,operation,resource_type,resource_name\nUser:a,READ,TOPIC,a\n")
    files = find_files(str(spec))
    assert [f.kind for f in files] == ["acls", "acl_roles", "share_groups_offsets"]
    for f in files:
        check_file(f)
    assert "acl_roles.csv" in FORMATS_HELP and "share_groups_offsets.csv" in FORMATS_HELP


@pytest.mark.parametrize(("name", "text", "expected"), [
    ("acl_roles.csv", "principal,topic\nUser:a,t\n", "missing column(s) role"),
    ("acl_roles.csv", "principal,role,topic,operation\nUser:a,producer,t,READ\n", "unknown column(s) operation"),
    ("acl_roles.jsonl", '{"principal": "User:a", "role": "producer", "topic": "t", "idempotent": true}\n',
     "'idempotent' must hold text"),
    ("share_groups_offsets.csv", "group,topic,start_offset\ng,t,5\n", "missing column(s) target"),
])
def test_bad_role_and_share_offset_files_are_refused_before_spark(tmp_path: Path, name: str, text: str,
                                                                  expected: str) -> None:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(UsageError) as exc:
        for f in find_files(str(path)):
            check_file(f)
    assert expected in str(exc.value)
