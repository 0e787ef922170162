"""DescribeUserScramCredentials (key 50, KIP-554): each user's SCRAM mechanisms and iteration counts.

Needs DESCRIBE on the cluster (else a top-level CLUSTER_AUTHORIZATION_FAILED).  A null or empty user list
describes every user that has a credential; a named user without one is RESOURCE_NOT_FOUND, and a name given
twice is DUPLICATE_RESOURCE (as Kafka's broker answers).  Salts and keys never leave the broker.
"""

from __future__ import annotations

from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing import authorizer as az
from kadmin.testing.handlers.base import RequestContext, Response, register, response_class

API_KEY = ApiKey.DESCRIBE_USER_SCRAM_CREDENTIALS


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    if not ctx.authorize(az.CLUSTER, az.CLUSTER_NAME, az.DESCRIBE):
        return R(throttle_time_ms=0, error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED, error_message=None,
                 results=[])
    stored = ctx.cluster._scram.users()
    names = [u.name for u in req.users] if req.users else sorted(stored)
    counts: dict[str, int] = {}
    for n in names:
        counts[n] = counts.get(n, 0) + 1
    results = []
    for name in dict.fromkeys(names):
        creds = stored.get(name)
        if counts[name] > 1:
            results.append(R.DescribeUserScramCredentialsResult(
                user=name, error_code=ErrorCode.DUPLICATE_RESOURCE, credential_infos=[],
                error_message="Cannot describe SCRAM credentials for the same user twice in a single request"))
        elif not creds:
            results.append(R.DescribeUserScramCredentialsResult(
                user=name, error_code=ErrorCode.RESOURCE_NOT_FOUND, credential_infos=[],
                error_message="Attempt to describe a user credential that does not exist"))
        else:
            results.append(R.DescribeUserScramCredentialsResult(
                user=name, error_code=ErrorCode.NONE, error_message=None, credential_infos=[
                    R.CredentialInfo(mechanism=m, iterations=c.iterations) for m, c in sorted(creds.items())]))
    return R(throttle_time_ms=0, error_code=ErrorCode.NONE, error_message=None, results=results)


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    return response_class(API_KEY)(throttle_time_ms=0, error_code=code, error_message=None, results=[])


register(API_KEY, handle=handle, error_response=error_response,
         keys=lambda req, _v: tuple(u.name for u in req.users or ()))
