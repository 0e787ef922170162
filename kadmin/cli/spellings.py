"""Kafka's shell-tool spellings beside kadmin's own: ``--topic NAME`` and ``--group ID`` where kadmin takes
positional names, ``--all-groups``, and topic ids in Kafka's base64 form.

Why both: an operator's runbook says ``kafka-topics.sh --describe --topic orders``; refusing ``--topic`` there
costs a look at ``--help`` for nothing.  The two spellings mean the same and can be mixed.
Kafka's tools print topic ids as URL-safe base64 without padding (22 characters), so kadmin prints them that
way too and takes either form.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import uuid
from collections.abc import Sequence

from kadmin.cli.config import UsageError


def add_topic_flag(p: argparse.ArgumentParser, what: str = "a topic") -> None:
    spelled = what if "spells it" in what else f"{what}, as kafka-topics.sh spells it"
    p.add_argument("--topic", action="append", default=[], dest="topic_flags", metavar="TOPIC",
                   help=f"{spelled} (repeatable; same as the positional TOPIC)")


def add_group_flag(p: argparse.ArgumentParser, *, all_groups: bool = True) -> None:
    p.add_argument("--group", action="append", default=[], dest="group_flags", metavar="GROUP",
                   help="a group, as kafka-consumer-groups.sh spells it (repeatable; same as the positional GROUP)")
    if all_groups:
        p.add_argument("--all-groups", action="store_true", help="every consumer group of the cluster")


def merged(positional: Sequence[str] | None, flagged: Sequence[str], what: str, *, required: bool = True) -> list[str]:
    """The names given either way, positional ones first (a name given twice stays twice, for the library's
    checks to refuse where a duplicate means a mistake); none at all is a usage error when ``required``."""
    names = [*(positional or []), *flagged]
    if required and not names:
        raise UsageError(f"name at least one {what} (positionally or with --{what})")
    return names


def one(positional: str | None, flagged: Sequence[str], what: str) -> str:
    """The single name a command takes (``groups reset-offsets GROUP`` or ``--group GROUP``)."""
    names = list(dict.fromkeys(merged([positional] if positional is not None else [], flagged, what)))
    if len(names) > 1:
        raise UsageError(f"this command takes one {what}, not {len(names)} ({', '.join(names)})")
    return names[0]


def base64_id(value: uuid.UUID) -> str:
    """A topic id as Kafka's tools print it: URL-safe base64 of the 16 bytes, without padding."""
    return base64.urlsafe_b64encode(value.bytes).decode("ascii").rstrip("=")


def topic_id_text(topic_id: uuid.UUID | None) -> str | None:
    return None if topic_id is None else base64_id(topic_id)


def parse_topic_id(text: str) -> uuid.UUID:
    """A topic id in Kafka's base64 form (``f3feKK4KQ8ahxv70POUcCQ``) or as a UUID."""
    t = text.strip()
    if len(t) == 22:
        try:
            raw = base64.urlsafe_b64decode(t + "==")
        except (binascii.Error, ValueError):
            raw = b""
        if len(raw) == 16:
            return uuid.UUID(bytes=raw)
    try:
        return uuid.UUID(t)
    except ValueError:
        raise UsageError(f"--topic-id {text!r} is neither Kafka's base64 form (22 characters, like "
                         "f3feKK4KQ8ahxv70POUcCQ) nor a UUID") from None
