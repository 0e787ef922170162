"""Policy files (``kadmin provision --policy``, ``provision(policy=...)``) read and checked before Spark
starts: no JVM, no cluster.

A bad policy must cost a second, not Spark's start-up, and must never become a rule that checks nothing: the
CLI cases run the real CLI in a subprocess with an unreachable bootstrap address and assert exit 2 with the
file, the rule and the problem named.  The sample of docs/provision.md ("Policies") is read as a reader would
copy it.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from kadmin.spark.policy import RULE_KINDS, Policy, PolicyError, as_policy, load_policy, parse_policy

DOCS = Path(__file__).resolve().parents[2] / "docs" / "provision.md"


def docs_policy_text() -> str:
    """The JSON block of docs/provision.md's "Policies" section: the sample policy file."""
    text = DOCS.read_text(encoding="utf-8")
    section = text[text.index("\n## Policies\n"):]
    m = re.search(r"^```json\n(.*?)^```$", section, re.DOTALL | re.MULTILINE)
    assert m is not None, "docs/provision.md's Policies section has no ```json sample"
    return m.group(1)


def test_the_docs_sample_loads_and_uses_every_rule_kind(tmp_path: Path) -> None:
    path = tmp_path / "policy.json"
    path.write_text(docs_policy_text(), encoding="utf-8")
    policy = load_policy(path)
    assert {r.kind for r in policy.rules} == set(RULE_KINDS)
    assert policy.source == str(path) and [r.name for r in policy.rules][:2] == ["topic-names", "min-rf"]
    assert {r.checks for r in policy.rules} == {"topics", "topic_configs", "acls", "scram_users", "quotas"}
    # every rule kind is documented in the section's table
    section = DOCS.read_text(encoding="utf-8").split("\n## Policies\n")[1].split("\n## ")[0]
    assert all(f"| `{k}` |" in section for k in RULE_KINDS)


def test_as_policy_takes_a_path_a_mapping_or_a_policy(tmp_path: Path) -> None:
    doc = {"rules": [{"name": "min-rf", "kind": "min_replication_factor", "min": 3}]}
    path = tmp_path / "p.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    from_path, from_map = as_policy(str(path)), as_policy(doc)
    assert isinstance(from_path, Policy) and isinstance(from_map, Policy)
    assert from_path.rules == from_map.rules and as_policy(from_map) is from_map and as_policy(None) is None
    assert "rf < 3" in from_map.rules[0].reason_sql
    with pytest.raises(TypeError, match="policy must be"):
        as_policy(3)  # type: ignore[arg-type]


BAD: list[tuple[str, Any, str]] = [
    ("unknown kind", {"rules": [{"name": "rf", "kind": "min_rf", "min": 3}]},
     "rule 'rf': unknown kind \"min_rf\" (one of topic_name, "),
    ("missing field", {"rules": [{"name": "rf", "kind": "min_replication_factor"}]},
     "rule 'rf' (min_replication_factor): missing field 'min'"),
    ("wrong type", {"rules": [{"name": "rf", "kind": "min_replication_factor", "min": "3"}]},
     "rule 'rf' (min_replication_factor): 'min' must be a whole number, not \"3\""),
    ("a bool is no number", {"rules": [{"name": "cap", "kind": "max_quota", "quota_key": "x", "max": True}]},
     "rule 'cap' (max_quota): 'max' must be a finite number, not true"),
    ("bad regex", {"rules": [{"name": "names", "kind": "topic_name", "pattern": "t[0-9+"}]},
     "rule 'names' (topic_name): 'pattern' 't[0-9+' is not a regular expression"),
    ("python-only regex", {"rules": [{"name": "names", "kind": "topic_name", "pattern": "(?P<t>x)"}]},
     "rule 'names' (topic_name): 'pattern' uses (?P...)"),
    ("unknown field", {"rules": [{"name": "rf", "kind": "min_replication_factor", "min": 3, "mni": 2}]},
     "rule 'rf' (min_replication_factor): unknown field(s) mni"),
    ("unknown operation", {"rules": [{"name": "acl", "kind": "forbidden_acls", "operations": ["ALTR"]}]},
     "rule 'acl' (forbidden_acls): 'operations' has 'ALTR', which is not one of"),
    ("no filter", {"rules": [{"name": "acl", "kind": "forbidden_acls"}]},
     "rule 'acl' (forbidden_acls): needs at least one of"),
    ("scram mechanism", {"rules": [{"name": "s", "kind": "scram_credentials", "mechanisms": ["SHA-1"]}]},
     "rule 's' (scram_credentials): 'mechanisms' has 'SHA-1', which is not one of SCRAM-SHA-256, SCRAM-SHA-512"),
    ("scram nothing", {"rules": [{"name": "s", "kind": "scram_credentials"}]},
     "rule 's' (scram_credentials): needs 'mechanisms', 'min_iterations' or both"),
    ("bounds", {"rules": [{"name": "p", "kind": "partitions", "min": 8, "max": 2}]},
     "rule 'p' (partitions): 'min' 8 is above 'max' 2"),
    ("no name", {"rules": [{"kind": "partitions", "min": 1}]}, "rule #1 needs a 'name'"),
    ("two names", {"rules": [{"name": "p", "kind": "partitions", "min": 1}, {"name": "p", "kind": "partitions",
                                                                             "max": 9}]},
     "rule 'p': the name is used by an earlier rule"),
    ("no rules list", {"rule": []}, "unknown top-level field(s) rule"),
    ("rules not a list", {"rules": {"p": {}}}, "'rules' must be a list of rules"),
    ("empty list", {"rules": [{"name": "c", "kind": "forbidden_configs", "configs": []}]},
     "rule 'c' (forbidden_configs): 'configs' must be a string or a non-empty list of strings"),
]


@pytest.mark.parametrize(("doc", "expected"), [(d, e) for _, d, e in BAD], ids=[i for i, _, _ in BAD])
def test_bad_policies_are_refused_naming_the_source_and_the_rule(doc: Any, expected: str) -> None:
    with pytest.raises(PolicyError) as exc:
        parse_policy(doc, "team.json")
    assert isinstance(exc.value, ValueError)
    assert str(exc.value).startswith("policy team.json: ") and expected in str(exc.value), str(exc.value)


def test_unreadable_or_non_json_files_are_refused(tmp_path: Path) -> None:
    with pytest.raises(PolicyError, match=r"policy .*nope\.json: cannot read it"):
        load_policy(tmp_path / "nope.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{"rules": [\n  {"name": "x",}\n]}', encoding="utf-8")
    with pytest.raises(PolicyError, match=r"bad\.json: not JSON: .*\(line 2, column"):
        load_policy(bad)
    bad.write_bytes(b'{"rules": ["\xff"]}')
    with pytest.raises(PolicyError, match="not UTF-8 text"):
        load_policy(bad)


def _cli(spec: Path, policy: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kadmin.cli", "-b", "127.0.0.1:1", "provision", str(spec),
                           "--policy", str(policy), *args], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("case", ["unknown kind", "missing field", "wrong type", "bad regex"])
def test_cli_exits_2_before_spark_naming_file_rule_and_problem(tmp_path: Path, case: str) -> None:
    doc, expected = next((d, e) for i, d, e in BAD if i == case)
    spec = tmp_path / "topics.csv"
    spec.write_text("name,partitions\nt,1\n", encoding="utf-8")
    policy = tmp_path / "team-policy.json"
    policy.write_text(json.dumps(doc), encoding="utf-8")
    start = time.monotonic()
    proc = _cli(spec, policy, "--validate")
    assert proc.returncode == 2, proc.stderr
    (line,) = proc.stderr.splitlines()
    assert line.startswith(f"kadmin: error: --policy: policy {policy}: ") and expected in line, line
    assert "spark" not in proc.stderr.replace(str(policy), "").lower()
    assert time.monotonic() - start < 20  # Spark's start-up alone takes longer here


def test_cli_refuses_policy_with_export_and_a_missing_file(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "kadmin.cli", "-b", "127.0.0.1:1", "provision", "--export",
                           str(tmp_path / "out"), "--policy", "p.json"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "--policy checks a spec's rows when planning" in proc.stderr, proc.stderr
    spec = tmp_path / "topics.csv"
    spec.write_text("name\nt\n", encoding="utf-8")
    proc = _cli(spec, tmp_path / "missing.json")
    assert proc.returncode == 2 and "missing.json: cannot read it" in proc.stderr, proc.stderr
