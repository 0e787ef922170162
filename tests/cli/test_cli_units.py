"""The CLI's pure parts: properties files, where the bootstrap servers come from, value parsing, tables, JSON."""

from __future__ import annotations

import io
import json
import logging
from types import SimpleNamespace

import pytest

from kadmin.cli.config import ENV_BOOTSTRAP, UsageError, build_config, parse_properties
from kadmin.cli.main import _one_line, main
from kadmin.cli.output import Column, dump_json, error_json, format_number, render_table
from kadmin.cli.quotas import ProgressBar, ops_from_args, parse_value
from kadmin.errors import GroupIdNotFoundError, KafkaTimeoutError
from kadmin.quotas import Remove, Set


def test_properties_syntax_java_style() -> None:
    text = (
        "# comment\n"
        "! also a comment\n"
        "bootstrap.servers = b1:9092,b2:9092\n"
        "security.protocol:SASL_SSL\n"
        "client.id kadmin-ops\n"
        "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required \\\n"
        "    username=\"alice\" \\\n"
        "    password=\"a\\\\b\";\n"
        "ssl.ca.location=/etc/ssl/ca\\u0020dir/ca.pem\n"
        "key\\=with\\:seps=value=with=equals\n"
        "empty=\n"
    )
    props = parse_properties(text)
    assert props == {
        "bootstrap.servers": "b1:9092,b2:9092",
        "security.protocol": "SASL_SSL",
        "client.id": "kadmin-ops",
        "sasl.jaas.config": 'org.apache.kafka.common.security.plain.PlainLoginModule required username="alice" '
                            'password="a\\b";',
        "ssl.ca.location": "/etc/ssl/ca dir/ca.pem",
        "key=with:seps": "value=with=equals",
        "empty": "",
    }


def test_bootstrap_precedence_flag_then_env_then_file(tmp_path: object) -> None:
    from pathlib import Path

    f = Path(str(tmp_path)) / "c.properties"
    f.write_text("bootstrap.servers=file:1\nrequest.timeout.ms=5000\n", encoding="utf-8")
    env = {ENV_BOOTSTRAP: "env:2"}
    assert build_config("flag:3", str(f), None, env).bootstrap_servers == ("flag:3",)
    assert build_config(None, str(f), None, env).bootstrap_servers == ("env:2",)
    cfg = build_config(None, str(f), None, {})
    assert cfg.bootstrap_servers == ("file:1",) and cfg.request_timeout_s == 5.0
    with pytest.raises(UsageError, match="no bootstrap servers"):
        build_config(None, None, None, {})
    cfg = build_config("h:1", None, 2.5, {})
    assert (cfg.default_timeout_s, cfg.connect_timeout_s, cfg.request_timeout_s) == (2.5, 2.5, 2.5)
    assert cfg.client_id == "kadmin-cli"
    with pytest.raises(UsageError, match="not 'host:port'"):
        build_config("no-port", None, None, {})


def test_unknown_properties_are_a_warning_naming_keys_only(tmp_path: object, capsys: pytest.CaptureFixture[str],
                                                           ) -> None:
    from pathlib import Path

    f = Path(str(tmp_path)) / "c.properties"
    f.write_text("bootstrap.servers=127.0.0.1:9\nmystery.secret=hunter2\n", encoding="utf-8")
    err = io.StringIO()
    code = main(["--command-config", str(f), "quotas", "alter", "--user", "u", "--set", "bogus"], stderr=err,
                stdout=io.StringIO())
    assert code == 2
    assert "expected KEY=VALUE" in err.getvalue()
    # Parsing the config happens at connect time; a command that connects logs the warning.
    err = io.StringIO()
    main(["--command-config", str(f), "--timeout", "0.5", "groups", "list"], stderr=err, stdout=io.StringIO())
    assert "mystery.secret" in err.getvalue() and "hunter2" not in err.getvalue()


def test_main_leaves_the_root_logger_as_it_found_it() -> None:
    root = logging.getLogger()
    before = (list(root.handlers), root.level)
    main(["--debug", "quotas", "alter", "--user", "u"], stdout=io.StringIO(), stderr=io.StringIO())
    assert (list(root.handlers), root.level) == before


@pytest.mark.parametrize(("text", "value"), [("1024", 1024), ("-0", 0), ("12.5", 12.5), ("1e3", 1000.0),
                                             ("9007199254740992", 9007199254740992), ("-0.0", 0.0), (".5", 0.5)])
def test_values_keep_ints_exact_for_the_library_to_check(text: str, value: float) -> None:
    v = parse_value("k", text)
    assert v == value and type(v) is type(value)


@pytest.mark.parametrize("text", ["nan", "NaN", "inf", "-Infinity", "1,5", "0x10", "", "one", "1_000", " 100",
                                  "7 ", "1e999", "9007199254740993"])
def test_values_that_are_not_finite_numbers_are_refused(text: str) -> None:
    with pytest.raises(UsageError):
        parse_value("k", text)


def test_ops_from_flags() -> None:
    assert ops_from_args(["a=1", " b =2.5"], ["c"]) == [Set("a", 1), Set("b", 2.5), Remove("c")]
    for sets, removes in ((["a"], []), (["=1"], []), (["a="], []), ([], ["a=1"]), ([], [""]), ([], []),
                          (["b= 2.5"], []), (["a=1_000"], [])):
        with pytest.raises(UsageError):
            ops_from_args(sets, removes)


def test_table_fits_by_shortening_flexible_columns_only() -> None:
    cols = [Column("NAME", flex=True), Column("STATE"), Column("N", right=True), Column("NOTE", flex=True)]
    rows = [["n" * 80, "PreparingRebalance", 12345, "x" * 60], ["short", "Stable", 1, None]]
    lines = render_table(cols, rows)
    assert all(len(line) <= 100 for line in lines)
    assert lines[1].split()[1:3] == ["PreparingRebalance", "12345"]  # fixed columns intact
    assert "~" in lines[1]
    assert lines[2].rstrip().endswith("-")  # None renders as "-"
    assert render_table([Column("A"), Column("B", right=True)], [["x", 5]]) == ["A  B", "x  5"]
    with pytest.raises(ValueError):
        render_table([Column("A")], [["x", "y"]])


def test_numbers_read_as_people_write_them() -> None:
    assert [format_number(v) for v in (1048576.0, 12.5, 0.1 + 0.2, 1e300)] == [
        "1048576", "12.5", "0.30000000000000004", "1e+300"]


def test_json_errors_and_non_finite_values() -> None:
    assert error_json(GroupIdNotFoundError("gone")) == {"name": "GROUP_ID_NOT_FOUND", "code": 69,
                                                       "message": "gone", "retriable": False}
    t = error_json(KafkaTimeoutError("late", possibly_applied=True))
    assert (t["code"], t["possibly_applied"]) == (None, True)
    assert error_json(ValueError("bad"))["name"] == "ValueError"
    doc = json.loads(dump_json({"v": float("nan"), "w": [float("inf")], "x": 0.1}))
    assert doc == {"v": "NaN", "w": ["Infinity"], "x": 0.1}


def test_error_lines_fold_retries_into_one() -> None:
    msg = "no node answered: a:1: refused; a:1: refused; b:2: reset\nsecond line"
    assert _one_line(msg) == "no node answered: a:1: refused; b:2: reset second line"
    assert len(_one_line("x" * 2000)) == 500


def test_progress_bar_draws_one_line_and_ends_it() -> None:
    stream = io.StringIO()
    bar = ProgressBar(stream, width=10)
    for done, phase in ((0, "planned"), (5, "sending"), (10, "done")):
        bar(SimpleNamespace(phase=phase, entities_total=10, entities_done=done, entities_failed=1 if done else 0,
                            fraction=done / 10))
    text = stream.getvalue()
    assert text.count("\n") == 1 and text.endswith("\n")
    assert "\r[#####.....]  50% 5/10 entities, 1 failed" in text
    assert "\r[##########] 100% 10/10 entities, 1 failed" in text
