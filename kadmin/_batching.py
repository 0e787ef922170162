"""Default batch sizes and concurrency of the batched operations (and the clients' other numeric signature
defaults), in a module that imports nothing.

Why a module of its own: the sync client's signatures show these defaults, and reading them from the operation
modules (kadmin.admin.quotas, .acls, .scram) would load the driver and the network layer with
``from kadmin import AdminClient`` (issue #28: import time).  The operation modules re-export them as their
``DEFAULT_BATCH_SIZE``/``DEFAULT_MAX_CONCURRENCY``.
"""

from __future__ import annotations

#: Client quota alterations per AlterClientQuotas request.  Every one goes to the one active controller,
#: which applies requests one after another, so more requests mean more controller round trips, not more
#: parallelism: on Kafka 3.9, 5,000 alterations took 0.368 s as five requests of 1,000 and 0.177 s as one
#: (issue #28).  10,000 alterations are about 0.5 MB, far below a broker's request size limit (100 MB).
QUOTA_BATCH_SIZE = 10_000
#: AlterClientQuotas requests in flight at once.
QUOTA_MAX_CONCURRENCY = 4
#: ACL bindings (or filters) per CreateAcls/DeleteAcls request.
ACL_BATCH_SIZE = 1000
#: CreateAcls/DeleteAcls requests in flight at once.
ACL_MAX_CONCURRENCY = 4
#: Users per AlterUserScramCredentials request.
SCRAM_BATCH_SIZE = 1000
#: Kafka's transaction.max.timeout.ms default (15 minutes): find_hanging_transactions' default threshold.
MAX_TRANSACTION_TIMEOUT_MS = 900_000
