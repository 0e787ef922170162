"""examples/onboard_user.py as a user runs it: on the embedded secured cluster, and against a given one."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from kadmin.testing import FakeCluster
from tests.support.cli import cli_env

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "onboard_user.py"
PASSWORD = "onboard-pw-7a1c"


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(EXAMPLE), *args], capture_output=True, text=True, timeout=60,
                          env={**cli_env(), **(env or {})}, stdin=subprocess.DEVNULL)


def test_onboard_on_the_embedded_cluster() -> None:
    r = run()
    assert r.returncode == 0, r.stderr
    assert "embedded fake cluster" in r.stderr
    assert "logged in as User:bob; groups visible: bob-billing, bob-orders" in r.stdout
    assert "someone-else: GROUP_AUTHORIZATION_FAILED" in r.stdout


def test_onboard_against_a_given_cluster(tmp_path: Path) -> None:
    props = tmp_path / "admin.properties"
    props.write_text('security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-256\n'
                     'sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required '
                     'username="root" password="root-pw";\n')
    with FakeCluster(brokers=1, sasl={"mechanism": "SCRAM-SHA-256", "users": {"root": "root-pw"}},
                     authorizer={"super_users": ["User:root"]}) as c:
        r = run("--bootstrap-server", c.bootstrap, "--command-config", str(props), "--user", "tina",
                "--prefix", "tina-", env={"ONBOARD_PASSWORD": PASSWORD})
        assert r.returncode == 0, r.stderr
        assert c.scram_users["tina"] == {"SCRAM-SHA-512": 4096}
        assert {(a.resource_type, a.name, a.pattern_type, a.operation) for a in c.acls} == {
            ("GROUP", "tina-", "PREFIXED", "READ"), ("TOPIC", "tina-", "PREFIXED", "READ"),
            ("TOPIC", "tina-", "PREFIXED", "DESCRIBE")}
        assert PASSWORD not in r.stdout + r.stderr
        r = run("--bootstrap-server", c.bootstrap, "--command-config", str(props))  # no password anywhere
        assert r.returncode == 2 and "ONBOARD_PASSWORD" in r.stderr
