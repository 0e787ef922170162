"""kadmin's tests, one folder per layer: a package, so every helper is imported as ``tests.support.X``.

Where a test file goes (the first rule that fits):

* ``spark/``       kadmin.spark and the provisioning commands (``kadmin quotas provision``, ``kadmin
                   provision``); every test that starts Spark, in this process or in a child, is here,
                   whatever it runs against (FakeCluster or a peer);
* ``peers/``       kadmin's operations or CLI against brokers kadmin did not write (Tansu, librdkafka's mock);
* ``protocol/``    the codec, the message schemas, the error-code and release tables;
* ``network/``     connections, negotiation, SASL/TLS/JAAS, client configuration, bootstrap;
* ``fake/``        the fake cluster itself (kadmin.testing), over raw sockets or through independent clients;
* ``admin/``       kadmin.admin's operations and the driver, over a scripted network or against FakeCluster;
* ``cli/``         the ``kadmin`` command (in-process ``main()`` or a subprocess) and its packaging;
* ``reliability/`` faults, chaos, hostile input, load, and the benchmarks run at test sizes;
* ``client/``      the public surface as a user meets it: the clients' methods and exports, value types and
                   their input checks, the examples, the README's snippets and the set-up scripts.
* ``docs/``        the documentation site: its strict build, the generated CLI and API reference, the samples
                   of docs/ run against fake clusters, the migration table checked against the peer packages.

Helpers used by more than one file live in ``support/`` (peers, hostile broker, proxies, strategies, TLS,
SASL, the CLI runners, the shared settings and clusters); fixtures every layer uses are in ``conftest.py``,
the Spark sessions in ``spark/conftest.py``.  client/test_test_layout.py checks the layout.
"""
