"""describe_configs' extras and broker ids on old and new brokers (review4 items 1 and 9)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kadmin.client import AdminClient
from kadmin.configs import ConfigResource
from kadmin.errors import UnknownTopicOrPartitionError
from kadmin.testing import FakeCluster


@pytest.fixture(scope="module", params=["2.2", "3.9"])
def release(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module")
def admin(release: str) -> Iterator[AdminClient]:
    with FakeCluster(2, versions=release) as c, AdminClient(c.bootstrap, default_timeout_s=10) as a:
        yield a


def test_documentation_and_synonyms_are_extras_an_old_broker_answers_without(admin: AdminClient,
                                                                            release: str) -> None:
    # DescribeConfigs v2 (Kafka 2.0-2.5) has no IncludeDocumentation: asking for it must not fail the call.
    broker = ConfigResource.broker(1)
    got = admin.describe_configs([broker, ConfigResource.topic("nope")], include_documentation=True,
                                 include_synonyms=True)
    entries = got[broker]
    assert isinstance(entries, dict) and entries["broker.id"].value == "1"
    assert isinstance(got[ConfigResource.topic("nope")], UnknownTopicOrPartitionError)
    documented = [e for e in entries.values() if e.documentation]
    if release == "2.2":
        assert documented == []
    else:
        assert documented, "a 2.6+ broker documents its configs when asked"


def test_a_broker_id_may_be_an_int_in_the_tuple_form(admin: AdminClient) -> None:
    got = admin.describe_configs([("broker", 1)])
    assert list(got) == [("broker", 1)]
    assert isinstance(got[("broker", 1)], dict)
    with pytest.raises(ValueError, match="same config resource"):
        admin.describe_configs([("broker", 1), ("broker", "1")])
    with pytest.raises(ValueError, match="broker id"):
        admin.describe_configs([("broker", -1)])
    with pytest.raises(TypeError, match="is a str, not int"):
        admin.describe_configs([("topic", 1)])
