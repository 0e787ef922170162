"""Provision Kafka client quotas from a Spark DataFrame: validate, plan (diff), apply, report.

Install with ``pip install kafka-kadmin[spark]``.  PySpark is imported only when one of these names is first
used, so ``import kadmin`` (and even ``import kadmin.spark``) never needs it.

::

    from kadmin import AdminClient
    from kadmin.spark import provision_quotas

    desired = spark.read.parquet("quotas.parquet")   # user, client_id, ip, quota_key, value (or wide)
    with AdminClient("broker:9092") as admin:
        results = provision_quotas(desired, admin, mode="apply")
    results.groupBy("action", "status").count().show()

Only the DataFrame API is used (no RDDs, no SparkContext), so the same code runs on classic PySpark and on
Spark Connect.  The formats, scope and actions are described in :mod:`kadmin.spark.kinds.quotas.schema` and
:mod:`kadmin.spark.kinds.quotas.diff`; the results schema is :data:`RESULT_COLUMNS`:

``user, client_id, ip, quota_key, old_value, new_value, action, status, error``

* ``action``: ``set`` | ``remove`` | ``unchanged`` | ``reject``;
* ``status``: ``ok`` | ``failed`` (apply), ``validated`` | ``failed`` (validate), ``planned`` (plan), and
  ``unchanged`` / ``rejected`` in every mode;
* ``error``: why a row was rejected or failed (null otherwise).

Guarantees worth knowing:

* every input row is accounted for: valid rows become set/remove/unchanged rows, invalid ones ``reject``
  rows with their reason; only *identical* duplicate rows (same entity, key and value) merge into one
  result row, while different values for one entity and key are all rejected;
* nothing is sent for a rejected row, and a rejected row never stops the valid ones (``strict=True``
  refuses the whole input instead, before sending anything);
* a second run of the same input sends nothing: values are compared by exact double equality, and
  DoubleType values reach the wire with their bits unchanged (see :mod:`kadmin.spark.kinds.quotas.schema` for decimal
  and integer columns);
* a failure is per entity (``status="failed"``, ``error`` says why) and never stops other entities; running
  the same input again retries exactly what is still different, including after an interruption.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "provision_quotas": "kadmin.spark.kinds.quotas.stream",
    "plan_quotas": "kadmin.spark.kinds.quotas.diff",
    "Progress": "kadmin.spark.report",
    "summary": "kadmin.spark.report",
    "RejectedRowsError": "kadmin.spark.kinds.quotas.validate",
    "RESULT_COLUMNS": "kadmin.spark.kinds.quotas.schema",
    "DEFAULT_ENTITY": "kadmin.spark.kinds.quotas.schema",
    "result_schema": "kadmin.spark.kinds.quotas.schema",
    # declarative tenant provisioning (topics, configs, ACLs, SCRAM users, quotas): docs/provision.md
    "provision": "kadmin.spark.apply",
    "apply_plan": "kadmin.spark.apply",
    "drift": "kadmin.spark.apply",
    "StderrProgress": "kadmin.spark.report",
    "TenantProgress": "kadmin.spark.apply",
    "TENANT_RESULT_COLUMNS": "kadmin.spark.apply",
    "TenantSpec": "kadmin.spark.spec",
    "Scope": "kadmin.spark.spec",
    "SpecError": "kadmin.spark.spec",
    "env_or_file_secrets": "kadmin.spark.spec",
    "PLAN_COLUMNS": "kadmin.spark.plan",
    # a live cluster written as a spec (docs/provision.md, "Exporting a cluster")
    "export": "kadmin.spark.export",
    "ExportResult": "kadmin.spark.export",
    # rules every spec row must follow, checked at plan time (docs/provision.md, "Policies")
    "Policy": "kadmin.spark.policy",
    "PolicyError": "kadmin.spark.policy",
    "load_policy": "kadmin.spark.policy",
}

if TYPE_CHECKING:
    from kadmin.spark.apply import (
        TENANT_RESULT_COLUMNS,
        TenantProgress,
        apply_plan,
        drift,
        provision,
    )
    from kadmin.spark.export import ExportResult, export
    from kadmin.spark.kinds.quotas.diff import plan_quotas
    from kadmin.spark.kinds.quotas.schema import DEFAULT_ENTITY, RESULT_COLUMNS, result_schema
    from kadmin.spark.kinds.quotas.stream import provision_quotas
    from kadmin.spark.kinds.quotas.validate import RejectedRowsError
    from kadmin.spark.plan import PLAN_COLUMNS
    from kadmin.spark.policy import Policy, PolicyError, load_policy
    from kadmin.spark.report import Progress, StderrProgress, summary
    from kadmin.spark.spec import Scope, SpecError, TenantSpec, env_or_file_secrets


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'kadmin.spark' has no attribute {name!r}")
    try:
        value = getattr(importlib.import_module(module), name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and exc.name.split(".")[0] == "pyspark":
            raise ModuleNotFoundError(
                "kadmin.spark needs PySpark: pip install 'kafka-kadmin[spark]'", name=exc.name) from exc
        raise
    globals()[name] = value
    return value


__all__ = [
    "DEFAULT_ENTITY",
    "ExportResult",
    "PLAN_COLUMNS",
    "Policy",
    "PolicyError",
    "RESULT_COLUMNS",
    "TENANT_RESULT_COLUMNS",
    "Progress",
    "RejectedRowsError",
    "Scope",
    "SpecError",
    "StderrProgress",
    "TenantProgress",
    "TenantSpec",
    "apply_plan",
    "drift",
    "env_or_file_secrets",
    "export",
    "load_policy",
    "plan_quotas",
    "provision",
    "provision_quotas",
    "result_schema",
    "summary",
]
