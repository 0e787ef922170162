"""The ``broker_configs`` kind: dynamic broker configs, per broker and cluster-wide (kafka-configs.sh
``--entity-type brokers --entity-name N`` and ``--entity-default``), set, altered or removed with
IncrementalAlterConfigs.

Columns: ``broker``, ``config``, ``value``.  ``broker`` is a broker id, or ``default`` (an empty cell too) for the
cluster-wide default every broker falls back to; ``value`` null removes the resource's own value.  Only dynamic
values are managed: a broker's own (DYNAMIC_BROKER_CONFIG) and the default's (DYNAMIC_DEFAULT_BROKER_CONFIG).
A config the broker reports read-only (a static one, from server.properties) or sensitive (a password: a spec
never carries a secret) is ``rejected`` at plan time with the reason; anything else the broker refuses (a bad
value, a config it does not take dynamically) fails at apply time with the broker's error.  The default's
read-only flags are those of one live broker (the default resource itself lists only what is set).

Deletions (``remove_unlisted``) are narrower than other kinds': a broker config is cluster-wide, so they need the
kind named in the scope explicitly (``--scope kinds=broker_configs``; a scope without ``kinds`` does not do),
and they touch only the resources the spec has rows for (a broker id, or ``default``): the dynamic values of
those resources that no row lists are removed; a broker the spec does not name is never read for deletion.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kadmin.spark.kinds import Kind, Phase, register
from kadmin.spark.kinds._resource_configs import (
    DESCRIBED,
    ERRORS,
    add_entry,
    described_columns,
    desired,
    desired_entities,
    make_items,
    make_send,
    plan_rows,
)
from kadmin.spark.kinds._sql import Columns, Schema, error_text, frame, read_kind, unreadable, when
from kadmin.spark.kinds.context import ExportContext, PlanContext

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from kadmin.client import AdminClient
    from kadmin.configs import ConfigEntry, ConfigResource

NAME = "broker_configs"
DEFAULT = "default"
COLUMNS = {"broker": True, "config": True, "value": True}
EXPORT_SCHEMA: Schema = (("broker", "string"), ("config", "string"), ("value", "string"))
#: ``default`` for the cluster-wide resource; an id without leading zeros (``01`` is broker 1, one resource).
_ENTITY = f"CASE WHEN _raw IS NULL OR trim(_raw) = '' OR lower(trim(_raw)) = '{DEFAULT}' THEN '{DEFAULT}' " \
          "WHEN trim(_raw) RLIKE '^[0-9]{1,9}$' THEN CAST(CAST(trim(_raw) AS INT) AS STRING) ELSE trim(_raw) END"
_RULES = [when(f"entity != '{DEFAULT}' AND NOT entity RLIKE '^[0-9]+$'",
               "concat('broker must be a broker id or \\'default\\' (the cluster-wide default), not \\'', entity, "
               "'\\'')")]
_REFUSE = (f"CASE WHEN c_read_only AND value IS NOT NULL THEN concat('config ', config, ' is read-only on ', "
           f"CASE WHEN entity = '{DEFAULT}' THEN 'the cluster default' ELSE concat('broker ', entity) END, "
           "' (a static config, set in server.properties: only dynamic configs can be provisioned)') "
           "WHEN c_sensitive AND value IS NOT NULL THEN concat('config ', config, ' is sensitive (a password): a "
           "spec never carries a secret; set it with kadmin configs alter') END")


def resource(entity: str) -> ConfigResource:
    from kadmin.configs import ConfigResource

    return ConfigResource.broker(None if entity == DEFAULT else int(entity))


def _own(entity: str, e: ConfigEntry) -> bool:
    from kadmin.configs import ConfigSource

    want = ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG if entity == DEFAULT else ConfigSource.DYNAMIC_BROKER_CONFIG
    return e.source is want


def read_broker_configs(admin: AdminClient, entities: list[str], in_scope: bool, *, strict: bool = False,
                        ) -> tuple[Columns, dict[str, tuple[str, bool]]]:
    """Every described entry of ``entities`` (broker ids and ``default``; ``own``: the resource's dynamic
    value) and, per resource that could not be described, why and whether that is a failure (a broker not in
    the cluster is the spec's mistake: rejected).  ``strict``: a resource's error is raised (an export)."""
    from kadmin.errors import KafkaError

    ids = sorted(n.node_id for n in admin.describe_cluster().nodes)
    errors: dict[str, tuple[str, bool]] = {}
    asked: list[str] = []
    for e in entities:
        if e != DEFAULT and int(e) not in ids:
            errors[e] = (f"broker {e} is not in the cluster (its brokers: {', '.join(map(str, ids))})", False)
        elif e != DEFAULT or ids:
            asked.append(e)
    # The default resource lists only what is set cluster-wide: a live broker says what is read-only.
    flags_from = str(ids[0]) if DEFAULT in asked else None
    keys = {resource(e): e for e in asked}
    if flags_from is not None and flags_from not in asked:
        keys[resource(flags_from)] = flags_from
    described = admin.describe_configs(list(keys)) if keys else {}
    flags: dict[str, ConfigEntry] = {}
    if flags_from is not None:
        got = described.get(resource(flags_from))
        flags = got if isinstance(got, dict) else {}
    cols = described_columns()
    for res, entries in described.items():
        entity = keys[res]
        if isinstance(entries, KafkaError):
            if strict:
                raise entries
            errors[entity] = (f"broker {entity}'s configs could not be read: {error_text(entries)}", True)
            continue
        if entity in asked:
            _add(cols, entity, entries, in_scope)
    if DEFAULT in asked and DEFAULT not in errors:
        own = set(cols["config"][i] for i, ent in enumerate(cols["entity"]) if ent == DEFAULT)
        for name, entry in flags.items():
            if name not in own:
                add_entry(cols, DEFAULT, name, None, False, entry.is_read_only, entry.is_sensitive, in_scope)
    return cols, errors


def _add(cols: Columns, entity: str, entries: dict[str, ConfigEntry], in_scope: bool) -> None:
    for name, e in entries.items():
        add_entry(cols, entity, name, e.value, _own(entity, e), e.is_read_only, e.is_sensitive, in_scope)


def plan(ctx: PlanContext) -> DataFrame:
    df = ctx.frame_of(NAME)
    assert df is not None  # planned only when the spec holds the kind
    d = desired(df, "broker", _ENTITY, _RULES)
    wanted = [e for e in desired_entities(d) if e == DEFAULT or e.isdigit()]
    # Cluster-wide configs are deleted only when the scope names this kind itself (see the module docstring).
    deleting = ctx.deletes[NAME] and ctx.scope is not None and ctx.scope.kinds is not None \
        and NAME in ctx.scope.kinds
    errors: Columns = {n: [] for n, _ in ERRORS}

    def read() -> Columns:
        cols, errs = read_broker_configs(ctx.admin, wanted, deleting)
        errors.update({"entity": list(errs), "why": [w for w, _ in errs.values()],
                       "failed": [f for _, f in errs.values()]})
        return cols

    cols, why = read_kind("broker configs", DESCRIBED, read)
    part = plan_rows(d, frame(ctx.spark, cols, DESCRIBED), frame(ctx.spark, errors, ERRORS), kind=NAME,
                     column="broker", refuse=_REFUSE, deleting=deleting)
    return unreadable(part, why)


def export(ctx: ExportContext) -> Columns:
    """Every live broker's own dynamic configs and the cluster-wide default's.  A sensitive value (the broker
    answers null) is left out and noted."""
    ids = sorted(n.node_id for n in ctx.admin.describe_cluster().nodes)
    entities = [DEFAULT, *map(str, ids)]
    cols, _ = read_broker_configs(ctx.admin, entities, False, strict=True)
    out: Columns = {"broker": [], "config": [], "value": []}
    for i, own in enumerate(cols["own"]):
        if not own:
            continue
        if cols["sensitive"][i] or cols["value"][i] is None:
            ctx.notes.append(f"broker_configs: {cols['entity'][i]}:{cols['config'][i]} left out: the broker does "
                             "not return its value (sensitive)")
            continue
        for name, col in (("broker", "entity"), ("config", "config"), ("value", "value")):
            out[name].append(cols[col][i])
    return out


KIND = register(Kind(
    name=NAME, order=9, columns=COLUMNS, plan=plan, items=make_items(NAME, "broker"),
    export=export, export_schema=EXPORT_SCHEMA,
    phases=(Phase(NAME, ("create", "alter", "delete"), "broker configs altered", 52, make_send(resource)),),
    group="args['broker']",
))
