"""kadmin's tests, one folder per layer (a package, so that every test imports its helpers as ``tests.support.X``).

Where a test file goes (the first rule that fits):

* ``spark/``       it starts Spark, in this process or in a child (``kadmin quotas provision``, ``kadmin.spark``),
                   whatever it runs against (FakeCluster or a peer);
* ``peers/``       kadmin's operations or CLI against brokers kadmin did not write (Tansu, librdkafka's mock);
* ``protocol/``    the codec, the message schemas, the error-code and release tables;
* ``network/``     connections, negotiation, SASL/TLS/JAAS and client configuration, bootstrap;
* ``fake/``        the fake cluster itself (kadmin.testing), checked over raw sockets or by independent clients;
* ``admin/``       kadmin.admin operations and the driver, over a scripted network or against FakeCluster;
* ``cli/``         the ``kadmin`` command (in-process ``main()`` or a subprocess), packaging of the console script;
* ``reliability/`` faults, chaos, hostile input, load, and the benchmarks' smoke runs;
* ``client/``      the public surface as a user meets it: value types and their input checks, the examples,
                   the README's snippets and set-up scripts.

Helpers shared by several files live in ``support/`` (peers, hostile broker, proxies, strategies, TLS, SASL).
"""
