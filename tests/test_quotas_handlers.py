"""kadmin.admin.quotas against a scripted network: request building, batching, folding, node choice.

The stub network decodes each request from its wire bytes and answers with a response that goes through
encode/decode too, so float64 values are checked as the bits a broker would see.
"""

from __future__ import annotations

import asyncio
import struct
from collections.abc import Callable
from typing import Any

import pytest

from kadmin.admin.quotas import (
    AlterClientQuotasHandler,
    DescribeClientQuotasHandler,
    alter_client_quotas,
    check_batching,
    describe_client_quotas,
)
from kadmin.config import ClientConfig
from kadmin.errors import (
    InvalidRequestError,
    KafkaConnectionError,
    KafkaTimeoutError,
    ProtocolError,
    UnsupportedVersionError,
)
from kadmin.network.retry import Deadline
from kadmin.protocol import Message, message_type
from kadmin.quotas import (
    ClientQuotaAlteration,
    ClientQuotaEntity,
    ClientQuotaFilter,
    ClientQuotaFilterComponent,
    Remove,
    Set,
)

CONFIG = ClientConfig(bootstrap_servers="stub:9092", retry_backoff_s=0.001, retry_backoff_max_s=0.005)
AlterReq = message_type(49, "request")
AlterResp: Any = message_type(49, "response")
DescReq = message_type(48, "request")
DescResp: Any = message_type(48, "response")


def ent(i: int) -> ClientQuotaEntity:
    return ClientQuotaEntity({"user": f"u{i}"})


def alt(i: int, value: float = 1.0) -> ClientQuotaAlteration:
    return ClientQuotaAlteration(ent(i), [Set("request_percentage", value)])


class StubNet:
    """Nodes with version tables; ``answer(node, request, version)`` makes the response (or raises)."""

    def __init__(self, tables: dict[int, dict[int, tuple[int, int]]],
                 answer: Callable[[int, Any, int], Any]) -> None:
        self.tables = tables
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

    async def negotiated_version(self, node: int, api_key: int, *, deadline: Deadline | None = None) -> int:
        r = self.tables[node].get(api_key)
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
        return type(resp).decode(resp.encode(version), version)


def ok_alter(node: int, req: Any, version: int) -> Any:
    return AlterResp(entries=[AlterResp.EntryData(error_code=0, error_message=None, entity=[
        AlterResp.EntityData(entity_type=e.entity_type, entity_name=e.entity_name) for e in entry.entity])
        for entry in reversed(req.entries)])  # order must not matter


MODERN = {48: (0, 1), 49: (0, 1)}


def run_alter(net: StubNet, alterations: list[ClientQuotaAlteration], timeout: float = 5.0,
              **kw: Any) -> dict[ClientQuotaEntity, Any]:
    opts = {"validate_only": False, "batch_size": 1000, "max_concurrency": 4} | kw
    return asyncio.run(alter_client_quotas(net, alterations, Deadline(timeout), CONFIG, **opts))


@pytest.mark.parametrize("version", [0, 1])
def test_alter_request_carries_float_bits_and_explicit_ops(version: int) -> None:
    values = [1e-300, float(2**53 + 1), 1234.5678, 0.0, 5e-324]
    a = ClientQuotaAlteration(ClientQuotaEntity({"user": "u", "client-id": None}),
                              [Set(f"k{i}", v) for i, v in enumerate(values)] + [Remove("gone")])
    h = AlterClientQuotasHandler([a], validate_only=True, batch_size=10)
    (req,) = h.builder([a.entity]).build(version)  # type: ignore[misc]
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
    assert h.keys_of(back, version) == [a.entity]


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


def test_per_entity_errors_retries_and_nothing_missing() -> None:
    calls: dict[str, int] = {}

    def answer(node: int, req: Any, version: int) -> Any:
        entries = []
        for entry in req.entries:
            name = entry.entity[0].entity_name
            calls[name] = calls.get(name, 0) + 1
            code, msg = 0, None
            if name == "u1":
                code, msg = 42, "bad entity"  # INVALID_REQUEST: final
            elif name == "u2" and calls[name] == 1:
                code = 41  # NOT_CONTROLLER: retriable
            elif name == "u3":
                continue  # the broker forgot it
            entries.append(AlterResp.EntryData(error_code=code, error_message=msg, entity=[
                AlterResp.EntityData(entity_type=e.entity_type, entity_name=e.entity_name) for e in entry.entity]))
        return AlterResp(entries=entries)

    net = StubNet({1: MODERN}, answer)
    res = run_alter(net, [alt(i) for i in range(5)])
    assert res[ent(0)] is None and res[ent(4)] is None
    assert res[ent(1)] == InvalidRequestError("bad entity")
    assert res[ent(2)] is None and calls["u2"] == 2
    assert isinstance(res[ent(3)], ProtocolError) and "no entry" in str(res[ent(3)])
    assert calls["u0"] == 1  # only the retriable entity was sent again
    assert len(res) == 5


def test_broker_timeout_marks_possibly_applied() -> None:
    def answer(node: int, req: Any, version: int) -> Any:
        return AlterResp(entries=[AlterResp.EntryData(error_code=7, error_message="slow controller", entity=[
            AlterResp.EntityData(entity_type=e.entity_type, entity_name=e.entity_name) for e in entry.entity])
            for entry in req.entries])

    res = run_alter(StubNet({1: MODERN}, answer), [alt(0)], timeout=0.2)
    err = res[ent(0)]
    assert isinstance(err, KafkaTimeoutError) and err.possibly_applied
    res = run_alter(StubNet({1: MODERN}, answer), [alt(0)], timeout=0.2, validate_only=True)
    assert isinstance(res[ent(0)], KafkaTimeoutError) and not res[ent(0)].possibly_applied


def test_unanswered_write_is_possibly_applied() -> None:
    def answer(node: int, req: Any, version: int) -> Any:
        raise KafkaConnectionError("connection reset")

    res = run_alter(StubNet({1: MODERN}, answer), [alt(0)], timeout=0.2)
    assert isinstance(res[ent(0)], KafkaTimeoutError) and res[ent(0)].possibly_applied


def test_old_brokers_are_skipped_and_an_all_old_cluster_is_refused() -> None:
    old = {18: (0, 3), 3: (0, 9)}
    net = StubNet({1: old, 2: MODERN}, ok_alter)
    assert run_alter(net, [alt(0)]) == {ent(0): None}
    assert {n for n, _, _ in net.sent} == {2}

    net = StubNet({1: old, 2: old}, ok_alter)
    with pytest.raises(UnsupportedVersionError, match=r"too old for the client quota APIs.*Kafka 2\.6\+"):
        run_alter(net, [alt(0), alt(1)])
    with pytest.raises(UnsupportedVersionError, match=r"Kafka 2\.6\+"):
        asyncio.run(describe_client_quotas(net, ClientQuotaFilter.all(), Deadline(1.0), CONFIG))
    assert net.sent == []


def describe_answer(code: int = 0, entries: Any = ()) -> Callable[[int, Any, int], Any]:
    def answer(node: int, req: Any, version: int) -> Any:
        return DescResp(error_code=code, error_message="nope" if code else None,
                        entries=None if entries is None else list(entries))
    return answer


def test_describe_builds_the_filter_and_decodes_values() -> None:
    flt = ClientQuotaFilter([ClientQuotaFilterComponent.exact("user", "a"),
                             ClientQuotaFilterComponent.any("client-id")], strict=True)
    req: Any = DescribeClientQuotasHandler(flt).request()
    assert [(c.entity_type, c.match_type, c.match) for c in req.components] == [("user", 0, "a"), ("client-id", 2, None)]
    assert req.strict is True
    E, V, D = DescResp.EntryData, DescResp.ValueData, DescResp.EntityData
    entries = [E(entity=[D(entity_type="client-id", entity_name=None), D(entity_type="user", entity_name="a")],
                 values=[V(key="request_percentage", value=1e-300), V(key="producer_byte_rate", value=2.0**53)])]
    net = StubNet({1: MODERN}, describe_answer(entries=entries))
    got = asyncio.run(describe_client_quotas(net, flt, Deadline(1.0), CONFIG))
    assert got == {ClientQuotaEntity({"user": "a", "client-id": None}):
                   {"request_percentage": 1e-300, "producer_byte_rate": 2.0**53}}


def test_describe_raises_top_level_errors() -> None:
    net = StubNet({1: MODERN}, describe_answer(code=42))
    with pytest.raises(InvalidRequestError, match="nope"):
        asyncio.run(describe_client_quotas(net, ClientQuotaFilter.all(), Deadline(1.0), CONFIG))
    net = StubNet({1: MODERN}, describe_answer(entries=None))
    with pytest.raises(ProtocolError, match="null entries"):
        asyncio.run(describe_client_quotas(net, ClientQuotaFilter.all(), Deadline(1.0), CONFIG))
    net = StubNet({1: MODERN}, describe_answer(code=7))  # retriable: retried until the deadline
    with pytest.raises(KafkaTimeoutError, match="last error: RequestTimedOutError"):
        asyncio.run(describe_client_quotas(net, ClientQuotaFilter.all(), Deadline(0.2), CONFIG))
    assert len(net.sent) > 1


def test_batching_arguments() -> None:
    assert check_batching(1, 1) == (1, 1)
    for bad in (0, -1):
        with pytest.raises(ValueError, match="at least 1"):
            check_batching(bad, 1)
    with pytest.raises(TypeError, match="max_concurrency must be an int"):
        check_batching(10, 2.0)
    with pytest.raises(TypeError, match="batch_size must be an int"):
        check_batching(True, 2)
