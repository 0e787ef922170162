"""bench/groups.py runs end to end on a small size and reports what its table promises."""

from __future__ import annotations

import pytest

from bench import groups as bench

pytestmark = pytest.mark.timeout(120)


def test_bench_smoke_reports_counts_from_the_request_log(monkeypatch: pytest.MonkeyPatch) -> None:
    # Sample kafka-python's per-key lookups on 50 of the 150 groups, as the full run does on 1,000 of 10,000.
    monkeypatch.setattr(bench, "KAFKA_PYTHON_SAMPLE", 50)
    result = bench.run(quick=True, groups=150)
    a, b = result["cases"]["a"], result["cases"]["b"]
    assert result["groups"] == 150 and a["preset"] == "3.9" and b["preset"] == "2.8"
    # (a) one batched lookup and one DescribeGroups per coordinator, for kadmin.
    assert a["kadmin"]["find_coordinator"] == 1 and a["kadmin"]["find_coordinator_versions"] == [6]
    assert a["kadmin"]["describe_groups"] == a["kadmin"]["coordinators"] == 3
    assert result["targets"]["a_at_most_1_lookup_and_1_describe_per_coordinator"] is True
    # (b) brokers without batched lookups: one v3 request per group, for both clients.
    for client in ("kadmin", "kafka_python"):
        assert b[client]["find_coordinator"] == 150 and b[client]["find_coordinator_versions"] == [3]
        assert b[client]["describe_groups"] == 3 and b[client]["wall_s"] > 0
    assert not b["kadmin"]["extrapolated"] and not a["kafka_python"]["extrapolated"]
    kp = b["kafka_python"]
    assert kp["extrapolated"] and kp["measured_groups"] == 50
    assert kp["wall_s"] == pytest.approx(3 * kp["measured_wall_s"], abs=0.002)
    assert b["speedup"] == round(b["kafka_python"]["wall_s"] / b["kadmin"]["wall_s"], 1)
    table = bench.format_table(result)
    assert table.count("| (a) 3.9") == 2 and table.count("| (b) 2.8") == 2
    assert "target b_wall_time_20x_below_kafka_python" in table
    assert "measured on 50 groups" in table and "extrapolated linearly to 150" in table


def test_cluster_process_answers_commands_and_is_always_stopped() -> None:
    with pytest.raises(ZeroDivisionError):
        with bench.ClusterProcess(3, "2.8", 0.0) as cluster:
            proc = cluster._proc  # noqa: SLF001
            cluster.add_groups(["g1", "g2", "g3", "g4"])
            assert cluster.coordinators(["g1", "g2", "g3", "g4"]) >= 1
            traffic = cluster.traffic()
            assert traffic["requests"] == 0 and traffic["find_coordinator"] == 0
            with pytest.raises(RuntimeError, match="unknown command"):
                cluster._call("nope")  # noqa: SLF001
            1 / 0  # noqa: B018 - an error in the benchmark must still stop the child
    assert not proc.is_alive() and proc.exitcode is not None
