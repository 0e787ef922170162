"""create_topics / delete_topics of many topics take a lean path (issue #28): a NewTopic with nothing to
normalise is its own checked copy, a names-only delete list is checked in C, the requests are built from
positional structs, and an answer whose topics all succeeded is taken whole by the driver (``Answers``).

Each test here would fail if a lean path broke a per-key guarantee: the real CreateTopics and DeleteTopics
operations run through the driver over a scripted controller whose answers are real encoded responses, decoded
as the client decodes them; a mixed answer gives every topic its own outcome, a topic left out of the answer
fails alone with a ProtocolError, a topic not asked about is ignored, an entry given twice counts as its last,
a topic the version cannot carry fails alone, and a write whose answer was lost is possibly applied.
"""

from __future__ import annotations

import asyncio
import pickle
import uuid
from collections.abc import Callable
from typing import Any

import pytest

from kadmin.admin._driver import Answers, Context, Done, Failed, Retry, run
from kadmin.admin.topics import CreateTopics, DeleteTopics
from kadmin.config import ClientConfig
from kadmin.errors import (
    ErrorCode,
    KafkaConnectionError,
    KafkaError,
    KafkaTimeoutError,
    ProtocolError,
    UnsupportedVersionError,
)
from kadmin.network.retry import Deadline
from kadmin.protocol import Message, message_type
from kadmin.protocol.apis import ApiKey
from kadmin.topics import (
    NO_CONFIGS,
    CreatedTopic,
    NewTopic,
    created_topic_named,
    validate_new_topics,
    validate_topic_name,
    validate_topic_refs,
)

CONFIG = ClientConfig(bootstrap_servers="stub:9092", retry_backoff_s=0.001, retry_backoff_max_s=0.005)
CREATE_RESPONSE: Any = message_type(ApiKey.CREATE_TOPICS, "response")
DELETE_RESPONSE: Any = message_type(ApiKey.DELETE_TOPICS, "response")

#: answer(request, version, n) -> the response message, n counting the requests sent so far (1-based); may raise.
Script = Callable[[Any, int, int], Message]


class Controller:
    """One node, the controller, speaking CreateTopics and DeleteTopics at ``version``: answers by the script,
    each response encoded and decoded again (the answer objects are what the client's decoder makes)."""

    controller_id = 1

    def __init__(self, script: Script, version: int) -> None:
        self.script = script
        self.version = version
        self.nodes = {1: object()}
        self.sent: list[tuple[Any, int]] = []

    def least_loaded_node(self) -> int:
        return 1

    async def api_versions(self, node: int, *, deadline: Deadline | None = None) -> dict[int, tuple[int, int]]:
        return {ApiKey.CREATE_TOPICS: (0, self.version), ApiKey.DELETE_TOPICS: (0, self.version)}

    async def usable_versions(self, node: int, *, deadline: Deadline | None = None) -> dict[int, tuple[int, int]]:
        return await self.api_versions(node)

    async def negotiated_version(self, node: int, api: ApiKey, *, deadline: Deadline | None = None) -> int:
        return self.version

    async def refresh_metadata(self, *, deadline: Deadline | None = None) -> None:
        pass

    async def send(self, node: int, request: Any, version: int, *, deadline: Deadline) -> Any:
        self.sent.append((request, version))
        await asyncio.sleep(0)
        response = self.script(request, version, len(self.sent))
        return type(response).decode(response.encode(version), version)


def drive(net: Controller, op: Any, keys: list[Any], timeout: float = 2.0) -> dict[Any, Any]:
    ctx = Context(net=net, config=CONFIG, coordinators=None)  # type: ignore[arg-type]
    return asyncio.run(run(ctx, op, keys, Deadline(timeout)))


def create_op(names: list[str]) -> CreateTopics:
    return CreateTopics({n: NewTopic(n, 1, 1) for n in names}, 1000, include_configs=False,
                        include_topic_ids=False)


def created(*entries: tuple[str, int]) -> Message:
    """A CreateTopics v4 answer with these (name, error code) entries, in this order."""
    return CREATE_RESPONSE(throttle_time_ms=0, topics=[  # type: ignore[no-any-return]
        CREATE_RESPONSE.CreatableTopicResult(name=n, error_code=code, error_message=None if not code else "said")
        for n, code in entries])


def deleted(*entries: tuple[str, int]) -> Message:
    """A DeleteTopics v5 answer with these (name, error code) entries, in this order."""
    return DELETE_RESPONSE(throttle_time_ms=0, responses=[  # type: ignore[no-any-return]
        DELETE_RESPONSE.DeletableTopicResult(name=n, error_code=code, error_message=None) for n, code in entries])


def fails(got: object, code: ErrorCode) -> bool:
    """Whether ``got`` is the error of ``code`` (not a timeout standing for it)."""
    return isinstance(got, KafkaError) and not isinstance(got, KafkaTimeoutError) and got.code == code


def carried(request: Any) -> list[str]:
    return [t.name for t in request.topics] if hasattr(request, "topics") and request.topics else \
        list(request.topic_names)


# --- create_topics ------------------------------------------------------------------------------------------


def test_a_mixed_create_answer_gives_every_topic_its_own_outcome() -> None:
    names = ["ok", "exists", "policy", "moved", "slow", "throttled", "ok2"]

    def script(request: Any, version: int, n: int) -> Message:
        if n == 1:
            return created(("ok", ErrorCode.NONE), ("exists", ErrorCode.TOPIC_ALREADY_EXISTS),
                           ("policy", ErrorCode.POLICY_VIOLATION), ("moved", ErrorCode.NOT_CONTROLLER),
                           ("slow", ErrorCode.REQUEST_TIMED_OUT),
                           ("throttled", ErrorCode.THROTTLING_QUOTA_EXCEEDED), ("ok2", ErrorCode.NONE))
        # The resend: "slow" was created by the first request after all, the others now are.
        return created(*((k, ErrorCode.TOPIC_ALREADY_EXISTS if k == "slow" else ErrorCode.NONE)
                         for k in carried(request)))

    net = Controller(script, 4)
    res = drive(net, create_op(names), names)
    assert list(res) == names
    assert res["ok"] == CreatedTopic("ok") and res["ok2"] == CreatedTopic("ok2")
    assert fails(res["exists"], ErrorCode.TOPIC_ALREADY_EXISTS)  # answered at once: the truth, not in doubt
    assert fails(res["policy"], ErrorCode.POLICY_VIOLATION) and "said" in str(res["policy"])
    assert res["moved"] == CreatedTopic("moved") and res["throttled"] == CreatedTopic("throttled")
    slow = res["slow"]  # REQUEST_TIMED_OUT leaves it in doubt; TOPIC_ALREADY_EXISTS is what applied looks like
    assert isinstance(slow, KafkaTimeoutError) and slow.possibly_applied and "in doubt" in str(slow)
    assert [carried(r) for r, _v in net.sent] == [names, ["moved", "slow", "throttled"]]


def test_a_topic_left_out_of_the_create_answer_fails_alone_and_one_not_asked_about_is_ignored() -> None:
    net = Controller(lambda request, version, n: created(("a", ErrorCode.NONE), ("stranger", ErrorCode.NONE),
                                                         ("c", ErrorCode.NONE)), 4)
    res = drive(net, create_op(["a", "b", "c"]), ["a", "b", "c"])
    assert list(res) == ["a", "b", "c"]
    assert res["a"] == CreatedTopic("a") and res["c"] == CreatedTopic("c")
    assert isinstance(res["b"], ProtocolError) and "no entry for 'b'" in str(res["b"])
    assert len(net.sent) == 1  # not asked again: the broker would leave it out again


def test_a_create_answer_as_long_as_the_request_but_naming_another_topic_is_not_taken_whole() -> None:
    # Same count as the request's keys, one of them swapped for a stranger: the whole-answer path must not take it.
    net = Controller(lambda request, version, n: created(("a", ErrorCode.NONE), ("stranger", ErrorCode.NONE)), 4)
    res = drive(net, create_op(["a", "b"]), ["a", "b"])
    assert res["a"] == CreatedTopic("a") and isinstance(res["b"], ProtocolError) and "stranger" not in res


def test_a_create_entry_given_twice_counts_as_its_last() -> None:
    net = Controller(lambda request, version, n: created(
        ("a", ErrorCode.TOPIC_AUTHORIZATION_FAILED), ("b", ErrorCode.NONE), ("a", ErrorCode.NONE),
        ("b", ErrorCode.TOPIC_AUTHORIZATION_FAILED)), 4)
    res = drive(net, create_op(["a", "b"]), ["a", "b"])
    assert res["a"] == CreatedTopic("a") and fails(res["b"], ErrorCode.TOPIC_AUTHORIZATION_FAILED)


def test_a_create_whose_answer_was_lost_is_possibly_applied() -> None:
    def script(request: Any, version: int, n: int) -> Message:
        if n == 1:
            raise KafkaConnectionError("reset after sending")
        return created(("a", ErrorCode.TOPIC_ALREADY_EXISTS), ("b", ErrorCode.NONE))

    net = Controller(script, 4)
    res = drive(net, create_op(["a", "b"]), ["a", "b"])
    err = res["a"]
    assert isinstance(err, KafkaTimeoutError) and err.possibly_applied
    assert fails(err.__cause__, ErrorCode.TOPIC_ALREADY_EXISTS)
    assert res["b"] == CreatedTopic("b")  # created by the resend: a created topic is the truth either way
    assert len(net.sent) == 2


def test_a_topic_the_version_cannot_carry_fails_alone_and_the_others_are_created() -> None:
    op = CreateTopics({"x": NewTopic("x", 2, 1), "y": NewTopic("y")}, 1000, include_configs=False,
                      include_topic_ids=False)
    net = Controller(lambda request, version, n: created(*((k, ErrorCode.NONE) for k in carried(request))), 3)
    res = drive(net, op, ["x", "y"])
    assert res["x"] == CreatedTopic("x")
    assert isinstance(res["y"], UnsupportedVersionError) and "v4+" in str(res["y"])
    assert [carried(r) for r, _v in net.sent] == [["x"]]


def test_every_topic_answered_at_v5_keeps_what_the_answer_says_of_it() -> None:
    # v5+: the answer's counts (and configs) per topic, not the name-only CreatedTopic of v4.
    answer = CREATE_RESPONSE(throttle_time_ms=0, topics=[
        CREATE_RESPONSE.CreatableTopicResult(name=n, error_code=ErrorCode.NONE, num_partitions=3,
                                             replication_factor=1, configs=[]) for n in ("a", "b")])
    net = Controller(lambda request, version, n: answer, 5)
    op = CreateTopics({n: NewTopic(n, 3, 1) for n in ("a", "b")}, 1000)
    res = drive(net, op, ["a", "b"])
    assert [(t.name, t.partitions, t.replication_factor) for t in res.values()] == [("a", 3, 1), ("b", 3, 1)]


def test_the_request_is_the_one_the_keyword_constructors_make() -> None:
    req: Any = message_type(ApiKey.CREATE_TOPICS, "request")
    topics = {
        "plain": NewTopic("plain", 3, 2),
        "defaults": NewTopic("defaults"),
        "assigned": NewTopic("assigned", replica_assignment={0: [1, 2], 1: [2, 3]}),
        "configured": NewTopic("configured", 1, 1, configs={"cleanup.policy": "compact", "retention.ms": "9"}),
    }
    checked = {t.name: t for t in validate_new_topics(topics.values())}
    for version, validate_only in ((4, True), (7, False)):
        built = CreateTopics(checked, 1234, validate_only).build(1, list(checked), version)
        expected = req(timeout_ms=1234, validate_only=validate_only, topics=[
            req.CreatableTopic(name="plain", num_partitions=3, replication_factor=2, assignments=[], configs=[]),
            req.CreatableTopic(name="defaults", num_partitions=-1, replication_factor=-1, assignments=[],
                               configs=[]),
            req.CreatableTopic(name="assigned", num_partitions=-1, replication_factor=-1, configs=[], assignments=[
                req.CreatableReplicaAssignment(partition_index=0, broker_ids=[1, 2]),
                req.CreatableReplicaAssignment(partition_index=1, broker_ids=[2, 3])]),
            req.CreatableTopic(name="configured", num_partitions=1, replication_factor=1, assignments=[], configs=[
                req.CreatableTopicConfig(name="cleanup.policy", value="compact"),
                req.CreatableTopicConfig(name="retention.ms", value="9")])])
        assert isinstance(built, Message) and built == expected
        assert built.encode(version) == expected.encode(version)


# --- delete_topics ------------------------------------------------------------------------------------------


def test_a_mixed_delete_answer_gives_every_topic_its_own_outcome() -> None:
    names = ["gone", "unknown", "denied", "moved", "left-out"]

    def script(request: Any, version: int, n: int) -> Message:
        if n == 1:
            return deleted(("gone", ErrorCode.NONE), ("unknown", ErrorCode.UNKNOWN_TOPIC_OR_PARTITION),
                           ("denied", ErrorCode.TOPIC_AUTHORIZATION_FAILED), ("moved", ErrorCode.NOT_CONTROLLER),
                           ("stranger", ErrorCode.NONE))
        return deleted(*((k, ErrorCode.NONE) for k in carried(request)))

    net = Controller(script, 5)
    res = drive(net, DeleteTopics(1000), names)
    assert list(res) == names
    assert res["gone"] is None and res["moved"] is None
    assert fails(res["unknown"], ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)  # answered the first time: the truth
    assert fails(res["denied"], ErrorCode.TOPIC_AUTHORIZATION_FAILED)
    assert isinstance(res["left-out"], ProtocolError) and "no entry" in str(res["left-out"])
    assert "stranger" not in res
    assert [carried(r) for r, _v in net.sent] == [names, ["moved"]]


def test_a_delete_whose_answer_was_lost_is_possibly_applied() -> None:
    def script(request: Any, version: int, n: int) -> Message:
        if n == 1:
            raise KafkaConnectionError("reset after sending")
        return deleted(("a", ErrorCode.UNKNOWN_TOPIC_OR_PARTITION), ("b", ErrorCode.NONE))

    res = drive(Controller(script, 5), DeleteTopics(1000), ["a", "b"])
    err = res["a"]
    assert isinstance(err, KafkaTimeoutError) and err.possibly_applied
    assert fails(err.__cause__, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
    assert res["b"] is None


def test_a_delete_entry_given_twice_counts_as_its_last() -> None:
    net = Controller(lambda request, version, n: deleted(
        ("a", ErrorCode.TOPIC_AUTHORIZATION_FAILED), ("b", ErrorCode.NONE), ("a", ErrorCode.NONE),
        ("b", ErrorCode.TOPIC_AUTHORIZATION_FAILED)), 5)
    res = drive(net, DeleteTopics(1000), ["a", "b"])
    assert res["a"] is None and fails(res["b"], ErrorCode.TOPIC_AUTHORIZATION_FAILED)


def test_an_id_among_names_fails_alone_before_v6_and_goes_by_id_from_v6() -> None:
    tid = uuid.uuid4()
    net = Controller(lambda request, version, n: deleted(*((k, ErrorCode.NONE) for k in carried(request))), 5)
    res = drive(net, DeleteTopics(1000), ["a", tid])
    assert res["a"] is None and isinstance(res[tid], UnsupportedVersionError)
    assert [carried(r) for r, _v in net.sent] == [["a"]]

    def by_id(request: Any, version: int, n: int) -> Message:
        return DELETE_RESPONSE(throttle_time_ms=0, responses=[  # type: ignore[no-any-return]
            DELETE_RESPONSE.DeletableTopicResult(name=t.name or "b", topic_id=t.topic_id, error_code=ErrorCode.NONE)
            for t in request.topics])

    net = Controller(by_id, 6)
    assert drive(net, DeleteTopics(1000), ["a", tid]) == {"a": None, tid: None}
    assert [(t.name, t.topic_id) for t in net.sent[0][0].topics] == [("a", uuid.UUID(int=0)), (None, tid)]
    assert net.sent[0][1] == 6


# --- Answers, the bulk form of handle's outcomes ---------------------------------------------------------------


def test_answers_read_as_the_mapping_of_outcomes_they_stand_for() -> None:
    denied = KafkaError("no")
    answers = Answers({"a": 1, "b": 2}, {"b": Failed(denied), "c": Retry(denied)})
    assert dict(answers) == {"a": Done(1), "b": Failed(denied), "c": Retry(denied)}
    assert len(answers) == 3 and list(answers) == ["a", "b", "c"]
    assert answers.get("z") is None and "a" in answers and "z" not in answers


# --- the checks before anything is sent ---------------------------------------------------------------------


def test_a_new_topic_with_nothing_to_normalise_is_its_own_checked_copy() -> None:
    plain = NewTopic("t", 1, 1)
    assert plain.configs == {} and plain.configs is NO_CONFIGS and repr(plain.configs) == "{}"
    assert plain.checked() is plain and NewTopic("t").checked() is not None
    assert pickle.loads(pickle.dumps(plain)) == plain and pickle.loads(pickle.dumps(NO_CONFIGS)) is NO_CONFIGS
    assert plain == NewTopic("t", 1, 1, configs={})


def test_a_callers_configs_are_copied_even_when_empty() -> None:
    # The caller's dict may change after the call's checks: the request must be built from what was checked.
    empty: dict[str, str] = {}
    some = {"retention.ms": "1"}
    [e, s] = validate_new_topics([NewTopic("e", 1, 1, configs=empty), NewTopic("s", 1, 1, configs=some)])
    empty["cleanup.policy"] = "compact"
    some["retention.ms"] = "2"
    assert e.configs is NO_CONFIGS and dict(s.configs) == {"retention.ms": "1"}
    request: Any = CreateTopics({"e": e, "s": s}, 1000).build(1, ["e", "s"], 4)
    assert [[(c.name, c.value) for c in t.configs] for t in request.topics] == [[], [("retention.ms", "1")]]


def test_a_subclass_of_new_topic_is_copied_not_trusted() -> None:
    class Mine(NewTopic):
        pass

    mine = Mine("t", 1, 1)
    checked = mine.checked()
    assert type(checked) is NewTopic and checked == NewTopic("t", 1, 1)


@pytest.mark.parametrize("bad", [NewTopic("t", 0, 1), NewTopic("t", 1, 0), NewTopic("t", True, 1),
                                 NewTopic("t", 1, 2**15), NewTopic("."), NewTopic("a" * 250), NewTopic("a b"),
                                 NewTopic("é"), NewTopic("t\n")])
def test_a_new_topic_the_lean_check_refuses_gets_the_rules_message(bad: NewTopic) -> None:
    with pytest.raises((TypeError, ValueError)) as refused:
        validate_new_topics([NewTopic("fine", 1, 1), bad])
    assert "fine" not in str(refused.value)


@pytest.mark.parametrize("name, legal", [("a", True), (".", False), ("..", False), ("...", True), ("..a", True),
                                         ("a" * 249, True), ("a" * 250, False), ("", False), ("a b", False),
                                         ("é", False), ("a\n", False), ("A.b_c-9", True)])
def test_the_one_match_name_check_agrees_with_the_rules(name: str, legal: bool) -> None:
    if legal:
        assert validate_topic_name(name) == name and validate_topic_refs([name]) == [name]
        return
    for check in (validate_topic_name, lambda n: validate_topic_refs(["fine", n])):
        with pytest.raises(ValueError, match="illegal topic name"):
            check(name)


def test_a_names_only_delete_list_is_refused_as_the_loop_refuses_it() -> None:
    with pytest.raises(ValueError, match="'b' is given twice"):
        validate_topic_refs(["a", "b", "c", "b"])
    with pytest.raises(TypeError, match="must be a str"):
        validate_topic_refs(["a", 7])  # type: ignore[list-item]
    tid = uuid.uuid4()
    with pytest.raises(ValueError, match="given twice"):
        validate_topic_refs(["a", tid, tid])
    assert validate_topic_refs(n for n in ["a", "b"]) == ["a", "b"]  # a one-shot iterable, read once
    assert validate_topic_refs(["a", tid]) == ["a", tid] and validate_topic_refs([]) == []


def test_a_created_topic_named_only_is_the_dataclass_one() -> None:
    made = created_topic_named("t")
    assert made == CreatedTopic("t") and vars(made) == vars(CreatedTopic("t")) and type(made) is CreatedTopic
    assert pickle.loads(pickle.dumps(made)) == made and repr(made) == repr(CreatedTopic("t"))
