"""A topic named by name and by id in one delete_topics call, and NewTopic configs with a None value
(audit 2, items 1 and 3), against FakeCluster presets that behave as the release they stand for.

What Kafka does, read from its source:
* DeleteTopics with one entry by name and another by the id of the same topic.  KRaft (ControllerApis.deleteTopics,
  the 4.0 preset): the name entry is refused with INVALID_REQUEST "The provided topic name maps to an ID that was
  already supplied.", the id entry is dropped from the deletion and gets no answer of its own, nothing is deleted.
  ZooKeeper mode (KafkaApis.handleDeleteTopicsRequest, the 3.9 preset): both entries resolve to the same name, the
  topic is deleted once and both answer NONE (the by-name answer carries the zero id).
* A CreateTopics config with a null value: INVALID_CONFIG "Null value not supported for topic configs: <names>"
  from Kafka 3.3 (KAFKA-13863), INVALID_REQUEST "... configs : <names>" from 2.6 (KAFKA-9695), and before that a
  NullPointerException in AdminManager, answered UNKNOWN_SERVER_ERROR.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from kadmin._error_codes import ErrorCode
from kadmin.client import AdminClient
from kadmin.errors import InvalidRequestError
from kadmin.protocol.apis import ApiKey
from kadmin.testing import FakeCluster
from kadmin.testing.rawclient import RawConnection
from kadmin.topics import NewTopic
from tests.support import settings

pytestmark = pytest.mark.timeout(60)

FAST: dict[str, Any] = {**settings.FAST, "default_timeout_s": 5.0}
ZERO = uuid.UUID(int=0)
SUPPLIED = "The provided topic name maps to an ID that was already supplied."


def raw_to_controller(cluster: FakeCluster) -> RawConnection:
    host, port = cluster.addresses[cluster.controller]
    return RawConnection(host, port)


# --- item 1: a topic's name and its id in one delete ----------------------------------------------------------


@pytest.mark.parametrize("release", ["3.9", "4.0"])
@pytest.mark.parametrize("id_first", [False, True])
def test_delete_by_name_and_by_id_of_one_topic(release: str, id_first: bool) -> None:
    with FakeCluster(3, versions=release) as c, AdminClient(c.bootstrap, **FAST) as a:
        a.create_topics([NewTopic("t", 1, 1), NewTopic("u", 1, 1)])
        tid = c.topic_id("t")
        refs: list[str | uuid.UUID] = [tid, "t", "u"] if id_first else ["t", tid, "u"]
        got = a.delete_topics(refs)
        assert list(got) == refs, got
        assert got["u"] is None, got
        if release == "4.0":
            # KRaft: the name is refused, the id goes without its own answer (it carries the name's), none deleted.
            for ref in ("t", tid):
                err = got[ref]
                assert isinstance(err, InvalidRequestError), got
                assert SUPPLIED in str(err)
            assert sorted(c.topics) == ["t"]
        else:
            # ZooKeeper mode: both entries name the same topic, deleted once, both answered NONE.
            assert got == dict.fromkeys(refs, None)
            assert sorted(c.topics) == []


def test_delete_by_name_and_id_on_the_wire_kraft() -> None:
    with FakeCluster(1, versions="4.0") as c, AdminClient(c.bootstrap, **FAST) as a:
        a.create_topics([NewTopic("t", 1, 1), NewTopic("u", 1, 1)])
        tid, uid = c.topic_id("t"), c.topic_id("u")
        with raw_to_controller(c) as conn:
            R = _delete_request_type()
            resp = conn.request(ApiKey.DELETE_TOPICS, 6, R(timeout_ms=5000, topics=[
                R.DeleteTopicState(name=None, topic_id=tid), R.DeleteTopicState(name="t", topic_id=ZERO),
                R.DeleteTopicState(name="u", topic_id=ZERO)]))
        answers = sorted((r.name, r.topic_id, r.error_code, r.error_message) for r in resp.responses)
        # One answer for t (name and id), none of its own for the id entry; u's by-name answer carries its id.
        assert answers == [("t", tid, ErrorCode.INVALID_REQUEST, SUPPLIED), ("u", uid, ErrorCode.NONE, None)]
        assert sorted(c.topics) == ["t"]


def test_delete_by_name_and_id_on_the_wire_zookeeper() -> None:
    with FakeCluster(3, versions="3.9") as c, AdminClient(c.bootstrap, **FAST) as a:
        a.create_topics([NewTopic("t", 1, 1)])
        tid = c.topic_id("t")
        with raw_to_controller(c) as conn:
            R = _delete_request_type()
            resp = conn.request(ApiKey.DELETE_TOPICS, 6, R(timeout_ms=5000, topics=[
                R.DeleteTopicState(name=None, topic_id=tid), R.DeleteTopicState(name="t", topic_id=ZERO)]))
        answers = [(r.name, r.topic_id, r.error_code) for r in resp.responses]
        # KafkaApis answers each entry in request order; a by-name answer carries the id the request gave (zero).
        assert answers == [("t", tid, ErrorCode.NONE), ("t", ZERO, ErrorCode.NONE)]
        assert sorted(c.topics) == []


def _delete_request_type() -> Any:
    from kadmin.testing.schemas import fake_message_type

    return fake_message_type(ApiKey.DELETE_TOPICS, "request")


# --- item 3: a config with a None value ---------------------------------------------------------------------


def test_none_config_value_is_refused_before_anything_is_sent() -> None:
    with FakeCluster(1, versions="4.0") as c, AdminClient(c.bootstrap, **FAST) as a:
        a.list_topics()  # connected: a refusal below is not for want of a connection
        c.clear_log()
        with pytest.raises(TypeError, match="retention.ms"):
            a.create_topics([NewTopic("n1", 1, 1, configs={"retention.ms": None})])  # type: ignore[dict-item]
        with pytest.raises(TypeError, match="retention.ms"):
            a.create_topics([NewTopic("n2", 1, 1, configs={"retention.ms": None})],  # type: ignore[dict-item]
                            validate_only=True)
        assert [e for e in c.request_log if e.api_key == ApiKey.CREATE_TOPICS] == []
        assert "n1" not in c.topics and "n2" not in c.topics


@pytest.mark.parametrize(("release", "code", "message"), [
    ("2.2", ErrorCode.UNKNOWN_SERVER_ERROR, None),
    ("2.6", ErrorCode.INVALID_REQUEST, "Null value not supported for topic configs : retention.ms,segment.ms"),
    ("3.9", ErrorCode.INVALID_CONFIG, "Null value not supported for topic configs: retention.ms,segment.ms"),
    ("4.0", ErrorCode.INVALID_CONFIG, "Null value not supported for topic configs: retention.ms,segment.ms"),
])
def test_fake_answers_a_null_config_value_as_kafka_does(release: str, code: int, message: str | None) -> None:
    from kadmin.testing.schemas import fake_message_type

    with FakeCluster(1, versions=release) as c:
        version = c.versions_of(c.controller)[ApiKey.CREATE_TOPICS][1]
        R = fake_message_type(ApiKey.CREATE_TOPICS, "request")
        configs = [R.CreatableTopicConfig(name="retention.ms", value=None),
                   R.CreatableTopicConfig(name="cleanup.policy", value="compact"),
                   R.CreatableTopicConfig(name="segment.ms", value=None)]
        with raw_to_controller(c) as conn:
            resp = conn.request(ApiKey.CREATE_TOPICS, version, R(timeout_ms=5000, topics=[
                R.CreatableTopic(name="n", num_partitions=1, replication_factor=1, assignments=[], configs=configs),
                R.CreatableTopic(name="ok", num_partitions=1, replication_factor=1, assignments=[], configs=[])]))
        got = {t.name: (t.error_code, t.error_message) for t in resp.topics}
        assert got == {"n": (code, message), "ok": (ErrorCode.NONE, None)}
        assert sorted(c.topics) == ["ok"]
