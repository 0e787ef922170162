"""The short cuts of the alter path, each against the slow path it must agree with.

AlterClientQuotasHandler builds every entity's EntryData once and slices them in order (a retry round looks
them up instead); answers are matched to entities by position first, by their (type, name) pairs when the
broker lists them otherwise.  The driver takes a lookup's single node id for all keys, tracks unanswered
writes per request and returns its results as they are when they are already in key order.
validate_alterations reads the "all keys known" flag an alteration recorded when it was built.
"""

from __future__ import annotations

import asyncio
import logging
import pickle
from collections.abc import Iterable, Sequence
from typing import Any

import pytest
from test_quotas_handlers import CONFIG, MODERN, AlterResp, StubNet, run_alter

from kadmin.admin import _driver
from kadmin.admin._driver import BuildWith, Done, Failed, Outcome, Retry
from kadmin.admin.quotas import AlterClientQuotasHandler
from kadmin.errors import (
    InvalidRequestError,
    KafkaConnectionError,
    KafkaError,
    KafkaTimeoutError,
    ProtocolError,
    error_for_code,
)
from kadmin.network.retry import Deadline
from kadmin.quotas import ClientQuotaAlteration, ClientQuotaEntity, Remove, Set, validate_alterations

E = ClientQuotaEntity


def alts_of(n: int) -> list[ClientQuotaAlteration]:
    return [ClientQuotaAlteration(E({"client-id": f"c{i}"}), [Set("producer_byte_rate", 1000.0 + i)])
            for i in range(n)]


def echo(entries: Iterable[Any], code: int = 0) -> list[Any]:
    return [AlterResp.EntryData(error_code=code, error_message=None, entity=[
        AlterResp.EntityData(entity_type=e.entity_type, entity_name=e.entity_name) for e in entry.entity])
        for entry in entries]


# --- the handler ---------------------------------------------------------------------------------------------


def test_entries_are_built_once_and_a_retry_round_reuses_them() -> None:
    alts = alts_of(6) + [ClientQuotaAlteration(E({"user": "u", "client-id": None}),
                                               [Set("request_percentage", 0.5), Remove("producer_byte_rate")])]
    h = AlterClientQuotasHandler(alts, validate_only=False, batch_size=4)
    first: Any = h.builder(list(h.keys)).build(1)
    assert [len(r.entries) for r in first] == [4, 3]
    built = [e for r in first for e in r.entries]
    # A retry round with some of the entities, in another order: the very same entry objects.
    subset = [h.keys[6], h.keys[2], h.keys[5]]
    (again,) = h.builder(subset).build(0)  # type: ignore[misc]
    assert [id(e) for e in again.entries] == [id(built[6]), id(built[2]), id(built[5])]
    assert h.keys_of(again, 0) == subset
    last = again.entries[0]
    assert [(p.entity_type, p.entity_name) for p in last.entity] == [("user", "u"), ("client-id", None)]
    assert [(o.key, o.value, o.remove) for o in last.ops] == [("request_percentage", 0.5, False),
                                                              ("producer_byte_rate", 0.0, True)]


def test_answers_in_any_order_and_with_reordered_pairs_find_their_entities(caplog: pytest.LogCaptureFixture) -> None:
    two = E({"user": "u", "client-id": "c"})
    alts = alts_of(5) + [ClientQuotaAlteration(two, [Set("producer_byte_rate", 5.0)])]

    def answer(node: int, req: Any, version: int) -> Any:
        entries = echo(req.entries)
        entries[0], entries[1] = entries[1], entries[0]  # two out of place
        for e in entries:
            e.entity.reverse()  # client-id before user, as a broker building from a map may list them
        entries.append(echo([req.entries[0]])[0])  # an entity answered twice
        entries[0].entity[0].entity_name = "stranger"  # ... and one never asked about, replacing c1's answer
        return AlterResp(entries=entries)

    with caplog.at_level(logging.WARNING, logger="kadmin.admin"):
        res = run_alter(StubNet({1: MODERN}, answer), alts)
    assert list(res) == [a.entity for a in alts]
    assert isinstance(res[E({"client-id": "c1"})], ProtocolError) and "no entry" in str(res[E({"client-id": "c1"})])
    assert all(res[a.entity] is None for a in alts if a.entity != E({"client-id": "c1"}))
    assert "stranger" in caplog.text and "not asked about" in caplog.text


def test_an_entity_answered_in_another_requests_response_is_not_credited_there() -> None:
    alts = alts_of(4)
    seen: list[list[str]] = []

    def answer(node: int, req: Any, version: int) -> Any:
        names = [e.entity[0].entity_name for e in req.entries]
        seen.append(names)
        if names == ["c0", "c1"]:
            # Answers c2 (the other request's) instead of c1.
            other = AlterResp.EntryData(error_code=42, error_message="wrong request", entity=[
                AlterResp.EntityData(entity_type="client-id", entity_name="c2")])
            return AlterResp(entries=echo(req.entries[:1]) + [other])
        return AlterResp(entries=echo(req.entries))

    res = run_alter(StubNet({1: MODERN}, answer), alts, batch_size=2, max_concurrency=1)
    assert sorted(seen) == [["c0", "c1"], ["c2", "c3"]]
    assert res[E({"client-id": "c0"})] is None
    assert isinstance(res[E({"client-id": "c1"})], ProtocolError)
    assert res[E({"client-id": "c2"})] is None and res[E({"client-id": "c3"})] is None


def test_retried_entities_are_sent_again_with_the_same_bits() -> None:
    calls = {"n": 0}

    def answer(node: int, req: Any, version: int) -> Any:
        calls["n"] += 1
        entries = echo(req.entries)
        if calls["n"] == 1:
            entries[1].error_code = 41  # NOT_CONTROLLER, retriable
            entries[2].error_code = 42  # INVALID_REQUEST, final
        return AlterResp(entries=entries)

    alts = alts_of(4)
    net = StubNet({1: MODERN}, answer)
    res = run_alter(net, alts)
    assert res[alts[1].entity] is None and isinstance(res[alts[2].entity], InvalidRequestError)
    (_, _, first), (_, _, second) = net.sent
    assert [e.entity[0].entity_name for e in second.entries] == ["c1"]
    assert second.entries[0].ops[0].value == first.entries[1].ops[0].value == 1001.0


# --- the driver ----------------------------------------------------------------------------------------------


class Req:
    def __init__(self, keys: list[str]) -> None:
        self.keys = keys


class KeysHandler:
    """One request per key list; ``answer(keys, attempt)`` gives each key's error code (0: Done(key))."""

    name = "Test"

    def __init__(self, api_key: int, per_request: int = 1000) -> None:
        self.api_key = api_key
        self.per_request = per_request

    def builder(self, keys: Sequence[str]) -> BuildWith:
        n = self.per_request
        return BuildWith(lambda version: [Req(list(keys[i:i + n])) for i in range(0, len(keys), n)])  # type: ignore[misc]

    def keys_of(self, request: Any, version: int) -> list[str]:
        return list(request.keys)

    def handle(self, request: Any, response: Any, version: int, node_id: int) -> dict[str, Outcome]:
        out: dict[str, Outcome] = {}
        for k, code in response.items():
            err = error_for_code(code, None)
            out[k] = Done(f"{k}@{node_id}") if err is None else Retry(err) if err.retriable else Failed(err)
        return out


class KeysNet:
    """``answer(node, keys, attempt)`` returns {key: code} or raises."""

    nodes = (1, 2)

    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.sent: list[tuple[int, list[str]]] = []

    async def negotiated_version(self, node: int, api_key: int, *, deadline: Deadline) -> int:
        return 0

    async def send(self, node: int, request: Any, version: int, *, deadline: Deadline) -> Any:
        self.sent.append((node, list(request.keys)))
        await asyncio.sleep(0)
        return self.answer(node, request.keys, len(self.sent))


class Lookup:
    def __init__(self, where: Any) -> None:
        self.where = where

    async def locate(self, keys: Sequence[str], deadline: Deadline) -> Any:
        return self.where(keys)

    def forget(self, keys: Iterable[str]) -> None:
        pass

    def forget_node(self, node_id: int) -> None:
        pass


def drive(net: KeysNet, handler: KeysHandler, keys: list[str], lookup: Lookup, timeout: float = 2.0,
          write: bool = False) -> dict[str, Any]:
    return asyncio.run(_driver.run(net, handler, keys, lookup, Deadline(timeout), CONFIG, write=write))


def test_a_lookup_may_send_every_key_to_one_node_by_its_id() -> None:
    net = KeysNet(lambda node, keys, n: {k: 0 for k in keys})
    res = drive(net, KeysHandler(1000, per_request=2), ["a", "b", "c", "a"], Lookup(lambda keys: 2))
    assert res == {"a": "a@2", "b": "b@2", "c": "c@2"}
    assert net.sent == [(2, ["a", "b"]), (2, ["c"])]


def test_a_lookup_that_places_no_key_leaves_none_missing() -> None:
    net = KeysNet(lambda node, keys, n: {k: 0 for k in keys})
    res = drive(net, KeysHandler(1000), ["a", "b"], Lookup(lambda keys: {}), timeout=0.1)
    assert list(res) == ["a", "b"]
    for v in res.values():
        assert isinstance(v, KafkaTimeoutError) and "no node was found" in str(v)
    assert net.sent == []


def test_results_are_in_key_order_across_nodes_and_rounds() -> None:
    # b and d go to node 2, a and c to node 1; c is retried once: results still come back a, b, c, d.
    def answer(node: int, keys: list[str], n: int) -> dict[str, int]:
        return {k: 41 if k == "c" and n <= 2 else 0 for k in keys}

    net = KeysNet(answer)
    res = drive(net, KeysHandler(1000), ["a", "b", "c", "d"],
                Lookup(lambda keys: {k: 2 if k in "bd" else 1 for k in keys}))
    assert list(res.items()) == [("a", "a@1"), ("b", "b@2"), ("c", "c@1"), ("d", "d@2")]
    # One node, one round, answered out of order by the handler: the key order still wins.
    net = KeysNet(lambda node, keys, n: {k: 0 for k in reversed(keys)})
    res = drive(net, KeysHandler(1000, per_request=1), ["z", "y", "x"], Lookup(lambda keys: 1))
    assert list(res) == ["z", "y", "x"]


def test_a_write_sent_and_never_answered_stays_in_doubt_after_a_later_answer() -> None:
    def answer(node: int, keys: list[str], n: int) -> dict[str, int]:
        if n == 1:
            raise KafkaConnectionError("reset after sending")  # "b" (its own request) may have been applied
        return {k: 69 for k in keys}  # GROUP_ID_NOT_FOUND: what DeleteGroups' resend sees if the first applied

    net = KeysNet(answer)
    res = drive(net, KeysHandler(42, per_request=1), ["b"], Lookup(lambda keys: 1), write=True)
    err = res["b"]
    assert isinstance(err, KafkaTimeoutError) and err.possibly_applied and "in doubt" in str(err)
    # Answered the first time: the same answer is final, not in doubt.
    net = KeysNet(lambda node, keys, n: {k: 69 for k in keys})
    res = drive(net, KeysHandler(42, per_request=1), ["b"], Lookup(lambda keys: 1), write=True)
    assert isinstance(res["b"], KafkaError) and not isinstance(res["b"], KafkaTimeoutError)


def test_only_the_unanswered_request_of_a_round_is_in_doubt() -> None:
    def answer(node: int, keys: list[str], n: int) -> dict[str, int]:
        if keys == ["x"]:
            raise KafkaConnectionError("reset after sending")
        return {k: 0 for k in keys}

    net = KeysNet(answer)
    res = drive(net, KeysHandler(42, per_request=1), ["w", "x"], Lookup(lambda keys: 1), timeout=0.3, write=True)
    assert res["w"] == "w@1"
    err = res["x"]
    assert isinstance(err, KafkaTimeoutError) and err.possibly_applied
    res = drive(KeysNet(answer), KeysHandler(42, per_request=1), ["x"], Lookup(lambda keys: 1), timeout=0.3)
    assert isinstance(res["x"], KafkaTimeoutError) and not res["x"].possibly_applied  # a read: never applied


# --- validation ----------------------------------------------------------------------------------------------


def test_duplicates_are_found_whatever_order_the_components_were_given_in() -> None:
    a = ClientQuotaAlteration(E({"user": "u", "client-id": "c"}), [Set("producer_byte_rate", 1.0)])
    b = ClientQuotaAlteration(E([("client-id", "c"), ("user", "u")]), [Set("consumer_byte_rate", 1.0)])
    with pytest.raises(ValueError, match="appears in more than one alteration"):
        validate_alterations([a, b])
    assert validate_alterations([a]) == [a]


def test_unknown_keys_follow_the_flag_and_an_alteration_without_it_is_checked_in_full() -> None:
    known = ClientQuotaAlteration(E({"user": "u"}), [Set("producer_byte_rate", 1.0)])
    unknown = ClientQuotaAlteration(E({"user": "v"}), [Set("producer_byte_rate", 1.0), Set("future_rate", 2.0)])
    other_type = ClientQuotaAlteration(E({"group": "g"}), [Set("producer_byte_rate", 1.0)])
    assert validate_alterations([known]) == [known]
    for bad in (unknown, other_type):
        with pytest.raises(ValueError, match="allow_unknown_keys=True"):
            validate_alterations([known, bad])
        assert validate_alterations([known, bad], allow_unknown_keys=True) == [known, bad]
    # As unpickled from a release before the flag: no attribute, so the full check runs.
    for alt, ok in ((known, True), (unknown, False), (other_type, False)):
        old = pickle.loads(pickle.dumps(alt))
        del old.__dict__["_all_known"]
        assert old == alt
        if ok:
            assert validate_alterations([old]) == [old]
        else:
            with pytest.raises(ValueError, match="allow_unknown_keys=True"):
                validate_alterations([old])


def test_single_component_entities_are_checked_like_any_other() -> None:
    class Name(str):
        pass

    assert E([(Name("user"), "a")]) == E({"user": "a"}) and hash(E([(Name("user"), "a")])) == hash(E({"user": "a"}))
    with pytest.raises(ValueError, match="entity type is empty"):
        E({"": "a"})
    with pytest.raises(TypeError, match="entity type must be a string"):
        E([(7, "a")])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="name must be a string or None"):
        E({"user": 7})  # type: ignore[dict-item]
    assert E({"user": None}).components == (("user", None),) and E({"user": None}).is_default("user")


def test_two_component_entities_order_like_the_general_sort() -> None:
    types = ["user", "client-id", "ip", "group", "a", "zz"]
    for t1 in types:
        for t2 in types:
            if t1 == t2:
                continue
            got = E([(t1, "x"), (t2, None)]).components
            assert got == tuple(sorted([(t1, "x"), (t2, None)],
                                       key=lambda c: ({"user": 0, "client-id": 1, "ip": 2}.get(c[0], 3), c[0])))
            assert E({t2: None, t1: "x"}) == E([(t1, "x"), (t2, None)])
    assert E([("zz", "1"), ("a", "2"), ("user", "3")]).types == ("user", "a", "zz")


# --- describe ------------------------------------------------------------------------------------------------


def test_describe_returns_entities_in_sort_order_with_their_values() -> None:
    from kadmin.admin.quotas import DescribeClientQuotasHandler
    from kadmin.protocol import message_type
    from kadmin.quotas import ClientQuotaFilter

    R: Any = message_type(48, "response")
    shapes = [[("client-id", "c")], [("user", None)], [("client-id", None), ("user", "u")], [("user", "u")],
              [("user", "a"), ("client-id", "b")], [("ip", "1.2.3.4")], [("ip", None)], [("group", "g")],
              [("client-id", "")], [("user", "b")]]
    entries = [R.EntryData(entity=[R.EntityData(entity_type=t, entity_name=n) for t, n in shape],
                           values=[R.ValueData(key="k", value=float(i)), R.ValueData(key="j", value=-0.0)])
               for i, shape in enumerate(shapes)]
    entries.reverse()
    resp = R(error_code=0, error_message=None, entries=entries)
    flt = ClientQuotaFilter.all()
    (out,) = DescribeClientQuotasHandler(flt).handle(None, resp, 1, 1).values()  # type: ignore[arg-type]
    assert isinstance(out, Done)
    got = out.value
    expected = [E(shape) for shape in shapes]
    assert list(got) == sorted(expected)  # __lt__, pair by pair
    for i, shape in enumerate(shapes):
        assert got[E(shape)]["k"] == float(i) and str(got[E(shape)]["j"]) == "-0.0"
