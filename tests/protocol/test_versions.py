"""kadmin.versions: the release tables, API names and guess_release."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kadmin.protocol import message_type, shipped_names
from kadmin.versions import (
    API_NAMES,
    BROKER_TABLES,
    CAPPED,
    DEPLOYMENT_KEYS,
    RELEASE_NAMES,
    RELEASES,
    WITHHELD,
    guess_release,
    release_table,
    resolve_table,
)


def test_release_names_are_the_presets_oldest_first() -> None:
    assert RELEASE_NAMES == ("2.2", "2.6", "2.8", "3.0", "3.5", "3.9", "4.0", "4.1", "4.2", "4.3")


@pytest.mark.parametrize("release", RELEASE_NAMES)
def test_tables_are_well_formed(release: str) -> None:
    table = RELEASES[release]
    assert table, release
    for key, (lo, hi) in table.items():
        assert 0 <= lo <= hi, (release, key)
        assert key in API_NAMES, (release, key)


def test_releases_never_lose_client_api_versions() -> None:
    """From one release to the next, a client-facing API's max version never goes down."""
    for older, newer in zip(RELEASE_NAMES, RELEASE_NAMES[1:], strict=False):
        for key, (_lo, hi) in RELEASES[older].items():
            if key in DEPLOYMENT_KEYS:
                continue
            assert key in RELEASES[newer], (older, newer, API_NAMES[key])
            assert RELEASES[newer][key][1] >= hi, (older, newer, API_NAMES[key])


@pytest.mark.parametrize(("release", "key", "expected"), [
    # Facts the fake cluster's behaviour depends on.
    ("2.2", 18, (0, 2)),  # ApiVersions before KIP-511 (v3 came in 2.4)
    ("2.2", 48, None),  # no quota APIs before 2.6 (KIP-546)
    ("2.6", 48, (0, 0)),
    ("2.6", 49, (0, 0)),
    ("2.8", 48, (0, 1)),
    ("2.8", 60, (0, 0)),  # DescribeCluster arrives in 2.8 (KIP-700)
    ("2.6", 60, None),
    ("2.8", 10, (0, 3)),  # FindCoordinator batching (v4, KIP-699) arrives in 3.0
    ("3.0", 10, (0, 4)),
    ("2.8", 9, (0, 7)),  # OffsetFetch batching (v8, KIP-709) arrives in 3.0
    ("3.0", 9, (0, 8)),
    ("3.9", 10, (0, 6)),
    ("3.9", 18, (0, 4)),
    ("3.9", 15, (0, 5)),
    ("4.0", 15, (0, 6)),
    ("4.0", 8, (2, 9)),  # KIP-896 raised minimums in 4.0
    ("4.0", 4, None),  # KRaft brokers do not advertise LeaderAndIsr
    ("4.0", 77, None),  # share groups were early access (off) in 4.0
    ("4.1", 77, (1, 1)),  # ShareGroupDescribe v1 only: 4.1 removed 4.0's early-access v0
    ("4.1", 76, (1, 1)),  # ShareGroupHeartbeat: served (the fake's share coordinator, issue #25)
    ("4.1", 78, (1, 1)),  # ShareFetch: served (records handed to share members; v2 is 4.2's)
    ("4.2", 79, (1, 2)),  # ShareAcknowledge v2 (renew acknowledgements) in 4.2
    ("4.1", 84, None),  # ReadShareGroupState: broker-to-share-coordinator, withheld
    ("4.1", 90, (0, 0)),  # DescribeShareGroupOffsets v0 (no lag) in 4.1
    ("4.2", 90, (0, 1)),  # DescribeShareGroupOffsets v1 (lag) in 4.2
    ("4.1", 74, (0, 1)),  # ListConfigResources v1 (KIP-1142: the types filter) is served
    ("4.1", 45, (0, 1)),  # AlterPartitionReassignments v1 (KIP-860) is served
    ("4.1", 11, (0, 9)),  # 4.1 gave JoinGroup v0-1 back (KAFKA-19444)
    ("4.1", 80, (0, 0)),
    ("4.2", 80, (0, 1)),  # AddRaftVoter v1 (KIP-1186) in 4.2
    ("4.2", 35, (1, 4)),
    ("4.3", 35, (1, 5)),  # DescribeLogDirs v5 (KIP-1066, cordoned log dirs) in 4.3
    ("4.3", 8, (2, 9)),  # OffsetCommit v10 (topic ids) is not served by the fake: CAPPED
    ("4.1", 0, (0, 13)),  # Produce v13 (KIP-516: topic ids) is served
    ("4.2", 2, (1, 11)),  # ListOffsets v11 (KIP-1023: earliest pending upload) is served
    ("4.3", 89, (0, 0)),  # StreamsGroupDescribe: served (groups seeded with add_streams_group)
    ("4.3", 88, None),  # StreamsGroupHeartbeat: withheld (no task assignor)
    ("4.1", 89, None),  # streams groups are early access in 4.1: no key 89 advertised
])
def test_known_facts(release: str, key: int, expected: tuple[int, int] | None) -> None:
    assert RELEASES[release].get(key) == expected


def test_api_names_cover_all_keys_and_agree_with_shipped_schemas() -> None:
    assert sorted(API_NAMES) == list(range(93))
    for name in shipped_names():
        cls = message_type(name)
        if cls.KIND == "request" and cls.API_KEY is not None:
            assert API_NAMES[cls.API_KEY] + "Request" == name


def test_release_table_is_a_copy() -> None:
    t = release_table("3.9")
    t[18] = (0, 0)
    assert RELEASES["3.9"][18] == (0, 4)


def test_resolve_table() -> None:
    assert resolve_table("2.8") == RELEASES["2.8"]
    assert resolve_table({18: (0, 3), 3: [0, 9]}) == {18: (0, 3), 3: (0, 9)}  # type: ignore[dict-item]
    with pytest.raises(ValueError, match="unknown Kafka release"):
        resolve_table("9.9")
    with pytest.raises(ValueError, match="bad version range"):
        resolve_table({18: (3, 1)})


@pytest.mark.parametrize("release", RELEASE_NAMES)
def test_guess_release_recognises_each_preset(release: str) -> None:
    assert guess_release(RELEASES[release]) == release


def test_guess_release_ignores_deployment_keys() -> None:
    # A KRaft 3.9 broker does not advertise the ZooKeeper-era broker-to-broker APIs.
    kraft_like = {k: v for k, v in RELEASES["3.9"].items() if k not in DEPLOYMENT_KEYS}
    assert guess_release(kraft_like) == "3.9"


def test_guess_release_between_releases_gives_the_older() -> None:
    between = dict(RELEASES["3.5"])
    between[68] = (0, 0)  # ConsumerGroupHeartbeat (3.7): newer than 3.5 but not yet 3.9
    between[1] = (0, 16)
    assert guess_release(between) == "3.5"


def test_guess_release_none_for_too_old_or_not_kafka() -> None:
    old = dict(RELEASES["2.2"])
    old[18] = (0, 1)
    assert guess_release(old) is None
    assert guess_release({18: (0, 3), 3: (0, 12)}) is None
    assert guess_release({}) is None


_RECORDED = Path(__file__).resolve().parents[3] / "shared" / "kafka-apiversions"


def _recorded(release: str) -> dict[int, tuple[int, int]]:
    """A recorded broker's ApiVersions answer (``key name min max`` lines), beside the repository."""
    path = _RECORDED / f"{release}.txt"
    if not path.is_file():
        if os.environ.get("CI", "").strip().lower() in ("true", "1", "yes"):
            pytest.fail(f"CI=true but the recorded ApiVersions {path} are missing", pytrace=False)
        pytest.skip(f"recorded ApiVersions not found at {path}")
    table: dict[int, tuple[int, int]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            key, _name, lo, hi = line.split()
            table[int(key)] = (int(lo), int(hi))
    return table


@pytest.mark.parametrize(("release", "recorded"), [("4.1", "4.1.1"), ("4.3", "4.3.1")])
def test_4x_tables_are_the_recorded_brokers(release: str, recorded: str) -> None:
    assert BROKER_TABLES[release] == _recorded(recorded)


def test_4_2_is_4_1_with_franz_gos_4_2_bumps_and_4_3_without_cordoned_log_dirs() -> None:
    """How the 4.2 table was derived (kadmin.versions' module doc), checked both ways."""
    bumps = {2: (1, 11), 8: (2, 10), 9: (1, 10), 27: (1, 2), 78: (1, 2), 79: (1, 2), 80: (0, 1), 85: (0, 1),
             87: (0, 1), 90: (0, 1), 88: (0, 0), 89: (0, 0)}
    assert BROKER_TABLES["4.2"] == {**BROKER_TABLES["4.1"], **bumps}
    assert BROKER_TABLES["4.2"] == {**BROKER_TABLES["4.3"], 35: (1, 4)}


def test_presets_are_broker_tables_without_withheld_keys_cut_at_the_caps() -> None:
    for release in RELEASE_NAMES:
        for key, (lo, hi) in BROKER_TABLES[release].items():
            if key in WITHHELD:
                assert key not in RELEASES[release]
            else:
                cap = CAPPED[key][0] if key in CAPPED else hi
                assert RELEASES[release][key] == (lo, min(hi, cap)), (release, API_NAMES[key])
    assert all(reason for _, reason in CAPPED.values()) and not set(CAPPED) & set(WITHHELD)
    # The caps only bite on releases newer than the fake's handlers: 4.0 and older are served in full.
    for release in RELEASE_NAMES[:RELEASE_NAMES.index("4.0") + 1]:
        assert all(RELEASES[release][k] == v for k, v in BROKER_TABLES[release].items() if k not in WITHHELD)
