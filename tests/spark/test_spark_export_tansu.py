"""Export -> provision round trip on Tansu (a real broker), for what it serves (issue #30).

Tansu serves topics and DescribeAcls; it labels a topic's configs DEFAULT_CONFIG (so none is the topic's own:
none is exported, and none is compared by a plan), answers DescribeUserScramCredentials with a body that does
not decode and has no client quota APIs: those two kinds are reported missing, the rest written.
"""

from __future__ import annotations

import io
import json
import os
import uuid
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka.admin import AdminClient as CkAdminClient

from kadmin import AdminClient
from kadmin.cli.main import main
from kadmin.topics import NewTopic
from tests.support import peers
from tests.support.peers import RunningBroker

pytestmark = [pytest.mark.spark, pytest.mark.peer, pytest.mark.timeout(300)]


def partitions_seen(bootstrap: str, prefix: str) -> dict[str, int]:
    md = CkAdminClient({"bootstrap.servers": bootstrap, "log_level": 0}).list_topics(timeout=15)
    return {n: len(t.partitions) for n, t in md.topics.items() if n.startswith(prefix)}


def test_tansu_export_plans_nothing_and_recreates_its_topics(spark: Any, fresh_tansu: RunningBroker,
                                                            tmp_path: Path, peer_log_dir: Path) -> None:
    from kadmin.spark import export

    prefix = f"ex-{uuid.uuid4().hex[:6]}-"
    with AdminClient(fresh_tansu.bootstrap) as admin:
        made = admin.create_topics([NewTopic(prefix + "a", 3, 1, configs={"retention.ms": "3600000"}),
                                    NewTopic(prefix + "b", 1, 1)])
        assert all(not isinstance(r, BaseException) for r in made.values()), made
        spec = tmp_path / "spec"
        result = export(admin, spark, str(spec), scope=[f"topics={prefix}"])
    assert set(result.missing) == {"scram_users", "quotas"}, result.missing
    assert "UNSUPPORTED_VERSION" in result.missing["quotas"]
    # Tansu has no dynamic broker configs and no group configs to export: read, and empty.
    assert result.rows == {"topics": 2, "topic_configs": 0, "acls": 0, "group_configs": 0, "broker_configs": 0}
    assert os.listdir(spec) == ["topics.csv"]
    assert (spec / "topics.csv").read_text().splitlines() == [
        "name,partitions,replication_factor", f"{prefix}a,3,1", f"{prefix}b,1,1"]

    out, err = io.StringIO(), io.StringIO()
    code = main(["-b", fresh_tansu.bootstrap, "-o", "json", "provision", str(spec)], stdout=out, stderr=err)
    assert code == 0, err.getvalue()
    assert json.loads(out.getvalue())["summary"] == [
        {"kind": "topics", "action": "unchanged", "status": "unchanged", "count": 2}]

    other = peers.start_tansu(log_dir=peer_log_dir)
    try:
        out, err = io.StringIO(), io.StringIO()
        code = main(["-b", other.bootstrap, "provision", str(spec), "--apply"], stdout=out, stderr=err)
        assert code == 0, err.getvalue()
        assert partitions_seen(other.bootstrap, prefix) == partitions_seen(fresh_tansu.bootstrap, prefix) == {
            prefix + "a": 3, prefix + "b": 1}
    finally:
        other.stop()
