"""``kadmin``: the command line.  Global options, dispatch to one module per command group, exit statuses.

Exit statuses (documented in docs/cli.md), chosen so that a script can tell "look at the per-key results"
from "nothing was done":

* 0: every key (group, entity, partition, broker) succeeded;
* 1: the command ran and the cluster answered, but some keys failed (each printed with its error);
* 2: the command could not run at all: bad usage or input (refused before connecting), an unreadable
  configuration, no reachable broker, failed authentication, an API the brokers do not support (such as
  the quota commands against a broker without KIP-546), or a call-level error or timeout;
* 130: interrupted (Ctrl-C).  141: stdout was closed early (``kadmin ... | head``).

A failure is one line on stderr, never a traceback: an admin tool's errors are read by people in a hurry and
grepped by scripts.  ``--debug`` adds the traceback and the library's debug logging.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import re
import sys
import threading
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NoReturn, TextIO

from kadmin._version import __version__
from kadmin.cli.config import UsageError, build_config, check_timeout
from kadmin.cli.output import Printer
from kadmin.cli.usage import command_parser, join_dash_ids, unknown_long_option, unrecognized
from kadmin.errors import (
    AuthenticationError,
    AuthorizationError,
    KafkaConnectionError,
    KafkaError,
    KafkaTimeoutError,
    SecurityMismatchError,
    UnsupportedVersionError,
)

if TYPE_CHECKING:
    from kadmin.client import AdminClient
    from kadmin.config import ClientConfig

log = logging.getLogger("kadmin.cli")

EXIT_ERROR = 2
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (what was wrong and where help is), not usage plus error."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_ERROR, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


@dataclass
class Context:
    """What a command gets: its arguments, the printer, and a way to connect (only once input is valid)."""

    args: argparse.Namespace
    printer: Printer
    debug: bool = False
    #: The command as typed (``kadmin groups describe``), for the "see ... --help" of a usage error.
    prog: str = "kadmin"
    _config: ClientConfig | None = field(default=None, repr=False)
    #: Set once a client has bootstrapped: until then the first contact's own bound (bootstrap_timeout_s)
    #: ends a command that cannot reach the cluster, with its cause, so no "waiting" notice is needed.
    connected: bool = field(default=False, repr=False)

    def config(self) -> ClientConfig:
        if self._config is None:
            self._config = build_config(self.args.bootstrap_server, self.args.command_config,
                                        check_timeout(self.args.timeout))
        return self._config

    @contextlib.contextmanager
    def admin(self) -> Iterator[AdminClient]:
        """A connected synchronous client.  Commands call this only after validating all their input, which
        is what guarantees that bad input never reaches the cluster."""
        from kadmin.client import AdminClient

        cfg = self.config()
        log.debug("connecting with %r", cfg)
        with AdminClient(config=cfg) as admin:
            self.connected = True
            yield admin


Runner = Callable[[Context], int]


def _global_options(p: argparse.ArgumentParser, suppress: bool) -> None:
    # The same options on the top-level parser (with defaults) and on every command (suppressed defaults,
    # so a value given after the command wins and one given before it is not reset), because people type
    # `kadmin groups list --bootstrap-server ...` as they do with Kafka's tools.
    def d(value: object) -> object:
        return argparse.SUPPRESS if suppress else value

    p.add_argument("--bootstrap-server", "-b", metavar="HOST:PORT,...", default=d(None),
                   help="brokers to bootstrap from (default: $KADMIN_BOOTSTRAP_SERVERS)")
    p.add_argument("--command-config", metavar="FILE", default=d(None),
                   help="Kafka-style client properties: security.protocol, sasl.*, ssl.*")
    p.add_argument("--output", "-o", choices=("table", "json"), default=d("table"),
                   help="table (default) or json (stable; see docs/cli.md)")
    p.add_argument("--wide", "-w", action="store_true", default=d(False),
                   help="tables as wide as their content: ids, member ids and keys never shortened")
    p.add_argument("--timeout", type=float, metavar="S", default=d(None),
                   help="deadline of each admin call, in seconds (default 60)")
    p.add_argument("--debug", action="store_true", default=d(False),
                   help="debug logging and tracebacks on stderr")


def build_parser() -> Parser:
    from kadmin.cli import api_versions, demo, groups, leaders, log_dirs, offsets, quotas, records

    parser = Parser(
        prog="kadmin",
        description="Admin commands for Apache Kafka clusters: topics and configs, consumer groups and offsets, "
                    "client quotas, ACLs, SCRAM users and delegation tokens, features and the metadata quorum, "
                    "tenant provisioning; and an embedded demo cluster.",
        epilog="Exit status: 0 all succeeded, 1 some keys failed, 2 usage/connection/call error. "
               "JSON output is documented in docs/cli.md.")
    parser.add_argument("--version", action="version", version=f"kadmin {__version__}")
    _global_options(parser, suppress=False)
    common = Parser(add_help=False)
    _global_options(common, suppress=True)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    api_versions.register(sub, common)
    groups.register(sub, common)
    quotas.register(sub, common)
    offsets.register(sub, common)
    records.register(sub, common)
    log_dirs.register(sub, common)
    leaders.register(sub, common)
    from kadmin.cli import provision as provision_cmd  # tenant provisioning (issue #17)

    provision_cmd.register(sub, common)
    from kadmin.cli import configs as configs_cmd  # topics and configs (issue #14)
    from kadmin.cli import topics as topics_cmd

    topics_cmd.register(sub, common)
    configs_cmd.register(sub, common)
    from kadmin.cli import acls as acls_cmd  # ACLs and SCRAM users (issue #16)
    from kadmin.cli import users as users_cmd

    acls_cmd.register(sub, common)
    users_cmd.register(sub, common)
    from kadmin.cli import features as features_cmd  # features, the metadata quorum, brokers (issue #26)
    from kadmin.cli import quorum as quorum_cmd

    features_cmd.register(sub, common)
    quorum_cmd.register(sub, common)
    from kadmin.cli import transactions as transactions_cmd  # transactions and producers (issue #26)

    transactions_cmd.register(sub, common)

    from kadmin.cli import tokens as tokens_cmd  # delegation tokens (issue #29)

    tokens_cmd.register(sub, common)

    from kadmin.cli import share_groups as share_groups_cmd  # share groups (issue #25)

    share_groups_cmd.register(sub, common)

    from kadmin.cli import streams_groups as streams_groups_cmd  # streams groups (issue #25)

    streams_groups_cmd.register(sub, common)
    demo.register(sub, common)
    return parser


def _one_line(text: str, limit: int = 500) -> str:
    """Newlines folded, and repeated "; "-separated parts (one per retry) said once, so the line stays one."""
    flat = re.sub(r"\s*\n\s*", " ", text).strip()
    parts: list[str] = []
    for part in flat.split("; "):
        if not any(seen.endswith(part) for seen in parts):
            parts.append(part)
    flat = "; ".join(parts)
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def describe_failure(exc: BaseException, ctx: Context | None) -> str:
    """The one line that says why a whole command failed."""
    if isinstance(exc, UsageError):
        # Where the options are explained: the subcommand's help, not the top-level one.
        return f"{exc} (see '{ctx.prog if ctx is not None else 'kadmin'} --help')"
    if isinstance(exc, UnsupportedVersionError):
        return f"unsupported by this broker: {exc.message}"
    if isinstance(exc, AuthenticationError):
        return f"authentication failed: {exc.message}"
    if isinstance(exc, AuthorizationError):
        return f"not authorized: {exc.name}: {exc.message}"
    if isinstance(exc, (KafkaConnectionError, SecurityMismatchError)):
        where = ""
        if ctx is not None and ctx._config is not None:
            where = f" ({','.join(ctx._config.bootstrap_servers)})"
        listener = not_kafka(exc.message)
        if listener is not None:
            return f"not a Kafka listener{where}: {listener}"
        if isinstance(exc, SecurityMismatchError):
            return f"{exc.name}: {exc.message}"
        return f"cannot reach the cluster{where}: {exc.message}"
    if isinstance(exc, KafkaTimeoutError):
        return f"timed out: {exc.message} (raise --timeout?)"
    if isinstance(exc, KafkaError):
        return f"{exc.name}: {exc.message}"
    if isinstance(exc, (ValueError, TypeError)):
        return f"invalid input: {exc}"
    if isinstance(exc, OSError):
        return f"{exc.strerror or exc}" + (f": {exc.filename}" if exc.filename else "")
    return f"internal error: {type(exc).__name__}: {exc} (rerun with --debug for the traceback)"


_FRAME = re.compile(r"(\S+) sent a frame of (\d+) bytes")


def not_kafka(message: str) -> str | None:
    """What a "frame" that is no Kafka frame says about the port, or None: Kafka's first four bytes are a size;
    an HTTP server's are "HTTP" (1213486160 as a size), an HTML page's "<!DO", a TLS listener's a record header."""
    m = _FRAME.search(message)
    if m is None:
        return None
    raw = int(m.group(2)).to_bytes(4, "big", signed=False) if int(m.group(2)) < 2**32 else b""
    text = raw.decode("latin-1")
    if text.startswith("HTTP") or text.startswith("<"):
        kind = "an HTTP server"
    elif raw[:1] == b"\x15" or raw[:1] == b"\x16":
        kind = "a TLS listener (set security.protocol=SSL or SASL_SSL)"
    elif text.isprintable() and len(text) == 4:
        kind = "not Kafka"
    else:
        return None
    return (f"{m.group(1)} answered with {text!r} where a Kafka response starts with its size ({kind}?); check the "
            "host and port")


class _OnceFilter(logging.Filter):
    """Each distinct warning once per command: a retried connection to a port that is not Kafka logged the same
    line a dozen times before the one error line that matters."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: set[tuple[int, str]] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        key = (record.levelno, record.getMessage())
        if key in self.seen:
            return False
        self.seen.add(key)
        return True


@contextlib.contextmanager
def _logging_to(stream: TextIO, debug: bool) -> Iterator[None]:
    """Library log records on stderr while a command runs (warnings, or everything with --debug); the root
    logger is put back afterwards, so that calling main() from Python leaves no trace."""
    handler = logging.StreamHandler(stream)
    if not debug:
        handler.addFilter(_OnceFilter())
    fmt = "%(asctime)s %(name)s %(levelname)s %(message)s" if debug else "kadmin: %(levelname)s: %(message)s"
    handler.setFormatter(logging.Formatter(fmt))
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG if debug else logging.WARNING)
    try:
        yield
    finally:
        root.removeHandler(handler)
        root.setLevel(old_level)


#: After this long a command says, once, what it is waiting for (a silent minute looks like a hang).
WAITING_NOTICE_S = 5.0


@contextlib.contextmanager
def _waiting_notice(ctx: Context, stream: TextIO) -> Iterator[None]:
    """One stderr line if the command is still running after WAITING_NOTICE_S: what it waits for and how long
    it may wait.  Said once, never once per retry."""
    timer: threading.Timer | None = None
    done = False
    lock = threading.Lock()

    def arm(delay: float) -> None:
        nonlocal timer
        with lock:
            if not done:
                timer = threading.Timer(delay, say)
                timer.daemon = True
                timer.start()

    def say() -> None:
        cfg = ctx._config
        if cfg is None or done:
            return  # not connecting (still reading input, or Spark starting): nothing of ours to wait for
        if getattr(ctx.args, "waiting_notice", True) is False:
            return  # a command whose own work (Spark jobs) takes longer than a cluster's answer
        if not ctx.connected:
            # Still bootstrapping: that ends by itself within bootstrap_timeout_s, with the cause, when no
            # address answers; ask again shortly in case the cluster answers and the call itself then waits.
            arm(1.0)
            return
        servers = ",".join(cfg.bootstrap_servers)
        with contextlib.suppress(Exception):
            stream.write(f"kadmin: waiting for the cluster at {servers} to answer (each call may take up to "
                         f"{cfg.default_timeout_s:g} s; --timeout changes that)\n")
            stream.flush()

    arm(WAITING_NOTICE_S)
    try:
        yield
    finally:
        with lock:
            done = True
            if timer is not None:
                timer.cancel()


def main(argv: Sequence[str] | None = None, *, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run one command; returns the exit status (the console script passes it to ``sys.exit``)."""
    out = stdout if stdout is not None else sys.stdout
    err = stderr if stderr is not None else sys.stderr
    parser = build_parser()
    words = join_dash_ids(sys.argv[1:] if argv is None else argv)
    unknown = unknown_long_option(parser, words)
    if unknown is not None:
        err.write(unknown + "\n")
        return EXIT_ERROR
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):  # argparse's help and errors
            args, extras = parser.parse_known_args(words)
            if extras:
                parser.exit(EXIT_ERROR, unrecognized(parser, words, extras) + "\n")
    except SystemExit as exc:  # --help, --version, usage errors: argparse already printed its line
        return int(exc.code) if isinstance(exc.code, int) else EXIT_ERROR
    ctx = Context(args, Printer(args.output, out, err, wide=getattr(args, "wide", False)), debug=args.debug,
                  prog=command_parser(parser, words).prog)
    runner: Runner = args.run
    with _logging_to(err, args.debug), _waiting_notice(ctx, err):
        try:
            return runner(ctx)
        except KeyboardInterrupt:
            err.write("kadmin: interrupted\n")
            return EXIT_INTERRUPTED
        except BrokenPipeError:
            # The reader went away (`| head`); say nothing, and keep Python from complaining at exit.
            with contextlib.suppress(OSError, ValueError):
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, out.fileno())
            return EXIT_BROKEN_PIPE
        except Exception as exc:  # noqa: BLE001 - the CLI's one place that turns any failure into one line
            if args.debug:
                traceback.print_exc(file=err)
            err.write(f"kadmin: error: {_one_line(describe_failure(exc, ctx))}\n")
            return EXIT_ERROR


def run() -> NoReturn:
    sys.exit(main())


if __name__ == "__main__":
    run()
