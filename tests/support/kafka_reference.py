"""Where Kafka's reference schemas are, and the one fixture that hands them to the tests that compare against them.

The codec's own tests use kadmin's own test schemas (``tests/data/schemas``), so a plain clone runs them.  A
few tests compare what kadmin ships against Kafka's schemas (``specs/`` against Kafka's message files, the
codec against Kafka's generator test schemas); those need a copy of the reference data, which is not ours to
put in the repository.  It is looked for in ``$KADMIN_KAFKA_SPECS``, else in ``../shared/kafka-message-specs``
beside the repository (where CI keeps it), laid out as ``3.9/*.json`` and ``trunk-2026/*.json`` (Kafka 3.9's and
a 2026 trunk's message schemas: specs/ is their union), ``latest/*.json`` and ``test-schemas/*.json``.

Without it, every such test is skipped from one place (the ``kafka_specs`` fixture below), and its skip
report names that place rather than each test, so that pytest's summary folds them into one reason line.  In CI
(``CI=true``) they fail instead: CI always has the reference, and a comparison that quietly skips there would be
no check at all.
"""

from __future__ import annotations

import os
from collections.abc import Generator
from pathlib import Path

import pytest

ENV_VAR = "KADMIN_KAFKA_SPECS"
REPO = Path(__file__).resolve().parents[2]
DEFAULT_DIR = REPO.parent / "shared" / "kafka-message-specs"
#: The sub-folders the comparisons read.
REQUIRED = ("3.9", "trunk-2026", "latest", "test-schemas")


def specs_dir() -> Path:
    """The reference folder: ``$KADMIN_KAFKA_SPECS`` if set, else ``../shared/kafka-message-specs``."""
    override = os.environ.get(ENV_VAR, "").strip()
    return Path(override).expanduser() if override else DEFAULT_DIR


def missing_reason(where: Path) -> str | None:
    """Why the reference at ``where`` cannot be used, or None when it can."""
    if not where.is_dir():
        return (f"Kafka's reference schemas not found at {where} (set {ENV_VAR} to a kafka-message-specs "
                "folder to run the comparisons)")
    for sub in REQUIRED:
        if not (where / sub).is_dir():
            return f"Kafka's reference schemas at {where} have no {sub}/ folder ({ENV_VAR})"
    return None


_REASON_START = "Kafka's reference schemas"


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


@pytest.fixture(scope="session")
def kafka_specs() -> Path:
    """The reference folder (with the :data:`REQUIRED` sub-folders); skips the test when it is absent,
    and fails it in CI, where it must be present."""
    where = specs_dir()
    reason = missing_reason(where)
    if reason is not None:
        if in_ci():
            pytest.fail(f"CI=true but {reason}", pytrace=False)
        pytest.skip(reason)
    return where


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, pytest.TestReport,
                                                                                            pytest.TestReport]:
    """Skips from ``kafka_specs`` reported at the fixture, not at each test (pytest's default for a skip
    raised in a fixture), so ``-ra`` folds all of them into one line."""
    report = yield
    longrepr = report.longrepr
    if report.skipped and isinstance(longrepr, tuple) and str(longrepr[2]).startswith(("Skipped: " + _REASON_START,
                                                                                       _REASON_START)):
        report.longrepr = (__file__, None, longrepr[2])  # type: ignore[assignment]
    return report
