"""One module per Kafka API; importing this package registers every handler in ``HANDLERS``."""

from kadmin.testing.handlers import api_versions, coordinator, groups, metadata, offsets, quotas, sasl
from kadmin.testing.handlers.base import HANDLERS, ApiHandler, RequestContext, SaslState

__all__ = ["HANDLERS", "ApiHandler", "RequestContext", "SaslState", "api_versions", "coordinator", "groups",
           "metadata", "offsets", "quotas", "sasl"]
