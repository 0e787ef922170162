"""Message classes the fake brokers use: kadmin's shipped schemas, the fake's own (APIs kadmin's client never
sends, in kadmin/testing/specs), plus the few Kafka 4.0 versions beyond them.

Why: the 4.0 preset advertises Produce v12, Metadata v13, DescribeGroups v6, DescribeCluster v2 and
ConsumerGroupDescribe v1, which kadmin's own client does not ship (it never needs them), but third-party clients
pick them against a 4.0 broker.  Without them such a client could not even bootstrap from a fake 4.0 cluster.
Each extension adds exactly the fields Kafka added in that version:

* Produce v12 (KIP-890): no new field; the version says the producer speaks transactions v2.
* Metadata v13 (KIP-1102): a top-level response ErrorCode (REBOOTSTRAP_REQUIRED lives there).
* DescribeGroups v6 (KIP-1043): a per-group ErrorMessage, nullable.
* DescribeCluster v2 (KIP-1073): request IncludeFencedBrokers; response Brokers[].IsFenced.
* ConsumerGroupDescribe v1 (KIP-1099): response Groups[].Members[].MemberType (-1 unknown, 0 classic, 1 consumer).
"""

from __future__ import annotations

import copy
import functools
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kadmin.protocol import Message, headers, load_schema, message_type
from kadmin.protocol.registry import specs_dir
from kadmin.protocol.schema import read_schema_json

API_VERSIONS = 18


def _field(name: str, type_: str, versions: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "type": type_, "versions": versions, **extra}


def _metadata_response(raw: dict[str, Any]) -> None:
    raw["fields"].append(_field("ErrorCode", "int16", "13+", ignorable=True, default="0"))


def _describe_groups_response(raw: dict[str, Any]) -> None:
    groups = next(f for f in raw["fields"] if f["name"] == "Groups")
    groups["fields"].insert(1, _field("ErrorMessage", "string", "6+", nullableVersions="6+", default="null",
                                      ignorable=True))


def _describe_cluster_request(raw: dict[str, Any]) -> None:
    raw["fields"].append(_field("IncludeFencedBrokers", "bool", "2+", default="false"))


def _describe_cluster_response(raw: dict[str, Any]) -> None:
    brokers = next(f for f in raw["fields"] if f["name"] == "Brokers")
    brokers["fields"].append(_field("IsFenced", "bool", "2+", default="false"))


def _consumer_group_describe_response(raw: dict[str, Any]) -> None:
    groups = next(f for f in raw["fields"] if f["name"] == "Groups")
    members = next(f for f in groups["fields"] if f["name"] == "Members")
    members["fields"].append(_field("MemberType", "int8", "1+", default="-1", ignorable=True))


_EXTENSIONS: dict[tuple[int, str], tuple[str, int, Callable[[dict[str, Any]], None] | None]] = {
    (0, "request"): ("ProduceRequest", 12, None),
    (0, "response"): ("ProduceResponse", 12, None),
    (3, "request"): ("MetadataRequest", 13, None),
    (3, "response"): ("MetadataResponse", 13, _metadata_response),
    (15, "request"): ("DescribeGroupsRequest", 6, None),
    (15, "response"): ("DescribeGroupsResponse", 6, _describe_groups_response),
    (60, "request"): ("DescribeClusterRequest", 2, _describe_cluster_request),
    (60, "response"): ("DescribeClusterResponse", 2, _describe_cluster_response),
    (69, "request"): ("ConsumerGroupDescribeRequest", 1, None),
    (69, "response"): ("ConsumerGroupDescribeResponse", 1, _consumer_group_describe_response),
}


#: Kafka's schemas for what the fake serves but kadmin's client never sends (Produce, Fetch, InitProducerId,
#: OffsetForLeaderEpoch, the inter-broker and KRaft keys the presets advertise).  They live here, not in
#: kadmin/_specs, so that kadmin.protocol, and ``kadmin api-versions`` with it, lists only the APIs kadmin uses.
#: Like specs/, each equals Kafka's schema except for its about texts (tests/protocol/test_specs.py checks
#: both folders).
FAKE_SPECS_DIR = Path(__file__).resolve().parent / "specs"


@functools.cache
def _fake_only() -> dict[tuple[int, str], Path]:
    index: dict[tuple[int, str], Path] = {}
    for path in sorted(FAKE_SPECS_DIR.glob("*.json")):
        raw = read_schema_json(path)
        index[(int(raw["apiKey"]), str(raw["type"]))] = path
    return index


def fake_only_names() -> dict[str, int]:
    """{"Produce": 0, ...}: the APIs only the fake has schemas for, by name."""
    return {path.stem[: -len("Request")]: key for (key, kind), path in _fake_only().items() if kind == "request"}


def _schema_path(name: str) -> Path:
    shipped = specs_dir() / f"{name}.json"
    return shipped if shipped.is_file() else FAKE_SPECS_DIR / f"{name}.json"


@functools.cache
def _base_type(api_key: int, kind: str) -> type[Message]:
    try:
        return message_type(api_key, kind)
    except KeyError:
        path = _fake_only().get((api_key, kind))
        if path is None:
            raise
        return load_schema(path)


@functools.cache
def fake_message_type(api_key: int, kind: str) -> type[Message]:
    """The class the fake uses for ``api_key``/``kind``: the shipped one, the fake's own, or a 4.0 extension."""
    ext = _EXTENSIONS.get((api_key, kind))
    base = _base_type(api_key, kind)
    if ext is None:
        return base
    name, max_version, patch = ext
    if base.MAX_VERSION >= max_version:
        return base  # the schemas caught up; use them
    raw = copy.deepcopy(dict(read_schema_json(_schema_path(name))))
    lo = raw["validVersions"].split("-")[0]
    raw["validVersions"] = f"{lo}-{max_version}"
    if patch is not None:
        patch(raw)
    return load_schema(raw)


# --- headers: kadmin.protocol.headers knows only the shipped schemas' flexible versions


def request_header_version(api_key: int, version: int) -> int:
    return 2 if fake_message_type(api_key, "request").is_flexible(version) else 1


def response_header_version(api_key: int, version: int) -> int:
    if api_key == API_VERSIONS:
        return 0  # always v0, so that a client can read it whatever version it asked (KIP-511)
    return 1 if fake_message_type(api_key, "response").is_flexible(version) else 0


def decode_request_header(frame: bytes) -> tuple[int, int, int, str | None, int]:
    """kadmin.protocol.headers.decode_request_header, also right for the fake-only APIs' flexible versions."""
    api_key, version, corr, client_id, pos = headers.decode_request_header(frame)
    if (api_key, "request") in _fake_only():
        try:
            flexible = request_header_version(api_key, version) >= 2
        except Exception:  # noqa: BLE001 - a version the schema lacks: the broker refuses it anyway
            flexible = False
        if flexible:
            pos = headers.response_body_offset(frame[pos - 4:], 1) + pos - 4
    return api_key, version, corr, client_id, pos


def encode_request(api_key: int, version: int, correlation_id: int, client_id: str | None, body: bytes) -> bytes:
    """A whole request frame (size prefix included), for shipped and fake-only APIs alike."""
    if (api_key, "request") not in _fake_only():
        return headers.encode_request(api_key, version, correlation_id, client_id, body)
    cid = b"" if client_id is None else client_id.encode("utf-8")
    head = struct.pack(">hhih", api_key, version, correlation_id, -1 if client_id is None else len(cid)) + cid
    if request_header_version(api_key, version) >= 2:
        head += b"\x00"
    payload = head + body
    return struct.pack(">i", len(payload)) + payload
