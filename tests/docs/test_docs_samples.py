"""Every Python sample on the documentation site runs, as a reader would run it, against fake clusters.

The convention (docs/contributing.md, "Documentation"): every ```python block in docs/ is a complete
program.  A page's blocks run in order, each in a fresh namespace, with the clusters of that page made fresh
for it, so a page may create a topic and a later block of the same page describe it.  Samples name these
placeholders, which this test replaces:

* ``broker1:9092`` (or ``broker1:9092,broker2:9092``): a 2-broker plaintext cluster with ``kadmin demo``'s
  topics, groups and quotas, and an authorizer for which the anonymous client is a super user (so the ACL
  samples run);
* ``broker1:9093``: SASL_SSL, PLAIN and SCRAM-SHA-256/512, user ``ops`` / password ``ops-secret`` (a super
  user), delegation tokens enabled; its CA is ``/etc/kafka/ca.pem``;
* ``broker1:9094``: SSL with client certificates required (mutual TLS): ``/etc/kafka/client.pem`` and
  ``/etc/kafka/client.key``, signed by the same CA;
* ``broker1:9095``: a Kafka 4.3 cluster (the fake's preset) with the demo's topics and an Empty share group
  ``invoices`` that has start offsets in ``orders`` (share groups need Kafka 4.1+);
* ``/etc/kafka/client.properties``: a properties file for ``broker1:9093`` (SCRAM-SHA-512 as ``ops``).

A block whose first line is a comment naming a test file (``# test_old_brokers.py``) is a pytest module: it is
written to that file in an empty folder and run by pytest in a fresh process, with the plugin the installed
kadmin registers (its ``fake_cluster`` fixture), and must pass with at least one test.

A block preceded by ``<!-- not run: REASON -->`` is an outline (contributing.md sketches kadmin's internals)
or needs what a unit test cannot have (a Spark job over a reader's own files); the reason is required, and
this test checks that such blocks stay few.  Those that are Python (not outlines) must still compile, and
every name they import from kadmin must exist.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import io
import re
import subprocess
import sys
import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from kadmin.testing import FakeCluster
from tests.support import tls_util

DOCS = Path(__file__).resolve().parents[2] / "docs"
BLOCK = re.compile(r"(?:<!-- not run: (?P<reason>[^>]*?) -->\n)?^```python\n(?P<code>.*?)^```$",
                   re.DOTALL | re.MULTILINE)
#: Outlines and Spark-over-your-files samples; more than this means samples stopped being run.
MAX_NOT_RUN = 9
TEST_FILE = re.compile(r"# (test_\w+\.py)\n")


@dataclass(frozen=True)
class Sample:
    page: str
    line: int
    code: str
    not_run: str | None


def samples() -> list[Sample]:
    out = []
    for path in sorted(DOCS.rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        for m in BLOCK.finditer(text):
            out.append(Sample(str(path.relative_to(DOCS)), text.count("\n", 0, m.start("code")) + 1,
                              m.group("code"), m.group("reason")))
    return out


def _pages() -> list[str]:
    return sorted({s.page for s in samples() if s.not_run is None})


@dataclass
class Clusters:
    plain: FakeCluster
    sasl_ssl: FakeCluster
    mtls: FakeCluster
    newest: FakeCluster
    files: dict[str, Path]

    def substitute(self, code: str) -> str:
        code = code.replace("broker1:9092,broker2:9092", self.plain.bootstrap)
        code = code.replace("broker1:9092", self.plain.bootstrap)
        code = code.replace("broker1:9093", self.sasl_ssl.bootstrap)
        code = code.replace("broker1:9094", self.mtls.bootstrap)
        code = code.replace("broker1:9095", self.newest.bootstrap)
        for placeholder, path in self.files.items():
            code = code.replace(placeholder, str(path))
        return code


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> tls_util.TestPKI:
    return tls_util.make_ca(tmp_path_factory.mktemp("docs-pki"))


@contextlib.contextmanager
def _clusters(pki: tls_util.TestPKI, folder: Path) -> Iterator[Clusters]:
    from kadmin.testing.__main__ import seed_demo

    server = tls_util.make_cert(pki, "broker", ["127.0.0.1", "localhost"])
    client = tls_util.make_cert(pki, "client", ["client"], client=True)
    props = folder / "client.properties"
    with (FakeCluster(brokers=2, authorizer={"super_users": ["User:ANONYMOUS"]}) as plain,
          FakeCluster(brokers=1, tls=pki.server_context(server),
                      sasl={"mechanisms": ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"],
                            "users": {"ops": "ops-secret"}},
                      authorizer={"super_users": ["User:ops"]}, delegation_tokens=True) as sasl_ssl,
          FakeCluster(brokers=1, tls=pki.server_context(server, require_client_cert=True)) as mtls,
          FakeCluster(brokers=1, versions="4.3") as newest):
        seed_demo(plain)
        seed_demo(newest)
        newest.set_share_offsets("invoices", {("orders", 0): 100, ("orders", 1): 70, ("orders", 2): 45})
        props.write_text(
            f"bootstrap.servers={sasl_ssl.bootstrap}\nsecurity.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\n"
            'sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required '
            'username="ops" password="ops-secret";\n'
            f"ssl.truststore.type=PEM\nssl.truststore.location={pki.ca.cert}\n", encoding="utf-8")
        yield Clusters(plain, sasl_ssl, mtls, newest, {
            "/etc/kafka/ca.pem": pki.ca.cert, "/etc/kafka/client.pem": client.cert,
            "/etc/kafka/client.key": client.key, "/etc/kafka/client.properties": props})


def _run_pytest(sample: Sample, name: str, folder: Path) -> str:
    (folder / name).write_text(sample.code, encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", name], cwd=folder,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"docs/{sample.page}:{sample.line}: pytest failed:\n{proc.stdout}\n{proc.stderr}"
    assert re.search(r"\b[1-9]\d* passed", proc.stdout), proc.stdout
    return proc.stdout


def _run(sample: Sample, clusters: Clusters, folder: Path) -> str:
    as_test = TEST_FILE.match(sample.code)
    if as_test:
        return _run_pytest(sample, as_test.group(1), folder)
    out = io.StringIO()
    code = clusters.substitute(sample.code)
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(code, f"docs/{sample.page}:{sample.line}", "exec"),  # noqa: S102 - the docs' own code
                 {"__name__": "__docs_sample__"})
    except Exception:
        pytest.fail(f"docs/{sample.page}, the block at line {sample.line}, failed:\n{traceback.format_exc()}")
    return out.getvalue()


@pytest.mark.parametrize("page", _pages())
def test_every_sample_of_the_page_runs(page: str, pki: tls_util.TestPKI, tmp_path: Path) -> None:
    with _clusters(pki, tmp_path) as clusters:
        for sample in [s for s in samples() if s.page == page and s.not_run is None]:
            printed = _run(sample, clusters, tmp_path)
            # A sample shows something: one that prints nothing teaches nothing a reader can check.
            assert printed.strip(), f"docs/{page}:{sample.line} printed nothing"


def test_the_guides_have_samples_and_few_are_not_run() -> None:
    found = samples()
    pages = {s.page for s in found if s.not_run is None}
    assert {"getting-started.md", "connecting.md", "guides/topics-configs.md", "guides/groups-offsets.md",
            "guides/quotas.md", "guides/acls-users.md", "guides/tokens.md", "guides/testing.md"} <= pages
    not_run = [s for s in found if s.not_run is not None]
    assert all(s.not_run and s.not_run.strip() for s in not_run)
    assert len(not_run) <= MAX_NOT_RUN, [(s.page, s.line, s.not_run) for s in not_run]


def test_the_placeholders_reach_every_cluster(pki: tls_util.TestPKI, tmp_path: Path) -> None:
    # The substitution itself: a sample naming a placeholder this test does not know would silently try to
    # connect to broker1 and fail with a resolution error far from the cause.
    with _clusters(pki, tmp_path) as clusters:
        code = clusters.substitute("broker1:9092 broker1:9093 broker1:9094 broker1:9095 /etc/kafka/ca.pem")
        assert "broker1" not in code and "/etc/kafka" not in code
    for sample in samples():
        if sample.not_run is None:
            leftover = re.findall(r"broker\d:\d+|/etc/kafka/[\w.-]+", clusters.substitute(sample.code))
            assert leftover == [], f"docs/{sample.page}:{sample.line}: unknown placeholders {leftover}"


def test_samples_that_are_not_run_still_compile_and_import_real_names() -> None:
    checked = 0
    for sample in samples():
        if sample.not_run is None:
            continue
        try:
            tree = ast.parse(sample.code)
        except SyntaxError:
            continue  # an outline (a signature without a body, say): prose in code form
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "kadmin":
                module = importlib.import_module(node.module)
                # Lazily exported names (kadmin.spark's need PySpark) are checked against __all__, not imported.
                known = set(getattr(module, "__all__", ())) | set(vars(module))
                missing = [a.name for a in node.names if a.name not in known]
                assert missing == [], f"docs/{sample.page}:{sample.line}: {node.module} has no {missing}"
                checked += 1
    assert checked >= 2  # provision.md's Spark samples
