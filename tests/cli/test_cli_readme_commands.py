"""The README's command-line block runs against the demo cluster (issue #29: "the README's examples run against
it"): every ``kadmin`` line ends with status 0, or the ``# exit N`` written beside it.  The ``provision`` line
starts Spark: the Spark tests run provisioning (tests/spark/test_spark_demo_tenants.py); here it is skipped by
name, which the test says."""

from __future__ import annotations

import re
import shlex

from kadmin.testing.demo import start_demo
from tests.support.cli import ROOT, run_main


def readme_commands() -> list[tuple[str, int]]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("Against a real cluster")
    block = re.search(r"```bash\n(.*?)```", text[start:], re.DOTALL)
    assert block is not None
    joined = re.sub(r"\\\n\s*", "", block.group(1))
    out = []
    for line in joined.splitlines():
        command, _, comment = line.partition("#")
        if not command.strip().startswith("kadmin "):
            continue
        m = re.match(r"\s*exit (\d+)", comment)
        out.append((command.strip(), int(m.group(1)) if m else 0))
    return out


def test_the_readme_block_runs_against_the_demo() -> None:
    commands = readme_commands()
    assert len(commands) >= 15
    demo = start_demo(brokers=3)
    try:
        wrong = []
        for command, expected in commands:
            words = shlex.split(command)
            if words[1:3] == ["quotas", "provision"]:
                continue  # Spark: see the module docstring
            r = run_main("-b", demo.cluster.bootstrap, *words[1:])
            if r.code != expected:
                wrong.append(f"{command}: exit {r.code}: {r.err.strip()[:300]}")
        assert not wrong, "\n".join(wrong)
    finally:
        demo.close()
