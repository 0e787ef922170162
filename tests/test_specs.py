"""The schemas in specs/ must match Kafka's own schemas in everything but the ``about`` text.

kadmin's codec is driven by these files, so a single wrong version range or missing tagged field would silently
produce bytes a broker rejects (or worse, misreads).  We rewrote the ``about`` texts in our own words, so the
check compares every other key, recursively, against Kafka's own schemas.  Those are reference data, not ours
to ship, so they are looked for outside the repository (``$KADMIN_KAFKA_SPECS``, else
``../shared/kafka-message-specs``; see tests/kafka_reference.py): without them the comparisons are skipped
with one reason line, and in CI, which always has them, they fail instead.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

SPECS_DIR = Path(__file__).resolve().parents[1] / "specs"

_APIS = [
    "ApiVersions",
    "Metadata",
    "FindCoordinator",
    "DescribeGroups",
    "ListGroups",
    "DeleteGroups",
    "OffsetFetch",
    "OffsetCommit",
    "ListOffsets",
    "DescribeCluster",
    "DescribeClientQuotas",
    "AlterClientQuotas",
    "SaslHandshake",
    "SaslAuthenticate",
    # topics and configs (issue #14)
    "CreateTopics",
    "DeleteTopics",
    "CreatePartitions",
    "DescribeTopicPartitions",
    "DescribeConfigs",
    "AlterConfigs",
    "IncrementalAlterConfigs",
    # records, log dirs, elections and reassignments (issue #14)
    "DeleteRecords",
    "DescribeLogDirs",
    "ElectLeaders",
    "AlterPartitionReassignments",
    "ListPartitionReassignments",
    # the group protocols the fake cluster serves to real consumers, and group admin (issue #15)
    "JoinGroup",
    "SyncGroup",
    "Heartbeat",
    "LeaveGroup",
    "OffsetDelete",
    "ConsumerGroupHeartbeat",
    "ConsumerGroupDescribe",
    "ShareGroupDescribe",
    # ACLs and SCRAM users (issue #16)
    "DescribeAcls",
    "CreateAcls",
    "DeleteAcls",
    "DescribeUserScramCredentials",
    "AlterUserScramCredentials",
    "CreateDelegationToken",
    "RenewDelegationToken",
    "ExpireDelegationToken",
    "DescribeDelegationToken",
    # transactions and producers (issue #26)
    "InitProducerId",
    "WriteTxnMarkers",
    "DescribeProducers",
    "DescribeTransactions",
    "ListTransactions",
]

EXPECTED_FILES: frozenset[str] = frozenset(
    ["RequestHeader.json", "ResponseHeader.json"]
    + [f"{api}{kind}.json" for api in _APIS for kind in ("Request", "Response")]
    + ["ConsumerProtocolSubscription.json", "ConsumerProtocolAssignment.json"]
)

# Keys that only carry documentation; everything else changes the wire format or generated code.
IGNORED_KEYS = frozenset({"about"})


def strip_line_comments(text: str) -> str:
    """Drop ``//`` comments that are outside JSON strings.

    Kafka's schema files carry a license header and version notes as ``//`` comments, which strict JSON
    parsers reject.  A plain regex would also eat ``//`` inside strings (URLs in about texts), so this
    tracks whether we are inside a string literal, honouring backslash escapes.
    """
    out: list[str] = []
    i = 0
    n = len(text)
    in_string = False
    while i < n:
        ch = text[i]
        if in_string:
            out.append(ch)
            if ch == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 2
                continue
            if ch == '"':
                in_string = False
            i += 1
            continue
        if ch == '"':
            in_string = True
            out.append(ch)
            i += 1
            continue
        if ch == "/" and i + 1 < n and text[i + 1] == "/":
            while i < n and text[i] != "\n":
                i += 1
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def load_reference(path: Path) -> Any:
    return json.loads(strip_line_comments(path.read_text(encoding="utf-8")))


def diff(ours: Any, theirs: Any, where: str = "$") -> list[str]:
    """List every difference between two schema trees, ignoring documentation-only keys.

    Returns all differences rather than stopping at the first, so one run shows the whole damage.
    Types are compared strictly (``"0"`` vs ``0``, ``1`` vs ``True``) because the schema format treats them
    differently.
    """
    problems: list[str] = []
    if isinstance(ours, dict) and isinstance(theirs, dict):
        our_keys = set(ours) - IGNORED_KEYS
        their_keys = set(theirs) - IGNORED_KEYS
        for key in sorted(their_keys - our_keys):
            problems.append(f"{where}: missing key {key!r}")
        for key in sorted(our_keys - their_keys):
            problems.append(f"{where}: extra key {key!r}")
        for key in sorted(our_keys & their_keys):
            problems.extend(diff(ours[key], theirs[key], f"{where}.{key}"))
    elif isinstance(ours, list) and isinstance(theirs, list):
        if len(ours) != len(theirs):
            problems.append(f"{where}: {len(ours)} items, reference has {len(theirs)}")
        for index, (a, b) in enumerate(zip(ours, theirs, strict=False)):
            label = b.get("name", index) if isinstance(b, dict) else index
            problems.extend(diff(a, b, f"{where}[{label}]"))
    elif type(ours) is not type(theirs) or ours != theirs:
        problems.append(f"{where}: {ours!r} != reference {theirs!r}")
    return problems


def shipped_files() -> list[str]:
    return sorted(p.name for p in SPECS_DIR.glob("*.json"))


def test_shipped_set_is_exact() -> None:
    shipped = set(shipped_files())
    assert shipped == EXPECTED_FILES, (
        f"missing: {sorted(EXPECTED_FILES - shipped)}; unexpected: {sorted(shipped - EXPECTED_FILES)}"
    )


@pytest.mark.parametrize("name", sorted(EXPECTED_FILES))
def test_spec_matches_reference(name: str, kafka_specs: Path) -> None:
    ref_dir = kafka_specs / "latest"
    ours_path = SPECS_DIR / name
    assert ours_path.is_file(), f"specs/{name} is missing"
    ref_path = ref_dir / name
    assert ref_path.is_file(), f"reference has no {name} in {ref_dir}"
    # Our files must be strict JSON: no comments, loadable by json.loads as they are.
    ours = json.loads(ours_path.read_text(encoding="utf-8"))
    problems = diff(ours, load_reference(ref_path))
    assert not problems, f"specs/{name} differs from Kafka's schema:\n" + "\n".join(problems)


@pytest.mark.parametrize("name", sorted(EXPECTED_FILES))
def test_about_texts_are_our_own(name: str, kafka_specs: Path) -> None:
    """Kafka's about texts are not ours to ship; ours must be absent or differ from theirs."""
    ref_dir = kafka_specs / "latest"
    ours = json.loads((SPECS_DIR / name).read_text(encoding="utf-8"))
    theirs = load_reference(ref_dir / name)

    def abouts(node: Any) -> set[str]:
        found: set[str] = set()
        if isinstance(node, dict):
            if isinstance(node.get("about"), str):
                found.add(node["about"].strip().lower())
            for value in node.values():
                found |= abouts(value)
        elif isinstance(node, list):
            for item in node:
                found |= abouts(item)
        return found

    copied = abouts(ours) & abouts(theirs)
    assert not copied, f"specs/{name} reuses Kafka's about text verbatim: {sorted(copied)}"


def test_strip_line_comments_keeps_slashes_inside_strings() -> None:
    text = '// header\n{ "a": "http://x//y", // trailing\n  "b": "q\\"//" }\n'
    assert json.loads(strip_line_comments(text)) == {"a": "http://x//y", "b": 'q"//'}


def test_diff_reports_type_and_key_changes() -> None:
    ref = {"name": "X", "about": "theirs", "fields": [{"name": "F", "default": "0", "tag": 1}]}
    ours = {"name": "X", "fields": [{"name": "F", "default": 0, "about": "ours"}]}
    problems = diff(ours, ref)
    assert any("missing key 'tag'" in p for p in problems)
    assert any("default" in p for p in problems)
    assert diff({"name": "X", "about": "ours"}, {"name": "X"}) == []


# --- the fake cluster's own schemas (kadmin/testing/specs): APIs kadmin's client never sends but the fake serves,
# so that no release preset advertises an API it cannot answer.  Same rule: Kafka's schema, our own about texts.

FAKE_SPECS_DIR = Path(__file__).resolve().parents[1] / "kadmin" / "testing" / "specs"
_FAKE_APIS = ["Produce", "Fetch", "AddPartitionsToTxn", "AddOffsetsToTxn", "EndTxn", "TxnOffsetCommit", "OffsetForLeaderEpoch", "LeaderAndIsr", "StopReplica",
              "UpdateMetadata", "ControlledShutdown", "AlterPartition", "Envelope", "AllocateProducerIds",
              "DescribeQuorum", "UnregisterBroker", "ListClientMetricsResources", "AddRaftVoter", "RemoveRaftVoter",
              "AlterReplicaLogDirs"]
FAKE_FILES = frozenset(f"{api}{kind}.json" for api in _FAKE_APIS for kind in ("Request", "Response"))


def test_fake_set_is_exact_and_apart_from_the_shipped_one() -> None:
    assert {p.name for p in FAKE_SPECS_DIR.glob("*.json")} == FAKE_FILES
    assert not FAKE_FILES & EXPECTED_FILES


@pytest.mark.parametrize("name", sorted(FAKE_FILES))
def test_fake_spec_matches_reference_with_our_own_about_texts(name: str, kafka_specs: Path) -> None:
    ours = json.loads((FAKE_SPECS_DIR / name).read_text(encoding="utf-8"))
    theirs = load_reference(kafka_specs / "latest" / name)
    problems = diff(ours, theirs)
    assert not problems, f"kadmin/testing/specs/{name} differs from Kafka's schema:\n" + "\n".join(problems)

    def abouts(node: Any) -> set[str]:
        found: set[str] = set()
        if isinstance(node, dict):
            if isinstance(node.get("about"), str):
                found.add(node["about"].strip().lower())
            for value in node.values():
                found |= abouts(value)
        elif isinstance(node, list):
            for item in node:
                found |= abouts(item)
        return found

    assert not abouts(ours) & abouts(theirs), f"kadmin/testing/specs/{name} reuses Kafka's about text verbatim"
