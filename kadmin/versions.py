"""What each Apache Kafka release's brokers advertise in ApiVersions: {api_key: (min_version, max_version)}.

Why this exists: version negotiation bugs only show against brokers of different ages, and the fake cluster
(``kadmin.testing``) needs to impersonate those ages exactly, mixed within one cluster.  A client can also use
:func:`guess_release` to say "this node looks like Kafka 2.8" in diagnostics.

Source of the numbers: the ApiVersions responses of real Apache Kafka brokers of each release (ZooKeeper-mode
brokers for 2.2 through 3.9, a KRaft broker for 4.0, which has no ZooKeeper mode), as recorded by kafka-python
(``kafka/protocol/broker_version_data.py``), cross-checked release by release against the per-KIP change notes
of franz-go's ``pkg/kversion``.  4.1 and 4.3 are the answers of real 4.1.1 and 4.3.1 KRaft brokers (single
combined-mode nodes with the release's default features; recorded 2026-11-28, kept beside the repository in
``kafka-apiversions/``).  No 4.2 broker was recorded: its table is 4.1.1's with the version bumps franz-go's
``pkg/kversion`` lists for 4.2 (ListOffsets 11, OffsetCommit 10, OffsetFetch 10, WriteTxnMarkers 2, ShareFetch
2, ShareAcknowledge 2, AddRaftVoter 1, WriteShareGroupState 1, ReadShareGroupStateSummary 1,
DescribeShareGroupOffsets 1, and the new StreamsGroupHeartbeat 88 / StreamsGroupDescribe 89 at v0), each
checked against the schema history (trunk-2026's commits.tsv dates every bump before the 4.2 branch).  The
result is 4.3.1's table except DescribeLogDirs, which stays at v4: v5 (KIP-1066, cordoned log dirs) reached
trunk on 2026-02-19, after 4.2 branched, and it is the only difference between the recorded 4.1.1 + 4.2's
bumps and the recorded 4.3.1 (tests/test_versions.py checks both statements).  kafka-python 3.0's own
``broker_version_data`` has the same 4.2 table, derived independently.  ZooKeeper-mode tables include the
broker-to-broker keys (4-7 LeaderAndIsr, StopReplica, UpdateMetadata, ControlledShutdown; 56 AlterPartition,
58 Envelope, 67 AllocateProducerIds...) because such brokers advertise them; KRaft brokers do not.  4.0 raised
several minimums (KIP-896 removed old protocol versions), which is why the 4.x tables are the only ones with
non-zero minimums.

Tables are stored as short text ("key:min-max ...") so that a release is one greppable line.  They are the
brokers' own (:data:`BROKER_TABLES`); the presets (:data:`RELEASES`) leave out the few keys the fake cluster
does not serve (:data:`WITHHELD`, with the reason for each key and what is served instead).
"""

from __future__ import annotations

from collections.abc import Mapping

VersionTable = dict[int, tuple[int, int]]

# fmt: off
_RAW: dict[str, str] = {
    "2.2": "0:0-7 1:0-10 2:0-5 3:0-7 4:0-2 5:0-1 6:0-5 7:0-2 8:0-6 9:0-5 10:0-2 11:0-4 12:0-2 13:0-2 14:0-2 "
           "15:0-2 16:0-2 17:0-1 18:0-2 19:0-3 20:0-3 21:0-1 22:0-1 23:0-2 24:0-1 25:0-1 26:0-1 27:0-0 28:0-2 "
           "29:0-1 30:0-1 31:0-1 32:0-2 33:0-1 34:0-1 35:0-1 36:0-1 37:0-1 38:0-1 39:0-1 40:0-1 41:0-1 42:0-1 "
           "43:0-0",
    "2.6": "0:0-8 1:0-11 2:0-5 3:0-9 4:0-4 5:0-3 6:0-6 7:0-3 8:0-8 9:0-7 10:0-3 11:0-7 12:0-4 13:0-4 14:0-5 "
           "15:0-5 16:0-4 17:0-1 18:0-3 19:0-5 20:0-4 21:0-2 22:0-3 23:0-3 24:0-1 25:0-1 26:0-1 27:0-0 28:0-3 "
           "29:0-2 30:0-2 31:0-2 32:0-3 33:0-1 34:0-1 35:0-2 36:0-2 37:0-2 38:0-2 39:0-2 40:0-2 41:0-2 42:0-2 "
           "43:0-2 44:0-1 45:0-0 46:0-0 47:0-0 48:0-0 49:0-0",
    "2.8": "0:0-9 1:0-12 2:0-6 3:0-11 4:0-5 5:0-3 6:0-7 7:0-3 8:0-8 9:0-7 10:0-3 11:0-7 12:0-4 13:0-4 14:0-5 "
           "15:0-5 16:0-4 17:0-1 18:0-3 19:0-7 20:0-6 21:0-2 22:0-4 23:0-4 24:0-3 25:0-3 26:0-3 27:0-1 28:0-3 "
           "29:0-2 30:0-2 31:0-2 32:0-4 33:0-2 34:0-2 35:0-2 36:0-2 37:0-3 38:0-2 39:0-2 40:0-2 41:0-2 42:0-2 "
           "43:0-2 44:0-1 45:0-0 46:0-0 47:0-0 48:0-1 49:0-1 50:0-0 51:0-0 56:0-0 57:0-0 60:0-0 61:0-0",
    "3.0": "0:0-9 1:0-12 2:0-7 3:0-11 4:0-5 5:0-3 6:0-7 7:0-3 8:0-8 9:0-8 10:0-4 11:0-7 12:0-4 13:0-4 14:0-5 "
           "15:0-5 16:0-4 17:0-1 18:0-3 19:0-7 20:0-6 21:0-2 22:0-4 23:0-4 24:0-3 25:0-3 26:0-3 27:0-1 28:0-3 "
           "29:0-2 30:0-2 31:0-2 32:0-4 33:0-2 34:0-2 35:0-2 36:0-2 37:0-3 38:0-2 39:0-2 40:0-2 41:0-2 42:0-2 "
           "43:0-2 44:0-1 45:0-0 46:0-0 47:0-0 48:0-1 49:0-1 50:0-0 51:0-0 56:0-0 57:0-0 60:0-0 61:0-0 65:0-0 "
           "66:0-0 67:0-0",
    "3.5": "0:0-9 1:0-15 2:0-8 3:0-12 4:0-7 5:0-4 6:0-8 7:0-3 8:0-8 9:0-8 10:0-4 11:0-9 12:0-4 13:0-5 14:0-5 "
           "15:0-5 16:0-4 17:0-1 18:0-3 19:0-7 20:0-6 21:0-2 22:0-4 23:0-4 24:0-3 25:0-3 26:0-3 27:0-1 28:0-3 "
           "29:0-3 30:0-3 31:0-3 32:0-4 33:0-2 34:0-2 35:0-4 36:0-2 37:0-3 38:0-3 39:0-2 40:0-2 41:0-3 42:0-2 "
           "43:0-2 44:0-1 45:0-0 46:0-0 47:0-0 48:0-1 49:0-1 50:0-0 51:0-0 56:0-3 57:0-1 58:0-0 60:0-0 61:0-0 "
           "65:0-0 66:0-0 67:0-0",
    "3.9": "0:0-11 1:0-17 2:0-9 3:0-12 4:0-7 5:0-4 6:0-8 7:0-3 8:0-9 9:0-9 10:0-6 11:0-9 12:0-4 13:0-5 14:0-5 "
           "15:0-5 16:0-5 17:0-1 18:0-4 19:0-7 20:0-6 21:0-2 22:0-5 23:0-4 24:0-5 25:0-4 26:0-4 27:0-1 28:0-4 "
           "29:0-3 30:0-3 31:0-3 32:0-4 33:0-2 34:0-2 35:0-4 36:0-2 37:0-3 38:0-3 39:0-2 40:0-2 41:0-3 42:0-2 "
           "43:0-2 44:0-1 45:0-0 46:0-0 47:0-0 48:0-1 49:0-1 50:0-0 51:0-0 56:0-3 57:0-1 58:0-0 60:0-1 61:0-0 "
           "65:0-0 66:0-1 67:0-0 68:0-0 69:0-0",
    "4.0": "0:0-12 1:4-17 2:1-10 3:0-13 8:2-9 9:1-9 10:0-6 11:2-9 12:0-4 13:0-5 14:0-5 15:0-6 16:0-5 17:0-1 "
           "18:0-4 19:2-7 20:1-6 21:0-2 22:0-5 23:2-4 24:0-5 25:0-4 26:0-5 27:1-1 28:0-5 29:1-3 30:1-3 31:1-3 "
           "32:1-4 33:0-2 34:1-2 35:1-4 36:0-2 37:0-3 38:1-3 39:1-2 40:1-2 41:1-3 42:0-2 43:0-2 44:0-1 45:0-0 "
           "46:0-0 47:0-0 48:0-1 49:0-1 50:0-0 51:0-0 55:0-2 57:0-2 60:0-2 61:0-0 64:0-0 65:0-0 66:0-1 68:0-1 "
           "69:0-1 74:0-0 75:0-0 80:0-0 81:0-0",
    "4.1": "0:0-13 1:4-18 2:1-10 3:0-13 8:2-9 9:1-9 10:0-6 11:0-9 12:0-4 13:0-5 14:0-5 15:0-6 16:0-5 17:0-1 "
           "18:0-4 19:2-7 20:1-6 21:0-2 22:0-5 23:2-4 24:0-5 25:0-4 26:0-5 27:1-1 28:0-5 29:1-3 30:1-3 "
           "31:1-3 32:1-4 33:0-2 34:1-2 35:1-4 36:0-2 37:0-3 38:1-3 39:1-2 40:1-2 41:1-3 42:0-2 43:0-2 "
           "44:0-1 45:0-1 46:0-0 47:0-0 48:0-1 49:0-1 50:0-0 51:0-0 55:0-2 57:0-2 60:0-2 61:0-0 64:0-0 "
           "65:0-0 66:0-2 68:0-1 69:0-1 74:0-1 75:0-0 76:1-1 77:1-1 78:1-1 79:1-1 80:0-0 81:0-0 83:0-0 "
           "84:0-0 85:0-0 86:0-0 87:0-0 90:0-0 91:0-0 92:0-0",
    "4.2": "0:0-13 1:4-18 2:1-11 3:0-13 8:2-10 9:1-10 10:0-6 11:0-9 12:0-4 13:0-5 14:0-5 15:0-6 16:0-5 "
           "17:0-1 18:0-4 19:2-7 20:1-6 21:0-2 22:0-5 23:2-4 24:0-5 25:0-4 26:0-5 27:1-2 28:0-5 29:1-3 "
           "30:1-3 31:1-3 32:1-4 33:0-2 34:1-2 35:1-4 36:0-2 37:0-3 38:1-3 39:1-2 40:1-2 41:1-3 42:0-2 "
           "43:0-2 44:0-1 45:0-1 46:0-0 47:0-0 48:0-1 49:0-1 50:0-0 51:0-0 55:0-2 57:0-2 60:0-2 61:0-0 "
           "64:0-0 65:0-0 66:0-2 68:0-1 69:0-1 74:0-1 75:0-0 76:1-1 77:1-1 78:1-2 79:1-2 80:0-1 81:0-0 "
           "83:0-0 84:0-0 85:0-1 86:0-0 87:0-1 88:0-0 89:0-0 90:0-1 91:0-0 92:0-0",
    "4.3": "0:0-13 1:4-18 2:1-11 3:0-13 8:2-10 9:1-10 10:0-6 11:0-9 12:0-4 13:0-5 14:0-5 15:0-6 16:0-5 "
           "17:0-1 18:0-4 19:2-7 20:1-6 21:0-2 22:0-5 23:2-4 24:0-5 25:0-4 26:0-5 27:1-2 28:0-5 29:1-3 "
           "30:1-3 31:1-3 32:1-4 33:0-2 34:1-2 35:1-5 36:0-2 37:0-3 38:1-3 39:1-2 40:1-2 41:1-3 42:0-2 "
           "43:0-2 44:0-1 45:0-1 46:0-0 47:0-0 48:0-1 49:0-1 50:0-0 51:0-0 55:0-2 57:0-2 60:0-2 61:0-0 "
           "64:0-0 65:0-0 66:0-2 68:0-1 69:0-1 74:0-1 75:0-0 76:1-1 77:1-1 78:1-2 79:1-2 80:0-1 81:0-0 "
           "83:0-0 84:0-0 85:0-1 86:0-0 87:0-1 88:0-0 89:0-0 90:0-1 91:0-0 92:0-0",
}
# fmt: on

#: Kafka's name for every API key 0-92 (ApiKeys.java; key 74 is ListClientMetricsResources before 4.1), so
#: that a table can be shown for keys kadmin has no schema for.
API_NAMES: dict[int, str] = dict(enumerate((
    "Produce Fetch ListOffsets Metadata LeaderAndIsr StopReplica UpdateMetadata ControlledShutdown OffsetCommit "
    "OffsetFetch FindCoordinator JoinGroup Heartbeat LeaveGroup SyncGroup DescribeGroups ListGroups "
    "SaslHandshake ApiVersions CreateTopics DeleteTopics DeleteRecords InitProducerId OffsetForLeaderEpoch "
    "AddPartitionsToTxn AddOffsetsToTxn EndTxn WriteTxnMarkers TxnOffsetCommit DescribeAcls CreateAcls "
    "DeleteAcls DescribeConfigs AlterConfigs AlterReplicaLogDirs DescribeLogDirs SaslAuthenticate "
    "CreatePartitions CreateDelegationToken RenewDelegationToken ExpireDelegationToken DescribeDelegationToken "
    "DeleteGroups ElectLeaders IncrementalAlterConfigs AlterPartitionReassignments ListPartitionReassignments "
    "OffsetDelete DescribeClientQuotas AlterClientQuotas DescribeUserScramCredentials AlterUserScramCredentials "
    "Vote BeginQuorumEpoch EndQuorumEpoch DescribeQuorum AlterPartition UpdateFeatures Envelope FetchSnapshot "
    "DescribeCluster DescribeProducers BrokerRegistration BrokerHeartbeat UnregisterBroker DescribeTransactions "
    "ListTransactions AllocateProducerIds ConsumerGroupHeartbeat ConsumerGroupDescribe ControllerRegistration "
    "GetTelemetrySubscriptions PushTelemetry AssignReplicasToDirs ListConfigResources DescribeTopicPartitions "
    "ShareGroupHeartbeat ShareGroupDescribe ShareFetch ShareAcknowledge AddRaftVoter RemoveRaftVoter "
    "UpdateRaftVoter InitializeShareGroupState ReadShareGroupState WriteShareGroupState DeleteShareGroupState "
    "ReadShareGroupStateSummary StreamsGroupHeartbeat StreamsGroupDescribe DescribeShareGroupOffsets "
    "AlterShareGroupOffsets DeleteShareGroupOffsets"
).split()))

#: Broker-to-broker (and deployment-dependent) keys: whether a broker advertises them says more about
#: ZooKeeper vs KRaft mode or its configuration (telemetry) than about its release, so guessing skips them.
DEPLOYMENT_KEYS: frozenset[int] = frozenset({4, 5, 6, 7, 27, 56, 57, 58, 67, 71, 72})


def _parse(text: str) -> VersionTable:
    table: VersionTable = {}
    for item in text.split():
        key, rng = item.split(":")
        lo, hi = rng.split("-")
        table[int(key)] = (int(lo), int(hi))
    return table


#: What real brokers of each release advertise (the tables above, as parsed), withheld keys included.
BROKER_TABLES: dict[str, VersionTable] = {name: _parse(text) for name, text in _RAW.items()}

#: Keys real brokers advertise that the presets leave out, and why.  The rule (kadmin.testing): the fake
#: cluster never advertises an API it does not serve, and a real client must be able to use every API it
#: advertises.  Each key real brokers list is therefore either served by a handler in
#: kadmin/testing/handlers/ or listed here:
#:
#: * served for real: Produce 0, Fetch 1 (record batches in the partition's log), InitProducerId 22 (so that
#:   idempotent producers, kafka-python's default, work), OffsetForLeaderEpoch 23 (consumers validate their
#:   position with it after a leader change), and the admin APIs (AlterReplicaLogDirs included);
#: * served as a refusal: the ZooKeeper-mode inter-broker keys 4-7, 56, 58, 67 answer
#:   CLUSTER_AUTHORIZATION_FAILED, as a secured broker answers a client without ClusterAction.  They stay
#:   advertised because ZooKeeper-mode brokers list them and LeaderAndIsr (4) is how a client tells
#:   ZooKeeper mode from KRaft (kadmin.testing.handlers.base.RequestContext.zookeeper_mode);
#: * served as a KRaft cluster answers: DescribeQuorum 55 (a modelled quorum of voters and observers,
#:   kadmin/testing/state/quorum.py), UnregisterBroker 64, ListConfigResources 74 (ListClientMetricsResources
#:   before 4.1), DescribeTopicPartitions 75, AddRaftVoter 80 / RemoveRaftVoter 81 (they change the voters when
#:   the cluster's kraft.version is 1, as 4.0 formats it; UNSUPPORTED_VERSION in the body at kraft.version 0);
#: * served with feature levels per release: ApiVersions v3+ reports each broker's supported features and the
#:   cluster's finalized levels, and UpdateFeatures 57 changes them (kadmin/testing/state/features.py);
#: * served up to a version, :data:`CAPPED` below: newer versions whose meaning the fake's handler does not
#:   implement yet (OffsetCommit/OffsetFetch v10's topic ids...);
#: * withheld, below: what needs state the fake does not keep.  A client then sees a broker without them
#:   (share and streams groups on 4.1+ presets), never a closed connection.  Transactions and producers
#:   (24-28, 61, 65, 66) are served since issue #26 (kadmin.testing.state.transactions).
#:
#: :func:`guess_release` compares the presets, so withheld keys are not looked at: a real broker's full table
#: is guessed as before (BROKER_TABLES and RELEASES give the same answer).
WITHHELD: dict[int, str] = {
    # Kafka 4.1+ (share groups GA in 4.2, streams groups in 4.2).  The fake serves share groups from its share
    # coordinator state (kadmin/testing/state/share_groups.py): membership (ShareGroupHeartbeat 76), records
    # (ShareFetch 78 / ShareAcknowledge 79), ShareGroupDescribe 77 and the share-group offsets (90-92).  What
    # stays withheld is the brokers' own traffic to the share coordinator:
    83: "InitializeShareGroupState: broker-to-share-coordinator (the fake's coordinator keeps the state itself)",
    84: "ReadShareGroupState: broker-to-share-coordinator",
    85: "WriteShareGroupState: broker-to-share-coordinator",
    86: "DeleteShareGroupState: broker-to-share-coordinator",
    87: "ReadShareGroupStateSummary: broker-to-share-coordinator",
    88: "StreamsGroupHeartbeat: the fake runs no streams task assignor (KIP-1071); streams groups are seeded "
        "with FakeCluster.add_streams_group and described with StreamsGroupDescribe (89), which is served",
}

#: Keys the fake serves, but not at every version newer brokers advertise: key -> (the highest version the
#: fake serves, why not the next).  A preset advertises such a key up to the lower of the broker's maximum and
#: this; older presets are below it anyway.  (Kept apart from kadmin's own client caps,
#: kadmin.protocol.client_versions, which say what kadmin sends; these say what the fake answers correctly.)
CAPPED: dict[int, tuple[int, str]] = {
    8: (9, "OffsetCommit v10 (KIP-848, 4.2) names topics by id only; the fake's commit handler reads names"),
    9: (9, "OffsetFetch v10 (KIP-848, 4.2) names topics by id only, asked and answered; the fake reads names"),
}


def _preset(table: VersionTable) -> VersionTable:
    out: VersionTable = {}
    for key, (lo, hi) in table.items():
        if key in WITHHELD:
            continue
        cap = CAPPED.get(key)
        out[key] = (lo, min(hi, cap[0])) if cap is not None else (lo, hi)
    return out


#: The release presets: what the fake cluster advertises for each release (the broker's table without
#: :data:`WITHHELD`, cut at :data:`CAPPED`), and what :func:`guess_release` compares against.
RELEASES: dict[str, VersionTable] = {name: _preset(table) for name, table in BROKER_TABLES.items()}
#: Release names, oldest first.
RELEASE_NAMES: tuple[str, ...] = tuple(sorted(RELEASES, key=lambda n: tuple(int(p) for p in n.split("."))))
DEFAULT_RELEASE = "3.9"


def release_table(release: str) -> VersionTable:
    """A fresh copy of ``release``'s table (callers may edit it to build custom brokers)."""
    try:
        return dict(RELEASES[release])
    except KeyError:
        raise ValueError(f"unknown Kafka release {release!r}; known: {', '.join(RELEASE_NAMES)}") from None


def resolve_table(spec: str | Mapping[int, tuple[int, int]]) -> VersionTable:
    """A release name or an explicit table, checked, as a new table."""
    if isinstance(spec, str):
        return release_table(spec)
    table: VersionTable = {}
    for key, rng in spec.items():
        lo, hi = int(rng[0]), int(rng[1])
        if not isinstance(key, int) or lo < 0 or hi < lo:
            raise ValueError(f"bad version range for API key {key!r}: {rng!r}")
        table[key] = (lo, hi)
    return table


def guess_release(table: Mapping[int, tuple[int, int]]) -> str | None:
    """The closest known release whose table this one matches, or None if it matches none.

    A table matches a release when, ignoring :data:`DEPLOYMENT_KEYS`, it has every API key of that release at
    a max version at least as high.  The newest such release is the answer: an exact table gives its own
    release, a broker between two known releases (say 3.7) gives the older one (3.5), and a broker older
    than 2.2 (or something that is not Kafka, missing keys) gives None.  Minimum versions are ignored because
    4.0 raised them without removing abilities a client negotiates for.
    """
    ours = {k: (int(v[0]), int(v[1])) for k, v in table.items() if k not in DEPLOYMENT_KEYS}
    for name in reversed(RELEASE_NAMES):
        rel = RELEASES[name]
        if all(k in ours and ours[k][1] >= hi for k, (_lo, hi) in rel.items() if k not in DEPLOYMENT_KEYS):
            return name
    return None


__all__ = [
    "API_NAMES",
    "BROKER_TABLES",
    "CAPPED",
    "DEFAULT_RELEASE",
    "DEPLOYMENT_KEYS",
    "RELEASES",
    "RELEASE_NAMES",
    "VersionTable",
    "WITHHELD",
    "guess_release",
    "release_table",
    "resolve_table",
]
