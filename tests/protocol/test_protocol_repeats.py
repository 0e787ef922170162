"""Repeated arrays: the encoder copies the bytes of a list object it has just encoded at the same place, and
the lazy decoder (what the client uses for responses) leaves a struct array whose bytes repeat the last one
decoded at the same place undecoded until its first read.  Both must be invisible: the same bytes, the same
objects, the same refusals as the plain codec.

Repeats are made by doubling every struct array of a generated message (the copies share their inner lists
with the originals, so the encoder's reuse runs) and decoding with the lazy threshold at one
element (so every repeated inner array is left undecoded).
"""

from __future__ import annotations

import copy
import pickle
import threading
import uuid
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kadmin.protocol import message_type
from tests.support.strategies import DECODE_CASES, budget, messages, mutated


def _doubled(msg: Any, done: set[int] | None = None) -> Any:
    """``msg`` with every struct array, at every depth, followed by the same elements again (shared objects,
    so that inner arrays repeat and are long enough for the unrolled short-array paths not to take them)."""
    done = set() if done is None else done
    if id(msg) in done:
        return msg
    done.add(id(msg))
    for f in msg._kfields:
        v = getattr(msg, f.attr)
        if f.spec.type.is_struct and not f.spec.type.is_array and v is not None:
            _doubled(v, done)
        if f.spec.type.is_array and f.spec.type.is_struct and v:
            for e in v:
                _doubled(e, done)
            setattr(msg, f.attr, v + v)
    return msg


def _decode(cls: Any, data: bytes, version: int, lazy: int) -> Any:
    try:
        return cls._codec(version, lazy=lazy)[1](data, 0, len(data))
    except Exception as exc:  # noqa: BLE001
        return type(exc)


@pytest.mark.parametrize(("name", "version"), DECODE_CASES, ids=[f"{n}-v{v}" for n, v in DECODE_CASES])
def test_repeats_encode_and_decode_as_without_the_shortcuts(name: str, version: int) -> None:
    cls = message_type(name)

    @budget(8)
    @given(st.data())
    def check(data: st.DataObject) -> None:
        msg = _doubled(data.draw(messages(cls, version, max_items=2)))
        frame = msg.encode(version)
        # The reuse copied bytes only where the object was the one encoded before: a deep copy (no shared
        # objects, so no reuse) encodes to the same bytes.
        assert copy.deepcopy(msg).encode(version) == frame
        for raw in (frame, data.draw(mutated(frame))):
            eager, lazy = _decode(cls, raw, version, 0), _decode(cls, raw, version, 1)
            if isinstance(eager, tuple):
                assert isinstance(lazy, tuple) and lazy[1] == eager[1]
                assert lazy[0] == eager[0]
                assert lazy[0].encode(version) == eager[0].encode(version)
            else:  # both refuse the bytes
                assert not isinstance(lazy, tuple), (eager, lazy)

    check()


def _created_topics(n: int) -> tuple[Any, bytes]:
    R = message_type("CreateTopicsResponse")
    configs = [R.CreatableTopicConfigs(name=f"config.{i}", value=str(i), read_only=False, config_source=5,
                                       is_sensitive=False) for i in range(30)]
    msg = R(topics=[R.CreatableTopicResult(name=f"t{i}", topic_id=uuid.UUID(int=i + 1), error_code=0, num_partitions=3,
                                           replication_factor=2, configs=configs) for i in range(n)])
    return R, msg.encode(7)


def test_a_repeated_array_is_built_on_first_read_and_then_is_a_plain_list() -> None:
    R, frame = _created_topics(5)
    msg = R.decode(frame, 7)
    got, end = R.decode_from(frame, 0, 7, lazy=True)
    assert end == len(frame)
    first, second = got.topics[0], got.topics[1]
    assert not hasattr(first, "_lazy")  # the first of a kind is decoded at once
    assert set(second._lazy) == {"configs"}  # the rest wait
    configs = second.configs
    assert type(configs) is list and len(configs) == 30 and configs == msg.topics[1].configs
    assert second.configs is configs and not hasattr(second, "_lazy")
    assert configs is not got.topics[2].configs  # every topic has lists of its own
    configs[0].value = "changed"
    assert got.topics[2].configs[0].value == "0"
    assert got != msg and got.topics[2:] == msg.topics[2:]


def test_copies_repr_json_and_pickled_state_of_a_lazy_message_hold_every_field() -> None:
    R, frame = _created_topics(4)
    plain = R.decode(frame, 7)
    for make in (copy.copy, copy.deepcopy, repr, lambda m: m.to_json(7)):
        got = R.decode_from(frame, 0, 7, lazy=True)[0]
        assert make(got) == make(plain)
    got = R.decode_from(frame, 0, 7, lazy=True)[0]
    topic = got.topics[3]
    state = topic.__getstate__()
    assert "_lazy" not in state[1] and len(state[1]["configs"]) == 30
    clone = copy.copy(topic)
    assert clone == plain.topics[3] and not hasattr(clone, "_lazy")
    # A struct class is reachable for pickle only through its message; the state itself must pickle.
    assert pickle.loads(pickle.dumps(state[1]["configs"][0].__getstate__())) == (None, plain.topics[3].configs[0]
                                                                                  .__getstate__()[1])


def test_two_threads_reading_a_lazy_array_get_the_same_list() -> None:
    R, frame = _created_topics(200)
    got = R.decode_from(frame, 0, 7, lazy=True)[0]
    seen: list[list[Any]] = [[], []]

    def read(i: int) -> None:
        seen[i].extend(t.configs for t in got.topics)

    threads = [threading.Thread(target=read, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(a is b for a, b in zip(seen[0], seen[1], strict=True))


def test_an_unknown_attribute_is_still_an_attribute_error() -> None:
    R, frame = _created_topics(3)
    got = R.decode_from(frame, 0, 7, lazy=True)[0]
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = got.topics[2].nope
    assert not hasattr(got.topics[0], "_lazy")


def test_the_encoder_reuses_a_shared_list_and_writes_the_same_bytes() -> None:
    R, frame = _created_topics(3)
    msg = R.decode(frame, 7)  # separate lists, equal contents: no reuse
    assert msg.encode(7) == frame


def test_only_fields_with_repeat_sites_get_the_lazy_descriptor_and_it_behaves_as_the_slot() -> None:
    from kadmin.protocol.compiler import LazyField
    from kadmin.protocol.message import Struct

    R, frame = _created_topics(5)
    R.decode_from(frame, 0, 7, lazy=True)
    assert isinstance(vars(R.CreatableTopicResult)["configs"], LazyField)
    assert not isinstance(vars(R.CreatableTopicResult)["name"], LazyField)
    # No __getattr__ on structs: it would slow every attribute read of every message (encode ~30%).
    assert "__getattr__" not in vars(Struct)
    t = R.decode(frame, 7).topics[0]  # eager: the descriptor just reads, writes and deletes the slot
    assert len(t.configs) == 30
    t.configs = []
    assert t.configs == []
    del t.configs
    with pytest.raises(AttributeError):
        _ = t.configs


def test_decoders_store_struct_arrays_through_the_raw_alias_of_the_slot() -> None:
    """The decoders write struct arrays through ``_raw_<field>`` (the slot's member descriptor), so a field that
    LazyField took over costs no Python call per store: the same list is read through either name, and an array
    left undecoded has an empty slot until the first read by name builds it."""
    from kadmin.protocol.compiler import LazyField, raw_alias

    R, frame = _created_topics(3)
    got = R.decode_from(frame, 0, 7, lazy=True)[0]
    assert isinstance(vars(R.CreatableTopicResult)["configs"], LazyField)
    first, second = got.topics[0], got.topics[1]
    assert getattr(first, raw_alias("configs")) is first.configs and got._raw_topics is got.topics
    with pytest.raises(AttributeError):
        getattr(second, raw_alias("configs"))
    built = second.configs
    assert getattr(second, raw_alias("configs")) is built and len(built) == 30


@pytest.mark.parametrize(("name", "version"), DECODE_CASES[::7], ids=[f"{n}-v{v}" for n, v in DECODE_CASES[::7]])
def test_from_values_makes_what_the_keyword_constructor_makes(name: str, version: int) -> None:
    cls = message_type(name)

    @budget(5)
    @given(st.data())
    def check(data: st.DataObject) -> None:
        msg = data.draw(messages(cls, version, unknown_tags=False, max_items=2))
        seen: list[Any] = []

        def walk(o: Any) -> None:
            seen.append(o)
            for f in o._kfields:
                v = getattr(o, f.attr)
                if f.spec.type.is_struct and not f.spec.type.is_array and v is not None:
                    walk(v)
                elif f.spec.type.is_array and f.spec.type.is_struct and v:
                    for e in v:
                        walk(e)

        walk(msg)
        for o in seen:
            values = [getattr(o, f.attr) for f in o._kfields]
            made = type(o)._from_values(*values)
            assert made == type(o)(**{f.attr: v for f, v in zip(o._kfields, values, strict=True)})
            assert made == o and made.unknown_tagged_fields == {}

    check()
