"""The versions kadmin's client sends: the shipped schemas' range per API, capped where kadmin does not yet
handle what a newer version means.

Why caps exist: specs/ holds Kafka's newest schemas (the union of 3.9's and trunk's, see
scripts/merge_specs.py), so the codec can encode and decode every version, and the fake cluster serves them all.
But a version can change meaning without changing much on the wire: OffsetCommit v10 names topics by id only,
Metadata v13 can answer "go back to your bootstrap servers".  Negotiating such a version before the admin
operation handles it would silently send the wrong request or misread the answer.  So the client's range for
an API is its schemas' range cut at :data:`CAPS`, one table that says why for each capped API; everything that
picks a version (kadmin.network.negotiation, ``AdminClient.api_versions``, ``kadmin api-versions``) asks
:func:`client_range`.  When an operation learns the new version, its line here goes.

APIs whose newer versions kadmin handles (no cap), for the record:

* DescribeGroups v6 (KIP-1043): GROUP_ID_NOT_FOUND for an unknown group, read like v0-5's "Dead" answer, and the
  per-group ErrorMessage is carried into the error (kadmin/admin/groups.py).
* DeleteGroups v3: the per-group ErrorMessage is carried into the error.
* ConsumerGroupDescribe v1 (KIP-1099): the member type is read into ``MemberDescription.member_type``.
* ShareGroupDescribe v1 (KIP-932 stable, Kafka 4.1+): the same layout as 4.0's early-access v0.
* DescribeCluster v2 (KIP-1073): IncludeFencedBrokers is what ``describe_cluster(include_fenced_brokers=...)``
  says (false for the client's own metadata), and IsFenced is read into ``ClusterDescription.fenced_brokers``.
* DescribeLogDirs v5 (KIP-1066): the request is v4's; the answer's IsCordoned is
  ``LogDirDescription.is_cordoned`` (None from older brokers).
* AlterPartitionReassignments v1 (KIP-860): AllowReplicationFactorChange is the call's
  ``allow_replication_factor_change`` (true, v0's behaviour, by default).
* ListOffsets v11 (KIP-1023): same layout; it adds the timestamp code of ``OffsetSpec.earliest_pending_upload()``.
* Metadata v13 (KIP-1102): the top-level ErrorCode is read (kadmin/network/rebootstrap.py); REBOOTSTRAP_REQUIRED
  sends the client back to its bootstrap servers, and the request is asked again.
* FindCoordinator: unchanged (v6 since Kafka 3.8).
* DescribeShareGroupOffsets 90 (v1 adds the lag, read into ``SharePartitionOffset.lag``), AlterShareGroupOffsets
  91, DeleteShareGroupOffsets 92: kadmin/admin/share_groups.py.
* ListConfigResources 74 (``list_config_resources``: v0 for client metrics alone, v1's ResourceTypes filter
  otherwise) and StreamsGroupDescribe 89 (``describe_streams_groups``; v1's topology description is not asked).
"""

from __future__ import annotations

from dataclasses import dataclass

from kadmin.protocol.apis import ApiKey
from kadmin.protocol.registry import message_type, shipped_names


@dataclass(frozen=True)
class Cap:
    """The highest version kadmin sends of one API, and why it sends no newer one."""

    highest: int
    why: str


#: API (an ApiKey; any int key looks it up) -> the highest version kadmin's client negotiates, while its
#: schemas go further.
CAPS: dict[int, Cap] = {
    ApiKey.API_VERSIONS: Cap(4, "v5 (KIP-1242, Kafka trunk after 4.3) checks the client's cluster id and node id "
                                "and answers REBOOTSTRAP_REQUIRED, which kadmin does not handle yet; and no "
                                "released broker speaks it (4.3 tops at v4), so opening every connection with v5 "
                                "would cost each one an UNSUPPORTED_VERSION round trip"),
    ApiKey.OFFSET_COMMIT: Cap(9, "v10 (KIP-848) names topics by id only (Name is v0-9, TopicId v10+): kadmin's "
                                 "offset writes name topics, and would need a metadata lookup of their ids"),
    ApiKey.OFFSET_FETCH: Cap(9, "v10 (KIP-848) names topics by id only, in the request and in the answer: kadmin "
                                "asks and reads offsets by topic name"),
}


def schema_range(api_key: int) -> tuple[int, int] | None:
    """Versions the shipped schemas can both encode (request) and decode (response); None if not shipped."""
    try:
        req = message_type(api_key, "request")
        resp = message_type(api_key, "response")
    except KeyError:
        return None
    lo = max(req.MIN_VERSION, resp.MIN_VERSION)
    hi = min(req.MAX_VERSION, resp.MAX_VERSION)
    return (lo, hi) if lo <= hi else None


def client_range(api_key: int) -> tuple[int, int] | None:
    """The versions kadmin's client may send of ``api_key``: :func:`schema_range` cut at :data:`CAPS`; None when
    kadmin ships no schema for it (or the schema has no versions: validVersions "none")."""
    r = schema_range(api_key)
    if r is None:
        return None
    cap = CAPS.get(api_key)
    hi = r[1] if cap is None else min(r[1], cap.highest)
    return (r[0], hi) if r[0] <= hi else None


def client_ranges() -> dict[int, tuple[int, int]]:
    """:func:`client_range` for every API kadmin ships a request schema for, by key."""
    out: dict[int, tuple[int, int]] = {}
    for name in shipped_names():
        cls = message_type(name)
        if cls.KIND == "request" and cls.API_KEY is not None:
            r = client_range(cls.API_KEY)
            if r is not None:
                out[cls.API_KEY] = r
    return dict(sorted(out.items()))


__all__ = ["CAPS", "Cap", "client_range", "client_ranges", "schema_range"]
