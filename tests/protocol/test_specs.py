"""The schemas in specs/ must be the union of Kafka 3.9's and a 2026 trunk's schemas, in everything but ``about``.

kadmin's codec is driven by these files, so a single wrong version range or missing tagged field would silently
produce bytes a broker rejects (or worse, misreads).  Kafka 4.0 removed the versions older than the 2.1 baseline
from its files (KIP-896) and 4.1 dropped share groups' early-access v0, but kadmin still speaks them, so each
file keeps every version of both: the check is, version by version, that what kadmin's file says a message
looks like at version v (field order, names, types, nullability, tags, defaults) is what Kafka 3.9's file says
for every v that 3.9 has and what trunk's says for every v that trunk has, and that kadmin's range covers both.
(scripts/merge_specs.py writes the union; this test does not use it.)  We rewrote the ``about`` texts in our
own words.  The reference schemas are not ours to ship, so they are looked for outside the repository
(``$KADMIN_KAFKA_SPECS``, else ``../shared/kafka-message-specs``; see tests/support/kafka_reference.py): without them
the comparisons are skipped with one reason line, and in CI, which always has them, they fail instead.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

SPECS_DIR = Path(__file__).resolve().parents[2] / "specs"

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
    # Kafka 4.x admin keys (issue #25): config resources (key 74, ListClientMetricsResources before 4.1),
    # streams groups, share-group offsets
    "ListConfigResources",
    "StreamsGroupDescribe",
    "DescribeShareGroupOffsets",
    "AlterShareGroupOffsets",
    "DeleteShareGroupOffsets",
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
    # cluster operations: features, the metadata quorum, replica log dirs (issue #26)
    "UpdateFeatures",
    "DescribeQuorum",
    "AddRaftVoter",
    "RemoveRaftVoter",
    "UnregisterBroker",
    "AlterReplicaLogDirs",
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


#: Files Kafka renamed between 3.9 and trunk (KIP-1142: key 74), trunk name -> 3.9 name, and renamed fields
#: within them (trunk name -> 3.9 name): the layout is the same, only the names changed.
RENAMED_FILES = {"ListConfigResourcesRequest": "ListClientMetricsResourcesRequest",
                 "ListConfigResourcesResponse": "ListClientMetricsResourcesResponse"}
RENAMED_FIELDS = {"ConfigResources": "ClientMetricsResources", "ResourceName": "Name",
                  "ConfigResource": "ClientMetricsResource"}
#: Fields Kafka renamed between 3.9 and trunk in files that kept their name (trunk name -> 3.9 name): KIP-848
#: renamed TxnOffsetCommit's GenerationId after 3.9, as OffsetCommit's was before it.
RENAMED_FIELDS_IN: dict[str, dict[str, str]] = {
    "TxnOffsetCommitRequest": {"GenerationIdOrMemberEpoch": "GenerationId"}}
# Keys that say nothing about the wire or the generated code, or only about the files' history.
_NOT_COMPARED = frozenset({"about", "listeners", "deprecatedVersions", "latestVersionUnstable", "validVersions",
                           "versions", "nullableVersions", "taggedVersions", "flexibleVersions", "fields",
                           "commonStructs", "name", "type"})


def parse_range(text: Any) -> tuple[int, int] | None:
    """A schema version string as (lo, hi), hi 32767 for "N+"; None for "none" or absent."""
    if text is None:
        return None
    text = str(text).strip()
    if text in ("none", ""):
        return None
    if text.endswith("+"):
        return int(text[:-1]), 32767
    lo, _, hi = text.partition("-")
    return int(lo), int(hi or lo)


def _in(text: Any, version: int) -> bool:
    r = parse_range(text)
    return r is not None and r[0] <= version <= r[1]


#: Field keys that only steer code generation (not the bytes): trunk changed a few of them for fields 3.9 also
#: has (Name became ignorable where v10 brought topic ids; RequestHeader.ClientId lost ignorable).  A field keeps
#: trunk's, so against 3.9 they are not compared; ``ignorable`` is compared apart (:func:`ignorable_problems`).
CODEGEN_HINTS = frozenset({"ignorable", "mapKey", "entityType", "zeroCopy"})


def ignorables(schema: dict[str, Any], renames: dict[str, str] | None = None) -> dict[str, bool]:
    """{field path: ignorable} for every field of ``schema`` (common structs under their struct name)."""
    ren = renames or {}
    out: dict[str, bool] = {}

    def walk(items: list[dict[str, Any]], prefix: str) -> None:
        for f in items:
            path = f"{prefix}.{ren.get(f['name'], f['name'])}"
            out[path] = f.get("ignorable") is True
            walk(f.get("fields", []) or [], path)

    walk(schema.get("fields", []) or [], "")
    for struct in schema.get("commonStructs", []) or []:
        walk(struct.get("fields", []) or [], ren.get(struct["name"], struct["name"]))
    return out


def ignorable_problems(ours: dict[str, Any], refs: list[tuple[dict[str, Any], dict[str, str] | None]]) -> list[str]:
    """A field is ignorable (may be dropped when writing a version without it) in the union when it is in either
    source: the union writes both sources' versions (RequestHeader.ClientId for header v0, 3.9's only)."""
    mine = ignorables(ours)
    want: dict[str, bool] = {}
    for schema, renames in refs:
        for path, flag in ignorables(schema, renames).items():
            want[path] = want.get(path, False) or flag
    return [f"{path}: ignorable is {mine.get(path)}, the sources say {flag}" for path, flag in sorted(want.items())
            if mine.get(path, False) != flag]


def at_version(schema: dict[str, Any], version: int, renames: dict[str, str] | None = None,
               ignore: frozenset[str] = frozenset()) -> Any:
    """What ``schema`` says the message is at ``version``: its flexibility and, in order, each field present then
    (name, type, nullable?, tag if tagged, the other keys, sub-fields), struct types resolved from commonStructs.
    ``renames`` maps names to what the other side calls them, so that renamed files compare."""
    ren = renames or {}
    structs = {c["name"]: c for c in schema.get("commonStructs", []) or []}

    def typename(t: str) -> str:
        array = t.startswith("[]")
        inner = t[2:] if array else t
        return ("[]" if array else "") + ren.get(inner, inner)

    def fields(items: list[dict[str, Any]], flexible: bool) -> list[Any]:
        out: list[Any] = []
        for f in items:
            tagged = _in(f.get("taggedVersions"), version)
            present = _in(f["versions"], version) if "versions" in f else tagged
            if not present:
                continue
            inner = f["type"][2:] if f["type"].startswith("[]") else f["type"]
            sub = f.get("fields")
            if sub is None and inner in structs:
                sub = structs[inner]["fields"]
            field_flexible = flexible if "flexibleVersions" not in f else _in(f["flexibleVersions"], version)
            rest = {k: v for k, v in f.items()
                    if k not in _NOT_COMPARED and k not in ignore and not (k == "tag" and not tagged)}
            out.append((ren.get(f["name"], f["name"]), typename(f["type"]), _in(f.get("nullableVersions"), version),
                        f.get("tag") if tagged else None, field_flexible, sorted(rest.items(), key=str),
                        fields(sub, flexible) if sub is not None else None))
        return out

    flexible = _in(schema.get("flexibleVersions"), version)
    return {"flexible": flexible, "fields": fields(schema.get("fields", []), flexible)}


def union_problems(ours: dict[str, Any], name: str, ref: Path) -> list[str]:
    """Every way ``ours`` fails to be the union of 3.9's and trunk's ``name`` (empty when it is)."""
    problems: list[str] = []
    ours_range = parse_range(ours.get("validVersions"))
    sources = [("3.9", ref / "3.9" / f"{RENAMED_FILES.get(name, name)}.json",
                RENAMED_FIELDS if name in RENAMED_FILES else RENAMED_FIELDS_IN.get(name), CODEGEN_HINTS),
               ("trunk-2026", ref / "trunk-2026" / f"{name}.json", None, frozenset({"ignorable"}))]
    found = 0
    refs: list[tuple[dict[str, Any], dict[str, str] | None]] = []
    for label, path, renames, ignore in sources:
        if not path.is_file():
            continue
        found += 1
        theirs = load_reference(path)
        if parse_range(theirs.get("validVersions")) is not None:
            refs.append((theirs, {v: k for k, v in renames.items()} if renames else None))
        for key in ("apiKey", "type"):
            if ours.get(key) != theirs.get(key):
                problems.append(f"{key}: {ours.get(key)!r} != {label}'s {theirs.get(key)!r}")
        their_range = parse_range(theirs.get("validVersions"))
        if their_range is None:
            continue  # removed there ("none"); the other source has the versions
        if ours_range is None or not (ours_range[0] <= their_range[0] and their_range[1] <= ours_range[1]):
            problems.append(f"validVersions {ours.get('validVersions')} does not cover {label}'s "
                            f"{theirs.get('validVersions')}")
            continue
        for v in range(their_range[0], their_range[1] + 1):
            mine, want = at_version(ours, v, renames, ignore), at_version(theirs, v, None, ignore)
            if mine != want:
                problems.append(f"v{v} differs from {label}'s v{v}:\n  ours   {mine}\n  theirs {want}")
    problems.extend(ignorable_problems(ours, refs))
    if not found:
        problems.append("in neither reference folder")
    elif ours_range is not None:
        lo = min(r[0] for _, p, _r, _i in sources if p.is_file() and (r := parse_range(load_reference(p).get(
            "validVersions"))) is not None)
        hi = max(r[1] for _, p, _r, _i in sources if p.is_file() and (r := parse_range(load_reference(p).get(
            "validVersions"))) is not None)
        if ours_range != (lo, hi):
            problems.append(f"validVersions {ours.get('validVersions')} is wider than the union v{lo}-v{hi}")
    return problems


@pytest.mark.parametrize("name", sorted(EXPECTED_FILES))
def test_spec_is_the_union_of_3_9_and_trunk(name: str, kafka_specs: Path) -> None:
    ours_path = SPECS_DIR / name
    assert ours_path.is_file(), f"specs/{name} is missing"
    # Our files must be strict JSON: no comments, loadable by json.loads as they are.
    ours = json.loads(ours_path.read_text(encoding="utf-8"))
    problems = union_problems(ours, name[: -len(".json")], kafka_specs)
    assert not problems, f"specs/{name} is not the union of Kafka's schemas:\n" + "\n".join(problems)


def test_union_check_catches_a_dropped_old_version_a_new_field_and_a_reorder(kafka_specs: Path) -> None:
    """The check above can fail: trunk's file alone (3.9's old versions gone), a field missing from one version,
    and two fields swapped are each reported."""
    trunk_only = load_reference(kafka_specs / "trunk-2026" / "OffsetCommitRequest.json")
    assert any("does not cover 3.9's 0-9" in p for p in union_problems(trunk_only, "OffsetCommitRequest",
                                                                          kafka_specs))
    ours = json.loads((SPECS_DIR / "DescribeGroupsResponse.json").read_text(encoding="utf-8"))
    assert union_problems(ours, "DescribeGroupsResponse", kafka_specs) == []
    groups = next(f for f in ours["fields"] if f["name"] == "Groups")
    groups["fields"] = [f for f in groups["fields"] if f["name"] != "ErrorMessage"]  # DescribeGroups v6's
    assert [p.split(":")[0] for p in union_problems(ours, "DescribeGroupsResponse", kafka_specs)] == [
        "v6 differs from trunk-2026's v6"]
    groups["fields"][0], groups["fields"][1] = groups["fields"][1], groups["fields"][0]
    assert len(union_problems(ours, "DescribeGroupsResponse", kafka_specs)) == 2 * 7 - 1  # v0-5 twice, v6 once


def test_every_api_range_covers_3_9_and_trunk(kafka_specs: Path) -> None:
    """The issue's rule in one place: for every API kadmin or its fake has a schema for, kadmin's range is at
    least 3.9's and trunk's together (4.0+ dropped old versions; kadmin keeps them for 2.1+ brokers)."""
    uncovered: list[str] = []
    for folder in (SPECS_DIR, FAKE_SPECS_DIR):
        for path in sorted(folder.glob("*Request.json")):
            ours = parse_range(json.loads(path.read_text(encoding="utf-8"))["validVersions"])
            assert ours is not None, path.name
            for sub, name in (("3.9", RENAMED_FILES.get(path.stem, path.stem)), ("trunk-2026", path.stem)):
                ref = kafka_specs / sub / f"{name}.json"
                theirs = parse_range(load_reference(ref)["validVersions"]) if ref.is_file() else None
                if theirs is not None and not (ours[0] <= theirs[0] and theirs[1] <= ours[1]):
                    uncovered.append(f"{path.stem}: {ours} does not cover {sub}'s {theirs}")
    assert uncovered == []


@pytest.mark.parametrize("name", sorted(EXPECTED_FILES))
def test_about_texts_are_our_own(name: str, kafka_specs: Path) -> None:
    """Kafka's about texts are not ours to ship; ours must be absent or differ from theirs."""
    ours = json.loads((SPECS_DIR / name).read_text(encoding="utf-8"))
    stem = name[: -len(".json")]
    refs = [kafka_specs / "3.9" / f"{RENAMED_FILES.get(stem, stem)}.json", kafka_specs / "trunk-2026" / name]
    theirs = [load_reference(p) for p in refs if p.is_file()]

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

    copied = abouts(ours) & set().union(*(abouts(t) for t in theirs))
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

FAKE_SPECS_DIR = Path(__file__).resolve().parents[2] / "kadmin" / "testing" / "specs"
_FAKE_APIS = ["Produce", "Fetch", "AddPartitionsToTxn", "AddOffsetsToTxn", "EndTxn", "TxnOffsetCommit",
              "OffsetForLeaderEpoch", "LeaderAndIsr", "StopReplica", "UpdateMetadata", "ControlledShutdown",
              "AlterPartition", "Envelope", "AllocateProducerIds", "ShareGroupHeartbeat", "ShareFetch",
              "ShareAcknowledge"]
FAKE_FILES = frozenset(f"{api}{kind}.json" for api in _FAKE_APIS for kind in ("Request", "Response"))


def test_fake_set_is_exact_and_apart_from_the_shipped_one() -> None:
    assert {p.name for p in FAKE_SPECS_DIR.glob("*.json")} == FAKE_FILES
    assert not FAKE_FILES & EXPECTED_FILES


@pytest.mark.parametrize("name", sorted(FAKE_FILES))
def test_fake_spec_is_the_union_with_our_own_about_texts(name: str, kafka_specs: Path) -> None:
    ours = json.loads((FAKE_SPECS_DIR / name).read_text(encoding="utf-8"))
    problems = union_problems(ours, name[: -len(".json")], kafka_specs)
    assert not problems, f"kadmin/testing/specs/{name} is not the union of Kafka's schemas:\n" + "\n".join(problems)

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

    for sub in ("3.9", "trunk-2026"):
        ref = kafka_specs / sub / name
        if ref.is_file():
            assert not abouts(ours) & abouts(load_reference(ref)), (
                f"kadmin/testing/specs/{name} reuses Kafka's about text verbatim")
