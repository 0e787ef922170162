"""Usage errors that help: the subcommand's own help, and "did you mean" for a mistyped long option.

Why before argparse: argparse reports an unknown option only at the end, from the top-level parser (so the
message points at ``kadmin --help``, not at the command the person was typing), and an unknown option placed
before the command (``kadmin --bootstrap-servers HOST groups list``) makes argparse take HOST for the command
name ("invalid choice: '127.0.0.1:9092'").  Scanning the arguments for long options that no parser knows, first,
turns both into one line that names the typo, the closest real option and the right ``--help``.
"""

from __future__ import annotations

import argparse
import difflib
import re
from collections.abc import Iterator, Sequence


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _long_options(parser: argparse.ArgumentParser) -> set[str]:
    return {s for a in parser._actions for s in a.option_strings if s.startswith("--")}


def _all_parsers(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    yield parser
    seen: set[int] = set()
    for child in _subparsers(parser).values():
        if id(child) not in seen:
            seen.add(id(child))
            yield from _all_parsers(child)


def command_parser(parser: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.ArgumentParser:
    """The deepest (sub)command parser the arguments name, e.g. the parser of ``kadmin groups list``."""
    current = parser
    for token in argv:
        if token == "--":
            break
        children = _subparsers(current)
        if token in children:
            current = children[token]
    return current


def unknown_long_option(parser: argparse.ArgumentParser, argv: Sequence[str]) -> str | None:
    """The one-line error for the first ``--option`` that no parser of the command knows (nor abbreviates),
    with the closest known spelling, or None when every long option is known somewhere."""
    target = command_parser(parser, argv)
    everywhere = set().union(*(_long_options(p) for p in _all_parsers(parser)))
    for token in argv:
        if token == "--":
            break
        if not token.startswith("--") or token == "--":
            continue
        name = token.split("=", 1)[0]
        if any(opt.startswith(name) for opt in everywhere):
            continue  # known, or an abbreviation argparse resolves (or reports as ambiguous) itself
        here = sorted(_long_options(target))
        close = difflib.get_close_matches(name, here, n=1, cutoff=0.6)
        hint = f"; did you mean {close[0]}?" if close else ""
        return f"{target.prog}: error: unknown option {name}{hint} (see '{target.prog} --help')"
    return None


def unrecognized(parser: argparse.ArgumentParser, argv: Sequence[str], extras: Sequence[str]) -> str:
    """argparse's leftovers (an option of another command, a stray value) as one line from the command's own
    parser, with "did you mean" for an option."""
    target = command_parser(parser, argv)
    hint = ""
    options = [e.split("=", 1)[0] for e in extras if e.startswith("-")]
    if options:
        close = difflib.get_close_matches(options[0], sorted(_long_options(target)), n=1, cutoff=0.6)
        if close:
            hint = f"; did you mean {close[0]}?"
    return (f"{target.prog}: error: unrecognized arguments: {' '.join(extras)}{hint} "
            f"(see '{target.prog} --help')")


#: Options whose value may be a topic or directory id in Kafka's base64 form, which starts with '-' one time in 32.
ID_OPTIONS = ("--topic-id", "--controller-directory-id")
_BASE64_ID = re.compile(r"-[A-Za-z0-9_-]{21}")


def join_dash_ids(argv: Sequence[str]) -> list[str]:
    """``--topic-id -0oJcqVVSXi--5uQrveciQ`` as ``--topic-id=-0oJcqVVSXi--5uQrveciQ``: argparse would take a value
    that starts with '-' for an option, and Kafka prints such ids (its base64 alphabet has '-')."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        token = argv[i]
        if token in ID_OPTIONS and i + 1 < len(argv) and _BASE64_ID.fullmatch(argv[i + 1]):
            out.append(f"{token}={argv[i + 1]}")
            i += 2
            continue
        if token == "--":
            out.extend(argv[i:])
            break
        out.append(token)
        i += 1
    return out
