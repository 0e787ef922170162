"""Policies checked at plan time: a JSON file of named rules that a tenant spec's rows must follow.

A policy is what a platform team promises about every tenant (names, replication, partition counts, configs
nobody may set, grants nobody may get, SCRAM strength, quota ceilings), checked where the plan already checks
each row's own content (:mod:`kadmin.spark.kinds`: each kind's rules are SQL over its desired rows), so a
million rows stay in Spark and a violating row is ``rejected`` with the rule's name, as a malformed row is:
nothing is sent for it, what depends on it is skipped, and the other rows go on.  No policy: the rows are not
touched at all.

The file format (docs/provision.md, "Policies")::

    {"rules": [{"name": "min-rf", "kind": "min_replication_factor", "min": 3}, ...]}

Why JSON: kadmin supports Python 3.10, which has no ``tomllib``, and YAML would be a dependency; JSON is in
the standard library everywhere.

Why everything is checked when the file is read: a rule with a typo (an unknown kind or field, a pattern that
does not compile, a count given as text) must stop the run before Spark starts, naming the file and the rule,
and never become a rule that silently checks nothing.  Each rule's SQL is built then too, from escaped
literals only (:func:`~kadmin.spark.sqltext.sql_string`).

Pure: no PySpark import at module level, so the CLI reads a policy before Spark starts.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kadmin.acls import AclOperation, AclPermissionType, PatternType, ResourceType
from kadmin.spark.sqltext import sql_name, sql_string

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


class PolicyError(ValueError):
    """A policy file (or mapping) that cannot be used: unreadable, not JSON, or a rule that is wrong.  The
    message names the file, the rule and what is wrong; raised before any Spark job runs."""


@dataclass(frozen=True)
class Rule:
    """One named rule: its kind, the spec kind whose rows it checks, and the SQL giving a violating row's
    reason (null for a row that conforms), over that kind's desired columns."""

    name: str
    kind: str
    checks: str  # the spec kind: topics, topic_configs, acls, scram_users, quotas
    reason_sql: str


@dataclass(frozen=True)
class Policy:
    """The rules of one policy file, in file order; ``source`` names the file in messages."""

    rules: tuple[Rule, ...]
    source: str = "<policy>"

    def rules_for(self, kind: str) -> tuple[Rule, ...]:
        return tuple(r for r in self.rules if r.checks == kind)

    def check(self, kind: str, desired: DataFrame) -> DataFrame:
        """``desired`` (a kind's checked rows, with a ``reason`` column, null for a valid row) with every
        violated rule's reason added to ``reason``: one ``selectExpr``, the row's own reasons first."""
        rules = self.rules_for(kind)
        if not rules:
            return desired
        joined = ", ".join(["reason", *(r.reason_sql for r in rules)])
        cols = [f"nullif(concat_ws('; ', {joined}), '') AS reason" if c == "reason" else sql_name(c)
                for c in desired.columns]
        return desired.selectExpr(*cols)


# --- field parsers: each returns the value or raises ValueError with what is wrong ------------------------


def _int(lo: int) -> Callable[[object], int]:
    def parse(v: object) -> int:
        if isinstance(v, bool) or not isinstance(v, int):
            raise ValueError(f"must be a whole number, not {json.dumps(v)}")
        if v < lo:
            raise ValueError(f"must be at least {lo}, not {v}")
        return v
    return parse


def _number(v: object) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v != v or v in (float("inf"), float("-inf")):
        raise ValueError(f"must be a finite number, not {json.dumps(v)}")
    if v < 0:
        raise ValueError(f"must be at least 0, not {v}")
    return float(v)


def _text(v: object) -> str:
    if not isinstance(v, str) or not v:
        raise ValueError(f"must be non-empty text, not {json.dumps(v)}")
    return v


def _texts(v: object) -> tuple[str, ...]:
    """A list of non-empty strings (one string is a list of one)."""
    items = [v] if isinstance(v, str) else v
    if not isinstance(items, list) or not items:
        raise ValueError(f"must be a string or a non-empty list of strings, not {json.dumps(v)}")
    return tuple(_text(i) for i in items)


def _enum_names(enum: Any, skip: tuple[str, ...] = ("ANY", "UNKNOWN")) -> Callable[[object], tuple[str, ...]]:
    """A list of an ACL enum's names, in Kafka's spelling (any case, ``-`` or spaces for ``_``)."""
    known = [m.name for m in enum if m.name not in skip]

    def parse(v: object) -> tuple[str, ...]:
        out = []
        for t in _texts(v):
            name = re.sub(r"[- ]", "_", t.strip().upper())
            if name not in known:
                raise ValueError(f"has {t!r}, which is not one of {', '.join(known)}")
            out.append(name)
        return tuple(dict.fromkeys(out))
    return parse


def _pattern(v: object) -> str:
    """A regular expression, checked with Python's ``re`` (Spark evaluates it with Java's: the syntax both
    share; Python's own ``(?P<name>...)`` is refused, Java spells it ``(?<name>...)``)."""
    text = _text(v)
    if "(?P" in text:
        raise ValueError("uses (?P...), Python's named-group syntax: Spark's (Java's) regular expressions "
                         "spell it (?<name>...)")
    try:
        re.compile(text)
    except re.error as exc:
        raise ValueError(f"{text!r} is not a regular expression: {exc}") from None
    return text


# --- SQL pieces ---------------------------------------------------------------------------------------------


def _prefixed(col: str, prefixes: tuple[str, ...] | None) -> str:
    """SQL: ``col`` starts with one of ``prefixes`` (None: every row)."""
    if not prefixes:
        return "true"
    return "(" + " OR ".join(f"left({col}, {len(p)}) = {sql_string(p)}" for p in prefixes) + ")"


#: SQL: a row's ``user`` as the principal a ``principals`` prefix is compared with.
_AS_PRINCIPAL = "concat('User:', user)"


def _in(col: str, values: tuple[str, ...]) -> str:
    return f"{col} IN ({', '.join(sql_string(v) for v in values)})"


def _reason(rule: str, kind: str, detail: str, cond: str, *what: str) -> str:
    """``CASE WHEN cond THEN 'policy rule 'NAME' (KIND DETAIL): ' || what END`` (``what``: SQL pieces)."""
    head = sql_string(f"policy rule '{rule}' ({kind}{' ' + detail if detail else ''}): ")
    return f"CASE WHEN {cond} THEN concat({', '.join((head, *what))}) END"


def _num_text(x: float) -> str:
    return str(int(x)) if x.is_integer() and abs(x) < 2**53 else repr(x)


Params = Mapping[str, Any]


def _topic_name(rule: str, p: Params) -> str:
    cond = (f"name IS NOT NULL AND {_prefixed('name', p.get('topics'))} AND "
            f"NOT name RLIKE {sql_string('^(?:' + p['pattern'] + ')$')}")
    return _reason(rule, "topic_name", p["pattern"], cond, "'topic name ', name, ' does not match'")


def _min_rf(rule: str, p: Params) -> str:
    cond = f"rf IS NOT NULL AND rf < {p['min']} AND {_prefixed('name', p.get('topics'))}"
    return _reason(rule, "min_replication_factor", str(p["min"]), cond,
                   "'replication_factor ', CAST(rf AS STRING)")


def _partitions(rule: str, p: Params) -> str:
    lo, hi = p.get("min"), p.get("max")
    bounds = [f"partitions < {lo}"] if lo is not None else []
    bounds += [f"partitions > {hi}"] if hi is not None else []
    detail = f"{'' if lo is None else lo}..{'' if hi is None else hi}"
    cond = f"partitions IS NOT NULL AND ({' OR '.join(bounds)}) AND {_prefixed('name', p.get('topics'))}"
    return _reason(rule, "partitions", detail, cond, "'partitions ', CAST(partitions AS STRING)")


def _min_isr(rule: str, p: Params) -> str:
    n = "try_cast(trim(value) AS BIGINT)"
    cond = (f"config = 'min.insync.replicas' AND value IS NOT NULL AND ({n} IS NULL OR {n} < {p['min']}) "
            f"AND {_prefixed('topic', p.get('topics'))}")
    return _reason(rule, "min_insync_replicas", str(p["min"]), cond, "'min.insync.replicas ', value")


def _forbidden_configs(rule: str, p: Params) -> str:
    values = p.get("values")
    cond = f"value IS NOT NULL AND {_in('config', p['configs'])} AND {_prefixed('topic', p.get('topics'))}"
    if values is not None:
        cond += f" AND {_in('lower(trim(value))', tuple(v.strip().lower() for v in values))}"
    detail = ",".join(p["configs"]) + ("" if values is None else "=" + "|".join(values))
    return _reason(rule, "forbidden_configs", detail, cond, "config, '=', value")


#: Operations that imply another when allowed (Kafka's authorizer): forbidding DESCRIBE forbids these too.
_IMPLIES = {"DESCRIBE": ("READ", "WRITE", "DELETE", "ALTER"), "DESCRIBE_CONFIGS": ("ALTER_CONFIGS",)}


def _operations(ops: tuple[str, ...]) -> tuple[str, ...]:
    """``ops`` with ALL and every operation that implies one of them: a grant of any of these grants one of
    ``ops``, so forbidding ALTER without ALL would be one word from bypassed."""
    more = [o for op in ops for o in _IMPLIES.get(op, ())]
    return tuple(dict.fromkeys((*ops, *more, "ALL")))


_ACL_TEXT = ("permission, ' ', operation, ' on ', resource_type, ':', pattern_type, ':', resource_name, "
             "' to ', principal")


def _forbidden_acls(rule: str, p: Params) -> str:
    conds = [_in("permission", p.get("permissions", ("ALLOW",))), _prefixed("principal", p.get("principals"))]
    detail = []
    for field, col in (("resource_types", "resource_type"), ("operations", "operation"),
                       ("resource_names", "resource_name"), ("pattern_types", "pattern_type")):
        if field in p:
            values = _operations(p[field]) if field == "operations" else p[field]
            conds.append(_in(col, values))
            detail.append(f"{field}={','.join(p[field])}")
    return _reason(rule, "forbidden_acls", " ".join(detail), " AND ".join(conds), _ACL_TEXT)


def _min_prefixed(rule: str, p: Params) -> str:
    types = p.get("resource_types")
    cond = (f"pattern_type = 'PREFIXED' AND length(resource_name) < {p['min']} AND "
            f"{_in('resource_type', types) if types else 'true'} AND "
            f"{_prefixed('principal', p.get('principals'))}")
    return _reason(rule, "min_prefixed_length", str(p["min"]), cond,
                   "'PREFIXED ', resource_type, ':', resource_name, ' is ', "
                   "CAST(length(resource_name) AS STRING), ' character(s)'")


def _max_quota(rule: str, p: Params) -> str:
    principals = p.get("principals")
    who = f"user IS NOT NULL AND {_prefixed(_AS_PRINCIPAL, principals)}" if principals else "true"
    most = f"CAST({sql_string(repr(p['max']))} AS DOUBLE)"
    cond = f"quota_key = {sql_string(p['quota_key'])} AND value IS NOT NULL AND value > {most} AND {who}"
    # A whole number shown without ".0"; no floor(), which overflows a long (an error under ANSI) on a huge value.
    shown = ("CASE WHEN NOT abs(value) < 1e15 THEN CAST(value AS STRING) "
             "WHEN value % 1.0D = 0.0D THEN CAST(CAST(value AS BIGINT) AS STRING) ELSE CAST(value AS STRING) END")
    return _reason(rule, "max_quota", f"{p['quota_key']} {_num_text(p['max'])}", cond,
                   "quota_key, ' ', " + shown)


_MECHANISMS = ("SCRAM-SHA-256", "SCRAM-SHA-512")


def _mechanisms(v: object) -> tuple[str, ...]:
    """SCRAM mechanisms as the spec spells them (``SCRAM-SHA-512``, ``sha_512``...)."""
    out = []
    for t in _texts(v):
        m = t.strip().upper().replace("_", "-")
        m = m if m.startswith("SCRAM-") else "SCRAM-" + m
        if m not in _MECHANISMS:
            raise ValueError(f"has {t!r}, which is not one of {', '.join(_MECHANISMS)}")
        out.append(m)
    return tuple(dict.fromkeys(out))


def _scram(rule: str, p: Params) -> str:
    weak = ([f"NOT {_in('mechanism', p['mechanisms'])}"] if "mechanisms" in p else []) + \
        ([f"iterations < {p['min_iterations']}"] if "min_iterations" in p else [])
    cond = f"({' OR '.join(weak)}) AND {_prefixed(_AS_PRINCIPAL, p.get('principals'))}"
    detail = " ".join(f"{f}={','.join(p[f]) if f == 'mechanisms' else p[f]}"
                      for f in ("mechanisms", "min_iterations") if f in p)
    return _reason(rule, "scram_credentials", detail, cond,
                   "mechanism, ' with ', CAST(iterations AS STRING), ' iterations'")


# --- rule kinds ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RuleKind:
    """What a rule kind checks (``checks``: the spec kind), its fields ({name: (parser, required)}), a check
    across its fields, and the SQL of a violation's reason."""

    checks: str
    fields: Mapping[str, tuple[Callable[[object], Any], bool]]
    sql: Callable[[str, Params], str]
    across: Callable[[Params], str | None] = lambda p: None


_TOPICS = {"topics": (_texts, False)}
_PRINCIPALS = {"principals": (_texts, False)}


def _bounds(p: Params) -> str | None:
    if "min" not in p and "max" not in p:
        return "needs 'min', 'max' or both"
    if "min" in p and "max" in p and p["min"] > p["max"]:
        return f"'min' {p['min']} is above 'max' {p['max']}"
    return None


def _scram_fields(p: Params) -> str | None:
    if {"mechanisms", "min_iterations"} & set(p):
        return None
    return "needs 'mechanisms', 'min_iterations' or both"


def _some_filter(p: Params) -> str | None:
    if not {"resource_types", "operations", "resource_names", "pattern_types", "principals"} & set(p):
        return "needs at least one of resource_types, operations, resource_names, pattern_types, principals"
    return None


#: Every rule kind a policy may use: docs/provision.md ("Policies") describes each.
RULE_KINDS: dict[str, RuleKind] = {
    "topic_name": RuleKind("topics", {"pattern": (_pattern, True), **_TOPICS}, _topic_name),
    "min_replication_factor": RuleKind("topics", {"min": (_int(1), True), **_TOPICS}, _min_rf),
    "partitions": RuleKind("topics", {"min": (_int(1), False), "max": (_int(1), False), **_TOPICS},
                           _partitions, _bounds),
    "min_insync_replicas": RuleKind("topic_configs", {"min": (_int(1), True), **_TOPICS}, _min_isr),
    "forbidden_configs": RuleKind("topic_configs", {"configs": (_texts, True), "values": (_texts, False),
                                                    **_TOPICS}, _forbidden_configs),
    "forbidden_acls": RuleKind("acls", {
        "resource_types": (_enum_names(ResourceType), False),
        "operations": (_enum_names(AclOperation), False),
        "resource_names": (_texts, False),
        "pattern_types": (_enum_names(PatternType, ("ANY", "MATCH", "UNKNOWN")), False),
        "permissions": (_enum_names(AclPermissionType), False),
        **_PRINCIPALS}, _forbidden_acls, _some_filter),
    "min_prefixed_length": RuleKind("acls", {
        "min": (_int(1), True), "resource_types": (_enum_names(ResourceType), False), **_PRINCIPALS},
        _min_prefixed),
    "scram_credentials": RuleKind("scram_users", {"mechanisms": (_mechanisms, False),
                                                  "min_iterations": (_int(1), False), **_PRINCIPALS},
                                  _scram, _scram_fields),
    "max_quota": RuleKind("quotas", {"quota_key": (_text, True), "max": (_number, True), **_PRINCIPALS},
                          _max_quota),
}
_COMMON = ("name", "kind", "description")


# --- reading ------------------------------------------------------------------------------------------------


def _rule(raw: object, index: int, seen: set[str]) -> Rule:
    """One rule from its JSON object; ValueError (with the rule named) when anything in it is wrong."""
    if not isinstance(raw, dict):
        raise ValueError(f"rule #{index + 1} must be an object, not {json.dumps(raw)}")
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"rule #{index + 1} needs a 'name' (non-empty text), has {json.dumps(name)}")
    where = f"rule {name!r}"
    if name in seen:
        raise ValueError(f"{where}: the name is used by an earlier rule")
    seen.add(name)
    kind = raw.get("kind")
    rk = RULE_KINDS.get(kind) if isinstance(kind, str) else None
    if rk is None or not isinstance(kind, str):
        raise ValueError(f"{where}: unknown kind {json.dumps(kind)} (one of {', '.join(RULE_KINDS)})")
    where = f"rule {name!r} ({kind})"
    if not isinstance(raw.get("description", ""), str):
        raise ValueError(f"{where}: 'description' must be text")
    unknown = sorted(set(raw) - set(rk.fields) - set(_COMMON))
    if unknown:
        raise ValueError(f"{where}: unknown field(s) {', '.join(unknown)} (it takes {', '.join(rk.fields)})")
    params: dict[str, Any] = {}
    for field, (parse, required) in rk.fields.items():
        if field not in raw:
            if required:
                raise ValueError(f"{where}: missing field {field!r}")
            continue
        try:
            params[field] = parse(raw[field])
        except ValueError as exc:
            raise ValueError(f"{where}: {field!r} {exc}") from None
    problem = rk.across(params)
    if problem is not None:
        raise ValueError(f"{where}: {problem}")
    return Rule(name, kind, rk.checks, rk.sql(name, params))


def parse_policy(data: object, source: str = "<policy>") -> Policy:
    """A :class:`Policy` from a decoded policy document (``{"rules": [...]}``); :class:`PolicyError` naming
    ``source`` and the rule when anything in it is wrong."""
    try:
        if not isinstance(data, dict):
            raise ValueError(f"must be a JSON object with a 'rules' list, not {type(data).__name__}")
        unknown = sorted(set(data) - {"rules", "description"})
        if unknown:
            raise ValueError(f"unknown top-level field(s) {', '.join(unknown)} (rules, description)")
        rules = data.get("rules")
        if not isinstance(rules, list):
            raise ValueError(f"'rules' must be a list of rules, not {json.dumps(rules)}")
        seen: set[str] = set()
        return Policy(tuple(_rule(r, i, seen) for i, r in enumerate(rules)), source)
    except ValueError as exc:
        raise PolicyError(f"policy {source}: {exc}") from None


def load_policy(path: str | os.PathLike[str]) -> Policy:
    """The policy in the JSON file ``path``; :class:`PolicyError` (a ValueError) naming the file, and the rule
    and what is wrong with it, when it cannot be read or used."""
    source = os.fspath(path)
    try:
        with open(source, encoding="utf-8") as f:
            text = f.read()
    except OSError as exc:
        raise PolicyError(f"policy {source}: cannot read it: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise PolicyError(f"policy {source}: not UTF-8 text") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}, column {exc.colno}"
        raise PolicyError(f"policy {source}: not JSON: {exc.msg} ({where})") from None
    return parse_policy(data, source)


PolicyLike = Policy | str | os.PathLike[str] | Mapping[str, Any] | None


def as_policy(policy: PolicyLike) -> Policy | None:
    """A :class:`Policy` from itself, a file's path, or a decoded document (a mapping); None stays None."""
    if policy is None or isinstance(policy, Policy):
        return policy
    if isinstance(policy, (str, os.PathLike)):
        return load_policy(policy)
    if isinstance(policy, Mapping):
        return parse_policy(dict(policy))
    raise TypeError(f"policy must be a Policy, a file's path or a mapping, not {type(policy).__name__}")


__all__ = ["RULE_KINDS", "Policy", "PolicyError", "PolicyLike", "Rule", "RuleKind", "as_policy",
           "load_policy", "parse_policy"]
