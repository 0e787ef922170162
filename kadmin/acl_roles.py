"""kafka-acls.sh's ``--producer`` / ``--consumer`` roles: which operations each grants on which resource.

One table (:data:`ROLE_OPERATIONS`) read by both users of the roles, so that they cannot drift apart:
``kadmin acls create|delete --producer/--consumer`` (:mod:`kadmin.cli.acls`, through :func:`role_grants`) and
the ``acl_roles`` kind of provisioning (:mod:`kadmin.spark.kinds.acl_roles`, which builds its Spark SQL from the
same table).  The expansion is the one Kafka's AclCommand makes today:

* producer: WRITE, DESCRIBE and CREATE on each topic; WRITE and DESCRIBE on each transactional id;
* consumer: READ and DESCRIBE on each topic; READ on each group;
* ``--idempotent`` (producer only): IDEMPOTENT_WRITE on the cluster.  Brokers since Kafka 3.0 (KIP-679) let a
  producer with WRITE on a topic write idempotently without it, but kafka-acls.sh still adds the binding when
  asked, and so does kadmin: the binding is harmless there and needed by older brokers.

A role's bindings take the pattern type given for it (LITERAL or PREFIXED) on its topics, groups and
transactional ids; the cluster resource is always LITERAL ``kafka-cluster``.  Pure: no sockets, no Spark.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final

from kadmin.acls import CLUSTER_NAME, AclOperation, ResourceType

PRODUCER: Final = "producer"
CONSUMER: Final = "consumer"
#: The roles, in the order their operations are listed for a resource both name (a topic of a producer and
#: consumer).
ROLES: Final = (PRODUCER, CONSUMER)

#: (role, resource type) -> the operations the role grants on each resource of that type it names.
ROLE_OPERATIONS: Final[Mapping[tuple[str, ResourceType], tuple[AclOperation, ...]]] = {
    (PRODUCER, ResourceType.TOPIC): (AclOperation.WRITE, AclOperation.DESCRIBE, AclOperation.CREATE),
    (PRODUCER, ResourceType.TRANSACTIONAL_ID): (AclOperation.WRITE, AclOperation.DESCRIBE),
    (CONSUMER, ResourceType.TOPIC): (AclOperation.READ, AclOperation.DESCRIBE),
    (CONSUMER, ResourceType.GROUP): (AclOperation.READ,),
}
#: What an idempotent producer adds: (resource type, resource name, operation), always a LITERAL pattern.
IDEMPOTENT_GRANT: Final = (ResourceType.CLUSTER, CLUSTER_NAME, AclOperation.IDEMPOTENT_WRITE)

Grant = tuple[ResourceType, str, AclOperation]


def role_grants(roles: Iterable[str], resources: Iterable[tuple[ResourceType, str]], *,
                idempotent: bool = False) -> list[Grant]:
    """What ``roles`` grant on ``resources`` (resource by resource, each role's operations in turn; duplicates
    once), plus the cluster's IDEMPOTENT_WRITE when ``idempotent``.  A resource no role grants anything on
    (a group of a producer) adds nothing: which resources go with which role is the caller's rule to check
    (the CLI refuses them with its flags' names, the Spark kind rejects the row)."""
    wanted = [r for r in ROLES if r in set(roles)]
    out: list[Grant] = []
    for rt, name in resources:
        for role in wanted:
            out += [(rt, name, op) for op in ROLE_OPERATIONS.get((role, rt), ())]
    if idempotent:
        out.append(IDEMPOTENT_GRANT)
    return list(dict.fromkeys(out))


__all__ = ["CONSUMER", "IDEMPOTENT_GRANT", "PRODUCER", "ROLES", "ROLE_OPERATIONS", "Grant", "role_grants"]
