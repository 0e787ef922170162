"""``kadmin --command-config oauth.properties ...``: the OAUTHBEARER properties Kafka's tools take, end to end.

A fresh ``kadmin`` process reads a Java-style properties file (OIDC client credentials through
``OAuthBearerLoginCallbackHandler``, or an unsecured token), fetches a token from a real local token endpoint and
logs in to the fake; the client secret appears in neither its output nor its errors.  The OIDC file and command
of docs/connecting.md run as the page shows them, only its host names, endpoint and CA filled in.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from kadmin.testing import FakeCluster
from tests.support import tls_util
from tests.support.cli import run_cli
from tests.support.doc_blocks import section_blocks
from tests.support.oidc_server import OidcServer

SECRET = "cli-Secret-7c1e"
MODULE = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule"


def test_oidc_properties_file_lists_topics_and_whoami(tmp_path: Path) -> None:
    with OidcServer({"ops": SECRET}) as idp, FakeCluster(
            brokers=1, authorizer={"super_users": ["User:ops"]},
            sasl={"mechanism": "OAUTHBEARER", "oauthbearer": {"jwks_url": idp.jwks_url, "issuer": idp.issuer,
                                                                "audience": "kafka"}}) as c:
        c.add_topic("payments", partitions=1)
        props = tmp_path / "oauth.properties"
        props.write_text(
            "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=OAUTHBEARER\n"
            "sasl.login.callback.handler.class=org.apache.kafka.common.security.oauthbearer."
            "OAuthBearerLoginCallbackHandler\n"
            f"sasl.oauthbearer.token.endpoint.url={idp.token_url}\n"
            f'sasl.jaas.config={MODULE} required clientId="ops" clientSecret="{SECRET}" scope="kafka";\n')
        r = run_cli("-b", c.bootstrap, "--command-config", str(props), "topics", "list")
        assert r.code == 0, r.err
        assert "payments" in r.out and SECRET not in r.out + r.err
        who = run_cli("-b", c.bootstrap, "--command-config", str(props), "acls", "whoami", "-o", "json")
        assert who.code == 0 and who.json()["principal"] == "User:ops"
        bad = tmp_path / "bad.properties"
        bad.write_text(props.read_text().replace(SECRET, "nope"))
        r2 = run_cli("-b", c.bootstrap, "--command-config", str(bad), "topics", "list")
        assert r2.code != 0 and "invalid_client" in r2.err and len(r2.err.strip().splitlines()) == 1


def test_unsecured_token_properties_and_a_missing_token_source(tmp_path: Path) -> None:
    with FakeCluster(brokers=1, sasl={"mechanism": "OAUTHBEARER"}) as c:
        c.add_topic("dev-topic", partitions=1)
        props = tmp_path / "dev.properties"
        props.write_text("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=OAUTHBEARER\n"
                         f'sasl.jaas.config={MODULE} required unsecuredLoginStringClaim_sub="dev";\n')
        r = run_cli("-b", c.bootstrap, "--command-config", str(props), "topics", "list")
        assert r.code == 0 and "dev-topic" in r.out, r.err
        props.write_text("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=OAUTHBEARER\n")
        before = len(c.request_log)
        r2 = run_cli("-b", c.bootstrap, "--command-config", str(props), "topics", "list")
        assert r2.code != 0 and "needs a token source" in r2.err
        assert len(c.request_log) == before  # refused before connecting


OIDC_SECTION = "## Strimzi / Keycloak and other OIDC providers (OAUTHBEARER, KIP-768)"


def test_the_documented_oauth_properties_and_command_work(tmp_path: Path) -> None:
    """docs/connecting.md's Keycloak file (SASL_SSL, OAuthBearerLoginCallbackHandler, clientId/clientSecret/scope
    in the JAAS line) and its ``kadmin --command-config oauth.properties ... topics list``, against a TLS
    listener and an HTTPS token endpoint signed by one test CA (the page: one truststore for both)."""
    documented = section_blocks("connecting.md", OIDC_SECTION, "properties")[0]
    command = shlex.split(section_blocks("connecting.md", OIDC_SECTION, "bash")[0])
    assert command[:3] == ["kadmin", "--command-config", "oauth.properties"] and command[-2:] == ["topics", "list"]
    endpoint = next(line.split("=", 1)[1] for line in documented.splitlines()
                    if line.startswith("sasl.oauthbearer.token.endpoint.url="))
    pki = tls_util.make_ca(tmp_path / "pki")
    server = pki.server_context(tls_util.make_cert(pki, "svc", ["127.0.0.1", "localhost"]))
    # The page's client id and secret, as written ("kadmin-ops", "..."), are the ones the endpoint knows.
    with OidcServer({"kadmin-ops": "..."}, tls=server) as idp, FakeCluster(
            brokers=1, tls=server, authorizer={"super_users": ["User:kadmin-ops"]},
            sasl={"mechanism": "OAUTHBEARER", "oauthbearer": {"jwks": idp.jwks, "issuer": idp.issuer,
                                                                "audience": "kafka"}}) as c:
        c.add_topic("documented", partitions=1)
        props = tmp_path / "oauth.properties"
        props.write_text(documented.replace(endpoint, idp.token_url)
                         + f"ssl.truststore.type=PEM\nssl.truststore.location={pki.ca.cert}\n")
        args = [str(props) if a == "oauth.properties" else a for a in command[1:]]
        args[args.index("-b") + 1] = c.bootstrap
        r = run_cli(*args)
        assert r.code == 0 and "documented" in r.out, r.err
        assert [(t["sub"], t.get("scope")) for t in idp.issued] == [("kadmin-ops", "kafka")]
