"""Message classes the fake brokers use: kadmin's shipped schemas, plus the few Kafka 4.0 versions beyond them.

Why: the 4.0 preset advertises Produce v12, Metadata v13, DescribeGroups v6, DescribeCluster v2 and
ConsumerGroupDescribe v1, which kadmin's own client does not ship (it never needs them), but third-party clients
pick them against a 4.0 broker.  Without them such a client could not even bootstrap from a fake 4.0 cluster.  Each extension adds exactly the fields
Kafka added in that version:

* Produce v12 (KIP-890): no new field; the version says the producer speaks transactions v2.
* Metadata v13 (KIP-1102): a top-level response ErrorCode (REBOOTSTRAP_REQUIRED lives there).
* DescribeGroups v6 (KIP-1043): a per-group ErrorMessage, nullable.
* DescribeCluster v2 (KIP-1073): request IncludeFencedBrokers; response Brokers[].IsFenced.
* ConsumerGroupDescribe v1 (KIP-1099): response Groups[].Members[].MemberType (-1 unknown, 0 classic, 1 consumer).
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from typing import Any

from kadmin.protocol import Message, load_schema, message_type
from kadmin.protocol.registry import specs_dir
from kadmin.protocol.schema import read_schema_json


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


@functools.cache
def fake_message_type(api_key: int, kind: str) -> type[Message]:
    """The class the fake uses for ``api_key``/``kind``: the shipped one, or its 4.0 extension."""
    ext = _EXTENSIONS.get((api_key, kind))
    shipped = message_type(api_key, kind)
    if ext is None:
        return shipped
    name, max_version, patch = ext
    if shipped.MAX_VERSION >= max_version:
        return shipped  # kadmin's schemas caught up; use them
    raw = copy.deepcopy(dict(read_schema_json(specs_dir() / f"{name}.json")))
    lo = raw["validVersions"].split("-")[0]
    raw["validVersions"] = f"{lo}-{max_version}"
    if patch is not None:
        patch(raw)
    return load_schema(raw)
