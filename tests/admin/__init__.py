"""kadmin.admin: the driver and the operations, over a scripted network or against FakeCluster."""
