"""``kadmin --command-config krb.properties ...``: Kerberos properties as Kafka's tools take them, end to end.

A fresh ``kadmin`` process, in a real MIT Kerberos realm (k5test + krb5-kdc), logs in to the fake's GSSAPI
acceptor with a ``Krb5LoginModule`` keytab entry, and with the default ticket cache after ``kinit``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kadmin.testing import FakeCluster
from tests.support import kerberos
from tests.support.cli import run_cli

MODULE = "com.sun.security.auth.module.Krb5LoginModule"


@pytest.fixture
def realm() -> Iterator[kerberos.Realm]:
    r = kerberos.kerberos_realm()
    try:
        yield r
    finally:
        r.stop()


def test_keytab_properties_and_kinit(realm: kerberos.Realm, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for k, v in realm.env.items():  # the fake's acceptor runs in this process
        monkeypatch.setenv(k, v)
    env = {**realm.env, "KRB5CCNAME": f"FILE:{tmp_path}/none"}
    with FakeCluster(brokers=1, sasl={"mechanism": "GSSAPI", "gssapi_keytab": realm.service_keytab},
                     authorizer={"super_users": ["User:alice"]}) as c:
        c.add_topic("kerberized", partitions=1)
        props = tmp_path / "krb.properties"
        props.write_text("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=GSSAPI\nsasl.kerberos.service.name=kafka\n"
                         f'sasl.jaas.config={MODULE} required useKeyTab=true storeKey=true '
                         f'keyTab="{realm.client_keytab}" principal="{realm.client_principal}";\n')
        r = run_cli("-b", c.bootstrap, "--command-config", str(props), "topics", "list", env=env)
        assert r.code == 0 and "kerberized" in r.out, r.err
        who = run_cli("-b", c.bootstrap, "--command-config", str(props), "acls", "whoami", "-o", "json", env=env)
        assert who.code == 0 and who.json()["principal"] == "User:alice", who.err
        # No keytab, no ticket: one line saying to run kinit.
        plain = tmp_path / "ticket.properties"
        plain.write_text("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=GSSAPI\n")
        r2 = run_cli("-b", c.bootstrap, "--command-config", str(plain), "topics", "list", env=env)
        assert r2.code != 0 and "no Kerberos ticket" in r2.err and len(r2.err.strip().splitlines()) == 1
        ccache = tmp_path / "alice.ccache"
        realm.kinit(str(ccache))
        r3 = run_cli("-b", c.bootstrap, "--command-config", str(plain), "topics", "list",
                     env={**env, "KRB5CCNAME": f"FILE:{ccache}"})
        assert r3.code == 0 and "kerberized" in r3.out, r3.err
