"""How the generated decoders allocate structs: ``new(*args)`` with a prebuilt ``(cls,)`` for one struct (the
message itself, a struct field, each element of an unrolled one- or two-element array) and
``starmap(new, repeat(args, n))`` for the elements of an array loop, the lazily decoded arrays of the client's
decoder included (see ``VersionCodegen.new_args``).  A wrong or mixed-up ``args`` would build objects of another
class that still hold the right values, so every struct reached is checked to be exactly its field's class, and
the whole answer to equal what the tracing decoder reads."""

from __future__ import annotations

import pickle
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from kadmin.protocol import message_type
from tests.support.decoder_checks import QUOTAS, fast_and_traced, quotas_message

GROUPS: Any = message_type("DescribeGroupsResponse")
METADATA: Any = message_type("MetadataResponse")


def _structs(obj: Any, expected: type, path: str = "") -> Iterator[tuple[str, type, type]]:
    """(path, class found, class the schema gives) for ``obj`` and every struct under it."""
    yield path or "<top>", type(obj), expected
    for f in obj._kfields:
        if not f.spec.type.is_struct:
            continue
        v = getattr(obj, f.attr)
        if v is None:
            continue
        if f.spec.type.is_array:
            for i, e in enumerate(v):
                yield from _structs(e, f.struct_cls, f"{path}.{f.attr}[{i}]")
        else:
            yield from _structs(v, f.struct_cls, f"{path}.{f.attr}")


def assert_exact_classes(obj: Any, cls: type) -> None:
    wrong = [(p, found, want) for p, found, want in _structs(obj, cls) if found is not want]
    assert not wrong, wrong[:3]


def _entries(sizes: list[tuple[int, int]]) -> list[tuple[list[tuple[str, str | None]], list[tuple[str, float]]]]:
    """Quota entries with the given (entity components, values) counts: 1 and 2 take the unrolled paths, 3 and
    more the array loop."""
    kinds = ["user", "client-id", "ip", "extra"]
    return [([(kinds[k % 4], f"name-{i}-{k}") for k in range(ne)],
             [(f"key_{k}", float(i * 10 + k)) for k in range(nv)]) for i, (ne, nv) in enumerate(sizes)]


@pytest.mark.parametrize("version", [0, 1])
@pytest.mark.parametrize("sizes", [
    [(1, 1)], [(2, 2)], [(3, 3)], [(2, 1), (1, 2), (3, 2), (2, 3), (2, 2), (2, 2), (4, 1)],
], ids=["one-one", "two-two", "loop", "mixed"])
def test_quota_answers_are_built_of_the_schema_classes(version: int, sizes: list[tuple[int, int]]) -> None:
    msg = quotas_message(_entries(sizes))
    fast, traced = fast_and_traced(QUOTAS, msg.encode(version), version)
    assert fast == traced == msg
    assert_exact_classes(fast, QUOTAS)
    # Each class appears where the schema puts it: an entity component is never a value, and the reverse.
    assert {type(e) for entry in fast.entries for e in entry.entity} == {QUOTAS.EntityData}
    assert {type(v) for entry in fast.entries for v in entry.values} == {QUOTAS.ValueData}


@pytest.mark.parametrize("members", [0, 1, 2, 3, 10])
def test_group_answers_are_built_of_the_schema_classes(members: int) -> None:
    r = GROUPS
    msg = r(throttle_time_ms=0, groups=[r.DescribedGroup(
        error_code=0, group_id=f"group-{g}", group_state="Stable", protocol_type="consumer", protocol_data="range",
        members=[r.DescribedGroupMember(member_id=f"m-{g}-{m}", group_instance_id=None if m % 2 else f"i-{m}",
                                        client_id=f"client-{m}", client_host="/10.0.0.1", member_metadata=b"\x01",
                                        member_assignment=b"\x80\x81")
                 for m in range(members)]) for g in range(3)])
    for version in (0, 5):
        fast, traced = fast_and_traced(GROUPS, msg.encode(version), version)
        assert fast == traced
        assert_exact_classes(fast, GROUPS)


@pytest.mark.parametrize("version", [0, 1])
def test_lazily_decoded_arrays_are_built_of_the_schema_classes(version: int) -> None:
    # Every entry has the same five entity components: from the second entry on, the client's (lazy) decoder
    # leaves the array undecoded and builds it on first read, from the first entry's bytes.
    entity = [("user", "u"), ("client-id", "c"), ("ip", "1.2.3.4"), ("user", "v"), ("client-id", "d")]
    msg = quotas_message([(entity, [("key", float(i))]) for i in range(4)])
    frame = msg.encode(version)
    lazy, end = QUOTAS.decode_from(frame, 0, version, lazy=True)
    assert end == len(frame)
    assert "entity" in getattr(lazy.entries[1], "_lazy", {}), "the repeated array was not left to the lazy path"
    assert_exact_classes(lazy, QUOTAS)  # reads every field, so the lazy arrays are built here
    assert lazy == msg


@pytest.mark.parametrize("version", [10, 12])
def test_topic_ids_are_the_uuids_uuid_would_make(version: int) -> None:
    # The fast decoder builds a topic id by setting UUID's two slots itself (compiler._uuid_of_bytes); the
    # tracing decoder calls uuid.UUID(bytes=...).  Everything a caller can see must be the same: the class, the
    # value, is_safe (which UUID.__eq__ does not compare), the hash, the text, a pickle round trip.
    ids = [uuid.UUID(int=0), uuid.UUID(int=1), uuid.UUID(int=2**128 - 1),
           uuid.UUID("6ba7b810-9dad-11d1-80b4-00c04fd430c8")]
    r = METADATA
    msg = r(throttle_time_ms=0, cluster_id="c", controller_id=1, brokers=[], topics=[
        r.MetadataResponseTopic(error_code=0, name=f"t{i}", topic_id=tid, is_internal=False, partitions=[])
        for i, tid in enumerate(ids)])
    fast, traced = fast_and_traced(METADATA, msg.encode(version), version)
    assert fast == traced == msg
    assert_exact_classes(fast, METADATA)
    for got, ref, want in zip([t.topic_id for t in fast.topics], [t.topic_id for t in traced.topics], ids,
                              strict=True):
        assert type(got) is uuid.UUID
        assert got == ref == want and got.int == want.int
        assert got.is_safe is ref.is_safe is uuid.SafeUUID.unknown
        assert hash(got) == hash(want) and str(got) == str(want) and repr(got) == repr(want)
        assert pickle.loads(pickle.dumps(got)) == want
