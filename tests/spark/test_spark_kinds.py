"""The kinds registry of kadmin.spark: each kind is one module that registers itself; nothing else lists them.

No Spark session is started here: these check the declarations the plan and the apply are generic over.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest


def test_every_kind_module_registers_one_kind_with_phases_in_one_order() -> None:
    from kadmin.spark.kinds import kinds, phases

    names = [k.name for k in kinds()]
    assert names == ["scram_users", "topics", "topic_configs", "acls", "groups_offsets", "quotas", "group_configs",
                     "broker_configs", "acl_roles", "share_groups_offsets"]
    orders = [p.order for p in phases()]
    assert orders == sorted(orders) and len(set(orders)) == len(orders)
    assert [(p.kind, p.actions) for p in phases()][:2] == [("scram_users", ("create", "alter")),
                                                          ("topics", ("create",))]
    assert phases()[-1].kind == "quotas"  # a quota never applies to a half-made tenant
    for k in kinds():
        assert k.phases and all(p.kind == k.name for p in k.phases), k.name
        for owner in k.owners:  # an owner is planned (and sent) before what depends on it
            assert owner.kind in names and names.index(owner.kind) < names.index(k.name), (k.name, owner)


def test_a_rejected_users_grants_depend_on_it_by_declaration() -> None:
    from kadmin.spark.kinds import kind

    acls = kind("acls")
    users = {o.kind: o for o in acls.owners}
    assert users["scram_users"].name({"principal": "User:t-bad"}) == "t-bad"
    assert users["scram_users"].name({"principal": "Group:ops"}) is None
    assert users["topics"].name({"resource_type": "TOPIC", "pattern_type": "LITERAL", "resource_name": "t"}) == "t"
    assert users["topics"].name({"resource_type": "TOPIC", "pattern_type": "PREFIXED", "resource_name": "t"}) is None
    scram = kind("scram_users")
    assert scram.blocks_sql is not None and "rejected" in (scram.blocks_sql(None) or "")  # type: ignore[arg-type]


def test_the_spec_columns_come_from_the_kinds_without_importing_pyspark() -> None:
    code = textwrap.dedent("""
        import sys
        from kadmin.spark.columns import COLUMNS, KINDS
        from kadmin.spark.kinds import kinds
        assert KINDS == tuple(k.name for k in kinds())
        assert COLUMNS["scram_users"]["password_ref"] is True and "quotas" not in COLUMNS
        assert not [m for m in sys.modules if m.split(".")[0] == "pyspark"], "pyspark was imported"
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_a_new_kind_is_one_registration() -> None:
    pytest.importorskip("pyspark")
    from kadmin.spark import kinds as registry
    from kadmin.spark.apply import _group_sql
    from kadmin.spark.kinds import Kind, Phase, kinds, phases, register

    new = Kind(name="widgets", order=99, columns={"widget": True},
               plan=lambda ctx: None,  # type: ignore[arg-type,return-value]
               phases=(Phase("widgets", ("create",), "widgets made", 999, lambda ctx, batch: {}),),
               items=lambda ctx, phase, rows: [], group="args['box']")
    register(new)
    try:
        assert kinds()[-1] is new and phases()[-1].title == "widgets made"
        assert "WHEN kind = 'widgets' THEN args['box']" in _group_sql()
        with pytest.raises(ValueError, match="registered twice"):
            register(Kind(**{**new.__dict__, "order": 98}))
    finally:
        del registry._KINDS["widgets"]
    assert "widgets" not in [k.name for k in kinds()]
