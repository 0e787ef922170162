"""mkdocs hooks that generate the site's reference pages from the code, at every build.

* ``reference/cli.md``: every command, subcommand and option of ``kadmin``, walked from the argument parser
  that ``kadmin.cli.main.build_parser()`` builds.  A command registered later appears with no edit here.
* ``reference/api/*.md``: one mkdocstrings ``:::`` directive per public name, read from each package's
  ``__all__`` (``kadmin``, ``kadmin.aio``, ``kadmin.testing``, ``kadmin.spark``), grouped by the module that
  defines it.  A name exported later appears with no edit here; a name without a docstring still appears
  (with its signature), so a missing docstring shows on the site instead of hiding a name.
* ``reference/api/errors.md`` also lists the error class of every Kafka error code (kadmin.errors makes
  them at import, so no static reader sees them).
* ``changelog.md``: the repository's CHANGELOG.md, which lives at the top of the repository where people and
  packaging tools look for it.

Why generated pages rather than hand-written lists: other people add commands and methods every day; a list
kept by hand is stale the day after.  The hooks import kadmin (cheap: its public names load lazily) but never
PySpark: ``kadmin.spark``'s defining modules are read from its ``_EXPORTS`` table, and its API pages are
rendered from source by mkdocstrings.

    python scripts/docs_hooks.py cli     # print the CLI reference (what the site shows) without mkdocs
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The packages whose public names the API reference covers, with the page each goes to and its intro.
API_PAGES: dict[str, tuple[str, str, str]] = {
    "kadmin": ("reference/api/kadmin.md", "kadmin: the public types",
               "Every public name of `kadmin` other than the clients, by the module that defines it. All are "
               "importable from `kadmin` itself (`from kadmin import NewTopic`): the module names below say "
               "where the code lives. The clients have pages of their own: "
               "[kadmin.AdminClient](sync-client.md) and [kadmin.aio.AdminClient](async-client.md), and the "
               "errors (`from kadmin import KafkaError` too) are on [the errors page](errors.md)."),
    "kadmin.testing": ("reference/api/testing.md", "kadmin.testing: the fake cluster",
                       "The in-process fake Kafka cluster and its pytest plugin "
                       "(guide: [Testing with FakeCluster](../../guides/testing.md))."),
    "kadmin.spark": ("reference/api/spark.md", "kadmin.spark: provisioning from Spark",
                     "Quota and tenant provisioning from Spark DataFrames (the `[spark]` extra; guide: "
                     "[Provisioning](../../provision.md)). PySpark is imported only when one of these names "
                     "is first used."),
}

#: Packages whose classes are assembled from mixins (FakeCluster's seeding and inspection methods live in
#: one mixin per state area): their pages show inherited members, or most of FakeCluster would be missing.
INHERITED = {"kadmin.testing"}

#: Names documented on a page of their own rather than with the package's other names.
OWN_PAGE = {("kadmin", "AdminClient"): "reference/api/sync-client.md"}


# --- the CLI reference ----------------------------------------------------------------------------------------


def _cell(text: str) -> str:
    """Plain text (argparse's help) for a Markdown table cell: one line, pipes, emphasis marks and backslashes
    escaped (``sasl.*`` is not the start of italics), HTML's brackets neutralised."""
    text = " ".join(text.split())
    for mark in ("\\", "*", "_", "`"):
        text = text.replace(mark, "\\" + mark)
    return text.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")


def _prose(text: str) -> str:
    """A description as a Markdown paragraph (argparse's own text is plain; brackets would be read as HTML)."""
    return _cell(text).replace("\\|", "|")


@dataclass(frozen=True)
class Command:
    """One parser in the tree: its full name (``kadmin groups list``), parser, and the help its parent gave."""

    name: str
    parser: argparse.ArgumentParser
    summary: str


def walk(parser: argparse.ArgumentParser, name: str = "kadmin", summary: str = "") -> Iterator[Command]:
    """Every parser reachable from ``parser``, depth first, each once (aliases point to the same parser)."""
    yield Command(name, parser, summary)
    for action in parser._actions:
        if not isinstance(action, argparse._SubParsersAction):
            continue
        helps = {a.dest: a.help or "" for a in action._choices_actions}
        seen: set[int] = set()
        for sub_name, sub in action.choices.items():
            if id(sub) in seen:
                continue
            seen.add(id(sub))
            aliases = [n for n, p in action.choices.items() if p is sub and n != sub_name]
            label = sub_name + (f" ({', '.join(aliases)})" if aliases else "")
            yield from walk(sub, f"{name} {sub_name}", helps.get(sub_name, "") or helps.get(label, ""))


def _option_row(action: argparse.Action, formatter: argparse.HelpFormatter) -> str:
    if action.option_strings:
        names = ", ".join(f"`{s}`" for s in action.option_strings)
        if action.nargs != 0:
            metavar = formatter._format_args(action, action.dest.upper())
            names += f" `{metavar}`"
    else:
        names = f"`{formatter._format_args(action, action.dest)}`"
    help_text = formatter._expand_help(action) if action.help else ""
    extra = []
    if action.choices is not None and not isinstance(action, argparse._SubParsersAction):
        choices = ", ".join(f"`{c}`" for c in action.choices)
        if choices and all(f"{c}" not in help_text for c in action.choices):
            extra.append(f"one of {choices}")
    if action.required and action.option_strings:
        extra.append("required")
    cell = _cell(help_text) + ("" if not extra else (" " if help_text else "") + f"({'; '.join(extra)})")
    return f"| {names} | {cell} |"


#: Usage lines wrapped at this width whatever the terminal that builds the site (argparse asks the terminal).
USAGE_WIDTH = 88


def _usage(parser: argparse.ArgumentParser) -> str:
    formatter = parser.formatter_class(prog=parser.prog, width=USAGE_WIDTH)  # type: ignore[call-arg]
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups)
    return formatter.format_help().strip().removeprefix("usage: ")


def _is_global(action: argparse.Action, global_options: set[str]) -> bool:
    return bool(action.option_strings) and set(action.option_strings) <= global_options


def cli_reference(parser: argparse.ArgumentParser) -> str:
    """The Markdown page: global options once, then one section per command with its usage and options."""
    commands = list(walk(parser))
    top = commands[0].parser
    global_options = {s for a in top._actions for s in a.option_strings if not isinstance(a, argparse._HelpAction)}
    out = [
        "# CLI reference",
        "",
        "Generated from `kadmin`'s argument parser at every build of this site: every command, subcommand "
        "and option the installed `kadmin` has. The [command line guide](../cli.md) says what each command "
        "prints and its JSON format; `kadmin COMMAND --help` says the same as this page.",
        "",
        "The global options below may be given before the command or after it "
        "(`kadmin groups list -b broker:9092`), as with Kafka's own tools.",
        "",
    ]
    for cmd in commands:
        formatter = cmd.parser._get_formatter()
        level = "#" * min(1 + cmd.name.count(" "), 4)
        if cmd.parser is top:
            out += ["## Global options", ""]
        else:
            out += [f"{level} `{cmd.name}`", ""]
        if cmd.summary:
            out += [_prose(cmd.summary[0].upper() + cmd.summary[1:]) + ".", ""]
        if cmd.parser.description and cmd.parser is not top:
            out += [_prose(cmd.parser.description), ""]
        usage = _usage(cmd.parser)
        out += ["```text", usage, "```", ""]
        rows = [a for a in cmd.parser._actions
                if not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction))
                and a.help != argparse.SUPPRESS
                and (cmd.parser is top or not _is_global(a, global_options))]
        if rows:
            out += ["| argument | meaning |", "| --- | --- |"]
            out += [_option_row(a, formatter) for a in rows]
            out.append("")
        subs = [a for a in cmd.parser._actions if isinstance(a, argparse._SubParsersAction)]
        for action in subs:
            out += ["| command | what it does |", "| --- | --- |"]
            for choice in action._choices_actions:
                anchor = _slug(f"{cmd.name} {choice.dest}")
                out.append(f"| [`{choice.dest}`](#{anchor}) | {_cell(choice.help or '')} |")
            out.append("")
        if cmd.parser is top and cmd.parser.epilog:
            out += [_prose(cmd.parser.epilog), ""]
    return "\n".join(out)


def _slug(heading: str) -> str:
    """The anchor mkdocs' table of contents gives a heading (Python-Markdown's default slugify)."""
    text = re.sub(r"[^\w\s-]", "", heading).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


# --- the API reference ----------------------------------------------------------------------------------------


def public_names(package: str) -> list[str]:
    """The package's ``__all__``, dunder names (``__version__``) left out."""
    module = importlib.import_module(package)
    return [n for n in module.__all__ if not n.startswith("__")]


def defining_module(package: str, name: str) -> str:
    """Where ``package.name`` is defined: the package's lazy-export table when it has one (so that kadmin.spark
    is not imported for real, which would need PySpark), else the object's ``__module__``."""
    module = importlib.import_module(package)
    table = getattr(module, "_EXPORTS", None)
    if isinstance(table, dict) and name in table:
        return str(table[name])
    value = getattr(module, name)
    owner = getattr(value, "__module__", None)
    return owner if isinstance(owner, str) and owner.startswith(package) else package


def api_page(package: str) -> str:
    path, title, intro = API_PAGES[package]
    by_module: dict[str, list[str]] = {}
    for name in public_names(package):
        if (package, name) in OWN_PAGE:
            continue
        if package == "kadmin" and defining_module(package, name) == "kadmin.errors":
            continue  # on the errors page, with the rest of kadmin.errors
        by_module.setdefault(defining_module(package, name), []).append(name)
    out = [f"# {title}", "", intro, ""]
    for module in sorted(by_module):
        out += [f"## `{module}`", ""]
        for name in sorted(by_module[module]):
            out += [f"::: {module}.{name}", "    options:", "      heading_level: 3"]
            if package in INHERITED:
                out.append("      inherited_members: true")
            out.append("")
    if package == "kadmin.testing":
        out += ["## The pytest plugin", "", "::: kadmin.testing.pytest_plugin", "    options:",
                "      heading_level: 3", "      show_root_heading: false", ""]
    return "\n".join(out)


def client_page(sync: bool) -> str:
    if sync:
        head = ["# kadmin.AdminClient (synchronous)", "",
                "The synchronous client, for scripts, threads and Spark drivers: `from kadmin import "
                "AdminClient`. It runs the [asyncio client](async-client.md) on an event-loop thread of its own, "
                "and is generated from it, so both have the same methods, arguments and results.", "",
                "::: kadmin.client.AdminClient"]
    else:
        head = ["# kadmin.aio.AdminClient (asyncio)", "",
                "The asyncio client: `from kadmin.aio import AdminClient`, `async with AdminClient(...) as "
                "admin`. Every method is a coroutine with the same arguments and results as the "
                "[synchronous client](sync-client.md)'s.", "",
                "::: kadmin.aio.AdminClient"]
    # inherited_members: the sync client's lifecycle (close, the context manager) is in a private base class.
    return "\n".join([*head, "    options:", "      heading_level: 2", "      members_order: source",
                      "      inherited_members: true", ""])


def errors_page() -> str:
    errors = importlib.import_module("kadmin.errors")
    by_code: dict[int, Any] = dict(errors._BY_CODE)
    out = ["# kadmin.errors", "",
           "Every per-key failure is a `KafkaError`; the classes below are the ones a caller catches or "
           "meets. A broker's error code becomes an instance of the class of that code (table at the end), "
           "a subclass of `BrokerError` (and of `AuthorizationError` or `AuthenticationError` where it says "
           "so).", "",
           "::: kadmin.errors", "    options:", "      heading_level: 2", "      show_root_heading: false",
           "      members_order: source", "",
           "## One class per Kafka error code", "",
           "Made when `kadmin.errors` is imported, from Kafka's own error table: "
           "`kadmin.errors.NotCoordinatorError` is code 16. `retriable` is Kafka's word for it.", "",
           "| code | class | Kafka name | retriable | Kafka's message |", "| ---: | --- | --- | --- | --- |"]
    for code in sorted(by_code):
        cls = by_code[code]
        out.append(f"| {code} | `{cls.__name__}` | `{cls.name}` | {'yes' if cls.retriable else 'no'} | "
                   f"{_cell(str(cls.default_message or ''))} |")
    out.append("")
    return "\n".join(out)


REPO = Path(__file__).resolve().parents[1]


def generated_pages() -> dict[str, str]:
    """{path under docs/: Markdown} for every generated page."""
    from kadmin.cli.main import build_parser

    pages = {"changelog.md": (REPO / "CHANGELOG.md").read_text(encoding="utf-8"),
             "reference/cli.md": cli_reference(build_parser()),
             "reference/api/sync-client.md": client_page(sync=True),
             "reference/api/async-client.md": client_page(sync=False),
             "reference/api/errors.md": errors_page()}
    for package in API_PAGES:
        pages[API_PAGES[package][0]] = api_page(package)
    return pages


# --- mkdocs hooks ---------------------------------------------------------------------------------------------

_ROLE = re.compile(r":(?:class|mod|func|meth|data|attr|exc|obj):(?=<code>)")


def on_files(files: Any, config: Any) -> Any:
    """Add the generated pages to the build (they exist only in memory: nothing is written into docs/)."""
    from mkdocs.structure.files import File

    for path, text in generated_pages().items():
        files.append(File.generated(config, path, content=text))
    return files


def on_page_content(html: str, page: Any, config: Any, files: Any) -> str:
    """Docstrings are written with Sphinx roles (``:class:`X```); on this Markdown site the role name would
    show as text before the code, so it goes."""
    return _ROLE.sub("", html)


def main(argv: list[str]) -> int:
    if argv == ["cli"]:
        from kadmin.cli.main import build_parser

        print(cli_reference(build_parser()))
        return 0
    if argv == ["pages"]:
        for path in generated_pages():
            print(path)
        return 0
    print("usage: python scripts/docs_hooks.py cli|pages", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
