"""Every command in docs/cli.md's "Examples" section, run against the demo cluster in the documented order,
ends with the exit status documented beside it (``# exit N``; 0 when not said).

A block whose first line is a comment ``# kadmin demo OPTIONS`` runs against a demo started with those options
(``--sasl --properties-dir logins``), from a directory where that properties dir is written."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import pytest

from kadmin.testing.demo import start_demo
from tests.support.cli import ROOT, run_main

DOC = ROOT / "docs" / "cli.md"


@dataclass(frozen=True)
class Example:
    line: str
    argv: list[str]
    exit_code: int


@dataclass(frozen=True)
class Block:
    demo_options: list[str]
    examples: list[Example]


def examples_section(text: str) -> str:
    start = text.index("\n## Examples\n")
    end = text.index("\n## ", start + 1)
    return text[start:end]


def parse_blocks(text: str) -> list[Block]:
    blocks: list[Block] = []
    for body in re.findall(r"```bash\n(.*?)```", examples_section(text), re.DOTALL):
        lines = body.strip().splitlines()
        options: list[str] = []
        if lines and lines[0].startswith("# kadmin demo"):
            options = shlex.split(lines.pop(0)[len("# kadmin demo"):])
        examples = []
        for line in lines:
            command, _, comment = line.partition("#")
            m = re.match(r"\s*exit (\d+)", comment)
            words = shlex.split(command)
            assert words and words[0] == "kadmin", line
            examples.append(Example(line.strip(), words[1:], int(m.group(1)) if m else 0))
        blocks.append(Block(options, examples))
    return blocks


BLOCKS = parse_blocks(DOC.read_text(encoding="utf-8"))


def test_the_section_has_examples_of_every_kind() -> None:
    commands = {e.argv[0] if not e.argv[0].startswith("-") else e.argv[2] for b in BLOCKS for e in b.examples}
    assert {"topics", "configs", "groups", "offsets", "quotas", "acls", "tokens", "users"} <= commands
    assert {e.exit_code for b in BLOCKS for e in b.examples} == {0, 1, 2}


@pytest.mark.parametrize("block", BLOCKS, ids=[" ".join(b.demo_options) or "plain" for b in BLOCKS])
def test_every_example_exits_as_documented(block: Block, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sasl = "--sasl" in block.demo_options
    monkeypatch.chdir(tmp_path)
    demo = start_demo(brokers=3, sasl=sasl)
    try:
        monkeypatch.setenv("KADMIN_BOOTSTRAP_SERVERS", demo.cluster.bootstrap)
        if sasl:
            where = Path(block.demo_options[block.demo_options.index("--properties-dir") + 1])
            where.mkdir()
            for user, props in demo.logins.items():
                (where / f"{user}.properties").write_text(props)
        wrong = []
        for example in block.examples:
            r = run_main(*example.argv)
            if r.code != example.exit_code:
                wrong.append(f"{example.line}\n  exit {r.code}: {r.err.strip()[:300]}")
        assert not wrong, "\n".join(wrong)
    finally:
        demo.close()
