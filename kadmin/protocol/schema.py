"""Kafka's JSON message-schema format, parsed and checked.

The compiler trusts what this module hands it, so everything that could make generated code wrong
(unknown types, a tag used twice, a tagged field outside flexible versions, a struct nobody defined)
is refused here with a SchemaError that names the message and field.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kadmin.errors import SchemaError

PRIMITIVES = frozenset(
    {"bool", "int8", "int16", "uint16", "int32", "uint32", "int64", "float64", "string", "bytes", "records", "uuid"}
)
FIXED_WIDTH = {"bool": 1, "int8": 1, "int16": 2, "uint16": 2, "int32": 4, "uint32": 4, "int64": 8, "float64": 8,
               "uuid": 16}
# Kafka's spelling changed once ("boolean" in older READMEs); accept it on input.
_TYPE_ALIASES = {"boolean": "bool"}
MAX_VERSION = 0x7FFF


@dataclass(frozen=True)
class Versions:
    """An inclusive version range; ``lo > hi`` means "none"."""

    lo: int
    hi: int

    @staticmethod
    def parse(text: str | int | None, *, what: str = "versions") -> Versions:
        if text is None:
            return NONE
        if isinstance(text, int):
            return Versions(text, text)
        s = text.strip()
        if s == "none" or s == "":
            return NONE
        m = re.fullmatch(r"(\d+)(\+|-(\d+))?", s)
        if not m:
            raise SchemaError(f"invalid {what} {text!r}")
        lo = int(m.group(1))
        if m.group(2) is None:
            return Versions(lo, lo)
        if m.group(2) == "+":
            return Versions(lo, MAX_VERSION)
        hi = int(m.group(3))
        if hi < lo:
            raise SchemaError(f"invalid {what} {text!r}: upper bound below lower bound")
        return Versions(lo, hi)

    def __contains__(self, v: object) -> bool:
        return isinstance(v, int) and self.lo <= v <= self.hi

    @property
    def empty(self) -> bool:
        return self.lo > self.hi

    def intersect(self, other: Versions) -> Versions:
        return Versions(max(self.lo, other.lo), min(self.hi, other.hi))

    def __str__(self) -> str:
        if self.empty:
            return "none"
        if self.hi == MAX_VERSION:
            return f"{self.lo}+"
        return str(self.lo) if self.lo == self.hi else f"{self.lo}-{self.hi}"


NONE = Versions(1, 0)


@dataclass(frozen=True)
class FieldType:
    """A field's type: a primitive, a struct (by name), or an array of either."""

    name: str  # primitive name or struct name (element name for arrays)
    is_array: bool = False

    @property
    def is_struct(self) -> bool:
        return self.name not in PRIMITIVES

    @staticmethod
    def parse(text: str) -> FieldType:
        if text.startswith("[]"):
            inner = _TYPE_ALIASES.get(text[2:], text[2:])
            if not inner or inner.startswith("[]"):
                raise SchemaError(f"invalid array type {text!r}")
            return FieldType(inner, True)
        return FieldType(_TYPE_ALIASES.get(text, text), False)

    def __str__(self) -> str:
        return ("[]" if self.is_array else "") + self.name


@dataclass
class FieldSpec:
    name: str
    type: FieldType
    versions: Versions
    nullable: Versions = NONE
    tagged: Versions = NONE
    tag: int | None = None
    default: Any = None  # the raw "default" from the schema; the compiler interprets it per type
    ignorable: bool = False
    flexible: Versions | None = None  # field-level flexibleVersions override (RequestHeader.ClientId)
    fields: list[FieldSpec] | None = None  # inline struct definition
    entity_type: str | None = None
    map_key: bool = False
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False)


@dataclass
class StructSpec:
    name: str
    versions: Versions
    fields: list[FieldSpec]


@dataclass
class MessageSpec:
    name: str
    type: str  # request | response | header | data
    api_key: int | None
    valid: Versions
    flexible: Versions
    fields: list[FieldSpec]
    structs: dict[str, StructSpec]  # every struct by name: inline ones and commonStructs
    deprecated: Versions = NONE
    latest_unstable: bool = False
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False)


def strip_comments(text: str) -> str:
    """Remove ``//`` line comments that are outside strings (Kafka's files are JSON with comments)."""
    out: list[str] = []
    i, n = 0, len(text)
    in_str = False
    while i < n:
        c = text[i]
        if in_str:
            out.append(c)
            if c == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 2
                continue
            if c == '"':
                in_str = False
            i += 1
        elif c == '"':
            in_str = True
            out.append(c)
            i += 1
        elif c == "/" and i + 1 < n and text[i + 1] == "/":
            j = text.find("\n", i)
            i = n if j < 0 else j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def read_schema_json(source: str | Path | Mapping[str, Any]) -> Mapping[str, Any]:
    if isinstance(source, Mapping):
        return source
    path = Path(source)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SchemaError(f"cannot read schema {path}: {exc}") from exc
    try:
        obj = json.loads(strip_comments(text))
    except json.JSONDecodeError as exc:
        raise SchemaError(f"schema {path} is not valid JSON: {exc}") from exc
    if not isinstance(obj, dict):
        raise SchemaError(f"schema {path} is not a JSON object")
    return obj


def _bool(v: Any, where: str) -> bool:
    if isinstance(v, bool):
        return v
    if v in ("true", "false"):
        return bool(v == "true")
    raise SchemaError(f"{where}: expected a boolean, got {v!r}")


class _Parser:
    def __init__(self, msg_name: str, flexible: Versions) -> None:
        self.msg = msg_name
        self.flexible = flexible
        self.structs: dict[str, StructSpec] = {}
        self.references: list[tuple[str, str]] = []  # (struct name, where)

    def fields(self, raw_fields: Any, where: str, parent: Versions) -> list[FieldSpec]:
        if raw_fields is None:
            return []
        if not isinstance(raw_fields, list):
            raise SchemaError(f"{where}: 'fields' must be a list")
        out = [self.field(f, where, parent) for f in raw_fields]
        names = [f.name for f in out]
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise SchemaError(f"{where}: duplicate field names {sorted(dup)}")
        tags = [f.tag for f in out if f.tag is not None]
        duptags = {t for t in tags if tags.count(t) > 1}
        if duptags:
            raise SchemaError(f"{where}: tag(s) {sorted(duptags)} used more than once")
        return out

    def field(self, raw: Any, where: str, parent: Versions) -> FieldSpec:
        if not isinstance(raw, dict):
            raise SchemaError(f"{where}: a field must be an object")
        name = raw.get("name")
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z][A-Za-z0-9]*", name):
            raise SchemaError(f"{where}: invalid field name {name!r}")
        fwhere = f"{where}.{name}"
        t = raw.get("type")
        if not isinstance(t, str):
            raise SchemaError(f"{fwhere}: missing type")
        ftype = FieldType.parse(t)
        if "versions" in raw:
            versions = Versions.parse(raw["versions"], what=f"{fwhere} versions")
        elif "taggedVersions" in raw:  # as in Kafka: a tagged field's versions default to its taggedVersions
            versions = Versions.parse(raw["taggedVersions"], what=f"{fwhere} taggedVersions")
        else:
            raise SchemaError(f"{fwhere}: missing versions")
        nullable = Versions.parse(raw.get("nullableVersions"), what=f"{fwhere} nullableVersions")
        tagged = Versions.parse(raw.get("taggedVersions"), what=f"{fwhere} taggedVersions")
        tag = raw.get("tag")
        if isinstance(tag, str) and tag.isdigit():  # Kafka's own files spell a few tags as strings
            tag = int(tag)
        if tag is not None and (not isinstance(tag, int) or isinstance(tag, bool) or tag < 0):
            raise SchemaError(f"{fwhere}: invalid tag {tag!r}")
        if (tag is None) != tagged.empty:
            raise SchemaError(f"{fwhere}: 'tag' and 'taggedVersions' must be given together")
        if not tagged.empty:
            inside = tagged.intersect(versions)
            if not inside.empty and (inside.lo < self.flexible.lo or self.flexible.empty):
                raise SchemaError(f"{fwhere}: tagged in versions {tagged} that are not flexible ({self.flexible})")
        if not nullable.empty and not (ftype.is_array or ftype.is_struct or ftype.name in
                                       ("string", "bytes", "records", "uuid")):
            raise SchemaError(f"{fwhere}: type {ftype} cannot be nullable")
        flex_override = None
        if "flexibleVersions" in raw:
            flex_override = Versions.parse(raw["flexibleVersions"], what=f"{fwhere} flexibleVersions")
            if ftype.name not in ("string", "bytes") or ftype.is_array:
                raise SchemaError(f"{fwhere}: field-level flexibleVersions only applies to string or bytes")
        sub: list[FieldSpec] | None = None
        if ftype.is_struct:
            if ftype.name in PRIMITIVES:
                raise SchemaError(f"{fwhere}: {ftype.name} is a primitive")
            if not re.fullmatch(r"[A-Z][A-Za-z0-9]*", ftype.name):
                raise SchemaError(f"{fwhere}: invalid type {t!r}")
            if "fields" in raw:
                sub = self.fields(raw["fields"], f"{fwhere}", versions)
                if ftype.name in self.structs:
                    raise SchemaError(f"{fwhere}: struct {ftype.name} is defined more than once")
                self.structs[ftype.name] = StructSpec(ftype.name, versions, sub)
            else:
                self.references.append((ftype.name, fwhere))
        elif "fields" in raw:
            raise SchemaError(f"{fwhere}: a {ftype} field cannot have sub-fields")
        return FieldSpec(
            name=name,
            type=ftype,
            versions=versions,
            nullable=nullable,
            tagged=tagged,
            tag=tag,
            default=raw.get("default"),
            ignorable=_bool(raw.get("ignorable", False), f"{fwhere} ignorable"),
            flexible=flex_override,
            fields=sub,
            entity_type=raw.get("entityType"),
            map_key=_bool(raw.get("mapKey", False), f"{fwhere} mapKey"),
            raw=raw,
        )


def parse_schema(source: str | Path | Mapping[str, Any]) -> MessageSpec:
    """Parse and check one schema (a path to a Kafka-format JSON file, or the already-loaded dict)."""
    raw = read_schema_json(source)
    name = raw.get("name")
    if not isinstance(name, str) or not re.fullmatch(r"[A-Z][A-Za-z0-9]*", name):
        raise SchemaError(f"schema has an invalid name {name!r}")
    kind = raw.get("type")
    if kind not in ("request", "response", "header", "data", "metadata", "coordinator-key", "coordinator-value"):
        raise SchemaError(f"{name}: invalid type {kind!r}")
    api_key = raw.get("apiKey")
    if kind in ("request", "response") and not isinstance(api_key, int):
        raise SchemaError(f"{name}: request/response schemas need an integer apiKey")
    if "validVersions" not in raw:
        raise SchemaError(f"{name}: missing validVersions")
    # "none": an API Kafka removed but keeps a placeholder for (LeaderAndIsr, StopReplica, UpdateMetadata and
    # ControlledShutdown since 4.0: no flexibleVersions, no fields).  The class is built, with MIN_VERSION above
    # MAX_VERSION, so no version can be encoded or decoded and version negotiation never picks it.
    valid = Versions.parse(raw["validVersions"], what=f"{name} validVersions")
    flexible = Versions.parse(raw.get("flexibleVersions", "none"), what=f"{name} flexibleVersions")
    if not flexible.empty and flexible.hi != MAX_VERSION:
        raise SchemaError(f"{name}: flexibleVersions must be open-ended (N+) or none")
    p = _Parser(name, flexible)
    for cs in raw.get("commonStructs", []) or []:
        if not isinstance(cs, dict) or not isinstance(cs.get("name"), str):
            raise SchemaError(f"{name}: invalid commonStructs entry")
        sname = cs["name"]
        sv = Versions.parse(cs.get("versions", "0+"), what=f"{name}.{sname} versions")
        sfields = p.fields(cs.get("fields"), f"{name}.{sname}", sv)
        if sname in p.structs:
            raise SchemaError(f"{name}: struct {sname} is defined more than once")
        p.structs[sname] = StructSpec(sname, sv, sfields)
    fields = p.fields(raw.get("fields"), name, valid)
    for sname, where in p.references:
        if sname not in p.structs:
            raise SchemaError(f"{where}: unknown type {sname!r} (no inline fields and no commonStructs entry)")
    if name in p.structs:
        raise SchemaError(f"{name}: a struct may not share the message's name")
    return MessageSpec(
        name=name,
        type=kind,
        api_key=api_key if isinstance(api_key, int) else None,
        valid=valid,
        flexible=flexible,
        fields=fields,
        structs=p.structs,
        deprecated=Versions.parse(raw.get("deprecatedVersions"), what=f"{name} deprecatedVersions"),
        latest_unstable=bool(raw.get("latestVersionUnstable", False)),
        raw=raw,
    )
