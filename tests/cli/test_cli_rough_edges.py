"""The CLI's rough edges a new user hit (#18 items 3, 4, 5, 6, 8 and 10), each pinned without Spark.

Bad input must be refused in the CLI's own words (its flags, not the library's keyword arguments), before
anything is sent and, for ``quotas provision``, before a Spark session is started (tens of seconds).
"""

from __future__ import annotations

import contextlib
import io
import math
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import kadmin.cli.quotas as cli_quotas
from kadmin.cli.main import Context, main
from kadmin.cli.output import Printer
from kadmin.errors import GroupIdNotFoundError, UnsupportedVersionError
from kadmin.testing import FakeCluster
from kadmin.types import ClusterDescription, ListGroupsResult, Node
from tests.support.cli import Result, run_main


@pytest.fixture(scope="module")
def cluster() -> Iterator[FakeCluster]:
    # 2.8: a ZooKeeper-mode broker, which stores a 0 quota (KRaft 3.5+ refuses it).
    with FakeCluster(brokers=1, versions="2.8") as c:
        yield c


# --- item 6 and 10: --set values and errors in the CLI's words ---------------------------------------------


def test_unknown_key_names_the_cli_flag(cluster: FakeCluster) -> None:
    cluster.clear_log()
    r = run_main("-b", cluster.bootstrap, "quotas", "alter", "--user", "a", "--set", "foo_rate=3")
    assert r.code == 2
    assert "--allow-unknown-keys" in r.err and "allow_unknown_keys=True" not in r.err
    assert r.err.startswith("kadmin: error: --set foo_rate=3: 'foo_rate' is not a quota key")
    r = run_main("-b", cluster.bootstrap, "quotas", "alter", "--user", "a", "--remove", "producer_byte_rat")
    assert r.code == 2 and "--remove producer_byte_rat" in r.err and "did you mean 'producer_byte_rate'?" in r.err
    assert cluster.request_log == []


def test_an_int_without_an_exact_double_says_what_it_would_become(cluster: FakeCluster) -> None:
    cluster.clear_log()
    r = run_main("-b", cluster.bootstrap, "quotas", "alter", "--user", "a", "--set",
                 "producer_byte_rate=9007199254740993")
    assert r.code == 2
    assert "no exact float64 value" in r.err and "9007199254740992" in r.err and "pass a float" not in r.err
    assert cluster.request_log == []


@pytest.mark.parametrize("value", ["1_000", " 100", "100 ", "1e999"])
def test_values_python_would_accept_but_people_do_not_write_are_refused(cluster: FakeCluster, value: str) -> None:
    cluster.clear_log()
    r = run_main("-b", cluster.bootstrap, "quotas", "alter", "--user", "a", "--set", f"producer_byte_rate={value}")
    assert r.code == 2, r.out
    assert len(r.err.splitlines()) == 1
    assert cluster.request_log == []


def test_negative_zero_is_zero(cluster: FakeCluster) -> None:
    r = run_main("-b", cluster.bootstrap, "quotas", "alter", "--user", "zero", "--set", "request_percentage=-0.0")
    assert r.code == 0, r.err
    value = cluster.quotas[(("user", "zero"),)]["request_percentage"]
    assert value == 0.0 and math.copysign(1.0, value) == 1.0


def test_a_key_error_without_a_key_has_no_empty_field() -> None:
    err = io.StringIO()
    Printer("table", io.StringIO(), err).key_error("", GroupIdNotFoundError("gone"))
    assert err.getvalue() == "kadmin: GROUP_ID_NOT_FOUND: gone\n"


def test_rejected_row_without_an_entity_is_named_so() -> None:
    out, err = io.StringIO(), io.StringIO()
    ctx = Context(SimpleNamespace(), Printer("table", out, err))
    row = {"user": None, "client_id": None, "ip": None, "quota_key": "producer_byte_rate", "old_value": None,
           "new_value": 5.0, "action": "reject", "status": "rejected",
           "error": "no entity: user, client_id and ip are all empty"}
    code = cli_quotas.report_provision(ctx, "plan", {("reject", "rejected"): 1}, [row], [row])
    assert code == 1
    assert err.getvalue() == ("kadmin: (no entity) producer_byte_rate: rejected: no entity: user, client_id and "
                              "ip are all empty\n")


def test_progress_bar_draws_the_last_line_once() -> None:
    stream = io.StringIO()
    bar = cli_quotas.ProgressBar(stream, width=10)
    for done, phase in ((0, "planned"), (4, "sending"), (4, "done")):
        bar(SimpleNamespace(phase=phase, entities_total=4, entities_done=done, entities_failed=0,
                            fraction=done / 4))
    assert stream.getvalue().count("100% 4/4 entities") == 1
    assert stream.getvalue().endswith("100% 4/4 entities\n")


# --- item 10: kadmin demo ------------------------------------------------------------------------------------


def test_demo_offers_no_options_it_would_ignore() -> None:
    r = run_main("demo", "--help")
    assert r.code == 0
    for flag in ("--bootstrap-server", "-b ", "--command-config", "--timeout"):
        assert flag not in r.out, flag
    assert "--output" in r.out and "--once" in r.out
    r = run_main("--timeout", "5", "demo", "--once")
    assert r.code == 2 and "--timeout does not apply" in r.err and r.out == ""


# --- items 3 and 8: groups ---------------------------------------------------------------------------------


class _FakeAdmin:
    """What the CLI sees of the library, for answers a real cluster cannot be made to give on demand."""

    def __init__(self, **answers: Any) -> None:
        self.answers = answers

    def list_consumer_groups(self, **_: Any) -> ListGroupsResult:
        return self.answers["list"]  # type: ignore[no-any-return]

    def describe_cluster(self) -> ClusterDescription:
        return ClusterDescription("c", 1, tuple(Node(n, "h", 9092) for n in self.answers["nodes"]))

    def consumer_group_lag(self, ids: list[str]) -> dict[str, Any]:
        return {g: self.answers["lag"][g] for g in ids}

    def list_consumer_group_offsets(self, ids: list[str]) -> dict[str, Any]:
        return {g: self.answers["lag"][g] for g in ids}


def _with_fake_admin(monkeypatch: pytest.MonkeyPatch, admin: _FakeAdmin, *args: str) -> Result:
    @contextlib.contextmanager
    def fake(self: Context) -> Iterator[_FakeAdmin]:
        yield admin

    monkeypatch.setattr(Context, "admin", fake)
    return run_main("-b", "127.0.0.1:1", *args)


def test_every_broker_refusing_the_state_filter_is_exit_2(monkeypatch: pytest.MonkeyPatch) -> None:
    refused = {n: UnsupportedVersionError(f"node {n} speaks ListGroups up to v2; filtering by state needs v4+")
               for n in (1, 2, 3)}
    r = _with_fake_admin(monkeypatch, _FakeAdmin(list=ListGroupsResult((), refused), nodes=[1, 2, 3]),
                         "groups", "list", "--state", "stable")
    assert r.code == 2
    assert r.err_lines == ["kadmin: error: unsupported by this broker: node 1 speaks ListGroups up to v2; "
                           "filtering by state needs v4+"]
    # Some brokers refused and another answered (with nothing): the list is incomplete, exit 1.
    r = _with_fake_admin(monkeypatch, _FakeAdmin(list=ListGroupsResult((), {1: refused[1]}), nodes=[1, 2]),
                         "groups", "list", "--state", "stable")
    assert r.code == 1 and "the list is incomplete" in r.err


def test_offsets_of_a_group_that_does_not_exist_is_exit_1(monkeypatch: pytest.MonkeyPatch) -> None:
    missing = GroupIdNotFoundError("group 'nope' does not exist")
    r = _with_fake_admin(monkeypatch, _FakeAdmin(lag={"nope": missing, "idle": {}}),
                         "groups", "offsets", "nope", "--lag")
    assert r.code == 1
    assert r.out == ""  # no table header over nothing
    assert r.err_lines == ["kadmin: nope: no such group (GROUP_ID_NOT_FOUND)"]
    # An idle group (it exists, nothing committed) is not an error.
    r = _with_fake_admin(monkeypatch, _FakeAdmin(lag={"nope": missing, "idle": {}}), "groups", "offsets", "idle")
    assert r.code == 0 and r.err_lines == ["kadmin: idle: no committed offsets (the group exists)"]


def test_offsets_of_a_missing_group_against_the_fake_cluster() -> None:
    from kadmin.testing.__main__ import seed_demo

    with FakeCluster(brokers=1) as c:
        seed_demo(c)
        r = run_main("-b", c.bootstrap, "groups", "offsets", "no-such-group", "--lag")
        assert r.code == 1 and "no-such-group: no such group" in r.err, r.err
        r = run_main("-b", c.bootstrap, "-o", "json", "groups", "offsets", "no-such-group", "billing")
        assert r.code == 1
        assert [g["error"] and g["error"]["name"] for g in r.json()["groups"]] == ["GROUP_ID_NOT_FOUND", None]


# --- items 4 and 5: quotas provision, checked before Spark starts -------------------------------------------


@pytest.fixture
def no_spark(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(debug: bool) -> Any:
        raise AssertionError("Spark was started before the input was checked")

    monkeypatch.setattr(cli_quotas, "_spark_session", refuse)


def _provision(cluster: FakeCluster, tmp_path: Path, name: str, text: str, *args: str) -> Result:
    f = tmp_path / name
    f.write_text(text, encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    code = main(["-b", cluster.bootstrap, "quotas", "provision", str(f), *args], stdout=out, stderr=err)
    return Result(code, out.getvalue(), err.getvalue())


@pytest.mark.parametrize(("name", "text", "expected"), [
    ("q.csv", "usr,quota_key,value\nalice,producer_byte_rate,1\n", "column 'usr' is not an entity column: did you "
                                                                    "mean 'user'?"),
    ("q.csv", "User,producer_byte_rate\nalice,1\n", "did you mean 'user'?"),
    ("q.csv", "user,clientid,producer_byte_rate\nalice,etl,1\n", "did you mean 'client_id'?"),
    ("q.csv", "user,quota_key\nalice,producer_byte_rate\n", "there is no 'value' column"),
    ("q.csv", "alice,producer_byte_rate,1\n", "is the first line a header?"),
    ("q.csv", "user\nalice\n", "no quota columns"),
    ("q.csv", "", "the file is empty"),
    ("q.csv", "user,client_id,client-id,quota_key,value\n", "both name the 'client_id' column"),
    ("q.json", '{"user": "alice", "quota_key": "producer_byte_rate", "value": true}\n', "must hold numbers"),
    ("q.json", '{"user": {"name": "alice"}, "producer_byte_rate": 1}\n', "must hold text"),
    ("q.json", '{"user": "alice", "quota_key": "x", "value": 1}\nnot json\n', "line 2 is not a JSON record"),
])
def test_bad_input_is_refused_before_spark_starts(cluster: FakeCluster, tmp_path: Path, no_spark: None,
                                                  name: str, text: str, expected: str) -> None:
    cluster.clear_log()
    r = _provision(cluster, tmp_path, name, text, "--dry-run")
    assert r.code == 2, r.err
    assert len(r.err_lines) == 1 and expected in r.err, r.err
    assert cluster.request_log == []


@pytest.mark.parametrize(("scope", "expected"), [
    ([], None), (["user"], [("user",)]), (["user+client-id", "ip"], [("user", "client-id"), ("ip",)]),
    (["client_id,user"], [("client-id",), ("user",)]), (["all"], "all"),
])
def test_scope_values(scope: list[str], expected: Any) -> None:
    assert cli_quotas.scope_from_args(scope) == expected


def test_bad_scope_is_refused_before_spark_starts(cluster: FakeCluster, tmp_path: Path, no_spark: None) -> None:
    r = _provision(cluster, tmp_path, "q.csv", "user,quota_key,value\na,producer_byte_rate,1\n",
                   "--scope", "group", "--remove-unlisted")
    assert r.code == 2 and "--scope 'group': one of user, client-id, user+client-id, ip, all" in r.err


def test_provision_help_documents_the_formats_and_the_removal_flags() -> None:
    r = run_main("quotas", "provision", "--help")
    assert r.code == 0
    for text in ("long: user,client_id,ip,quota_key,value", "wide:", "<default>", "--empty-means-remove",
                 "--scope", "--remove-unlisted", "--all"):
        assert text in r.out, text


def test_removal_line_counts_per_entity_kind() -> None:
    line = cli_quotas.removal_line({"user": (2, 1), "default user": (1, 1)}, "apply")
    assert line == "kadmin: removing 3 quota keys: 1 key on 1 default user entity, 2 keys on 1 user entity"
    assert cli_quotas.removal_line({}, "plan") == "kadmin: the plan removes no quota keys"
    assert cli_quotas._kind({"user": "<default>", "client_id": "etl", "ip": None}) == "default user+client-id"
