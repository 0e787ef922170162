"""kadmin's benchmarks: each module has ``run(quick: bool) -> dict`` and runs alone with ``python -m``."""
