"""Faults, chaos, hostile input, load, and the benchmarks run at test sizes."""
