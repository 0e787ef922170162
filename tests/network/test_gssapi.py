"""SASL/GSSAPI (Kerberos) from kadmin to the fake cluster, in a real MIT Kerberos realm (k5test + krb5-kdc).

The fake's acceptor (``gssapi``, the brokers' service keytab) and kadmin's initiator run the whole RFC 4752
exchange, security-layer negotiation included, with tickets from the test KDC: a keytab login, a ticket cache
from ``kinit``, the principal's short name reaching the authorizer, and the usual failures each in one line
naming the fix (no ticket, unknown service principal, clock skew).  Skipped, with one reason line, where the
Kerberos packages are absent (failed in CI, which installs them: tests.support.kerberos.require), except the
check that a GSSAPI config without the gssapi package is refused, which runs everywhere.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kadmin.aio import AdminClient
from kadmin.config import ClientConfig
from kadmin.errors import AuthenticationError, KafkaError
from kadmin.network.sasl_gssapi import GssapiClient
from kadmin.testing import FakeCluster
from kadmin.topics import NewTopic
from tests.support import kerberos
from tests.support.aio import run
from tests.support.settings import AUTH_FAST as FAST


@pytest.fixture(scope="module")
def realm() -> Iterator[kerberos.Realm]:
    r = kerberos.kerberos_realm()
    mp = pytest.MonkeyPatch()
    for k, v in r.env.items():
        mp.setenv(k, v)
    mp.setenv("KRB5CCNAME", f"FILE:{r.k5.tmpdir}/default-ccache")  # empty unless a test runs kinit
    try:
        yield r
    finally:
        mp.undo()
        r.stop()


@pytest.fixture
def cluster(realm: kerberos.Realm) -> Iterator[FakeCluster]:
    with FakeCluster(brokers=1, sasl={"mechanism": "GSSAPI", "gssapi_keytab": realm.service_keytab},
                     authorizer={"super_users": ["User:alice"]}) as c:
        yield c


def gss(c: FakeCluster, **kw: Any) -> AdminClient:
    return AdminClient(c.bootstrap, security_protocol="SASL_PLAINTEXT", sasl_mechanism="GSSAPI", **{**FAST, **kw})


def test_keytab_login_and_the_principal_reaches_the_authorizer(realm: kerberos.Realm, cluster: FakeCluster) -> None:
    async def body() -> None:
        async with gss(cluster, sasl_kerberos_principal=realm.client_principal,
                       sasl_kerberos_keytab=realm.client_keytab) as a:
            created = (await a.create_topics([NewTopic("krb-topic", 1, 1)]))["krb-topic"]
            assert not isinstance(created, KafkaError)
            assert (await a.whoami()).principal == "User:alice"

    run(body())
    assert "krb-topic" in cluster.topics


def test_ticket_cache_login_after_kinit(realm: kerberos.Realm, cluster: FakeCluster, tmp_path: Path) -> None:
    ccache = str(tmp_path / "alice.ccache")
    realm.kinit(ccache)

    async def body() -> None:
        async with gss(cluster, sasl_kerberos_ccache=ccache) as a:
            assert await a.list_topics() == []
        # The default cache (KRB5CCNAME), as after a plain `kinit`.
        os.environ["KRB5CCNAME"] = f"FILE:{ccache}"
        async with gss(cluster) as a:
            assert await a.list_topics() == []

    try:
        run(body())
    finally:
        os.environ["KRB5CCNAME"] = f"FILE:{realm.k5.tmpdir}/default-ccache"


def test_no_ticket_is_one_line_naming_kinit(realm: kerberos.Realm, cluster: FakeCluster) -> None:
    async def body() -> None:
        async with gss(cluster) as a:
            await a.list_topics()

    with pytest.raises(AuthenticationError) as err:
        run(body())
    text = str(err.value)
    assert "no Kerberos ticket" in text and "kinit" in text and "\n" not in text
    assert not [e for e in cluster.request_log if e.api_key == 36]  # nothing sent without a ticket


def test_unknown_service_principal_names_it(realm: kerberos.Realm, cluster: FakeCluster) -> None:
    async def body() -> None:
        async with gss(cluster, sasl_kerberos_service_name="kafka-wrong",
                       sasl_kerberos_principal=realm.client_principal, sasl_kerberos_keytab=realm.client_keytab) as a:
            await a.list_topics()

    with pytest.raises(AuthenticationError, match="does not know the broker's service principal "
                                                  "kafka-wrong/127.0.0.1 .*sasl.kerberos.service.name"):
        run(body())


def test_a_real_clock_skew_is_one_line_saying_so(realm: kerberos.Realm, cluster: FakeCluster, tmp_path: Path) -> None:
    """A client clock an hour ahead of the KDC's, for real: MIT Kerberos keeps the offset to the KDC's clock in
    the ticket cache's header (its DeltaTime field, applied when the cache is read), so a cache whose offset
    says +3600 s makes the client's next request to the KDC (the service ticket for the broker) an hour off, and
    the KDC refuses it with KRB_AP_ERR_SKEW."""
    import struct
    import time

    ccache = tmp_path / "skewed.ccache"
    realm.kinit(str(ccache))
    raw = bytearray(ccache.read_bytes())
    # File ccache v4: version 0x0504, header length 12, tag 1 (DeltaTime) of 8 bytes: seconds, microseconds.
    assert raw[:8] == bytes.fromhex("0504000c00010008")
    raw[8:12] = struct.pack(">i", 3600)
    ccache.write_bytes(bytes(raw))

    async def body() -> None:
        async with gss(cluster, sasl_kerberos_ccache=str(ccache)) as a:
            await a.list_topics()

    started = time.monotonic()
    with pytest.raises(AuthenticationError) as err:
        run(body())
    text = str(err.value)
    assert "clock skew too great" in text and "synchronise the clocks" in text and "\n" not in text
    assert time.monotonic() - started < 5.0  # at once, not retried to the deadline
    assert not [e for e in cluster.request_log if e.api_key == 36]  # refused by the KDC: no token sent


def test_clock_skew_is_explained() -> None:
    kerberos.require()

    class Skew(Exception):
        def __str__(self) -> str:  # the text MIT Kerberos gives for KRB5KRB_AP_ERR_SKEW
            return ("Major (851968): Unspecified GSS failure.  Minor code may provide more information, "
                    "Minor (2529638949): Clock skew too great")

    err = GssapiClient("b1", service="kafka")._explain(Skew())
    assert "clock skew too great" in str(err) and "synchronise the clocks" in str(err)


def test_gssapi_without_the_package_is_refused_before_connecting(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "gssapi" else real(name, *a))
    with pytest.raises(ValueError, match=r"pip install 'kafka-kadmin\[gssapi\]'"):
        ClientConfig("k:9092", security_protocol="SASL_SSL", sasl_mechanism="GSSAPI")


def test_krb5_login_module_properties(tmp_path: Path) -> None:
    kerberos.require()  # a GSSAPI config needs the gssapi package (the test above covers its absence)
    keytab = tmp_path / "svc.keytab"
    keytab.write_bytes(b"\x05\x02")
    c = ClientConfig.from_properties({
        "bootstrap.servers": "k:9092", "security.protocol": "SASL_SSL", "sasl.mechanism": "GSSAPI",
        "sasl.kerberos.service.name": "kafka-svc",
        "sasl.jaas.config": 'com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true storeKey=true '
                            f'keyTab="{keytab}" principal="svc/app.example.com@EXAMPLE.COM";'})
    assert (c.sasl_kerberos_service_name, c.sasl_kerberos_keytab, c.sasl_kerberos_principal) == (
        "kafka-svc", str(keytab), "svc/app.example.com@EXAMPLE.COM")
    t = ClientConfig.from_properties({
        "bootstrap.servers": "k:9092", "security.protocol": "SASL_SSL", "sasl.mechanism": "GSSAPI",
        "sasl.jaas.config": 'com.sun.security.auth.module.Krb5LoginModule required useTicketCache=true '
                            'ticketCache="/tmp/krb5cc_1000";'})
    assert t.sasl_kerberos_ccache == "/tmp/krb5cc_1000" and t.sasl_kerberos_keytab is None
    with pytest.raises(ValueError, match="useKeyTab=true needs keyTab"):
        ClientConfig.from_properties({"bootstrap.servers": "k:9092", "security.protocol": "SASL_SSL",
                                      "sasl.mechanism": "GSSAPI", "sasl.jaas.config":
                                      "com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true;"})
    with pytest.raises(ValueError, match="cannot read the keytab"):
        ClientConfig("k:9092", security_protocol="SASL_SSL", sasl_mechanism="GSSAPI",
                     sasl_kerberos_principal="a@B", sasl_kerberos_keytab=str(tmp_path / "missing.keytab"))


def test_kerberos_sessions_are_renewed_in_place(realm: kerberos.Realm) -> None:
    import asyncio
    import time

    async def body(c: FakeCluster) -> None:
        async with gss(c, sasl_kerberos_principal=realm.client_principal,
                       sasl_kerberos_keytab=realm.client_keytab) as a:
            end = time.monotonic() + 1.6
            while time.monotonic() < end:
                assert await a.list_topics() == []
                await asyncio.sleep(0.05)
            assert len(a.net.connections_opened) == 1

    with FakeCluster(brokers=1, sasl={"mechanism": "GSSAPI", "gssapi_keytab": realm.service_keytab,
                                      "max_reauth_ms": 500}) as c:
        run(body(c))
        assert len([e for e in c.request_log if e.api_key == 17]) >= 3  # the login and two renewals at least
