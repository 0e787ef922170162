"""The one operation shape (issue #19): rules that keep it, checked over the source, and the two defects it
fixed (lag on a deleted topic answered at once; bootstrap failures in tests/network/test_bootstrap_failfast.py)."""

from __future__ import annotations

import ast
import asyncio
import time
from pathlib import Path

from kadmin.aio import AdminClient
from kadmin.errors import ErrorCode, UnknownTopicOrPartitionError
from kadmin.protocol.apis import ApiKey
from kadmin.testing import FakeCluster
from kadmin.types import PartitionLag, TopicPartition

PACKAGE = Path(__file__).resolve().parents[2] / "kadmin"
#: Where numbers for API keys and error codes may be written: the tables themselves and the fake cluster.
EXEMPT = ("protocol", "testing", "errors.py", "_error_codes.py", "versions.py")
NAMED = {m.name for m in ApiKey} | {m.name for m in ErrorCode}
#: Calls whose first argument is an API key or an error code.
KEYED_CALLS = {"message_type", "error_for_code", "error_class_for_code", "api_name", "negotiated_version"}
#: Attribute names that hold an API key or an error code.
KEYED_ATTRS = {"error_code", "api_key", "code", "API_KEY"}


def library_files() -> list[Path]:
    return [p for p in sorted(PACKAGE.rglob("*.py"))
            if not any(part in EXEMPT for part in p.relative_to(PACKAGE).parts)]


def literals_in(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    found: list[str] = []

    def is_int(node: ast.AST) -> bool:
        return isinstance(node, ast.Constant) and type(node.value) is int or (
            isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and is_int(node.operand))

    # Module-level names only: members of an enum of another kind (AclOperation.DESCRIBE_CONFIGS = 10) may
    # share a name with an API.
    module_level = set(map(id, tree.body))
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and is_int(node.value) and id(node) in module_level:
            for t in node.targets:
                if isinstance(t, ast.Name) and t.id.lstrip("_") in NAMED:
                    found.append(f"{path.name}:{node.lineno}: {t.id} = number")
        elif isinstance(node, ast.Call) and node.args and is_int(node.args[0]):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in KEYED_CALLS:
                found.append(f"{path.name}:{node.lineno}: {name}(number)")
        elif isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            keyed = any(isinstance(s, ast.Attribute) and s.attr in KEYED_ATTRS for s in sides)
            if keyed and any(is_int(s) for s in sides):
                found.append(f"{path.name}:{node.lineno}: comparison of a code with a number")
    return found


def test_no_api_key_or_error_code_numbers_in_the_library() -> None:
    files = library_files()
    assert any(p.name == "_driver.py" for p in files)
    found = [hit for p in files for hit in literals_in(p)]
    assert not found, "write ApiKey.X / ErrorCode.X instead:\n" + "\n".join(found)


def test_the_checker_sees_numbers() -> None:
    sample = PACKAGE.parent / "tests" / "data" / "_literal_sample.py"
    sample.parent.mkdir(exist_ok=True)
    sample.write_text("METADATA = 3\nx = error_for_code(16)\nif r.error_code == 7:\n    pass\n")
    try:
        assert len(literals_in(sample)) == 3
    finally:
        sample.unlink()


def test_no_process_wide_switches_and_one_retry_loop() -> None:
    text = {p: p.read_text() for p in sorted(PACKAGE.rglob("*.py")) if "testing" not in p.parts}
    assert not [p for p, t in text.items() if "gc.disable" in t or "gc.freeze" in t]
    # tenacity is driven from one place; everything that retries goes through retry_call.
    assert [p.name for p, t in text.items() if "AsyncRetrying" in t or "from tenacity" in t] == ["retry.py"]
    users = sorted(p.name for p, t in text.items() if "retry_call(" in t and p.name != "retry.py")
    assert users == ["_driver.py", "client.py"], users  # the admin driver, and the bootstrap/metadata rounds


def test_lag_for_offsets_on_a_deleted_topic_answers_at_once() -> None:
    with FakeCluster(brokers=3) as cluster:
        cluster.add_topic("live", partitions=2)
        cluster.set_log_end("live", 0, 50)
        cluster.set_log_end("live", 1, 9)
        cluster.commit("g", "live", 0, 40)
        cluster.commit("g", "live", 1, 9)
        cluster.commit("g", "gone", 0, 5)  # committed before the topic was deleted

        async def body() -> tuple[dict[TopicPartition, object], float]:
            async with AdminClient(cluster.bootstrap) as admin:  # default settings: a 60 s call deadline
                t0 = time.monotonic()
                lag = await admin.consumer_group_lag(["g"])
                return lag["g"], time.monotonic() - t0  # type: ignore[return-value]

        lag, took = asyncio.run(body())
    assert took < 1.0, took
    assert isinstance(lag[TopicPartition("gone", 0)], UnknownTopicOrPartitionError)
    assert lag[TopicPartition("live", 0)] == PartitionLag(40, 50)
    assert lag[TopicPartition("live", 1)] == PartitionLag(9, 9)
