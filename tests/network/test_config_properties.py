"""Client property files read as Kafka's Java client reads them (#18 items 11 and 12).

Each case is a slip found in the files of a real secured Kafka 3.9 set-up: a JAAS entry for the wrong
mechanism, two users named in one file, a delegation-token login, a JAAS value missing its closing quote,
a wrong key password.  Each must get Java's behaviour or a specific error that names the slip and never a
secret.
"""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import pytest

from kadmin.config import ClientConfig
from kadmin.jaas import parse_jaas
from tests.support.tls_util import make_ca, make_cert

SCRAM = "org.apache.kafka.common.security.scram.ScramLoginModule"
PLAIN = "org.apache.kafka.common.security.plain.PlainLoginModule"
SECRET = "s3cr3t-Pa55"


def _props(**extra: str) -> dict[str, str]:
    return {"bootstrap.servers": "k1:9093", "security.protocol": "SASL_SSL", "sasl.mechanism": "SCRAM-SHA-512",
            **{k.replace("_", "."): v for k, v in extra.items()}}


def _refused(props: dict[str, str], message: str) -> str:
    with pytest.raises(ValueError, match=message) as info:
        ClientConfig.from_properties(props)
    assert SECRET not in str(info.value)
    return str(info.value)


def test_scram_mechanism_with_the_plain_login_module_is_refused() -> None:
    text = _refused(_props(sasl_jaas_config=f'{PLAIN} required username="ops" password="{SECRET}";'),
                    "sasl.mechanism=SCRAM-SHA-512 does not go with PlainLoginModule")
    assert SCRAM in text  # says which module to use
    _refused({**_props(sasl_jaas_config=f'{SCRAM} required username="ops" password="{SECRET}";'),
              "sasl.mechanism": "PLAIN"}, "sasl.mechanism=PLAIN does not go with ScramLoginModule")


def test_the_jaas_user_wins_over_sasl_username_as_in_java(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="kadmin.config")
    c = ClientConfig.from_properties({**_props(sasl_jaas_config=f'{SCRAM} required username="ops" '
                                                                f'password="{SECRET}";'),
                                      "sasl.username": "someone-else", "sasl.password": "0ther-pw-zz"})
    assert (c.sasl_username, c.sasl_password) == ("ops", SECRET)
    warnings = " ".join(r.getMessage() for r in caplog.records)
    assert "sasl.username is ignored" in warnings and "sasl.password is ignored" in warnings
    assert SECRET not in warnings and "0ther-pw-zz" not in warnings


def test_librdkafka_spelling_alone_still_works() -> None:
    c = ClientConfig.from_properties({**_props(), "sasl.username": "ops", "sasl.password": SECRET})
    assert (c.sasl_username, c.sasl_password) == ("ops", SECRET)


def test_a_delegation_token_login_is_read_from_tokenauth() -> None:
    c = ClientConfig.from_properties(_props(
        sasl_jaas_config=f'{SCRAM} required username="tokenid" password="{SECRET}" tokenauth="true";'))
    assert (c.sasl_username, c.sasl_password, c.sasl_token_auth) == ("tokenid", SECRET, True)
    c = ClientConfig.from_properties(_props(sasl_jaas_config=f'{SCRAM} required username="u" password="{SECRET}" '
                                                             'tokenauth=false;'))
    assert c.sasl_username == "u" and not c.sasl_token_auth
    _refused({**_props(sasl_jaas_config=f'{PLAIN} required username="t" password="{SECRET}" tokenauth="true";'),
              "sasl.mechanism": "PLAIN"}, "only ScramLoginModule reads")


@pytest.mark.parametrize(("jaas", "message"), [
    (f'{SCRAM} required username="ops" password="{SECRET};', "the value of 'password' has no closing quote"),
    (f'{SCRAM} required username="ops" password="{SECRET}"', "not terminated by ';'"),
    (f'{SCRAM} username="ops" password="{SECRET}";', "invalid login module control flag 'username'"),
    (f'{SCRAM} required username="ops" password;', "option 'password' has no '=value'"),
    (f'{SCRAM} required username="ops" password=;', "no value given for option 'password'"),
    (f'{SCRAM} required username="ops";', "has no password option"),
    (f'{SCRAM} required username="a" password="{SECRET}"; {SCRAM} required username="b" password="x";',
     "2 login module entries"),
    (f'com.example.CustomLoginModule required username="a" password="{SECRET}";', "kadmin supports"),
    ("", "names no login module"),
])
def test_jaas_slips_are_named(jaas: str, message: str) -> None:
    _refused(_props(sasl_jaas_config=jaas), message)


def test_jaas_grammar_as_java_reads_it() -> None:
    entry = parse_jaas(f"/* a comment */ {SCRAM} REQUIRED // the flag is case-insensitive\n"
                       " username=ops password='a\\'b;c' extra=\"x\" extra=y ;")
    assert (entry.module, entry.flag) == (SCRAM, "required")
    assert entry.options == {"username": "ops", "password": "a'b;c", "extra": "y"}
    assert "a'b;c" not in repr(entry)


def test_a_wrong_key_password_is_reported_as_that(tmp_path: Path) -> None:
    pki = make_ca(tmp_path)
    client = make_cert(pki, "client", ["client"], client=True, key_password=SECRET)
    base = {"bootstrap.servers": "k1:9093", "security.protocol": "SSL", "ssl.truststore.type": "PEM",
            "ssl.truststore.location": str(pki.ca.cert), "ssl.certificate.location": str(client.cert),
            "ssl.key.location": str(client.key)}
    _refused({**base, "ssl.key.password": "wrong"},
             f"ssl.key.password does not decrypt the private key in {client.key} \\(wrong password\\?\\)")
    _refused(base, f"the private key in {client.key} is encrypted: give its password \\(ssl.key.password\\)")
    ok = ClientConfig.from_properties({**base, "ssl.key.password": SECRET})
    assert ok.ssl_keyfile == str(client.key)
    other = make_cert(pki, "other", ["other"], client=True)
    _refused({**base, "ssl.key.location": str(other.key), "ssl.key.password": SECRET}, "does not belong to the "
             "certificate")


def test_a_pem_keystore_is_read_as_java_reads_it(tmp_path: Path) -> None:
    pki = make_ca(tmp_path)
    client = make_cert(pki, "client", ["client"], client=True)
    keystore = tmp_path / "keystore.pem"
    keystore.write_bytes(client.key.read_bytes() + client.cert.read_bytes())
    c = ClientConfig.from_properties({"bootstrap.servers": "k1:9093", "security.protocol": "SSL",
                                      "ssl.keystore.type": "PEM", "ssl.keystore.location": str(keystore)})
    assert c.ssl_certfile == str(keystore) and c.ssl_keyfile is None
    shutil.copy(keystore, tmp_path / "ks.p12")
    _refused({"bootstrap.servers": "k1:9093", "security.protocol": "SSL", "ssl.keystore.type": "PKCS12",
              "ssl.keystore.location": str(tmp_path / "ks.p12")}, "a PKCS12 keystore")


def test_bootstrap_servers_are_never_guessed() -> None:
    with pytest.raises(TypeError, match="bootstrap_servers"):
        ClientConfig()  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="never guesses localhost:9092"):
        ClientConfig.from_properties({"security.protocol": "PLAINTEXT"})
