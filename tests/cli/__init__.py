"""The ``kadmin`` command, in-process and as a subprocess, without Spark."""
