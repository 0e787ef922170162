"""AlterUserScramCredentials (key 51, KIP-554): set and delete SCRAM credentials; one result per user.

Needs ALTER on the cluster (else every user gets CLUSTER_AUTHORIZATION_FAILED).  Per user, as Kafka checks:
an empty name is UNACCEPTABLE_CREDENTIAL, an unknown mechanism UNSUPPORTED_SASL_MECHANISM, fewer than 4096 or
more than 16384 iterations UNACCEPTABLE_CREDENTIAL, deleting a credential that does not exist
RESOURCE_NOT_FOUND.  A user changed twice in one request is DUPLICATE_RESOURCE: on KRaft brokers (the 4.0
preset; ``ScramControlManager``) any two changes of one user, on ZooKeeper-mode brokers only two changes of
the same mechanism.  A user with any error has none of their changes applied.

The broker keeps what RFC 5802 says a server keeps (salt, StoredKey, ServerKey, iterations), derived from the
salted password the client sent; the fake's SASL/SCRAM logins use exactly that.
"""

from __future__ import annotations

from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing import authorizer as az
from kadmin.testing.authorizer import ScramCredential
from kadmin.testing.handlers.base import RequestContext, Response, register, response_class

API_KEY = ApiKey.ALTER_USER_SCRAM_CREDENTIALS
_TWICE = "A user credential cannot be altered twice in the same request"


def _users(req: Any) -> list[str]:
    return list(dict.fromkeys([d.name for d in req.deletions] + [u.name for u in req.upsertions]))


def _check(ctx: RequestContext, name: str, mechanism: int, iterations: int | None) -> tuple[int, str] | None:
    if not name:
        return ErrorCode.UNACCEPTABLE_CREDENTIAL, "Username must not be empty"
    if mechanism not in az.SCRAM_MECHANISMS:
        return ErrorCode.UNSUPPORTED_SASL_MECHANISM, "Unknown SCRAM mechanism"
    if iterations is None:
        if (name, mechanism) not in ctx.cluster._scram.credentials:
            return ErrorCode.RESOURCE_NOT_FOUND, "Attempt to delete a user credential that does not exist"
    elif iterations < az.MIN_ITERATIONS:
        return ErrorCode.UNACCEPTABLE_CREDENTIAL, "Too few iterations"
    elif iterations > az.MAX_ITERATIONS:
        return ErrorCode.UNACCEPTABLE_CREDENTIAL, "Too many iterations"
    return None


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    users = _users(req)
    if not ctx.authorize(az.CLUSTER, az.CLUSTER_NAME, az.ALTER):
        return R(throttle_time_ms=0, results=[R.AlterUserScramCredentialsResult(
            user=u, error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED, error_message=None) for u in users])
    changes: dict[str, list[tuple[int, Any]]] = {u: [] for u in users}  # (mechanism, upsertion or None)
    for d in req.deletions:
        changes[d.name].append((d.mechanism, None))
    for u in req.upsertions:
        changes[u.name].append((u.mechanism, u))
    errors: dict[str, tuple[int, str]] = {}
    for name, todo in changes.items():
        mechanisms = [m for m, _ in todo]
        if len(todo) > 1 and (not ctx.zookeeper_mode or len(set(mechanisms)) < len(mechanisms)):
            errors[name] = (ErrorCode.DUPLICATE_RESOURCE, _TWICE)
            continue
        for mechanism, up in todo:
            err = _check(ctx, name, mechanism, None if up is None else up.iterations)
            if err is not None:
                errors[name] = err
                break
    store = ctx.cluster._scram.credentials
    results = []
    for name, todo in changes.items():
        if name in errors:
            code, message = errors[name]
            results.append(R.AlterUserScramCredentialsResult(user=name, error_code=code, error_message=message))
            continue
        for mechanism, up in todo:
            if up is None:
                del store[(name, mechanism)]
            else:
                store[(name, mechanism)] = ScramCredential.from_salted(mechanism, bytes(up.salt),
                                                                       bytes(up.salted_password), up.iterations)
        results.append(R.AlterUserScramCredentialsResult(user=name, error_code=ErrorCode.NONE, error_message=None))
    return R(throttle_time_ms=0, results=results)


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    R = response_class(API_KEY)
    return R(throttle_time_ms=0, results=[R.AlterUserScramCredentialsResult(user=u, error_code=code)
                                          for u in _users(req)])


register(API_KEY, handle=handle, error_response=error_response, keys=lambda req, _v: tuple(_users(req)))
