"""What DescribeAcls, CreateAcls and DeleteAcls share: reading a filter or binding off the wire, checking it as
Kafka's brokers do, and the two answers every ACL API gives before looking at its input.

Before v1 the requests have no pattern type field: every binding is LITERAL, and a v0 filter matches only
literal bindings (Kafka's request classes turn a v0 filter's ANY into LITERAL).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from kadmin._error_codes import ErrorCode
from kadmin.testing import authorizer as az
from kadmin.testing.handlers.base import RequestContext

_FILTER_PATTERNS = frozenset({az.ANY, az.MATCH, az.LITERAL, az.PREFIXED})
_PERMISSIONS = frozenset({az.DENY, az.ALLOW})

NO_AUTHORIZER = "No Authorizer is configured."


class Refused(NamedTuple):
    """Why one filter or binding was refused."""

    code: int
    message: str


def gate(ctx: RequestContext, operation: int) -> tuple[int, str | None]:
    """(error, message) every ACL request gets first: no authorizer, or not allowed on the cluster."""
    if ctx.cluster._authorizer is None:
        return ErrorCode.SECURITY_DISABLED, NO_AUTHORIZER
    if not ctx.authorize(az.CLUSTER, az.CLUSTER_NAME, operation):
        return ErrorCode.CLUSTER_AUTHORIZATION_FAILED, None
    return ErrorCode.NONE, None


def read_filter(f: Any, version: int) -> az.BindingFilter | Refused:
    """A DescribeAcls request or DeleteAcls filter as a BindingFilter, or (INVALID_REQUEST, why)."""
    pattern = f.pattern_type_filter if version >= 1 else az.LITERAL
    if f.resource_type_filter != az.ANY and f.resource_type_filter not in az.RESOURCE_TYPES:
        return Refused(ErrorCode.INVALID_REQUEST, f"Invalid resource type filter {f.resource_type_filter}")
    if pattern not in _FILTER_PATTERNS:
        return Refused(ErrorCode.INVALID_REQUEST, f"Invalid pattern type filter {pattern}")
    if f.operation != az.ANY and f.operation not in az.OPERATIONS:
        return Refused(ErrorCode.INVALID_REQUEST, f"Invalid operation filter {f.operation}")
    if f.permission_type != az.ANY and f.permission_type not in _PERMISSIONS:
        return Refused(ErrorCode.INVALID_REQUEST, f"Invalid permission type filter {f.permission_type}")
    return az.BindingFilter(f.resource_type_filter, f.resource_name_filter, pattern, f.principal_filter,
                            f.host_filter, f.operation, f.permission_type)


def read_binding(c: Any, version: int) -> az.Binding | Refused:
    """A CreateAcls creation as a binding, or (error, why) as AclApis/AclControlManager refuse it."""
    pattern = c.resource_pattern_type if version >= 1 else az.LITERAL
    if c.resource_type not in az.RESOURCE_TYPES:
        return Refused(ErrorCode.INVALID_REQUEST, f"Invalid resourceType {c.resource_type}")
    if c.resource_type == az.CLUSTER and c.resource_name != az.CLUSTER_NAME:
        return Refused(ErrorCode.INVALID_REQUEST, f"The only valid name for the CLUSTER resource is {az.CLUSTER_NAME}")
    if not c.resource_name:
        return Refused(ErrorCode.INVALID_REQUEST, "Invalid empty resource name")
    if pattern not in (az.LITERAL, az.PREFIXED):
        return Refused(ErrorCode.INVALID_REQUEST, f"Invalid patternType {pattern}")
    if c.operation not in az.OPERATIONS:
        return Refused(ErrorCode.INVALID_REQUEST, f"Invalid operation {c.operation}")
    if c.permission_type not in _PERMISSIONS:
        return Refused(ErrorCode.INVALID_REQUEST, f"Invalid permissionType {c.permission_type}")
    kind, sep, name = c.principal.partition(":")
    if not sep or not kind or not name:
        return Refused(ErrorCode.INVALID_REQUEST, f"Could not parse principal from `{c.principal}`")
    if not c.host:
        return Refused(ErrorCode.INVALID_REQUEST, "Invalid empty host")
    return (c.resource_type, c.resource_name, pattern), (c.principal, c.host, c.operation, c.permission_type)


def filter_key(f: Any, version: int) -> str:
    pattern = f.pattern_type_filter if version >= 1 else az.LITERAL
    return f"{f.resource_type_filter}:{pattern}:{f.resource_name_filter}:{f.principal_filter}"
