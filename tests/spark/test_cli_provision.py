"""``kadmin quotas provision``: the CLI's Spark path, against FakeCluster.

One subprocess run proves the real thing (its own JVM, CSV, JSON out, exit status, the cluster changed);
the other cases run ``main()`` in this process on the shared ``spark`` fixture, because every new JVM costs
tens of seconds on the shared 2-core machines.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kadmin.cli.main import main
from kadmin.testing import FakeCluster
from tests.support.cli import Result, run_cli
from tests.support.spark_jvm import child_spark_env

BOB = (("user", "bob"),)
ALICE = (("user", "alice"),)
ALICE_ETL = (("client-id", "etl"), ("user", "alice"))

CSV = (
    "user,client_id,quota_key,value\n"
    "alice,,producer_byte_rate,2097152\n"      # changed (was 1048576)
    "alice,etl,consumer_byte_rate,2097152\n"   # unchanged
    "bob,,request_percentage,12.5\n"           # new
)


class TTY(io.StringIO):
    """stderr that says it is a terminal, so the progress bar is drawn."""

    def isatty(self) -> bool:
        return True


@pytest.fixture
def cluster() -> Iterator[FakeCluster]:
    with FakeCluster(brokers=2) as c:
        c.set_quota({"user": "alice"}, "producer_byte_rate", 1048576)
        c.set_quota({"user": "alice", "client-id": "etl"}, "consumer_byte_rate", 2097152)
        c.set_quota({"user": "alice"}, "consumer_byte_rate", 4096)
        c.clear_log()
        yield c


def run_in_process(*args: str, tty: bool = False) -> Result:
    out, err = io.StringIO(), (TTY() if tty else io.StringIO())
    code = main(list(args), stdout=out, stderr=err)
    return Result(code, out.getvalue(), err.getvalue())


@pytest.mark.spark  # the child starts its own Spark (a JVM): a minute on 2 cores
def test_provision_csv_in_a_subprocess_applies_and_reports_json(cluster: FakeCluster, tmp_path: Path) -> None:
    f = tmp_path / "quotas.csv"
    f.write_text(CSV, encoding="utf-8")
    r = run_cli("-b", cluster.bootstrap, "-o", "json", "quotas", "provision", str(f), env=child_spark_env(),
                timeout=600)
    assert r.code == 0, r.err
    doc = r.json()
    assert (doc["command"], doc["mode"]) == ("quotas provision", "apply")
    assert {(s["action"], s["status"]): s["count"] for s in doc["summary"]} == {
        ("set", "ok"): 2, ("unchanged", "unchanged"): 1}
    assert [(c["user"], c["quota_key"], c["old_value"], c["new_value"], c["action"], c["status"])
            for c in doc["changes"]] == [("alice", "producer_byte_rate", 1048576.0, 2097152.0, "set", "ok"),
                                         ("bob", "request_percentage", None, 12.5, "set", "ok")]
    q = cluster.quotas
    assert q[ALICE] == {"producer_byte_rate": 2097152.0, "consumer_byte_rate": 4096.0}  # unlisted key kept
    assert q[BOB] == {"request_percentage": 12.5}
    assert "Traceback" not in r.err and "INFO" not in r.err  # Spark kept quiet


def test_dry_run_sends_no_alteration_and_a_rejected_row_is_exit_1(cluster: FakeCluster, tmp_path: Path,
                                                                 spark: Any) -> None:
    f = tmp_path / "quotas.csv"
    f.write_text(CSV + "carol,,producer_byte_rate,1.5\n", encoding="utf-8")
    before = cluster.quotas
    r = run_in_process("-b", cluster.bootstrap, "quotas", "provision", str(f), "--dry-run")
    assert r.code == 1, r.err
    assert cluster.count("AlterClientQuotas") == 0 and cluster.quotas == before
    rows = [line.split() for line in r.out.splitlines()]
    assert ["alice", "-", "-", "producer_byte_rate", "1048576", "2097152", "set", "planned"] in rows
    assert ["carol", "-", "-", "producer_byte_rate", "-", "1.5", "reject", "rejected"] in rows
    assert "(dry run: nothing was sent)" in r.out
    assert [line for line in r.err.splitlines() if line.startswith("kadmin:")] == [
        "kadmin: user=carol producer_byte_rate: rejected: producer_byte_rate must be a whole number, not 1.5"]
    assert all(len(line) <= 100 for line in r.out.splitlines())


def test_validate_mode_reads_parquet_and_changes_nothing(cluster: FakeCluster, tmp_path: Path, spark: Any) -> None:
    path = tmp_path / "quotas.parquet"
    spark.createDataFrame([("bob", "request_percentage", 12.5), ("alice", "producer_byte_rate", 1024.0)],
                          "user string, quota_key string, value double").write.parquet(str(path))
    before = cluster.quotas
    r = run_in_process("-b", cluster.bootstrap, "-o", "json", "quotas", "provision", str(path), "--validate")
    assert r.code == 0, r.err
    doc = r.json()
    assert doc["mode"] == "validate"
    assert {(c["user"], c["status"]) for c in doc["changes"]} == {("bob", "validated"), ("alice", "validated")}
    assert cluster.quotas == before
    assert cluster.count("AlterClientQuotas") >= 1  # sent, with validate_only


def test_apply_json_lines_remove_unlisted_batches_and_draws_progress(cluster: FakeCluster, tmp_path: Path,
                                                                     spark: Any) -> None:
    f = tmp_path / "quotas.json"
    f.write_text('{"user": "alice", "quota_key": "producer_byte_rate", "value": 1048576}\n'
                 '{"user": "bob", "quota_key": "producer_byte_rate", "value": 10}\n'
                 '{"user": "dan", "quota_key": "producer_byte_rate", "value": 20}\n', encoding="utf-8")
    r = run_in_process("-b", cluster.bootstrap, "quotas", "provision", str(f), "--remove-unlisted",
                       "--batch-size", "1", tty=True)
    assert r.code == 0, r.err
    q = cluster.quotas
    assert q[ALICE] == {"producer_byte_rate": 1048576.0}  # consumer_byte_rate was unlisted: removed
    assert q[BOB] == {"producer_byte_rate": 10.0} and q[(("user", "dan"),)] == {"producer_byte_rate": 20.0}
    assert q[ALICE_ETL] == {"consumer_byte_rate": 2097152.0}  # another shape of entity: out of scope
    assert cluster.count("AlterClientQuotas") == 3  # one entity per request
    assert "\r[" in r.err and "100% 3/3 entities" in r.err and r.err.count("\n") >= 1
    assert ["alice", "-", "-", "consumer_byte_rate", "4096", "-", "remove", "ok"] in [
        line.split() for line in r.out.splitlines()]


@pytest.mark.parametrize("args", [("--batch-size", "0"), ("--dry-run", "--validate")])
def test_bad_provision_options_are_refused_before_anything_starts(cluster: FakeCluster, tmp_path: Path,
                                                                  args: tuple[str, ...]) -> None:
    f = tmp_path / "quotas.csv"
    f.write_text(CSV, encoding="utf-8")
    r = run_in_process("-b", cluster.bootstrap, "quotas", "provision", str(f), *args)
    assert r.code == 2 and len(r.err.splitlines()) == 1, r.err
    assert cluster.request_log == []


def test_missing_or_unrecognised_file_is_a_usage_error(cluster: FakeCluster, tmp_path: Path) -> None:
    r = run_in_process("-b", cluster.bootstrap, "quotas", "provision", str(tmp_path / "nope.csv"))
    assert r.code == 2 and "no such file" in r.err
    odd = tmp_path / "quotas.txt"
    odd.write_text(CSV, encoding="utf-8")
    r = run_in_process("-b", cluster.bootstrap, "quotas", "provision", str(odd))
    assert r.code == 2 and "--file-format" in r.err
    assert cluster.request_log == []


def test_strict_refuses_the_whole_file_before_reading_or_changing_quotas(cluster: FakeCluster, tmp_path: Path,
                                                                         spark: Any) -> None:
    f = tmp_path / "quotas.csv"
    f.write_text(CSV + "carol,,producer_byte_rate,1.5\n", encoding="utf-8")
    r = run_in_process("-b", cluster.bootstrap, "quotas", "provision", str(f), "--strict")
    assert r.code == 2, r.err
    (line,) = r.err.splitlines()
    assert line.startswith("kadmin: error: invalid input: 1 input row(s) rejected") and "carol" in line
    assert cluster.count("DescribeClientQuotas") == 0 and cluster.count("AlterClientQuotas") == 0


# --- #18: removals only with a flag, said before they happen; bounded output ---------------------------------


def test_an_empty_value_is_refused_unless_it_is_asked_to_remove(cluster: FakeCluster, tmp_path: Path,
                                                               spark: Any) -> None:
    f = tmp_path / "quotas.csv"
    f.write_text("user,quota_key,value\nalice,consumer_byte_rate,\nbob,request_percentage,12.5\n", encoding="utf-8")
    r = run_in_process("-b", cluster.bootstrap, "quotas", "provision", str(f))
    assert r.code == 2, r.err
    assert "1 row(s) have an empty value (user=alice consumer_byte_rate)" in r.err and "--empty-means-remove" in r.err
    assert cluster.request_log == []
    r = run_in_process("-b", cluster.bootstrap, "quotas", "provision", str(f), "--empty-means-remove")
    assert r.code == 0, r.err
    assert "kadmin: removing 1 quota key: 1 key on 1 user entity" in r.err_lines
    assert cluster.quotas[ALICE] == {"producer_byte_rate": 1048576.0}
    assert cluster.quotas[BOB] == {"request_percentage": 12.5}


def test_remove_unlisted_says_how_far_it_reaches_before_anything_is_sent(cluster: FakeCluster, tmp_path: Path,
                                                                         spark: Any) -> None:
    # The report in #18: a one-row file for alice also prunes the default user and bob (same kind of entity).
    cluster.set_quota({"user": None}, "producer_byte_rate", 1000)
    cluster.set_quota({"user": "bob"}, "producer_byte_rate", 10)
    cluster.set_quota({"user": "bob"}, "consumer_byte_rate", 20)
    f = tmp_path / "alice.csv"
    f.write_text("user,quota_key,value\nalice,producer_byte_rate,1048576\n", encoding="utf-8")
    before = cluster.quotas
    r = run_in_process("-b", cluster.bootstrap, "quotas", "provision", str(f), "--remove-unlisted", "--dry-run")
    assert r.code == 0, r.err
    assert ("kadmin: the plan removes 4 quota keys: 1 key on 1 default user entity, 3 keys on 2 user entities"
            in r.err_lines)
    assert cluster.quotas == before
    cluster.clear_log()
    r = run_in_process("-b", cluster.bootstrap, "quotas", "provision", str(f), "--remove-unlisted",
                       "--scope", "user")
    assert r.code == 0, r.err
    assert r.err_lines[0] == "kadmin: removing 4 quota keys: 1 key on 1 default user entity, 3 keys on 2 user entities"
    assert (("user", None),) not in cluster.quotas and BOB not in cluster.quotas
    assert cluster.quotas[ALICE_ETL] == {"consumer_byte_rate": 2097152.0}  # user+client-id: not in scope


def test_dry_run_lists_the_first_changes_and_all_with_a_flag(cluster: FakeCluster, tmp_path: Path,
                                                            spark: Any) -> None:
    f = tmp_path / "many.csv"
    f.write_text("user,quota_key,value\n" + "".join(f"t{i:02d},producer_byte_rate,{i + 1}\n" for i in range(25))
                 + "alice,producer_byte_rate,1048576\n", encoding="utf-8")
    r = run_in_process("-b", cluster.bootstrap, "quotas", "provision", str(f), "--dry-run")
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    assert lines[0].split()[:2] == ["USER", "CLIENT-ID"] and len([x for x in lines if x.startswith("t")]) == 20
    assert "... and 5 more changed row(s) (--all lists every row, -o json every change)" in lines
    assert "plan: 25 set/planned, 1 unchanged/unchanged" in lines
    r = run_in_process("-b", cluster.bootstrap, "quotas", "provision", str(f), "--dry-run", "--all")
    lines = r.out.splitlines()
    assert len([x for x in lines if x.startswith("t")]) == 25 and any(x.startswith("alice ") for x in lines)
    assert not any(x.startswith("...") for x in lines)
