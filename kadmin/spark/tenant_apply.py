"""Applying a tenant plan from the driver: phases in a safe order, batches per API, per-entity results.

**Order.**  The plan's changes are streamed from Spark in phase order, and each phase finishes before the next
starts (the first phase is read straight from the plan while Spark computes and sorts the rest in the
background: :class:`_PlanStream`):

1. SCRAM users created/altered (a tenant can log in before anything grants it access);
2. topics created (with their configs), 3. partitions added, 4. replicas reassigned;
5. configs of existing topics altered;
6. ACLs granted, 7. ACLs revoked (after the grants: a binding replaced by another never leaves a gap);
8. consumer groups' offsets reset (after the topics they name exist; :mod:`kadmin.spark.tenant_groups`);
9. topics deleted, 10. SCRAM users deleted;
11. quotas (last: a quota never applies to a half-made tenant).

**Dependencies.**  A failure skips only what depends on it, reported ``skipped`` with the reason: an ACL naming
``User:x`` when x's credential failed, an ACL on a literal topic (and a config of a topic) whose creation
failed, the deletion of a user or literal topic named by an ACL revocation that did not succeed (no dangling
grant for a re-created one to inherit).  A creation whose answer was lost is ``possibly-applied``, and so are
the configs sent with it.  Nothing else stops: other tenants go on.

**Batches.**  Within a phase, entities go ``batch_size`` per call of the client's batched operation, at most
``max_concurrency`` calls in flight, so each API gets at most ``ceil(n / batch_size)`` requests.  The driver
holds one streamed partition, the batches in flight, and the outcomes that are *not* ok (ok is the default
of every sent row), never the whole plan.

**Secrets.**  A SCRAM row carries the *name* of its secret; the caller's ``secrets`` function resolves it on
the driver while the batch is built, the password is salted at once into a ``ScramUpsertion`` (which does
not keep it), and nothing of it reaches a DataFrame, a log line or an error text.

**Modes.**  ``apply`` sends; ``validate`` sends with ``validate_only`` where the API has it (CreateTopics,
CreatePartitions, IncrementalAlterConfigs, AlterClientQuotas) and checks the rest on the client (ACL bindings
are built, SCRAM secrets resolved and salted, reassignments checked against the brokers), so nothing changes.
"""

from __future__ import annotations

import concurrent.futures as cf
import itertools
import json
import logging
import sys
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TextIO

from pyspark import StorageLevel
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from kadmin.errors import KafkaError
from kadmin.spark.schema import sql_string
from kadmin.spark.spec import (
    KINDS,
    ScopeLike,
    SecretResolver,
    SpecError,
    TenantSpec,
    env_or_file_secrets,
    parse_scope,
)
from kadmin.spark.tenant_plan import CHANGES, PLAN_COLUMNS, PLANNED, build_plan

if TYPE_CHECKING:
    from kadmin.client import AdminClient

log = logging.getLogger("kadmin.spark")

MODES = ("plan", "validate", "apply")
DEFAULT_BATCH_SIZE = 1000
DEFAULT_MAX_CONCURRENCY = 4
#: Result columns (one row per desired or removed entity).
TENANT_RESULT_COLUMNS: tuple[str, ...] = ("kind", "key", "action", "old_value", "new_value", "status", "error")
OK, VALIDATED, FAILED, POSSIBLY_APPLIED, SKIPPED = "ok", "validated", "failed", "possibly-applied", "skipped"


@dataclass(frozen=True)
class Phase:
    kind: str
    actions: tuple[str, ...]
    title: str


PHASES: tuple[Phase, ...] = (
    Phase("scram_users", ("create", "alter"), "SCRAM users upserted"),
    Phase("topics", ("create",), "topics created"),
    Phase("topics", ("alter",), "partitions added"),
    Phase("topics", ("reassign",), "replicas reassigned"),
    Phase("topic_configs", ("create", "alter", "delete"), "topic configs altered"),
    Phase("acls", ("create",), "ACLs granted"),
    Phase("acls", ("delete",), "ACLs revoked"),
    Phase("groups_offsets", ("alter",), "group offsets reset"),
    Phase("topics", ("delete",), "topics deleted"),
    Phase("scram_users", ("delete",), "SCRAM users deleted"),
    Phase("quotas", ("create", "alter", "delete"), "quotas altered"),
)


# --- progress -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TenantProgress:
    """Where an apply/validate run is: ``done`` of ``total`` entities with changes (all phases), the phase
    being sent, failures so far, and the time since sending started."""

    phase: str
    done: int
    total: int
    failed: int
    elapsed_s: float
    finished: bool = False

    @property
    def rate(self) -> float:
        return self.done / self.elapsed_s if self.elapsed_s > 0 else 0.0

    @property
    def eta_s(self) -> float | None:
        return None if self.rate == 0 else (self.total - self.done) / self.rate


TenantProgressCallback = Callable[[TenantProgress], None]


class StderrProgress:
    """A progress line on a stream (stderr by default): ``done/total entities, rate, ETA, phase``; redrawn in
    place on a terminal, one line per tenth of the work otherwise (a log file gets ten lines, not 100,000)."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._next_tenth = 0

    def __call__(self, p: TenantProgress) -> None:
        eta = "" if p.eta_s is None or p.finished else f", ETA {p.eta_s:.0f}s"
        failed = f", {p.failed} failed" if p.failed else ""
        line = (f"provision: {p.done}/{p.total} entities{failed}, {p.rate:.0f}/s{eta} "
                f"[{'done' if p.finished else p.phase}]")
        tenth = 10 if p.total == 0 else p.done * 10 // p.total
        if self.tty:
            self.stream.write("\r\x1b[K" + line + ("\n" if p.finished else ""))
        elif p.finished or tenth >= self._next_tenth:
            self._next_tenth = tenth + 1
            self.stream.write(line + "\n")
        self.stream.flush()


# --- one item per entity (or per group of plan rows sent as one) ------------------------------------------


@dataclass
class _Item:
    keys: list[tuple[str, str]]  # the plan rows (kind, key) this item answers for
    payload: Any  # what the API call takes for it
    name: str  # how the API's answer names it (topic, user, entity...)


@dataclass
class _Outcomes:
    """Non-ok outcomes, and the names later phases depend on."""

    rows: list[tuple[str, str, str, str]] = field(default_factory=list)  # kind, key, status, error
    failed_users: dict[str, str] = field(default_factory=dict)  # user -> why
    failed_topics: dict[str, str] = field(default_factory=dict)  # topic -> why
    #: topic -> error: a creation whose answer was lost (its configs travelled with it: the same status)
    unsure_topics: dict[str, str] = field(default_factory=dict)
    #: user / literal topic -> why: an ACL revocation naming it did not succeed; deleting the user or the
    #: topic now would leave a grant behind that a re-created user or topic would inherit
    held_users: dict[str, str] = field(default_factory=dict)
    held_topics: dict[str, str] = field(default_factory=dict)
    done: int = 0
    failed: int = 0

    def record(self, item: _Item, status: str, error: str) -> None:
        for kind, key in item.keys:
            self.rows.append((kind, key, status, error))
        self.failed += len(item.keys)


def _error_text(err: BaseException) -> str:
    name = getattr(err, "name", None) if isinstance(err, KafkaError) else None
    return f"{name or type(err).__name__}: {err}"


def _status_of(err: BaseException) -> str:
    return POSSIBLY_APPLIED if getattr(err, "possibly_applied", False) else FAILED


# --- building items from streamed rows --------------------------------------------------------------------


def _scram_upsert(args: dict[str, str], secrets: SecretResolver | None) -> Any:
    from kadmin.scram import ScramUpsertion

    ref = args["password_ref"]
    if secrets is None:
        raise SpecError("scram_users needs a secrets function to resolve password_ref (secrets=...)")
    try:
        password = secrets(ref)
    except LookupError as exc:
        if secrets is env_or_file_secrets and exc.args:  # kadmin's own text: a variable's or a file's name
            raise SpecError(f"the secret {ref!r} could not be resolved: {exc.args[0]}") from None
        # A user function's KeyError may quote a token or the value: the reference and the type only.
        raise SpecError(f"the secret {ref!r} could not be resolved ({type(exc).__name__})") from None
    except Exception as exc:  # noqa: BLE001 - a user function: its text might hold the secret, so only the type
        raise SpecError(f"the secret {ref!r} could not be resolved ({type(exc).__name__})") from None
    if not isinstance(password, str) or not password:
        raise SpecError(f"the secret {ref!r} resolved to an empty or non-text value")
    return ScramUpsertion(args["user"], args["mechanism"], password, int(args["iterations"]))


def _binding(args: dict[str, str]) -> Any:
    from kadmin.acls import AclBinding

    return AclBinding.of(args["resource_type"], args["resource_name"], args["principal"], args["operation"],
                         args["permission"], pattern_type=args["pattern_type"], host=args["host"])


def _entity(args: dict[str, str]) -> Any:
    from kadmin.quotas import ClientQuotaEntity

    return ClientQuotaEntity({t: (None if args[c] == "<default>" else args[c])
                              for c, t in (("user", "user"), ("client_id", "client-id"), ("ip", "ip")) if c in args})


# --- the sender -------------------------------------------------------------------------------------------


class _Sender:
    """Sends one phase's items in batches, at most ``max_concurrency`` calls in flight, and folds answers."""

    def __init__(self, admin: AdminClient, *, validate: bool, batch_size: int, max_concurrency: int,
                 secrets: SecretResolver | None, out: _Outcomes, tick: Callable[[str], None],
                 allow_unknown_keys: bool = False) -> None:
        self.admin = admin
        self.allow_unknown_keys = allow_unknown_keys  # quota keys the plan was made to accept
        self.validate = validate
        self.batch_size = batch_size
        self.max_concurrency = max_concurrency
        self.secrets = secrets
        self.out = out
        self.tick = tick
        self.requests: dict[str, int] = {}
        self._pool = cf.ThreadPoolExecutor(max_workers=max_concurrency, thread_name_prefix="kadmin-provision")
        self._inflight: deque[tuple[cf.Future[dict[str, BaseException | None]], list[_Item], Phase]] = deque()

    def close(self) -> None:
        self.drain(0)
        self._pool.shutdown()

    # -- API calls: each returns {item name: None (ok) or its error} -------------------------------------------

    def _call(self, phase: Phase, items: list[_Item]) -> dict[str, BaseException | None]:
        a, v = self.admin, self.validate
        payloads = [i.payload for i in items]
        if phase.kind == "scram_users":
            if v:
                return dict.fromkeys((i.name for i in items), None)  # built (and salted) already: the client rule
            return dict(a.alter_user_scram_credentials(payloads, batch_size=self.batch_size))
        if phase.kind == "topics" and phase.actions == ("create",):
            created = a.create_topics(payloads, validate_only=v)
            return {n: (r if isinstance(r, KafkaError) else None) for n, r in created.items()}
        if phase.kind == "topics" and phase.actions == ("alter",):
            return self._grow(items)
        if phase.kind == "topics" and phase.actions == ("reassign",):
            return self._reassign([(i.name, i.payload[1]) for i in items])
        if phase.kind == "topics":  # delete
            if v:
                return dict.fromkeys((i.name for i in items), None)
            return {str(k): r for k, r in a.delete_topics(payloads).items()}
        if phase.kind == "topic_configs":
            from kadmin.configs import ConfigResource

            got = a.alter_configs({ConfigResource.topic(i.name): i.payload for i in items}, validate_only=v)
            return {r.name: e for r, e in got.items()}
        if phase.kind == "acls" and phase.actions == ("create",):
            if v:
                return dict.fromkeys((i.name for i in items), None)
            res = a.create_acls(payloads, batch_size=self.batch_size, max_concurrency=1)
            return {str(b): e for b, e in res.items()}
        if phase.kind == "acls":
            if v:
                return dict.fromkeys((i.name for i in items), None)
            dres = a.delete_acls([p.to_filter() for p in payloads], batch_size=self.batch_size, max_concurrency=1)
            return {str(i.name): (r if isinstance(r, BaseException) else None)
                    for i, r in zip(items, dres.values(), strict=True)}
        if phase.kind == "groups_offsets":
            from kadmin.spark.tenant_groups import commit_offsets

            return commit_offsets(a, payloads, v)
        if phase.kind == "quotas":
            qres = a.alter_client_quotas(payloads, validate_only=v, allow_unknown_keys=self.allow_unknown_keys,
                                         batch_size=self.batch_size, max_concurrency=1)
            return {i.name: qres.get(i.payload.entity) for i in items}
        raise AssertionError(f"no sender for {phase}")  # pragma: no cover - PHASES is fixed

    def _grow(self, items: list[_Item]) -> dict[str, BaseException | None]:
        from kadmin.topics import NewPartitions

        got: dict[str, BaseException | None] = dict(self.admin.create_partitions(
            {i.name: NewPartitions(i.payload[0]) for i in items}, validate_only=self.validate))
        # A replication-factor change that rides along: after the growth, so the new partitions move too.
        rf = [(i.name, i.payload[1]) for i in items if i.payload[1] is not None and got.get(i.name) is None]
        if rf:
            got.update(self._reassign(rf))
        return got

    def _reassign(self, wanted: list[tuple[str, int]]) -> dict[str, BaseException | None]:
        """Each partition's replicas grown (brokers added round-robin from the partition's index) or cut (the
        preferred leader and the next ones kept) to the new factor: one AlterPartitionReassignments."""
        from kadmin.types import TopicPartition

        described = self.admin.describe_topics([n for n, _ in wanted])
        brokers = sorted(n.node_id for n in self.admin.describe_cluster().nodes)
        out: dict[str, BaseException | None] = {}
        moves: dict[TopicPartition, list[int]] = {}
        owner: dict[TopicPartition, str] = {}
        for name, rf in wanted:
            d = described.get(name)
            if isinstance(d, BaseException) or d is None:
                out[name] = d if isinstance(d, BaseException) else KafkaError(f"topic {name} was not described")
                continue
            if rf > len(brokers):
                out[name] = SpecError(f"replication_factor {rf} exceeds the {len(brokers)} broker(s) of the cluster")
                continue
            out[name] = None
            for p in d.partitions:
                reps = list(p.replicas)
                if rf <= len(reps):
                    new = reps[:rf]
                else:
                    ring = brokers[p.partition % len(brokers):] + brokers[:p.partition % len(brokers)]
                    new = reps + [b for b in ring if b not in reps][:rf - len(reps)]
                if new != reps:
                    tp = TopicPartition(name, p.partition)
                    moves[tp] = new
                    owner[tp] = name
        if moves and not self.validate:
            for tp, err in self.admin.alter_partition_reassignments(moves).items():
                if err is not None and out.get(owner[tp]) is None:
                    out[owner[tp]] = err
        return out

    # -- batching -------------------------------------------------------------------------------------------

    def submit(self, phase: Phase, items: list[_Item]) -> None:
        if not items:
            return
        self.drain(self.max_concurrency - 1)
        api = f"{phase.kind}:{'/'.join(phase.actions)}"
        self.requests[api] = self.requests.get(api, 0) + 1
        self._inflight.append((self._pool.submit(self._call, phase, items), items, phase))

    def drain(self, until: int) -> None:
        while len(self._inflight) > until:
            done, _ = cf.wait([f for f, _, _ in self._inflight], return_when=cf.FIRST_COMPLETED)
            for entry in [e for e in self._inflight if e[0] in done]:
                self._inflight.remove(entry)
                self._fold(*entry)

    def _fold(self, fut: cf.Future[dict[str, BaseException | None]], items: list[_Item], phase: Phase) -> None:
        try:
            answer = fut.result()
        except (KafkaError, TypeError, ValueError) as exc:
            # The whole call failed (no broker reachable, the client refused the batch): every item in it.
            log.warning("%s: a batch of %d failed as a whole: %s", phase.title, len(items), _error_text(exc))
            answer = {i.name: exc for i in items}
        for item in items:
            err = answer.get(item.name, KafkaError(f"no result was returned for {item.name}"))
            self.out.done += len(item.keys)
            if err is not None:
                self.fail(phase, item, _status_of(err), _error_text(err))
        self.tick(phase.title)

    def fail(self, phase: Phase, item: _Item, status: str, error: str) -> None:
        self.out.record(item, status, error)
        if status == FAILED or status == SKIPPED:
            if phase.kind == "scram_users" and phase.actions != ("delete",):
                self.out.failed_users.setdefault(item.name, error)
            if phase.kind == "topics" and phase.actions == ("create",):
                self.out.failed_topics.setdefault(item.name, error)
        if status == POSSIBLY_APPLIED and phase.kind == "topics" and phase.actions == ("create",):
            self.out.unsure_topics.setdefault(item.name, error)
        if phase.kind == "acls" and phase.actions == ("delete",) and item.payload is not None:
            b = item.payload  # an AclBinding whose revocation failed or may not have happened
            why = f"revoking {b} did not succeed ({status}: {error})"
            user = _user_of(b.entry.principal)
            if user is not None:
                self.out.held_users.setdefault(user, why)
            if b.pattern.resource_type.name == "TOPIC" and b.pattern.pattern_type.name == "LITERAL":
                self.out.held_topics.setdefault(b.pattern.name, why)


# --- streaming and phases -------------------------------------------------------------------------------


def _phase_sql() -> str:
    cases = " ".join(f"WHEN kind = {sql_string(p.kind)} AND action IN ({', '.join(map(sql_string, p.actions))}) "
                     f"THEN {n}" for n, p in enumerate(PHASES))
    return f"CASE {cases} END"


def _group_sql() -> str:
    """Rows sent as one item travel together: a topic's configs, a quota entity's keys."""
    return ("CASE WHEN kind = 'topic_configs' THEN args['topic'] WHEN kind = 'groups_offsets' THEN args['group'] "
            "WHEN kind = 'quotas' THEN substring_index(key, '/', 1) ELSE key END")


#: Up to this many changes the stream is one sorted partition (one Spark job); beyond, a global sort whose
#: range partitions come one at a time (a sampling job more, and the driver holds one partition).
ONE_PARTITION_STREAM = 200_000


StreamRow = tuple[int, str, str, str, str, dict[str, str]]  # phase, group, kind, key, action, args


def _changes(plan: DataFrame, first_phase: bool | None = None) -> DataFrame:
    """The plan's changes with their phase and group: all of them (None), only the first phase's (True) or
    all but the first phase's (False)."""
    p0 = PHASES[0]
    in_first = f"coalesce(kind = {sql_string(p0.kind)} AND action IN ({', '.join(map(sql_string, p0.actions))}), false)"
    cond = F.col("action").isin(*CHANGES)
    if first_phase is not None:
        cond = cond & (F.expr(in_first) if first_phase else ~F.expr(in_first))
    return plan.filter(cond).selectExpr(
        f"{_phase_sql()} AS _phase", f"{_group_sql()} AS _group", "kind", "key", "action", "args")


def _stream(changes: DataFrame, total: int | None) -> Iterator[StreamRow]:
    """Rows of ``changes`` to the driver, one partition at a time: in (phase, group, key) order when
    ``total`` is given; partition by partition, each sorted, when None (rows that are each their own group
    need no global order)."""
    order = ("_phase", "_group", "key")
    if total is None:
        ordered = changes.sortWithinPartitions(*order)
    elif total <= ONE_PARTITION_STREAM:
        ordered = changes.coalesce(1).sortWithinPartitions(*order)
    else:
        ordered = changes.orderBy(*order)
    for row in ordered.toLocalIterator(prefetchPartitions=True):
        yield row[0], row[1], row[2], row[3], row[4], dict(row[5] or {})


class _PlanStream:
    """The plan's changes in phase order, with Spark's work done while the driver sends, not before it.

    The first phase (SCRAM users: salting each password is the driver's slowest work, and both the
    ACLs and the tenants' logins wait for it) is read straight from the plan, which computes only that
    kind's rows (Spark drops the other kinds' branches of the union), and its rows are each their own item,
    so they need no global sort.  As soon as its first rows are there, a background thread materializes
    the cached plan (counting the changes: the progress total) and opens the sorted stream of the other
    phases, so the joins, the sort and the transfer of every other kind run while the first phase is sent.
    """

    def __init__(self, plan: DataFrame, cached: DataFrame, mode: str) -> None:
        self._plan, self._cached, self._mode = plan, cached, mode
        self._pool = cf.ThreadPoolExecutor(max_workers=1, thread_name_prefix="kadmin-plan-stream")
        self._rest: cf.Future[tuple[int, Iterator[StreamRow]]] | None = None
        self._open: list[Iterator[StreamRow]] = []

    @property
    def total(self) -> int | None:
        """The number of changes (every phase), once counted; None before."""
        f = self._rest
        if f is None or not f.done() or f.exception() is not None:
            return None
        return f.result()[0]

    def rows(self) -> Iterator[StreamRow]:
        # SCRAM upserts are one row per item (no global order needed); any other first phase is sorted whole.
        head = _stream(_changes(self._plan, first_phase=True), None if PHASES[0].kind == "scram_users" else 0)
        self._open.append(head)
        first = next(head, None)  # runs the first phase's jobs before the background ones queue up
        self._rest = self._pool.submit(self._prepare_rest)
        if first is not None:
            yield first
            yield from head
        yield from self._rest.result()[1]

    def _prepare_rest(self) -> tuple[int, Iterator[StreamRow]]:
        total = self._cached.filter(F.col("action").isin(*CHANGES)).count()
        log.info("%s: %d entities with changes", self._mode, total)
        rest = _stream(_changes(self._cached, first_phase=False), total)
        self._open.append(rest)
        peeked = next(rest, None)  # the sort job runs now, while the first phase is being sent
        return total, (rest if peeked is None else itertools.chain([peeked], rest))

    def close(self) -> None:
        """Waits for the background job (no job may run on a dropped cache) and stops the streams."""
        if self._rest is not None:
            cf.wait([self._rest])
        self._pool.shutdown()
        for it in self._open:
            close = getattr(it, "close", None)
            if close is not None:
                close()


def _items(phase: Phase, group: list[tuple[str, str, str, dict[str, str]]], sender: _Sender,
           out: _Outcomes) -> list[_Item]:
    """The items of one group of streamed rows (one row, or a topic's configs / a quota entity's keys);
    rows that cannot be sent are recorded (skipped or failed) and left out."""
    from kadmin.configs import DeleteConfig, SetConfig
    from kadmin.quotas import ClientQuotaAlteration, Remove, Set
    from kadmin.scram import ScramDeletion
    from kadmin.topics import NewTopic

    kind = phase.kind
    keys = [(kind, key) for key, _, _, _ in group]
    first = group[0][3]
    if kind == "topic_configs":
        topic = first["topic"]
        if topic in out.failed_topics:
            item = _Item(keys, None, topic)
            out.done += len(keys)
            out.record(item, SKIPPED, f"topic {topic} was not created: {out.failed_topics[topic]}")
            return []
        carried = [(k, a) for k, _, _, a in group if a.get("via") == "topic"]
        if carried and topic in out.unsure_topics:  # created with their topic, if it was: the same status
            out.done += len(carried)
            out.record(_Item([(kind, k) for k, _ in carried], None, topic), POSSIBLY_APPLIED,
                       f"sent with topic {topic}, whose creation's answer was lost: {out.unsure_topics[topic]}")
        elif carried:  # created with their topic, which succeeded: nothing more to send
            out.done += len(carried)
        rest = [(k, act, a) for k, act, _, a in group if a.get("via") != "topic"]
        if not rest:
            return []
        ops = [DeleteConfig(a["config"]) if act == "delete" or "value" not in a else SetConfig(a["config"], a["value"])
               for _, act, a in rest]
        return [_Item([(kind, k) for k, _, _ in rest], ops, topic)]
    if kind == "quotas":
        entity_name = group[0][0].split("/", 1)[0]
        try:
            qops = [Remove(a["quota_key"]) if a.get("value") is None else Set(a["quota_key"], float(a["value"]))
                    for _, _, _, a in group]
            alteration = ClientQuotaAlteration(_entity(first), qops)
        except (TypeError, ValueError, KeyError) as exc:
            # A hand-edited or corrupt plan row ("abc", "-5"): this entity fails, the run goes on.
            out.done += len(keys)
            sender.fail(phase, _Item(keys, None, entity_name), FAILED, _error_text(exc))
            return []
        return [_Item(keys, alteration, entity_name)]
    items: list[_Item] = []
    for key, action, _, a in group:
        one = [(kind, key)]
        try:
            held = (out.held_users.get(a.get("user", "")) if kind == "scram_users"
                    else out.held_topics.get(a.get("name", "")) if kind == "topics" else None)
            if action == "delete" and held is not None:  # a grant naming it is still there (or may be)
                out.done += 1
                out.record(_Item(one, None, key), SKIPPED, f"not deleted: {held}")
                continue
            if kind == "scram_users":
                payload: Any = (ScramDeletion(a["user"], a["mechanism"]) if action == "delete"
                                else _scram_upsert(a, sender.secrets))
                name = a["user"]
            elif kind == "topics":
                name = a["name"]
                if action == "create":
                    payload = NewTopic(name, _int(a.get("partitions")), _int(a.get("replication_factor")),
                                       configs=json.loads(a["configs"]) if a.get("configs") else {})
                elif action == "alter":
                    rf = _int(a.get("replication_factor"))
                    payload = (_int(a.get("partitions")),
                               rf if rf is not None and str(rf) != a.get("current_replication_factor") else None)
                elif action == "reassign":
                    payload = (None, _int(a.get("replication_factor")))
                else:
                    payload = name
            elif kind == "groups_offsets":
                from kadmin.spark.tenant_groups import item_payload

                topic = a.get("topic", "")
                if topic in out.failed_topics:
                    out.done += 1
                    out.record(_Item(one, None, key), SKIPPED,
                               f"topic {topic} was not created: {out.failed_topics[topic]}")
                    continue
                payload, name = item_payload(key, a), key
            elif kind == "acls":
                binding = _binding(a)
                user = _user_of(a["principal"])
                literal = a["resource_name"] if (a["resource_type"] == "TOPIC"
                                                 and a["pattern_type"] == "LITERAL") else None
                if action == "create" and user in out.failed_users:
                    out.done += 1
                    out.record(_Item(one, None, key), SKIPPED,
                               f"SCRAM user {user} was not created: {out.failed_users[user]}")
                    continue
                if action == "create" and literal in out.failed_topics:
                    out.done += 1
                    out.record(_Item(one, None, key), SKIPPED,
                               f"topic {literal} was not created: {out.failed_topics[literal]}")
                    continue
                payload, name = binding, str(binding)
            else:  # pragma: no cover - PHASES is fixed
                raise AssertionError(kind)
        except (TypeError, ValueError, KeyError) as exc:
            # Spark's rules mirror the client's, so this is a disagreement (or a hand-edited plan): fail the
            # entity where it can be seen rather than the batch it would travel in.
            out.done += 1
            name = a.get("user" if kind == "scram_users" else "name", key)
            sender.fail(phase, _Item(one, None, name), FAILED, _error_text(exc))
            continue
        items.append(_Item(one, payload, name))
    return items


def _int(text: str | None) -> int | None:
    return None if text is None or text == "" else int(text)


def _user_of(principal: str) -> str | None:
    kind, _, name = principal.partition(":")
    return name if kind == "User" else None


@dataclass
class ApplyReport:
    """What a run did, besides the results DataFrame: requests per phase (API), entities, time."""

    requests: dict[str, int]
    entities: int
    failed: int
    seconds: float


def apply_plan(plan: DataFrame, admin: AdminClient, *, mode: str = "apply", secrets: SecretResolver | None = None,
               batch_size: int = DEFAULT_BATCH_SIZE, max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
               progress: TenantProgressCallback | None = None, report: list[ApplyReport] | None = None,
               allow_unknown_keys: bool = False) -> DataFrame:
    """Apply (or validate) a plan from :func:`provision` (mode ``plan``), possibly saved and read back.

    Returns the results: one row per plan row (``TENANT_RESULT_COLUMNS``), status ``ok`` / ``validated`` for changes
    that succeeded, ``failed`` / ``possibly-applied`` / ``skipped`` with the error, and ``unchanged`` /
    ``rejected`` as planned.  The results are cached (``unpersist()`` frees them).  ``report``, when a list,
    receives one :class:`ApplyReport`."""
    if mode not in ("apply", "validate"):
        raise ValueError(f"apply_plan mode must be 'apply' or 'validate', not {mode!r}")
    missing = [c for c in PLAN_COLUMNS if c not in plan.columns]
    if missing:
        raise SpecError(f"not a provisioning plan: no column(s) {', '.join(missing)} (expected {', '.join(PLAN_COLUMNS)})")
    for name, v in (("batch_size", batch_size), ("max_concurrency", max_concurrency)):
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise ValueError(f"{name} must be a positive int, not {v!r}")
    validate = mode == "validate"
    ok_status = VALIDATED if validate else OK
    cached = _compact(plan).persist(StorageLevel.MEMORY_AND_DISK)
    started = time.perf_counter()
    stream = _PlanStream(plan, cached, mode)
    try:
        out = _Outcomes()

        def tick(title: str, finished: bool = False) -> None:
            # The total is counted in the background while the first phase is sent: progress starts once
            # it is known (within the first batches), and the last report always has it.
            total = stream.total
            if progress is not None and total is not None:
                progress(TenantProgress(title, out.done, total, out.failed, time.perf_counter() - started,
                                        finished))

        sender = _Sender(admin, validate=validate, batch_size=batch_size, max_concurrency=max_concurrency,
                         secrets=secrets, out=out, tick=tick, allow_unknown_keys=allow_unknown_keys)
        tick("starting")
        try:
            _run_phases(stream.rows(), sender, out, batch_size)
        finally:
            sender.close()
            stream.close()
        tick("done", finished=True)
        seconds = time.perf_counter() - started
        log.info("%s: done: %d entities, %d not ok, requests %s, %.1fs", mode, out.done, out.failed,
                 sender.requests, seconds)
        if report is not None:
            report.append(ApplyReport(dict(sender.requests), out.done, out.failed, seconds))
        results = _results(cached, out.rows, ok_status).persist(StorageLevel.MEMORY_AND_DISK)
        results.count()  # materialized before the plan it comes from is dropped
        return results
    finally:
        stream.close()
        cached.unpersist()


def _compact(plan: DataFrame) -> DataFrame:
    """The plan in as many partitions as the session shuffles into, not one set per kind: the union of the
    kinds has kinds x shuffle partitions, and every pass over the cache (totals, stream, results) costs a
    task per partition.  ``coalesce`` merges partitions where they are (no shuffle)."""
    try:
        n = int(plan.sparkSession.conf.get("spark.sql.shuffle.partitions") or 0)
    except (TypeError, ValueError):
        n = 0
    return plan.coalesce(n) if n > 0 else plan


def _run_phases(rows: Iterator[tuple[int, str, str, str, str, dict[str, str]]], sender: _Sender,
                out: _Outcomes, batch_size: int) -> None:
    current: int | None = None
    batch: list[_Item] = []
    group_key: tuple[int, str] | None = None
    group: list[tuple[str, str, str, dict[str, str]]] = []

    def flush_group() -> None:
        nonlocal batch
        if group and current is not None:
            phase = PHASES[current]
            batch.extend(_items(phase, group, sender, out))
            while len(batch) >= batch_size:
                sender.submit(phase, batch[:batch_size])
                batch = batch[batch_size:]
        group.clear()

    for phase_no, grp, kind, key, action, args in rows:
        if (phase_no, grp) != group_key:
            flush_group()
            group_key = (phase_no, grp)
        if phase_no != current:
            if current is not None:
                sender.submit(PHASES[current], batch)
                batch = []
                sender.drain(0)  # a phase ends before the next begins: dependencies see every outcome
            current = phase_no
        group.append((key, action, kind, args))
    flush_group()
    if current is not None:
        sender.submit(PHASES[current], batch)
        sender.drain(0)


def _results(plan: DataFrame, rows: list[tuple[str, str, str, str]], ok_status: str) -> DataFrame:
    status = (f"CASE WHEN p.status = {sql_string(PLANNED)} THEN {sql_string(ok_status)} ELSE p.status END")
    p = plan.alias("p")
    if not rows:
        return p.selectExpr("kind", "key", "action", "old_value", "new_value", f"{status} AS status", "error")
    spark = plan.sparkSession
    o = spark.createDataFrame(rows, "o_kind string, o_key string, o_status string, o_error string")
    joined = p.join(F.broadcast(o), (F.col("p.kind") == F.col("o_kind")) & (F.col("p.key") == F.col("o_key")), "left")
    return joined.selectExpr("p.kind AS kind", "p.key AS key", "p.action AS action", "p.old_value AS old_value",
                             "p.new_value AS new_value", f"coalesce(o_status, {status}) AS status",
                             "coalesce(o_error, p.error) AS error")


def provision(spec: TenantSpec | DataFrame, admin: AdminClient, mode: str = "plan", *, scope: ScopeLike = None,
              remove_unlisted: bool = False, secrets: SecretResolver | None = None,
              batch_size: int = DEFAULT_BATCH_SIZE, max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
              progress: TenantProgressCallback | None = None, allow_unknown_keys: bool = False,
              report: list[ApplyReport] | None = None) -> DataFrame:
    """Make the cluster's tenants match ``spec``: ``plan`` (nothing sent; the plan, also a drift report),
    ``validate`` (brokers check with validate_only where they can; nothing changes) or ``apply``.

    ``spec`` is a :class:`~kadmin.spark.spec.TenantSpec`, or a plan DataFrame from an earlier ``plan`` run
    (saved and read back unchanged), which is then validated or applied as it is.  ``scope`` (a
    :class:`~kadmin.spark.spec.Scope`, a mapping or ``["topics=t-", "principals=User:t-", "kinds=acls"]``)
    is where ``remove_unlisted=True`` may delete; without a scope nothing is deleted (and asking to is an
    error).  ``secrets`` resolves ``password_ref`` on the driver (default: the spec's)."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
    for name, b in (("remove_unlisted", remove_unlisted), ("allow_unknown_keys", allow_unknown_keys)):
        if not isinstance(b, bool):
            raise TypeError(f"{name} must be a bool, not {b!r}")
    _check_sizes(batch_size, max_concurrency)  # before the cluster is read, not after
    from kadmin.spark.plan import check_admin

    check_admin(admin)
    if isinstance(spec, TenantSpec):
        plan = build_plan(spec, admin, scope=parse_scope(scope), remove_unlisted=remove_unlisted,
                          allow_unknown_keys=allow_unknown_keys)
        resolver = secrets if secrets is not None else spec.secrets
        needs_resolver = spec.scram_users is not None
    elif hasattr(spec, "columns") and hasattr(spec, "filter"):
        if scope is not None or remove_unlisted:
            raise SpecError("a saved plan already says what it deletes; scope and remove_unlisted apply when "
                            "planning")
        plan, resolver, needs_resolver = spec, secrets, True
    else:
        raise TypeError(f"spec must be a TenantSpec or a plan DataFrame, not {type(spec).__name__}")
    if mode == "plan":
        return plan
    if resolver is None and needs_resolver and _upserts_users(plan):
        # Found before anything is sent: otherwise every user would fail, one by one, and its grants be skipped.
        raise SpecError("the plan creates or alters SCRAM users, whose password_ref needs a secrets function: "
                        "pass secrets=... (a saved plan does not keep the spec's)")
    return apply_plan(plan, admin, mode=mode, secrets=resolver, batch_size=batch_size,
                      max_concurrency=max_concurrency, progress=progress, report=report,
                      allow_unknown_keys=allow_unknown_keys)


def _check_sizes(batch_size: object, max_concurrency: object) -> None:
    for name, v in (("batch_size", batch_size), ("max_concurrency", max_concurrency)):
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise ValueError(f"{name} must be a positive int, not {v!r}")


def _upserts_users(plan: DataFrame) -> bool:
    """Whether the plan has a SCRAM user to create or alter (one small Spark job)."""
    rows = plan.filter("kind = 'scram_users' AND action IN ('create', 'alter')").select("key").limit(1).collect()
    return bool(rows)


def drift(plan: DataFrame) -> DataFrame:
    """The rows of a plan where the cluster differs from the spec (changes and rejects), per kind."""
    return plan.filter(F.col("action") != "unchanged").orderBy(
        F.expr("CASE " + " ".join(f"WHEN kind = {sql_string(k)} THEN {i}" for i, k in enumerate(KINDS)) + " END"),
        "key")


__all__ = ["MODES", "PHASES", "TENANT_RESULT_COLUMNS", "ApplyReport", "StderrProgress", "TenantProgress", "apply_plan",
           "drift", "provision"]
