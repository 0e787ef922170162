"""kadmin.admin.quotas against a scripted network: request building, batching, folding, node choice.

The operations run through the real driver (``kadmin.admin._driver.run``) over a stub network.  The stub
decodes each request from its wire bytes and answers with a response that goes through encode/decode too (the
client's decoder), so float64 values are checked as the bits a broker would see.
"""

from __future__ import annotations

import asyncio
import logging
import pickle
import struct
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import pytest

from kadmin.admin._driver import Context, Done, Failed
from kadmin.admin.quotas import (
    AlterClientQuotas,
    DescribeClientQuotas,
    ValidateClientQuotas,
    alter_client_quotas,
    check_batching,
    describe_client_quotas,
)
from kadmin.config import ClientConfig
from kadmin.errors import (
    ErrorCode,
    InvalidRequestError,
    KafkaConnectionError,
    KafkaTimeoutError,
    ProtocolError,
    UnsupportedVersionError,
)
from kadmin.network.retry import Deadline
from kadmin.protocol import Message, message_type
from kadmin.protocol.apis import ApiKey
from kadmin.protocol.rows import UniformAlterAnswer, take_rows
from kadmin.quotas import (
    ClientQuotaAlteration,
    ClientQuotaEntity,
    ClientQuotaFilter,
    ClientQuotaFilterComponent,
    Remove,
    Set,
    validate_alterations,
)

E = ClientQuotaEntity
CONFIG = ClientConfig(bootstrap_servers="stub:9092", retry_backoff_s=0.001, retry_backoff_max_s=0.005)
AlterReq: Any = message_type(ApiKey.ALTER_CLIENT_QUOTAS, "request")
AlterResp: Any = message_type(ApiKey.ALTER_CLIENT_QUOTAS, "response")
DescResp: Any = message_type(ApiKey.DESCRIBE_CLIENT_QUOTAS, "response")

MODERN = {ApiKey.DESCRIBE_CLIENT_QUOTAS: (0, 1), ApiKey.ALTER_CLIENT_QUOTAS: (0, 1)}
OLD = {ApiKey.API_VERSIONS: (0, 3), ApiKey.METADATA: (0, 9)}  # a pre-2.6 broker: no quota APIs


def ent(i: int) -> ClientQuotaEntity:
    return E({"user": f"u{i}"})


def alt(i: int, value: float = 1.0) -> ClientQuotaAlteration:
    return ClientQuotaAlteration(ent(i), [Set("request_percentage", value)])


def alts_of(n: int) -> list[ClientQuotaAlteration]:
    return [ClientQuotaAlteration(E({"client-id": f"c{i}"}), [Set("producer_byte_rate", 1000.0 + i)])
            for i in range(n)]


class StubNet:
    """Nodes with version tables; ``answer(node, request, version)`` makes the response (or raises).

    No ``send_many``: the quota operations bound their requests in flight, so the driver must send them one
    by one (an AttributeError here would say it did not)."""

    def __init__(self, tables: dict[int, dict[ApiKey, tuple[int, int]]],
                 answer: Callable[[int, Any, int], Any], *, lazy: bool = True) -> None:
        self.tables = tables
        self.lazy = lazy  # False: answers decoded into structs, not read as rows (kadmin.protocol.rows)
        self.answer = answer
        self.sent: list[tuple[int, int, Any]] = []
        self.in_flight = 0
        self.max_in_flight = 0

    @property
    def nodes(self) -> dict[int, object]:
        return {n: object() for n in self.tables}

    def least_loaded_node(self) -> int:
        return min(self.tables)

    async def api_versions(self, node: int, *, deadline: Deadline | None = None) -> dict[int, tuple[int, int]]:
        return dict(self.tables[node])

    async def negotiated_version(self, node: int, api: ApiKey, *, deadline: Deadline | None = None) -> int:
        r = self.tables[node].get(api)
        if r is None:
            raise UnsupportedVersionError(f"node {node} supports none (it does not support this API)")
        return min(r[1], 1)

    async def send(self, node: int, request: Message, version: int, *, deadline: Deadline) -> Any:
        wire = request.encode(version)
        decoded = type(request).decode(wire, version)
        self.sent.append((node, version, decoded))
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            await asyncio.sleep(0.001)
            resp = self.answer(node, decoded, version)
        finally:
            self.in_flight -= 1
        # Decoded as the client decodes answers (the lazy decoder, with its row readers for the quota answers).
        return type(resp).decode_from(resp.encode(version), 0, version, lazy=self.lazy)[0]


def ctx(net: StubNet) -> Context:
    return Context(net=net, config=CONFIG, coordinators=None)  # type: ignore[arg-type]


def echo(entries: Iterable[Any], code: int = 0) -> list[Any]:
    return [AlterResp.EntryData(error_code=code, error_message=None, entity=[
        AlterResp.EntityData(entity_type=e.entity_type, entity_name=e.entity_name) for e in entry.entity])
        for entry in entries]


def ok_alter(node: int, req: Any, version: int) -> Any:
    return AlterResp(entries=echo(reversed(req.entries)))  # order must not matter


def run_alter(net: StubNet, alterations: list[ClientQuotaAlteration], timeout: float = 5.0,
              **kw: Any) -> dict[ClientQuotaEntity, Any]:
    opts = {"validate_only": False, "batch_size": 1000, "max_concurrency": 4} | kw
    return asyncio.run(alter_client_quotas(ctx(net), alterations, Deadline(timeout), **opts))


def run_describe(net: StubNet, flt: ClientQuotaFilter, timeout: float = 1.0) -> Any:
    return asyncio.run(describe_client_quotas(ctx(net), flt, Deadline(timeout)))


# --- alter: building -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("version", [0, 1])
def test_alter_request_carries_float_bits_and_explicit_ops(version: int) -> None:
    values = [1e-300, float(2**53 + 1), 1234.5678, 0.0, 5e-324]
    a = ClientQuotaAlteration(E({"user": "u", "client-id": None}),
                              [Set(f"k{i}", v) for i, v in enumerate(values)] + [Remove("gone")])
    op = AlterClientQuotas([a], validate_only=True, batch_size=10, max_concurrency=1)
    ((req, keys),) = op.build(1, op.keys, version)
    assert keys == [a.entity]
    wire = req.encode(version)
    for v in values:
        assert struct.pack(">d", v) in wire
    back: Any = AlterReq.decode(wire, version)
    ops = back.entries[0].ops
    assert [(o.key, struct.pack(">d", o.value), o.remove) for o in ops[:-1]] == \
        [(f"k{i}", struct.pack(">d", v), False) for i, v in enumerate(values)]
    assert (ops[-1].key, ops[-1].remove) == ("gone", True)
    assert back.validate_only is True
    assert [(e.entity_type, e.entity_name) for e in back.entries[0].entity] == [("user", "u"), ("client-id", None)]


def test_each_request_says_which_entities_it_carries_and_a_retry_round_carries_only_its_own() -> None:
    alts = alts_of(6) + [ClientQuotaAlteration(E({"user": "u", "client-id": None}),
                                               [Set("request_percentage", 0.5), Remove("producer_byte_rate")])]
    op = AlterClientQuotas(alts, validate_only=False, batch_size=4, max_concurrency=2)
    first = op.build(1, op.keys, 1)
    assert [ks for _, ks in first] == [op.keys[:4], op.keys[4:]]
    for req, ks in first:
        assert [entity_of(e) for e in req.entries] == ks
    # A retry round with some of the entities, in another order: one request with exactly those, in that order.
    subset = [op.keys[6], op.keys[2], op.keys[5]]
    ((again, keys),) = op.build(1, subset, 0)
    assert keys == subset and [entity_of(e) for e in again.entries] == subset
    last = again.entries[0]
    assert [(p.entity_type, p.entity_name) for p in last.entity] == [("user", "u"), ("client-id", None)]
    assert [(o.key, o.value, o.remove) for o in last.ops] == [("request_percentage", 0.5, False),
                                                              ("producer_byte_rate", 0.0, True)]
    assert not ValidateClientQuotas(alts, validate_only=True, batch_size=4, max_concurrency=2).write
    assert op.write


def entity_of(entry: Any) -> ClientQuotaEntity:
    return E([(p.entity_type, p.entity_name) for p in entry.entity])


# --- alter: through the driver -------------------------------------------------------------------------------


def test_alter_batches_and_bounds_concurrency() -> None:
    net = StubNet({1: MODERN}, ok_alter)
    alts = [alt(i) for i in range(2500)]
    res = run_alter(net, alts, batch_size=300, max_concurrency=3)
    assert list(res) == [a.entity for a in alts]
    assert all(v is None for v in res.values())
    sizes = [len(r.entries) for _, _, r in net.sent]
    assert sorted(sizes, reverse=True) == [300] * 8 + [100]
    assert net.max_in_flight == 3
    assert {v for _, v, _ in net.sent} == {1}
    assert [entity_of(e) for _, _, r in net.sent for e in r.entries] == [a.entity for a in alts]


def test_per_entity_errors_retries_and_nothing_missing() -> None:
    calls: dict[str, int] = {}

    def answer(node: int, req: Any, version: int) -> Any:
        entries = []
        for entry in req.entries:
            name = entry.entity[0].entity_name
            calls[name] = calls.get(name, 0) + 1
            code, msg = ErrorCode.NONE, None
            if name == "u1":
                code, msg = ErrorCode.INVALID_REQUEST, "bad entity"  # final
            elif name == "u2" and calls[name] == 1:
                code = ErrorCode.NOT_CONTROLLER  # retriable
            elif name == "u3":
                continue  # the broker forgot it
            entries.append(echo([entry], code)[0])
            entries[-1].error_message = msg
        return AlterResp(entries=entries)

    net = StubNet({1: MODERN}, answer)
    res = run_alter(net, [alt(i) for i in range(5)])
    assert res[ent(0)] is None and res[ent(4)] is None
    assert res[ent(1)] == InvalidRequestError("bad entity")
    assert res[ent(2)] is None and calls["u2"] == 2
    assert isinstance(res[ent(3)], ProtocolError) and "no entry" in str(res[ent(3)])
    assert calls["u0"] == 1  # only the retriable entity was sent again
    assert len(res) == 5


@pytest.mark.parametrize("lazy", [True, False])
def test_answers_in_any_order_and_with_reordered_pairs_find_their_entities(caplog: pytest.LogCaptureFixture,
                                                                           lazy: bool) -> None:
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
        res = run_alter(StubNet({1: MODERN}, answer, lazy=lazy), alts)
    assert list(res) == [a.entity for a in alts]
    assert isinstance(res[E({"client-id": "c1"})], ProtocolError) and "no entry" in str(res[E({"client-id": "c1"})])
    assert all(res[a.entity] is None for a in alts if a.entity != E({"client-id": "c1"}))
    assert res[two] is None  # found although its pairs came back in the other order
    assert "stranger" in caplog.text and "not asked about" in caplog.text


@pytest.mark.parametrize("case", ["in order", "a stranger in one place", "two swapped", "another type asked"])
def test_an_answer_of_successes_for_one_type_is_matched_name_by_name_with_what_was_asked(
        case: str, caplog: pytest.LogCaptureFixture) -> None:
    alts = alts_of(4) + [ClientQuotaAlteration(E({"client-id": None}), [Set("producer_byte_rate", 9.0)])]
    if case == "another type asked":
        alts[2] = ClientQuotaAlteration(E({"user": "c2"}), [Set("producer_byte_rate", 2.0)])
    probes: list[Any] = []

    def answer(node: int, req: Any, version: int) -> Any:
        entries = echo(req.entries)
        for e in entries:  # every answer names a client-id: the uniform shape, whatever was asked
            e.entity[0].entity_type = "client-id"
        if case == "a stranger in one place":
            entries[1].entity[0].entity_name = "stranger"
        if case == "two swapped":
            entries[0], entries[3] = entries[3], entries[0]
        resp = AlterResp(entries=entries)
        probe, _ = AlterResp.decode_from(resp.encode(version), 0, version, lazy=True)
        probes.append(take_rows(probe))
        return resp

    with caplog.at_level(logging.WARNING, logger="kadmin.admin"):
        res = run_alter(StubNet({1: MODERN}, answer), alts)
    assert all(isinstance(p, UniformAlterAnswer) for p in probes) and probes
    assert list(res) == [a.entity for a in alts]
    missing = {"in order": set(), "two swapped": set(), "a stranger in one place": {alts[1].entity},
               "another type asked": {alts[2].entity}}[case]
    for a in alts:
        if a.entity in missing:
            assert isinstance(res[a.entity], ProtocolError) and "no entry" in str(res[a.entity])
        else:
            assert res[a.entity] is None, (case, a.entity)
    assert ("not asked about" in caplog.text) == bool(missing)


def test_an_entity_answered_in_another_requests_response_is_not_credited_there() -> None:
    alts = alts_of(4)
    seen: list[list[str]] = []

    def answer(node: int, req: Any, version: int) -> Any:
        names = [e.entity[0].entity_name for e in req.entries]
        seen.append(names)
        if names == ["c0", "c1"]:
            # Answers c2 (the other request's) instead of c1.
            other = AlterResp.EntryData(error_code=ErrorCode.INVALID_REQUEST, error_message="wrong request",
                                        entity=[AlterResp.EntityData(entity_type="client-id", entity_name="c2")])
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
            entries[1].error_code = ErrorCode.NOT_CONTROLLER  # retriable
            entries[2].error_code = ErrorCode.INVALID_REQUEST  # final
        return AlterResp(entries=entries)

    alts = [ClientQuotaAlteration(E({"client-id": f"c{i}"}), [Set("request_percentage", v)])
            for i, v in enumerate([0.1, 1e-300, 2.5, 7.0])]
    net = StubNet({1: MODERN}, answer)
    res = run_alter(net, alts)
    assert res[alts[1].entity] is None and isinstance(res[alts[2].entity], InvalidRequestError)
    (_, _, first), (_, _, second) = net.sent
    assert [e.entity[0].entity_name for e in second.entries] == ["c1"]
    assert struct.pack(">d", second.entries[0].ops[0].value) == struct.pack(">d", first.entries[1].ops[0].value) \
        == struct.pack(">d", 1e-300)


def test_broker_timeout_marks_possibly_applied() -> None:
    def answer(node: int, req: Any, version: int) -> Any:
        entries = echo(req.entries, ErrorCode.REQUEST_TIMED_OUT)
        for e in entries:
            e.error_message = "slow controller"
        return AlterResp(entries=entries)

    res = run_alter(StubNet({1: MODERN}, answer), [alt(0)], timeout=0.2)
    err = res[ent(0)]
    assert isinstance(err, KafkaTimeoutError) and err.possibly_applied
    assert "slow controller" in str(err)
    res = run_alter(StubNet({1: MODERN}, answer), [alt(0)], timeout=0.2, validate_only=True)
    assert isinstance(res[ent(0)], KafkaTimeoutError) and not res[ent(0)].possibly_applied


def test_unanswered_write_is_possibly_applied() -> None:
    def answer(node: int, req: Any, version: int) -> Any:
        raise KafkaConnectionError("connection reset")

    res = run_alter(StubNet({1: MODERN}, answer), [alt(0)], timeout=0.2)
    assert isinstance(res[ent(0)], KafkaTimeoutError) and res[ent(0)].possibly_applied
    res = run_alter(StubNet({1: MODERN}, answer), [alt(0)], timeout=0.2, validate_only=True)
    assert isinstance(res[ent(0)], KafkaTimeoutError) and not res[ent(0)].possibly_applied


def test_old_brokers_are_skipped_and_an_all_old_cluster_is_refused() -> None:
    net = StubNet({1: OLD, 2: MODERN}, ok_alter)
    assert run_alter(net, [alt(0)]) == {ent(0): None}
    assert {n for n, _, _ in net.sent} == {2}

    net = StubNet({1: OLD, 2: OLD}, ok_alter)
    with pytest.raises(UnsupportedVersionError, match=r"too old for the client quota APIs.*Kafka 2\.6\+"):
        run_alter(net, [alt(0), alt(1)])
    with pytest.raises(UnsupportedVersionError, match=r"Kafka 2\.6\+"):
        run_describe(net, ClientQuotaFilter.all())
    assert net.sent == []


# --- describe ------------------------------------------------------------------------------------------------


def describe_answer(code: int = 0, entries: Any = ()) -> Callable[[int, Any, int], Any]:
    def answer(node: int, req: Any, version: int) -> Any:
        return DescResp(error_code=code, error_message="nope" if code else None,
                        entries=None if entries is None else list(entries))
    return answer


def test_describe_builds_the_filter_and_decodes_values() -> None:
    flt = ClientQuotaFilter([ClientQuotaFilterComponent.exact("user", "a"),
                             ClientQuotaFilterComponent.any("client-id")], strict=True)
    req: Any = DescribeClientQuotas().build(1, [flt], 1)
    assert [(c.entity_type, c.match_type, c.match) for c in req.components] == [("user", 0, "a"),
                                                                                ("client-id", 2, None)]
    assert req.strict is True
    D, V, P = DescResp.EntryData, DescResp.ValueData, DescResp.EntityData
    entries = [D(entity=[P(entity_type="client-id", entity_name=None), P(entity_type="user", entity_name="a")],
                 values=[V(key="request_percentage", value=1e-300), V(key="producer_byte_rate", value=2.0**53)])]
    net = StubNet({1: MODERN}, describe_answer(entries=entries))
    got = run_describe(net, flt)
    assert got == {E({"user": "a", "client-id": None}):
                   {"request_percentage": 1e-300, "producer_byte_rate": 2.0**53}}
    ((_, _, sent),) = net.sent
    assert [(c.entity_type, c.match_type, c.match) for c in sent.components] == [("user", 0, "a"),
                                                                                 ("client-id", 2, None)]


def test_describe_returns_entities_in_sort_order_with_their_values() -> None:
    shapes = [[("client-id", "c")], [("user", None)], [("client-id", None), ("user", "u")], [("user", "u")],
              [("user", "a"), ("client-id", "b")], [("ip", "1.2.3.4")], [("ip", None)], [("group", "g")],
              [("client-id", "")], [("user", "b")]]
    entries = [DescResp.EntryData(entity=[DescResp.EntityData(entity_type=t, entity_name=n) for t, n in shape],
                                  values=[DescResp.ValueData(key="k", value=float(i)),
                                          DescResp.ValueData(key="j", value=-0.0)])
               for i, shape in enumerate(shapes)]
    entries.reverse()
    resp = DescResp(error_code=0, error_message=None, entries=entries)
    flt = ClientQuotaFilter.all()
    out = DescribeClientQuotas().handle(1, [flt], resp, 1)
    assert list(out) == [flt] and isinstance(out[flt], Done)
    got = out[flt].value
    expected = [E(shape) for shape in shapes]
    assert list(got) == sorted(expected)  # __lt__, pair by pair
    for i, shape in enumerate(shapes):
        assert got[E(shape)]["k"] == float(i) and str(got[E(shape)]["j"]) == "-0.0"
    # The same through the driver and the wire.
    got = run_describe(StubNet({1: MODERN}, lambda node, req, version: resp), flt)
    assert list(got) == sorted(expected)


def test_describe_raises_top_level_errors() -> None:
    net = StubNet({1: MODERN}, describe_answer(code=ErrorCode.INVALID_REQUEST))
    with pytest.raises(InvalidRequestError, match="nope"):
        run_describe(net, ClientQuotaFilter.all())
    net = StubNet({1: MODERN}, describe_answer(entries=None))
    with pytest.raises(ProtocolError, match="null entries"):
        run_describe(net, ClientQuotaFilter.all())
    net = StubNet({1: MODERN}, describe_answer(code=ErrorCode.REQUEST_TIMED_OUT))  # retriable: until the deadline
    with pytest.raises(KafkaTimeoutError, match="last error: RequestTimedOutError"):
        run_describe(net, ClientQuotaFilter.all(), timeout=0.2)
    assert len(net.sent) > 1


# --- arguments and alterations -------------------------------------------------------------------------------


def test_batching_arguments() -> None:
    assert check_batching(1, 1) == (1, 1)
    for bad in (0, -1):
        with pytest.raises(ValueError, match="at least 1"):
            check_batching(bad, 1)
    with pytest.raises(TypeError, match="max_concurrency must be an int"):
        check_batching(10, 2.0)
    with pytest.raises(TypeError, match="batch_size must be an int"):
        check_batching(True, 2)


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
    # A pickled alteration (as Spark ships them) keeps what its checks found.
    for a, ok in ((known, True), (unknown, False), (other_type, False)):
        copy = pickle.loads(pickle.dumps(a))
        assert copy == a
        if ok:
            assert validate_alterations([copy]) == [copy]
        else:
            with pytest.raises(ValueError, match="allow_unknown_keys=True"):
                validate_alterations([copy])


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


# --- the trusted paths for what the broker answers (issue #28) ------------------------------------------------


def _sorted_the_slow_way(entities: Iterable[ClientQuotaEntity]) -> list[ClientQuotaEntity]:
    return sorted(entities, key=ClientQuotaEntity.sort_key)


@pytest.mark.parametrize("shapes", [
    [[("client-id", f"c{i % 7}{i}")] for i in range(40)] + [[("client-id", None)]],
    [[("user", f"u{i % 3}"), ("client-id", None if i < 3 else f"c{i}")] for i in range(30)]
    + [[("user", None), ("client-id", None)]],
    [[("ip", "10.0.0.1")], [("ip", None)], [("ip", "1.2.3.4")]],
    [[("group", "b")], [("group", None)], [("group", "a")]],
    [[("client-id", "b")], [("client-id", "")], [("client-id", None)]],  # an empty name: the full key
    [[("user", "a")], [("client-id", "a")]],  # two types: the full key
    [[("user", "u"), ("client-id", "c")], [("user", "u"), ("ip", None)], [("user", "u")]],
])
def test_describe_orders_every_answer_as_the_general_sort_does(shapes: list[list[tuple[str, str | None]]]) -> None:
    entries = [DescResp.EntryData(entity=[DescResp.EntityData(entity_type=t, entity_name=n) for t, n in shape],
                                  values=[DescResp.ValueData(key="producer_byte_rate", value=float(i))])
               for i, shape in enumerate(reversed(shapes))]
    flt = ClientQuotaFilter.all()
    got = DescribeClientQuotas().handle(1, [flt], DescResp(error_code=0, error_message=None, entries=entries), 1)
    value = got[flt].value  # type: ignore[union-attr]
    assert list(value) == _sorted_the_slow_way(E(s) for s in shapes)
    for i, shape in enumerate(reversed(shapes)):
        assert value[E(shape)] == {"producer_byte_rate": float(i)}
        assert hash(next(e for e in value if e == E(shape))) == hash(E(shape))


def test_describe_merges_an_entity_answered_twice_and_reads_arrays_the_lazy_decoder_left_undecoded() -> None:
    # Four identical values per entity: from the second entry on, the lazy decoder (what the client uses)
    # leaves each values array undecoded, so the handler must build it through the field's name.
    same = [DescResp.ValueData(key=k, value=1024.0) for k in
            ("producer_byte_rate", "consumer_byte_rate", "request_percentage", "controller_mutation_rate")]
    entries = [DescResp.EntryData(entity=[DescResp.EntityData(entity_type="client-id", entity_name=f"c{i}")],
                                  values=same) for i in range(5)]
    entries.append(DescResp.EntryData(entity=[DescResp.EntityData(entity_type="client-id", entity_name="c0")],
                                      values=[DescResp.ValueData(key="request_percentage", value=5.0)]))
    for version in (0, 1):
        data = DescResp(error_code=0, error_message=None, entries=entries).encode(version)
        resp, _ = DescResp.decode_from(data, 0, version, lazy=True)
        with pytest.raises(AttributeError):
            _ = resp.entries[1]._raw_values  # left undecoded: the slot is empty until the field is read by name
        flt = ClientQuotaFilter.all()
        value = DescribeClientQuotas().handle(1, [flt], resp, version)[flt].value  # type: ignore[union-attr]
        want = {k.key: 1024.0 for k in same}
        assert value == {E({"client-id": f"c{i}"}): want | ({"request_percentage": 5.0} if i == 0 else {})
                         for i in range(5)}
        assert list(value) == [E({"client-id": f"c{i}"}) for i in range(5)]


def test_alter_request_structs_made_from_values_equal_the_checked_constructors() -> None:
    alts = [ClientQuotaAlteration(E({"client-id": "c"}),
                                  [Set("producer_byte_rate", 1.0), Remove("consumer_byte_rate")]),
            ClientQuotaAlteration(E({"user": "u", "client-id": None}), [Set("request_percentage", 12.5)])]
    op = AlterClientQuotas(alts, validate_only=False, batch_size=10, max_concurrency=1)
    ((req, keys),) = op.build(1, op.keys, 1)
    R: Any = message_type(ApiKey.ALTER_CLIENT_QUOTAS, "request")
    want = R(entries=[
        R.EntryData(entity=[R.EntityData(entity_type="client-id", entity_name="c")],
                    ops=[R.OpData(key="producer_byte_rate", value=1.0, remove=False),
                         R.OpData(key="consumer_byte_rate", value=0.0, remove=True)]),
        R.EntryData(entity=[R.EntityData(entity_type="user", entity_name="u"),
                            R.EntityData(entity_type="client-id", entity_name=None)],
                    ops=[R.OpData(key="request_percentage", value=12.5, remove=False)])], validate_only=False)
    assert req == want and keys == [a.entity for a in alts]
    for version in (0, 1):
        assert req.encode(version) == want.encode(version)


Shape = tuple[Sequence[tuple[str, str | None]], Sequence[tuple[str, float]]]  # an entry: its entity, its values


def _describe_entries(shapes: Sequence[Shape]) -> list[Any]:
    return [DescResp.EntryData(entity=[DescResp.EntityData(entity_type=t, entity_name=n) for t, n in entity],
                               values=[DescResp.ValueData(key=k, value=v) for k, v in values])
            for entity, values in shapes]


_COMMON: list[Shape] = [([("client-id", f"c{i:03d}")], [("producer_byte_rate", 1024.0 * i)]) for i in range(200)]
_ROW_CASES: dict[str, tuple[Sequence[Shape], bool]] = {
    # name: (entries, whether the client's decoder reads them as rows at v1)
    "one component, one value, 200 entries": (_COMMON, True),
    "one type and key, a default and names out of order": (
        [([("user", n)], [("consumer_byte_rate", float(i))]) for i, n in enumerate(["b", None, "a", "c"])], True),
    "one type and key, an entity answered twice": (
        [([("user", n)], [("consumer_byte_rate", float(i))]) for i, n in enumerate(["a", None, "a", "b", None])],
        True),
    "defaults, two components in wire order, several values, a key twice": ([
        ([("client-id", None), ("user", "u")], [("request_percentage", 1e-300), ("producer_byte_rate", 2.0**53),
                                                 ("request_percentage", -0.0)]),
        ([("user", None)], [("consumer_byte_rate", 5e-324)]),
        ([("ip", "10.0.0.1")], [("connection_creation_rate", 3.0)]),
        ([("user", "u"), ("client-id", "c")], []),
        ([], [("producer_byte_rate", 1.0)]),
        ([("group", "g"), ("a", "b"), ("user", "x")], [("k", 1.0), ("j", 2.0)]),
    ], True),
    "an entity answered twice": ([([("user", "a")], [("producer_byte_rate", 1.0)]),
                                  ([("client-id", "c")], [("producer_byte_rate", 2.0)]),
                                  ([("user", "a")], [("consumer_byte_rate", 3.0)])], True),
    "a non-ASCII name": (_COMMON[:3] + [([("user", "zoë")], [("producer_byte_rate", 1.0)])], False),
    "a name of 200 bytes": (_COMMON[:3] + [([("user", "n" * 200)], [("producer_byte_rate", 1.0)])], False),
    "a key of 130 bytes": ([([("user", "u")], [("k" * 130, 1.0)])], False),
    "an empty name": ([([("client-id", "")], [("producer_byte_rate", 1.0)])], True),
}


@pytest.mark.parametrize("case", list(_ROW_CASES))
def test_describe_from_rows_read_off_the_bytes_equals_describe_from_the_decoded_structs(case: str) -> None:
    # The client's decoder reads a v1 DescribeClientQuotas answer as rows (kadmin.protocol.rows); the handler
    # must fold them into the very result (entities, order, values, float bits) the struct path gives.
    shapes, fast = _ROW_CASES[case]
    flt = ClientQuotaFilter.all()
    for version in (0, 1):
        data = DescResp(error_code=0, error_message=None, entries=_describe_entries(shapes)).encode(version)
        structs = DescResp.decode(data, version)
        rows, _ = DescResp.decode_from(data, 0, version, lazy=True)
        probe, _ = DescResp.decode_from(data, 0, version, lazy=True)
        assert (take_rows(probe) is not None) == (fast and version == 1)
        want = DescribeClientQuotas().handle(1, [flt], structs, version)[flt].value  # type: ignore[union-attr]
        got = DescribeClientQuotas().handle(1, [flt], rows, version)[flt].value  # type: ignore[union-attr]
        assert list(got) == list(want)
        assert [{k: struct.pack(">d", v) for k, v in vs.items()} for vs in got.values()] == \
            [{k: struct.pack(">d", v) for k, v in vs.items()} for vs in want.values()]
        assert rows == structs  # the message itself: its entries decoded from the same bytes on first read


def test_describe_rows_keep_the_entity_checks_and_errors() -> None:
    flt = ClientQuotaFilter.all()
    twice = DescResp(error_code=0, error_message=None, entries=_describe_entries(
        [([("user", "a"), ("user", "b")], [("producer_byte_rate", 1.0)])])).encode(1)
    rows, _ = DescResp.decode_from(twice, 0, 1, lazy=True)
    with pytest.raises(ProtocolError, match="invalid quota entity"):
        DescribeClientQuotas().handle(1, [flt], rows, 1)
    failed = DescResp(error_code=ErrorCode.INVALID_REQUEST, error_message="nope",
                      entries=_describe_entries(_COMMON[:2])).encode(1)
    rows, _ = DescResp.decode_from(failed, 0, 1, lazy=True)
    out = DescribeClientQuotas().handle(1, [flt], rows, 1)[flt]
    assert isinstance(out, Failed) and isinstance(out.error, InvalidRequestError)
