"""Pure tests of kadmin.quotas: entity/filter types, alteration validation, precedence resolution.

No network: resolution runs against an in-memory "describe" that matches filters the way Kafka's brokers do
(``ClientQuotaFilter.matches``), so the precedence order and the choice of filters are tested before (and
independently of) the fake cluster.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Mapping

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kadmin.quotas import (
    CLIENT_ID,
    DEFAULT,
    IP,
    USER,
    ClientQuotaAlteration,
    ClientQuotaEntity,
    ClientQuotaFilter,
    ClientQuotaFilterComponent,
    MatchType,
    Remove,
    Set,
    precedence,
    precedence_levels,
    resolve_client_quotas,
    resolve_filters,
    resolve_from,
    validate_alterations,
)

E = ClientQuotaEntity
C = ClientQuotaFilterComponent
F = ClientQuotaFilter


# --- entities ----------------------------------------------------------------------------------------------


def test_entity_equality_ignores_component_order_and_matches_keyword_form() -> None:
    a = E({"client-id": None, "user": "alice"})
    b = E([("user", "alice"), ("client-id", None)])
    c = E.of(user="alice", client_id=DEFAULT)
    assert a == b == c
    assert hash(a) == hash(b) == hash(c)
    assert a.components == (("user", "alice"), ("client-id", None))
    assert len({a, b, c}) == 1
    assert E({"user": "alice"}) != E({"user": "alice", "client-id": None})
    assert E({"user": None}) != E({"user": "<default>"})


def test_entity_mapping_access() -> None:
    e = E({"ip": "10.0.0.1"})
    assert dict(e) == {"ip": "10.0.0.1"}
    assert e["ip"] == "10.0.0.1"
    assert "ip" in e and "user" not in e
    assert e.types == ("ip",)
    assert isinstance(e, Mapping) and list(e.values()) == ["10.0.0.1"] and list(e) == ["ip"]
    with pytest.raises(KeyError):
        e["user"]
    d = E({"user": None})
    assert d.is_default("user")
    assert not E({"user": "x"}).is_default("user")
    assert E.of() == E({})
    assert len(E.of()) == 0


def test_entity_str_quotes_names_and_orders_types() -> None:
    e = E({"zeta": "z", "client-id": "app", "user": "<default>"})
    assert str(e) == "user='<default>', client-id='app', zeta='z'"
    assert str(E({"user": None, "client-id": None})) == "user=<default>, client-id=<default>"
    assert repr(E({"client-id": "a", "user": None})) == "ClientQuotaEntity({'user': None, 'client-id': 'a'})"


def test_entity_sorting_is_total_and_stable() -> None:
    ents = [E({"client-id": "b"}), E({"user": "bob"}), E({"user": None}), E({"user": "alice", "client-id": "x"}),
            E({"user": "alice"}), E({"ip": None}), E({"ip": "1.2.3.4"}), E({"user": "alice", "client-id": None})]
    out = sorted(ents)
    assert out == sorted(reversed(ents))
    assert out[0] == E({"user": None})  # defaults before names of the same type
    assert out.index(E({"user": "alice"})) < out.index(E({"user": "alice", "client-id": None})) \
        < out.index(E({"user": "alice", "client-id": "x"})) < out.index(E({"user": "bob"}))
    assert out[-2:] == [E({"ip": None}), E({"ip": "1.2.3.4"})]


@pytest.mark.parametrize(("arg", "exc", "text"), [
    ([("user", "a"), ("user", "b")], ValueError, "'user' appears twice"),
    ({1: "a"}, TypeError, "entity type must be a string"),
    ({"": "a"}, ValueError, "entity type is empty"),
    ({"user": 5}, TypeError, "user name must be a string or None"),
    ("user", TypeError, "not a string"),
    ([("user",)], TypeError, "(entity_type, name) pairs"),
])
def test_entity_constructor_rejects(arg: object, exc: type[Exception], text: str) -> None:
    with pytest.raises(exc, match=text.replace("(", r"\(").replace(")", r"\)")):
        E(arg)  # type: ignore[arg-type]


# --- filters -----------------------------------------------------------------------------------------------


def test_filter_components() -> None:
    assert C.exact("user", "a") == C("user", MatchType.EXACT, "a")
    assert C.default("user").match_type is MatchType.DEFAULT and C.default("user").name is None
    assert C.any("ip").match_type == 2
    assert C("user", 1).match_type is MatchType.DEFAULT  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="exact match needs a name"):
        C("user", MatchType.EXACT, None)
    with pytest.raises(ValueError, match="non-empty"):
        C.exact("user", "")
    with pytest.raises(ValueError, match="takes no name"):
        C("user", MatchType.DEFAULT, "x")
    with pytest.raises(ValueError, match="match type 3"):
        C("user", 3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="entity type is empty"):
        C.any("")
    # Java's ClientQuotaFilter.containsOnly: the strict filter of these components.
    assert F.contains_only([C.exact("user", "a"), C.any("client-id")]) == \
        F([C.exact("user", "a"), C.any("client-id")], strict=True)


def test_filter_rejects_what_brokers_reject() -> None:
    with pytest.raises(ValueError, match="'user' appears more than once"):
        F([C.exact("user", "a"), C.default("user")])
    with pytest.raises(ValueError, match="ip component cannot be combined"):
        F([C.exact("ip", "1.1.1.1"), C.any("client-id")])
    with pytest.raises(TypeError, match="wrap the single component"):
        F(C.any("user"))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="strict must be a bool"):
        F([], strict=1)  # type: ignore[arg-type]
    assert F.all() == F([], strict=False)
    assert F.for_entity(E({"user": "a", "client-id": None})) == \
        F([C.exact("user", "a"), C.default("client-id")], strict=True)


UA, UAC, UAD, UD, UDC, CX, CD, IPX = (E({"user": "a"}), E({"user": "a", "client-id": "x"}),
                                      E({"user": "a", "client-id": None}), E({"user": None}),
                                      E({"user": None, "client-id": "x"}), E({"client-id": "x"}),
                                      E({"client-id": None}), E({"ip": "1.1.1.1"}))
ALL = [UA, UAC, UAD, UD, UDC, CX, CD, IPX]


@pytest.mark.parametrize(("flt", "expected"), [
    (F.all(), ALL),
    (F([], strict=True), []),
    (F([C.exact("user", "a")]), [UA, UAC, UAD]),
    (F([C.exact("user", "a")], strict=True), [UA]),
    (F([C.default("user")]), [UD, UDC]),
    (F([C.any("user")]), [UA, UAC, UAD, UD, UDC]),
    (F([C.any("user")], strict=True), [UA, UD]),
    (F([C.any("user"), C.exact("client-id", "x")], strict=True), [UAC, UDC]),
    (F([C.default("client-id")], strict=True), [CD]),
    (F([C.any("client-id")]), [UAC, UAD, UDC, CX, CD]),
    (F([C.exact("ip", "1.1.1.1")]), [IPX]),
])
def test_filter_matching_follows_kafka(flt: ClientQuotaFilter, expected: list[ClientQuotaEntity]) -> None:
    assert [e for e in ALL if flt.matches(e)] == expected


# --- alteration validation ---------------------------------------------------------------------------------

ALICE = E({"user": "alice"})
IP1 = E({"ip": "10.0.0.1"})


def alter(entity: ClientQuotaEntity, *ops: Set | Remove, allow_unknown_keys: bool = False) -> None:
    validate_alterations([ClientQuotaAlteration(entity, list(ops))], allow_unknown_keys=allow_unknown_keys)


BAD = [
    ("nan", ALICE, [Set("request_percentage", math.nan)], ValueError, "NaN"),
    ("inf", ALICE, [Set("request_percentage", math.inf)], ValueError, "infinite"),
    ("-inf", ALICE, [Set("controller_mutation_rate", -math.inf)], ValueError, "infinite"),
    ("negative", ALICE, [Set("request_percentage", -1.5)], ValueError, "negative"),
    ("negative int", ALICE, [Set("producer_byte_rate", -1)], ValueError, "negative"),
    ("negative zero", ALICE, [Set("request_percentage", -0.0)], ValueError, "negative"),
    ("fractional producer", ALICE, [Set("producer_byte_rate", 1024.5)], ValueError, "whole number"),
    ("fractional consumer", ALICE, [Set("consumer_byte_rate", 0.25)], ValueError, "whole number"),
    ("tiny fractional consumer", ALICE, [Set("consumer_byte_rate", 1e-300)], ValueError, "whole number"),
    ("fractional connections", IP1, [Set("connection_creation_rate", 2.5)], ValueError, "whole number"),
    ("int overflow", IP1, [Set("connection_creation_rate", 2.0**31)], ValueError, "Java int maximum"),
    ("long overflow", ALICE, [Set("producer_byte_rate", 2.0**63)], ValueError, "Java long maximum"),
    ("bool", ALICE, [Set("producer_byte_rate", True)], TypeError, "must be a float"),
    ("string", ALICE, [Set("producer_byte_rate", "100")], TypeError, "must be a float"),  # type: ignore[arg-type]
    ("None is not remove", ALICE, [Set("producer_byte_rate", None)], TypeError,  # type: ignore[arg-type]
     "must be a float"),
    ("inexact int", ALICE, [Set("producer_byte_rate", 2**53 + 1)], ValueError, "no exact float64"),
    ("huge int", ALICE, [Set("producer_byte_rate", 10**400)], ValueError, "too large"),
    ("ip key on user", ALICE, [Set("connection_creation_rate", 5.0)], ValueError, "applies to ip entities only"),
    ("user key on ip", IP1, [Set("producer_byte_rate", 5.0)], ValueError, "applies to user/client-id"),
    ("remove ip key on user", ALICE, [Remove("connection_creation_rate")], ValueError, "applies to ip"),
    ("unknown key", ALICE, [Set("producer_byte_rat", 5.0)], ValueError, "allow_unknown_keys=True"),
    ("remove unknown key", ALICE, [Remove("producer_byte_rat")], ValueError, "allow_unknown_keys=True"),
    ("unknown entity type", E({"group": "g"}), [Set("producer_byte_rate", 5.0)], ValueError,
     "entity type kadmin does not know"),
    ("empty entity", E({}), [Set("producer_byte_rate", 5.0)], ValueError, "at least one component"),
    ("ip with user", E({"ip": "1.1.1.1", "user": "a"}), [Set("connection_creation_rate", 5.0)], ValueError,
     "cannot be combined"),
    ("ip with client-id", E({"ip": None, "client-id": "c"}), [Set("request_percentage", 5.0)], ValueError,
     "cannot be combined"),
    ("empty name", E({"user": "", "client-id": "c"}), [Set("request_percentage", 5.0)], ValueError,
     "user name is empty"),
    ("same key twice", ALICE, [Set("producer_byte_rate", 1.0), Set("producer_byte_rate", 2.0)], ValueError,
     "more than once"),
    ("set and remove same key", ALICE, [Set("producer_byte_rate", 1.0), Remove("producer_byte_rate")],
     ValueError, "more than once"),
    ("no ops", ALICE, [], ValueError, "no operations"),
    ("empty key", ALICE, [Set("", 1.0)], TypeError, "non-empty string"),
    ("op of wrong type", ALICE, [("producer_byte_rate", 1.0)], TypeError, "Set(key, value) or Remove(key)"),
]


@pytest.mark.parametrize(("entity", "ops", "exc", "text"), [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_alterations_are_refused_naming_the_entity(entity: ClientQuotaEntity, ops: list[object],
                                                       exc: type[Exception], text: str) -> None:
    with pytest.raises(exc) as info:
        alter(entity, *ops)  # type: ignore[arg-type]
    assert text in str(info.value)
    assert str(entity) in str(info.value)


def test_known_key_on_wrong_entity_is_refused_even_with_allow_unknown_keys() -> None:
    with pytest.raises(ValueError, match="applies to ip entities only"):
        alter(ALICE, Set("connection_creation_rate", 1.0), allow_unknown_keys=True)


def test_unknown_keys_and_entity_types_pass_only_when_allowed() -> None:
    alter(ALICE, Set("future_rate", 0.5), allow_unknown_keys=True)
    alter(E({"group": "g"}), Set("future_rate", 0.5), Remove("other"), allow_unknown_keys=True)
    # A known key name keeps its value rules even on an entity type kadmin does not know.
    with pytest.raises(ValueError, match="whole number"):
        alter(E({"group": "g"}), Set("producer_byte_rate", 0.5), allow_unknown_keys=True)
    with pytest.raises(ValueError, match="allow_unknown_keys"):
        alter(E({"group": "g"}), Remove("other"))


def test_values_are_normalized_to_floats() -> None:
    a = ClientQuotaAlteration(E.of(user="u", client_id="c"),
                              [Set("producer_byte_rate", 1024), Set("request_percentage", 12.5),
                               Remove("consumer_byte_rate")])
    assert a.ops == (Set("producer_byte_rate", 1024.0), Set("request_percentage", 12.5),
                     Remove("consumer_byte_rate"))
    assert type(a.ops[0].value) is float
    # Integral within the Java long range, and fractions where Kafka stores a double.
    for entity, op in [(ALICE, Set("producer_byte_rate", float(2**53 + 2))),
                       (ALICE, Set("producer_byte_rate", 2.0**63 - 1024)),
                       (IP1, Set("connection_creation_rate", 2.0**31 - 1)),
                       (E({"client-id": None}), Set("controller_mutation_rate", 1e-300)),
                       (E({"user": None}), Set("request_percentage", 0.0)),
                       (ALICE, Set("request_percentage", 1234.5678))]:
        alter(entity, op)


def test_call_level_checks() -> None:
    a1 = ClientQuotaAlteration(ALICE, [Set("producer_byte_rate", 1.0)])
    a2 = ClientQuotaAlteration(E({"user": "alice"}), [Remove("consumer_byte_rate")])
    with pytest.raises(ValueError, match=r"quota entity user='alice' appears in more than one alteration"):
        validate_alterations([a1, a2])
    with pytest.raises(ValueError, match="empty"):
        validate_alterations([])
    with pytest.raises(TypeError, match="wrap the single one"):
        validate_alterations(a1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="ClientQuotaAlteration"):
        validate_alterations([{"user": "alice"}])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="no implicit 'None means remove'"):
        ClientQuotaAlteration(ALICE, {"producer_byte_rate": None})  # type: ignore[dict-item]
    with pytest.raises(TypeError, match="must be a ClientQuotaEntity"):
        ClientQuotaAlteration({"user": "a"}, [Remove("producer_byte_rate")])  # type: ignore[arg-type]
    assert validate_alterations(iter([a1])) == [a1]


# --- precedence --------------------------------------------------------------------------------------------

U, CID = "alice", "app"
LEVELS = [  # Kafka's documented order for user alice, client-id app
    E({"user": U, "client-id": CID}),
    E({"user": U, "client-id": None}),
    E({"user": U}),
    E({"user": None, "client-id": CID}),
    E({"user": None, "client-id": None}),
    E({"user": None}),
    E({"client-id": CID}),
    E({"client-id": None}),
]
# Entities that must never apply to (alice, app), several of which the non-strict filters do return.
NOISE = [E({"user": U, "client-id": "other"}), E({"user": None, "client-id": "other"}), E({"user": "bob"}),
         E({"user": "bob", "client-id": CID}), E({"client-id": "other"}), E({"ip": None}),
         E({"user": "bob", "client-id": None})]


class FakeDescribe:
    """Answers like a broker: every stored entity the filter matches; counts requests."""

    def __init__(self, store: Mapping[ClientQuotaEntity, Mapping[str, float]]) -> None:
        self.store = store
        self.filters: list[ClientQuotaFilter] = []

    async def __call__(self, flt: ClientQuotaFilter) -> dict[ClientQuotaEntity, dict[str, float]]:
        self.filters.append(flt)
        return {e: dict(v) for e, v in self.store.items() if flt.matches(e)}


def test_precedence_order_is_kafkas() -> None:
    assert precedence(U, CID) == LEVELS
    assert [n for n, _ in precedence_levels(U, CID)] == list(range(1, 9))
    assert precedence(U, None) == [LEVELS[1], LEVELS[2], LEVELS[4], LEVELS[5], LEVELS[7]]
    assert [n for n, _ in precedence_levels(None, CID)] == [4, 5, 6, 7, 8]
    assert [n for n, _ in precedence_levels(None, None)] == [5, 6, 8]


@pytest.mark.parametrize("top", range(1, 9))
def test_every_level_wins_when_the_levels_above_are_absent(top: int) -> None:
    key = "producer_byte_rate"
    store: dict[ClientQuotaEntity, dict[str, float]] = {e: {key: 1000.0 * (i + 1)} for i, e in enumerate(LEVELS)
                                                        if i + 1 >= top}
    for j, e in enumerate(NOISE):
        store.setdefault(e, {})[key] = 7.0 + j
    describe = FakeDescribe(store)
    got = asyncio.run(resolve_client_quotas(describe, U, CID))
    r = got.quotas[key]
    assert (r.level, r.source, r.value) == (top, LEVELS[top - 1], 1000.0 * top)
    assert got.value(key) == 1000.0 * top
    assert len(describe.filters) == 4
    assert got.ip_quotas == {}


def test_each_key_resolves_independently() -> None:
    store = {LEVELS[0]: {"request_percentage": 12.5}, LEVELS[2]: {"consumer_byte_rate": 3.0},
             LEVELS[5]: {"producer_byte_rate": 5.0, "request_percentage": 99.0},
             LEVELS[7]: {"controller_mutation_rate": 0.5, "producer_byte_rate": 8.0}}
    got = asyncio.run(resolve_client_quotas(FakeDescribe(store), U, CID))
    assert {k: (r.level, r.value) for k, r in got.quotas.items()} == {
        "request_percentage": (1, 12.5), "consumer_byte_rate": (3, 3.0), "producer_byte_rate": (6, 5.0),
        "controller_mutation_rate": (8, 0.5)}
    assert "connection_creation_rate" not in got
    assert got.value("connection_creation_rate") is None
    assert got["producer_byte_rate"].source == E({"user": None})


def test_missing_names_use_default_levels_only() -> None:
    store = {LEVELS[0]: {"k": 1.0}, LEVELS[1]: {"k": 2.0}, LEVELS[3]: {"k": 4.0}, LEVELS[4]: {"k": 5.0}}
    assert asyncio.run(resolve_client_quotas(FakeDescribe(store), U, None)).quotas["k"].level == 2
    assert asyncio.run(resolve_client_quotas(FakeDescribe(store), None, CID)).quotas["k"].level == 4
    assert asyncio.run(resolve_client_quotas(FakeDescribe(store), None, None)).quotas["k"].level == 5


def test_ip_levels() -> None:
    store = {E({"ip": "10.0.0.1"}): {"connection_creation_rate": 10.0},
             E({"ip": None}): {"connection_creation_rate": 100.0}, E({"ip": "10.0.0.2"}): {"x": 1.0},
             E({"user": None}): {"producer_byte_rate": 1.0}}
    d = FakeDescribe(store)
    got = asyncio.run(resolve_client_quotas(d, ip="10.0.0.1"))
    assert got.ip_quotas["connection_creation_rate"].level == 1
    assert got.quotas == {}  # only the ip levels were asked about
    assert len(d.filters) == 2
    got = asyncio.run(resolve_client_quotas(FakeDescribe(store), ip="10.0.0.9"))
    assert (got["connection_creation_rate"].value, got["connection_creation_rate"].source) == (100.0, E({"ip": None}))
    d = FakeDescribe(store)
    got = asyncio.run(resolve_client_quotas(d, U, CID, "10.0.0.2"))
    assert len(d.filters) == 6
    assert got.quotas["producer_byte_rate"].level == 6 and got.ip_quotas["x"].level == 1


@pytest.mark.parametrize(("user", "client_id", "ip", "count"), [
    (U, CID, None, 4), (U, None, None, 3), (None, CID, None, 3), (None, None, None, 2), (None, None, "1.1.1.1", 2),
    (U, CID, "1.1.1.1", 6), (U, None, "1.1.1.1", 5),
])
def test_request_counts(user: str | None, client_id: str | None, ip: str | None, count: int) -> None:
    filters = resolve_filters(user, client_id, ip)
    assert len(filters) == count
    assert len(set(filters)) == count
    for f in filters:  # never an "any" component or an empty filter: nothing reads the whole cluster
        assert f.components and all(c.match_type is not MatchType.ANY for c in f.components)


def test_resolve_rejects_bad_arguments_before_describing() -> None:
    d = FakeDescribe({})
    with pytest.raises(ValueError, match="user is empty"):
        asyncio.run(resolve_client_quotas(d, ""))
    with pytest.raises(TypeError, match="client_id must be a string"):
        asyncio.run(resolve_client_quotas(d, "u", 5))  # type: ignore[arg-type]
    assert d.filters == []


names = st.sampled_from(["alice", "bob", None])
clients = st.sampled_from(["app", "other", None])
entities = st.one_of(
    st.builds(lambda u: E({USER: u}), names),
    st.builds(lambda c: E({CLIENT_ID: c}), clients),
    st.builds(lambda u, c: E({USER: u, CLIENT_ID: c}), names, clients),
    st.builds(lambda i: E({IP: i}), st.sampled_from(["1.1.1.1", "2.2.2.2", None])),
)
stores = st.dictionaries(entities, st.dictionaries(st.sampled_from(["a", "b", "c"]),
                                                   st.floats(0, 1e6, allow_nan=False), min_size=1, max_size=3),
                         max_size=12)


@settings(max_examples=150, deadline=None)
@given(stores, st.sampled_from(["alice", "carol", None]), st.sampled_from(["app", "nope", None]),
       st.sampled_from(["1.1.1.1", "3.3.3.3", None]))
def test_filters_fetch_everything_the_order_needs(store: dict[ClientQuotaEntity, dict[str, float]],
                                                  user: str | None, client_id: str | None, ip: str | None) -> None:
    got = asyncio.run(resolve_client_quotas(FakeDescribe(store), user, client_id, ip))
    if ip is None or user is not None or client_id is not None:
        assert dict(got.quotas) == resolve_from(store, precedence_levels(user, client_id))
    if ip is not None:
        assert dict(got.ip_quotas) == resolve_from(store, [(1, E({IP: ip})), (2, E({IP: None}))])
    for r in list(got.quotas.values()) + list(got.ip_quotas.values()):
        assert store[r.source][r.key] == r.value


def test_entities_unpickled_in_another_process_hash_like_local_ones() -> None:
    # ClientQuotaEntity caches its hash; string hashes differ between processes (PYTHONHASHSEED), so an
    # unpickled entity must rebuild it, or dict lookups (results, plans) would silently miss.
    import pickle
    import subprocess
    import sys

    code = ("import pickle,sys; from kadmin.quotas import ClientQuotaEntity as E; "
            "sys.stdout.buffer.write(pickle.dumps(E({'user': 'alice', 'client-id': None})))")
    env = {**__import__("os").environ, "PYTHONHASHSEED": "12345"}
    data = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True, env=env).stdout
    entity = pickle.loads(data)
    assert {ClientQuotaEntity({"user": "alice", "client-id": None}): 1}.get(entity) == 1
