"""A kind whose current state the cluster cannot give: its rows fail, the other kinds go on.

Why per kind and not a stopped run: a cluster may lack one API (SCRAM users on a broker older than 2.7 or
without DescribeUserScramCredentials, quotas on librdkafka's mock, ACLs without an authorizer) or refuse one
to the caller (an authorization error), while everything else in the spec can be provisioned.  Planning such
a kind without its state would guess (create what may exist, never delete), so its rows are not planned:

* each row of the kind becomes ``action = reject``, ``status = failed``, ``error`` = what could not be read
  and why (the error names the API, e.g. "cannot send DescribeUserScramCredentials ... it does not support
  this API"); a row rejected for its own content keeps that reason (``rejected``): it would be refused anyway;
* what depends on the kind is ``skipped`` with the reason: ACL grants naming a SCRAM user of the spec whose
  credentials could not be planned, ACL grants on a literal topic of the spec whose topic could not be;
* nothing of the kind is deleted (nothing was read to delete from), and nothing of it is sent on ``apply``
  (``reject`` rows never are), so a re-run once the cluster can answer plans the kind normally.

Only kadmin's errors are caught (:class:`~kadmin.errors.KafkaError`: unsupported API, authorization, timeouts,
a connection lost): a bug or bad input still raises.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import StructType

from kadmin.errors import KafkaError
from kadmin.spark.schema import sql_string
from kadmin.spark.tenant_state import Columns

log = logging.getLogger("kadmin.spark")


def _error_text(err: BaseException) -> str:
    name = getattr(err, "name", None)
    return f"{name or type(err).__name__}: {err}"


def read_kind(what: str, schema: StructType, read: Callable[[], Columns]) -> tuple[Columns, str | None]:
    """``read()``'s columns and None, or empty columns of ``schema`` and the reason the kind's rows fail."""
    try:
        return read(), None
    except KafkaError as exc:
        reason = f"the cluster's {what} could not be read: {_error_text(exc)}"
        log.warning("%s", reason)
        return {f.name: [] for f in schema.fields}, reason


def unreadable(part: DataFrame, reason: str) -> DataFrame:
    """A kind's plan rows (planned against an empty state) as not planned: failed with ``reason``, except rows
    rejected for their own content, which keep their reason."""
    own = "action = 'reject'"
    return part.selectExpr(
        "kind", "key", "'reject' AS action", "CAST(NULL AS STRING) AS old_value", "new_value",
        f"CASE WHEN {own} THEN status ELSE 'failed' END AS status",
        f"CASE WHEN {own} THEN error ELSE {sql_string(reason)} END AS error", "args")


def skip_acl_grants(acls: DataFrame, *, users: DataFrame | None = None,
                    topics: DataFrame | None = None) -> DataFrame:
    """ACL plan rows that would grant to a user (``users``: columns ``user``, ``why``) or on a literal topic
    (``topics``: columns ``topic``, ``why``) that could not be planned or was rejected, as ``skipped`` with the
    reason; other rows unchanged.  A grant for a principal with no credential is a dangling grant: a later
    user of that name would inherit it."""
    out = acls
    if users is not None:
        u = users.selectExpr("concat('User:', user) AS _dep", "why AS _why")
        out = _skip(out, u, "args['principal']", "SCRAM user ", "substring(_dep, 6)")
    if topics is not None:
        t = topics.selectExpr("topic AS _dep", "why AS _why")
        lit = ("CASE WHEN args['resource_type'] = 'TOPIC' AND args['pattern_type'] = 'LITERAL' "
               "THEN args['resource_name'] END")
        out = _skip(out, t, lit, "topic ", "_dep")
    return out


def _skip(acls: DataFrame, deps: DataFrame, on: str, what: str, name: str) -> DataFrame:
    # One reason per owner (an owner with two bad rows must not double its grants' rows).
    one = F.broadcast(deps.filter("_dep IS NOT NULL").groupBy("_dep").agg(F.min("_why").alias("_why")))
    j = acls.selectExpr("*", f"{on} AS _on").join(one, F.col("_on") == F.col("_dep"), "left")
    hit = "(_dep IS NOT NULL AND action = 'create')"
    return j.selectExpr(
        "kind", "key", f"CASE WHEN {hit} THEN 'reject' ELSE action END AS action", "old_value", "new_value",
        f"CASE WHEN {hit} THEN 'skipped' ELSE status END AS status",
        f"CASE WHEN {hit} THEN concat({sql_string(what)}, {name}, ' could not be provisioned: ', _why) "
        "ELSE error END AS error", "args")


__all__ = ["read_kind", "skip_acl_grants", "unreadable"]
