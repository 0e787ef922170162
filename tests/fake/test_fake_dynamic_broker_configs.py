"""FakeCluster judges dynamic broker configs as Kafka's DynamicBrokerConfig.validateConfigs does (review4 item 3).

Kafka (DynamicBrokerConfig.scala, DynamicConfig.Broker with customPropsAllowed = true, ZkAdminManager and
ConfigAdminManager), per broker resource, over the configs the change leaves:
* a KafkaConfig name that is not dynamic: "Cannot update these configs dynamically: Set(...)";
* an unprefixed DynamicSecurityConfigs name (SslConfigs.RECONFIGURABLE_CONFIGS; the PEM three from 2.7):
  "These security configs can be dynamically updated only per-listener using the listener prefix: Set(...)";
* values are checked with their type, a ``listener.name.<l>.`` override as its base config;
* at the cluster default ("") the per-broker configs (security and listener configs, listener overrides but those
  of max.connections, max.connection.creation.rate and num.network.threads): "Cannot update these configs at
  default cluster level, broker id must be specified: Set(...)";
* any other name is stored as a custom config.
Each refusal is a ConfigException: INVALID_REQUEST, on ZooKeeper-mode brokers with "Invalid config value for
resource ConfigResource(type=BROKER, name='<id>'): " in front, on KRaft brokers (4.0) the bare message.
"""

from __future__ import annotations

import pytest

from kadmin.client import AdminClient
from kadmin.configs import ConfigResource, ConfigSource, DeleteConfig, SetConfig
from kadmin.errors import InvalidRequestError
from kadmin.testing import FakeCluster
from tests.support.settings import FAST

pytestmark = pytest.mark.timeout(60)

SECURITY = "These security configs can be dynamically updated only per-listener using the listener prefix"
DEFAULT_LEVEL = "Cannot update these configs at default cluster level, broker id must be specified"
JAAS = 'org.apache.kafka.common.security.plain.PlainLoginModule required username="a" password="s3cr3t";'


def _prefix(version: str, name: str) -> str:
    """The broker's message as kadmin reports it: kadmin names the resource ("brokers:1: "), then what a
    ZooKeeper-mode broker puts before a ConfigException's message (KRaft brokers send it bare)."""
    zk = "" if version == "4.0" else f"Invalid config value for resource ConfigResource(type=BROKER, name='{name}'): "
    return f"brokers:{name or '<default>'}: {zk}"


@pytest.mark.parametrize("version", ["2.2", "3.9", "4.0"])
@pytest.mark.parametrize("key", ["ssl.keystore.password", "ssl.key.password", "ssl.truststore.location"])
def test_unprefixed_security_config_is_refused(version: str, key: str) -> None:
    with FakeCluster(1, versions=version) as c, AdminClient(c.bootstrap, **FAST) as a:
        b = ConfigResource.broker(1)
        got = a.alter_configs({b: [SetConfig(key, "x"), SetConfig("background.threads", "4")]})
        err = got[b]
        assert isinstance(err, InvalidRequestError)
        assert err.message == f"{_prefix(version, '1')}{SECURITY}: Set({key})"
        assert c.resource_configs(4, "1") == {}


@pytest.mark.parametrize("version", ["2.2", "3.9", "4.0"])
def test_listener_overrides_and_unknown_names_are_accepted(version: str) -> None:
    pw, jaas = "listener.name.internal.ssl.keystore.password", "listener.name.sasl_plaintext.plain.sasl.jaas.config"
    changes = {pw: "kspw-1", "listener.name.internal.ssl.key.password": "kpw-1", jaas: JAAS,
               "log.cleaner.io.buffer.size": "1024", "my.custom.setting": "on"}
    with FakeCluster(1, versions=version) as c, AdminClient(c.bootstrap, **FAST) as a:
        b = ConfigResource.broker(1)
        assert a.alter_configs({b: [SetConfig(k, v) for k, v in changes.items()]}) == {b: None}
        assert c.resource_configs(4, "1") == changes
        described = a.describe_configs([b], include_synonyms=True)[b]
        assert isinstance(described, dict)
        for secret in (pw, "listener.name.internal.ssl.key.password", jaas):
            e = described[secret]
            assert e.is_sensitive and e.value is None and e.source is ConfigSource.DYNAMIC_BROKER_CONFIG
            assert all(s.value is None for s in e.synonyms)
        plain = described["my.custom.setting"]
        assert not plain.is_sensitive and plain.value == "on" and plain.source is ConfigSource.DYNAMIC_BROKER_CONFIG
        # A dynamic change of secrets that cannot be read back must not print them either.
        assert "kspw-1" not in repr(described) and "s3cr3t" not in repr(described)


@pytest.mark.parametrize("version", ["2.2", "3.9", "4.0"])
def test_default_level_refuses_per_broker_configs(version: str) -> None:
    with FakeCluster(1, versions=version) as c, AdminClient(c.bootstrap, **FAST) as a:
        d = ConfigResource.broker()
        for key in ("listener.name.internal.ssl.keystore.password", "sasl.enabled.mechanisms",
                    "listener.name.sasl_plaintext.plain.sasl.jaas.config"):
            err = a.alter_configs({d: [SetConfig(key, "x")]})[d]
            assert isinstance(err, InvalidRequestError), key
            assert err.message == f"{_prefix(version, '')}{DEFAULT_LEVEL}: Set({key})"
        assert c.resource_configs(4, "") == {}
        # Cluster-level listener overrides and ordinary dynamic configs are fine cluster-wide.
        ok = {"listener.name.internal.max.connections": "100", "log.cleaner.io.buffer.size": "2048",
              "log.retention.ms": "1000"}
        assert a.alter_configs({d: [SetConfig(k, v) for k, v in ok.items()]}) == {d: None}
        assert c.resource_configs(4, "") == ok
        # The same per-broker config is taken for a broker by id.
        b = ConfigResource.broker(1)
        assert a.alter_configs({b: [SetConfig("sasl.enabled.mechanisms", "PLAIN")]}) == {b: None}


@pytest.mark.parametrize("version", ["3.9", "4.0"])
def test_read_only_and_badly_typed_values(version: str) -> None:
    with FakeCluster(1, versions=version) as c, AdminClient(c.bootstrap, **FAST) as a:
        b = ConfigResource.broker(1)
        err = a.alter_configs({b: [SetConfig("num.partitions", "3")]})[b]
        assert isinstance(err, InvalidRequestError)
        assert err.message == f"{_prefix(version, '1')}Cannot update these configs dynamically: Set(num.partitions)"
        # An override is checked as its base config, under the base's name.
        err = a.alter_configs({b: [SetConfig("listener.name.internal.num.io.threads", "many")]})[b]
        assert isinstance(err, InvalidRequestError)
        assert err.message == (f"{_prefix(version, '1')}Invalid value many for configuration num.io.threads: "
                               "Not a number of type INT")
        assert c.resource_configs(4, "1") == {}


def test_pem_security_configs_are_refused_from_2_7_only() -> None:
    """KIP-651 (2.7) made the PEM configs security configs; before, a broker takes them as custom names."""
    for version, refused in (("2.6", False), ("3.9", True)):
        with FakeCluster(1, versions=version) as c, AdminClient(c.bootstrap, **FAST) as a:
            b = ConfigResource.broker(1)
            got = a.alter_configs({b: [SetConfig("ssl.keystore.key", "-----BEGIN KEY-----")]})[b]
            if refused:
                assert isinstance(got, InvalidRequestError) and SECURITY in got.message
                assert c.resource_configs(4, "1") == {}
            else:
                assert got is None and c.resource_configs(4, "1") == {"ssl.keystore.key": "-----BEGIN KEY-----"}
                described = a.describe_configs([b])[b]
                assert isinstance(described, dict)
                assert described["ssl.keystore.key"].is_sensitive and described["ssl.keystore.key"].value is None


def test_incremental_judges_what_the_change_leaves() -> None:
    """IncrementalAlterConfigs validates the broker's configs after the ops: deleting an override is fine."""
    with FakeCluster(1, versions="3.9") as c, AdminClient(c.bootstrap, **FAST) as a:
        b = ConfigResource.broker(1)
        pw = "listener.name.internal.ssl.keystore.password"
        assert a.alter_configs({b: [SetConfig(pw, "a")]}) == {b: None}
        assert a.alter_configs({b: [DeleteConfig(pw), SetConfig("background.threads", "5")]}) == {b: None}
        assert c.resource_configs(4, "1") == {"background.threads": "5"}
        got = a.alter_configs({b: [SetConfig(pw, "b")]}, validate_only=True)
        assert got == {b: None} and c.resource_configs(4, "1") == {"background.threads": "5"}


@pytest.mark.parametrize("version", ["3.9", "4.0"])
def test_confluent_kafka_sees_the_same_rules(version: str) -> None:
    from confluent_kafka import KafkaException
    from confluent_kafka.admin import AdminClient as CkAdmin
    from confluent_kafka.admin import AlterConfigOpType
    from confluent_kafka.admin import ConfigEntry as CkEntry
    from confluent_kafka.admin import ConfigResource as CkResource

    with FakeCluster(1, versions=version) as c:
        ck = CkAdmin({"bootstrap.servers": c.bootstrap, "log_level": 0})

        def alter(key: str) -> None:
            res = CkResource("broker", "1", incremental_configs=[
                CkEntry(key, "pw", incremental_operation=AlterConfigOpType.SET)])
            for f in ck.incremental_alter_configs([res]).values():
                f.result(10)

        with pytest.raises(KafkaException, match="per-listener using the listener prefix"):
            alter("ssl.keystore.password")
        alter("listener.name.internal.ssl.keystore.password")
        assert c.resource_configs(4, "1") == {"listener.name.internal.ssl.keystore.password": "pw"}
        (described,) = ck.describe_configs([CkResource("broker", "1")]).values()
        entry = described.result(10)["listener.name.internal.ssl.keystore.password"]
        assert entry.is_sensitive and entry.value is None


def test_alter_configs_fallback_keeps_custom_configs_on_2_2() -> None:
    """On 2.2 kadmin reads, merges and writes back the whole set: custom names (described read-only, as Kafka
    describes names outside AllDynamicConfigs) must survive a change of another config."""
    with FakeCluster(1, versions="2.2") as c, AdminClient(c.bootstrap, **FAST) as a:
        c.set_resource_config(4, "1", "my.custom.setting", "on")
        c.set_resource_config(4, "1", "listener.name.internal.max.connections", "7")
        b = ConfigResource.broker(1)
        described = a.describe_configs([b])[b]
        assert isinstance(described, dict) and described["my.custom.setting"].is_read_only
        assert a.alter_configs({b: [SetConfig("background.threads", "4")]}) == {b: None}
        assert c.resource_configs(4, "1") == {"my.custom.setting": "on", "background.threads": "4",
                                              "listener.name.internal.max.connections": "7"}
