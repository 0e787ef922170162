"""FakeCluster client quotas: DescribeClientQuotas / AlterClientQuotas v0-v1 and Kafka's validation rules."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import pytest

from kadmin.protocol import message_type
from kadmin.testing import FakeCluster
from kadmin.testing.rawclient import RawConnection

pytestmark = pytest.mark.fake_cluster(brokers=2)

INVALID_REQUEST = 42
UNSUPPORTED_VERSION = 35
AlterReq = message_type(49, "request")
DescReq = message_type(48, "request")

Entity = dict[str, str | None]


@pytest.fixture
def conn(cluster: FakeCluster) -> Iterator[RawConnection]:
    host, port = cluster.addresses[2]
    with RawConnection(host, port) as c:
        yield c


def entry(entity: Entity | list[tuple[str, str | None]], ops: list[tuple[str, float | None]]) -> Any:
    pairs = list(entity.items()) if isinstance(entity, dict) else entity
    return AlterReq.EntryData(
        entity=[AlterReq.EntityData(entity_type=t, entity_name=n) for t, n in pairs],
        ops=[AlterReq.OpData(key=k, value=0.0 if v is None else v, remove=v is None) for k, v in ops])


def alter(conn: RawConnection, entries: list[Any], validate_only: bool = False,
          version: int = 1) -> list[tuple[int, str | None]]:
    resp = conn.request(49, version, entries=entries, validate_only=validate_only)
    assert len(resp.entries) == len(entries)
    return [(e.error_code, e.error_message) for e in resp.entries]


def alter_one(conn: RawConnection, entity: Entity | list[tuple[str, str | None]], key: str,
              value: float | None) -> tuple[int, str | None]:
    return alter(conn, [entry(entity, [(key, value)])])[0]


def describe(conn: RawConnection, components: list[tuple[str, int, str | None]], strict: bool = False,
             version: int = 1) -> Any:
    return conn.request(48, version, strict=strict, components=[
        DescReq.ComponentData(entity_type=t, match_type=m, match=n) for t, m, n in components])


def entries_of(resp: Any) -> dict[tuple[tuple[str, str | None], ...], dict[str, float]]:
    assert resp.error_code == 0, resp.error_message
    return {tuple((e.entity_type, e.entity_name) for e in x.entity): {v.key: v.value for v in x.values}
            for x in resp.entries}


@pytest.mark.parametrize("version", [0, 1])
def test_alter_then_describe_round_trip(cluster: FakeCluster, conn: RawConnection, version: int) -> None:
    codes = alter(conn, [
        entry({"user": "alice"}, [("producer_byte_rate", 1024.0), ("request_percentage", 12.5)]),
        entry({"user": "alice", "client-id": "etl"}, [("consumer_byte_rate", 2048.0)]),
        entry({"user": None}, [("controller_mutation_rate", 0.5)]),
        entry({"ip": "10.1.2.3"}, [("connection_creation_rate", 7.0)]),
    ], version=version)
    assert codes == [(0, None)] * 4
    assert cluster.quotas == {
        (("user", "alice"),): {"producer_byte_rate": 1024.0, "request_percentage": 12.5},
        (("client-id", "etl"), ("user", "alice")): {"consumer_byte_rate": 2048.0},
        (("user", None),): {"controller_mutation_rate": 0.5},
        (("ip", "10.1.2.3"),): {"connection_creation_rate": 7.0},
    }
    everything = entries_of(describe(conn, [], version=version))
    assert len(everything) == 4
    assert everything[(("user", "alice"),)] == {"producer_byte_rate": 1024.0, "request_percentage": 12.5}


def test_remove_ops_and_empty_entities_disappear(cluster: FakeCluster, conn: RawConnection) -> None:
    cluster.set_quota({"client-id": "c"}, "producer_byte_rate", 10)
    cluster.set_quota({"client-id": "c"}, "consumer_byte_rate", 20)
    assert alter(conn, [entry({"client-id": "c"}, [("producer_byte_rate", None)])]) == [(0, None)]
    assert cluster.quotas == {(("client-id", "c"),): {"consumer_byte_rate": 20.0}}
    # Removing a key that is not set, even one that is not a quota key at all, is accepted (a no-op).
    assert alter(conn, [entry({"client-id": "c"}, [("consumer_byte_rate", None), ("bogus_key", None)])]) == [(0, None)]
    assert cluster.quotas == {}


def test_validate_only_changes_nothing(cluster: FakeCluster, conn: RawConnection) -> None:
    codes = alter(conn, [entry({"user": "bob"}, [("producer_byte_rate", 100.0)]),
                         entry({"user": "bob2"}, [("producer_byte_rate", 1.5)])], validate_only=True)
    assert codes[0] == (0, None) and codes[1][0] == INVALID_REQUEST
    assert cluster.quotas == {}


@pytest.mark.parametrize(("entity", "key", "value", "message"), [
    ({"ip": "1.2.3.4", "user": "u"}, "connection_creation_rate", 1.0,
     "Invalid quota entity combination, IP entity should not be used with user/client ID entity."),
    ({"ip": "1.2.3.4", "client-id": "c"}, "producer_byte_rate", 1.0, "Invalid quota entity combination"),
    ([("user", "a"), ("user", "b")], "producer_byte_rate", 1.0,
     "Invalid client quota entity, duplicate entity entry user"),
    ([], "producer_byte_rate", 1.0, "Invalid empty client quota entity"),
    ({"group": "g"}, "producer_byte_rate", 1.0, "Unhandled client quota entity type: group"),
    ({"user": ""}, "producer_byte_rate", 1.0, "Empty user not supported"),
    ({"ip": "not an ip"}, "connection_creation_rate", 1.0, "not an ip is not a valid IP or resolvable host."),
    ({"user": "u"}, "unknown_quota", 1.0, "Invalid configuration key unknown_quota"),
    ({"ip": "1.2.3.4"}, "producer_byte_rate", 1.0, "Invalid configuration key producer_byte_rate"),
    ({"user": "u"}, "connection_creation_rate", 1.0, "Invalid configuration key connection_creation_rate"),
    ({"user": "u"}, "producer_byte_rate", 1.5, "producer_byte_rate cannot be a fractional value."),
    ({"client-id": "c"}, "consumer_byte_rate", 100.25, "consumer_byte_rate cannot be a fractional value."),
    ({"ip": None}, "connection_creation_rate", 2.5, "connection_creation_rate cannot be a fractional value."),
    ({"user": "u"}, "producer_byte_rate", -5.0, "Quota producer_byte_rate must be non-negative"),
    ({"user": "u"}, "request_percentage", -0.5, "Quota request_percentage must be non-negative"),
    ({"user": "u"}, "request_percentage", math.nan, "Quota request_percentage must be a finite number"),
    ({"user": "u"}, "controller_mutation_rate", math.inf, "must be a finite number"),
    ({"ip": "::1"}, "connection_creation_rate", 2.0**31, "Proposed value for connection_creation_rate is too large "
                                                         "for an INT."),
    ({"user": "u"}, "producer_byte_rate", 2.0**64, "Proposed value for producer_byte_rate is too large for a LONG."),
])
def test_alter_rejections(cluster: FakeCluster, conn: RawConnection, entity: Any, key: str, value: float,
                          message: str) -> None:
    code, msg = alter_one(conn, entity, key, value)
    assert code == INVALID_REQUEST
    assert msg is not None and message in msg
    assert cluster.quotas == {}


@pytest.mark.parametrize(("entity", "key", "value"), [
    ({"user": "u"}, "producer_byte_rate", 1048576.0),
    ({"user": "u"}, "producer_byte_rate", 1000.0000001),  # within Kafka's 1e-6 tolerance
    ({"client-id": None}, "consumer_byte_rate", 1.0),
    ({"user": "u"}, "request_percentage", 0.001),
    ({"user": "u", "client-id": "c"}, "controller_mutation_rate", 12345.678),
    ({"ip": "127.0.0.1"}, "connection_creation_rate", 100.0),
    ({"ip": "localhost"}, "connection_creation_rate", 1.0),
    ({"ip": None}, "connection_creation_rate", 3.0),
])
def test_alter_accepts(cluster: FakeCluster, conn: RawConnection, entity: Entity, key: str, value: float) -> None:
    assert alter_one(conn, entity, key, value) == (0, None)
    assert list(cluster.quotas.values()) == [{key: value}]


def test_errors_are_per_entry(cluster: FakeCluster, conn: RawConnection) -> None:
    codes = alter(conn, [entry({"user": "ok"}, [("producer_byte_rate", 5.0)]),
                         entry({"user": "bad"}, [("producer_byte_rate", 5.0), ("request_percentage", -1.0)]),
                         entry({"user": "ok"}, [("consumer_byte_rate", 5.0)]),
                         entry({"user": "dup"}, [("producer_byte_rate", 5.0), ("producer_byte_rate", 6.0)])])
    assert codes[0] == (0, None)
    assert codes[1][0] == INVALID_REQUEST  # one bad op fails the whole entry...
    assert codes[2][0] == INVALID_REQUEST and "Ignoring duplicate entity" in (codes[2][1] or "")
    assert codes[3][0] == INVALID_REQUEST and "Duplicate quota key producer_byte_rate" in (codes[3][1] or "")
    assert cluster.quotas == {(("user", "ok"),): {"producer_byte_rate": 5.0}}  # ...and only that entry


@pytest.fixture
def seeded(cluster: FakeCluster) -> FakeCluster:
    cluster.quotas = {
        (("user", "alice"),): {"producer_byte_rate": 1.0},
        (("user", None),): {"producer_byte_rate": 2.0},
        (("user", "alice"), ("client-id", "c1")): {"consumer_byte_rate": 3.0},
        (("user", None), ("client-id", None)): {"consumer_byte_rate": 4.0},
        (("client-id", "c1"),): {"request_percentage": 5.0},
        (("ip", "10.0.0.1"),): {"connection_creation_rate": 6.0},
        (("ip", None),): {"connection_creation_rate": 7.0},
    }
    return cluster


def names(resp: Any) -> set[tuple[tuple[str, str | None], ...]]:
    return {tuple(sorted(k)) for k in entries_of(resp)}


def test_describe_match_types(seeded: FakeCluster, conn: RawConnection) -> None:
    exact = names(describe(conn, [("user", 0, "alice")]))
    assert exact == {(("user", "alice"),), (("client-id", "c1"), ("user", "alice"))}
    default = names(describe(conn, [("user", 1, None)]))
    assert default == {(("user", None),), (("client-id", None), ("user", None))}
    specified = names(describe(conn, [("user", 2, None)]))
    assert len(specified) == 4
    ip_any = names(describe(conn, [("ip", 2, None)]))
    assert ip_any == {(("ip", "10.0.0.1"),), (("ip", None),)}


def test_describe_strict(seeded: FakeCluster, conn: RawConnection) -> None:
    assert names(describe(conn, [("user", 0, "alice")], strict=True)) == {(("user", "alice"),)}
    assert names(describe(conn, [("user", 2, None), ("client-id", 2, None)], strict=True)) == {
        (("client-id", "c1"), ("user", "alice")), (("client-id", None), ("user", None))}
    assert names(describe(conn, [("client-id", 0, "c1")], strict=True)) == {(("client-id", "c1"),)}
    assert len(names(describe(conn, [], strict=True))) == 0
    assert len(names(describe(conn, [], strict=False))) == 7


@pytest.mark.parametrize(("components", "code", "message"), [
    ([("user", 0, "a"), ("user", 1, None)], INVALID_REQUEST, "Entity type user cannot appear more than once"),
    ([("", 2, None)], INVALID_REQUEST, "Invalid empty entity type."),
    ([("group", 2, None)], UNSUPPORTED_VERSION, "Unsupported entity type group"),
    ([("ip", 2, None), ("user", 0, "a")], INVALID_REQUEST, "IP filter component should not be used"),
    ([("user", 0, None)], INVALID_REQUEST, "needs a name"),
    ([("user", 5, None)], INVALID_REQUEST, "Unexpected match type: 5"),
])
def test_describe_rejections(seeded: FakeCluster, conn: RawConnection, components: list[Any], code: int,
                             message: str) -> None:
    resp = describe(conn, components)
    assert resp.error_code == code and message in (resp.error_message or "")
    assert resp.entries is None


def test_quota_apis_absent_before_2_6() -> None:
    with FakeCluster(brokers=1, versions="2.2") as c:
        host, port = c.addresses[1]
        with RawConnection(host, port) as conn:
            conn.send(49, 0, AlterReq(entries=[], validate_only=False))
            assert conn.is_closed()


def test_quota_v1_absent_on_2_6() -> None:
    with FakeCluster(brokers=1, versions="2.6") as c:
        host, port = c.addresses[1]
        with RawConnection(host, port) as conn:
            assert conn.request(48, 0, components=[], strict=False).error_code == 0
            conn.send(48, 1, DescReq(components=[], strict=False))
            assert conn.is_closed()


@pytest.mark.parametrize(("release", "value", "refused"), [
    ("3.9", 0.0, None),  # ZooKeeper mode stored 0
    ("3.9", -1.0, "must be non-negative"),
    ("4.0", 0.0, "Quota controller_mutation_rate must be greater than 0"),  # KRaft: KAFKA-14943
    ("4.0", -1.0, "Quota controller_mutation_rate must be greater than 0"),
    ("4.0", 0.25, None),
])
def test_zero_is_refused_by_kraft_brokers_only(release: str, value: float, refused: str | None) -> None:
    with FakeCluster(brokers=1, versions=release) as c:
        host, port = c.addresses[1]
        with RawConnection(host, port) as raw:
            code, msg = alter_one(raw, {"user": "u"}, "controller_mutation_rate", value)
        if refused is None:
            assert (code, c.quotas) == (0, {(("user", "u"),): {"controller_mutation_rate": value}})
        else:
            assert code == INVALID_REQUEST and msg is not None and refused in msg
            assert c.quotas == {}
