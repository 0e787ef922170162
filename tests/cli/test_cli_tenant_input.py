"""``kadmin provision``'s checks made before Spark starts, and scope parsing: no JVM, no cluster needed.

A bad spec file must cost a second, not Spark's start-up: each case runs the real CLI in a subprocess with
an unreachable bootstrap address, and asserts exit 2 with the file and the problem named.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kadmin.cli.config import UsageError
from kadmin.cli.tenant_input import check_file, find_files
from kadmin.spark.columns import column_problem

SAMPLE = Path(__file__).resolve().parents[2] / "examples" / "tenants"


def test_the_shipped_sample_passes_the_checks() -> None:
    files = find_files(str(SAMPLE))
    assert [f.kind for f in files] == ["scram_users", "topics", "topic_configs", "acls", "quotas"]
    for f in files:
        check_file(f)
    # ~50 tenants, each with topics, ACLs, a SCRAM user and quotas
    assert sum(1 for _ in (SAMPLE / "scram_users.csv").open()) - 1 == 50


@pytest.mark.parametrize(("name", "text", "expected"), [
    ("scram_users.csv", "user,password\nu,x\n", "would hold a secret in clear"),
    ("acls.csv", "principal,operation,resource_type\nUser:a,read,topic\n", "missing column(s) resource_name"),
    ("topics.csv", "name,partitons\nt,3\n", "unknown column(s) partitons"),
    ("topics.jsonl", '{"name": "t", "partitions": "three"}\n', "'partitions' must hold a whole number"),
    ("topics.jsonl", '{"name": "t", "configs": {"retention.ms": 5}}\n', "'configs' must hold an object of strings"),
    ("tenants.csv", "name\nt\n", "not a spec file"),
    ("quotas.csv", "User,producer_byte_rate\nu,1\n", "did you mean 'user'"),
])
def test_bad_files_are_refused_before_spark(tmp_path: Path, name: str, text: str, expected: str) -> None:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(UsageError, match=None) as exc:
        for f in find_files(str(path)):
            check_file(f)
    assert expected in str(exc.value)


def test_cli_exits_2_in_seconds_without_starting_spark(tmp_path: Path) -> None:
    spec = tmp_path / "spec"
    spec.mkdir()
    (spec / "topics.csv").write_text("name,partitions\nt,1\n")
    (spec / "acls.csv").write_text("principal,host\nUser:a,*\n")
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "kadmin.cli", "-b", "127.0.0.1:1", "provision", str(spec),
                           "--apply"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert "acls.csv: missing column(s) operation, resource_type, resource_name" in proc.stderr
    assert "spark" not in proc.stderr.lower()
    assert time.monotonic() - start < 20  # Spark's start-up alone takes longer here
    # --remove-unlisted without --scope is refused as well, before anything starts
    (spec / "acls.csv").unlink()
    proc = subprocess.run([sys.executable, "-m", "kadmin.cli", "-b", "127.0.0.1:1", "provision", str(spec),
                           "--remove-unlisted"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "--remove-unlisted needs --scope" in proc.stderr


def test_help_points_to_the_formats_doc() -> None:
    proc = subprocess.run([sys.executable, "-m", "kadmin.cli", "provision", "--help"], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0 and "docs/provision.md" in proc.stdout and "password_ref" in proc.stdout


def test_scope_parsing() -> None:
    from kadmin.spark.spec import Scope, SpecError, parse_scope

    s = parse_scope(["topics=t-", "principals=User:t-", "kinds=acls,topics"])
    assert s == Scope(("t-",), ("User:t-",), ("acls", "topics"))
    assert s.topic_in_scope("t-1") and not s.topic_in_scope("other") and not s.allows("quotas")
    assert parse_scope({"principals": "User:x"}) == Scope((), ("User:x",), None)
    assert parse_scope(None) is None
    g = parse_scope(["groups=a-", "kinds=group_configs,broker_configs"])
    assert g == Scope(kinds=("group_configs", "broker_configs"), groups=("a-",))
    assert g.group_in_scope("a-billing") and not g.group_in_scope("b-x") and not s.group_in_scope("t-1")
    assert "groups='a-'" in str(g)
    for bad in (["topics"], ["tenants=x"], ["kinds=groups"]):
        with pytest.raises(SpecError):
            parse_scope(bad)
    assert column_problem("scram_users", ["user", "password_ref"]) is None
    problem = column_problem("topics", [])
    assert problem is not None and problem.startswith("missing column(s) name")


def test_every_json_record_is_checked_not_a_sample(tmp_path: Path) -> None:
    # A valid JSON array larger than 1 MiB passes (it was refused as "Unterminated string" at its first MiB).
    big = tmp_path / "topics.json"
    rows = [{"name": f"t{i:05d}-" + "x" * 100, "partitions": 3, "configs": {"retention.ms": "1000"}}
            for i in range(12_000)]
    big.write_text(json.dumps(rows, indent=1))
    assert big.stat().st_size > 1 << 20
    check_file(find_files(str(big))[0])
    # A secret column on record 1,002 and a word for a number on the last record are found, by record.
    lines = [json.dumps({"user": f"u{i}", "password_ref": f"env:P{i}"}) for i in range(1, 1_501)]
    lines[1001] = json.dumps({"user": "u1002", "password": "hunter2"})
    users = tmp_path / "scram_users.jsonl"
    users.write_text("\n".join(lines) + "\n")
    with pytest.raises(UsageError, match="record 1002: column 'password' would hold a secret"):
        check_file(find_files(str(users))[0])
    tail = [json.dumps({"name": f"t{i}", "partitions": i}) for i in range(30_000)]
    tail.append(json.dumps({"name": "last", "partitions": "many"}))
    topics = tmp_path / "topics.jsonl"
    topics.write_text("\n".join(tail))
    assert topics.stat().st_size > 1 << 20
    with pytest.raises(UsageError, match="record 30001: column 'partitions' must hold a whole number"):
        check_file(find_files(str(topics))[0])


def test_every_quota_json_record_is_checked(tmp_path: Path) -> None:
    lines = [json.dumps({"user": f"u{i}", "quota_key": "producer_byte_rate", "value": i}) for i in range(1, 2_001)]
    lines[1499] = json.dumps({"user": "u1500", "quota_key": "producer_byte_rate", "value": True})
    quotas = tmp_path / "quotas.jsonl"
    quotas.write_text("\n".join(lines) + "\n")
    with pytest.raises(UsageError, match="record 1500: column 'value' must hold numbers, not true"):
        check_file(find_files(str(quotas))[0])
    quotas.write_text("[" + ",\n".join(lines[:1499] + lines[1500:]) + "]")
    check_file(find_files(str(quotas))[0])


def test_group_and_broker_config_files_are_kinds_checked_before_spark(tmp_path: Path) -> None:
    spec = tmp_path / "spec"
    spec.mkdir()
    (spec / "broker_configs.csv").write_text("broker,config,value\ndefault,log.retention.ms,604800000\n1,x,\n")
    (spec / "group_configs.jsonl").write_text('{"group": "g", "config": "consumer.session.timeout.ms", '
                                              '"value": "60000"}\n')
    files = find_files(str(spec))
    assert [f.kind for f in files] == ["group_configs", "broker_configs"]
    for f in files:
        check_file(f)
    (spec / "broker_configs.csv").write_text("broker_id,config,value\n1,x,y\n")
    with pytest.raises(UsageError, match="missing column\\(s\\) broker"):
        check_file(find_files(str(spec / "broker_configs.csv"))[0])
