"""ACL operations: DescribeAcls (29), CreateAcls (30), DeleteAcls (31), on the per-key driver.

Any broker answers them (KRaft brokers forward creations and deletions to the controller).  What a node can
carry depends on the version negotiated with it: PREFIXED patterns (and the MATCH filter) need v1 (Kafka 2.0,
KIP-290), USER resources v3 (Kafka 2.8, KIP-679).  So the lookup routes each key to a node whose version
carries it, and a key no node can carry fails with an UnsupportedVersionError that says why, before anything
is sent: a pre-2.0 broker would read a prefixed binding as a literal one named "orders-", which is worse than
an error.

Bindings and filters are batched: CreateAcls and DeleteAcls carry ``batch_size`` of them per request
(``ceil(n / batch_size)`` requests, at most ``max_concurrency`` in flight), and each binding / filter gets its
own answer.  Creating a binding that exists succeeds, so a resend is harmless and its answer is the truth.  A
deletion is different: a resend after a lost answer matches nothing, because the lost request deleted the
bindings; such a filter is reported "possibly applied" rather than "deleted nothing".
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Generic, TypeVar

from kadmin import _batching
from kadmin.acls import (
    ANONYMOUS,
    AccessControlEntryFilter,
    AclBinding,
    AclBindingFilter,
    AclDeletion,
    AclListing,
    AclOperation,
    Identity,
    PatternType,
    ResourceType,
    binding_from_wire,
    check_principal,
)
from kadmin.admin._driver import (
    Built,
    Context,
    Done,
    Failed,
    Operation,
    Outcome,
    Retry,
    Sent,
    split_by_version,
)
from kadmin.admin.lookups import candidate_nodes
from kadmin.config import ClientConfig
from kadmin.errors import (
    KafkaError,
    KafkaTimeoutError,
    NoBrokersAvailableError,
    ProtocolError,
    UnsupportedVersionError,
    error_for_code,
)
from kadmin.network.retry import Deadline
from kadmin.protocol import message_type
from kadmin.protocol.apis import ApiKey

log = logging.getLogger("kadmin.admin")

K = TypeVar("K")

DEFAULT_BATCH_SIZE = _batching.ACL_BATCH_SIZE
DEFAULT_MAX_CONCURRENCY = _batching.ACL_MAX_CONCURRENCY

#: First version of the ACL APIs that carries a pattern type, and one that carries USER resources.
PATTERN_TYPES_SINCE = 1
WILDCARD_USER = "User:*"
USER_RESOURCES_SINCE = 3


def _needs_pattern(rt: ResourceType, pt: PatternType) -> int:
    if rt is ResourceType.USER:
        return USER_RESOURCES_SINCE
    return PATTERN_TYPES_SINCE if pt in (PatternType.PREFIXED, PatternType.MATCH) else 0


def binding_needs(b: AclBinding) -> int:
    """The least ACL API version that can carry this binding."""
    return _needs_pattern(b.pattern.resource_type, b.pattern.pattern_type)


def filter_needs(f: AclBindingFilter) -> int:
    return _needs_pattern(f.pattern.resource_type, f.pattern.pattern_type)


def _why(api: ApiKey, need: int) -> str:
    if need >= USER_RESOURCES_SINCE:
        return f"USER resources need {api.kafka_name} v{need}+ (Kafka 2.8+)"
    return f"PREFIXED and MATCH patterns need {api.kafka_name} v{need}+ (Kafka 2.0+, KIP-290)"


class NodeCarrying(Generic[K]):
    """Each key to a node whose negotiated version of ``api`` is at least ``needs(key)``.

    Nodes are tried least loaded first (a node that failed this call last), so with one version everywhere all
    keys go to one node; in a cluster being upgraded, keys that need a newer version go to a newer node.  A key
    no reachable node can carry fails at once, unsent."""

    def __init__(self, api: ApiKey, needs: Callable[[K], int]) -> None:
        self.api = api
        self.needs = needs
        self._avoid: set[int] = set()
        #: Set when no node speaks the API at all (callers raise it instead of N copies per key).
        self.unsupported: KafkaError | None = None

    def _candidates(self, ctx: Context) -> list[int]:
        return candidate_nodes(ctx, self._avoid)

    async def locate(self, ctx: Context, keys: Sequence[K], deadline: Deadline) -> dict[K, int | Outcome] | int:
        versions: dict[int, int | None] = {}
        first = next(iter(self._candidates(ctx)), None)
        if first is not None:
            # The usual case: the first node speaks the newest version, which carries every key.
            try:
                versions[first] = await ctx.net.negotiated_version(first, self.api, deadline=deadline)
            except UnsupportedVersionError:
                versions[first] = None
            except KafkaError:
                pass
            v = versions.get(first)
            if v is not None and v >= USER_RESOURCES_SINCE:
                return first
        needs = {k: self.needs(k) for k in keys}
        last: KafkaError | None = None
        chosen: dict[int, int | None] = {}
        for need in sorted(set(needs.values())):
            chosen[need] = None
            for node in self._candidates(ctx):
                if node not in versions:
                    try:
                        versions[node] = await ctx.net.negotiated_version(node, self.api, deadline=deadline)
                    except UnsupportedVersionError:
                        versions[node] = None
                    except KafkaError as exc:
                        last = exc
                        continue
                v = versions[node]
                if v is not None and v >= need:
                    chosen[need] = node
                    break
        best = max((v for v in versions.values() if v is not None), default=None)
        out: dict[K, int | Outcome] = {}
        for k, need in needs.items():
            target = chosen[need]
            if target is not None:
                out[k] = target
            elif best is None and last is None and versions:
                self.unsupported = UnsupportedVersionError(
                    f"no broker supports {self.api.kafka_name} (node(s) {', '.join(map(str, sorted(versions)))})")
                out[k] = Failed(self.unsupported)
            elif best is not None and last is None:
                out[k] = Failed(UnsupportedVersionError(
                    f"{_why(self.api, need)}; the brokers speak it up to v{best}: {k} was not sent"))
            else:
                out[k] = Retry(last or NoBrokersAvailableError(f"no node could be reached for {self.api.kafka_name}"))
        return out

    def forget(self, ctx: Context, keys: Iterable[K]) -> None:
        pass

    def forget_node(self, ctx: Context, node_id: int) -> None:
        self._avoid.add(node_id)
        if len(self._avoid) >= max(1, len(ctx.net.nodes)):
            self._avoid.clear()


def _feature(need: int) -> str:
    if need >= USER_RESOURCES_SINCE:
        return "USER resources (Kafka 2.8+, KIP-679)"
    return "PREFIXED and MATCH patterns (Kafka 2.0+, KIP-290)"


def _carried(api: ApiKey, node: int, keys: list[K], version: int,
             needs: Callable[[K], int]) -> tuple[list[K], dict[K, KafkaError]]:
    """A node whose version dropped between lookup and build (a downgrade): the keys it can no longer carry fail
    alone, unsent (never a binding it would misread); the others travel.  (Nothing to check at the newest
    version, which carries everything.)"""
    if version >= USER_RESOURCES_SINCE:
        return keys, {}

    def need(k: K) -> tuple[int, str] | None:
        n = needs(k)
        return (n, _feature(n)) if n > 0 else None

    return split_by_version(keys, version, need, api=api, node=node)


def _built(sends: list[Sent], refused: dict[K, KafkaError]) -> list[Sent] | Built[K]:
    return Built(sends=sends, refused=refused) if refused else sends


def _outcome(code: int, message: str | None) -> Outcome | None:
    """SECURITY_DISABLED (no authorizer), CLUSTER_AUTHORIZATION_FAILED, INVALID_REQUEST: final, asking again
    gets the same; retriable codes (a KRaft broker's controller moving, REQUEST_TIMED_OUT): ask again."""
    err = error_for_code(code, message)
    if err is None:
        return None
    return Retry(err) if err.retriable else Failed(err)


def _filter_fields(f: AclBindingFilter, version: int) -> dict[str, Any]:
    p, e = f.pattern, f.entry
    fields: dict[str, Any] = dict(resource_type_filter=int(p.resource_type), resource_name_filter=p.name,
                                  principal_filter=e.principal, host_filter=e.host, operation=int(e.operation),
                                  permission_type=int(e.permission))
    if version >= PATTERN_TYPES_SINCE:
        fields["pattern_type_filter"] = int(p.pattern_type)
    # v0 has no pattern type: the broker matches literal bindings, which were all a pre-2.0 broker had, so
    # ANY and LITERAL both go out as the absent field (Kafka's own client does the same).
    return fields


# --- describe ----------------------------------------------------------------------------------------------


class DescribeAcls(Operation[AclBindingFilter]):
    """Keys are filters, one request each (DescribeAcls carries one filter); a top-level error is the answer."""

    api = ApiKey.DESCRIBE_ACLS

    def __init__(self) -> None:
        self.lookup: NodeCarrying[AclBindingFilter] = NodeCarrying(self.api, filter_needs)

    def build(self, node: int, keys: list[AclBindingFilter],
              version: int) -> list[Sent] | Built[AclBindingFilter]:
        ok, refused = _carried(self.api, node, keys, version, filter_needs)
        req = message_type(ApiKey.DESCRIBE_ACLS, "request")
        return _built([(req(**_filter_fields(f, version)), [f]) for f in ok], refused)

    def handle(self, node: int, keys: list[AclBindingFilter], response: Any,
               version: int) -> dict[AclBindingFilter, Outcome]:
        bad = _outcome(response.error_code, response.error_message)
        if bad is not None:
            return {keys[0]: bad}
        found = []
        for r in response.resources:
            pattern_type = r.pattern_type if version >= PATTERN_TYPES_SINCE else int(PatternType.LITERAL)
            for a in r.acls:
                found.append(binding_from_wire(r.resource_type, r.resource_name, pattern_type, a.principal, a.host,
                                               a.operation, a.permission_type))
        return {keys[0]: Done(found)}


def listing(parts: Iterable[Iterable[AclBinding]]) -> AclListing:
    """Bindings from one or more answers, deduplicated and sorted."""
    merged = {b for part in parts for b in part}
    return AclListing(tuple(sorted(merged, key=AclBinding.sort_key)))


# --- create ------------------------------------------------------------------------------------------------


class CreateAcls(Operation[AclBinding]):
    """Keys are bindings, ``batch_size`` per request; the answer lists one result per creation, in order."""

    api = ApiKey.CREATE_ACLS
    write = True
    #: Creating a binding that exists succeeds, so a resend's answer is the truth about the binding.
    applied_looks_like = frozenset()

    def __init__(self, *, batch_size: int = DEFAULT_BATCH_SIZE, max_concurrency: int = DEFAULT_MAX_CONCURRENCY) -> None:
        self.batch_size = batch_size
        self.max_in_flight = max_concurrency
        self.lookup: NodeCarrying[AclBinding] = NodeCarrying(self.api, binding_needs)

    def build(self, node: int, keys: list[AclBinding], version: int) -> list[Sent] | Built[AclBinding]:
        keys, refused = _carried(self.api, node, keys, version, binding_needs)
        req: Any = message_type(ApiKey.CREATE_ACLS, "request")
        C = req.AclCreation
        with_pattern = version >= PATTERN_TYPES_SINCE

        def creation(b: AclBinding) -> Any:
            p, e = b.pattern, b.entry
            if with_pattern:
                return C(resource_type=int(p.resource_type), resource_name=p.name,
                         resource_pattern_type=int(p.pattern_type), principal=e.principal, host=e.host,
                         operation=int(e.operation), permission_type=int(e.permission))
            return C(resource_type=int(p.resource_type), resource_name=p.name, principal=e.principal, host=e.host,
                     operation=int(e.operation), permission_type=int(e.permission))

        n = self.batch_size
        return _built([(req(creations=[creation(b) for b in keys[i:i + n]]), keys[i:i + n])
                       for i in range(0, len(keys), n)], refused)

    def handle(self, node: int, keys: list[AclBinding], response: Any, version: int) -> dict[AclBinding, Outcome]:
        results = response.results
        if len(results) != len(keys):
            err = ProtocolError(f"node {node} answered {len(results)} CreateAcls result(s) for {len(keys)} creations")
            return dict.fromkeys(keys, Failed(err))
        # Results come in creation order (the response carries no key to match by).
        return {b: _outcome(r.error_code, r.error_message) or _OK for b, r in zip(keys, results, strict=True)}


_OK: Done[None] = Done(None)


# --- delete ------------------------------------------------------------------------------------------------


class DeleteAcls(Operation[AclBindingFilter]):
    """Keys are filters, ``batch_size`` per request; each filter's answer lists the bindings it deleted."""

    api = ApiKey.DELETE_ACLS
    write = True
    #: Errors answered to a resend are the truth about the filter; the "matched nothing" answer a resend gets
    #: after a lost, applied deletion is not an error, so handle() judges it (see below).
    applied_looks_like = frozenset()

    def __init__(self, *, batch_size: int = DEFAULT_BATCH_SIZE, max_concurrency: int = DEFAULT_MAX_CONCURRENCY) -> None:
        self.batch_size = batch_size
        self.max_in_flight = max_concurrency
        self.lookup: NodeCarrying[AclBindingFilter] = NodeCarrying(self.api, filter_needs)
        self._sent: dict[AclBindingFilter, int] = {}
        self._answered: dict[AclBindingFilter, int] = {}

    def build(self, node: int, keys: list[AclBindingFilter],
              version: int) -> list[Sent] | Built[AclBindingFilter]:
        keys, refused = _carried(self.api, node, keys, version, filter_needs)
        req: Any = message_type(ApiKey.DELETE_ACLS, "request")
        F = req.DeleteAclsFilter
        for f in keys:
            self._sent[f] = self._sent.get(f, 0) + 1
        n = self.batch_size
        return _built([(req(filters=[F(**_filter_fields(f, version)) for f in keys[i:i + n]]), keys[i:i + n])
                       for i in range(0, len(keys), n)], refused)

    def handle(self, node: int, keys: list[AclBindingFilter], response: Any,
               version: int) -> dict[AclBindingFilter, Outcome]:
        results = response.filter_results
        if len(results) != len(keys):
            err = ProtocolError(f"node {node} answered {len(results)} DeleteAcls result(s) for {len(keys)} filters")
            return dict.fromkeys(keys, Failed(err))
        out: dict[AclBindingFilter, Outcome] = {}
        for f, r in zip(keys, results, strict=True):
            # An earlier send of this filter that was never answered (sent more often than answered, counting
            # this answer) may have deleted what this one would have matched.
            self._answered[f] = self._answered.get(f, 0) + 1
            lost_before = self._sent.get(f, 0) > self._answered[f]
            bad = _outcome(r.error_code, r.error_message)
            if bad is not None:
                out[f] = bad
                continue
            deleted: list[AclBinding] = []
            failed: dict[AclBinding, KafkaError] = {}
            for m in r.matching_acls:
                pattern_type = m.pattern_type if version >= PATTERN_TYPES_SINCE else int(PatternType.LITERAL)
                b = binding_from_wire(m.resource_type, m.resource_name, pattern_type, m.principal, m.host,
                                      m.operation, m.permission_type)
                refused = error_for_code(m.error_code, m.error_message)
                if refused is None:
                    deleted.append(b)
                else:
                    failed[b] = refused
            if lost_before:
                what = f"deleted {len(deleted)} binding(s)" if deleted else "matched nothing"
                out[f] = Failed(KafkaTimeoutError(
                    f"DeleteAcls: an earlier request for filter {f} was sent and never answered; the resend {what}, "
                    "so the earlier one may have deleted bindings: describe the ACLs to see", possibly_applied=True))
                continue
            out[f] = Done(AclDeletion(tuple(deleted), failed))
        return out


def describe_filters(flt: AclBindingFilter | None, principal: str | None) -> list[AclBindingFilter]:
    """The filters describe_acls sends: the one given (or all), or for ``principal`` that principal's and,
    for a User principal, the ``User:*`` bindings, which apply to every user."""
    if flt is not None and not isinstance(flt, AclBindingFilter):
        raise TypeError(f"filter must be an AclBindingFilter (e.g. AclBindingFilter.all()), not {flt!r}")
    if principal is None:
        return [flt or AclBindingFilter.all()]
    if flt is not None:
        raise ValueError("give either a filter or principal=, not both (a filter names its own principal)")
    check_principal(principal)
    who = [principal] if not principal.startswith("User:") or principal == WILDCARD_USER else [principal, WILDCARD_USER]
    return [AclBindingFilter(entry=AccessControlEntryFilter(p)) for p in who]


def identity(config: ClientConfig, cluster_operations: Iterable[str] | None,
             token_subject: str | None = None) -> Identity:
    """``token_subject``: an OAUTHBEARER login's principal, the subject of the token it sent (None: not known)."""
    proto = config.security_protocol
    if proto.startswith("SASL") and config.sasl_token_auth:
        principal: str | None = None  # the token's owner, which this channel may not ask for
    elif proto.startswith("SASL") and config.sasl_mechanism == "OAUTHBEARER":
        principal = f"User:{token_subject}" if token_subject else None
    elif proto.startswith("SASL") and config.sasl_mechanism == "GSSAPI":
        # Kafka's DEFAULT principal-to-local rule: alice/host@REALM is User:alice; a ticket-cache login's
        # principal is not known here.
        krb = config.sasl_kerberos_principal
        principal = f"User:{krb.split('@', 1)[0].split('/', 1)[0]}" if krb else None
    elif proto.startswith("SASL"):
        principal = f"User:{config.sasl_username}"
    elif proto == "PLAINTEXT":
        principal = ANONYMOUS
    else:
        principal = None
    ops = None if cluster_operations is None else frozenset(AclOperation[name] for name in cluster_operations
                                                            if name in AclOperation.__members__)
    return Identity(principal, ops)


def raise_if_unsupported(results: dict[Any, Any], lookup: NodeCarrying[Any]) -> None:
    """When no broker speaks the API at all, that is the call's failure, not N per-key copies of it."""
    if lookup.unsupported is not None and results and all(v is lookup.unsupported for v in results.values()):
        raise lookup.unsupported


__all__ = ["DEFAULT_BATCH_SIZE", "DEFAULT_MAX_CONCURRENCY", "CreateAcls", "DeleteAcls", "DescribeAcls",
           "NodeCarrying", "binding_needs", "filter_needs", "listing", "raise_if_unsupported"]
