"""The one table of Kafka error codes: (code, NAME, retriable, message).

Codes and names follow Kafka's protocol error table; ``retriable`` follows whether the Java client treats
the code as a RetriableException.  kadmin.errors builds one exception class per row.
"""

from __future__ import annotations

ERROR_CODES: list[tuple[int, str, bool, str]] = [
    (-1, "UNKNOWN_SERVER_ERROR", False, "The server experienced an unexpected error when processing the request."),
    (0, "NONE", False, ""),
    (7, "REQUEST_TIMED_OUT", True, "The request timed out."),
    (14, "COORDINATOR_LOAD_IN_PROGRESS", True, "The coordinator is loading and hence can't process requests."),
    (15, "COORDINATOR_NOT_AVAILABLE", True, "The coordinator is not available."),
    (16, "NOT_COORDINATOR", True, "This is not the correct coordinator."),
    (33, "UNSUPPORTED_SASL_MECHANISM", False, "The broker does not support the requested SASL mechanism."),
    (35, "UNSUPPORTED_VERSION", False, "The version of API is not supported."),
    (42, "INVALID_REQUEST", False, "This most likely occurs because of a request being malformed."),
    (58, "SASL_AUTHENTICATION_FAILED", False, "SASL Authentication failed."),
    (68, "NON_EMPTY_GROUP", False, "The group is not empty."),
    (69, "GROUP_ID_NOT_FOUND", False, "The group id does not exist."),
]
