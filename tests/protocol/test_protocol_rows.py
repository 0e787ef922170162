"""kadmin.protocol.rows: the client's decoder reads a DescribeClientQuotasResponse v1 as rows and leaves
``entries`` to be decoded from the same bytes on first read.  Whatever the bytes, the message it gives must be
the generated decoder's (or fail as it fails)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from kadmin.errors import ProtocolError
from kadmin.protocol import load_schema, message_type
from kadmin.protocol.registry import specs_dir
from kadmin.protocol.rows import UniformAlterAnswer, UniformQuotaAnswer, request_with_rows, take_rows

R: Any = message_type("DescribeClientQuotasResponse")


def answer() -> Any:
    return R(throttle_time_ms=7, error_code=0, error_message=None, entries=[
        R.EntryData(entity=[R.EntityData(entity_type="client-id", entity_name=f"c{i}")],
                    values=[R.ValueData(key="producer_byte_rate", value=1024.0 * i)]) for i in range(3)] + [
        R.EntryData(entity=[R.EntityData(entity_type="user", entity_name=None),
                            R.EntityData(entity_type="client-id", entity_name="c")],
                    values=[R.ValueData(key="request_percentage", value=0.5),
                            R.ValueData(key="consumer_byte_rate", value=2.0)])])


def outcome(decode: Any, data: bytes) -> Any:
    try:
        return decode(data)
    except ProtocolError as exc:
        return ("error", str(exc))


def client(data: bytes) -> Any:
    return R.decode_from(data, 0, 1, lazy=True)


def generated(data: bytes) -> Any:
    return R.decode_from(data, 0, 1)


def test_rows_are_read_and_handed_out_once_and_the_message_is_the_generated_decoders() -> None:
    data = answer().encode(1)
    msg, end = client(data)
    assert end == len(data)
    rows = take_rows(msg)
    assert rows == ({(("client-id", f"c{i}"),): {"producer_byte_rate": 1024.0 * i} for i in range(3)},
                    [((("user", None), ("client-id", "c")), {"request_percentage": 0.5, "consumer_byte_rate": 2.0})])
    assert take_rows(msg) is None
    assert msg == answer() and repr(msg) == repr(answer())
    msg, _ = client(data)
    assert copy.deepcopy(msg) == answer() and copy.copy(msg) == answer()
    assert msg.to_json(1) == answer().to_json(1)
    msg, _ = client(data)
    assert msg.entries == answer().entries and take_rows(msg) is None  # read first: the structs are the answer
    assert take_rows(R.decode(data, 1)) is None
    assert take_rows(R.decode_from(answer().encode(0), 0, 0, lazy=True)[0]) is None


def alter_answer() -> Any:
    r: Any = message_type("AlterClientQuotasResponse")
    return r(throttle_time_ms=3, entries=[
        r.EntryData(error_code=0, error_message=None, entity=[r.EntityData(entity_type="client-id", entity_name="c")]),
        r.EntryData(error_code=42, error_message="bad", entity=[
            r.EntityData(entity_type="user", entity_name=None),
            r.EntityData(entity_type="client-id", entity_name="d")]),
        r.EntryData(error_code=0, error_message=None, entity=[r.EntityData(entity_type="client-id", entity_name="e")])])


def uniform_answer() -> Any:
    return R(throttle_time_ms=7, error_code=0, error_message=None, entries=[
        R.EntryData(entity=[R.EntityData(entity_type="client-id", entity_name=n)],
                    values=[R.ValueData(key="producer_byte_rate", value=v)])
        for n, v in (("c", 1.0), (None, 2.5), ("d" * 20, -0.0), ("c", 4.0))])


def uniform_alter_answer() -> Any:
    r: Any = message_type("AlterClientQuotasResponse")
    return r(throttle_time_ms=0, entries=[
        r.EntryData(error_code=0, error_message=None, entity=[r.EntityData(entity_type="client-id", entity_name=n)])
        for n in ("c", None, "d" * 20)])


def test_an_answer_of_successes_for_one_entity_type_is_read_as_names_and_anything_else_as_rows() -> None:
    r: Any = message_type("AlterClientQuotasResponse")
    msg, _ = r.decode_from(uniform_alter_answer().encode(1), 0, 1, lazy=True)
    got = take_rows(msg)
    assert got == UniformAlterAnswer("client-id", ["c", None, "d" * 20]) and msg == uniform_alter_answer()
    generated_rows = [(e.error_code, e.error_message, tuple((p.entity_type, p.entity_name) for p in e.entity))
                      for e in uniform_alter_answer().entries]
    assert got.rows() == generated_rows
    # Not uniform: an error, a message, another type, two components, a non-ASCII name: rows, as before.
    for change in ({"error_code": 42}, {"error_message": "m"}, {"entity_type": "user"}, {"two": True},
                   {"entity_name": "zoë"}):
        other = uniform_alter_answer()
        last = other.entries[-1]
        if "two" in change:
            last.entity.append(r.EntityData(entity_type="user", entity_name="u"))
        for attr in ("error_code", "error_message"):
            if attr in change:
                setattr(last, attr, change[attr])
        for attr in ("entity_type", "entity_name"):
            if attr in change:
                setattr(last.entity[0], attr, change[attr])
        msg, _ = r.decode_from(other.encode(1), 0, 1, lazy=True)
        rows = take_rows(msg)
        if "entity_name" in change:  # not ASCII: the generated decoder's structs
            assert rows is None and msg == other
            continue
        assert isinstance(rows, list) and msg == other, change
        assert rows == [(e.error_code, e.error_message, tuple((p.entity_type, p.entity_name) for p in e.entity))
                        for e in other.entries]


@pytest.mark.parametrize("make", [answer, alter_answer, uniform_alter_answer, uniform_answer])
def test_every_truncation_and_corruption_decodes_or_fails_as_the_generated_decoder(make: Any) -> None:
    cls = type(make())
    data = make().encode(1)
    msg, _ = cls.decode_from(data, 0, 1, lazy=True)
    assert take_rows(msg) is not None and msg == make()

    def client(b: bytes) -> Any:
        return cls.decode_from(b, 0, 1, lazy=True)

    def generated(b: bytes) -> Any:
        return cls.decode_from(b, 0, 1)

    for cut in range(len(data)):
        assert outcome(client, data[:cut]) == outcome(generated, data[:cut])
    for i in range(len(data)):
        for byte in (0, 1, 2, 3, 0x2D, 0x7F, 0x80, 0xFF, data[i] ^ 0x01):
            bad = data[:i] + bytes([byte]) + data[i + 1:]
            assert outcome(client, bad) == outcome(generated, bad), (i, byte)


def test_a_schema_the_user_loads_is_decoded_by_its_own_generated_decoder() -> None:
    own: Any = load_schema(specs_dir() / "DescribeClientQuotasResponse.json")
    assert own is not R
    msg, _ = own.decode_from(answer().encode(1), 0, 1, lazy=True)
    assert take_rows(msg) is None and len(msg.entries) == 4


@pytest.mark.parametrize("entries", [0, 127, 128, 300])
def test_entry_counts_of_one_and_more_bytes(entries: int) -> None:
    msg = R(throttle_time_ms=0, error_code=0, error_message="fine", entries=[
        R.EntryData(entity=[R.EntityData(entity_type="ip", entity_name=str(i))],
                    values=[R.ValueData(key="connection_creation_rate", value=float(i))]) for i in range(entries)])
    got, _ = client(msg.encode(1))
    rows = take_rows(got)
    if entries:  # every entry one ip with one value: the uniform answer
        assert isinstance(rows, UniformQuotaAnswer) and rows.names == [str(i) for i in range(entries)]
        rows = rows.rows()
    assert rows is not None and len(rows[0]) == entries and not rows[1] and got == msg
    assert got.error_message == "fine"


def test_an_answer_of_one_type_and_one_key_is_read_as_names_pairs_and_values_and_anything_else_as_rows() -> None:
    msg, _ = client(uniform_answer().encode(1))
    got = take_rows(msg)
    assert got == UniformQuotaAnswer(["c", None, "d" * 20, "c"],
                                     [(("client-id", n),) for n in ("c", None, "d" * 20, "c")],
                                     [{"producer_byte_rate": v} for v in (1.0, 2.5, -0.0, 4.0)])
    assert msg == uniform_answer()
    # rows(): the general reader's fold (the later value of the entity answered twice wins)
    assert got.rows() == ({(("client-id", "c"),): {"producer_byte_rate": 4.0},
                           (("client-id", None),): {"producer_byte_rate": 2.5},
                           (("client-id", "d" * 20),): {"producer_byte_rate": -0.0}}, [])
    # Not uniform: another type, another key, two values, two components, an empty name: the general rows.
    for change in ("type", "key", "two values", "two components", "empty name"):
        other = uniform_answer()
        last = other.entries[-1]
        if change == "type":
            last.entity[0].entity_type = "user"
        elif change == "key":
            last.values[0].key = "consumer_byte_rate"
        elif change == "two values":
            last.values.append(R.ValueData(key="request_percentage", value=1.0))
        elif change == "two components":
            last.entity.append(R.EntityData(entity_type="user", entity_name="u"))
        else:
            last.entity[0].entity_name = ""
        msg, _ = client(other.encode(1))
        rows = take_rows(msg)
        assert isinstance(rows, tuple) and not isinstance(rows, UniformQuotaAnswer) and msg == other, change


A: Any = message_type("AlterClientQuotasRequest")

ALTER_ROWS: list[Any] = [
    ((("client-id", f"c{i}"),), (("producer_byte_rate", 1024.0 * i, False),)) for i in range(130)] + [
    ((("user", None), ("client-id", "zoë")), (("request_percentage", 12.5, False), ("consumer_byte_rate", 0.0, True))),
    ((("user", "n" * 200),), (("k" * 130, -0.0, False),)),
    ((("ip", None),), ()),
    ((), (("producer_byte_rate", 1e300, False),)),
    # the usual shape (one component, one op) again after the others: a default name, another type and key, a
    # name of multi-byte length and characters, then the first type and key back
    ((("client-id", None),), (("producer_byte_rate", 1.0, False),)),
    ((("user", "ü" * 70),), (("consumer_byte_rate", 2.0, True),)),
    ((("client-id", "back"),), (("producer_byte_rate", 3.0, False),)),
]


def alter_structs(rows: list[Any], validate_only: bool) -> Any:
    return A(validate_only=validate_only, entries=[A.EntryData(
        entity=[A.EntityData(entity_type=t, entity_name=n) for t, n in pairs],
        ops=[A.OpData(key=k, value=v, remove=r) for k, v, r in ops]) for pairs, ops in rows])


@pytest.mark.parametrize("version", [0, 1])
@pytest.mark.parametrize("count", [0, 1, 3, len(ALTER_ROWS)])
def test_a_request_written_from_rows_is_the_one_written_from_structs(version: int, count: int) -> None:
    for validate_only in (False, True):
        rows = ALTER_ROWS[-count:] if count else []
        msg = request_with_rows(A, rows, validate_only=validate_only)
        want = alter_structs(rows, validate_only)
        assert msg.encode(version) == want.encode(version)
        assert msg == want and msg.entries == want.entries  # read: the structs, built from the rows


def test_a_row_that_cannot_be_written_fails_as_the_structs_would() -> None:
    rows: list[Any] = [((("client-id", "c"),), (("producer_byte_rate", "fast", False),))]
    with pytest.raises(ProtocolError, match=r"field Entries\[0\]\.Ops\[0\]\.Value") as got:
        request_with_rows(A, rows, validate_only=False).encode(1)
    with pytest.raises(ProtocolError) as want:
        alter_structs(rows, False).encode(1)
    assert str(got.value) == str(want.value)
