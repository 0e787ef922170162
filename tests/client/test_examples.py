"""The examples run as a user runs them: no arguments (embedded demo cluster) or against a given cluster."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kadmin.testing import FakeCluster
from kadmin.testing.__main__ import seed_demo
from tests.support.cli import cli_env

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

pytestmark = pytest.mark.fake_cluster(brokers=2)


def run_example(name: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(EXAMPLES / name), *args], capture_output=True, text=True,
                          env=cli_env(), timeout=60, stdin=subprocess.DEVNULL)


@pytest.fixture
def cluster(fake_cluster: FakeCluster) -> FakeCluster:
    c = fake_cluster
    seed_demo(c)
    return c


@pytest.mark.parametrize("name", ["describe_groups.py", "delete_empty_groups.py", "quota_report.py"])
def test_example_runs_with_no_arguments_on_the_embedded_cluster_and_says_so(name: str) -> None:
    r = run_example(name)
    assert r.returncode == 0, r.stderr
    assert "embedded fake cluster" in r.stderr and "demo data" in r.stderr
    assert "Traceback" not in r.stderr
    expected = {"describe_groups.py": "orders-service: Stable, 2 member(s)",
                "delete_empty_groups.py": "would delete 1 empty group(s)",
                "quota_report.py": "producer_byte_rate = 1048576  (level 3: user='alice')"}[name]
    assert expected in r.stdout


def test_describe_groups_against_a_given_cluster(cluster: FakeCluster) -> None:
    r = run_example("describe_groups.py", "--bootstrap-server", cluster.bootstrap, "orders-service", "nope")
    assert r.returncode == 1, r.stderr  # one group failed, and is reported
    assert "orders-service: Stable, 2 member(s)" in r.stdout and "lag 30 over 3 partition(s)" in r.stdout
    assert "nope: GROUP_ID_NOT_FOUND" in r.stdout
    assert "embedded" not in r.stderr


def test_delete_empty_groups_is_a_dry_run_unless_yes(cluster: FakeCluster) -> None:
    cluster.add_group("tmp-1", state="Empty")
    cluster.add_group("tmp-2", state="Empty")
    r = run_example("delete_empty_groups.py", "--bootstrap-server", cluster.bootstrap, "--match", "tmp-*")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[1:] == ["    tmp-1", "    tmp-2"]
    assert cluster.count("DeleteGroups") == 0
    r = run_example("delete_empty_groups.py", "--bootstrap-server", cluster.bootstrap, "--match", "tmp-*", "--yes")
    assert r.returncode == 0, r.stderr
    assert "deleted 2 of 2 group(s)" in r.stdout
    assert {"tmp-1", "tmp-2"}.isdisjoint(cluster.groups) and "billing" in cluster.groups


def test_quota_report_resolves_for_the_given_client(cluster: FakeCluster) -> None:
    r = run_example("quota_report.py", "--bootstrap-server", cluster.bootstrap, "--user", "alice",
                    "--client-id", "etl")
    assert r.returncode == 0, r.stderr
    assert "consumer_byte_rate = 2097152  (level 1: user='alice', client-id='etl')" in r.stdout
    assert "4 entit(y/ies) with quotas:" in r.stdout
