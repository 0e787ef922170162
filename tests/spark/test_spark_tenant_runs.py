"""Whole provisioning runs: one interrupted half-way and run again, ``kadmin provision`` with every option that
changes what it does, and the README's main job (examples/provision_tenants.py) on the shipped sample.

Real PySpark (the session ``spark`` fixture, shared in this process by the CLI and the example) against
FakeCluster; the independent read-back of what was written is in tests/spark/test_spark_tenants_peers.py.
"""

from __future__ import annotations

import csv
import importlib.util
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kadmin import AdminClient
from kadmin.protocol.apis import ApiKey
from kadmin.testing import FakeCluster
from tests.spark.test_spark_tenants import acl_keys, by_key, secrets, spec_for, writes

pytestmark = pytest.mark.spark
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def kafka() -> Iterator[tuple[FakeCluster, AdminClient]]:
    with FakeCluster(brokers=3, authorizer={"super_users": ["User:ANONYMOUS"]}) as cluster, \
            AdminClient(cluster.bootstrap) as admin:
        yield cluster, admin


class Interrupted(Exception):
    """What a Ctrl-C (or a killed driver) does to a run: it stops between two batches."""


def test_an_interrupted_run_run_again_converges(spark: Any, kafka: tuple[FakeCluster, AdminClient]) -> None:
    from kadmin.spark import drift, provision

    cluster, admin = kafka
    spec = spec_for(spark, ["a", "b"])
    seen: list[str] = []

    def stop_after_the_first_topic(p: Any) -> None:
        seen.append(p.phase)
        if p.phase == "topics created" and "stopped" not in seen:
            seen.append("stopped")
            raise Interrupted

    with pytest.raises(Interrupted):
        provision(spec, admin, "apply", secrets=secrets, batch_size=1, max_concurrency=1,
                  progress=stop_after_the_first_topic)
    # Half done: the users and one topic exist, the ACLs and quotas were never sent.
    assert set(cluster.scram_users) == {"a", "b"} and len(cluster.topics) == 1
    assert cluster.count(ApiKey.CREATE_ACLS) == 0 and not cluster.quotas

    cluster.clear_log()
    again = by_key(provision(spec, admin, "apply", secrets=secrets))
    assert {r["status"] for r in again.values()} <= {"ok", "unchanged"}, again
    assert cluster.count(ApiKey.ALTER_USER_SCRAM_CREDENTIALS) == 0  # the users made before the stop are kept
    assert cluster.count(ApiKey.CREATE_TOPICS) == 1
    assert set(cluster.topics) == {"a-events", "b-events"} and len(acl_keys(cluster)) == 6
    assert cluster.topic_configs("a-events") == cluster.topic_configs("b-events") == {
        "retention.ms": "3600000", "cleanup.policy": "delete"}
    cluster.clear_log()
    assert drift(provision(spec, admin, "plan")).count() == 0 and writes(cluster) == []


def run(*args: str) -> tuple[int, dict[str, Any], str]:
    from kadmin.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    code = main(list(args), stdout=out, stderr=err)
    return code, json.loads(out.getvalue()), err.getvalue()


def summary(doc: dict[str, Any]) -> dict[tuple[str, str, str], int]:
    return {(s["kind"], s["action"], s["status"]): s["count"] for s in doc["summary"]}


def test_cli_provision_validate_then_apply_with_scope_remove_unlisted_and_a_saved_plan(
        spark: Any, kafka: tuple[FakeCluster, AdminClient], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cluster, _ = kafka
    monkeypatch.setenv("KADMIN_TEST_TENANT_PW", "pw-from-the-environment")
    for t in ("t-gone", "other"):
        cluster.add_topic(t, partitions=1)
    cluster.set_scram_password("t-old", "pw")
    cluster.set_scram_password("outsider", "pw")
    cluster.add_acl("topic", "other", "User:outsider", "read", "allow")
    spec = tmp_path / "spec"
    spec.mkdir()
    (spec / "scram_users.csv").write_text("user,mechanism,iterations,password_ref\n"
                                          "t-a,SCRAM-SHA-512,8192,env:KADMIN_TEST_TENANT_PW\n")
    (spec / "topics.csv").write_text('name,partitions,replication_factor,configs\n'
                                     't-a-events,2,1,"{""retention.ms"": ""60000""}"\n')
    (spec / "acls.csv").write_text("principal,host,operation,permission,resource_type,resource_name,pattern_type\n"
                                   "User:t-a,*,read,allow,topic,t-a-,prefixed\n")
    base = ["-b", cluster.bootstrap, "-o", "json", "provision", str(spec)]
    scope = ["--remove-unlisted", "--scope", "topics=t-", "--scope", "principals=User:t-"]

    code, doc, err = run(*base, "--validate", *scope)
    assert code == 0, err
    assert summary(doc) == {("scram_users", "create", "validated"): 1, ("topics", "create", "validated"): 1,
                            ("topic_configs", "create", "validated"): 1, ("acls", "create", "validated"): 1,
                            ("topics", "delete", "validated"): 1, ("scram_users", "delete", "validated"): 1}
    assert writes(cluster) and all(e.api_key == ApiKey.CREATE_TOPICS for e in writes(cluster))  # validate_only
    assert set(cluster.topics) == {"t-gone", "other"} and set(cluster.scram_users) == {"t-old", "outsider"}

    cluster.clear_log()
    plan_dir = tmp_path / "plan"
    code, doc, err = run(*base, "--apply", "--save-plan", str(plan_dir), *scope)
    assert code == 0, err  # the saved plan's SCRAM user resolved its password_ref (env:) again
    assert {s for (_, _, s) in summary(doc)} == {"ok"}
    assert (plan_dir / "_SUCCESS").exists()
    assert spark.read.parquet(str(plan_dir)).filter("kind = 'scram_users'").count() == 2
    assert cluster.scram_users == {"t-a": {"SCRAM-SHA-512": 8192}, "outsider": {"SCRAM-SHA-256": 4096}}
    assert set(cluster.topics) == {"t-a-events", "other"}
    assert cluster.topic_configs("t-a-events") == {"retention.ms": "60000"}
    assert acl_keys(cluster) == {"User:outsider READ TOPIC:other", "User:t-a READ TOPIC:t-a-"}
    for entry in writes(cluster):  # nothing outside the scope was sent anything
        assert not any("outsider" in str(k) or "other" == k for k in entry.keys), entry

    cluster.clear_log()
    code, doc, err = run(*base, *scope)  # the default: a dry run, nothing left to do
    assert code == 0, err
    assert {a for (_, a, _) in summary(doc)} == {"unchanged"} and writes(cluster) == []


def test_the_main_job_provisions_the_shipped_sample(spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """examples/provision_tenants.py as the README runs it (the 50-tenant sample against the embedded cluster),
    in this process so that it uses the test session's Spark instead of starting a JVM of its own."""
    spec = importlib.util.spec_from_file_location("provision_tenants", ROOT / "examples" / "provision_tenants.py")
    assert spec is not None and spec.loader is not None
    job = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(job)
    monkeypatch.delenv("KADMIN_BOOTSTRAP_SERVERS", raising=False)
    monkeypatch.setenv("KADMIN_TENANT_PASSWORD", "sample-password")
    code = job.main(["--results", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "plan after apply: 0 row(s) still differ" in out
    results = {(r["kind"], r["status"]): r["count"]
               for r in spark.read.parquet(str(tmp_path / "results")).groupBy("kind", "status").count().collect()}
    assert results == {(kind, "ok"): n for kind, n in sample_entities().items()}


def sample_entities() -> dict[str, int]:
    """Entities per kind in examples/tenants/, counted from the files with the csv module (not Spark)."""
    def rows(kind: str) -> list[dict[str, str]]:
        with (ROOT / "examples" / "tenants" / f"{kind}.csv").open(newline="") as f:
            return list(csv.DictReader(f))

    topics = rows("topics")
    configs = {(t["name"], c) for t in topics if t["configs"] for c in json.loads(t["configs"])}
    configs |= {(r["topic"], r["config"]) for r in rows("topic_configs")}
    quotas = sum(1 for r in rows("quotas") for k, v in r.items() if k != "user" and v)
    return {"scram_users": len(rows("scram_users")), "topics": len(topics), "topic_configs": len(configs),
            "acls": len(rows("acls")), "quotas": quotas}
