"""The one table of Kafka error codes: (code, NAME, retriable, message).

Codes and names follow Kafka's protocol error table (Errors.java) up to Kafka 4.1, which ends at 133; an older
or newer code outside the table still decodes, as ``UnknownBrokerError``.  ``retriable`` is True exactly when the
Java client's exception class for that code extends RetriableException (directly or through
InvalidMetadataException), because that is the contract other Kafka clients and brokers assume: a retriable code
means "the same request may succeed later, possibly after a metadata refresh".  Note the cases that look
transient but are not retriable in Java, such as REBALANCE_IN_PROGRESS, BROKER_NOT_AVAILABLE and
STALE_MEMBER_EPOCH: callers must handle those explicitly instead of blindly resending.

kadmin.errors builds one exception class per row, so this module stays a plain data table.
"""

from __future__ import annotations

from enum import IntEnum

# One row per line keeps the table greppable and diffs readable, so the formatter leaves it alone; a row too
# long for 120 columns carries its message on a second line.
# fmt: off
ERROR_CODES: list[tuple[int, str, bool, str]] = [
    (-1, "UNKNOWN_SERVER_ERROR", False, "The server experienced an unexpected error when processing the request."),
    (0, "NONE", False, ""),
    (1, "OFFSET_OUT_OF_RANGE", False, "The requested offset is outside the range of offsets the server holds."),
    (2, "CORRUPT_MESSAGE", True, "A message failed its CRC check, is too large, or is otherwise corrupt."),
    (3, "UNKNOWN_TOPIC_OR_PARTITION", True, "This server does not host this topic-partition."),
    (4, "INVALID_FETCH_SIZE", False, "The requested fetch size is invalid."),
    (5, "LEADER_NOT_AVAILABLE", True, "The partition has no leader right now, e.g. during a leader election."),
    (6, "NOT_LEADER_OR_FOLLOWER", True, "This broker is not the leader (or not a replica) of the partition."),
    (7, "REQUEST_TIMED_OUT", True, "The request timed out."),
    (8, "BROKER_NOT_AVAILABLE", False, "The broker is not available."),
    (9, "REPLICA_NOT_AVAILABLE", True, "The replica is not available for the requested topic-partition."),
    (10, "MESSAGE_TOO_LARGE", False, "A message is larger than the largest size the server accepts."),
    (11, "STALE_CONTROLLER_EPOCH", False, "The controller moved to another broker."),
    (12, "OFFSET_METADATA_TOO_LARGE", False, "The metadata string of the offset commit is too large."),
    (13, "NETWORK_EXCEPTION", True, "The server disconnected before a response was received."),
    (14, "COORDINATOR_LOAD_IN_PROGRESS", True, "The coordinator is loading and hence can't process requests."),
    (15, "COORDINATOR_NOT_AVAILABLE", True, "The coordinator is not available."),
    (16, "NOT_COORDINATOR", True, "This is not the correct coordinator."),
    (17, "INVALID_TOPIC_EXCEPTION", False, "The topic name is invalid or the operation is not allowed on this topic."),
    (18, "RECORD_LIST_TOO_LARGE", False, "A record batch is larger than the configured segment size."),
    (19, "NOT_ENOUGH_REPLICAS", True, "Rejected: fewer in-sync replicas than required."),
    (20, "NOT_ENOUGH_REPLICAS_AFTER_APPEND", True, "Written, but to fewer in-sync replicas than required."),
    (21, "INVALID_REQUIRED_ACKS", False, "The produce request has an invalid acks value."),
    (22, "ILLEGAL_GENERATION", False, "The group generation id is not valid."),
    (23, "INCONSISTENT_GROUP_PROTOCOL", False, "The member's protocols do not match those of the other group members."),
    (24, "INVALID_GROUP_ID", False, "The group id is invalid."),
    (25, "UNKNOWN_MEMBER_ID", False, "The coordinator does not know this member."),
    (26, "INVALID_SESSION_TIMEOUT", False, "The session timeout is outside the range the broker allows."),
    (27, "REBALANCE_IN_PROGRESS", False, "The group is rebalancing, so a rejoin is needed."),
    (28, "INVALID_COMMIT_OFFSET_SIZE", False, "The size of the committed offset data is not valid."),
    (29, "TOPIC_AUTHORIZATION_FAILED", False, "Topic authorization failed."),
    (30, "GROUP_AUTHORIZATION_FAILED", False, "Group authorization failed."),
    (31, "CLUSTER_AUTHORIZATION_FAILED", False, "Cluster authorization failed."),
    (32, "INVALID_TIMESTAMP", False, "The message timestamp is out of the accepted range."),
    (33, "UNSUPPORTED_SASL_MECHANISM", False, "The broker does not support the requested SASL mechanism."),
    (34, "ILLEGAL_SASL_STATE", False, "The request is not valid in the current SASL state."),
    (35, "UNSUPPORTED_VERSION", False, "The version of API is not supported."),
    (36, "TOPIC_ALREADY_EXISTS", False, "A topic with this name already exists."),
    (37, "INVALID_PARTITIONS", False, "The number of partitions is invalid."),
    (38, "INVALID_REPLICATION_FACTOR", False, "The replication factor is invalid."),
    (39, "INVALID_REPLICA_ASSIGNMENT", False, "The replica assignment is invalid."),
    (40, "INVALID_CONFIG", False, "The configuration is invalid."),
    (41, "NOT_CONTROLLER", True, "This is not the correct controller for this cluster."),
    (42, "INVALID_REQUEST", False, "This most likely occurs because of a request being malformed."),
    (43, "UNSUPPORTED_FOR_MESSAGE_FORMAT", False, "The broker's message format version does not support the request."),
    (44, "POLICY_VIOLATION", False, "The request does not satisfy the configured policy."),
    (45, "OUT_OF_ORDER_SEQUENCE_NUMBER", False, "The broker received an out-of-order sequence number."),
    (46, "DUPLICATE_SEQUENCE_NUMBER", False, "The broker received a duplicate sequence number."),
    (47, "INVALID_PRODUCER_EPOCH", False, "The producer used an old epoch."),
    (48, "INVALID_TXN_STATE", False, "The transactional operation is not valid in the current state."),
    (49, "INVALID_PRODUCER_ID_MAPPING", False, "The producer id is not assigned to this transactional id."),
    (50, "INVALID_TRANSACTION_TIMEOUT", False, "The transaction timeout exceeds the broker's maximum."),
    (51, "CONCURRENT_TRANSACTIONS", True, "Another operation on the same transaction is still in progress."),
    (52, "TRANSACTION_COORDINATOR_FENCED", False,
     "The transaction coordinator is no longer the current one for this producer."),
    (53, "TRANSACTIONAL_ID_AUTHORIZATION_FAILED", False, "Transactional id authorization failed."),
    (54, "SECURITY_DISABLED", False, "Security features are disabled."),
    (55, "OPERATION_NOT_ATTEMPTED", False,
     "The broker did not attempt this operation because another one in the batch failed."),
    (56, "KAFKA_STORAGE_ERROR", True, "A disk error occurred while accessing a log file."),
    (57, "LOG_DIR_NOT_FOUND", False, "The log directory is not in the broker configuration."),
    (58, "SASL_AUTHENTICATION_FAILED", False, "SASL Authentication failed."),
    (59, "UNKNOWN_PRODUCER_ID", False, "The broker has no state for this producer id (e.g. its records expired)."),
    (60, "REASSIGNMENT_IN_PROGRESS", False, "A partition reassignment is in progress."),
    (61, "DELEGATION_TOKEN_AUTH_DISABLED", False, "Delegation tokens are not enabled."),
    (62, "DELEGATION_TOKEN_NOT_FOUND", False, "The delegation token was not found."),
    (63, "DELEGATION_TOKEN_OWNER_MISMATCH", False, "The principal is not a valid owner or renewer of the token."),
    (64, "DELEGATION_TOKEN_REQUEST_NOT_ALLOWED", False,
     "Delegation token requests are not allowed on this kind of connection."),
    (65, "DELEGATION_TOKEN_AUTHORIZATION_FAILED", False, "Delegation token authorization failed."),
    (66, "DELEGATION_TOKEN_EXPIRED", False, "The delegation token has expired."),
    (67, "INVALID_PRINCIPAL_TYPE", False, "The principal type is not supported."),
    (68, "NON_EMPTY_GROUP", False, "The group is not empty."),
    (69, "GROUP_ID_NOT_FOUND", False, "The group id does not exist."),
    (70, "FETCH_SESSION_ID_NOT_FOUND", True, "The fetch session id was not found."),
    (71, "INVALID_FETCH_SESSION_EPOCH", True, "The fetch session epoch is invalid."),
    (72, "LISTENER_NOT_FOUND", True, "The leader has no listener matching the one the metadata request came in on."),
    (73, "TOPIC_DELETION_DISABLED", False, "Topic deletion is disabled."),
    (74, "FENCED_LEADER_EPOCH", True, "The leader epoch in the request is older than the broker's."),
    (75, "UNKNOWN_LEADER_EPOCH", True, "The leader epoch in the request is newer than the broker's."),
    (76, "UNSUPPORTED_COMPRESSION_TYPE", False, "The client does not support the partition's compression type."),
    (77, "STALE_BROKER_EPOCH", False, "The broker epoch has changed."),
    (78, "OFFSET_NOT_AVAILABLE", True,
     "The new leader's high watermark has not caught up yet, so offsets are not available."),
    (79, "MEMBER_ID_REQUIRED", False, "The member needs a member id before it can join the group."),
    (80, "PREFERRED_LEADER_NOT_AVAILABLE", True, "The preferred leader is not available."),
    (81, "GROUP_MAX_SIZE_REACHED", False, "The group has reached its maximum size."),
    (82, "FENCED_INSTANCE_ID", False, "Another member with the same group.instance.id fenced this static member."),
    (83, "ELIGIBLE_LEADERS_NOT_AVAILABLE", True, "No eligible leader is available for the partition."),
    (84, "ELECTION_NOT_NEEDED", True, "A leader election is not needed for the partition."),
    (85, "NO_REASSIGNMENT_IN_PROGRESS", False, "No partition reassignment is in progress."),
    (86, "GROUP_SUBSCRIBED_TO_TOPIC", False, "Cannot delete offsets of a topic the group is still subscribed to."),
    (87, "INVALID_RECORD", False, "The broker rejected a record that failed validation."),
    (88, "UNSTABLE_OFFSET_COMMIT", True, "There are pending transactional offsets that must settle first."),
    (89, "THROTTLING_QUOTA_EXCEEDED", True, "The throttling quota has been exceeded."),
    (90, "PRODUCER_FENCED", False, "A newer producer with the same transactional id fenced this one."),
    (91, "RESOURCE_NOT_FOUND", False, "The request refers to a resource that does not exist."),
    (92, "DUPLICATE_RESOURCE", False, "The request refers to the same resource twice."),
    (93, "UNACCEPTABLE_CREDENTIAL", False, "The requested credential does not meet the acceptance criteria."),
    (94, "INCONSISTENT_VOTER_SET", False, "The sender or receiver of a voter-only request is not an expected voter."),
    (95, "INVALID_UPDATE_VERSION", False, "The update version is invalid."),
    (96, "FEATURE_UPDATE_FAILED", False, "Updating finalized features failed due to an unexpected server error."),
    (97, "PRINCIPAL_DESERIALIZATION_FAILURE", False, "The forwarded request principal could not be deserialized."),
    (98, "SNAPSHOT_NOT_FOUND", False, "The requested snapshot was not found."),
    (99, "POSITION_OUT_OF_RANGE", False, "The requested position is outside the snapshot."),
    (100, "UNKNOWN_TOPIC_ID", True, "This server does not host this topic id."),
    (101, "DUPLICATE_BROKER_REGISTRATION", False, "This broker id is already in use."),
    (102, "BROKER_ID_NOT_REGISTERED", False, "The broker id is not registered."),
    (103, "INCONSISTENT_TOPIC_ID", True, "The log's topic id does not match the topic id in the request."),
    (104, "INCONSISTENT_CLUSTER_ID", False, "The cluster id in the request does not match the server's."),
    (105, "TRANSACTIONAL_ID_NOT_FOUND", False, "The transactional id was not found."),
    (106, "FETCH_SESSION_TOPIC_ID_ERROR", True, "The fetch session used topic ids inconsistently."),
    (107, "INELIGIBLE_REPLICA", False, "The new ISR contains an ineligible replica."),
    (108, "NEW_LEADER_ELECTED", False, "The partition state was updated but the leader has changed."),
    (109, "OFFSET_MOVED_TO_TIERED_STORAGE", False, "The requested offset has moved to tiered storage."),
    (110, "FENCED_MEMBER_EPOCH", False,
     "The member epoch is fenced; the member must give up its partitions and rejoin."),
    (111, "UNRELEASED_INSTANCE_ID", False, "Another member still uses this instance id and must leave first."),
    (112, "UNSUPPORTED_ASSIGNOR", False, "The group does not support this assignor or its version range."),
    (113, "STALE_MEMBER_EPOCH", False,
     "The member epoch is stale; retry after the heartbeat returns the current epoch."),
    (114, "MISMATCHED_ENDPOINT_TYPE", False, "The request was sent to the wrong type of endpoint."),
    (115, "UNSUPPORTED_ENDPOINT_TYPE", False, "This endpoint type is not supported yet."),
    (116, "UNKNOWN_CONTROLLER_ID", False, "The controller id is not known."),
    (117, "UNKNOWN_SUBSCRIPTION_ID", False, "The telemetry subscription id is invalid or outdated."),
    (118, "TELEMETRY_TOO_LARGE", False, "The telemetry push is larger than the broker accepts."),
    (119, "INVALID_REGISTRATION", False, "The controller considers the broker registration invalid."),
    (120, "TRANSACTION_ABORTABLE", False, "The transaction hit an error; abort it to keep using the transactional id."),
    (121, "INVALID_RECORD_STATE", False, "The record state is invalid, so the acknowledgement could not be completed."),
    (122, "SHARE_SESSION_NOT_FOUND", True, "The share session was not found."),
    (123, "INVALID_SHARE_SESSION_EPOCH", True, "The share session epoch is invalid."),
    (124, "FENCED_STATE_EPOCH", False, "The share-group state epoch did not match."),
    (125, "INVALID_VOTER_KEY", False, "The voter key does not match the receiving replica's key."),
    (126, "DUPLICATE_VOTER", False, "The voter is already in the voter set."),
    (127, "VOTER_NOT_FOUND", False, "The voter is not in the voter set."),
    (128, "INVALID_REGULAR_EXPRESSION", False, "The regular expression is not valid."),
    (129, "REBOOTSTRAP_REQUIRED", False, "Client metadata is stale; the client should rebootstrap."),
    (130, "STREAMS_INVALID_TOPOLOGY", False, "The supplied Streams topology is invalid."),
    (131, "STREAMS_INVALID_TOPOLOGY_EPOCH", False, "The supplied Streams topology epoch is invalid."),
    (132, "STREAMS_TOPOLOGY_FENCED", False, "The supplied Streams topology epoch is outdated."),
    (133, "SHARE_SESSION_LIMIT_REACHED", True, "The limit of share sessions has been reached."),
]
# fmt: on


class ErrorCode(IntEnum):
    """Kafka error codes by name (the table above, as an enum): write ``ErrorCode.NOT_COORDINATOR``, never 16.

    tests/protocol/test_errors.py checks that this enum and ERROR_CODES agree, row for row."""

    UNKNOWN_SERVER_ERROR = -1
    NONE = 0
    OFFSET_OUT_OF_RANGE = 1
    CORRUPT_MESSAGE = 2
    UNKNOWN_TOPIC_OR_PARTITION = 3
    INVALID_FETCH_SIZE = 4
    LEADER_NOT_AVAILABLE = 5
    NOT_LEADER_OR_FOLLOWER = 6
    REQUEST_TIMED_OUT = 7
    BROKER_NOT_AVAILABLE = 8
    REPLICA_NOT_AVAILABLE = 9
    MESSAGE_TOO_LARGE = 10
    STALE_CONTROLLER_EPOCH = 11
    OFFSET_METADATA_TOO_LARGE = 12
    NETWORK_EXCEPTION = 13
    COORDINATOR_LOAD_IN_PROGRESS = 14
    COORDINATOR_NOT_AVAILABLE = 15
    NOT_COORDINATOR = 16
    INVALID_TOPIC_EXCEPTION = 17
    RECORD_LIST_TOO_LARGE = 18
    NOT_ENOUGH_REPLICAS = 19
    NOT_ENOUGH_REPLICAS_AFTER_APPEND = 20
    INVALID_REQUIRED_ACKS = 21
    ILLEGAL_GENERATION = 22
    INCONSISTENT_GROUP_PROTOCOL = 23
    INVALID_GROUP_ID = 24
    UNKNOWN_MEMBER_ID = 25
    INVALID_SESSION_TIMEOUT = 26
    REBALANCE_IN_PROGRESS = 27
    INVALID_COMMIT_OFFSET_SIZE = 28
    TOPIC_AUTHORIZATION_FAILED = 29
    GROUP_AUTHORIZATION_FAILED = 30
    CLUSTER_AUTHORIZATION_FAILED = 31
    INVALID_TIMESTAMP = 32
    UNSUPPORTED_SASL_MECHANISM = 33
    ILLEGAL_SASL_STATE = 34
    UNSUPPORTED_VERSION = 35
    TOPIC_ALREADY_EXISTS = 36
    INVALID_PARTITIONS = 37
    INVALID_REPLICATION_FACTOR = 38
    INVALID_REPLICA_ASSIGNMENT = 39
    INVALID_CONFIG = 40
    NOT_CONTROLLER = 41
    INVALID_REQUEST = 42
    UNSUPPORTED_FOR_MESSAGE_FORMAT = 43
    POLICY_VIOLATION = 44
    OUT_OF_ORDER_SEQUENCE_NUMBER = 45
    DUPLICATE_SEQUENCE_NUMBER = 46
    INVALID_PRODUCER_EPOCH = 47
    INVALID_TXN_STATE = 48
    INVALID_PRODUCER_ID_MAPPING = 49
    INVALID_TRANSACTION_TIMEOUT = 50
    CONCURRENT_TRANSACTIONS = 51
    TRANSACTION_COORDINATOR_FENCED = 52
    TRANSACTIONAL_ID_AUTHORIZATION_FAILED = 53
    SECURITY_DISABLED = 54
    OPERATION_NOT_ATTEMPTED = 55
    KAFKA_STORAGE_ERROR = 56
    LOG_DIR_NOT_FOUND = 57
    SASL_AUTHENTICATION_FAILED = 58
    UNKNOWN_PRODUCER_ID = 59
    REASSIGNMENT_IN_PROGRESS = 60
    DELEGATION_TOKEN_AUTH_DISABLED = 61
    DELEGATION_TOKEN_NOT_FOUND = 62
    DELEGATION_TOKEN_OWNER_MISMATCH = 63
    DELEGATION_TOKEN_REQUEST_NOT_ALLOWED = 64
    DELEGATION_TOKEN_AUTHORIZATION_FAILED = 65
    DELEGATION_TOKEN_EXPIRED = 66
    INVALID_PRINCIPAL_TYPE = 67
    NON_EMPTY_GROUP = 68
    GROUP_ID_NOT_FOUND = 69
    FETCH_SESSION_ID_NOT_FOUND = 70
    INVALID_FETCH_SESSION_EPOCH = 71
    LISTENER_NOT_FOUND = 72
    TOPIC_DELETION_DISABLED = 73
    FENCED_LEADER_EPOCH = 74
    UNKNOWN_LEADER_EPOCH = 75
    UNSUPPORTED_COMPRESSION_TYPE = 76
    STALE_BROKER_EPOCH = 77
    OFFSET_NOT_AVAILABLE = 78
    MEMBER_ID_REQUIRED = 79
    PREFERRED_LEADER_NOT_AVAILABLE = 80
    GROUP_MAX_SIZE_REACHED = 81
    FENCED_INSTANCE_ID = 82
    ELIGIBLE_LEADERS_NOT_AVAILABLE = 83
    ELECTION_NOT_NEEDED = 84
    NO_REASSIGNMENT_IN_PROGRESS = 85
    GROUP_SUBSCRIBED_TO_TOPIC = 86
    INVALID_RECORD = 87
    UNSTABLE_OFFSET_COMMIT = 88
    THROTTLING_QUOTA_EXCEEDED = 89
    PRODUCER_FENCED = 90
    RESOURCE_NOT_FOUND = 91
    DUPLICATE_RESOURCE = 92
    UNACCEPTABLE_CREDENTIAL = 93
    INCONSISTENT_VOTER_SET = 94
    INVALID_UPDATE_VERSION = 95
    FEATURE_UPDATE_FAILED = 96
    PRINCIPAL_DESERIALIZATION_FAILURE = 97
    SNAPSHOT_NOT_FOUND = 98
    POSITION_OUT_OF_RANGE = 99
    UNKNOWN_TOPIC_ID = 100
    DUPLICATE_BROKER_REGISTRATION = 101
    BROKER_ID_NOT_REGISTERED = 102
    INCONSISTENT_TOPIC_ID = 103
    INCONSISTENT_CLUSTER_ID = 104
    TRANSACTIONAL_ID_NOT_FOUND = 105
    FETCH_SESSION_TOPIC_ID_ERROR = 106
    INELIGIBLE_REPLICA = 107
    NEW_LEADER_ELECTED = 108
    OFFSET_MOVED_TO_TIERED_STORAGE = 109
    FENCED_MEMBER_EPOCH = 110
    UNRELEASED_INSTANCE_ID = 111
    UNSUPPORTED_ASSIGNOR = 112
    STALE_MEMBER_EPOCH = 113
    MISMATCHED_ENDPOINT_TYPE = 114
    UNSUPPORTED_ENDPOINT_TYPE = 115
    UNKNOWN_CONTROLLER_ID = 116
    UNKNOWN_SUBSCRIPTION_ID = 117
    TELEMETRY_TOO_LARGE = 118
    INVALID_REGISTRATION = 119
    TRANSACTION_ABORTABLE = 120
    INVALID_RECORD_STATE = 121
    SHARE_SESSION_NOT_FOUND = 122
    INVALID_SHARE_SESSION_EPOCH = 123
    FENCED_STATE_EPOCH = 124
    INVALID_VOTER_KEY = 125
    DUPLICATE_VOTER = 126
    VOTER_NOT_FOUND = 127
    INVALID_REGULAR_EXPRESSION = 128
    REBOOTSTRAP_REQUIRED = 129
    STREAMS_INVALID_TOPOLOGY = 130
    STREAMS_INVALID_TOPOLOGY_EPOCH = 131
    STREAMS_TOPOLOGY_FENCED = 132
    SHARE_SESSION_LIMIT_REACHED = 133
