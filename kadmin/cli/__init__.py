"""The ``kadmin`` command line: one module per command group, :mod:`kadmin.cli.main` for the entry point."""
