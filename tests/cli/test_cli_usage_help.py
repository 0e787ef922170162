"""Usage errors name the subcommand's help and the closest real option (issue #29, defect 15)."""

from __future__ import annotations

import pytest

from tests.support.cli import run_main


@pytest.mark.parametrize("argv", [
    ["groups", "list", "--bootstrap-servers", "127.0.0.1:9092"],
    ["--bootstrap-servers", "127.0.0.1:9092", "groups", "list"],
])
def test_plural_bootstrap_servers_is_named_with_the_right_spelling(argv: list[str]) -> None:
    r = run_main(*argv)
    assert r.code == 2
    assert "invalid choice" not in r.err
    assert "unknown option --bootstrap-servers; did you mean --bootstrap-server?" in r.err
    assert "'kadmin groups list --help'" in r.err


def test_a_mistyped_option_is_answered_with_did_you_mean() -> None:
    r = run_main("groups", "offsets", "g", "--lagg")
    assert r.code == 2
    assert "did you mean --lag?" in r.err
    assert "'kadmin groups offsets --help'" in r.err


def test_an_option_of_another_command_points_at_this_commands_help() -> None:
    r = run_main("groups", "describe", "g", "--execute")
    assert r.code == 2
    assert r.err.strip().endswith("(see 'kadmin groups describe --help')"), r.err


def test_a_missing_argument_points_at_the_subcommands_help() -> None:
    r = run_main("groups", "describe")
    assert r.code == 2
    assert "(see 'kadmin groups describe --help')" in r.err
