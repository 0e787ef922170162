"""``kadmin --command-config oauth.properties ...``: the OAUTHBEARER properties Kafka's tools take, end to end.

A fresh ``kadmin`` process reads a Java-style properties file (OIDC client credentials through
``OAuthBearerLoginCallbackHandler``, or an unsecured token), fetches a token from a real local token endpoint and
logs in to the fake; the client secret appears in neither its output nor its errors.
"""

from __future__ import annotations

from pathlib import Path

from kadmin.testing import FakeCluster
from tests.support.cli import run_cli
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
