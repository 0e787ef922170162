"""The README's 50-tenant sample runs against ``kadmin demo``'s cluster (issue #29: without an authorizer its
ACL phase failed with SECURITY_DISABLED).  Spark starts in a child process: hence the explicit marker."""

from __future__ import annotations

import subprocess
import sys

import pytest

from kadmin.testing.demo import start_demo
from tests.support.cli import ROOT, cli_env
from tests.support.spark_jvm import child_spark_env


@pytest.mark.spark
@pytest.mark.timeout(900)
def test_the_tenant_sample_provisions_against_the_demo_cluster() -> None:
    demo = start_demo(brokers=3)
    try:
        proc = subprocess.run(
            [sys.executable, str(ROOT / "examples" / "provision_tenants.py"), "--bootstrap-server",
             demo.cluster.bootstrap], capture_output=True, text=True, timeout=840, cwd=ROOT,
            env=cli_env({"KADMIN_TENANT_PASSWORD": "demo-password", **child_spark_env()}))
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert "0 row(s) still differ" in proc.stdout
        principals = {acl.principal for acl in demo.cluster.acls}
        assert any(p.startswith("User:t") for p in principals)
    finally:
        demo.close()
