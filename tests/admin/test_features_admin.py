"""describe_features / update_features (KIP-584) against the fake cluster's presets, read back by kafka-python.

Why: feature levels gate whole protocol families (metadata.version, transaction.version, group.version), and
kafka-features.sh refuses the impossible before sending.  These tests pin that kadmin does the same (nothing sent
for a bad update: the request log shows it), that the controller's per-feature refusal stays with its feature,
that KRaft's all-or-nothing answer reaches every feature, and that a lost answer is "possibly applied".
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, TypeVar

import pytest
from kafka import KafkaAdminClient

from kadmin.aio import AdminClient
from kadmin.errors import InvalidUpdateVersionError, KafkaTimeoutError, UnsupportedVersionError
from kadmin.features import (
    FeatureMetadata,
    FeatureUpdate,
    FinalizedFeature,
    UpgradeType,
    metadata_version_level,
    release_feature_levels,
)
from kadmin.protocol.apis import ApiKey
from kadmin.testing import FakeCluster
from kadmin.versions import release_table

T = TypeVar("T")


def run(cluster: FakeCluster, body: Callable[[AdminClient], Awaitable[T]], **settings: Any) -> T:
    async def go() -> T:
        async with AdminClient(cluster.bootstrap, **settings) as admin:
            return await body(admin)
    return asyncio.run(go())


@pytest.fixture
def fake39() -> Iterator[FakeCluster]:
    with FakeCluster(3, versions="3.9") as c:
        yield c


@pytest.fixture
def fake40() -> Iterator[FakeCluster]:
    with FakeCluster(3, versions="4.0") as c:
        yield c


def kp_features(cluster: FakeCluster) -> dict[str, Any]:
    """kafka-python's describe_features, as {supported_features, finalized_features, finalized_features_epoch}
    (it answers {name: {"supported": (lo, hi), "finalized": (lo, hi), "finalized_epoch": n}})."""
    kp = KafkaAdminClient(bootstrap_servers=cluster.bootstrap, request_timeout_ms=10_000)
    try:
        got = kp.describe_features()
    finally:
        kp.close()
    epochs = {f["finalized_epoch"] for f in got.values() if "finalized_epoch" in f}
    return {"supported_features": {n: f["supported"] for n, f in got.items() if "supported" in f},
            "finalized_features": {n: f["finalized"] for n, f in got.items() if "finalized" in f},
            "finalized_features_epoch": epochs.pop() if len(epochs) == 1 else None}


def run_unstarted(cluster: FakeCluster, body: Callable[[AdminClient], Awaitable[T]]) -> T:
    """Like run, on a client that has not bootstrapped: input refused before any I/O leaves the log empty."""
    async def go() -> T:
        admin = AdminClient(cluster.bootstrap)
        try:
            return await body(admin)
        finally:
            await admin.close()
    return asyncio.run(go())


# --- describe ---------------------------------------------------------------------------------------------------


def test_kafka_28_reports_no_features() -> None:
    with FakeCluster(2, versions="2.8") as c:
        got = run(c, lambda a: a.describe_features())
    assert got.finalized == {} and got.supported == {} and got.finalized_epoch is None
    assert got.level("metadata.version") == 0


@pytest.mark.parametrize(("release", "levels", "mv_range"), [
    ("3.9", {"metadata.version": 21}, (1, 21)),
    ("4.0", {"metadata.version": 25, "kraft.version": 1, "group.version": 1, "transaction.version": 2}, (7, 25)),
])
def test_describe_features_per_release_matches_kafka_python(release: str, levels: dict[str, int],
                                                            mv_range: tuple[int, int]) -> None:
    with FakeCluster(3, versions=release) as c:
        got = run(c, lambda a: a.describe_features())
        theirs = kp_features(c)
    assert {n: f.max_version_level for n, f in got.finalized.items()} == levels
    assert (got.supported["metadata.version"].min_version, got.supported["metadata.version"].max_version) == mv_range
    assert got.finalized_epoch == theirs["finalized_features_epoch"] == 1
    assert {n: (s.min_version, s.max_version) for n, s in got.supported.items()} == theirs["supported_features"]
    assert {n: f.max_version_level for n, f in got.finalized.items()} == \
        {n: hi for n, (_lo, hi) in theirs["finalized_features"].items()}


# --- update: success, read back -------------------------------------------------------------------------------


def test_upgrade_is_applied_and_read_back_by_kafka_python(fake39: FakeCluster) -> None:
    got = run(fake39, lambda a: a.update_features({"group.version": FeatureUpdate(1),
                                                   "transaction.version": FeatureUpdate(2)}))
    assert got == {"group.version": None, "transaction.version": None}
    assert fake39.finalized_features() == {"metadata.version": 21, "group.version": 1, "transaction.version": 2}
    theirs = kp_features(fake39)
    assert theirs["finalized_features"]["group.version"][1] == 1
    assert theirs["finalized_features"]["transaction.version"][1] == 2
    assert theirs["finalized_features_epoch"] == 2  # one change, one epoch


def test_validate_only_changes_nothing(fake40: FakeCluster) -> None:
    got = run(fake40, lambda a: a.update_features({"eligible.leader.replicas.version": FeatureUpdate(1)},
                                                  validate_only=True))
    assert got == {"eligible.leader.replicas.version": None}
    assert "eligible.leader.replicas.version" not in fake40.finalized_features()
    assert fake40.finalized_features_epoch() == 1
    entry = [e for e in fake40.request_log if e.api_key == ApiKey.UPDATE_FEATURES]
    assert len(entry) == 1 and entry[0].version == 2


def test_disable_is_a_downgrade_to_zero(fake40: FakeCluster) -> None:
    got = run(fake40, lambda a: a.update_features({"group.version": FeatureUpdate(0, "safe_downgrade")}))
    assert got == {"group.version": None}
    assert "group.version" not in fake40.finalized_features()
    described = run(fake40, lambda a: a.describe_features())
    assert described.level("group.version") == 0 and described.finalized_epoch == 2


def test_release_version_levels_apply_in_one_request(fake40: FakeCluster) -> None:
    fake40.set_finalized_features({"group.version": 0, "transaction.version": 0})
    # a feature the release leaves at 0 is left alone (kafka-features.sh does not disable it)
    updates = {n: FeatureUpdate(level) for n, level in release_feature_levels("4.0").items() if level}
    got = run(fake40, lambda a: a.update_features(updates))
    assert got == dict.fromkeys(updates)
    assert fake40.count(ApiKey.UPDATE_FEATURES) == 1
    assert fake40.finalized_features() == {"metadata.version": 25, "kraft.version": 1, "group.version": 1,
                                           "transaction.version": 2}


# --- bad input: refused before UpdateFeatures is sent -----------------------------------------------------------


@pytest.mark.parametrize(("updates", "message"), [
    ({"no.such.feature": FeatureUpdate(1)}, "unknown feature"),
    ({"metadata.version": FeatureUpdate(3)}, "below the minimum supported level 7"),
    ({"transaction.version": FeatureUpdate(1)}, "that is a downgrade"),
    ({"group.version": FeatureUpdate(1, "safe_downgrade"), "eligible.leader.replicas.version": FeatureUpdate(1)},
     None),
])
def test_impossible_updates_raise_before_sending(fake40: FakeCluster, updates: dict[str, FeatureUpdate],
                                                 message: str | None) -> None:
    if message is None:
        # group.version is 1: "downgrading" it to 1 is allowed (no change); a downgrade to a higher level is not.
        updates = {"group.version": FeatureUpdate(1, "safe_downgrade"),
                   "transaction.version": FeatureUpdate(2, "unsafe_downgrade"),
                   "kraft.version": FeatureUpdate(1), "eligible.leader.replicas.version": FeatureUpdate(1,
                                                                                                     "safe_downgrade")}
        message = "that is an upgrade"
    before = fake40.finalized_features()
    with pytest.raises(ValueError, match=message):
        run(fake40, lambda a: a.update_features(updates))
    assert fake40.count(ApiKey.UPDATE_FEATURES) == 0
    assert fake40.finalized_features() == before


def test_shape_errors_send_nothing_at_all(fake39: FakeCluster) -> None:
    with pytest.raises(ValueError, match="level 0 disables"):
        FeatureUpdate(0)
    with pytest.raises(ValueError, match="upgrade_type"):
        FeatureUpdate(1, "sideways")
    with pytest.raises(TypeError):
        FeatureUpdate(True)
    fake39.clear_log()
    for bad in ({}, {"group.version": 1}, {"": FeatureUpdate(1)}, [("group.version", FeatureUpdate(1))]):
        with pytest.raises((TypeError, ValueError)):
            run_unstarted(fake39, lambda a, bad=bad: a.update_features(bad))
    with pytest.raises(TypeError):
        run_unstarted(fake39, lambda a: a.update_features({"group.version": FeatureUpdate(1)},
                                                          validate_only="yes"))  # type: ignore[arg-type]
    assert fake39.request_log == []


def test_kafka_28_refuses_every_feature_before_sending() -> None:
    with FakeCluster(2, versions="2.8") as c:
        with pytest.raises(ValueError, match="the cluster knows: none"):
            run(c, lambda a: a.update_features({"metadata.version": FeatureUpdate(1)}))
        assert c.count(ApiKey.UPDATE_FEATURES) == 0


# --- the controller's refusals ----------------------------------------------------------------------------------


def test_zookeeper_controller_refuses_one_feature_alone(fake39: FakeCluster) -> None:
    got = run(fake39, lambda a: a.update_features({"group.version": FeatureUpdate(1),
                                                   "transaction.version": FeatureUpdate(7)}))
    assert got["group.version"] is None
    assert isinstance(got["transaction.version"], InvalidUpdateVersionError)
    assert "supports versions 0-2" in str(got["transaction.version"])
    assert fake39.finalized_features() == {"metadata.version": 21, "group.version": 1}


def test_kraft_controller_applies_all_or_none(fake40: FakeCluster) -> None:
    got = run(fake40, lambda a: a.update_features({
        "metadata.version": FeatureUpdate(24, "safe_downgrade"),
        "eligible.leader.replicas.version": FeatureUpdate(1)}))
    assert all(isinstance(e, InvalidUpdateVersionError) for e in got.values()), got
    assert "metadata.version" in str(got["eligible.leader.replicas.version"])
    assert fake40.finalized_features()["metadata.version"] == 25
    assert "eligible.leader.replicas.version" not in fake40.finalized_features()


def test_unsafe_metadata_downgrade_is_refused_by_the_controller(fake40: FakeCluster) -> None:
    got = run(fake40, lambda a: a.update_features({"metadata.version": FeatureUpdate(7, "unsafe_downgrade")}))
    assert isinstance(got["metadata.version"], InvalidUpdateVersionError)
    assert "Unsafe metadata.version downgrades" in str(got["metadata.version"])


def test_not_controller_in_zookeeper_mode_goes_to_the_new_controller(fake39: FakeCluster) -> None:
    fake39.inject(None, "UpdateFeatures", 41)  # NOT_CONTROLLER once
    got = run(fake39, lambda a: a.update_features({"group.version": FeatureUpdate(1)}))
    assert got == {"group.version": None}
    assert fake39.count(ApiKey.UPDATE_FEATURES) == 2


# --- old controllers: what a version cannot carry ---------------------------------------------------------------


@pytest.fixture
def fake39_v0_update() -> Iterator[FakeCluster]:
    table = release_table("3.9")
    table[ApiKey.UPDATE_FEATURES] = (0, 0)
    with FakeCluster(3, versions=table) as c:
        c.set_finalized_features({"group.version": 1})
        yield c


def test_unsafe_downgrade_on_a_v0_controller_fails_alone(fake39_v0_update: FakeCluster) -> None:
    c = fake39_v0_update
    got = run(c, lambda a: a.update_features({"group.version": FeatureUpdate(0, "unsafe_downgrade"),
                                              "transaction.version": FeatureUpdate(1)}))
    assert isinstance(got["group.version"], UnsupportedVersionError)
    assert "UpdateFeatures v1+" in str(got["group.version"])
    assert got["transaction.version"] is None
    assert c.finalized_features()["group.version"] == 1
    assert c.finalized_features()["transaction.version"] == 1
    # a safe downgrade travels as v0's AllowDowngrade
    got = run(c, lambda a: a.update_features({"group.version": FeatureUpdate(0, "safe_downgrade")}))
    assert got == {"group.version": None} and "group.version" not in c.finalized_features()


def test_validate_only_on_a_v0_controller_fails_every_feature_unsent(fake39_v0_update: FakeCluster) -> None:
    c = fake39_v0_update
    got = run(c, lambda a: a.update_features({"transaction.version": FeatureUpdate(1)}, validate_only=True))
    assert isinstance(got["transaction.version"], UnsupportedVersionError)
    assert c.count(ApiKey.UPDATE_FEATURES) == 0


# --- a lost answer --------------------------------------------------------------------------------------------


def test_lost_answer_is_possibly_applied(fake39: FakeCluster) -> None:
    fake39.drop_connection(None, "UpdateFeatures", when="after", count=10)
    got = run(fake39, lambda a: a.update_features({"group.version": FeatureUpdate(1)}, timeout=3))
    err = got["group.version"]
    assert isinstance(err, KafkaTimeoutError) and err.possibly_applied
    assert fake39.finalized_features()["group.version"] == 1  # it was in fact applied


# --- names ------------------------------------------------------------------------------------------------------


def test_metadata_version_names() -> None:
    assert metadata_version_level("3.9-IV0") == 21
    assert metadata_version_level("3.9") == 21
    assert metadata_version_level("4.0") == 25
    assert metadata_version_level("3.3") == 7
    assert metadata_version_level("17") == 17
    with pytest.raises(ValueError, match="unknown metadata.version"):
        metadata_version_level("2.8")
    with pytest.raises(ValueError, match="unknown release version"):
        release_feature_levels("9.9")
    assert FeatureMetadata({"x": FinalizedFeature("x", 3)}).level("x") == 3


def test_rolling_upgrade_controller_refuses_a_level_an_old_broker_cannot_run() -> None:
    """Mid-upgrade (brokers 1-2 on 4.0, broker 3 still older): the broker asked (the bootstrap node, 4.0)
    supports eligible.leader.replicas.version, so nothing refuses it before sending; the controller, which knows
    every broker's range, does, naming the old broker."""
    with FakeCluster(3, versions={1: "4.0", 2: "4.0", 3: "3.9"}) as c:
        host, port = c.addresses[1]

        async def go() -> dict[str, Any]:
            async with AdminClient(f"{host}:{port}") as admin:  # only node 1 is connected: it answers describe
                return await admin.update_features({"eligible.leader.replicas.version": FeatureUpdate(1)})

        got = asyncio.run(go())
        err = got["eligible.leader.replicas.version"]
        assert isinstance(err, InvalidUpdateVersionError) and "broker 3" in str(err)
        assert c.count(ApiKey.UPDATE_FEATURES) == 1
        assert "eligible.leader.replicas.version" not in c.finalized_features()
        c.set_versions(3, "4.0")  # the upgrade finishes: now it goes through
        got = asyncio.run(go())
        assert got == {"eligible.leader.replicas.version": None}
        assert c.finalized_features()["eligible.leader.replicas.version"] == 1


@pytest.mark.parametrize("release", ["3.9", "4.0"])
def test_kafka_python_updates_kadmin_reads_back(release: str) -> None:
    """kafka-python's UpdateFeatures encoder (v1 on 3.9, v2 on 4.0) against the fake; kadmin describes the
    result with the epoch moved once."""
    with FakeCluster(3, versions=release) as c:
        kp = KafkaAdminClient(bootstrap_servers=c.bootstrap, request_timeout_ms=10_000)
        try:
            assert kp.update_features({"group.version": (UpgradeType.SAFE_DOWNGRADE.value, 0)} if release == "4.0"
                                      else {"group.version": 1}) == {"group.version": "OK"}
        finally:
            kp.close()
        got = run(c, lambda a: a.describe_features())
        assert got.level("group.version") == (0 if release == "4.0" else 1)
        assert got.finalized_epoch == 2


@pytest.mark.parametrize(("release", "level"), [("4.1", 27), ("4.2", 29), ("4.3", 30)])
def test_newer_presets_finalize_their_own_metadata_version(release: str, level: int) -> None:
    # Kafka's MetadataVersion: 4.1-IV1 = 27, 4.2-IV1 = 29, 4.3-IV0 = 30, each release's last level; from 4.1 a new
    # cluster also turns eligible leader replicas on.  --release-version R asks for the same level.
    from kadmin.client import AdminClient as SyncAdminClient

    with FakeCluster(3, versions=release) as c, SyncAdminClient(c.bootstrap, default_timeout_s=10) as admin:
        got = admin.describe_features()
        assert got.level("metadata.version") == level
        assert got.level("eligible.leader.replicas.version") == 1
        assert release_feature_levels(release)["metadata.version"] == level
        assert metadata_version_level(release) == level
        # a dry run of the release's own levels is accepted feature by feature
        updates = {n: FeatureUpdate(lv) for n, lv in release_feature_levels(release).items() if lv}
        assert admin.update_features(updates, validate_only=True) == dict.fromkeys(updates)
