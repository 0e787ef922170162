"""The provisioning commands' table output (issue #29 defects 1, 12 and 13): the summary is wrapped, never cut
at 100 columns; rows not ok are printed in key order with "(N more ...)" when some were left out; --validate's
progress names each phase as checked, not as done.  The report functions are called directly: no Spark."""

from __future__ import annotations

import argparse
import io
from dataclasses import dataclass
from typing import Any

from kadmin.cli import provision as cli_provision
from kadmin.cli import quotas as cli_quotas
from kadmin.cli.main import Context
from kadmin.cli.output import Printer


def _ctx() -> tuple[Context, io.StringIO, io.StringIO]:
    out, err = io.StringIO(), io.StringIO()
    return Context(argparse.Namespace(), Printer("table", out, err)), out, err


KINDS = ("scram_users", "acls", "quotas", "topic_configs", "groups_offsets", "topics")


def test_provision_summary_shows_every_count_within_100_columns() -> None:
    ctx, out, _ = _ctx()
    counts = {(k, a, "ok"): 1000 + i for i, k in enumerate(KINDS) for a in ("create", "alter")}
    cli_provision.report(ctx, "apply", counts, [], [])
    text = out.getvalue()
    for (k, a, s), n in counts.items():
        assert f"{n} {k} {a}/{s}" in text  # the topics counts came last and were cut
    assert "~" not in text
    assert all(len(line) <= 100 for line in text.splitlines())


def test_quotas_provision_summary_is_wrapped_not_cut() -> None:
    ctx, out, _ = _ctx()
    counts = {(a, s): 100000 + i for i, (a, s) in enumerate(
        (a, s) for a in ("create", "alter", "delete", "unchanged") for s in ("ok", "failed", "rejected"))}
    cli_quotas.report_provision(ctx, "apply", counts, [], [])
    text = out.getvalue()
    assert all(f"{n} {a}/{s}" in text for (a, s), n in counts.items())
    assert all(len(line) <= 100 for line in text.splitlines())


def _failed(i: int) -> dict[str, Any]:
    return {"kind": "topics", "key": f"t-{i:03d}", "status": "failed", "error": "POLICY_VIOLATION: no"}


def test_failures_are_in_key_order_and_the_rest_is_counted() -> None:
    ctx, _, err = _ctx()
    shown = [_failed(i) for i in (99, 5, 42, 0, 7)]  # as Spark returned them: in no order
    cli_provision.report(ctx, "apply", {("topics", "create", "failed"): 250}, [], shown)
    lines = err.getvalue().splitlines()
    keys = [line.split()[2].rstrip(":") for line in lines if line.startswith("kadmin: topics ")]
    assert keys == sorted(keys) == ["t-000", "t-005", "t-007", "t-042", "t-099"]
    assert lines[-1] == "kadmin: (245 more rows not ok not shown; -o json lists every one)"


def test_no_more_line_when_every_failure_is_shown() -> None:
    ctx, _, err = _ctx()
    cli_provision.report(ctx, "apply", {("topics", "create", "failed"): 2}, [], [_failed(1), _failed(0)])
    assert "more" not in err.getvalue()


@dataclass(frozen=True)
class _Progress:
    phase: str
    done: int = 1
    total: int = 2


def test_validate_progress_names_phases_as_checked() -> None:
    seen: list[str] = []
    callback = cli_provision.progress_line(lambda p: seen.append(p.phase), "validate")
    for title in ("topics created", "ACLs granted", "SCRAM users upserted", "group offsets reset"):
        callback(_Progress(title))
    assert seen == ["validating: topics to create", "validating: ACLs to grant", "validating: SCRAM users to upsert",
                    "validating: group offsets to reset"]
    assert not any(word in " ".join(seen) for word in ("created", "granted"))


def test_apply_progress_keeps_the_phase_titles() -> None:
    seen: list[str] = []
    callback = cli_provision.progress_line(lambda p: seen.append(p.phase), "apply")
    callback(_Progress("topics created"))
    assert seen == ["topics created"]
