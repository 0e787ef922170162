"""A self-contained MIT Kerberos realm for tests (k5test drives Debian's krb5-kdc and kadmin.local).

``kerberos_realm()`` starts a KDC on free ports in a temporary directory with principals for a client
(``alice``) and the fake brokers' service (``kafka/127.0.0.1``, the host the clients connect to), each with a
keytab, and returns a :class:`Realm`.  ``Realm.env`` is the environment the Kerberos library reads
(``KRB5_CONFIG``...), to set in this process (the fake's acceptor and the clients run here) and in children.
Without the packages, ``require()`` skips the test with one line saying what is missing (``skip_reason()``);
in CI (``CI=true``) it fails it instead, as the reference-schema tests do: CI installs them (scripts/test.sh,
``ensure_kerberos``, as root with apt), so a Kerberos test that quietly skipped there would hide a broken set-up.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import socket
from dataclasses import dataclass
from typing import Any

import pytest

from tests.support.kafka_reference import in_ci

REALM = "KADMIN.TEST"
SERVICE_HOST = "127.0.0.1"


def skip_reason() -> str | None:
    missing = [m for m in ("gssapi", "k5test") if importlib.util.find_spec(m) is None]
    if not (shutil.which("krb5kdc") or os.path.exists("/usr/sbin/krb5kdc")):
        missing.append("krb5kdc (apt: krb5-kdc krb5-admin-server)")
    return f"Kerberos tests need {', '.join(missing)}" if missing else None


def require() -> None:
    """Skip the calling test (fail it in CI) when the Kerberos packages are missing."""
    reason = skip_reason()
    if reason is not None:
        if in_ci():
            pytest.fail(f"CI=true but {reason}", pytrace=False)
        pytest.skip(reason)


def _free_portbase() -> int:
    """k5test uses ten ports from its base: find a run of free ones (other test runs may hold some)."""
    for _ in range(50):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            base: int = s.getsockname()[1]
        if base + 10 > 65535:
            continue
        try:
            for p in range(base, base + 10):
                with socket.socket() as t:
                    t.bind(("127.0.0.1", p))
                with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as u:
                    u.bind(("127.0.0.1", p))
        except OSError:
            continue
        return base
    raise RuntimeError("no run of 10 free ports for the test KDC")


@dataclass
class Realm:
    k5: Any
    service_keytab: str
    client_keytab: str
    client_principal: str
    client_password: str

    @property
    def env(self) -> dict[str, str]:
        keep = ("KRB5_CONFIG", "KRB5_KDC_PROFILE", "KRB5RCACHEDIR")
        return {k: v for k, v in self.k5.env.items() if k in keep}

    def kinit(self, ccache: str) -> None:
        """A ticket for the client in the cache file ``ccache`` (as a user's ``kinit`` would)."""
        self.k5.kinit(self.client_principal, self.client_password, flags=["-c", ccache])

    def stop(self) -> None:
        self.k5.stop()
        shutil.rmtree(self.k5.tmpdir, ignore_errors=True)


def kerberos_realm() -> Realm:
    require()
    import k5test

    k5 = k5test.K5Realm(realm=REALM, portbase=_free_portbase(), get_creds=False, create_host=False,
                        krb5_conf={"libdefaults": {"rdns": "false", "dns_canonicalize_hostname": "false"}})
    service = f"kafka/{SERVICE_HOST}@{REALM}"
    k5.addprinc(service)
    service_keytab = os.path.join(k5.tmpdir, "kafka.keytab")
    k5.extract_keytab(service, service_keytab)
    client = f"alice@{REALM}"
    password = "alice-Kerberos-pw"
    k5.addprinc(client, password)
    client_keytab = os.path.join(k5.tmpdir, "alice.keytab")
    k5.extract_keytab(client, client_keytab)
    return Realm(k5, service_keytab, client_keytab, client, password)
