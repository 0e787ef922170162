"""Client settings the tests share: retries fast enough that a retried call costs milliseconds, deadlines long
enough for a loaded 2-core machine.

One copy, so that a test file does not carry its own near-identical dict (eleven did) and a change of the
client's defaults is made here once.  Tests that measure backoff itself keep their own, explicit values.
"""

from __future__ import annotations

from typing import Any

#: Against the in-process FakeCluster: 20 ms first backoff, 100 ms cap, 10 s per call.
FAST: dict[str, Any] = {"retry_backoff_s": 0.02, "retry_backoff_max_s": 0.1, "default_timeout_s": 10.0}

#: Against a real peer (Tansu, librdkafka's mock), which answers slower and may still be starting a partition:
#: a 200 ms cap and 15 s per call.
PEER_FAST: dict[str, Any] = {"retry_backoff_s": 0.02, "retry_backoff_max_s": 0.2, "default_timeout_s": 15.0}

#: Fault tests: short per-request and connect timeouts too, so that an injected fault costs milliseconds.
FAULT_FAST: dict[str, Any] = {
    "retry_backoff_s": 0.02,
    "retry_backoff_max_s": 0.2,
    "request_timeout_s": 1.0,
    "connect_timeout_s": 0.5,
    "default_timeout_s": 5.0,
}

#: Login tests (SASL, OAUTHBEARER, Kerberos): a first contact bounded at 5 s, so that a refused login or an
#: unreachable token endpoint fails the test quickly, and a 200 ms backoff cap.
AUTH_FAST: dict[str, Any] = {"bootstrap_timeout_s": 5.0, "default_timeout_s": 10.0, "retry_backoff_s": 0.05,
                             "retry_backoff_max_s": 0.2}
