"""A provisioning dry run resolves every ``password_ref`` and reports the rows whose reference does not resolve
(issue #29: an unset variable used to appear only at --apply).  The resolver is the CLI's own
(kadmin.spark.spec.env_or_file_secrets); no cluster is involved."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from kadmin.cli.password_refs import unresolved_password_refs
from kadmin.cli.tenant_input import find_files

CSV = ("user,mechanism,iterations,password_ref\n"
       "alice,SCRAM-SHA-256,4096,env:KADMIN_TEST_ALICE_PW\n"
       "bob,SCRAM-SHA-256,4096,env:KADMIN_TEST_UNSET_PW\n"
       "carol,SCRAM-SHA-512,4096,file:{missing}\n"
       "dave,SCRAM-SHA-512,4096,env:KADMIN_TEST_UNSET_PW\n")


def _resolver() -> Callable[[str], str]:
    from kadmin.spark.spec import env_or_file_secrets  # the CLI's resolver (it lives beside the Spark spec)

    return env_or_file_secrets


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KADMIN_TEST_ALICE_PW", "not-printed-anywhere")
    monkeypatch.delenv("KADMIN_TEST_UNSET_PW", raising=False)


def test_each_unresolvable_row_is_reported_with_its_row_and_user(tmp_path: Path, env: None) -> None:
    (tmp_path / "scram_users.csv").write_text(CSV.format(missing=tmp_path / "nope.txt"))
    found = unresolved_password_refs(find_files(str(tmp_path)), _resolver())
    assert [(u.row, u.user, u.ref) for u in found] == [
        (3, "bob", "env:KADMIN_TEST_UNSET_PW"), (4, "carol", f"file:{tmp_path / 'nope.txt'}"),
        (5, "dave", "env:KADMIN_TEST_UNSET_PW")]
    assert "not set" in found[0].why
    text = "\n".join(u.line() for u in found)
    assert "not-printed-anywhere" not in text and "row 3 (user bob)" in text


def test_json_records_are_checked_too(tmp_path: Path, env: None) -> None:
    rows = [{"user": "alice", "mechanism": "SCRAM-SHA-256", "iterations": 4096,
             "password_ref": "env:KADMIN_TEST_ALICE_PW"},
            {"user": "bob", "mechanism": "SCRAM-SHA-256", "iterations": 4096,
             "password_ref": "env:KADMIN_TEST_UNSET_PW"}]
    (tmp_path / "scram_users.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    found = unresolved_password_refs(find_files(str(tmp_path)), _resolver())
    assert [(u.row, u.user) for u in found] == [(2, "bob")]


def test_every_reference_resolving_reports_nothing(tmp_path: Path, env: None) -> None:
    (tmp_path / "secrets").mkdir()
    secret = tmp_path / "secrets" / "pw.txt"
    secret.write_text("s3cret\n")
    spec = tmp_path / "spec"
    spec.mkdir()
    (spec / "scram_users.csv").write_text(
        f"user,mechanism,iterations,password_ref\nalice,SCRAM-SHA-256,4096,env:KADMIN_TEST_ALICE_PW\n"
        f"carol,SCRAM-SHA-256,4096,file:{secret}\n")
    (spec / "topics.csv").write_text("name,partitions\nt,1\n")
    assert unresolved_password_refs(find_files(str(spec)), _resolver()) == []
