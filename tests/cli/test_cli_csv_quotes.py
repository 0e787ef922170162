"""A CSV input with a quote never closed is refused before Spark starts, naming the line (issue #29 defect 9: the
rows used to fail as empty values with Python's ``None`` in the message)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kadmin.cli import quotas as cli_quotas
from tests.support.cli import run_main


@pytest.fixture
def no_spark(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(debug: bool) -> Any:
        raise AssertionError("Spark was started before the input was checked")

    monkeypatch.setattr(cli_quotas, "_spark_session", refuse)


def test_quotas_provision_names_the_line_of_an_unclosed_quote(tmp_path: Path, no_spark: None) -> None:
    f = tmp_path / "q.csv"
    f.write_text('user,client_id,ip,quota_key,value\nalice,,,producer_byte_rate,1\nbob,,,producer_byte_rate,"200\n'
                 'carol,,,producer_byte_rate,300\n')
    r = run_main("-b", "127.0.0.1:1", "quotas", "provision", str(f), "--dry-run")
    assert r.code == 2
    assert "line 3: a quoted value is not closed" in r.err
    assert "None" not in r.err and len(r.err_lines) == 1


def test_tenant_provision_names_the_line_of_an_unclosed_quote(tmp_path: Path, no_spark: None) -> None:
    (tmp_path / "topics.csv").write_text('name,partitions,replication_factor,configs\n'
                                         't1,1,1,"{""retention.ms"": ""1000""}"\n'
                                         't2,1,1,"{""retention.ms"": ""1000""}\n')
    r = run_main("-b", "127.0.0.1:1", "provision", str(tmp_path))
    assert r.code == 2
    assert "topics.csv: line 3: a quoted value is not closed" in r.err, r.err


def test_doubled_quotes_inside_a_quoted_value_are_fine(tmp_path: Path) -> None:
    from kadmin.cli.csv_check import check_quotes

    f = tmp_path / "ok.csv"
    f.write_text('name,configs\nt1,"{""a"": ""b""}"\nt2,\n')
    check_quotes(str(f))  # no exception
