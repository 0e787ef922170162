"""Parsing partition arguments shared by ``offsets``, ``records``, ``log-dirs``, ``leaders`` and ``reassignments``.

Why one parser: every one of these commands names partitions, and they should all read ``orders:0,1`` the same
way, refuse the same typos with the same words, and do it before connecting.  Topic names are checked with the
library's own rules (:func:`kadmin.topics.validate_topic_name`), so the CLI never accepts what the library
would refuse.  Kafka's legal topic characters exclude ``:`` and ``=``, so ``TOPIC:PARTITIONS`` and
``TOPIC:PARTITION=VALUE`` are never ambiguous.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from kadmin.cli.config import UsageError
from kadmin.topics import validate_topic_name
from kadmin.types import TopicPartition

_INT32_MAX = 2**31 - 1


def topic_name(text: str) -> str:
    try:
        return validate_topic_name(text)
    except (TypeError, ValueError) as exc:
        raise UsageError(str(exc)) from None


def number(text: str, what: str, lo: int = 0, hi: int = _INT32_MAX) -> int:
    try:
        value = int(text.strip())
    except ValueError:
        raise UsageError(f"{what} must be a whole number, not {text!r}") from None
    if not lo <= value <= hi:
        raise UsageError(f"{what} must be between {lo} and {hi}; got {value}")
    return value


def numbers(text: str, what: str) -> list[int]:
    """``0,1,2`` (duplicates dropped, order kept)."""
    parts = [p for p in text.split(",") if p.strip()]
    if not parts:
        raise UsageError(f"no {what} in {text!r}")
    return list(dict.fromkeys(number(p, what) for p in parts))


def topic_partitions(specs: Iterable[str]) -> tuple[list[str], list[TopicPartition]]:
    """``orders`` (a whole topic) or ``orders:0,2`` (those partitions) per argument: (whole topics, named
    partitions), each once and in order.  A partition named besides its whole topic stays named, so that one the
    topic lacks is still reported."""
    whole: list[str] = []
    named: list[TopicPartition] = []
    for spec in specs:
        topic, sep, parts = spec.rpartition(":") if ":" in spec else (spec, "", "")
        name = topic_name(topic)
        if sep:
            named.extend(TopicPartition(name, p) for p in numbers(parts, f"partition of {name}"))
        elif name not in whole:
            whole.append(name)
    if not whole and not named:
        raise UsageError("no topics given")
    return whole, list(dict.fromkeys(named))


def explicit_partitions(specs: Iterable[str]) -> list[TopicPartition]:
    """``orders:0,2`` per argument (the partitions must be named), as TopicPartitions in order."""
    whole, named = topic_partitions(specs)
    if whole:
        raise UsageError(f"name the partitions of {whole[0]} (as {whole[0]}:0,1,...)")
    return named


def assignment(spec: str, what: str, value: str) -> tuple[TopicPartition, str]:
    """``TOPIC:PARTITION=VALUE`` -> (partition, value text)."""
    key, eq, rest = spec.partition("=")
    if not eq or not rest.strip():
        raise UsageError(f"expected TOPIC:PARTITION={value}, not {spec!r}")
    topic, sep, part = key.rpartition(":")
    if not sep:
        raise UsageError(f"expected TOPIC:PARTITION={value}, not {spec!r} (the partition is missing)")
    return TopicPartition(topic_name(topic), number(part, f"partition in {spec!r}")), rest.strip()


def read_json_file(path: str) -> Any:
    """A JSON document from a file, or from stdin for ``-``."""
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{path} is not valid JSON: {exc}") from None


def json_partitions(doc: Any, path: str, value_key: str | None) -> list[tuple[TopicPartition, Any]]:
    """Kafka's tools' file shape: ``{"partitions": [{"topic": ..., "partition": ..., VALUE_KEY: ...}]}``."""
    items = doc.get("partitions") if isinstance(doc, dict) else None
    if not isinstance(items, list):
        raise UsageError(f"{path}: expected {{\"partitions\": [{{\"topic\": ..., \"partition\": ...}}, ...]}}")
    out: list[tuple[TopicPartition, Any]] = []
    for i, item in enumerate(items):
        where = f"{path}: partitions[{i}]"
        if not isinstance(item, dict):
            raise UsageError(f"{where} is not an object")
        topic, partition = item.get("topic"), item.get("partition")
        if not isinstance(topic, str):
            raise UsageError(f"{where}: \"topic\" must be a string")
        if isinstance(partition, bool) or not isinstance(partition, int) or not 0 <= partition <= _INT32_MAX:
            raise UsageError(f"{where}: \"partition\" must be a partition number")
        if value_key is not None and value_key not in item:
            raise UsageError(f"{where}: \"{value_key}\" is missing")
        out.append((TopicPartition(topic_name(topic), partition), item.get(value_key) if value_key else None))
    if not out:
        raise UsageError(f"{path}: no partitions")
    return out


def confirm(question: str, assume_yes: bool) -> None:
    """Ask on the terminal before a change that cannot be undone; without a terminal, ``--yes`` is required.
    A refusal is a UsageError (exit 2: nothing was done)."""
    if assume_yes:
        return
    if not sys.stdin or not sys.stdin.isatty():
        raise UsageError(f"{question} -- refusing without --yes (stdin is not a terminal to confirm on)")
    sys.stderr.write(f"{question} [y/N] ")
    sys.stderr.flush()
    answer = sys.stdin.readline().strip().lower()
    if answer not in ("y", "yes"):
        raise UsageError("not confirmed; nothing was done")
