"""kadmin.admin._driver.run with small operations of its own over a scripted network.

What every operation gets from the driver, whatever its API: routing by the lookup (a node id for every key,
or a map with outcomes for the keys it could not place), each request's answer folded by the keys that request
carried, retries, results in the caller's key order with none missing, and writes whose request was never
answered reported "possibly applied".  A node's requests are pipelined (``send_many``) when the operation has
no in-flight bound and sent one by one under it, so the write tests run both ways.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ClassVar

import pytest

from kadmin.admin._driver import Context, Done, Failed, Operation, Outcome, Retry, Sent, run
from kadmin.config import ClientConfig
from kadmin.errors import (
    ErrorCode,
    GroupIdNotFoundError,
    KafkaConnectionError,
    KafkaError,
    KafkaTimeoutError,
    ProtocolError,
    UndecodableResponseError,
    error_for_code,
)
from kadmin.network.retry import Deadline
from kadmin.protocol.apis import ApiKey

CONFIG = ClientConfig(bootstrap_servers="stub:9092", retry_backoff_s=0.001, retry_backoff_max_s=0.005)

#: answer(node, keys, n) -> {key: error code}, n counting every request sent so far (1-based); may raise.
Answer = Callable[[int, list[str], int], Mapping[str, int]]


class Req:
    """A request that only carries its keys: the driver never looks inside requests."""

    def __init__(self, keys: list[str]) -> None:
        self.keys = keys


class Where:
    """A lookup that answers ``where(keys)``: a node id for all, or {key: node id or Outcome}."""

    def __init__(self, where: Callable[[Sequence[str]], Any]) -> None:
        self.where = where
        self.forgotten_nodes: list[int] = []

    async def locate(self, ctx: Context, keys: Sequence[str], deadline: Deadline) -> Any:
        return self.where(keys)

    def forget(self, ctx: Context, keys: Iterable[str]) -> None:
        pass

    def forget_node(self, ctx: Context, node_id: int) -> None:
        self.forgotten_nodes.append(node_id)


class KeysOp(Operation[str]):
    """``per_request`` keys per request; each key's code from the response (0: Done(f"{key}@{node}"))."""

    api: ClassVar[ApiKey] = ApiKey.DESCRIBE_GROUPS

    def __init__(self, where: Callable[[Sequence[str]], Any], per_request: int = 1000,
                 max_in_flight: int | None = None) -> None:
        self.lookup = Where(where)
        self.per_request = per_request
        self.max_in_flight = max_in_flight

    def build(self, node: int, keys: list[str], version: int) -> Any:
        n = self.per_request
        if len(keys) <= n:
            return Req(keys)
        sends: list[Sent] = [(Req(keys[i:i + n]), keys[i:i + n]) for i in range(0, len(keys), n)]  # type: ignore[misc]
        return sends

    def handle(self, node: int, keys: list[str], response: Any, version: int) -> dict[str, Outcome]:
        out: dict[str, Outcome] = {}
        for k, code in response.items():
            err = error_for_code(code, None)
            out[k] = Done(f"{k}@{node}") if err is None else Retry(err) if err.retriable else Failed(err)
        return out


class WriteOp(KeysOp):
    write = True


class DeleteLikeOp(WriteOp):
    """As DeleteGroups: GROUP_ID_NOT_FOUND after a lost send is what the first send being applied looks like."""

    applied_looks_like = frozenset({ErrorCode.GROUP_ID_NOT_FOUND})


class FinalValuesOp(WriteOp):
    """As AlterClientQuotas: a resend states final values, so its answer is the truth about the key."""

    applied_looks_like = frozenset()


class KeysNet:
    """Two nodes; records what was sent, and how (``send`` or pipelined with ``send_many``)."""

    nodes = {1: object(), 2: object()}

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.sent: list[tuple[int, list[str]]] = []
        self.pipelined: list[tuple[int, int]] = []  # (node, number of requests) per send_many

    def least_loaded_node(self) -> int:
        return 1

    async def api_versions(self, node: int, *, deadline: Deadline | None = None) -> dict[int, tuple[int, int]]:
        return {ApiKey.DESCRIBE_GROUPS: (0, 0)}

    async def negotiated_version(self, node: int, api: ApiKey, *, deadline: Deadline | None = None) -> int:
        return 0

    async def send(self, node: int, request: Req, version: int, *, deadline: Deadline) -> Any:
        self.sent.append((node, list(request.keys)))
        n = len(self.sent)
        await asyncio.sleep(0)
        return self.answer(node, request.keys, n)

    async def send_many(self, node: int, requests: Sequence[Req], version: int, *, deadline: Deadline,
                        each: Callable[[int, Any, KafkaError | None], None]) -> None:
        self.pipelined.append((node, len(requests)))
        numbers = []
        for r in requests:
            self.sent.append((node, list(r.keys)))
            numbers.append(len(self.sent))
        await asyncio.sleep(0)
        for i, (r, n) in enumerate(zip(requests, numbers, strict=True)):
            try:
                resp = self.answer(node, r.keys, n)
            except KafkaError as exc:
                each(i, None, exc)
            else:
                each(i, resp, None)


def drive(net: KeysNet, op: KeysOp, keys: list[str], timeout: float = 2.0) -> dict[str, Any]:
    ctx = Context(net=net, config=CONFIG, coordinators=None)  # type: ignore[arg-type]
    return asyncio.run(run(ctx, op, keys, Deadline(timeout)))


def all_ok(node: int, keys: list[str], n: int) -> dict[str, int]:
    return {k: ErrorCode.NONE for k in keys}


# --- routing and results -------------------------------------------------------------------------------------


def test_a_lookup_may_send_every_key_to_one_node_by_its_id() -> None:
    net = KeysNet(all_ok)
    res = drive(net, KeysOp(lambda keys: 2, per_request=2), ["a", "b", "c", "a"])
    assert res == {"a": "a@2", "b": "b@2", "c": "c@2"}
    assert net.sent == [(2, ["a", "b"]), (2, ["c"])]
    assert net.pipelined == [(2, 2)]  # no in-flight bound: one node's requests pipelined


def test_a_bounded_operation_sends_one_request_at_a_time_per_slot() -> None:
    net = KeysNet(all_ok)
    res = drive(net, KeysOp(lambda keys: 2, per_request=2, max_in_flight=1), ["a", "b", "c"])
    assert res == {"a": "a@2", "b": "b@2", "c": "c@2"}
    assert net.sent == [(2, ["a", "b"]), (2, ["c"])] and net.pipelined == []


def test_a_lookup_that_places_no_key_leaves_none_missing() -> None:
    net = KeysNet(all_ok)
    res = drive(net, KeysOp(lambda keys: {}), ["a", "b"], timeout=0.1)
    assert list(res) == ["a", "b"]
    for v in res.values():
        assert isinstance(v, KafkaTimeoutError) and "no node was found" in str(v)
    assert net.sent == []


def test_a_lookup_outcome_is_the_keys_answer() -> None:
    net = KeysNet(all_ok)
    gone = GroupIdNotFoundError("no such group")
    res = drive(net, KeysOp(lambda keys: {"a": 1, "b": Failed(gone)}), ["a", "b"])
    assert res == {"a": "a@1", "b": gone}
    assert net.sent == [(1, ["a"])]


def test_a_key_the_response_leaves_out_fails_and_the_others_do_not() -> None:
    net = KeysNet(lambda node, keys, n: {k: ErrorCode.NONE for k in keys if k != "b"})
    res = drive(net, KeysOp(lambda keys: 1), ["a", "b", "c"])
    assert res["a"] == "a@1" and res["c"] == "c@1"
    assert isinstance(res["b"], ProtocolError) and "no entry" in str(res["b"])
    assert len(net.sent) == 1  # a missing entry is not retried: the broker would leave it out again


def test_results_are_in_key_order_across_nodes_and_rounds() -> None:
    # b and d go to node 2, a and c to node 1; c is retried once: results still come back a, b, c, d.
    def answer(node: int, keys: list[str], n: int) -> dict[str, int]:
        return {k: ErrorCode.NOT_COORDINATOR if k == "c" and n <= 2 else ErrorCode.NONE for k in keys}

    net = KeysNet(answer)
    res = drive(net, KeysOp(lambda keys: {k: 2 if k in "bd" else 1 for k in keys}), ["a", "b", "c", "d"])
    assert list(res.items()) == [("a", "a@1"), ("b", "b@2"), ("c", "c@1"), ("d", "d@2")]
    assert sorted(net.sent) == [(1, ["a", "c"]), (1, ["c"]), (2, ["b", "d"])]
    # One node, one round, answered out of order by the handler: the key order still wins.
    net = KeysNet(lambda node, keys, n: {k: ErrorCode.NONE for k in reversed(keys)})
    res = drive(net, KeysOp(lambda keys: 1, per_request=1), ["z", "y", "x"])
    assert list(res) == ["z", "y", "x"]


# --- writes in doubt -----------------------------------------------------------------------------------------


def lost_then(code: int) -> Answer:
    """The first request is sent and its connection lost; every later one is answered ``code``."""
    def answer(node: int, keys: list[str], n: int) -> dict[str, int]:
        if n == 1:
            raise KafkaConnectionError("reset after sending")
        return {k: code for k in keys}
    return answer


@pytest.mark.parametrize("bound", [None, 1])
def test_a_write_sent_and_never_answered_stays_in_doubt_after_a_later_answer(bound: int | None) -> None:
    # GROUP_ID_NOT_FOUND: what DeleteGroups' resend sees if the first send was applied.  "a"'s request is lost,
    # "b"'s (in the same round) is answered: only "a" is in doubt.
    for op in (WriteOp(lambda keys: 1, per_request=1, max_in_flight=bound),
               DeleteLikeOp(lambda keys: 1, per_request=1, max_in_flight=bound)):
        net = KeysNet(lost_then(ErrorCode.GROUP_ID_NOT_FOUND))
        res = drive(net, op, ["a", "b"])
        err = res["a"]
        assert isinstance(err, KafkaTimeoutError) and err.possibly_applied and "in doubt" in str(err)
        assert isinstance(err.__cause__, GroupIdNotFoundError)
        assert isinstance(res["b"], GroupIdNotFoundError)  # answered the first time: final, not in doubt
        assert net.sent == [(1, ["a"]), (1, ["b"]), (1, ["a"])]
        assert op.lookup.forgotten_nodes == [1]  # the lost connection forgot its node
        assert (net.pipelined == [(1, 2)]) == (bound is None)


@pytest.mark.parametrize("bound", [None, 1])
def test_a_resends_answer_that_cannot_come_from_an_applied_send_is_the_truth(bound: int | None) -> None:
    # DeleteGroups-like: only GROUP_ID_NOT_FOUND looks like "applied"; an authorization failure is the answer.
    net = KeysNet(lost_then(ErrorCode.GROUP_AUTHORIZATION_FAILED))
    res = drive(net, DeleteLikeOp(lambda keys: 1, max_in_flight=bound), ["b"])
    assert isinstance(res["b"], KafkaError) and not isinstance(res["b"], KafkaTimeoutError)
    # Final values (quotas): nothing a resend gets is mistaken for the first send, success included.
    net = KeysNet(lost_then(ErrorCode.GROUP_ID_NOT_FOUND))
    res = drive(net, FinalValuesOp(lambda keys: 1, max_in_flight=bound), ["b"])
    assert isinstance(res["b"], GroupIdNotFoundError)
    net = KeysNet(lost_then(ErrorCode.NONE))
    assert drive(net, FinalValuesOp(lambda keys: 1, max_in_flight=bound), ["b"]) == {"b": "b@1"}


@pytest.mark.parametrize("bound", [None, 1])
def test_only_the_unanswered_request_of_a_round_is_in_doubt(bound: int | None) -> None:
    def answer(node: int, keys: list[str], n: int) -> dict[str, int]:
        if keys == ["x"]:
            raise KafkaConnectionError("reset after sending")
        return {k: ErrorCode.NONE for k in keys}

    net = KeysNet(answer)
    res = drive(net, WriteOp(lambda keys: 1, per_request=1, max_in_flight=bound), ["w", "x"], timeout=0.3)
    assert res["w"] == "w@1"
    err = res["x"]
    assert isinstance(err, KafkaTimeoutError) and err.possibly_applied
    assert isinstance(err.__cause__, KafkaConnectionError)
    assert net.sent.count((1, ["w"])) == 1 and net.sent.count((1, ["x"])) > 1  # only x was sent again
    assert (net.pipelined != []) == (bound is None)
    # A read: never applied.
    res = drive(KeysNet(answer), KeysOp(lambda keys: 1, per_request=1, max_in_flight=bound), ["x"], timeout=0.3)
    assert isinstance(res["x"], KafkaTimeoutError) and not res["x"].possibly_applied


# --- answers that do not decode ------------------------------------------------------------------------------


def undecodable_for(bad: set[str]) -> Answer:
    """Requests carrying a key of ``bad`` get an answer that does not decode (the connection is closed)."""
    def answer(node: int, keys: list[str], n: int) -> dict[str, int]:
        if bad.intersection(keys):
            cause = ProtocolError("Results: a null array where the schema allows none")
            err = UndecodableResponseError(f"node {node} sent a response that does not decode: {cause}")
            err.__cause__ = cause
            raise err
        return {k: ErrorCode.NONE for k in keys}
    return answer


@pytest.mark.parametrize("bound", [None, 1])
def test_a_write_answered_with_bytes_that_do_not_decode_is_in_doubt_at_once(bound: int | None) -> None:
    # The request was received and answered: it may have been applied, and a resend would be answered the same
    # undecodable way (a broker that does not really serve the version it advertises), so no resend, no waiting.
    net = KeysNet(undecodable_for({"a"}))
    res = drive(net, WriteOp(lambda keys: 1, per_request=1, max_in_flight=bound), ["a", "b"], timeout=30)
    err = res["a"]
    assert isinstance(err, KafkaTimeoutError) and err.possibly_applied
    assert "did not decode" in str(err) and "may have been applied" in str(err)
    assert isinstance(err.__cause__, UndecodableResponseError)
    assert res["b"] == "b@1"
    assert net.sent.count((1, ["a"])) == 1  # never resent


@pytest.mark.parametrize("bound", [None, 1])
def test_a_read_answered_with_bytes_that_do_not_decode_gets_one_more_try(bound: int | None) -> None:
    net = KeysNet(undecodable_for({"a"}))
    res = drive(net, KeysOp(lambda keys: 1, per_request=1, max_in_flight=bound), ["a", "b"], timeout=30)
    err = res["a"]
    assert isinstance(err, ProtocolError) and not isinstance(err, KafkaTimeoutError)
    assert "2 answers" in str(err) and "does not decode" in str(err)
    assert res["b"] == "b@1"
    assert net.sent.count((1, ["a"])) == 2

    # Damaged once, then fine: the second try is the answer.
    def once(node: int, keys: list[str], n: int) -> dict[str, int]:
        if n == 1:
            raise UndecodableResponseError("damaged on the way")
        return {k: ErrorCode.NONE for k in keys}

    assert drive(KeysNet(once), KeysOp(lambda keys: 1, max_in_flight=bound), ["a"]) == {"a": "a@1"}
