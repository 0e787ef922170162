"""ClientConfig validation, secret hiding and Kafka-properties parsing; Deadline, backoff and retry_call."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from typing import Any

import pytest

from kadmin.config import ClientConfig, parse_host_port
from kadmin.errors import (
    GroupIdNotFoundError,
    KafkaConnectionError,
    KafkaTimeoutError,
    NotCoordinatorError,
)
from kadmin.network.retry import Deadline, backoff_delay, retry_call

# --------------------------------------------------------------------------------------------- config


def test_defaults_and_normalisation() -> None:
    c = ClientConfig(" a:1 ,b:2", security_protocol="sasl_plaintext", sasl_mechanism="scram-sha-256",
                     sasl_username="u", sasl_password="p", max_versions={"Metadata": 9, "10": 3},
                     min_versions={"findcoordinatorrequest": 1})
    assert c.bootstrap_servers == ("a:1", "b:2")
    assert c.bootstrap_addresses == [("a", 1), ("b", 2)]
    assert c.security_protocol == "SASL_PLAINTEXT" and c.sasl_mechanism == "SCRAM-SHA-256"
    assert dict(c.max_versions) == {3: 9, 10: 3} and dict(c.min_versions) == {10: 1}
    assert c.pinned_range(10) == (1, 3) and c.pinned_range(15) == (0, 32767)
    assert c.client_id == "kadmin" and c.max_frame_bytes == 100 * 1024 * 1024
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.client_id = "x"  # type: ignore[misc]
    assert c.with_changes(client_id="y").client_id == "y"


@pytest.mark.parametrize("address, expected", [
    ("host:9092", ("host", 9092)),
    ("[::1]:9092", ("::1", 9092)),
    ("[fe80::1%eth0]:1", ("fe80::1%eth0", 1)),
    ("PLAINTEXT://broker-1.example:19092", ("broker-1.example", 19092)),
    ("10.0.0.1:65535", ("10.0.0.1", 65535)),
])
def test_host_port_forms(address: str, expected: tuple[str, int]) -> None:
    assert parse_host_port(address) == expected


@pytest.mark.parametrize("kwargs, message", [
    ({"bootstrap_servers": ""}, "bootstrap_servers is empty"),
    ({"bootstrap_servers": "nohost"}, "not 'host:port'"),
    ({"bootstrap_servers": "::1:9092"}, "IPv6 needs"),
    ({"bootstrap_servers": "h:0"}, "outside 1..65535"),
    ({"security_protocol": "TLS"}, "security_protocol 'TLS' is not one of"),
    ({"security_protocol": "SASL_SSL"}, "needs sasl_mechanism"),
    ({"security_protocol": "SASL_SSL", "sasl_mechanism": "SCRAM-SHA-1"}, "SCRAM-SHA-1' is not supported"),
    ({"security_protocol": "SASL_SSL", "sasl_mechanism": "PLAIN", "sasl_password": "x"}, "needs sasl_username"),
    ({"security_protocol": "SASL_SSL", "sasl_mechanism": "PLAIN", "sasl_username": "u"}, "needs sasl_password"),
    ({"sasl_mechanism": "PLAIN"}, "use SASL_PLAINTEXT or SASL_SSL"),
    ({"ssl_cafile": "/ca.pem"}, "use SSL or SASL_SSL"),
    ({"security_protocol": "SSL", "ssl_keyfile": "k.pem"}, "needs ssl_certfile"),
    ({"request_timeout_s": 0}, "request_timeout_s must be > 0"),
    ({"default_timeout_s": -1}, "default_timeout_s must be > 0"),
    ({"retry_backoff_s": 3, "retry_backoff_max_s": 1}, "retry_backoff_max_s must be >= retry_backoff_s"),
    ({"max_in_flight": 0}, "max_in_flight must be a positive integer"),
    ({"max_frame_bytes": True}, "max_frame_bytes must be a positive integer"),
    ({"max_versions": {"NoSuchApi": 1}}, "unknown API name 'NoSuchApi'"),
    ({"max_versions": {3: -1}}, r"max_versions\[3\] must be a version number"),
    ({"max_versions": {3: 2}, "min_versions": {"Metadata": 5}}, "min_versions 5 is above max_versions 2"),
])
def test_invalid_settings_are_clear_value_errors(kwargs: dict[str, Any], message: str) -> None:
    kwargs.setdefault("bootstrap_servers", "h:1")
    with pytest.raises(ValueError, match=message):
        ClientConfig(**kwargs)


def test_secrets_never_in_repr() -> None:
    c = ClientConfig("h:1", security_protocol="SASL_SSL", sasl_mechanism="PLAIN", sasl_username="alice",
                     sasl_password="pa55-SECRET", ssl_certfile="c.pem", ssl_keyfile="k.pem",
                     ssl_password="key-SECRET")
    for text in (repr(c), str(c), f"{c}", repr([c])):
        assert "SECRET" not in text
        assert "alice" in text and "sasl_password=***" in text and "ssl_password=***" in text


def test_from_properties_java_style(caplog: pytest.LogCaptureFixture) -> None:
    props = {
        "bootstrap.servers": "k1:9093,k2:9093",
        "client.id": "ops-tool",
        "security.protocol": "SASL_SSL",
        "sasl.mechanism": "SCRAM-SHA-512",
        "sasl.jaas.config": 'org.apache.kafka.common.security.scram.ScramLoginModule required '
                            'username="alice" password="p\\"w;x";',
        "ssl.truststore.location": "/etc/kafka/ca.pem",
        "ssl.truststore.type": "PEM",
        "ssl.endpoint.identification.algorithm": "",
        "request.timeout.ms": "15000",
        "default.api.timeout.ms": "45000",
        "retry.backoff.ms": "250",
        "metadata.max.age.ms": "60000",
        "some.producer.setting": "TOP-SECRET-VALUE",
    }
    caplog.set_level(logging.WARNING, logger="kadmin.config")
    c = ClientConfig.from_properties(props)
    assert c.bootstrap_servers == ("k1:9093", "k2:9093") and c.client_id == "ops-tool"
    assert (c.security_protocol, c.sasl_mechanism, c.sasl_username) == ("SASL_SSL", "SCRAM-SHA-512", "alice")
    assert c.sasl_password == 'p"w;x'
    assert c.ssl_cafile == "/etc/kafka/ca.pem" and c.ssl_check_hostname is False
    assert (c.request_timeout_s, c.default_timeout_s, c.retry_backoff_s, c.metadata_max_age_s) == \
        (15.0, 45.0, 0.25, 60.0)
    warnings = " ".join(r.getMessage() for r in caplog.records)
    assert "some.producer.setting" in warnings and "TOP-SECRET-VALUE" not in warnings


def test_from_properties_librdkafka_style_and_overrides() -> None:
    c = ClientConfig.from_properties({
        "bootstrap.servers": "k:9092", "security.protocol": "sasl_plaintext", "sasl.mechanisms": "PLAIN",
        "sasl.username": "bob", "sasl.password": "pw", "ssl.ca.location": "/ca.pem",
    }, security_protocol="SASL_SSL")
    assert (c.sasl_mechanism, c.sasl_username, c.sasl_password, c.ssl_cafile) == ("PLAIN", "bob", "pw", "/ca.pem")
    assert c.security_protocol == "SASL_SSL"


@pytest.mark.parametrize("props, message", [
    ({"ssl.truststore.location": "/ts.jks"}, "convert the truststore to PEM"),
    ({"ssl.keystore.location": "/ks.p12"}, "give ssl.certificate.location"),
    ({"request.timeout.ms": "ten"}, "whole number of milliseconds"),
    ({"ssl.endpoint.identification.algorithm": "ldap"}, "must be 'https' or empty"),
    # Kerberos' login module without sasl.mechanism=GSSAPI: said so, without quoting the option values.
    ({"sasl.jaas.config": "com.sun.security.auth.module.Krb5LoginModule required password=\"hunter2\";"},
     "set sasl.mechanism=GSSAPI"),
])
def test_from_properties_errors(props: dict[str, str], message: str) -> None:
    props = {"bootstrap.servers": "k:1", "security.protocol": "SSL", **props}
    with pytest.raises(ValueError, match=message) as info:
        ClientConfig.from_properties(props)
    assert "hunter2" not in str(info.value)


# --------------------------------------------------------------------------------------------- retry


def test_deadline() -> None:
    now = [100.0]
    d = Deadline(5, clock=lambda: now[0])
    assert d.remaining() == 5 and not d.expired and d.cap(2) == 2
    now[0] = 104.0
    assert d.remaining() == 1 and d.cap(2) == 1
    now[0] = 106.0
    assert d.remaining() == 0 and d.expired
    forever = Deadline(None)
    assert forever.remaining() == float("inf") and not forever.expired and forever.at is None


def test_backoff_is_exponential_capped_and_jittered() -> None:
    assert [backoff_delay(n, 0.1, 2, rng=lambda: 0.5) for n in range(1, 8)] == \
        pytest.approx([0.1, 0.2, 0.4, 0.8, 1.6, 2.0, 2.0])
    assert backoff_delay(3, 0.1, 2, rng=lambda: 0.0) == pytest.approx(0.4 * 0.8)
    assert backoff_delay(3, 0.1, 2, rng=lambda: 1.0) == pytest.approx(0.4 * 1.2)
    assert backoff_delay(500, 0.1, 2, rng=lambda: 0.5) == pytest.approx(2.0)
    assert [backoff_delay(n, 0.05, 0.3, rng=lambda: 0.5) for n in range(1, 6)] == \
        pytest.approx([0.05, 0.1, 0.2, 0.3, 0.3])
    delays = [backoff_delay(2, 1.0, 10) for _ in range(200)]
    assert min(delays) >= 1.6 and max(delays) <= 2.4 and len(set(delays)) > 100  # really random


def _fast_cfg() -> ClientConfig:
    return ClientConfig("h:1", retry_backoff_s=0.01, retry_backoff_max_s=0.05)


def test_retry_call_retries_retriable_errors_until_success() -> None:
    calls: list[float] = []
    seen: list[tuple[str, int]] = []

    async def flaky() -> str:
        calls.append(time.monotonic())
        if len(calls) < 3:
            raise NotCoordinatorError() if len(calls) == 1 else KafkaConnectionError("dropped")
        return "ok"

    async def on_retry(exc: BaseException, attempt: int) -> None:
        seen.append((type(exc).__name__, attempt))

    out = asyncio.run(retry_call(flaky, deadline=Deadline(5), config=_fast_cfg(), what="describe g",
                                 on_retry=on_retry))
    assert out == "ok" and len(calls) == 3
    assert seen == [("NotCoordinatorError", 1), ("KafkaConnectionError", 2)]
    assert calls[1] - calls[0] >= 0.007  # backed off (0.01 +-20%)


def test_retry_call_raises_non_retriable_at_once() -> None:
    calls = 0

    async def gone() -> None:
        nonlocal calls
        calls += 1
        raise GroupIdNotFoundError("no such group")

    with pytest.raises(GroupIdNotFoundError):
        asyncio.run(retry_call(gone, deadline=Deadline(5), config=_fast_cfg(), what="delete g"))
    assert calls == 1


def test_retry_call_deadline_becomes_timeout_with_last_error() -> None:
    calls = 0

    async def never() -> None:
        nonlocal calls
        calls += 1
        raise NotCoordinatorError("still moving")

    t0 = time.monotonic()
    with pytest.raises(KafkaTimeoutError) as info:
        asyncio.run(retry_call(never, deadline=Deadline(0.3), config=_fast_cfg(), what="describe g",
                               possibly_applied=True))
    elapsed = time.monotonic() - t0
    # It gives up once the next backoff (at most 0.05 s here) would pass the deadline: before 0.3 s, not long before.
    assert 0.2 < elapsed < 1.0 and calls >= 3
    assert "describe g" in str(info.value) and "still moving" in str(info.value)
    assert isinstance(info.value.__cause__, NotCoordinatorError) and info.value.possibly_applied


def test_retry_call_bounds_a_hanging_attempt() -> None:
    async def hang() -> None:
        await asyncio.sleep(30)

    t0 = time.monotonic()
    with pytest.raises(KafkaTimeoutError, match="list groups"):
        asyncio.run(retry_call(hang, deadline=Deadline(0.2), config=_fast_cfg(), what="list groups"))
    assert time.monotonic() - t0 < 1


def test_retry_call_timeout_found_at_an_attempts_start_still_names_the_last_error() -> None:
    # A backoff that ends past the deadline (a loaded machine oversleeps; here on_retry takes the time): the next
    # attempt finds no time left, and the timeout still says what the attempts before it failed with.
    async def never() -> None:
        raise NotCoordinatorError("still moving")

    async def slow(exc: BaseException, attempt: int) -> None:
        await asyncio.sleep(0.3)

    with pytest.raises(KafkaTimeoutError) as info:
        asyncio.run(retry_call(never, deadline=Deadline(0.2), config=_fast_cfg(), what="describe g", on_retry=slow))
    assert "describe g" in str(info.value) and "still moving" in str(info.value)
    assert isinstance(info.value.__cause__, NotCoordinatorError)
