"""kadmin.testing: a fake multi-broker Kafka cluster that speaks the real wire protocol on 127.0.0.1.

    from kadmin.testing import FakeCluster

    with FakeCluster(brokers=3, versions={1: "2.8", 2: "3.9", 3: "3.9"}) as cluster:
        cluster.add_group("g1", members=[Member("m-1", client_id="c")])
        cluster.inject(2, "DescribeGroups", error_code=16, count=1)
        ...  # point any Kafka client at cluster.bootstrap

Security: ``FakeCluster(sasl={...}, authorizer={"super_users": ["User:admin"]}, delegation_tokens=True)`` gives
SASL logins, an authorizer enforced on every API (ACLs added through CreateAcls or ``cluster.add_acl``; see
:mod:`kadmin.testing.authorizer` for the rules and for how a handler asks it), SCRAM credentials that
AlterUserScramCredentials writes and logins check (``cluster.scram_users``), and delegation tokens.

A pytest fixture, ``fake_cluster``, lives in :mod:`kadmin.testing.pytest_plugin`.
"""

from kadmin.testing.cluster import FakeCluster, SaslConfig
from kadmin.testing.requestlog import RequestLogEntry
from kadmin.testing.state.groups import CommittedOffset, GroupSnapshot, Member
from kadmin.testing.state.log_dirs import LogDir
from kadmin.testing.state.streams_groups import StreamsMember, StreamsTopic, Subtopology
from kadmin.testing.state.topics import PartitionSnapshot

__all__ = ["CommittedOffset", "FakeCluster", "GroupSnapshot", "LogDir", "Member", "PartitionSnapshot",
           "RequestLogEntry", "SaslConfig", "StreamsMember", "StreamsTopic", "Subtopology"]
