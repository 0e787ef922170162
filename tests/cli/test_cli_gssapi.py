"""``kadmin --command-config krb.properties ...``: Kerberos properties as Kafka's tools take them, end to end.

A fresh ``kadmin`` process, in a real MIT Kerberos realm (k5test + krb5-kdc), logs in to the fake's GSSAPI
acceptor with a ``Krb5LoginModule`` keytab entry, and with the default ticket cache after ``kinit``; and the
keytab file and command of docs/connecting.md as the page shows them, only its hosts, keytab and principal filled in.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest

from kadmin.testing import FakeCluster
from tests.support import kerberos, tls_util
from tests.support.cli import run_cli
from tests.support.doc_blocks import section_blocks

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


def test_the_documented_kerberos_properties_and_command_work(realm: kerberos.Realm, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/connecting.md's keytab file (SASL_SSL, sasl.kerberos.service.name=kafka, a Krb5LoginModule line) and
    its ``kadmin --command-config krb.properties ... topics list``, against a TLS listener of the fake."""
    documented = section_blocks("connecting.md", "## Kerberos (GSSAPI)", "properties")[0]
    command = shlex.split(section_blocks("connecting.md", "## Kerberos (GSSAPI)", "bash")[0])
    assert command[:3] == ["kadmin", "--command-config", "krb.properties"] and command[-2:] == ["topics", "list"]
    for k, v in realm.env.items():  # the fake's acceptor runs in this process
        monkeypatch.setenv(k, v)
    pki = tls_util.make_ca(tmp_path / "pki")
    server = pki.server_context(tls_util.make_cert(pki, "broker", ["127.0.0.1", "localhost"]))
    with FakeCluster(brokers=1, tls=server, sasl={"mechanism": "GSSAPI", "gssapi_keytab": realm.service_keytab},
                     authorizer={"super_users": ["User:alice"]}) as c:
        c.add_topic("documented-krb", partitions=1)
        props = tmp_path / "krb.properties"
        filled = documented.replace("/etc/security/keytabs/ops.keytab", realm.client_keytab)
        props.write_text(filled.replace("ops@EXAMPLE.COM", realm.client_principal)
                         + f"ssl.truststore.type=PEM\nssl.truststore.location={pki.ca.cert}\n")
        args = [str(props) if a == "krb.properties" else a for a in command[1:]]
        args[args.index("-b") + 1] = c.bootstrap
        r = run_cli(*args, env={**realm.env, "KRB5CCNAME": f"FILE:{tmp_path}/none"})
        assert r.code == 0 and "documented-krb" in r.out, r.err
