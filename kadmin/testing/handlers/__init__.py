"""One module per Kafka API; importing this package registers every handler in ``HANDLERS``."""

from kadmin.testing.handlers import (
    alter_configs,
    alter_reassignments,
    alter_user_scram_credentials,
    api_versions,
    coordinator,
    create_acls,
    create_partitions,
    create_topics,
    delete_acls,
    delete_records,
    delete_topics,
    describe_acls,
    describe_configs,
    describe_topic_partitions,
    describe_user_scram_credentials,
    elect_leaders,
    groups,
    incremental_alter_configs,
    list_reassignments,
    log_dirs,
    metadata,
    offsets,
    quotas,
    sasl,
)
from kadmin.testing.handlers.base import HANDLERS, ApiHandler, RequestContext, SaslState

__all__ = ["HANDLERS", "ApiHandler", "RequestContext", "SaslState", "api_versions", "coordinator", "groups",
           "metadata", "offsets", "quotas", "sasl",
           "alter_reassignments", "delete_records", "elect_leaders", "list_reassignments", "log_dirs",
           "alter_configs", "create_partitions", "create_topics", "delete_topics", "describe_configs",
           "describe_topic_partitions", "incremental_alter_configs",
           "alter_user_scram_credentials", "create_acls", "delete_acls", "describe_acls",
           "describe_user_scram_credentials"]
