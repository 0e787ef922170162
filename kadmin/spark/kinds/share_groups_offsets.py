"""The ``share_groups_offsets`` kind: where share groups (KIP-932) start reading each partition.

A share group commits no offsets per member: its share coordinator keeps, per partition, the share-partition
start offset (SPSO), the first offset the group has not finished with.  AlterShareGroupOffsets (Kafka 4.1+)
sets it to an absolute offset, and only while the group has no members.

One spec row is ``group, topic, partition (empty: every partition), target``, with the targets of
:mod:`kadmin.spark.kinds.groups_offsets` (``earliest``, ``latest``, ``offset:N``, ``timestamp:...``): the API takes
an offset, so, as kafka-share-groups.sh --reset-offsets does, ``earliest`` / ``latest`` / a time are read from
the partition's log (ListOffsets) when the plan is made, and every target is clamped to [log start, log end].
Relative targets are refused (a re-run would move the group again).

**Plan.**  The same checks, reads and join as the consumer groups' kind (the topics' partitions, their log start
and end, the offsets of the asked times), diffed against the groups' current start offsets
(DescribeShareGroupOffsets, one ``list_share_group_offsets`` call): ``alter`` (old -> new), ``unchanged``, or
``reject``.  A group that does not exist is not refused: the write makes it (empty), so that its first members
start where the spec says.  A group whose start offsets cannot be read (a coordinator before Kafka 4.1, which has
no share groups: UnsupportedVersionError naming the release; an authorization error) fails its own rows with
the reason; the other groups and kinds go on.  A topic the spec creates starts at 0.

**Apply.**  One AlterShareGroupOffsets (``alter_share_group_offsets``) per group per batch (a group's rows travel
together).  The coordinator refuses the whole request while the group has members: the rows of that group
fail with its error (NON_EMPTY_GROUP; stop its share consumers first), alone.  ``validate`` writes nothing (the
API has no validate_only): it describes the groups and fails the rows of a group with members with the error
an apply would get.

**Scope.**  Never deletions: ``remove_unlisted`` leaves start offsets the spec does not name alone.

**Export** (with the consumer groups' offsets, only when asked: positions, not configuration): every share
group's start offsets, as ``offset:N`` targets.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from kadmin.spark.kinds import Kind, Owner, Phase, Row, register
from kadmin.spark.kinds import groups_offsets as _offsets
from kadmin.spark.kinds._sql import Columns, Schema, empty
from kadmin.spark.kinds.context import ApplyContext, ExportContext, Item, PlanContext, error_text, one_per_row

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from kadmin.client import AdminClient

log = logging.getLogger("kadmin.spark")

KIND = "share_groups_offsets"
COLUMNS = dict(_offsets.COLUMNS)


def read_start_offsets(admin: AdminClient, groups: Iterable[str], topics: Iterable[str]) -> dict[str, Columns]:
    """The share groups' start offsets on ``topics``, in the consumer groups' kind's state frames (``groups``:
    one row per group, an error when it could not be read; ``committed``: the start offsets)."""
    from kadmin.errors import GroupIdNotFoundError, KafkaError
    from kadmin.share_groups import SharePartitionOffset

    group_list, wanted = sorted(set(groups)), set(topics)
    out = {"groups": empty(_offsets.GROUPS_SCHEMA), "committed": empty(_offsets.COMMITTED_SCHEMA)}
    got = admin.list_share_group_offsets(group_list) if group_list else {}

    def add(table: str, *values: Any) -> None:
        for name, v in zip(out[table], values, strict=True):
            out[table][name].append(v)

    for g in group_list:
        res = got.get(g)
        if isinstance(res, GroupIdNotFoundError) or res is None:
            add("groups", g, None, 0, None)  # unknown: the write makes it
        elif isinstance(res, KafkaError):
            add("groups", g, None, None, f"the start offsets of share group {g} could not be read: {error_text(res)}")
        else:
            add("groups", g, None, 0, None)
            _offsets.add_positions(
                add, g, res, wanted, lambda v: v.start_offset if isinstance(v, SharePartitionOffset) else None,
                "start offset")
    log.info("read the start offsets of %d share group(s): %d partition(s)", len(group_list),
             len(out["committed"]["c_group"]))
    return out


def plan_share_offsets(df: DataFrame, admin: AdminClient, topic_plan: DataFrame | None) -> DataFrame:
    """The kind's plan rows (see the module docstring); ``topic_plan``: the topics' own rows, when the spec has
    topics (a new topic's partitions start at 0)."""
    from kadmin.errors import KafkaError

    d = _offsets.desired_groups_offsets(df)
    wanted = d.filter("reason IS NULL").selectExpr(
        "grp", "topic", "CASE WHEN t_kind = 'timestamp' THEN t_value END AS ts").distinct().collect()
    topics = {r[1] for r in wanted}
    try:
        state = _offsets.read_state(admin, (), topics, {(r[1], int(r[2])) for r in wanted if r[2] is not None})
        state.update(read_start_offsets(admin, {r[0] for r in wanted}, topics))
    except KafkaError as exc:
        return _offsets.unreadable_offsets(d, exc, KIND, "share groups' start offsets")
    rows = _offsets.targets(d, state, topic_plan, df.sparkSession)
    return _offsets.dedupe_offsets(_offsets.offset_rows(rows, KIND))


def alter_start_offsets(admin: AdminClient, payloads: list[tuple[str, str, str, int, int]], validate: bool,
                        ) -> dict[str, BaseException | None]:
    """One AlterShareGroupOffsets per group (:func:`~kadmin.spark.kinds.groups_offsets.write_per_group`);
    ``validate`` writes nothing (it fails the rows of groups with members, as the coordinator would)."""
    busy = _busy(admin, list(dict.fromkeys(group for _k, group, *_ in payloads))) if validate else {}
    return _offsets.write_per_group(payloads, admin.alter_share_group_offsets,
                                    busy.get if validate else None)


def _busy(admin: AdminClient, groups: list[str]) -> dict[str, BaseException]:
    """For ``validate`` (the API has no validate_only): the groups the coordinator would refuse now, because
    they have members, with the error an apply would get (one ShareGroupDescribe)."""
    from kadmin.errors import KafkaError, NonEmptyGroupError

    out: dict[str, BaseException] = {}
    for g, d in admin.describe_share_groups(groups).items():
        if not isinstance(d, KafkaError) and d.members:
            out[g] = NonEmptyGroupError(f"share group {g} has {len(d.members)} member(s): its coordinator refuses "
                                        "start offsets until they leave (stop its share consumers first)")
    return out


def plan(ctx: PlanContext) -> DataFrame:
    df = ctx.frame_of(KIND)
    assert df is not None
    return plan_share_offsets(df, ctx.admin, ctx.parts.get("topics"))


def items(ctx: ApplyContext, phase: Phase, rows: list[Row]) -> list[Item]:
    return one_per_row(ctx, phase, rows, lambda key, action, a: (_offsets.item_payload(key, a), key),
                       lambda key, a: key)


def send(ctx: ApplyContext, batch: list[Item]) -> dict[str, BaseException | None]:
    return alter_start_offsets(ctx.admin, [i.payload for i in batch], ctx.validate)


EXPORT_SCHEMA: Schema = _offsets.EXPORT_SCHEMA


def export(ctx: ExportContext) -> Columns:
    """Every share group's start offsets (on the scope's topics) as ``offset:N`` targets.  A cluster whose
    brokers cannot list groups by type (before Kafka 3.8) has no share groups: nothing, and a note."""
    from kadmin.errors import KafkaError, UnsupportedVersionError
    from kadmin.share_groups import SharePartitionOffset

    cols = empty(EXPORT_SCHEMA)
    listed = ctx.admin.list_groups(types=["share"])
    if listed.errors:
        if all(isinstance(e, UnsupportedVersionError) for e in listed.errors.values()):
            ctx.notes.append(f"{KIND}: the brokers list no share groups (they predate them)")
            return cols
        broker, err = min(listed.errors.items())
        raise KafkaError(f"broker {broker} could not list its share groups: {error_text(err)}")
    groups = listed.group_ids()
    got = ctx.admin.list_share_group_offsets(groups) if groups else {}
    for g in groups:
        res = got.get(g)
        if not isinstance(res, dict):
            ctx.notes.append(f"{KIND}: share group {g} left out: {error_text(res) if res is not None else 'no answer'}")
            continue
        for tp, v in sorted(res.items(), key=lambda kv: (kv[0].topic, kv[0].partition)):
            if isinstance(v, SharePartitionOffset) and ctx.topic_wanted(tp.topic):
                for name, value in zip(cols, (g, tp.topic, tp.partition, f"offset:{v.start_offset}"), strict=True):
                    cols[name].append(value)
    busy = sorted(x.group_id for x in listed.groups if x.group_id in set(cols["group"])
                  and str(x.state or "") not in ("", "Empty", "Dead"))
    if busy:
        ctx.notes.append(f"{KIND}: share group(s) {', '.join(busy)} have members: a provision of their rows fails "
                         "until their consumers stop")
    return cols


register(Kind(
    name=KIND, order=11, columns=COLUMNS, plan=plan, items=items, export=export, export_schema=EXPORT_SCHEMA,
    # after the consumer groups' resets, before topics are deleted: the topics they name exist by then
    phases=(Phase(KIND, ("alter",), "share group start offsets set", 85, send),),
    owners=(Owner("topics", "args['topic']", lambda a: a.get("topic"), "topic ", ("alter",)),),
    group="args['group']",
))


__all__ = ["KIND", "alter_start_offsets", "plan_share_offsets", "read_start_offsets"]
