"""The ``group_configs`` kind: a group's own config values (GROUP config resources, Kafka 4.0+ KRaft brokers),
set, altered or removed with IncrementalAlterConfigs.

Columns: ``group``, ``config``, ``value`` (a null value removes the group's own value, so the broker's
``group.*`` default applies again): ``consumer.session.timeout.ms``, ``consumer.heartbeat.interval.ms``,
``share.auto.offset.reset``, ``streams.*``...  A group config may be set before the group exists (the first
member picks it up), so nothing owns these rows.

The plan describes the groups the spec names (DescribeConfigs lists every config a group can have, so a name the
cluster does not know is ``rejected`` before anything is sent) and, with ``remove_unlisted``, the groups of the
scope's group prefixes (``groups=PREFIX``: no prefix, no deletion), found with ListConfigResources (Kafka 4.1+:
groups with configs too) or, on older brokers, ListGroups (groups that exist: a config set on a group that has
never had a member is not found there).  A cluster without GROUP config resources (before 4.0, or ZooKeeper mode)
answers INVALID_REQUEST: the kind's rows fail with that reason, alone.
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
    from kadmin.configs import ConfigResource

NAME = "group_configs"
COLUMNS = {"group": True, "config": True, "value": True}
EXPORT_SCHEMA: Schema = (("group", "string"), ("config", "string"), ("value", "string"))
#: Groups described per DescribeConfigs call.
READ_CHUNK = 1000
_TOO_OLD = "GROUP config resources need Kafka 4.0 or later in KRaft mode"


def list_groups(admin: AdminClient) -> list[str]:
    """Every group the cluster has configs for or knows: ListConfigResources (4.1+), else ListGroups."""
    from kadmin.errors import UnsupportedVersionError

    try:
        return sorted(r.name for r in admin.list_config_resources(["groups"]))
    except UnsupportedVersionError:
        listed = admin.list_groups()
        if listed.errors:
            raise next(iter(listed.errors.values())) from None
        return listed.group_ids()


def read_group_configs(admin: AdminClient, groups: list[str], in_scope: set[str], *, strict: bool = False,
                       ) -> tuple[Columns, dict[str, str]]:
    """Every described entry of ``groups`` (``own``: the group's GROUP_CONFIG value) and, per group the
    cluster would not describe, why.  ``strict`` (an export): an error other than the INVALID_REQUEST of a
    release without GROUP config resources is raised."""
    from kadmin.configs import ConfigResource, ConfigSource
    from kadmin.errors import InvalidRequestError, KafkaError

    cols = described_columns()
    errors: dict[str, str] = {}
    for start in range(0, len(groups), READ_CHUNK):
        described = admin.describe_configs([ConfigResource.group(g) for g in groups[start:start + READ_CHUNK]])
        for resource, entries in described.items():
            if isinstance(entries, KafkaError):
                if strict and not isinstance(entries, InvalidRequestError):
                    raise entries
                hint = f" ({_TOO_OLD})" if isinstance(entries, InvalidRequestError) else ""
                errors[resource.name] = f"group {resource.name}'s configs could not be read: " \
                                        f"{error_text(entries)}{hint}"
                continue
            for name, e in entries.items():
                add_entry(cols, resource.name, name, e.value, e.source is ConfigSource.GROUP_CONFIG, e.is_read_only,
                          e.is_sensitive, resource.name in in_scope)
    return cols, errors


def _state(ctx: PlanContext, wanted: list[str]) -> tuple[Columns, Columns]:
    deleting = ctx.scope_if_deleting(NAME)
    scoped: set[str] = set()
    if deleting is not None and deleting.groups:
        scoped = {g for g in list_groups(ctx.admin) if deleting.group_in_scope(g)}
        scoped |= {g for g in wanted if deleting.group_in_scope(g)}
    cols, errors = read_group_configs(ctx.admin, sorted(set(wanted) | scoped), scoped)
    return cols, {"entity": list(errors), "why": list(errors.values()), "failed": [True] * len(errors)}


def plan(ctx: PlanContext) -> DataFrame:
    df = ctx.frame_of(NAME)
    assert df is not None  # planned only when the spec holds the kind
    d = desired(df, "group", "_raw", [when("entity IS NULL OR entity = ''", "'group is empty'")])
    wanted = desired_entities(d)
    errors: Columns = {n: [] for n, _ in ERRORS}

    def read() -> Columns:
        cols, errs = _state(ctx, wanted)
        errors.update(errs)
        return cols

    cols, why = read_kind("group configs", DESCRIBED, read)
    unknown = ("CASE WHEN c_config IS NULL AND value IS NOT NULL THEN concat('group config ', config, ' is not "
               "known to the cluster (a group config is consumer.*, share.* or streams.*, as the release has it)')"
               " END")
    part = plan_rows(d, frame(ctx.spark, cols, DESCRIBED), frame(ctx.spark, errors, ERRORS), kind=NAME,
                     column="group", refuse=unknown, deleting=ctx.deletes[NAME])
    return unreadable(part, why)


def export(ctx: ExportContext) -> Columns:
    """The groups' own configs (every group listed, or those of the scope's group prefixes).  A cluster without
    GROUP config resources has none to export: noted, not missing."""
    scope = ctx.scope
    groups = [g for g in list_groups(ctx.admin) if scope is None or not scope.groups or scope.group_in_scope(g)]
    cols, errors = read_group_configs(ctx.admin, groups, set(), strict=True)
    if errors:
        ctx.notes.append(f"group_configs: none exported for {len(errors)} group(s): {next(iter(errors.values()))}")
    keep = [i for i, own in enumerate(cols["own"]) if own and cols["value"][i] is not None]
    return {"group": [cols["entity"][i] for i in keep], "config": [cols["config"][i] for i in keep],
            "value": [cols["value"][i] for i in keep]}


def _resource(name: str) -> ConfigResource:
    from kadmin.configs import ConfigResource

    return ConfigResource.group(name)


KIND = register(Kind(
    name=NAME, order=8, columns=COLUMNS, plan=plan, items=make_items(NAME, "group"),
    export=export, export_schema=EXPORT_SCHEMA,
    phases=(Phase(NAME, ("create", "alter", "delete"), "group configs altered", 55, make_send(_resource)),),
    group="args['group']",
))
