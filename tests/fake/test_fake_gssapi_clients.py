"""kafka-python's SASL/GSSAPI client logs in to the fake's Kerberos acceptor, in a real MIT realm.

The same fake and realm as tests/network/test_gssapi.py, with an independent initiator: kafka-python (through
``gssapi``, its ticket from ``kinit`` in the default cache) sends its RFC 4752 tokens and its security-layer
choice with its own authorization id, and the topic it creates is owned by the principal's short name.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kadmin.testing import FakeCluster
from tests.support import kerberos


def test_kafka_python_gssapi_logs_in_to_the_fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    kafka_admin = pytest.importorskip("kafka.admin")
    realm = kerberos.kerberos_realm()
    try:
        for k, v in realm.env.items():
            monkeypatch.setenv(k, v)
        ccache = tmp_path / "kp.ccache"
        realm.kinit(str(ccache))
        monkeypatch.setenv("KRB5CCNAME", f"FILE:{ccache}")
        with FakeCluster(brokers=1, sasl={"mechanism": "GSSAPI", "gssapi_keytab": realm.service_keytab},
                         authorizer={"super_users": ["User:alice"]}) as c:
            a = kafka_admin.KafkaAdminClient(bootstrap_servers=c.bootstrap, security_protocol="SASL_PLAINTEXT",
                                             sasl_mechanism="GSSAPI", sasl_kerberos_service_name="kafka",
                                             request_timeout_ms=5000)
            try:
                a.create_topics([kafka_admin.NewTopic("from-kafka-python-krb", 1, 1)])
            finally:
                a.close()
            assert "from-kafka-python-krb" in c.topics  # authorized as User:alice
            logins = [e for e in c.request_log if e.api_key == 36]
            assert len(logins) >= 3  # context token(s), then the empty message and the wrapped layer choice
    finally:
        realm.stop()
