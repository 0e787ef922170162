"""The fake cluster's state, one module per area (topics, groups, coordinators, quotas, ...).

Each area module owns its data, the helpers that change it, and the FakeCluster methods tests use to seed and
inspect it; :class:`ClusterState` hands out one instance per area (``state.area(Topics)``), made on first use.
An API that needs state of a new kind adds its own area module here and edits no shared class.

The names below stay importable from ``kadmin.testing.state`` for code written before the split.
"""

from kadmin.testing.state.base import AreaAdmin, ClusterState
from kadmin.testing.state.coordinators import java_string_hash, partition_for
from kadmin.testing.state.groups import CommittedOffset, GroupSnapshot, Member
from kadmin.testing.state.log_dirs import DEFAULT_LOG_DIR, LogDir
from kadmin.testing.state.topics import BYTES_PER_RECORD, PartitionSnapshot

__all__ = ["BYTES_PER_RECORD", "DEFAULT_LOG_DIR", "AreaAdmin", "ClusterState", "CommittedOffset", "GroupSnapshot",
           "LogDir", "Member", "PartitionSnapshot", "java_string_hash", "partition_for"]
