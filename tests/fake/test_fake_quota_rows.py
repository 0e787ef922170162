"""The fake broker's client-quota fast paths (issue #28): AlterClientQuotasRequest v1 read as rows, both answers
written from rows, the common alteration checked in a few comparisons, the area's cached answer order.  Each must
give exactly what the generated decoder and encoder, and the full rule check, give."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import pytest

from kadmin.errors import ProtocolError
from kadmin.protocol import message_type
from kadmin.protocol.rows import take_rows
from kadmin.protocol.rows_broker import request_rows, response_with_rows, response_written, uniform_alterations
from kadmin.testing import FakeCluster
from kadmin.testing.handlers import HANDLERS, RequestContext, SaslState
from kadmin.testing.handlers.alter_client_quotas import apply_ops, checked_entry
from kadmin.testing.handlers.describe_client_quotas import QuotaRequestError
from kadmin.testing.rawclient import RawConnection
from kadmin.testing.state.quotas import Quotas

A: Any = message_type("AlterClientQuotasRequest")
AR: Any = message_type("AlterClientQuotasResponse")
DR: Any = message_type("DescribeClientQuotasResponse")
DQ: Any = message_type("DescribeClientQuotasRequest")

#: Alterations in the shape the reader takes: one-byte lengths, ASCII, no tagged fields; 130 + 6 of them, so the
#: entry count takes two bytes.
COMMON: list[Any] = [((("client-id", f"c{i}"),), (("producer_byte_rate", 1024.0 * i, False),)) for i in range(130)] + [
    ((("user", None),), (("request_percentage", 0.5, False),)),
    ((("user", "u"), ("client-id", None)), (("request_percentage", 12.5, False), ("consumer_byte_rate", 0.0, True))),
    ((("ip", "10.0.0.1"),), ()),
    ((), (("producer_byte_rate", -0.0, True),)),
    ((("client-id", "c1"),), (("consumer_byte_rate", math.inf, False), ("request_percentage", 3.0, False))),
    ((("user", ""), ("client-id", "x")), (("", 1.0, False),)),
]


def structs(rows: list[Any], validate_only: bool) -> Any:
    return A(validate_only=validate_only, entries=[A.EntryData(
        entity=[A.EntityData(entity_type=t, entity_name=n) for t, n in pairs],
        ops=[A.OpData(key=k, value=v, remove=r) for k, v, r in ops]) for pairs, ops in rows])


def generated(data: bytes) -> Any:
    """The generated decoder's message (the lazy variant has no request reader in front of it)."""
    msg, end = A.decode_from(data, 0, 1, lazy=True)
    assert request_rows(msg) is None
    return msg, end


def outcome(decode: Any, data: bytes) -> Any:
    try:
        return decode(data)
    except ProtocolError as exc:
        return ("error", str(exc))


@pytest.mark.parametrize("validate_only", [False, True])
def test_a_request_in_the_common_shape_is_read_as_rows_and_is_the_generated_decoders_message(
        validate_only: bool) -> None:
    data = structs(COMMON, validate_only).encode(1)
    msg, end = A.decode_from(data, 0, 1)
    assert end == len(data)
    assert request_rows(msg) == COMMON and msg.validate_only is validate_only
    assert msg.encode(1) == data and msg.encode(0) == structs(COMMON, validate_only).encode(0)
    assert msg == generated(data)[0] == structs(COMMON, validate_only)
    assert request_rows(msg) is None  # entries were read: the structs are the message now
    assert request_rows(A.decode(structs(COMMON, validate_only).encode(0), 0)) is None  # v0: generated


@pytest.mark.parametrize("odd", [
    ((("client-id", "zoë"),), (("producer_byte_rate", 1.0, False),)),  # non-ASCII name
    ((("user", "n" * 200),), (("producer_byte_rate", 1.0, False),)),  # a two-byte length
    ((("user", "u"),), (("k" * 130, 1.0, False),)),  # a two-byte key length
    ((("ü", "u"),), (("producer_byte_rate", 1.0, False),)),  # non-ASCII type
    ((("user", "u"),), (("bücher", 1.0, False),)),  # non-ASCII key
    ((("", "x"), ("user", "")), (("", 1.0, False),)),  # an empty type (no client sends one)
    ((("", "x"),), (("producer_byte_rate", 1.0, False),)),
])
def test_what_the_reader_leaves_is_decoded_by_the_generated_decoder(odd: Any) -> None:
    rows = COMMON[:3] + [odd] + COMMON[3:5]
    data = structs(rows, False).encode(1)
    msg = A.decode(data, 1, exact=True)
    assert request_rows(msg) is None
    assert msg == generated(data)[0] == structs(rows, False)


@pytest.mark.parametrize("where", ["entity", "op", "entry", "top"])
def test_tagged_fields_anywhere_leave_the_request_to_the_generated_decoder(where: str) -> None:
    msg = structs(COMMON[:3], False)
    tags = {7: b"\x01\x02"}
    target = {"entity": msg.entries[1].entity[0], "op": msg.entries[1].ops[0], "entry": msg.entries[1],
              "top": msg}[where]
    target._unknown_tags = tags
    data = msg.encode(1)
    got = A.decode(data, 1, exact=True)
    assert request_rows(got) is None and got == msg == generated(data)[0]


#: One Set of one key on one-component entities of one type: read as UniformAlterations (130 entries: a two-byte
#: count; default names among them).
UNIFORM: list[Any] = [((("client-id", None if i % 50 == 7 else f"c{i}"),), (("producer_byte_rate", 1.5 * i, False),))
                      for i in range(130)]


@pytest.mark.parametrize("validate_only", [False, True])
def test_alike_alterations_are_read_as_uniform_and_are_the_generated_decoders_message(validate_only: bool) -> None:
    data = structs(UNIFORM, validate_only).encode(1)
    msg = A.decode(data, 1, exact=True)
    uniform = uniform_alterations(msg)
    assert uniform is not None and (uniform.entity_type, uniform.key) == ("client-id", "producer_byte_rate")
    assert uniform.names[7] is None and uniform.values[3] == 4.5 and len(uniform.names) == 130
    assert request_rows(msg) == UNIFORM and msg.validate_only is validate_only
    assert msg.encode(1) == data and msg.encode(0) == structs(UNIFORM, validate_only).encode(0)
    assert msg == generated(data)[0] == structs(UNIFORM, validate_only)
    assert uniform_alterations(msg) is None and request_rows(msg) is None  # read: the structs are the message


@pytest.mark.parametrize(("odd", "as_rows"), [
    (((("client-id", "x"),), (("producer_byte_rate", 1.0, True),)), True),  # a remove
    (((("client-id", "x"),), (("consumer_byte_rate", 1.0, False),)), True),  # another key
    (((("user", "x"),), (("producer_byte_rate", 1.0, False),)), True),  # another type
    (((("client-id", "x"), ("user", "y")), (("producer_byte_rate", 1.0, False),)), True),  # two components
    (((("client-id", "x"),), (("producer_byte_rate", 1.0, False), ("request_percentage", 1.0, False))), True),
    (((("client-id", "x"),), ()), True),  # no op
    (((("client-id", "zoë"),), (("producer_byte_rate", 1.0, False),)), False),  # non-ASCII: generated
    (((("client-id", "n" * 130),), (("producer_byte_rate", 1.0, False),)), False),  # a two-byte length
])
@pytest.mark.parametrize("where", [0, 1, 2])
def test_alterations_not_all_alike_are_read_as_rows_or_by_the_generated_decoder(odd: Any, as_rows: bool,
                                                                                 where: int) -> None:
    rows = UNIFORM[:2]
    rows = rows[:where] + [odd] + rows[where:]
    data = structs(rows, False).encode(1)
    msg = A.decode(data, 1, exact=True)
    assert uniform_alterations(msg) is None
    assert request_rows(msg) == (rows if as_rows else None)
    assert msg == generated(data)[0] == structs(rows, False)


@pytest.mark.parametrize("rows", [UNIFORM[5:9], UNIFORM[4:9] + [COMMON[131]]], ids=["uniform", "rows"])
def test_every_truncation_and_corruption_decodes_or_fails_as_the_generated_decoder(rows: list[Any]) -> None:
    data = structs(rows, True).encode(1)
    assert request_rows(A.decode(data, 1)) == rows

    def fast(b: bytes) -> Any:
        return A.decode_from(b, 0, 1)

    for cut in range(len(data)):
        assert outcome(fast, data[:cut]) == outcome(generated, data[:cut]), cut
    for i in range(len(data)):
        for byte in (0, 1, 2, 3, 0x2D, 0x7F, 0x80, 0xFF, data[i] ^ 0x01):
            bad = data[:i] + bytes([byte]) + data[i + 1:]
            assert outcome(fast, bad) == outcome(generated, bad), (i, byte)


# --- answers written from rows --------------------------------------------------------------------------------

PAIRS: list[Any] = [(("client-id", f"c{i}"),) for i in range(129)] + [
    (("user", None),), (("user", "u"), ("client-id", None)), (), (("ip", "n" * 200),), (("client-id", "zoë"),)]


def alter_rows() -> list[Any]:
    messages = [None, "bad", "Ignoring duplicate entity ü", "m" * 300]
    return [(0 if i % 3 else 42, messages[i % 4], pairs) for i, pairs in enumerate(PAIRS)] + [
        (0, None, (("client-id", "n" * 200),)), (0, None, (("client-id", None),)), (0, None, (("user", "ü"),)),
        (0, None, (("client-id", "c"),))]  # successes: a two-byte name length, a default, another type, back


def alter_structs(rows: list[Any], throttle: int) -> Any:
    return AR(throttle_time_ms=throttle, entries=[AR.EntryData(
        error_code=c, error_message=m, entity=[AR.EntityData(entity_type=t, entity_name=n) for t, n in pairs])
        for c, m, pairs in rows])


def describe_rows() -> list[Any]:
    values: list[dict[str, float]] = [{"producer_byte_rate": 1.0}, {"a": 2.5, "b": -0.0}, {"k" * 130: math.nan},
                                      {"ü": 1e300, "consumer_byte_rate": 4.0, "request_percentage": 0.5}]
    return [(pairs, values[i % 4]) for i, pairs in enumerate(PAIRS)]


def describe_structs(rows: list[Any], throttle: int, message: str | None) -> Any:
    return DR(throttle_time_ms=throttle, error_code=0, error_message=message, entries=[DR.EntryData(
        entity=[DR.EntityData(entity_type=t, entity_name=n) for t, n in pairs],
        values=[DR.ValueData(key=k, value=values[k]) for k in sorted(values)]) for pairs, values in rows])


@pytest.mark.parametrize("version", [0, 1])
@pytest.mark.parametrize("count", [0, 1, 5, len(PAIRS)])
def test_an_alter_answer_written_from_rows_is_the_one_written_from_structs(version: int, count: int) -> None:
    rows = alter_rows()[-count:] if count else []
    msg = response_with_rows(AR, rows, throttle_time_ms=0)
    msg.throttle_time_ms = 9  # as the broker does when a test injects throttling
    want = alter_structs(rows, 9)
    assert msg.encode(version) == want.encode(version)
    assert msg == want and msg.entries == want.entries


@pytest.mark.parametrize("version", [0, 1])
@pytest.mark.parametrize("count", [0, 1, 5, len(PAIRS)])
@pytest.mark.parametrize("message", [None, "note"])
def test_a_describe_answer_written_from_rows_is_the_one_written_from_structs(version: int, count: int,
                                                                              message: str | None) -> None:
    rows = describe_rows()[-count:] if count else []
    msg = response_with_rows(DR, rows, throttle_time_ms=3, error_code=0, error_message=message)
    want = describe_structs(rows, 3, message)
    assert msg.encode(version) == want.encode(version)
    assert msg == want


@pytest.mark.parametrize("count", [0, 1, 5, len(PAIRS)])
@pytest.mark.parametrize("message", [None, "note"])
def test_a_describe_answer_written_at_once_is_the_structs_and_keeps_no_rows(count: int,
                                                                           message: str | None) -> None:
    rows = [(pairs, dict(values)) for pairs, values in (describe_rows()[-count:] if count else [])]
    msg = response_written(DR, rows, throttle_time_ms=3, error_code=0, error_message=message)
    want = describe_structs(rows, 3, message)
    for _pairs, values in rows:  # the live data changes after the answer was made
        values["producer_byte_rate"] = -1.0
    msg.throttle_time_ms = 4  # as the broker does when a test injects throttling
    want.throttle_time_ms = 4
    assert msg.encode(1) == want.encode(1)
    assert msg.encode(0) == want.encode(0)  # read back from the written entries
    assert msg == want


@pytest.mark.parametrize("cls", [AR, DR])
def test_answers_the_client_decoded_are_written_by_the_generated_encoder(cls: Any) -> None:
    """The client's decoder keeps its own rows in the same place (kadmin.protocol.rows.with_rows): they are not
    this writer's rows, so re-encoding such a message writes its structs."""
    pairs: list[Any] = [(("client-id", "c"),), (("user", None), ("client-id", "d"))]
    want = (alter_structs([(0, None, pairs[0]), (42, "bad", pairs[1])], 0) if cls is AR else
            describe_structs([(pairs[0], {"producer_byte_rate": 1.0}), (pairs[1], {"a": 1.0, "b": 2.0})], 0, None))
    data = want.encode(1)
    for take in (False, True):
        msg, _ = cls.decode_from(data, 0, 1, lazy=True)
        if take:
            assert take_rows(msg) is not None
        assert msg.encode(1) == data


def test_a_row_that_cannot_be_written_fails_as_the_structs_would() -> None:
    rows: list[Any] = [(0, None, (("client-id", 5),))]
    with pytest.raises(ProtocolError) as got:
        response_with_rows(AR, rows, throttle_time_ms=0).encode(1)
    with pytest.raises(ProtocolError) as want:
        alter_structs(rows, 0).encode(1)
    assert str(got.value) == str(want.value) and "EntityName" in str(got.value)


# --- the handlers, through a broker ---------------------------------------------------------------------------

@pytest.fixture(params=["3.9", "4.0"])
def fake(request: pytest.FixtureRequest) -> Iterator[FakeCluster]:
    with FakeCluster(brokers=1, versions=request.param) as c:
        yield c


def raw(cluster: FakeCluster) -> RawConnection:
    host, port = cluster.addresses[cluster.node_ids[0]]
    return RawConnection(host, port)


def grid() -> list[Any]:
    """Single alterations across every rule the common-case check decides (each on an entity of its own), then
    names the check must refuse or pass on, and repeated entities."""
    rows: list[Any] = []
    values = [1.0, 0.0, -0.0, -1.0, 1.5, 1000.0000001, 2.0 ** 63, 2.0 ** 64, math.inf, -math.inf, math.nan, 1e-9, 7.0]
    for etype in ("user", "client-id", "ip", "group"):
        for key in ("producer_byte_rate", "request_percentage", "connection_creation_rate", "bogus"):
            for value in values:
                for remove in (False, True):
                    rows.append((((etype, f"n{len(rows)}"),), ((key, value, remove),)))
        for name in (None, "", "127.0.0.1", "not an ip"):
            for key in ("producer_byte_rate", "connection_creation_rate"):
                rows.append((((etype, name),), ((key, 3.0, False),)))
    rows += [((("user", "b"), ("client-id", "c")), (("consumer_byte_rate", 5.0, False),)),
             ((("client-id", "c"), ("user", "b")), (("consumer_byte_rate", 6.0, False),)),  # the same entity
             ((("user", "n0"),), (("producer_byte_rate", 2.0, False),)),  # a duplicate of a good one
             ((("user", "d"),), (("producer_byte_rate", 1.0, False), ("producer_byte_rate", 2.0, False))),
             ((("user", "d"),), (("producer_byte_rate", 3.0, False),)),  # after a failed entry: a duplicate
             ((("user", "n4"),), (("producer_byte_rate", 3.0, False),))]  # after a failed value: a duplicate
    return rows


def expected(rows: list[Any], zero_allowed: bool, validate_only: bool) -> tuple[list[Any], dict[Any, Any]]:
    """What the full rule check (checked_entry, no shortcut) answers for ``rows``, and the state it leaves."""
    area = Quotas()
    seen: set[Any] = set()
    answers = []
    for pairs, ops in rows:
        try:
            entity, checked = checked_entry(pairs, ops, seen, zero_allowed)
        except QuotaRequestError as e:
            answers.append((e.code, e.message))
        else:
            answers.append((0, None))
            if not validate_only:
                apply_ops(area, entity, checked)
    return answers, dict(area)


@pytest.mark.parametrize("validate_only", [False, True])
def test_the_common_case_check_answers_as_the_full_rules_do(fake: FakeCluster, validate_only: bool) -> None:
    rows = grid()
    zero_allowed = 4 in fake._brokers[fake.node_ids[0]].table
    want, state = expected(rows, zero_allowed, validate_only)
    assert sum(code == 0 for code, _ in want) > 100 and sum(code != 0 for code, _ in want) > 200
    for version in (1, 0):  # v1: read as rows; v0: from the generated decoder's structs
        fake.quotas = {}
        with raw(fake) as conn:
            resp = conn.request(49, version, request=structs(rows, validate_only))
        assert [(e.error_code, e.error_message) for e in resp.entries] == want
        assert [tuple((p.entity_type, p.entity_name) for p in e.entity) for e in resp.entries] == [
            pairs for pairs, _ in rows]
        assert fake.quotas == state


@pytest.mark.parametrize("validate_only", [False, True])
@pytest.mark.parametrize("repeats", [True, False])
def test_alike_alterations_are_answered_as_the_full_rules_do(fake: FakeCluster, validate_only: bool,
                                                             repeats: bool) -> None:
    """Requests read as UniformAlterations (one type, one key): every value rule, default, empty and (or not)
    repeated names, at v1 (uniform) and v0 (the structs' rows), against checked_entry."""
    zero_allowed = 4 in fake._brokers[fake.node_ids[0]].table
    values = [1.0, 0.0, -0.0, -1.0, 1.5, 1000.0000001, 2.0 ** 63, 2.0 ** 64, math.inf, -math.inf, math.nan, 1e-9, 7.0]
    for etype in ("user", "client-id", "ip", "group"):
        for key in ("producer_byte_rate", "request_percentage", "connection_creation_rate", "bogus"):
            names: list[str | None] = [f"n{i}" for i in range(len(values))] + [None, "", "1.2.3.4"]
            more = [3.0, 3.0, 1.0]
            if repeats:
                names, more = names + ["n1", "n0", None], more + [4.0, 5.0, 2.0]
            rows = [(((etype, name),), ((key, value, False),))
                    for name, value in zip(names, values + more, strict=True)]
            want, state = expected(rows, zero_allowed, validate_only)
            data = structs(rows, validate_only).encode(1)
            assert uniform_alterations(A.decode(data, 1)) is not None
            for version in (1, 0):
                fake.quotas = {(("user", "n2"),): {"producer_byte_rate": 9.0}}
                with raw(fake) as conn:
                    resp = conn.request(49, version, request=structs(rows, validate_only))
                assert [(e.error_code, e.error_message) for e in resp.entries] == want, (etype, key, version)
                before = {(("user", "n2"),): {"producer_byte_rate": 9.0}}
                if not validate_only:
                    for entity, got in state.items():
                        before.setdefault(entity, {}).update(got)
                assert fake.quotas == before, (etype, key, version)


def test_the_request_log_names_entities_the_same_from_rows_and_from_structs(fake: FakeCluster) -> None:
    rows = COMMON[128:]
    for version in (1, 0):
        fake.clear_log()
        with raw(fake) as conn:
            conn.request(49, version, request=structs(rows, True))
        logged = [e.keys for e in fake.request_log if e.api_key == 49]
        assert logged == [("client-id=c128", "client-id=c129", "user=<default>", "user=u,client-id=<default>",
                           "ip=10.0.0.1", "", "client-id=c1", "user=,client-id=x")]


def test_describe_answers_in_entity_repr_order_after_entities_come_and_go(fake: FakeCluster) -> None:
    fake.quotas = {(("user", f"u{i}"),): {"producer_byte_rate": float(i)} for i in range(5)}
    with raw(fake) as conn:
        def described(version: int, components: list[Any] | None = None, strict: bool = False) -> list[Any]:
            resp = conn.request(48, version, strict=strict, components=[
                DQ.ComponentData(entity_type=t, match_type=m, match=n) for t, m, n in components or []])
            assert resp.error_code == 0
            return [(tuple((p.entity_type, p.entity_name) for p in e.entity), [(v.key, v.value) for v in e.values])
                    for e in resp.entries]

        first = described(1)
        assert [e for e, _ in first] == sorted((e for e, _ in first), key=repr)
        alter = [((("user", "u2"),), (("producer_byte_rate", 0.0, True),)),  # u2 goes
                 ((("user", None),), (("request_percentage", 5.0, False),)),  # the default user comes
                 ((("user", "u1"), ("client-id", "c")), (("consumer_byte_rate", 9.0, False),)),
                 ((("user", "u3"),), (("consumer_byte_rate", 8.0, False), ("producer_byte_rate", 33.0, False)))]
        assert [e.error_code for e in conn.request(49, 1, request=structs(alter, False)).entries] == [0] * 4
        fake.set_quota({"ip": "10.0.0.1"}, "connection_creation_rate", 3)  # around the broker
        now = described(1)
        want = sorted(fake.quotas.items(), key=lambda item: repr(item[0]))
        assert now == [(e, sorted(v.items())) for e, v in want]
        assert dict(now)[(("user", "u3"),)] == [("consumer_byte_rate", 8.0), ("producer_byte_rate", 33.0)]
        for components, strict in ([], False), ([], True), ([("user", 2, None)], False), (
                [("user", 0, "u1")], True), ([("user", 1, None)], False), ([("ip", 2, None)], True):
            assert described(1, components, strict) == described(0, components, strict)
        assert len(described(1, [("user", 2, None)], False)) == 6  # u2 went; the default user came


def test_a_describe_answer_holds_the_values_of_the_moment_it_was_made(fake: FakeCluster) -> None:
    """The answer is written after the cluster's lock is released: it must not see later changes."""
    fake.quotas = {(("user", "a"),): {"producer_byte_rate": 1.0}, (("user", "b"),): {"x": 1.0, "y": 2.0}}
    node = fake.node_ids[0]
    ctx = RequestContext(fake, fake._state, node, fake._brokers[node].table, "/127.0.0.1", SaslState())
    with fake._lock:
        resp = HANDLERS[48].handle(ctx, DQ(components=[], strict=False), 1)
    fake.set_quota({"user": "a"}, "producer_byte_rate", 5.0)
    fake.set_quota({"user": "b"}, "y", None)
    fake.set_quota({"user": "c"}, "x", 1.0)
    got = DR.decode(resp.encode(1), 1)
    assert [(e.entity[0].entity_name, [(v.key, v.value) for v in e.values]) for e in got.entries] == [
        ("a", [("producer_byte_rate", 1.0)]), ("b", [("x", 1.0), ("y", 2.0)])]


# --- the area's answer order --------------------------------------------------------------------------------

def test_the_area_keeps_its_order_until_its_entities_change() -> None:
    q = Quotas()
    q.update({(("user", f"u{i}"),): {"k": 1.0} for i in (3, 1, 2)})

    def order_right() -> list[Any]:
        got = q.answer_items()
        assert [entity for entity, _ in got] == sorted(q, key=repr)
        assert all(values is q[entity] for entity, values in got)
        return got

    kept = order_right()
    q[(("user", "u1"),)]["k"] = 3.0  # a new value of a known entity: the list stays
    q.put((("user", "u2"),), "k", 4.0)
    q.setdefault((("user", "u3"),), {})["j"] = 1.0
    assert order_right() is kept and dict(kept)[(("user", "u3"),)] == {"k": 1.0, "j": 1.0}
    changes: list[Any] = [
        lambda: q.__setitem__((("user", "u1"),), {"k": 2.0}),  # another values dict for a known entity
        lambda: q.__setitem__((("user", "u0"),), {"k": 1.0}),
        lambda: q.setdefault((("user", None),), {"k": 1.0}),
        lambda: q.put((("ip", "1.2.3.4"),), "k", 1.0),
        lambda: q.put((("ip", "1.2.3.4"),), "k", None),
        lambda: q.pop((("user", "u3"),)),
        lambda: q.__delitem__((("user", "u0"),)),
        lambda: q.popitem(),
        lambda: q.update({(("client-id", "c"),): {"k": 1.0}}),
        lambda: q.__ior__({(("client-id", "d"),): {"k": 1.0}}),
        lambda: q.clear(),
        lambda: q.update([((("user", "z"),), {"k": 1.0})]),
    ]
    for change in changes:
        order_right()
        change()
        order_right()
    assert q.answer_items() == [((("user", "z"),), {"k": 1.0})]
