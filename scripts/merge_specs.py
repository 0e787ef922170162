"""Rebuild specs/ and kadmin/testing/specs/ as the union of Kafka 3.9's and trunk's message schemas.

Why a union: Kafka 4.0 removed protocol versions older than the 2.1 baseline from its schema files (KIP-896),
and 4.1 dropped the share-group early-access v0, but kadmin still talks to 2.1+ brokers (and 4.0 share groups).
So each shipped file keeps every version of both: for a version the trunk file still has, the trunk file's
layout; for a version only 3.9 has, 3.9's.  Field ``versions`` ranges (and nullable, tagged and flexible
ranges) are merged by that per-version rule, a field that only exists in the old versions keeps its old range,
and fields keep an order that is the order of both sources.  Kafka's ``about`` texts are not ours to ship: a
field keeps kadmin's own text where kadmin has one, new fields have none, and a file new to kadmin gets a
one-line top-level ``about`` of our own (passed in ``NEW_FILE_ABOUTS``).

Usage (from the repository root)::

    python scripts/merge_specs.py [--reference ../shared/kafka-message-specs] [--check]

``--check`` writes nothing and exits 1 when a file would change.  tests/test_specs.py checks the result
independently, version by version, against both reference folders.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from kadmin.protocol.schema import MAX_VERSION, NONE, Versions, read_schema_json  # noqa: E402

SHIPPED = REPO / "specs"
FAKE = REPO / "kadmin" / "testing" / "specs"
RANGE_KEYS = ("versions", "nullableVersions", "taggedVersions", "flexibleVersions")

#: Files kadmin did not ship before this refresh, with the top-level text kadmin gives them.
NEW_FILE_ABOUTS: dict[str, str] = {
    "ListConfigResourcesRequest": "Lists the resources that have dynamic configs: client-metrics subscriptions at "
                                  "v0 (key 74 was ListClientMetricsResources before Kafka 4.1, KIP-1142), the "
                                  "asked types from v1 (every type when none is asked).",
    "ListConfigResourcesResponse": "The names, and from v1 the types, of the config resources that have configs.",
    "StreamsGroupDescribeRequest": "Describes streams groups (KIP-1071): members, topology and assignments.",
    "StreamsGroupDescribeResponse": "Per streams group: state, epochs, topology (subtopologies) and each member's "
                                    "tasks.",
    "DescribeShareGroupOffsetsRequest": "Reads share groups' start offsets (SPSO) per partition (KIP-932); from v1 "
                                        "also the lag.",
    "DescribeShareGroupOffsetsResponse": "Per share group and partition: the start offset, leader epoch and (v1+) "
                                         "lag, or an error.",
    "AlterShareGroupOffsetsRequest": "Sets share groups' start offsets per partition (KIP-932); the group must be "
                                     "empty.",
    "AlterShareGroupOffsetsResponse": "Per partition: whether the start offset was set.",
    "DeleteShareGroupOffsetsRequest": "Deletes a share group's offsets for whole topics (KIP-932).",
    "DeleteShareGroupOffsetsResponse": "Per topic: whether the share group's offsets were deleted.",
}

#: Renamed files: trunk name -> 3.9 name (KIP-1142 renamed key 74); fields keep their layout.
RENAMED_FILES: dict[str, str] = {
    "ListConfigResourcesRequest": "ListClientMetricsResourcesRequest",
    "ListConfigResourcesResponse": "ListClientMetricsResourcesResponse",
}
#: Renamed fields: (file, trunk field) -> 3.9 field, same type and layout (key 74's renamed files, and
#: TxnOffsetCommit's GenerationId, which KIP-848 renamed after 3.9 as OffsetCommit's was before it).
RENAMED_FIELDS: dict[tuple[str, str], str] = {
    ("TxnOffsetCommitRequest", "GenerationIdOrMemberEpoch"): "GenerationId",
    ("ListConfigResourcesResponse", "ConfigResources"): "ClientMetricsResources",
    ("ListConfigResourcesResponse", "ResourceName"): "Name",
    ("ListConfigResourcesResponse", "ConfigResource"): "ClientMetricsResource",  # the struct type
}


class MergeError(Exception):
    """Two sources disagree in a way no union can hold (a type change, a non-contiguous range)."""


def _ranges_union(a: Versions, b: Versions, where: str) -> Versions:
    if a.empty:
        return b
    if b.empty:
        return a
    if a.lo > b.hi + 1 or b.lo > a.hi + 1:
        raise MergeError(f"{where}: {a} and {b} do not form one range")
    return Versions(min(a.lo, b.lo), max(a.hi, b.hi))


def merge_range(old: Any, new: Any, new_lo: int, where: str) -> str | None:
    """Versions at or above ``new_lo`` as trunk says, below it as 3.9 says; None when the result is empty."""
    o = Versions.parse(old) if old is not None else NONE
    n = Versions.parse(new) if new is not None else NONE
    upper = n.intersect(Versions(new_lo, MAX_VERSION))
    lower = o.intersect(Versions(0, new_lo - 1)) if new_lo > 0 else NONE
    merged = _ranges_union(lower, upper, where)
    return None if merged.empty else str(merged)


def _index(ours: Any, abouts: dict[str, str], orders: dict[str, list[str]], prefix: str = "") -> None:
    """kadmin's about texts and key orders by field path ("Topics.Partitions.ErrorCode"; "" is the top)."""
    if not isinstance(ours, dict):
        return
    orders[prefix] = list(ours)
    if isinstance(ours.get("about"), str):
        abouts[prefix] = ours["about"]
    for key in ("fields", "commonStructs"):
        for f in ours.get(key, []) or []:
            if isinstance(f, dict) and isinstance(f.get("name"), str):
                _index(f, abouts, orders, f"{prefix}.{f['name']}" if prefix else f["name"])


def _ordered(out: dict[str, Any], ours: list[str] | None) -> dict[str, Any]:
    """``out``'s keys in kadmin's file's order (so that a refresh diffs only what changed); a key kadmin's file
    lacks goes right after the key it follows in ``out``."""
    if not ours:
        return out
    order = [k for k in ours if k in out]
    for i, key in enumerate(out):
        if key not in order:
            prev = list(out)[:i]
            at = max((order.index(p) + 1 for p in prev if p in order), default=0)
            order.insert(at, key)
    return {k: out[k] for k in order}


class _Merger:
    def __init__(self, name: str, new_lo: int, abouts: Mapping[str, str],
                 orders: Mapping[str, list[str]]) -> None:
        self.name = name
        self.new_lo = new_lo
        self.abouts = abouts
        self.orders = orders

    def old_name(self, new_name: str) -> str:
        return RENAMED_FIELDS.get((self.name, new_name), new_name)

    def fields(self, old: list[dict[str, Any]], new: list[dict[str, Any]], path: str) -> list[dict[str, Any]]:
        """Both lists merged by name, in an order consistent with each source's order."""
        old_by_name = {f["name"]: f for f in old}
        matched = {self.old_name(f["name"]) for f in new}
        out: list[dict[str, Any]] = []
        pending_old = [f for f in old]
        for nf in new:
            oname = self.old_name(nf["name"])
            if oname in old_by_name:  # first the old-only fields that come before it in the old list
                while pending_old and pending_old[0]["name"] != oname:
                    of = pending_old.pop(0)
                    if of["name"] not in matched:
                        out.append(self.field(of, None, path))
                pending_old.pop(0)
                out.append(self.field(old_by_name[oname], nf, path))
            else:
                out.append(self.field(None, nf, path))
        out.extend(self.field(of, None, path) for of in pending_old if of["name"] not in matched)
        return out

    def field(self, old: dict[str, Any] | None, new: dict[str, Any] | None, path: str) -> dict[str, Any]:
        base = new if new is not None else old
        assert base is not None
        fpath = f"{path}.{base['name']}" if path else base["name"]
        where = f"{self.name}.{fpath}"
        if old is not None and new is not None:
            if old["type"] != new["type"] and not self._renamed_type(old["type"], new["type"]):
                raise MergeError(f"{where}: type {old['type']} became {new['type']}")
            for key in ("tag", "mapKey", "entityType", "default", "ignorable", "zeroCopy"):
                if key in old and key in new and old[key] != new[key]:
                    # Not a wire change for versions both have; trunk's value stands (e.g. a default made
                    # explicit).  Reported so that a real change is seen when this runs.
                    print(f"note: {where}.{key}: 3.9 {old[key]!r}, trunk {new[key]!r}; trunk's kept", file=sys.stderr)
        out: dict[str, Any] = {}
        # Trunk's keys; of 3.9's, only the version ranges it alone has (non-range keys such as mapKey are
        # code-generation hints, not wire format: trunk's stand for the whole field).  ``ignorable`` (a value
        # may be dropped when writing a version without the field) holds if either says so: the union writes
        # the versions of both (RequestHeader.ClientId is ignorable for 3.9's header v0; OffsetCommit's topic
        # Name is for trunk's v10).
        keys = list(base) + [k for k in (old or {}) if k not in base and (k in RANGE_KEYS or k == "fields")]
        if old is not None and new is not None and (old.get("ignorable") is True or new.get("ignorable") is True):
            keys += [] if "ignorable" in keys else ["ignorable"]
        about = self.abouts.get(fpath)
        for key in keys:
            if key == "about":
                if about is not None:
                    out["about"] = about
                continue
            if key in RANGE_KEYS:
                if key == "versions" or key in (old or {}) or key in (new or {}):
                    if old is None:
                        merged = merge_range(None, new[key] if new and key in new else None, 0, where)
                    elif new is None:
                        merged = merge_range(old.get(key), None, self.new_lo, where)
                        if key == "versions" and merged is not None and merged != str(Versions.parse(old[key])):
                            raise MergeError(f"{where}: 3.9-only field reaches into trunk's versions ({old[key]})")
                    else:
                        merged = merge_range(old.get(key), new.get(key), self.new_lo, where)
                    if merged is not None:
                        out[key] = merged
                    elif key == "versions":
                        raise MergeError(f"{where}: no versions left")
                    elif key == "flexibleVersions":
                        out[key] = "none"  # an explicit "none" (RequestHeader.ClientId) is not a default
                continue
            if key == "ignorable" and old is not None and new is not None:
                out[key] = old.get(key) is True or new.get(key) is True
                continue
            if key == "fields":
                out[key] = self.fields((old or {}).get("fields", []) if old else [],
                                       (new or {}).get("fields", []) if new else [], fpath)
                continue
            out[key] = base[key] if key in base else (old or {})[key]
        if about is not None and "about" not in out:
            out["about"] = about
        return _ordered(out, self.orders.get(fpath))

    def _renamed_type(self, old_t: str, new_t: str) -> bool:
        def bare(t: str) -> str:
            return t[2:] if t.startswith("[]") else t

        return old_t.startswith("[]") == new_t.startswith("[]") and (
            RENAMED_FIELDS.get((self.name, bare(new_t))) == bare(old_t))


def merge(old: Mapping[str, Any] | None, new: Mapping[str, Any] | None, ours: Mapping[str, Any] | None,
          name: str) -> dict[str, Any]:
    """The union schema of 3.9's ``old`` and trunk's ``new`` (either may be None), with ``ours``' about texts."""
    abouts: dict[str, str] = {}
    orders: dict[str, list[str]] = {}
    if ours is not None:
        _index(ours, abouts, orders)
    top: Mapping[str, Any]
    if new is None or Versions.parse(new["validVersions"]).empty:
        # Removed in trunk (validVersions "none": LeaderAndIsr and friends): the 3.9 file as it was.
        if old is None:
            raise MergeError(f"{name}: no versions in either source")
        top = old
        old = None
    else:
        top = new
    new_lo = Versions.parse(top["validVersions"]).lo
    m = _Merger(name, new_lo, abouts, orders)
    out: dict[str, Any] = {}
    if "" in abouts:
        out["about"] = abouts[""]
    elif ours is None:
        if name not in NEW_FILE_ABOUTS:
            raise MergeError(f"{name}: a file new to kadmin needs its own top-level about (NEW_FILE_ABOUTS)")
        out["about"] = NEW_FILE_ABOUTS[name]
    # Trunk's keys; of 3.9's, only the version ranges it alone has (deprecatedVersions: trunk dropped them all).
    old_d: Mapping[str, Any] = old or {}
    keys = list(top) + [k for k in old_d if k not in top and k in ("flexibleVersions", "deprecatedVersions")]
    for key in keys:
        if key == "about":
            continue
        if key in ("validVersions", "flexibleVersions", "deprecatedVersions"):
            merged = merge_range(old_d.get(key), top.get(key), new_lo, f"{name}.{key}")
            if merged is not None:
                out[key] = merged
            elif key != "deprecatedVersions":
                out[key] = "none"
        elif key == "fields":
            out[key] = m.fields(list(old_d.get("fields", [])), list(top.get("fields", [])), "")
        elif key == "commonStructs":
            out[key] = _merge_structs(m, list(old_d.get(key, [])), list(top.get(key, [])))
        else:
            out[key] = top[key]
    return _ordered(out, orders.get(""))


def _merge_structs(m: _Merger, old: list[dict[str, Any]], new: list[dict[str, Any]]) -> list[dict[str, Any]]:
    old_by = {s["name"]: s for s in old}
    out: list[dict[str, Any]] = []
    for s in new:
        o = old_by.pop(s["name"], None)
        merged = {k: v for k, v in s.items() if k not in ("fields", "about", "versions")}
        merged["versions"] = merge_range(o.get("versions", "0+") if o else None, s.get("versions", "0+"),
                                         m.new_lo, f"{m.name}.{s['name']}") or "none"
        merged["fields"] = m.fields(o["fields"] if o else [], s["fields"], s["name"])
        out.append(merged)
    for o in old_by.values():
        out.append({k: v for k, v in o.items() if k != "about"})
    return out


def _load(folder: Path, name: str) -> Mapping[str, Any] | None:
    path = folder / f"{name}.json"
    return read_schema_json(path) if path.is_file() else None


def targets() -> list[tuple[Path, str]]:
    """(folder, name) for every file kadmin keeps, plus the new admin keys' files for specs/."""
    out = [(SHIPPED, p.stem) for p in sorted(SHIPPED.glob("*.json"))]
    out += [(FAKE, p.stem) for p in sorted(FAKE.glob("*.json")) if not p.stem.startswith("ListClientMetrics")]
    have = {n for _, n in out}
    for name in NEW_FILE_ABOUTS:
        if name not in have:
            out.append((SHIPPED, name))
    return sorted(out)


def build(reference: Path) -> dict[Path, str]:
    """Every file's new text, by path."""
    texts: dict[Path, str] = {}
    for folder, name in targets():
        old = _load(reference / "3.9", RENAMED_FILES.get(name, name))
        new = _load(reference / "trunk-2026", name)
        if old is None and new is None:
            raise MergeError(f"{name}: in neither reference folder")
        ours = _load(folder, name)
        merged = merge(old, new, ours, name)
        texts[folder / f"{name}.json"] = json.dumps(merged, indent=2) + "\n"
    return texts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reference", type=Path, default=REPO.parent / "shared" / "kafka-message-specs")
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 if a file would change")
    args = ap.parse_args(argv)
    texts = build(args.reference)
    changed = [p for p, t in texts.items() if not p.is_file() or p.read_text(encoding="utf-8") != t]
    stale = [FAKE / f"{old}.json" for old in RENAMED_FILES.values() if (FAKE / f"{old}.json").is_file()]
    if args.check:
        for p in changed + stale:
            print(f"would change: {p.relative_to(REPO)}")
        return 1 if changed or stale else 0
    for p in changed:
        p.write_text(texts[p], encoding="utf-8")
        print(f"wrote {p.relative_to(REPO)}")
    for p in stale:
        p.unlink()
        print(f"removed {p.relative_to(REPO)} (renamed in trunk)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
